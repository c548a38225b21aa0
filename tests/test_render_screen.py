"""The screen, pixel by pixel: screen-space looks and text anchors, looks of any size, camera zoom
and shake, and a screenshot of the state after a chosen tick."""

from __future__ import annotations

import pyglet
import pytest

from engine import Camera, Entity, Look, World
from engine.look import AnchorX, AnchorY

pytestmark = pytest.mark.usefixtures("offscreen")


def make_window(width: int, height: int):
    from engine.render import create_window

    return create_window(width, height, headless=True)


@pytest.fixture
def window():
    made = make_window(200, 100)
    yield made
    made.close()


def frame(renderer, window, alpha: float = 1.0) -> bytes:
    """Draw one frame on black and return its RGBA bytes."""
    from engine.render.context import read_pixels

    pyglet.gl.glClearColor(0, 0, 0, 1)
    window.clear()
    renderer.draw(alpha)
    return read_pixels(window.width, window.height)


def lit(data: bytes, width: int, height: int) -> list[tuple[int, int]]:
    """Every pixel that is not black, as (x, y)."""
    return [(x, y) for y in range(height) for x in range(width)
            if data[(y * width + x) * 4:(y * width + x) * 4 + 3] != b"\x00\x00\x00"]


def colour(data: bytes, width: int, x: int, y: int) -> tuple[int, ...]:
    return tuple(data[(y * width + x) * 4:(y * width + x) * 4 + 3])


class Scroll(Camera):
    def update(self, world: World) -> None:
        self.x += 37.5
        self.y += 11


class Score(Entity):
    look = Look(text="Score: 120", size=12, screen=True, anchor_x="left", anchor_y="top")


# -- screen space ------------------------------------------------------------------------------

def test_a_screen_text_stays_pixel_exact_while_the_camera_scrolls(window):
    from engine.render.entities import EntityRenderer

    with World() as world:
        world.spawn(Score(x=4, y=96))
        world.spawn(Entity(x=100, y=50)).look = Look("square", 6, (255, 0, 0))
        world.spawn(Scroll(x=100, y=50))
        renderer = EntityRenderer(world)
        frames, reds = [], []
        for _ in range(4):
            world.tick()
            for alpha in (0.0, 0.3, 1.0):
                data = frame(renderer, window, alpha)
                # Compare the score's corner of the window (the world square scrolls away from it).
                frames.append(bytes(b for y in range(60, 100) for b in data[y * 800:y * 800 + 400]))
                reds.append([x for x, y in lit(data, 200, 100) if colour(data, 200, x, y) == (255, 0, 0)][:1])
        renderer.delete()
    assert any(byte for byte in frames[0]), "the score is drawn"
    assert all(each == frames[0] for each in frames), "the score never moves by a pixel"
    assert len({tuple(red) for red in reds}) > 3, "while the camera really scrolls the world"


def test_anchors_place_text_where_they_say(window):
    from engine.render.entities import EntityRenderer

    boxes = {}
    anchors: tuple[tuple[AnchorX, AnchorY], ...] = (("left", "bottom"), ("right", "top"), ("center", "center"))
    for anchor_x, anchor_y in anchors:
        with World() as world:
            world.spawn(Entity(x=100, y=50)).look = Look(text="Hi 8", size=14, screen=True,
                                                         anchor_x=anchor_x, anchor_y=anchor_y)
            renderer = EntityRenderer(world)
            points = lit(frame(renderer, window), 200, 100)
            renderer.delete()
        xs, ys = [x for x, _ in points], [y for _, y in points]
        boxes[anchor_x, anchor_y] = (min(xs), max(xs), min(ys), max(ys))
    left, _, bottom, _ = boxes["left", "bottom"]
    # The ink starts just right of and above the anchor (a glyph's side bearing, the descent below "Hi 8").
    assert 100 <= left <= 103 and 50 <= bottom <= 57, boxes
    _, right, _, top = boxes["right", "top"]
    assert 96 <= right < 100 and 42 <= top < 50, boxes
    low_x, high_x, low_y, high_y = boxes["center", "center"]
    assert abs((low_x + high_x) / 2 - 100) <= 2 and abs((low_y + high_y) / 2 - 50) <= 4, boxes


