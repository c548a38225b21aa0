"""Reading a Tiled map through pytiled-parser, and checking all of it before anything is built.

A map is data a game names, but it may be damaged or made by a newer Tiled: every problem
(a missing file, a file that is not a map, an infinite or non-orthogonal map, an image
collection tileset, a missing tileset image, a tile id out of range, a flipped tile, absurd
sizes) raises ``MapError`` in one line naming the file and what is wrong. pytiled-parser is
imported here, when a map is first read: ``import engine`` does not pay for it.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engine.disk.png import check_png
from engine.messages import one_line, shown, shown_name
from engine.tiles.files import check_map_files
from engine.tiles.model import LayerData, MapData, MapError, MapObject, TilesetData
from engine.tiles.precheck import BoolStrings, check_map_file

__all__ = ["MAX_CELLS", "MAX_MAP_BYTES", "read_map"]

MAX_MAP_BYTES = 32 * 1024 * 1024
"""The largest map file read (a level of a million tiles is a few megabytes)."""
MAX_CELLS = 4_000_000
"""The most cells of all tile layers together."""
MAX_TILE = 1024
"""The widest or tallest tile, in pixels."""
_FLIPS = 0xE0000000  # Tiled's flip flags in the top bits of a global tile id


def read_map(path: str | Path) -> MapData:
    """The map at ``path`` (``.tmj``/``.json`` or ``.tmx``), checked whole; ``MapError`` otherwise."""
    file = Path(path)
    where = shown_name(file)
    if file.suffix.lower() not in (".tmj", ".json", ".tmx"):
        raise MapError(f"{where} is not a Tiled map: a map is a .tmj (JSON) or .tmx (XML) file")
    try:
        size = file.stat().st_size
        if not file.is_file():
            raise MapError(f"{where} is not a file")
    except OSError as error:
        raise MapError(f"{where} cannot be read: {error.strerror or error}") from None
    if size > MAX_MAP_BYTES:
        raise MapError(f"{where} is {size:,} bytes, more than a map may be ({MAX_MAP_BYTES:,})")
    # Ours first: every file it names must be a regular file beside it or below (checked before any
    # is read), its layers' data inflates bounded; then damage named in words (line and column,
    # the field's path), never a parser's KeyError, before pytiled-parser opens anything.
    check_map_files(file, where, MAX_MAP_BYTES, MAX_CELLS)
    bool_strings = check_map_file(file, where, MAX_MAP_BYTES)
    import pytiled_parser

    try:
        parsed = pytiled_parser.parse_map(file)
    except MapError:
        raise
    except FileNotFoundError as error:  # an external tileset it names
        raise MapError(f"{where} names a file that does not exist: {shown_name(error.filename or '')}") from None
    except Exception as error:  # what the checks above let through, pytiled-parser raises as it likes
        raise MapError(f"{where} is not a Tiled map pytiled-parser can read: {_reason(error)}") from None
    try:
        return _checked(parsed, file, where, bool_strings)
    except MapError:
        raise
    except Exception as error:
        raise MapError(f"{where} is not a Tiled map pytiled-parser can read: {_reason(error)}") from None


def _reason(error: Exception) -> str:
    """A parser's exception in words: its message, or for a bare KeyError the field it missed."""
    if isinstance(error, KeyError) and error.args:
        return f"a field {shown(error.args[0])} it needs is missing"
    text = one_line(str(error))[:200]
    return text or "it gave no reason"


def _checked(parsed: Any, file: Path, where: str, bool_strings: BoolStrings) -> MapData:
    if parsed.infinite:
        raise MapError(f"{where} is an infinite map: save it as a fixed-size map (Map > Map Properties > Infinite off)")
    if parsed.orientation != "orthogonal":
        raise MapError(f"{where} is {parsed.orientation}: only orthogonal maps are supported")
    columns, rows = int(parsed.map_size.width), int(parsed.map_size.height)
    tile_width, tile_height = int(parsed.tile_size.width), int(parsed.tile_size.height)
    if not (columns > 0 and rows > 0 and columns * rows <= MAX_CELLS):
        raise MapError(f"{where} is {columns} x {rows} tiles: a map has 1 to {MAX_CELLS:,} cells")
    if not (0 < tile_width <= MAX_TILE and 0 < tile_height <= MAX_TILE):
        raise MapError(f"{where} has tiles of {tile_width} x {tile_height} px: a tile is 1 to {MAX_TILE} px a side")
    tilesets = tuple(_tileset(first_gid, tileset, file, where, tile_width, tile_height, bool_strings)
                     for first_gid, tileset in sorted(parsed.tilesets.items()))
    layers: list[LayerData] = []
    objects: list[MapObject] = []
    height = rows * tile_height
    for layer in _flattened(parsed.layers, where):
        kind = type(layer).__name__
        name = str(layer.name)
        if kind == "TileLayer":
            layers.append(_tile_layer(layer, name, columns, rows, tilesets, where, bool_strings))
        elif kind == "ObjectLayer":
            objects.extend(_object(item, name, height, bool_strings) for item in layer.tiled_objects)
        else:
            raise MapError(f"{where}: layer {name!r} is an {kind}: only tile and object layers are supported")
        if sum(len(layer.cells) * columns for layer in layers) > MAX_CELLS:
            raise MapError(f"{where} has more than {MAX_CELLS:,} cells in all its tile layers")
    names = [layer.name for layer in layers]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise MapError(f"{where}: two tile layers are named {twice[0]!r}: tile_at(layer=...) needs names to differ")
    properties = _properties(parsed.properties, where, "the map", strings=bool_strings.get(("map",)))
    data = MapData(name=file.name, columns=columns, rows=rows, tile_width=tile_width, tile_height=tile_height,
                   layers=tuple(layers), tilesets=tilesets, properties=properties, objects=tuple(objects), digest="")
    return MapData(**{**data.__dict__, "digest": _digest(data)})


