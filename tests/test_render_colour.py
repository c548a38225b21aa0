"""Screenshots show exactly the colours the game asked for: 8 bits a channel, off-screen too (never RGB565)."""

from __future__ import annotations

from collections import Counter

import mapfiles
import pytest
from test_render_screen import colour, frame, make_window

from engine import TileMap, World
from engine.tools.cli import main

pytestmark = pytest.mark.usefixtures("offscreen")

# Colours RGB565 cannot hold: (160, 90, 30) came out as (165, 89, 24), (10, 20, 30) as (8, 20, 33).
ODD = [(160, 90, 30), (10, 20, 30), (77, 133, 201), (3, 254, 129)]

GAME = '''
from engine import Entity, Look

WIDTH, HEIGHT = 64, 48
BACKGROUND = (10, 20, 30)


class Box(Entity):
    look = Look("square", 20, (160, 90, 30))


class Dot(Entity):
    look = Look("square", 6, (77, 133, 201))


def build(world):
    world.spawn(Box(x=20, y=24))
    world.spawn(Dot(x=50, y=10))
'''


def _png_pixels(path) -> tuple[int, int, bytes]:
    import pyglet.image

    image = pyglet.image.load(str(path))
    return image.width, image.height, bytes(image.get_image_data().get_data("RGBA", image.width * 4))


def test_the_window_has_8_bits_a_colour_channel():
    window = make_window(32, 32)
    try:
        assert (window.config.red_size, window.config.green_size, window.config.blue_size) == (8, 8, 8)
    finally:
        window.close()


@pytest.mark.parametrize("how", [["--frames", "3"], ["--ticks", "2"]])
def test_a_screenshot_of_known_looks_is_exact_pixel_for_pixel(tmp_path, how):
    game = tmp_path / "boxes.py"
    game.write_text(GAME)
    shot = tmp_path / "shot.png"
    assert main(["run", str(game), "--headless", *how, "--screenshot", str(shot), "--no-hud"]) == 0
    width, height, data = _png_pixels(shot)
    assert (width, height) == (64, 48)
    counted = Counter(tuple(data[i:i + 3]) for i in range(0, len(data), 4))
    assert counted == {(160, 90, 30): 20 * 20, (77, 133, 201): 6 * 6, (10, 20, 30): 64 * 48 - 400 - 36}, counted
    assert colour(data, 64, 20, 24) == (160, 90, 30) and colour(data, 64, 50, 10) == (77, 133, 201)


def test_a_tile_map_draws_its_tiles_in_exactly_their_colours(tmp_path, monkeypatch):
    from engine.render.entities import EntityRenderer

    monkeypatch.setattr(mapfiles, "COLOURS", ODD)
    window = make_window(32, 8)
    try:
        with World() as world:
            world.spawn(TileMap.load(mapfiles.tmj(tmp_path, [[1, 2, 3, 4]])))
            renderer = EntityRenderer(world)
            world.tick()
            data = frame(renderer, window)
            renderer.delete()
    finally:
        window.close()
    assert [colour(data, 32, x, y) for x in (0, 7, 8, 15, 16, 23, 24, 31) for y in (0, 7)] == [
        tuple(ODD[x // 8]) for x in (0, 7, 8, 15, 16, 23, 24, 31) for _ in (0, 7)]


@pytest.mark.parametrize("command", ["run", "replay"])
def test_a_frames_screenshot_shows_the_game_only_never_the_hud(tmp_path, command):
    game = tmp_path / "boxes.py"
    game.write_text(GAME.replace("WIDTH, HEIGHT = 64, 48", "WIDTH, HEIGHT = 640, 200"))
    shot = tmp_path / "shot.png"
    if command == "run":
        argv = ["run", str(game), "--headless", "--frames", "5", "--screenshot", str(shot)]
    else:
        assert main(["run", str(game), "--ticks", "5", "--record", str(tmp_path / "r.jsonl")]) == 0
        argv = ["replay", str(tmp_path / "r.jsonl"), "--game", str(game), "--headless", "--screenshot", str(shot)]
    assert main(argv) == 0, "no --no-hud: the HUD is on in the run, off in its picture"
    _, _, data = _png_pixels(shot)
    counted = Counter(tuple(data[i:i + 3]) for i in range(0, len(data), 4))
    assert set(counted) == {(160, 90, 30), (77, 133, 201), (10, 20, 30)}, counted.most_common(6)
