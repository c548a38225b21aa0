"""TileMap: a Tiled map as one entity, its tiles and objects, and its solid tiles' grid.

The map is static data: it never moves (bottom-left corner at world (0, 0), y up) and
holds no buffered state of its own. What a snapshot and a save keep of it is its file's
name and the digest of its content (``map``, ``digest``), never a path: a state hash
does not depend on where the game lives, and a save never makes the engine open a file.
On load the map is found, by digest, among the maps this process has read (the command
line runs the game's ``build`` before it loads a save, so the game's maps are there);
a map whose content changed since the save is refused by name.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, cast

from engine.entity import Entity
from engine.spatial import SpatialIndex
from engine.tiles.model import EMPTY, LayerData, MapData, MapError, MapObject, Tile

__all__ = ["TileMap"]

_READ: dict[str, MapData] = {}
"""Every map read in this process, by digest: what a loaded save's maps are rebuilt from."""


class TileMap(Entity):
    """A Tiled map (``.tmj`` or ``.tmx``) spawned into a world: ``world.spawn(TileMap.load(path))``.

    It lies with its bottom-left corner at world (0, 0), y up. ``layers`` are its tile
    layers' names, bottom first; ``tile_at(x, y)`` the tile under a point; ``objects`` its
    object layers' objects (``MapObject``, for spawning the game's entities); ``properties``
    the map's custom properties. Its solid tiles answer ``world.overlapping_at`` and
    ``world.overlapping`` from a grid built once, never per tick. The renderer draws each
    tile layer from one vertex buffer.
    """

    static: ClassVar[bool] = True
    saved: ClassVar[tuple[str, ...]] = ("map", "digest")

    def __init__(self, data: MapData) -> None:
        super().__init__(0.0, 0.0)
        self.map = data.name
        """The map file's name (no directory): what snapshots and saves show."""
        self.digest = data.digest
        """SHA-256 of the map's content: what a save finds the map again by."""
        self._use(data)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> TileMap:
        """Read and check the Tiled map at ``path``; ``MapError`` (one line naming the file) if it is bad."""
        from engine.tiles.reading import read_map

        data = read_map(os.fspath(path))
        _READ[data.digest] = data
        return cls(data)

    def on_load(self, world: Any) -> None:
        """After a save is loaded: the map's data again, from the map of the same content read in this process."""
        data = _READ.get(self.digest) if isinstance(self.digest, str) else None
        if data is None:
            raise MapError(f"the map {self.map!r} (content {str(self.digest)[:12]}) is not loaded in this process: "
                           "a save names a map by its content, never by a path; load it with TileMap.load in build "
                           "(a changed map file does not fit an older save)")
        if self.map != data.name:
            # The name is read back from the map itself: a save cannot make it name another file.
            raise MapError(f"the save names the map {self.map!r}, but its content is that of {data.name!r}")
        self._use(data)

    def _use(self, data: MapData) -> None:
        self.data = data
        self.columns, self.rows = data.columns, data.rows
        self.tile_width, self.tile_height = data.tile_width, data.tile_height
        self.width, self.height = data.columns * data.tile_width, data.rows * data.tile_height
        self.layers: tuple[str, ...] = tuple(layer.name for layer in data.layers)
        self.properties: Mapping[str, Any] = data.properties
        self.objects: list[MapObject] = list(data.objects)
        solid = [tile for layer in data.layers for tile in self._solid_tiles(layer)]
        # The engine's own static grid (engine.spatial), built once: it reads only a tile's
        # id, x, y and hitbox, which a Tile has.
        self.solid_index = SpatialIndex(cast(Sequence[Entity], solid), [(tile.x, tile.y) for tile in solid])

    def _tile(self, layer: LayerData, column: int, row: int) -> Tile | None:
        gid = layer.cells[row][column]
        if not gid:
            return None
        tileset = self.data.tileset_of(gid)
        tile_id = gid - tileset.first_gid
        properties = tileset.tile_properties.get(tile_id, EMPTY)
        return Tile(x=(column + 0.5) * self.tile_width, y=(row + 0.5) * self.tile_height,
                    width=float(self.tile_width), height=float(self.tile_height), column=column, row=row,
                    layer=layer.name, id=tile_id, properties=properties,
                    solid=layer.solid or properties.get("solid") is True)

    def _layer_tiles(self, layer: LayerData) -> list[Tile]:
        """The layer's tiles by row (bottom first), then column: the order collision queries return them in."""
        found = []
        for row in range(self.rows):
            for column in range(self.columns):
                tile = self._tile(layer, column, row)
                if tile is not None:
                    found.append(tile)
        return found

    def _solid_tiles(self, layer: LayerData) -> list[Tile]:
        """The layer's solid tiles, in ``_layer_tiles``' order: only those are built (a big map has few)."""
        if layer.solid:
            return self._layer_tiles(layer)
        solid_gids: dict[int, bool] = {}
        found = []
        for row, cells in enumerate(layer.cells):
            for column, gid in enumerate(cells):
                if not gid:
                    continue
                solid = solid_gids.get(gid)
                if solid is None:
                    tileset = self.data.tileset_of(gid)
                    solid = solid_gids[gid] = \
                        tileset.tile_properties.get(gid - tileset.first_gid, EMPTY).get("solid") is True
                if solid:
                    tile = self._tile(layer, column, row)
                    assert tile is not None
                    found.append(tile)
        return found

    def tile_at(self, x: float, y: float, layer: str | None = None) -> Tile | None:
        """The tile under world point (x, y): of the topmost tile layer holding one there, or of ``layer``.

        ``None`` outside the map or on an empty cell. A point on the edge between two
        tiles belongs to the one right of it (or above it).
        """
        if layer is not None and layer not in self.layers:
            raise ValueError(f"{self.map} has no tile layer {layer!r}; its layers are {list(self.layers)}")
        if not (0 <= x < self.width and 0 <= y < self.height):
            return None
        column, row = int(x // self.tile_width), int(y // self.tile_height)
        for data in reversed(self.data.layers):
            if layer is None or data.name == layer:
                tile = self._tile(data, column, row)
                if tile is not None or layer is not None:
                    return tile
        return None

    def tiles(self, layer: str) -> list[Tile]:
        """Every tile of tile layer ``layer``, by row (bottom first) then column."""
        for data in self.data.layers:
            if data.name == layer:
                return self._layer_tiles(data)
        raise ValueError(f"{self.map} has no tile layer {layer!r}; its layers are {list(self.layers)}")