def _flattened(layers: Any, where: str, depth: int = 0) -> list[Any]:
    found: list[Any] = []
    for layer in layers or ():
        if type(layer).__name__ == "LayerGroup":
            if depth > 16:
                raise MapError(f"{where}: layer groups nest more than 16 deep")
            found.extend(_flattened(layer.layers, where, depth + 1))
        else:
            found.append(layer)
    return found


def _tileset(first_gid: int, tileset: Any, file: Path, where: str, tile_width: int, tile_height: int,
             bool_strings: BoolStrings) -> TilesetData:
    name = str(tileset.name)
    if tileset.image is None:
        raise MapError(f"{where}: tileset {name!r} is an image collection: only tilesets cut from one image "
                       "are supported")
    if (tileset.tile_width, tileset.tile_height) != (tile_width, tile_height):
        raise MapError(f"{where}: tileset {name!r} has {tileset.tile_width} x {tileset.tile_height} px tiles, "
                       f"the map {tile_width} x {tile_height}: they must be the same")
    image = Path(tileset.image)
    if not image.is_absolute():
        image = file.parent / image
    size = _png_size(image, where, name)
    count, columns = int(tileset.tile_count), int(tileset.columns)
    margin, spacing = int(tileset.margin or 0), int(tileset.spacing or 0)
    if count < 1 or columns < 1:
        raise MapError(f"{where}: tileset {name!r} has {count} tiles in {columns} columns")
    rows = -(-count // columns)
    needed = (margin * 2 + columns * tile_width + (columns - 1) * spacing,
              margin * 2 + rows * tile_height + (rows - 1) * spacing)
    if size[0] < needed[0] - margin or size[1] < needed[1] - margin:
        raise MapError(f"{where}: the image {shown_name(image.name)} of tileset {name!r} is {size[0]} x {size[1]} px, "
                       f"too small for {count} tiles of {tile_width} x {tile_height} in {columns} columns")
    properties = {int(tile_id): _properties(tile.properties, where, f"tile {tile_id} of tileset {name!r}",
                                            solid=True, strings=bool_strings.get(("tile", first_gid, tile_id)))
                  for tile_id, tile in sorted((tileset.tiles or {}).items()) if tile.properties}
    return TilesetData(name=name, image=image, image_width=size[0], image_height=size[1], first_gid=first_gid,
                       count=count, columns=columns, margin=margin, spacing=spacing, tile_width=tile_width,
                       tile_height=tile_height, tile_properties=MappingProxyType(properties))


def _png_size(image: Path, where: str, tileset: str) -> tuple[int, int]:
    """The size of a tileset's PNG, checked whole as drawing checks it: a map that loads never fails when drawn."""
    try:
        return check_png(str(image))
    except ValueError as error:
        raise MapError(f"{where}: the image of tileset {tileset!r}: {error}") from None


def _tile_layer(layer: Any, name: str, columns: int, rows: int, tilesets: tuple[TilesetData, ...],
                where: str, bool_strings: BoolStrings) -> LayerData:
    data = layer.data
    if data is None or len(data) != rows or any(len(row) != columns for row in data):
        raise MapError(f"{where}: layer {name!r} does not hold {columns} x {rows} tiles")
    if tuple(layer.offset) != (0, 0):
        raise MapError(f"{where}: layer {name!r} has an offset of {tuple(layer.offset)}: "
                       "layer offsets are not supported")
    cells: list[tuple[int, ...]] = []
    for tiled_row, row in enumerate(data):
        for column, gid in enumerate(row):
            if not isinstance(gid, int) or gid < 0:
                raise MapError(f"{where}: layer {name!r} column {column} row {rows - 1 - tiled_row} holds {gid!r}, "
                               "not a tile id")
            if gid & _FLIPS:
                raise MapError(f"{where}: layer {name!r} column {column} row {rows - 1 - tiled_row} holds a flipped "
                               "or rotated tile: flipped tiles are not supported")
            if gid and not any(t.first_gid <= gid < t.first_gid + t.count for t in tilesets):
                raise MapError(f"{where}: layer {name!r} column {column} row {rows - 1 - tiled_row} holds tile "
                               f"{gid}, which no tileset has (out of range)")
        cells.append(tuple(int(gid) for gid in row))
    cells.reverse()  # Tiled's first row is the top one; ours, the bottom one (y up)
    properties = _properties(layer.properties, where, f"layer {name!r}", solid=True,
                             strings=bool_strings.get(("layer", getattr(layer, "id", None))))
    return LayerData(name=name, cells=tuple(cells), properties=properties, visible=bool(layer.visible),
                     solid=properties.get("solid") is True)


def _object(item: Any, layer: str, height: int, bool_strings: BoolStrings) -> MapObject:
    x, y = float(item.coordinates.x), float(item.coordinates.y)
    width, height_ = float(item.size.width), float(item.size.height)
    shape = type(item).__name__.lower()  # rectangle, ellipse, point, polygon, polyline, tile, text
    kind = getattr(item, "class_", "") or getattr(item, "type", "") or ""
    properties = _properties(item.properties, "", "an object", strings=bool_strings.get(("object", item.id)))
    name = str(item.name or "")
    if shape in ("polyline", "polygon"):
        # Its points in world coordinates (turned as Tiled turns the object, about its origin), and
        # its x, y the centre of the box they span, as for every other object.
        points = _world_points(item.points, x, y, float(item.rotation or 0.0), height)
        if shape == "polygon" and len(points) > 1 and points[-1] == points[0]:
            points = points[:-1]  # closed: the first point is not repeated
        xs, ys = [point[0] for point in points], [point[1] for point in points]
        return MapObject(name=name, kind=str(kind), x=(min(xs) + max(xs)) / 2, y=(min(ys) + max(ys)) / 2,
                         width=max(xs) - min(xs), height=max(ys) - min(ys), properties=properties, layer=layer,
                         points=points, shape=shape)
    # Tiled places a tile object by its bottom-left corner, every other object by its top-left.
    top = y - height_ if shape == "tile" else y
    return MapObject(name=name, kind=str(kind), x=x + width / 2, y=height - (top + height_ / 2),
                     width=width, height=height_, properties=properties, layer=layer, shape=shape)


def _world_points(points: Any, x: float, y: float, rotation: float, height: int) -> tuple[tuple[float, float], ...]:
    """Tiled's points (relative to the object, y down, turned ``rotation`` degrees clockwise) in world coordinates."""
    turn = math.radians(rotation)
    cos, sin = math.cos(turn), math.sin(turn)
    placed = []
    for point in points:
        dx, dy = float(point.x), float(point.y)
        if rotation:
            dx, dy = dx * cos - dy * sin, dx * sin + dy * cos
        placed.append((x + dx, height - (y + dy)))
    if not placed:
        placed.append((x, height - y))
    return tuple(placed)


def _properties(properties: Any, where: str, what: str, solid: bool = False,
                strings: frozenset[str] | None = None) -> Mapping[str, Any]:
    """The properties as plain data; with ``solid``, a ``solid`` property that is not a bool is refused.

    ``strings``: the bool properties a JSON file wrote as ``"true"``/``"false"`` (found by the
    precheck), made the bools they say.
    """
    plain = {str(key): _value(value) for key, value in sorted((properties or {}).items())}
    for name in strings or ():
        if plain.get(name) in ("true", "false"):
            plain[name] = plain[name] == "true"
    found = MappingProxyType(plain)
    if solid and "solid" in found and not isinstance(found["solid"], bool):
        # "yes" or 1 would read as not solid, silently: a bool typed as a string in Tiled is a mistake to name.
        raise MapError(f"{where}: {what} has solid = {shown(found['solid'])}: solid must be a bool property "
                       "(true or false; in Tiled, add it as a bool)")
    return found


def _value(value: Any) -> Any:
    """A property as plain, read-only data: colours as (r, g, b, a), files as their text, classes as mappings."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple) and hasattr(value, "red"):  # pytiled-parser's Color
        return tuple(int(channel) for channel in value)
    if isinstance(value, Mapping):
        return MappingProxyType({str(key): _value(item) for key, item in value.items()})
    return str(value)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, Path):
        return value.name
    return value


def _digest(data: MapData) -> str:
    """SHA-256 of what a game can see of the map (tile ids, properties, objects, image names): never its path."""
    content = {
        "size": [data.columns, data.rows, data.tile_width, data.tile_height],
        "layers": [[layer.name, [list(row) for row in layer.cells], _plain(layer.properties), layer.visible]
                   for layer in data.layers],
        "tilesets": [[t.name, t.image.name, t.first_gid, t.count, t.columns, t.margin, t.spacing,
                      {str(k): _plain(v) for k, v in t.tile_properties.items()}] for t in data.tilesets],
        "properties": _plain(data.properties),
        # A polyline's or polygon's points and shape only where it has them: other maps keep their digests.
        "objects": [[o.name, o.kind, o.x, o.y, o.width, o.height, _plain(o.properties), o.layer,
                     *([o.shape, [list(point) for point in o.points]] if o.points else [])] for o in data.objects],
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()
