"""The browser runner's Python side, without a browser: its loop, input, scene, and the web build's commands."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from engine import Entity, Look, Part, World
from engine.files.importer import load_game
from engine.input import keys
from engine.render.pads import quantised
from engine.tools.cli import main
from engine.tools.cli.worlds import build_world
from engine.tools.ship.web import APP_ARCHIVE, PYODIDE_FILES, app_archive
from engine.web import WebRunner, dom_key, scene
from engine.web.dom import stick_position


def test_dom_codes_are_the_engine_keys_of_the_same_places() -> None:
    assert [dom_key(code) for code in ("KeyW", "ArrowDown", "Space", "Digit1", "Numpad7", "F5", "ShiftLeft")] == [
        keys.W, keys.DOWN, keys.SPACE, keys._1, keys.NUM_7, keys.F5, keys.LSHIFT]
    assert dom_key("NoSuchKey") is None and dom_key("Key") is None and dom_key("F99") is None


@pytest.mark.parametrize("x, y", [(0.1, 0.1), (0.5, -0.25), (0.9999, 1.5), (-0.3, 0.15), (math.nan, 0.5),
                                  (0.123456, -0.654321)])
def test_a_stick_reads_as_on_the_desktop(x: float, y: float) -> None:
    assert stick_position(x, y) == quantised(x, y)


def _pong() -> WebRunner:
    game = load_game("pong")
    return WebRunner(game, build_world(game, 0))


def test_the_lag_accumulator_runs_whole_ticks_and_gives_the_rest_as_alpha() -> None:
    runner = _pong()
    step = runner.ms_per_update
    assert runner.frame(1000.0) == 0.0 and runner.world.tick_count == 0  # the first frame only starts the clock
    alpha = runner.frame(1000.0 + 6.4 * step)
    assert runner.world.tick_count == 6 and alpha == pytest.approx(0.4)
    runner.frame(1000.0 + 6.4 * step + 10_000.0)  # a tab back from the background: at most MAX_FRAME_MS
    assert runner.world.tick_count == 6 + 16


def test_keys_reach_the_world_at_the_next_tick_and_reserved_keys_drive_the_runner() -> None:
    runner = _pong()
    assert runner.key(True, "Space") is True
    runner.step()
    assert runner.world.input.just_pressed(keys.SPACE)
    runner.key(True, "F2")
    assert runner.paused and runner.frame(0.0) == 1.0 and runner.frame(500.0) == 1.0
    ticks = runner.world.tick_count
    runner.key(True, "F3")
    assert runner.world.tick_count == ticks + 1
    assert runner.key(True, "NoSuchKey") is False


def test_a_scripted_stop_and_the_state_hash() -> None:
    game = load_game("pong")
    runner = WebRunner(game, build_world(game, 0), stop_at=5)
    runner.run_ticks(50)
    assert runner.world.tick_count == 5 and runner.stopped == "stopped at tick 5"
    assert runner.state_hash() == runner.world.state_hash()


class _Ship(Entity):
    look = Look.rect((10, 4), (200, 10, 10), layer=1)
    parts = (Part(Look.circle(2, (0, 255, 0), layer=1), (10.0, 0.0)),)

    def update(self, world: World) -> None:
        if world.tick_count == 1:  # the second tick: from (0, 0) turned 350 to (10, 0) turned 10
            self.x, self.angle = 10.0, 10.0


class _Score(Entity):
    look = Look.caption("0", 18, screen=True)


def test_the_scene_interpolates_turns_parts_and_puts_screen_looks_last() -> None:
    world = World()
    ship = world.spawn(_Ship())
    world.spawn(_Score())
    ship.x, ship.y, ship.angle = 0.0, 0.0, 350.0
    world.tick()
    world.tick()
    frame = scene(world, {}, 0.5, (640, 480))
    layers = [(item[1], item[0], item[2]) for item in frame["items"]]
    assert layers == [(False, 1, "square"), (False, 1, "circle"), (True, 0, "text")]
    square, part, text = frame["items"]
    assert square[3:6] == [5.0, 0.0, 0.0]  # half-way, and from 350 to 10 the short way round
    assert part[3] == pytest.approx(15.0) and part[4] == pytest.approx(0.0)
    assert text[11] == "0" and frame["view"] == [0.0, 0.0, 1.0]


def test_package_web_refuses_a_folder_of_something_else_and_says_where_pyodide_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TICKSWAP_PYODIDE", str(tmp_path / "nowhere"))
    assert main(["package", "pong", "--web", str(tmp_path / "out")]) != 0
    assert "no Pyodide runtime at" in capsys.readouterr().err
    runtime = tmp_path / "pyodide"
    runtime.mkdir()
    for name in PYODIDE_FILES:
        (runtime / name).write_bytes(b"stand-in")
    (tmp_path / "mine").mkdir()
    assert main(["package", "pong", "--web", str(tmp_path / "mine"), "--pyodide", str(runtime), "--no-check"]) != 0
    assert "is not a web build of tickswap's" in capsys.readouterr().err
    assert main(["package", "pong", "--web", str(tmp_path / "out"), "--pyodide", str(runtime), "--no-check"]) == 0
    out = capsys.readouterr().out
    assert "a web build in" in out and "tickswap serve" in out
    built = tmp_path / "out"
    assert sorted(path.name for path in built.iterdir()) == sorted(
        [APP_ARCHIVE, "index.html", "pyodide", "tickswap-web.js", "tickswap-web.json"])
    assert json.loads((built / "tickswap-web.json").read_text())["game"] == "pong"
    assert main(["package", "pong", "--web", str(built), "--pyodide", str(runtime), "--no-check"]) == 0  # replaced
    assert main(["serve", str(tmp_path / "mine")]) != 0
    assert "is not a web build" in capsys.readouterr().err


def test_the_app_archive_holds_the_engine_the_pure_libraries_and_the_game_but_no_pyglet_renderer(
        tmp_path: Path) -> None:
    import zipfile

    app_archive("pong", tmp_path / "app.zip")
    names = zipfile.ZipFile(tmp_path / "app.zip").namelist()
    assert "engine/web/runner.py" in names and "esper/__init__.py" in names and "pytiled_parser/__init__.py" in names
    assert "tickswap-game.json" in names and "tickswap-game/games/pong/logic.py" in names
    assert not [name for name in names if name.startswith("engine/render/") or name.endswith((".so", ".c"))]
    app_archive("pong", tmp_path / "again.zip")
    assert (tmp_path / "app.zip").read_bytes() == (tmp_path / "again.zip").read_bytes()


def test_the_browser_runner_needs_neither_numpy_nor_pyglet(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from webgames import BLOCKED, ROOT

    program = BLOCKED.split("from engine.tools.cli import main")[0] + (
        "from engine.files.importer import load_game\n"
        "from engine.tools.cli.worlds import build_world\n"
        "from engine.web import WebRunner\n"
        "game = load_game('platformer')\n"
        "runner = WebRunner(game, build_world(game, 0))\n"
        "runner.key(True, 'ArrowRight')\n"
        "runner.run_ticks(30)\n"
        "frame = runner.draw_json(0.5)\n"
        "assert runner.map_json(json.loads(frame)['maps'][0]) != 'null'\n"
        "assert not any(m.partition('.')[0] in ('numpy', 'pyglet') for m in sys.modules)\n"
        "print(len(json.loads(frame)['items']))\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), TICKSWAP_PURE="1"), timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 10


def test_serve_gives_the_types_a_browser_insists_on_on_127_0_0_1(tmp_path: Path) -> None:
    import threading
    import urllib.error
    import urllib.request

    from engine.tools.cli.serve import web_server

    (tmp_path / "pyodide").mkdir()
    for name, body in (("index.html", b"<!doctype html>"), ("pyodide/pyodide.asm.wasm", b"\0asm"),
                       ("pyodide/pyodide.mjs", b"export {}"), ("app.zip", b"PK")):
        (tmp_path / name).write_bytes(body)
    server = web_server(tmp_path, 0)
    assert server.server_address[0] == "127.0.0.1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        types = {}
        for name in ("index.html", "pyodide/pyodide.asm.wasm", "pyodide/pyodide.mjs", "app.zip"):
            with urllib.request.urlopen(base + name, timeout=30) as answer:
                types[name] = answer.headers.get_content_type()
        assert types == {"index.html": "text/html", "pyodide/pyodide.asm.wasm": "application/wasm",
                         "pyodide/pyodide.mjs": "text/javascript", "app.zip": "application/zip"}
        with pytest.raises(urllib.error.HTTPError):  # no directory listings
            urllib.request.urlopen(base + "pyodide/", timeout=30)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_mouse_and_gamepad_events_reach_the_world_as_the_engines_events() -> None:
    runner = _pong()
    runner.mouse("motion", 0, 10.0, 20.0)
    runner.mouse("press", 0, 12.5, 30.0, keys.MOD_SHIFT)
    runner.mouse("motion", 0, 14.0, 31.0)  # a button held: a drag
    runner.mouse("press", 7, 1.0, 1.0)  # a button the engine has not: nothing
    runner.pad(0, 0, True)  # the standard mapping's button 0: A
    runner.stick(0, 0, 0.5, -0.1)  # quantised as the desktop's pads are
    runner.step()
    seen = [(event.type, event.key, event.x, event.y) for event in runner.world.input.events]
    assert seen == [("mouse_motion", None, 10.0, 20.0), ("mouse_press", keys.MOUSE_LEFT, 12.5, 30.0),
                    ("mouse_drag", keys.MOUSE_LEFT, 14.0, 31.0), ("key_press", keys.PAD_A, 0.0, 0.0),
                    ("stick", 0, 0.5, -0.1015625)]
    assert runner.world.input.pressed(keys.PAD_A) and runner.world.input.stick(0) == (0.5, -0.1015625)
    assert runner.world.input.mouse_x == 14.0


def test_typed_text_and_editing_keys_reach_the_world_as_on_the_desktop() -> None:
    runner = _pong()
    runner.text("é")
    runner.text("\r")  # Enter is a key_press, never text
    runner.text_motion("Backspace")
    runner.text_motion("ArrowLeft", ctrl=True)
    runner.text_motion("KeyA")  # no editing key
    runner.step()
    seen = [(event.type, event.key) for event in runner.world.input.events]
    assert seen == [("text", "é"), ("text_motion", keys.MOTION_BACKSPACE), ("text_motion", keys.MOTION_PREVIOUS_WORD)]