def test_screen_shapes_are_in_window_coordinates_above_every_world_layer(window):
    from engine.render.entities import EntityRenderer

    with World() as world:
        world.spawn(Camera(x=5000, y=-3000))
        world.spawn(Entity(x=5000 - 90, y=-3000 - 40)).look = Look("square", 20, (0, 255, 0), layer=9)
        world.spawn(Entity(x=10, y=10)).look = Look("square", 8, (255, 0, 0), screen=True, layer=-5)
        renderer = EntityRenderer(world)
        data = frame(renderer, window)
        renderer.delete()
    red = [point for point in lit(data, 200, 100) if colour(data, 200, *point) == (255, 0, 0)]
    assert min(red) == (6, 6) and max(red) == (13, 13) and len(red) == 64, "window (10, 10), on top of layer 9"


@pytest.mark.parametrize("field, value", [("anchor_x", "middle"), ("anchor_y", "baseline"), ("anchor_x", 3)])
def test_a_bad_anchor_is_refused_in_one_line_naming_it(field, value):
    with pytest.raises(ValueError, match=f"{field} must be one of") as error:
        Look(text="x", **{field: value})
    assert repr(value) in str(error.value) and "\n" not in str(error.value)


def test_anchors_are_for_text_and_screen_is_a_bool():
    with pytest.raises(ValueError, match="anchor_x/anchor_y place text"):
        Look("square", 8, anchor_x="left")
    with pytest.raises(TypeError, match="screen must be True"):
        Look("square", 8, screen=1)  # type: ignore[arg-type]


# -- looks of any size ---------------------------------------------------------------------------

def test_a_600_pixel_look_is_drawn_whole():
    from engine.render.entities import EntityRenderer

    window = make_window(700, 60)
    try:
        with World() as world:
            world.spawn(Entity(x=350, y=30)).look = Look("square", (600, 20), (255, 0, 0))
            renderer = EntityRenderer(world)
            data = frame(renderer, window)
            renderer.delete()
    finally:
        window.close()
    row = [x for x in range(700) if colour(data, 700, x, 30) == (255, 0, 0)]
    assert row == list(range(50, 650))


@pytest.fixture
def tiny_points(monkeypatch):
    """Make this GL's point sprites seem 16 px at most, so every look below takes the quad path."""
    from engine.render import sprites

    monkeypatch.setattr(sprites, "_max_point_size", [16.0])


def test_looks_too_large_for_a_point_are_quads_cut_to_their_shape(window, tiny_points):
    from engine.render.entities import EntityRenderer
    from engine.render.quads import QuadBucket

    with World() as world:
        square = world.spawn(Entity(x=40, y=50))
        square.look = Look("square", 30, (255, 0, 0))
        world.spawn(Entity(x=120, y=50)).look = Look("circle", 40, (0, 255, 0))
        renderer = EntityRenderer(world)
        data = frame(renderer, window)
        assert all(isinstance(bucket, QuadBucket) for bucket in renderer._buckets.values())
        square.angle = 45.0
        square.snap()
        world.tick()
        turned = frame(renderer, window)
        renderer.delete()
    assert [x for x in range(200) if colour(data, 200, x, 50) == (255, 0, 0)] == list(range(25, 55))
    assert colour(data, 200, 120, 50) == (0, 255, 0) and colour(data, 200, 120, 69) == (0, 255, 0)
    assert colour(data, 200, 137, 67) == (0, 0, 0), "the circle's corner is cut"
    # Turned 45 degrees, the square is a diamond reaching 21 px out along the row, and its corner is empty.
    assert colour(turned, 200, 40 - 19, 50) == (255, 0, 0) and colour(turned, 200, 40 - 14, 50 + 14) == (0, 0, 0)


def test_a_zoom_that_outgrows_the_point_limit_switches_to_quads(window, tiny_points):
    from engine.render.entities import EntityRenderer

    with World() as world:
        world.spawn(Entity(x=100, y=50)).look = Look("square", 10, (255, 0, 0))
        camera = world.spawn(Camera(x=100, y=50))
        renderer = EntityRenderer(world)
        small = frame(renderer, window)
        camera.zoom = 3.0
        world.tick()
        large = frame(renderer, window)
        renderer.delete()
    assert [x for x in range(200) if colour(small, 200, x, 50) == (255, 0, 0)] == list(range(95, 105))
    assert [x for x in range(200) if colour(large, 200, x, 50) == (255, 0, 0)] == list(range(85, 115))


