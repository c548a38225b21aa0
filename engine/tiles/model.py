"""What a validated map is made of: plain, immutable data (no pytiled-parser, no pyglet).

``MapData`` is what ``engine.tiles.reading`` makes of a Tiled file once it has checked all
of it; ``Tile`` and ``MapObject`` are what games see of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

__all__ = ["EMPTY", "LayerData", "MapData", "MapError", "MapObject", "Tile", "TilesetData"]

EMPTY: Mapping[str, Any] = MappingProxyType({})


class MapError(ValueError):
    """A tile map that cannot be used: one line naming the file and what is wrong with it."""


@dataclass(frozen=True)
class Tile:
    """One cell of a tile layer, as ``TileMap.tile_at`` and collision queries return it.

    ``x``, ``y`` are its centre in world coordinates (y up); ``row`` 0 is the map's bottom
    row. ``id`` is the tile's id in its tileset (Tiled's local id), ``properties`` its custom
    properties. ``solid`` when the tileset tile or its layer says ``solid = true``.
    """

    x: float
    y: float
    width: float
    height: float
    column: int
    row: int
    layer: str
    id: int
    properties: Mapping[str, Any] = field(default_factory=lambda: EMPTY, hash=False)
    solid: bool = False

    @property
    def hitbox(self) -> tuple[float, float]:
        """Its box for collisions (the tile's size): what the engine's grid reads."""
        return (self.width, self.height)


@dataclass(frozen=True)
class MapObject:
    """An object of an object layer (a player start, a coin, an enemy, a route): games spawn entities from these.

    ``x``, ``y`` are its CENTRE in world coordinates (y up) and ``width``, ``height`` its
    size; ``kind`` is Tiled's class (or type) string; ``shape`` is Tiled's kind of object:
    ``"rectangle"``, ``"ellipse"``, ``"point"``, ``"polygon"``, ``"polyline"``, ``"tile"``
    or ``"text"``. A polyline or polygon has its ``points`` in world coordinates (the map
    lies with its bottom-left at world (0, 0), y up), in Tiled's order, turned as Tiled
    turns the object; a polygon is closed (its last point joins its first, which is not
    repeated); its ``x``, ``y``, ``width``, ``height`` are the box its points span. Other
    objects have no points, and their rotation is not applied.
    """

    name: str
    kind: str
    x: float
    y: float
    width: float
    height: float
    properties: Mapping[str, Any] = field(default_factory=lambda: EMPTY, hash=False)
    layer: str = ""
    points: tuple[tuple[float, float], ...] = ()
    shape: str = "rectangle"


@dataclass(frozen=True)
class TilesetData:
    """One tileset: its image and how tiles are cut from it (left to right, top row first)."""

    name: str
    image: Path
    image_width: int
    image_height: int
    first_gid: int
    count: int
    columns: int
    margin: int
    spacing: int
    tile_width: int
    tile_height: int
    tile_properties: Mapping[int, Mapping[str, Any]]

    def region(self, tile_id: int) -> tuple[int, int]:
        """The (left, top) pixel of tile ``tile_id`` in the image (top-left origin)."""
        column, row = tile_id % self.columns, tile_id // self.columns
        return (self.margin + column * (self.tile_width + self.spacing),
                self.margin + row * (self.tile_height + self.spacing))


@dataclass(frozen=True)
class LayerData:
    """One tile layer: global tile ids (0 empty), ``cells[row][column]`` with row 0 at the BOTTOM."""

    name: str
    cells: tuple[tuple[int, ...], ...]
    properties: Mapping[str, Any]
    visible: bool
    solid: bool


@dataclass(frozen=True)
class MapData:
    """A whole validated map; ``digest`` names its content (never its path)."""

    name: str
    columns: int
    rows: int
    tile_width: int
    tile_height: int
    layers: tuple[LayerData, ...]
    tilesets: tuple[TilesetData, ...]
    properties: Mapping[str, Any]
    objects: tuple[MapObject, ...]
    digest: str

    def tileset_of(self, gid: int) -> TilesetData:
        """The tileset global id ``gid`` comes from (validated: there is one)."""
        for tileset in reversed(self.tilesets):
            if gid >= tileset.first_gid:
                return tileset
        raise LookupError(gid)
