"""Rendering, off-screen through EGL: pixels, input through the window, games, screenshots."""

from __future__ import annotations

import pyglet
import pytest

from engine import Entity, Look, World
from engine.display import Display

pytestmark = pytest.mark.usefixtures("offscreen")


@pytest.fixture
def window():
    from engine.render import create_window

    made = create_window(120, 40, headless=True)
    yield made
    made.close()


def pixels(width: int, height: int):
    from engine.render.context import read_pixels

    data = read_pixels(width, height)
    return lambda x, y: tuple(data[(y * width + x) * 4:(y * width + x) * 4 + 3])


class Dot(Entity):
    look = Look("square", 10, (255, 0, 0))

    def update(self, world: World) -> None:
        self.x += 40


def red_columns(width: int, height: int, row: int) -> list[int]:
    at = pixels(width, height)
    return [x for x in range(width) if at(x, row) == (255, 0, 0)]


def draw(renderer, window, alpha):
    pyglet.gl.glClearColor(0, 0, 0, 1)
    window.clear()
    renderer.draw(alpha)


def drawn(world, window, alpha):
    """A new renderer of ``world``, its first frame drawn at ``alpha``, and the 120x40 pixels it left: (renderer, at)."""
    from engine.render.entities import EntityRenderer

    renderer = EntityRenderer(world)
    draw(renderer, window, alpha)
    return renderer, pixels(120, 40)


def test_an_entity_between_two_positions_is_drawn_halfway_at_alpha_one_half(window):
    from engine.render.entities import EntityRenderer

    with World() as world:
        world.spawn(Dot(x=20, y=20))
        world.tick()  # 20 -> 60
        renderer = EntityRenderer(world)
        draw(renderer, window, 0.0)
        assert red_columns(120, 40, 20) == list(range(15, 25))
        draw(renderer, window, 0.5)
        assert red_columns(120, 40, 20) == list(range(35, 45))
        renderer.extrapolate = True
        draw(renderer, window, 0.5)
        assert red_columns(120, 40, 20) == list(range(75, 85))
        renderer.delete()


def test_rendering_never_changes_the_game_state(window):
    from engine.render.entities import EntityRenderer

    with World() as world:
        for i in range(5):
            world.spawn(Dot(x=i * 10, y=10))
        world.tick()
        before = world.state_hash()
        renderer = EntityRenderer(world)
        for frame in range(30):
            draw(renderer, window, frame / 30)
        assert world.state_hash() == before
        renderer.delete()


def test_shapes_are_cut_out_of_their_squares(window):

    class Ball(Entity):
        look = Look("circle", 20, (0, 255, 0))

    with World() as world:
        world.spawn(Dot(x=20, y=20))
        world.spawn(Ball(x=80, y=20))
        renderer, at = drawn(world, window, 1.0)
        assert at(16, 16) == (255, 0, 0), "a square fills its corner"
        assert at(80, 20) == (0, 255, 0) and at(71, 11) == (0, 0, 0), "a circle leaves its corners"
        renderer.delete()


