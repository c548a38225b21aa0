"""The mouse in the world: world.mouse maps the window through the camera exactly as the renderer draws."""

from __future__ import annotations

from typing import Any, cast

import pyglet
import pytest

from engine import Camera, Entity, Look, World, keys
from engine.camera import Mouse


class Pan(Camera):
    """A camera that moves, zooms and shakes: every part of the transform in play."""

    def update(self, world: World) -> None:
        self.x += 13.25
        self.y -= 7.5
        self.zoom = min(4.0, self.zoom * 1.25)
        if world.tick_count == 2:
            self.shake(6.0, 10)


class Pointer(Entity):
    """Follows the mouse in the world, reading world.mouse in its update."""

    seen = ()

    def update(self, world: World) -> None:
        mouse = world.mouse
        self.x, self.y = mouse.x, mouse.y


def test_without_a_camera_the_world_is_the_window():
    with World() as world:
        world.input_queue.mouse_motion(12, 34)
        world.tick()
        assert world.mouse == Mouse(12.0, 34.0, 12.0, 34.0)
        assert world.input.pressed(keys.MOUSE_LEFT) is False


def test_a_camera_maps_the_window_centre_to_its_position_and_scales_by_its_zoom():
    with World() as world:
        world.view_size = (640, 480)
        world.spawn(Camera(100, 50, zoom=2.0))
        world.input_queue.mouse_motion(320, 240)
        world.tick()
        assert (world.mouse.x, world.mouse.y) == (100.0, 50.0)
        world.input_queue.mouse_motion(0, 0)
        world.tick()
        assert world.mouse == Mouse(-60.0, -70.0, 0.0, 0.0)  # 320 and 240 pixels are 160 and 120 world units
        world.view_size = (800, 600)  # the centre moves with the window's size
        assert (world.mouse.x, world.mouse.y) == (-100.0, -100.0)


def test_to_world_and_to_window_undo_each_other():
    with World() as world:
        camera = world.spawn(Camera(-33.3, 71.7, zoom=0.75))
        for _ in range(3):
            world.tick()
        for point in ((0.0, 0.0), (639.0, 479.0), (17.0, 400.0)):
            x, y = camera.to_world(*point, world.view_size)
            assert camera.to_window(x, y, world.view_size) == pytest.approx(point, abs=1e-9)


def test_the_mouse_is_the_same_in_every_update_order_and_for_the_camera_itself():
    from engine.testing import assert_order_independent

    def build(world: World) -> None:
        world.spawn(Pointer())
        world.spawn(Pan(10, 20))
        world.spawn(Pointer())

    assert_order_independent(build, ticks=40, orders=4)


WIDE = """
from engine import Camera, Entity, buffered

WIDTH, HEIGHT = 800, 200


class Aim(Entity):
    at = buffered((0.0, 0.0))

    def update(self, world):
        self.at = (world.mouse.x, world.mouse.y)


def build(world):
    world.spawn(Camera(50, 50, zoom=2.0))
    world.spawn(Aim())
"""


def test_a_world_gets_its_games_window_size_wherever_it_is_built(tmp_path, capsys):
    from engine.files.game import GameError
    from engine.testing import load_game, load_save, save_game
    from engine.tools.cli import main
    from engine.tools.inputs import setup_of

    game_file = tmp_path / "wide.py"
    game_file.write_text(WIDE)
    (tmp_path / "in.jsonl").write_text('{"tick": 1, "input": [["mouse_motion", null, 0, 0]]}\n')
    game = load_game(game_file)
    with World() as world:
        assert world.view_size == (640, 480)
        game.setup(world)
        assert world.view_size == (800, 200)
        world.input_queue.mouse_motion(0, 0)
        world.tick()
        assert cast(Any, world.entities[-1]).at == (-150.0, 0.0), "400 and 100 pixels from the centre, at zoom 2"
        assert main(["run", str(game_file), "--ticks", "1", "--input", str(tmp_path / "in.jsonl")]) == 0
        assert capsys.readouterr().out.split("state ")[1][:16] == world.state_hash()[:16], "the command's world too"
        for build in (game, game.setup, game.build):  # the ways a check may be given a game
            with World() as checked:
                setup_of(build, game.add_systems, None, None, 0).build(checked)
                assert checked.view_size == (800, 200), build
        save_game(world, game, str(tmp_path / "s.json"))
    loaded = load_save(game, str(tmp_path / "s.json"))
    assert loaded.view_size == (800, 200)
    with pytest.raises(GameError, match=r"world.view_size: .* got \(0, 10\)"):
        loaded.view_size = (0, 10)
    loaded.close()


# -- against the renderer ---------------------------------------------------------------------

@pytest.mark.usefixtures("offscreen")
@pytest.mark.parametrize("camera", [Camera(0, 0), Camera(250.5, -40.25, zoom=2.0), Camera(3, 7, zoom=0.5), Pan(9, 9)])
def test_an_entity_at_world_mouse_is_drawn_under_the_mouse(camera):
    from engine.render import create_window
    from engine.render.context import read_pixels
    from engine.render.entities import EntityRenderer

    window = create_window(320, 200, headless=True)
    try:
        with World() as world:
            world.view_size = (window.width, window.height)
            world.spawn(camera)
            marker = world.spawn(Entity())
            renderer = EntityRenderer(world)
            for tick, (mouse_x, mouse_y) in enumerate([(160, 100), (40, 170), (301, 13), (77, 66), (250, 150)]):
                world.input_queue.mouse_motion(mouse_x, mouse_y)
                world.tick()
                # Between ticks, where the latest state draws (alpha 1): a 4-pixel square at world.mouse.
                marker.x, marker.y = world.mouse.x, world.mouse.y
                marker.snap()
                marker.look = Look("square", 4 / camera.zoom, (255, 0, 0))
                pyglet.gl.glClearColor(0, 0, 0, 1)
                window.clear()
                renderer.draw(1.0)
                data = read_pixels(window.width, window.height)

                def red(x: int, y: int) -> bool:
                    at = (y * window.width + x) * 4
                    return data[at:at + 3] == b"\xff\x00\x00"

                assert red(mouse_x, mouse_y), (tick, world.mouse, camera.draw_view(1.0))
                assert not red(mouse_x + 5, mouse_y) and not red(mouse_x, mouse_y - 5), "only there"
            renderer.delete()
    finally:
        window.close()
