"""Tile maps from Tiled (``.tmj`` and ``.tmx``): read, validated whole, spawned as one entity.

``TileMap.load(path)`` reads a map through pytiled-parser (imported only then, so
``import engine`` stays light), checks all of it and raises ``MapError`` in one line
naming the file and the problem, before anything is built. The map is an entity lying
with its bottom-left corner at world (0, 0), y up; its solid tiles answer the world's
collision queries from a grid built once. Drawing is ``engine.render.tiles``.
"""

from __future__ import annotations

from engine.tiles.model import MapError, MapObject, Tile
from engine.tiles.tilemap import TileMap

__all__ = ["MapError", "MapObject", "Tile", "TileMap"]