# -- camera zoom and shake -----------------------------------------------------------------------

def test_a_zoomed_camera_scales_the_world_around_the_centre_of_the_window(window):
    from engine.render.entities import EntityRenderer

    with World() as world:
        world.spawn(Entity(x=120, y=50)).look = Look("square", 4, (255, 0, 0))
        world.spawn(Camera(x=100, y=50, zoom=2.0))
        renderer = EntityRenderer(world)
        data = frame(renderer, window)
        renderer.delete()
    # 20 px right of the camera, twice as large: centred 40 px right of the window's centre, 8 px wide.
    assert [x for x in range(200) if colour(data, 200, x, 50) == (255, 0, 0)] == list(range(136, 144))
    assert [y for y in range(100) if colour(data, 200, 140, y) == (255, 0, 0)] == list(range(46, 54))


@pytest.mark.parametrize("zoom", [0, -1.0, float("nan"), float("inf"), True, "2", 1000.0])
def test_a_zoom_that_is_not_a_factor_is_refused_naming_it(zoom):
    with pytest.raises(ValueError, match="zoom must be a factor") as error:
        Camera(zoom=zoom)
    assert "\n" not in str(error.value)


def test_a_zoom_set_later_to_nonsense_is_refused_when_drawn_naming_the_camera():
    with World() as world:
        camera = world.spawn(Camera())
        camera.zoom = 0.0
        with pytest.raises(ValueError, match=r"Camera \d+ zoom must be a factor .* got 0.0"):
            camera.draw_view(1.0)


class Quake(Camera):
    def update(self, world: World) -> None:
        if world.tick_count == 3:
            self.shake(12.0, 10)


def shaken_views(seed: int) -> tuple[list[tuple[float, float, float]], str]:
    with World(seed=seed) as world:
        world.spawn(Entity())
        camera = world.spawn(Quake(x=50, y=50))
        views = []
        for _ in range(20):
            world.tick()
            before = world.state_hash()
            views.append(camera.draw_view(0.5))
            assert world.state_hash() == before, "drawing a shake changes nothing"
        return views, world.state_hash()


def test_a_shake_is_drawn_from_the_cameras_own_random_and_replays_the_same():
    views, state = shaken_views(seed=1)
    again, state_again = shaken_views(seed=1)
    other, _ = shaken_views(seed=2)
    assert views == again and state == state_again, "the same history shakes the same"
    assert views != other, "another seed, another shake"
    offsets = [(x - 50, y - 50) for x, y, _ in views]
    assert offsets[:3] == [(0.0, 0.0)] * 3, "no shake before it starts"
    assert any(abs(dx) > 1 for dx, _ in offsets[4:8]) and all(abs(dx) <= 12 for dx, _ in offsets)
    assert offsets[15:] == [(0.0, 0.0)] * 5, "it fades out after its ticks"


def test_a_shake_is_rolled_back_with_a_failing_tick():
    class Clumsy(Camera):
        def update(self, world: World) -> None:
            self.shake(5.0, 4)
            if world.tick_count == 1:
                raise RuntimeError("after the shake")

    from engine.errors import EntityUpdateError

    with World() as world:
        world.spawn(Clumsy())
        first = world.snapshot()
        world.tick()
        before = world.snapshot()
        state = before["entities"][0]["state"]
        assert first["entities"][0]["state"]["shake_seed"] == 0 and state["shake_seed"] != 0
        assert (state["shake_amplitude"], state["shake_ticks"]) == (5.0, 4), "the shake is in the snapshot and hash"
        with pytest.raises(EntityUpdateError):
            world.tick()
        assert world.snapshot() == before


@pytest.mark.parametrize("amplitude, ticks", [(-1.0, 5), (float("nan"), 5), (3.0, -1), (3.0, 2.5), (True, 3)])
def test_a_bad_shake_is_refused_naming_it(amplitude, ticks):
    with World() as world:
        camera = world.spawn(Camera())
        with pytest.raises(ValueError, match="Camera shake"):
            camera.shake(amplitude, ticks)


# -- a screenshot after a chosen tick -------------------------------------------------------------

