"""Solid tiles in world.overlapping_at and world.overlapping, against brute force over random maps and boxes."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from mapfiles import tmj

from engine import Entity, Tile, TileMap, World


class Box(Entity):
    hitbox: tuple[float, float]  # always given

    def __init__(self, x: float, y: float, size: tuple[float, float]) -> None:
        super().__init__(x=x, y=y)
        self.hitbox = size


def brute_tiles(level: TileMap, x: float, y: float, size: tuple[float, float]) -> list[Tile]:
    found = []
    for layer in level.layers:
        for tile in level.tiles(layer):
            if tile.solid and abs(tile.x - x) * 2 < tile.width + size[0] and abs(tile.y - y) * 2 < tile.height + size[1]:
                found.append(tile)
    return found


grid = st.integers(1, 9).flatmap(lambda width: st.lists(st.lists(st.integers(0, 4), min_size=width, max_size=width),
                                                        min_size=1, max_size=9))
coordinate = st.integers(-16, 90).map(lambda v: v / 2)
extent = st.integers(0, 40).map(lambda v: v / 2)
box = st.tuples(coordinate, coordinate, st.tuples(extent, extent))


@settings(max_examples=120, deadline=None)
@given(grid, st.lists(st.integers(0, 3), max_size=3, unique=True), st.lists(box, max_size=4), st.lists(box, min_size=1,
                                                                                                        max_size=6))
def test_overlapping_at_finds_exactly_the_solid_tiles_brute_force_finds(rows, solid_ids, boxes, questions):
    with tempfile.TemporaryDirectory() as directory:
        level = TileMap.load(tmj(Path(directory), rows, solid_ids=solid_ids))
    with World() as world:
        world.spawn(level)
        entities = [world.spawn(Box(x, y, size)) for x, y, size in boxes]
        world.tick()
        for x, y, size in questions:
            tiles = brute_tiles(level, x, y, size)
            assert world.overlapping_at(x, y, size, kind=Tile) == tiles
            touched = [e for e in entities if abs(e.x - x) * 2 < e.hitbox[0] + size[0]
                       and abs(e.y - y) * 2 < e.hitbox[1] + size[1]]
            assert world.overlapping_at(x, y, size) == touched + tiles
            assert world.overlapping_at(x, y, size, kind=Box) == touched
        for entity in entities:
            assert world.overlapping(entity, kind=Tile) == brute_tiles(level, entity.x, entity.y, entity.hitbox)


def test_a_big_map_uses_the_grid_and_still_equals_brute_force(tmp_path):
    rows = [[1 if (column * 7 + row * 3) % 5 else 0 for column in range(40)] for row in range(30)]
    level = TileMap.load(tmj(tmp_path, rows))
    assert len(level.solid_index) > 500  # a big map: its solid tiles fill many cells of the grid
    with World() as world:
        world.spawn(level)
        for x, y, size in [(0.0, 0.0, (3.0, 3.0)), (100.0, 120.0, (30.0, 2.0)), (317.0, 237.0, (9.0, 9.0)),
                           (160.0, 120.0, (400.0, 300.0))]:
            assert world.overlapping_at(x, y, size, kind=Tile) == brute_tiles(level, x, y, size)