def test_despawned_entities_vanish_and_the_rest_stay_put(window):
    from engine.render.entities import EntityRenderer

    class Still(Entity):
        look = Look("square", 6, (255, 0, 0))

    with World() as world:
        dots = [world.spawn(Still(x=10 + 20 * i, y=20)) for i in range(5)]
        renderer = EntityRenderer(world)
        draw(renderer, window, 1.0)
        world.despawn(dots[0])
        world.despawn(dots[2])
        draw(renderer, window, 1.0)
        columns = red_columns(120, 40, 20)
        assert {x // 20 for x in columns} == {1, 3, 4}
        assert renderer.entity_count == 3
        for i in range(40):  # grow past the first capacity, then shrink
            world.spawn(Still(x=100, y=30))
        draw(renderer, window, 1.0)
        assert renderer.entity_count == 43
        renderer.delete()


def test_a_look_from_the_view_overrides_the_entity_default(window):
    from engine.render.entities import EntityRenderer

    with World() as world:
        world.spawn(Entity(x=60, y=20))
        renderer = EntityRenderer(world, looks={Entity: Look("square", 8, (0, 0, 255))})
        draw(renderer, window, 1.0)
        assert pixels(120, 40)(60, 20) == (0, 0, 255)
        renderer.delete()


@pytest.fixture
def runner_for():
    made = []

    def make(name, **kwargs):
        from engine.render.runner import GameRunner

        display = Display(headless=True, **{key: kwargs.pop(key) for key in ("loop", "show_hud") if key in kwargs})
        runner = GameRunner(name, display=display, **kwargs)
        made.append(runner)
        return runner

    yield make
    for runner in made:
        runner.close()


def test_synthetic_pyglet_key_events_reach_the_next_tick(runner_for):
    from pyglet.window import key

    from games.patrol.logic import Player

    runner = runner_for("patrol")
    player = runner.world.entities_of(Player)[0]
    start = player.x
    runner.run(frames=2)
    # pyglet queues window events until the next dispatch_events(): the frame's input step.
    runner.window.dispatch_event("on_key_press", key.RIGHT, 0)
    ticks = runner.world.tick_count
    frames = 0
    while runner.world.tick_count == ticks:
        runner.run(frames=1)
        frames += 1
    assert runner.world.input.just_pressed(key.RIGHT)
    assert player.x == start + 2
    runner.run(frames=1)
    assert not runner.world.input.just_pressed(key.RIGHT), "the press went to one tick only"


def test_the_engine_keys_pause_step_toggle_and_quit(runner_for):
    from engine import keys

    runner = runner_for("bouncy")
    runner.run(frames=10)
    runner.window.dispatch_event("on_key_press", keys.F2, 0)
    ticks = runner.world.tick_count
    runner.run(frames=30)
    assert runner.paused and runner.world.tick_count == ticks
    runner.window.dispatch_event("on_key_press", keys.F3, 0)
    runner.run(frames=1)
    assert runner.world.tick_count == ticks + 1
    for symbol in (keys.F4, keys.F5, keys.F1):
        runner.window.dispatch_event("on_key_press", symbol, 0)
    runner.run(frames=1)
    assert (runner.interpolate, runner.view.extrapolate, runner.hud.visible) == (False, True, False)
    assert runner.world.input_queue.state()[1] == frozenset(), "the engine's keys never reach the game"
    runner.window.dispatch_event("on_key_press", keys.ESCAPE, 0)
    assert runner.run() == 1 and runner.window.has_exit


def run_until_a_tick(runner) -> None:
    ticks = runner.world.tick_count
    while runner.world.tick_count == ticks:
        runner.run(frames=1)


def test_space_and_letters_reach_the_game_and_change_nothing_else(runner_for):
    from engine import keys

    runner = runner_for("bouncy")
    runner.run(frames=3)
    before = (runner.interpolate, runner.view.extrapolate, runner.paused, runner.hud.visible)
    for symbol in (keys.SPACE, keys.Q, keys.P, keys.E, keys.N):
        runner.window.dispatch_event("on_key_press", symbol, keys.MOD_SHIFT)
    run_until_a_tick(runner)
    tick_input = runner.world.input
    assert all(tick_input.just_pressed(symbol) for symbol in (keys.SPACE, keys.Q, keys.P, keys.E, keys.N))
    assert tick_input.modifiers == keys.MOD_SHIFT, "a modified key carries its modifiers"
    assert (runner.interpolate, runner.view.extrapolate, runner.paused, runner.hud.visible) == before
    assert not runner.window.has_exit


def test_a_drag_and_a_scroll_reach_world_input(runner_for):
    from engine import keys

    runner = runner_for("bouncy")
    runner.run(frames=3)
    window = runner.window
    window.dispatch_event("on_mouse_press", 10, 10, 1, 0)
    window.dispatch_event("on_mouse_drag", 50, 60, 40, 50, 1, keys.MOD_CTRL)
    window.dispatch_event("on_mouse_scroll", 50, 60, 0.0, -2.0)
    window.dispatch_event("on_mouse_scroll", 50, 60, 0.0, -1.0)
    run_until_a_tick(runner)
    tick_input = runner.world.input
    assert tick_input.pressed(1) and (tick_input.mouse_x, tick_input.mouse_y) == (50.0, 60.0)
    assert [event.type for event in tick_input.events] == ["mouse_press", "mouse_drag", "mouse_scroll",
                                                             "mouse_scroll"]
    assert (tick_input.scroll_x, tick_input.scroll_y) == (0.0, -3.0)
    assert tick_input.events[1].modifiers == keys.MOD_CTRL


def test_show_hud_false_draws_no_hud(runner_for):
    from engine.render.context import read_pixels

    def hud_corner_pixels(runner) -> set:
        runner.run(frames=5)
        runner._draw(1.0)
        width = runner.window.width
        data = read_pixels(width, runner.window.height)
        # The HUD's text sits at the bottom left, where patrol draws nothing but background.
        return {data[(y * width + x) * 4:(y * width + x) * 4 + 3] for x in range(200) for y in range(40, 80)}

    assert len(hud_corner_pixels(runner_for("patrol"))) > 2
    assert len(hud_corner_pixels(runner_for("patrol", show_hud=False))) == 1, "only the background"


@pytest.mark.parametrize("loop", ["fixed", "max-fps", "constant", "variable", "gated"])
def test_pausing_works_under_every_loop(runner_for, loop):
    runner = runner_for("bouncy", loop=loop)
    runner.run(frames=5)
    runner.paused = True
    ticks = runner.world.tick_count
    runner.run(frames=20)
    assert runner.world.tick_count == ticks
    runner.step()
    assert runner.world.tick_count == ticks + 1


def png_colours(path) -> int:
    image = pyglet.image.load(str(path)).get_image_data()
    data = image.get_data("RGB", image.width * 3)
    return len({data[i:i + 3] for i in range(0, len(data), 3 * 7)})


@pytest.mark.parametrize("name", ["bouncy", "framebuffer", "patrol", "slapstick"])
def test_every_game_renders_headless_to_a_screenshot_that_is_not_blank(tmp_path, capsys, name):
    from engine.tools.cli import main

    path = tmp_path / f"{name}.png"
    assert main(["run", name, "--headless", "--frames", "40", "--screenshot", str(path)]) == 0
    assert "40 frames" in capsys.readouterr().out
    assert png_colours(path) >= 2, "the background and the game's looks (a screenshot holds no HUD)"


@pytest.mark.parametrize("name", ["comet", "explorer", "platformer", "pong"])
def test_the_new_games_render_headless_without_the_hud(tmp_path, name):
    from engine.render.runner import GameRunner

    path = tmp_path / f"{name}.png"
    runner = GameRunner(name, display=Display(headless=True, show_hud=False))
    try:
        runner.run(frames=40)
        runner.screenshot(str(path))
    finally:
        runner.close()
    assert png_colours(path) >= 3


def test_a_headless_run_is_the_same_every_time(capsys):
    from engine.tools.cli import main

    states = []
    for _ in range(2):
        assert main(["run", "patrol", "--headless", "--frames", "60"]) == 0
        states.append(capsys.readouterr().out.split("state ")[1])
    assert states[0] == states[1]


def test_the_lab_draws_its_timelines_as_a_png(tmp_path, capsys):
    from engine.tools.cli import main

    path = tmp_path / "lab.png"
    assert main(["lab", "--seconds", "0.2", "--png", str(path)]) == 0
    assert png_colours(path) >= 4


def test_a_machine_without_font_libraries_is_told_what_to_install(capsys, monkeypatch):
    # A bare GPU server had EGL but no FreeType: every run failed as "bouncy failed: ImportError".
    import sys

    from engine.tools.cli import main

    monkeypatch.setitem(sys.modules, "pyglet.text", None)
    assert main(["run", "bouncy", "--headless", "--frames", "3"]) == 2
    err = capsys.readouterr().err
    assert "cannot draw text" in err and "libfreetype6" in err and "Traceback" not in err


def test_a_crashing_game_exits_1_naming_the_entity(capsys, monkeypatch):
    from engine.tools.cli import main
    from games.bouncy.logic import Ball

    def broken(self, world):
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(Ball, "update", broken)
    assert main(["run", "bouncy", "--headless", "--frames", "30"]) == 1
    err = capsys.readouterr().err
    assert "Ball" in err and "tick 1" in err and "ZeroDivisionError" in err and "Traceback" not in err


def write_half_red_png(path, width=16, height=8) -> None:
    """A small PNG, left half opaque red, right half transparent (written without any library)."""
    import struct
    import zlib

    rows = b"".join(b"\x00" + b"".join(b"\xff\x00\x00\xff" if x < width // 2 else b"\x00\x00\x00\x00"
                                       for x in range(width)) for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
                     + chunk(b"IEND", b""))


def test_a_picture_look_is_drawn_with_its_own_size_and_transparency(window, tmp_path):
    from engine.render.entities import EntityRenderer

    picture = tmp_path / "half.png"
    write_half_red_png(picture)
    with World() as world:
        world.spawn(Entity(x=60, y=20))
        renderer = EntityRenderer(world, looks={Entity: Look(image=str(picture))})
        pyglet.gl.glClearColor(0, 0, 1, 1)
        window.clear()
        renderer.draw(1.0)
        at = pixels(120, 40)
        assert at(54, 20) == (255, 0, 0), "the opaque half"
        assert at(64, 20) == (0, 0, 255), "the transparent half shows what is behind"
        assert at(60, 28) == (0, 0, 255), "nothing outside the picture's 16x8"
        renderer.delete()


@pytest.mark.parametrize("extrapolate", [False, True])
def test_a_turn_across_zero_is_drawn_the_short_way_round(window, tmp_path, extrapolate):
    """350 to 10 degrees passes through 0, not 180 (as ``Entity.draw_angle``): a half-red picture shows which."""
    from engine.render.entities import EntityRenderer

    picture = tmp_path / "half.png"
    write_half_red_png(picture)

    class Vane(Entity):
        look = Look(image=str(picture))

        def update(self, world: World) -> None:
            self.angle = 10.0 if self.angle == 350.0 else 330.0

    with World() as world:
        vane = world.spawn(Vane(x=60, y=20, angle=350.0))
        world.tick()  # 350 -> 10; extrapolated half a tick: 20
        assert vane.draw_angle(0.5) == 0.0
        renderer = EntityRenderer(world, extrapolate=extrapolate)
        pyglet.gl.glClearColor(0, 0, 1, 1)
        window.clear()
        renderer.draw(0.5)
        at = pixels(120, 40)
        assert at(54, 20) == (255, 0, 0) and at(66, 20) == (0, 0, 255), "the red half stays on the left"
        renderer.delete()


def test_a_picture_gone_before_it_is_drawn_is_reported_by_path(window, tmp_path):
    from engine.render.entities import EntityRenderer

    picture = tmp_path / "gone.png"
    write_half_red_png(picture)
    look = Look(image=str(picture))  # a missing one is refused here (tests/test_look.py); this one leaves later
    picture.unlink()
    with World() as world:
        world.spawn(Entity())
        renderer = EntityRenderer(world, looks={Entity: look})
        with pytest.raises(ValueError, match="gone.png"):
            renderer.draw(1.0)


def test_the_swarm_crowd_is_drawn_interpolated(window):
    import numpy as np

    from engine.crowd import Crowd

    class Pair(Crowd):
        look: Look | None = Look("square", 4, (0, 255, 0))

        def update(self, world: World) -> None:
            np.add(self.current("position"), self.current("velocity"), out=self.next("position"))

    with World() as world:
        pair = world.spawn(Pair(4))
        pair.spawn_members(position=[[10, 10], [10, 30]], velocity=[[40, 0], [80, 0]])
        world.tick()
        renderer, at = drawn(world, window, 0.5)
        assert at(30, 10) == (0, 255, 0) and at(50, 30) == (0, 255, 0)
        assert at(10, 10) == (0, 0, 0) and at(90, 30) == (0, 0, 0)
        assert renderer.entity_count == 2
        pair.look = Look("square", 4, (255, 0, 0))
        draw(renderer, window, 0.5)
        assert pixels(120, 40)(30, 10) == (255, 0, 0), "a crowd's new look shows next frame"
        pair.look = None
        draw(renderer, window, 0.5)
        assert pixels(120, 40)(30, 10) == (0, 0, 0) and renderer.entity_count == 0
        pair.look = Look("square", 4, (0, 0, 255))
        draw(renderer, window, 0.5)
        assert pixels(120, 40)(30, 10) == (0, 0, 255), "and back"
        renderer.delete()


def test_max_fps_is_refused_for_loops_that_pace_themselves(capsys):
    from engine.tools.cli import main

    assert main(["run", "bouncy", "--headless", "--frames", "3", "--loop", "gated", "--max-fps", "30"]) == 2
    assert "max_fps" in capsys.readouterr().err


def test_a_crowd_with_a_picture_look_draws_the_picture_and_one_with_text_is_refused_by_name(window, tmp_path):
    from engine.crowd import Crowd

    picture = tmp_path / "half.png"
    write_half_red_png(picture)

    class Flock(Crowd):
        look = Look(image=str(picture))

    with World() as world:
        flock = world.spawn(Flock(4))
        flock.spawn_members(position=[[30, 20], [90, 20]])
        world.tick()
        renderer, at = drawn(world, window, 1.0)
        # Each member is the 16x8 picture: red on its left half, transparent on its right.
        assert at(24, 20) == (255, 0, 0) and at(84, 20) == (255, 0, 0)
        assert at(34, 20) == (0, 0, 0) and at(94, 20) == (0, 0, 0)
        flock.look = Look(text="no")
        with pytest.raises(ValueError, match="Flock: a crowd is drawn as shapes or pictures, not text"):
            renderer.draw(1.0)
        renderer.delete()


@pytest.mark.skipif(__import__("shutil").which("xvfb-run") is None,
                    reason="xvfb-run is not installed: no virtual display for a real window")
def test_a_real_window_runs_paces_and_screenshots_under_xvfb(tmp_path):
    import subprocess
    import sys

    shot = tmp_path / "window.png"
    command = [sys.executable, "-m", "engine.tools.cli", "run", "bouncy", "--frames", "60", "--no-vsync",
               "--max-fps", "60", "--screenshot", str(shot)]
    result = subprocess.run(["xvfb-run", "-a", *command], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    # Real time drives this run, so how many ticks it got is the machine's business: only
    # that frames were shown, logic advanced and the window drew something is asserted.
    assert "bouncy: 60 frames" in result.stdout
    assert int(result.stdout.split(" ticks")[0].split()[-1]) >= 1
    assert png_colours(shot) >= 2, "the background and the game's looks (a screenshot holds no HUD)"


# -- text, rotation, changing looks, layers and the camera, read back from the buffer ------


def colour_count(width: int, height: int, colour, box=None) -> int:
    at = pixels(width, height)
    x0, y0, x1, y1 = box or (0, 0, width, height)
    return sum(1 for x in range(x0, x1) for y in range(y0, y1) if at(x, y) == colour)


def test_text_is_drawn_and_a_changed_text_shows_next_frame(window):
    from engine.render.entities import EntityRenderer

    class Score(Entity):
        look = Look(text="1", size=20, color=(255, 255, 255))

    with World() as world:
        score = world.spawn(Score(x=60, y=20))
        renderer = EntityRenderer(world)
        draw(renderer, window, 1.0)
        one = colour_count(120, 40, (255, 255, 255))
        assert one > 5, "a '1' leaves white pixels around the entity"
        assert colour_count(120, 40, (255, 255, 255), (0, 0, 40, 40)) == 0, "centred on the entity"
        label = renderer._texts.labels[score.id]
        score.look = Look(text="888", size=20, color=(255, 255, 255))
        draw(renderer, window, 1.0)
        assert colour_count(120, 40, (255, 255, 255)) > 2 * one, "the next frame shows the new text"
        assert renderer._texts.labels[score.id] is label, "the label is kept, only its text changed"
        draw(renderer, window, 1.0)
        assert renderer._texts.labels[score.id].text == "888"
        renderer.delete()


def test_a_square_turned_45_degrees_fills_its_diamond_and_leaves_its_corners(window):

    class Turned(Entity):
        look = Look("square", 20, (255, 0, 0))

    with World() as world:
        square = world.spawn(Turned(x=60, y=20))
        square.angle = 45.0
        renderer, at = drawn(world, window, 1.0)
        assert at(60, 20) == (255, 0, 0)
        assert at(60, 33) == (255, 0, 0) and at(47, 20) == (255, 0, 0), "a corner points up, one left (14 px out)"
        assert at(52, 12) == (0, 0, 0) and at(68, 28) == (0, 0, 0), "the unturned corners are empty"
        renderer.delete()


def test_a_turning_entity_is_drawn_at_its_interpolated_angle(window):

    class Bar(Entity):
        look = Look("square", (30, 4), (255, 0, 0))

        def update(self, world: World) -> None:
            self.angle += 90.0

    with World() as world:
        world.spawn(Bar(x=60, y=20))
        world.tick()  # 0 -> 90 degrees
        renderer, at = drawn(world, window, 0.0)
        assert at(72, 20) == (255, 0, 0) and at(60, 32) == (0, 0, 0), "alpha 0: lying flat"
        draw(renderer, window, 1.0)
        at = pixels(120, 40)
        assert at(72, 20) == (0, 0, 0) and at(60, 32) == (255, 0, 0), "alpha 1: standing up"
        renderer.delete()


def test_a_changed_look_shows_next_frame_and_none_hides_the_entity(window):
    from engine.render.entities import EntityRenderer

    with World() as world:
        thing = world.spawn(Entity(x=60, y=20))
        thing.look = Look("square", 10, (255, 0, 0))
        renderer = EntityRenderer(world)
        draw(renderer, window, 1.0)
        assert pixels(120, 40)(55, 15) == (255, 0, 0)
        thing.look = Look("circle", 10, (0, 255, 0))
        draw(renderer, window, 1.0)
        at = pixels(120, 40)
        assert at(60, 20) == (0, 255, 0) and at(55, 15) == (0, 0, 0), "now a green circle"
        thing.look = None
        draw(renderer, window, 1.0)
        assert colour_count(120, 40, (0, 0, 0)) == 120 * 40, "hidden"
        assert renderer.entity_count == 0
        renderer.delete()


def test_an_entity_without_a_look_draws_nothing(window):
    from engine.render.entities import EntityRenderer

    with World() as world:
        world.spawn(Entity(x=60, y=20))
        renderer = EntityRenderer(world)
        draw(renderer, window, 1.0)
        assert colour_count(120, 40, (0, 0, 0)) == 120 * 40
        renderer.delete()


def test_higher_layers_draw_on_top_whatever_the_update_order(window):

    class Front(Entity):
        look = Look("square", 10, (255, 0, 0), layer=1)

    class Back(Entity):
        look = Look("square", 10, (0, 0, 255))

    with World() as world:
        world.spawn(Front(x=60, y=20))
        world.spawn(Back(x=60, y=20))
        world.spawn(Entity(x=20, y=20)).look = Look("square", 10, (0, 255, 0), layer=-1)
        world.spawn(Back(x=20, y=20))
        renderer, at = drawn(world, window, 1.0)
        assert at(60, 20) == (255, 0, 0) and at(20, 20) == (0, 0, 255)
        renderer.delete()


def test_a_camera_centres_the_view_on_its_interpolated_position(window):
    from engine import Camera
    from engine.render.entities import EntityRenderer

    class Pan(Camera):
        def update(self, world: World) -> None:
            self.x += 20

    with World() as world:
        world.spawn(Dot(x=100, y=20)).look = Look("square", 4, (255, 0, 0))
        renderer = EntityRenderer(world)
        draw(renderer, window, 1.0)
        assert red_columns(120, 40, 20) == [98, 99, 100, 101], "no camera: world (0, 0) is the bottom-left corner"
        world.despawn(world.entities[0])
        world.spawn(Dot(x=100, y=20)).look = Look("square", 4, (255, 0, 0, 255), layer=1)
        world.spawn(Pan(x=80, y=20))
        world.tick()  # the dot moves 100 -> 140, the camera 80 -> 100
        draw(renderer, window, 0.5)
        # Halfway: the dot at 120, the camera at 90, so the dot is 30 right of the centre (60).
        assert red_columns(120, 40, 20) == [88, 89, 90, 91]
        assert window.view == pyglet.math.Mat4(), "the window's view is left as it was (the HUD draws unmoved)"
        renderer.delete()


def test_the_standard_renderer_and_a_games_own_view_are_views(window):
    from engine.render.entities import EntityRenderer
    from engine.render.view import View
    from games.framebuffer.logic import build
    from games.framebuffer.view import make_view

    with World() as world:
        build(world)
        own, standard = make_view(world), EntityRenderer(world)
        assert isinstance(own, View) and isinstance(standard, View)
        own.delete()
        standard.delete()


def test_unchanged_entities_and_text_make_no_pyglet_objects_frame_after_frame(window, monkeypatch):
    import pyglet.text

    from engine.render.entities import EntityRenderer

    made = []
    real_label = pyglet.text.Label

    class CountingLabel(real_label):  # type: ignore[misc,valid-type]
        def __init__(self, *args, **kwargs):
            made.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(pyglet.text, "Label", CountingLabel)

    class Title(Entity):
        def update(self, world: World) -> None:
            self.x += 1
            self.look = Look(text="Same", size=12)  # a new but equal look every tick

    with World() as world:
        world.spawn(Title(x=40, y=20))
        for i in range(50):
            world.spawn(Dot(x=i, y=10))
        renderer = EntityRenderer(world)
        draw(renderer, window, 1.0)
        buckets = dict(renderer._buckets)
        lists = {look: bucket.vertex_list for look, bucket in buckets.items()}
        for frame in range(10):
            if frame % 3 == 0:
                world.tick()
            draw(renderer, window, frame / 10)
        assert len(made) == 1, "one label, made once, though its look was replaced every tick"
        assert renderer._buckets == buckets and all(b.vertex_list is lists[look] for look, b in buckets.items())
        renderer.delete()


@pytest.mark.parametrize("looks", [1, 2], ids=["one look", "two looks"])
def test_the_motion_is_uploaded_once_per_tick_and_frames_between_ticks_upload_nothing(window, monkeypatch, looks):
    """Issue 32 item 2: both ends of the tick go to the GPU once; a frame only moves ``alpha``."""
    from pyglet.graphics.vertexbuffer import BackedBufferObject

    from engine.render.entities import EntityRenderer

    uploads: list[int] = []
    real_commit = BackedBufferObject.commit

    def counting_commit(self: BackedBufferObject) -> None:
        if self._dirty:
            uploads.append(self._dirty_max - self._dirty_min)
        real_commit(self)

    monkeypatch.setattr(BackedBufferObject, "commit", counting_commit)

    class Other(Dot):
        look = Look("circle", 10, (255, 0, 0))

    with World() as world:
        world.spawn(Dot(x=20, y=20))  # 20 -> 60 -> 100
        if looks == 2:
            world.spawn(Other(x=-100, y=-100))
        world.tick()
        renderer = EntityRenderer(world)
        draw(renderer, window, 0.0)
        assert uploads, "the first frame after a tick uploads its ends"
        uploads.clear()
        for alpha, columns in ((0.25, range(25, 35)), (0.5, range(35, 45)), (1.0, range(55, 65))):
            draw(renderer, window, alpha)
            assert red_columns(120, 40, 20) == list(columns), alpha
        assert uploads == [], "frames between two ticks upload nothing"
        world.tick()
        draw(renderer, window, 0.5)
        assert red_columns(120, 40, 20) == list(range(75, 85))
        assert uploads, "a tick's new ends are uploaded"
        renderer.delete()


def test_a_text_that_changes_every_tick_does_not_resort_the_other_entities(window, monkeypatch):
    from engine.render.entities import EntityRenderer

    class Clock(Entity):
        look = Look(text="0")

        def update(self, world: World) -> None:
            self.look = Look(text=str(world.tick_count))

    with World() as world:
        for i in range(20):
            world.spawn(Dot(x=i, y=10))
        clock = world.spawn(Clock(x=60, y=30))
        renderer = EntityRenderer(world)
        draw(renderer, window, 1.0)
        resorts = []
        monkeypatch.setattr(renderer, "_sync_looks", lambda *looks_and_parts: resorts.append(1))
        for _ in range(5):
            world.tick()
            draw(renderer, window, 1.0)
        assert resorts == [] and renderer._texts.labels[clock.id].text == "4"
        clock.look = Look("square", 4, (255, 0, 0))  # no longer text: the full re-sort
        draw(renderer, window, 1.0)
        assert resorts == [1]


class FakeDriver:
    """Stands in for a network session: ticks the world itself, as a session does, and records what it was handed."""

    def __init__(self, world, end_after: int) -> None:
        self.world = world
        self.polls = 0
        self.idles: list[float] = []
        self.handed: list[dict] = []
        self.ended: str | None = None
        self._end_after = end_after

    def poll(self) -> None:
        self.polls += 1
        if self.polls > self._end_after:
            self.ended = "the peer left"

    local_players = (1,)  # a session's local player need not be player 0

    def advance(self, local) -> int:
        self.handed.append({player: list(events) for player, events in local.items()})
        for player, events in local.items():
            for event in events:
                self.world.input_queue_of(player).push(event)
        self.world.tick()
        return 1

    def idle(self, timeout_s: float) -> None:
        self.idles.append(timeout_s)

    def hud_text(self) -> str:
        return "ping 12 ms"

    def take_sounds(self) -> list:
        from engine.world import take_sounds

        return take_sounds(self.world)


def test_a_driver_runs_the_ticks_gets_the_window_input_and_stops_the_run_when_it_ends(runner_for):
    from engine import World, keys
    from engine.files.importer import load_game

    world = World(players=2)
    load_game("bouncy").build(world)
    driver = FakeDriver(world, end_after=40)
    runner = runner_for("bouncy", driver=driver)
    runner.run(frames=5)
    runner.window.dispatch_event("on_key_press", keys.SPACE, 0)
    runner.window.dispatch_event("on_key_press", keys.F2, 0)  # no pause in a session: peers don't wait
    frames = runner.run(frames=1000)
    assert frames < 100 and driver.ended == "the peer left", "the run stops once the driver has ended"
    assert driver.polls == 5 + frames
    assert driver.idles == [pytest.approx(1 / 60)] * driver.polls, "off-screen, a frame may wait one display frame"
    assert not runner.paused
    assert world.tick_count == sum(1 for _ in driver.handed) > 0
    pressed = [events for events in driver.handed if events]
    assert [{player: [event.key for event in mine] for player, mine in events.items()} for events in pressed] == [
        {1: [keys.SPACE]}], "the window's events are handed as the local player's"
    assert world.input_queue_of(1).state()[1] == frozenset({keys.SPACE}), "the driver put it in player 1's queue"
    assert world.input_queue.state()[1] == frozenset(), "the window's input went to the driver, not player 0"
    assert "ping 12 ms" in runner.hud.note


PURE_OR_CORE_SCENE = '''
import hashlib, sys
from engine import Entity, Look, World
from engine.render import create_window
from engine.render.context import read_pixels
from engine.render.entities import EntityRenderer

class Spinner(Entity):
    look = Look("square", 6, (255, 200, 0))

    def update(self, world):
        self.x += 0.37
        self.angle = (self.angle + 173.0) % 360.0  # across 0 degrees every other tick

class Blinker(Entity):
    look = Look("circle", 5, (0, 120, 255))

    def update(self, world):
        self.y -= 1.3
        self.look = Look("circle", 4 + world.tick_count % 3, (0, 120 + world.tick_count % 2 * 100, 255))

window = create_window(96, 64, headless=True)
digest = hashlib.sha256()
with World() as world:
    for i in range(60):
        world.spawn(Spinner(x=i * 1.55, y=i % 7 * 9.1, angle=i * 29.0))
        world.spawn(Blinker(x=i % 11 * 8.3, y=60 - i % 5 * 3.7))
    world.spawn(Entity(x=40, y=30))  # never moves
    renderer = EntityRenderer(world)
    for tick in range(3):
        world.tick()
        for extrapolate in (False, True):
            renderer.extrapolate = extrapolate
            for alpha in (0.0, 0.3, 0.77, 1.0):
                window.clear()
                renderer.draw(alpha)
                digest.update(bytes(read_pixels(96, 64)))
    renderer.delete()
window.close()
print(digest.hexdigest())
'''


def test_the_pure_path_and_the_core_draw_the_same_pixels(tmp_path):
    """Interpolated on the GPU from either path's rows: every frame the same, turns and looks changing."""
    import os
    import subprocess
    import sys

    from engine.buffering import ACCELERATED

    if not ACCELERATED:
        pytest.skip("the compiled core is not built")
    script = tmp_path / "scene.py"
    script.write_text(PURE_OR_CORE_SCENE)
    digests = {pure: subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True,
                                    env={**os.environ, "TICKSWAP_PURE": pure}).stdout.strip() for pure in ("0", "1")}
    assert len(digests["0"]) == 64 and digests["0"] == digests["1"], digests


def test_a_runner_given_its_display_fields_one_by_one_warns_and_shows_the_same(runner_for):
    from engine.render.runner import GameRunner

    with pytest.warns(DeprecationWarning, match=r"GameRunner\(headless=, show_hud=\.\.\.\).*display=Display"):
        runner = GameRunner("patrol", headless=True, show_hud=False)
    try:
        assert runner.display == Display(headless=True, show_hud=False) and not runner.hud.visible
    finally:
        runner.close()
    with pytest.raises(TypeError, match="unexpected keyword argument 'headles'"):
        GameRunner("patrol", headles=True)