GAME = '''
from engine import Camera, Entity, Look

WIDTH, HEIGHT = 96, 64
BACKGROUND = (0, 0, 40)


class Runner(Entity):
    look = Look("circle", 9, (255, 200, 0))

    def update(self, world):
        self.x += 3
        self.y += 1


class Follow(Camera):
    def update(self, world):
        self.x += 2


class Score(Entity):
    def update(self, world):
        self.look = Look(text=str(world.tick_count), size=10, screen=True, anchor_x="left", anchor_y="top")


def build(world):
    world.spawn(Runner(x=10, y=10))
    world.spawn(Follow(x=48, y=32))
    world.spawn(Score(x=2, y=62))
'''


def test_a_screenshot_after_n_ticks_is_the_world_ticked_n_times_drawn(tmp_path, capsys):
    from engine.files.importer import load_game
    from engine.render.context import read_pixels
    from engine.render.entities import EntityRenderer
    from engine.tools.cli import main
    from engine.tools.cli.worlds import build_world

    path = tmp_path / "runner.py"
    path.write_text(GAME)
    shot = tmp_path / "after.png"
    assert main(["run", str(path), "--ticks", "17", "--headless", "--screenshot", str(shot)]) == 0
    assert "17 ticks" in capsys.readouterr().out
    image = pyglet.image.load(str(shot)).get_image_data()
    assert (image.width, image.height) == (96, 64)
    taken = image.get_data("RGB", 96 * 3)

    world = build_world(load_game(str(path)), 0, None)
    window = make_window(96, 64)
    try:
        for _ in range(17):
            world.tick()
        renderer = EntityRenderer(world, window=window)
        pyglet.gl.glClearColor(0, 0, 40 / 255, 1)
        window.clear()
        renderer.draw(1.0)
        rgba = read_pixels(96, 64)
        renderer.delete()
    finally:
        window.close()
        world.close()
    drawn = bytes(byte for index, byte in enumerate(rgba) if index % 4 != 3)
    assert taken == drawn
    assert len({taken[i:i + 3] for i in range(0, len(taken), 3)}) >= 3, "not blank"


