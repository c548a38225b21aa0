"""Tiny Tiled maps and tileset PNGs, written at test time (no binary files in the repository)."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

# The tileset's tiles, left to right: red, green, blue, white (ids 0 to 3).
COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]


def write_png(path: Path, width: int, height: int, pixel) -> None:
    """A minimal RGBA PNG: ``pixel(x, y)`` gives (r, g, b) for each pixel, y down from the top."""
    raw = b"".join(b"\0" + b"".join(bytes((*pixel(x, y), 255)) for x in range(width)) for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def write_tileset_png(path: Path, tile: int = 8) -> None:
    """Four tiles of ``tile`` px in one row, each one plain colour of ``COLOURS``."""
    write_png(path, tile * 4, tile, lambda x, y: COLOURS[x // tile])


def tmj(directory: Path, rows: list[list[int]], *, tile: int = 8, name: str = "level.tmj", objects=(),
        solid_ids=(0,), layer_properties=None, extra_layers=(), **changes) -> Path:
    """A .tmj map whose one tile layer ``ground`` holds ``rows`` (Tiled's order: top row first; gid 0 empty)."""
    write_tileset_png(directory / "tiles.png", tile)
    height, width = len(rows), len(rows[0])
    ground = {"type": "tilelayer", "name": "ground", "id": 1, "width": width, "height": height, "x": 0, "y": 0,
              "opacity": 1, "visible": True, "data": [gid for row in rows for gid in row]}
    if layer_properties:
        ground["properties"] = [{"name": k, "type": "bool" if isinstance(v, bool) else "string", "value": v}
                                for k, v in layer_properties.items()]
    document = {
        "type": "map", "version": "1.10", "tiledversion": "1.10.2", "orientation": "orthogonal",
        "renderorder": "right-down", "infinite": False, "width": width, "height": height,
        "tilewidth": tile, "tileheight": tile, "nextlayerid": 4, "nextobjectid": 10,
        "properties": [{"name": "title", "type": "string", "value": "First"}],
        "layers": [ground, *extra_layers,
                   {"type": "objectgroup", "name": "things", "id": 3, "x": 0, "y": 0, "opacity": 1, "visible": True,
                    "draworder": "topdown", "objects": list(objects)}],
        "tilesets": [{"firstgid": 1, "name": "tiles", "image": "tiles.png", "imagewidth": tile * 4,
                      "imageheight": tile, "tilewidth": tile, "tileheight": tile, "tilecount": 4, "columns": 4,
                      "margin": 0, "spacing": 0,
                      "tiles": [{"id": i, "properties": [{"name": "solid", "type": "bool", "value": True}]}
                                for i in solid_ids]}],
    }
    document.update(changes)
    path = directory / name
    path.write_text(json.dumps(document))
    return path


def tmx(directory: Path, rows: list[list[int]], *, tile: int = 8, name: str = "level.tmx") -> Path:
    """The same kind of map as ``tmj``, in Tiled's XML format (CSV data, tile 0 solid)."""
    write_tileset_png(directory / "tiles.png", tile)
    height, width = len(rows), len(rows[0])
    csv = ",\n".join(",".join(str(gid) for gid in row) for row in rows)
    path = directory / name
    path.write_text(f"""<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down" width="{width}"
 height="{height}" tilewidth="{tile}" tileheight="{tile}" infinite="0" nextlayerid="3" nextobjectid="2">
 <properties><property name="title" value="Second"/></properties>
 <tileset firstgid="1" name="tiles" tilewidth="{tile}" tileheight="{tile}" tilecount="4" columns="4">
  <image source="tiles.png" width="{tile * 4}" height="{tile}"/>
  <tile id="0"><properties><property name="solid" type="bool" value="true"/></properties></tile>
 </tileset>
 <layer id="1" name="ground" width="{width}" height="{height}"><data encoding="csv">
{csv}
</data></layer>
 <objectgroup id="2" name="things">
  <object id="1" name="start" type="Player" x="8" y="0" width="8" height="8"/>
 </objectgroup>
</map>
""")
    return path
