"""A Tiled layer on screen, pixel by pixel: tile colours at their world places, bottom row at y = 0, zoomed."""

from __future__ import annotations

import pytest
from mapfiles import COLOURS, tmj
from test_render_screen import colour, frame, make_window

from engine import Camera, Entity, Look, TileMap, World

pytestmark = pytest.mark.usefixtures("offscreen")

RED, GREEN, BLUE, WHITE = COLOURS
# Tiled's rows, top first: blue over green at column 1; the bottom row red, white, red, red.
ROWS = [[0, 3, 0, 0], [0, 2, 0, 0], [1, 4, 1, 1]]


@pytest.fixture
def window():
    made = make_window(200, 100)
    yield made
    made.close()


def test_a_tiled_layer_draws_each_tile_at_its_world_place_bottom_row_at_y_0(window, tmp_path):
    from engine.render.entities import EntityRenderer

    with World() as world:
        world.spawn(TileMap.load(tmj(tmp_path, ROWS)))
        renderer = EntityRenderer(world)
        world.tick()
        data = frame(renderer, window)
        renderer.delete()
    expected = {(0, 0): RED, (7, 7): RED, (8, 0): WHITE, (15, 7): WHITE, (31, 0): RED, (8, 8): GREEN,
                (15, 15): GREEN, (12, 20): BLUE, (15, 23): BLUE, (4, 12): (0, 0, 0), (32, 0): (0, 0, 0),
                (12, 24): (0, 0, 0)}
    assert {at: colour(data, 200, *at) for at in expected} == expected


def test_a_map_draws_below_the_looks_of_layer_0_and_with_the_camera_zoomed(window, tmp_path):
    from engine.render.entities import EntityRenderer

    with World() as world:
        world.spawn(TileMap.load(tmj(tmp_path, ROWS)))
        world.spawn(Entity(x=28.0, y=4.0)).look = Look("square", 4, (255, 0, 255))
        world.spawn(Camera(x=16.0, y=12.0, zoom=2.0))
        renderer = EntityRenderer(world)
        world.tick()
        data = frame(renderer, window)
        renderer.delete()
    # World (x, y) is at window (100 + (x - 16) * 2, 50 + (y - 12) * 2).
    expected = {(92, 50): GREEN, (85, 43): GREEN, (99, 57): GREEN, (92, 60): BLUE, (70, 30): RED,
                (90, 30): WHITE, (124, 34): (255, 0, 255), (117, 34): RED, (60, 50): (0, 0, 0)}
    assert {at: colour(data, 200, *at) for at in expected} == expected