@pytest.mark.parametrize("argv, says", [
    (["--ticks", "5", "--screenshot", "x.png"], "add --headless"),
    (["--ticks", "5", "--headless"], "--screenshot"),
    (["--ticks", "5", "--headless", "--frames", "3", "--screenshot", "x.png"], "--frames"),
])
def test_ticks_takes_a_screenshot_only_off_screen_and_says_what_is_missing(argv, says, capsys):
    from engine.tools.cli import main

    assert main(["run", "patrol", *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1


QUAKE_GAME = '''
from engine import Camera, Entity, Look


class Quake(Camera):
    def update(self, world):
        self.x += 1
        if world.tick_count % 10 == 3:
            self.shake(6.0, 5)
            self.zoom = 1.0 + (world.tick_count % 3) / 2


def build(world):
    world.spawn(Entity()).look = Look("square", 4)
    world.spawn(Quake())
'''


def test_a_shaking_zooming_camera_replays_hash_by_hash(tmp_path, capsys):
    from engine.tools.cli import main

    path = tmp_path / "quake.py"
    path.write_text(QUAKE_GAME)
    recording = tmp_path / "quake.jsonl"
    assert main(["run", str(path), "--ticks", "40", "--record", str(recording)]) == 0
    assert main(["replay", str(recording), "--game", str(path)]) == 0
    assert "all match" in capsys.readouterr().out


# -- crowds of large looks -----------------------------------------------------------------------

def test_a_crowd_too_large_for_a_point_is_drawn_whole_as_quads(window, tiny_points):
    import numpy as np

    from engine.crowd import Crowd
    from engine.render.entities import EntityRenderer

    class Boulders(Crowd):
        look = Look("circle", 30, (255, 0, 0))

        def update(self, world: World) -> None:
            np.add(self.current("position"), [10.0, 0.0], out=self.next("position"))

    with World() as world:
        boulders = world.spawn(Boulders(4))
        boulders.spawn_members(position=[[40, 50], [130, 50]])
        world.tick()
        renderer = EntityRenderer(world)
        data = frame(renderer, window, 0.5)
        layers = list(renderer._crowds.values())
        renderer.delete()
    assert [layer.quads for layer in layers] == [True]
    # Each 30 px circle, halfway between 40 and 50 (and 130 and 140), drawn whole: 30 px across, not 16.
    for centre in (45, 135):
        assert [x for x in range(200) if colour(data, 200, x, 50) == (255, 0, 0)
                if abs(x - centre) < 40] == list(range(centre - 15, centre + 15))
        assert [y for y in range(100) if colour(data, 200, centre, y) == (255, 0, 0)] == list(range(35, 65))
    assert colour(data, 200, 45 + 13, 50 + 13) == (0, 0, 0), "cut to its circle"


def test_a_crowd_switches_to_quads_when_the_zoom_outgrows_the_point_limit(window, tiny_points):
    from engine.crowd import Crowd
    from engine.render.entities import EntityRenderer

    class Pebbles(Crowd):
        look = Look("square", 10, (255, 0, 0))

    with World() as world:
        pebbles = world.spawn(Pebbles(2))
        pebbles.spawn_members(position=[[100, 50]])
        camera = world.spawn(Camera(x=100, y=50))
        renderer = EntityRenderer(world)
        small = frame(renderer, window)
        points = [layer.quads for layer in renderer._crowds.values()]
        camera.zoom = 3.0
        world.tick()
        large = frame(renderer, window)
        quads = [layer.quads for layer in renderer._crowds.values()]
        renderer.delete()
    assert points == [False] and quads == [True]
    assert [x for x in range(200) if colour(small, 200, x, 50) == (255, 0, 0)] == list(range(95, 105))
    assert [x for x in range(200) if colour(large, 200, x, 50) == (255, 0, 0)] == list(range(85, 115))


@pytest.mark.parametrize("loop_name", ["fixed", "variable"])
def test_a_sessions_hud_fits_a_480_pixel_window_with_its_backdrop_behind_every_line(loop_name):
    from engine.clock import VirtualClock
    from engine.loops import make_loop
    from engine.net.stats import SessionStats
    from engine.render.hud import Hud

    narrow = make_window(480, 360)
    try:
        with World() as world:
            loop = make_loop(loop_name, lambda *_: None, lambda alpha: None, ms_per_update=15.625,
                             clock=VirtualClock())
            hud = Hud(narrow, loop, world)
            # The widest a session's HUD gets: every flag the runner shows, and every figure at its longest.
            stats = SessionStats(ping_ms=9999.0, frames_ahead=-99.9, rollbacks_per_s=999.0, waiting_on=7)
            hud.note = "  ".join(["interpolation off", "extrapolating", stats.hud_text()])
            hud.draw(0.0)
            label, backdrop = hud._label, hud._backdrop
            assert label.x + label.content_width <= narrow.width - 4, "no line runs past the window's edge"
            assert backdrop.x + backdrop.width <= narrow.width
            top = label.y + label.content_height
            assert backdrop.y + backdrop.height >= top, "the backdrop is behind the last line too"
    finally:
        narrow.close()


@pytest.mark.parametrize("flags", [[], ["interpolation off", "extrapolating"]])
def test_the_huds_text_stays_clear_of_its_frame_time_graph_however_many_lines_wrap(flags):
    from engine.clock import VirtualClock
    from engine.loops import make_loop
    from engine.net.stats import SessionStats
    from engine.render.context import read_pixels
    from engine.render.hud import SAMPLES, Hud

    narrow = make_window(480, 320)
    try:
        with World() as world:
            loop = make_loop("fixed", lambda *_: None, lambda alpha: None, ms_per_update=15.625,
                             clock=VirtualClock())
            hud = Hud(narrow, loop, world)
            stats = SessionStats(ping_ms=72.0, frames_ahead=8.7, ahead_of=1, rollbacks_per_s=2.0, waiting_on=1)
            hud.note = "  ".join([*flags, stats.hud_text()])
            for _ in range(SAMPLES):
                hud.frame_time(1000.0)  # every bar at its tallest
            pyglet.gl.glClearColor(0, 0, 0, 1)
            narrow.clear()
            hud.draw(0.0)
            data = read_pixels(480, 320)
            wrapped = hud._label.content_height
    finally:
        narrow.close()
    graph, text = set(), set()
    for y in range(320):
        for x in range(480):
            r, g, b = colour(data, 480, x, y)
            if g - r > 40 or r - g > 80:
                graph.add(y)  # the green bars and the red 60 fps line
            elif r == g == b and r > 60:
                text.add(y)  # white text, anti-aliased to grey
    assert wrapped >= 3 * 13 and graph and text, "the text wraps into three lines or more, above a drawn graph"
    assert max(graph) < min(text), f"graph up to row {max(graph)}, text from row {min(text)}"
