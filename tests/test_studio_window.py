"""The studio in a window (off-screen): F2, F3, F6 to F9, clicks, the overlay; and `tickswap run --watch`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from engine import keys
from engine.display import Display
from engine.studio import StudioDriver
from engine.testing import Studio, load_game

GAME = '''"""Two squares drifting right."""
from engine import Entity, Look, buffered

WIDTH, HEIGHT = 160, 80
STEP = 1


class Square(Entity):
    look = Look("square", 10, (200, 80, 80))
    moved = buffered(0)

    def update(self, world):
        self.moved += STEP
        self.x += STEP


def build(world):
    world.spawn(Square(x=20, y=40))
    world.spawn(Square(x=60, y=20))
'''


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    path = tmp_path / "squares.py"
    path.write_text(GAME)
    return path


class ToldWatcher:
    """A watcher the test tells what changed (``mark``), so frames see changes exactly when the test says:
    the real one's thread reports a write whenever the OS does (``test_studio.py`` tests it)."""

    def __init__(self) -> None:
        self.changed: list[str] = []

    def mark(self, path) -> None:
        self.changed.append(str(path))

    def changes(self) -> list[str]:
        changed, self.changed = self.changed, []
        return changed

    def close(self) -> None:
        pass


def _studio_runner(path) -> Any:
    """A headless window's runner with the studio on the game at ``path`` (the caller closes it)."""
    from engine.render.runner import GameRunner

    game = load_game(path)
    watcher = cast(Any, ToldWatcher())  # a stand-in with the Watcher's two methods
    return GameRunner(game, StudioDriver(Studio(game), watcher=watcher), display=Display(headless=True))


@pytest.fixture
def studio_runner(offscreen, game_file):
    runner = _studio_runner(game_file)
    yield runner
    runner.close()


def press(runner, symbol: int, modifiers: int = 0) -> None:
    """Press and release a key, and run the frame whose input step hands them to the runner."""
    runner.window.dispatch_event("on_key_press", symbol, modifiers)
    runner.window.dispatch_event("on_key_release", symbol, modifiers)
    runner.run(frames=1)


def test_f2_f6_f7_f3_pause_rewind_step_and_resume_from_the_tick_shown(studio_runner):
    runner = studio_runner
    runner.run(frames=120)  # about two seconds
    press(runner, keys.F6)
    head = runner.studio.head
    assert head > 100 and runner.paused and runner.world.tick_count == head - 1  # back one tick, paused
    press(runner, keys.F6, keys.MOD_SHIFT)
    assert runner.world.tick_count == head - 1 - 64  # a second back
    press(runner, keys.F7)
    press(runner, keys.F3)  # rewound, F3 steps through the recorded ticks
    assert runner.world.tick_count == head - 63
    runner.run(frames=30)
    assert runner.world.tick_count == head - 63 and runner.studio.head == head  # paused: nothing runs
    assert runner.overlay.shown[0].startswith(f"paused at tick {head - 63}, 0.98 s before tick {head}")
    assert "F6/F7 back/forward" in runner.overlay.shown[0]
    assert runner.world.input_queue.state() == ([], frozenset(), (0.0, 0.0), ((0.0, 0.0), (0.0, 0.0))), \
        "the engine's keys never reach the game"
    press(runner, keys.F2)  # resume from here: the ticks after it are gone (the frame ran a tick or two since)
    assert not runner.paused and head - 63 <= runner.studio.head <= head - 61
    runner.run(frames=15)
    assert runner.world.tick_count > head - 63
    assert [entity.moved for entity in runner.world.entities] == [runner.world.tick_count] * 2


def test_held_f6_scrubs_back_a_tick_a_frame_after_a_moment(studio_runner):
    from engine.render.runner import SCRUB_AFTER_FRAMES

    runner = studio_runner
    runner.run(frames=120)
    runner.window.dispatch_event("on_key_press", keys.F6, 0)
    runner.run(frames=30)  # held: a few frames wait, then every frame goes one tick back
    head = runner.studio.head
    at = runner.world.tick_count
    assert at == head - 1 - (30 - SCRUB_AFTER_FRAMES + 1)
    runner.window.dispatch_event("on_key_release", keys.F6, 0)
    runner.run(frames=10)
    assert runner.world.tick_count == at


def test_a_click_while_paused_inspects_and_never_reaches_the_game(studio_runner):
    runner = studio_runner
    runner.run(frames=10)
    press(runner, keys.F2)
    x, y = runner.world.entities[0].x, runner.world.entities[0].y
    runner.window.dispatch_event("on_mouse_press", int(x), int(y), 1, 0)
    runner.window.dispatch_event("on_mouse_release", int(x), int(y), 1, 0)
    runner.run(frames=2)
    assert runner.studio.inspected is runner.world.entities[0]
    lines = runner.overlay.shown[0].splitlines()
    assert f"Square (id 1)  game:Square  after tick {runner.world.tick_count}" in lines
    assert not [event for event in runner.world.input_queue.state()[0] if event.type.startswith("mouse_press")]
    press(runner, keys.F2)
    runner.window.dispatch_event("on_mouse_motion", 150, 70, 0, 0)  # over nothing
    press(runner, keys.F8)
    assert runner.studio.inspected is None


def test_f9_and_a_watched_change_reload_the_code_into_the_same_window(studio_runner, game_file):
    runner = studio_runner
    runner.run(frames=30)
    window = runner.window
    game_file.write_text(GAME.replace("STEP = 1", "STEP = 10"))
    moved = runner.world.entities[0].moved
    ticks = runner.world.tick_count
    press(runner, keys.F9)  # reloaded in the frame's input step, before its ticks
    assert runner.window is window and runner.world is runner.studio.world
    assert runner.world.entities[0].moved == moved + 10 * (runner.world.tick_count - ticks)
    assert runner.studio.last_reload is not None and "squares.py reloaded at tick" in runner.overlay.shown[0]
    game_file.write_text(GAME.replace("STEP = 1", "STEP = )"))
    runner.driver.watcher.mark(game_file)  # as the watcher thread reports a change
    runner.run(frames=1)
    error = runner.overlay.shown[1]
    assert error.startswith("reload failed: ") and "squares.py:5: syntax error" in error
    assert error.endswith("the old code goes on")
    ticks = runner.world.tick_count
    moved = runner.world.entities[0].moved
    runner.run(frames=10)
    assert runner.world.entities[0].moved == moved + 10 * (runner.world.tick_count - ticks)  # the old code runs


def test_the_hud_shows_what_the_ring_holds(studio_runner):
    runner = studio_runner
    runner.run(frames=20)
    assert "rewind 0.3 s of 10: 3 checkpoints" in runner.hud.note and "MB" in runner.hud.note


def tickswap(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine.tools.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_watch_and_rewind_need_frames_to_run_in(tmp_path, game_file):
    for options, said in ((["--watch", "--ticks", "5"], "--watch reloads a game while its frames run"),
                          (["--rewind", "3", "--ticks", "5"], "--rewind rewinds a game while its frames run")):
        done = tickswap("run", str(game_file), *options, cwd=tmp_path)
        assert done.returncode == 2 and said in done.stderr and "--headless --frames N" in done.stderr
    done = tickswap("run", str(game_file), "--rewind", "-1", cwd=tmp_path)
    assert done.returncode == 2 and "--rewind: expected a finite number of seconds from 0 to 3600" in done.stderr


def test_run_watch_reloads_an_edit_made_while_it_runs_keeping_the_state(offscreen, tmp_path, game_file):
    command = [sys.executable, "-m", "engine.tools.cli", "run", str(game_file), "--headless", "--frames", "240",
               "--watch", "--record", "run.jsonl", "--save-at", "250", "end.json"]
    process = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stderr is not None
    said = [process.stderr.readline()]
    assert said[0].startswith("tickswap: squares.py: watching "), said
    game_file.write_text(GAME.replace("STEP = 1", "STEP = 1000"))  # while it runs (paced: four seconds)
    out, rest = process.communicate(timeout=120)
    said += rest.splitlines()
    assert process.returncode == 0, said
    reload_line = next(line for line in said if "squares.py reloaded at tick" in line)
    tick = int(reload_line.split("reloaded at tick ")[1].split()[0])
    ended = next(line for line in said if "the recording run.jsonl ends at tick" in line)
    assert f"ends at tick {tick}: reloaded at tick {tick}" in ended
    saved = json.loads((tmp_path / "end.json").read_text())
    assert [entity["buffered"]["moved"] for entity in saved["entities"]] == [tick + (250 - tick) * 1000] * 2
    assert f"recorded run.jsonl (to tick {tick})" in out
    (tmp_path / "old.py").write_text(GAME)
    replay = tickswap("replay", "run.jsonl", "--game", "old.py", cwd=tmp_path)
    assert replay.returncode == 0 and f"{tick} ticks of" in replay.stdout, replay.stderr


def test_watching_a_tick_that_fails_pauses_the_game_until_the_fix_is_saved(studio_runner, game_file):
    runner = studio_runner
    runner.run(frames=10)
    game_file.write_text(GAME.replace("self.x += STEP", "self.x += STEP / self.moved if self.moved < 40 else 1 / 0"))
    press(runner, keys.F9)
    runner.run(frames=60)
    assert runner.paused and runner.world.tick_count == 39  # tick 40 failed: rolled back, whole
    stopped = runner.overlay.shown[1]
    assert stopped.startswith("stopped: tick 40 failed: EntityUpdateError: Square (id 1) raised ZeroDivisionError")
    assert "squares.py:14 in update" in stopped and stopped.endswith("or go back with F6")
    game_file.write_text(GAME)
    runner.driver.watcher.mark(game_file)
    runner.run(frames=10)
    assert not runner.paused and runner.world.tick_count > 40 and runner.studio.crash is None
    assert "; going on" in runner.studio.last_reload.message


def test_a_watch_record_run_that_reloads_ends_its_recording_there_and_records_the_new_code_from_there(
        offscreen, tmp_path, game_file):
    # Issue 39's defect 6: a recording spanning a reload replayed with neither version of the code.
    # It ends at the reload (replayable with the code before it) and the run goes on recorded in a
    # second file that starts from the reload's state (replayable with the new code), and says so.
    told = GAME.replace("        self.moved += STEP\n", "        self.moved += STEP\n        if self.moved == 30:\n"
                        "            import sys\n            print('moved 30', file=sys.stderr, flush=True)\n")
    game_file.write_text(told)
    command = [sys.executable, "-m", "engine.tools.cli", "run", str(game_file), "--headless", "--frames", "240",
               "--watch", "--record", "run.jsonl"]
    process = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stderr is not None
    said = [process.stderr.readline()]
    while "moved 30" not in said[-1]:  # the run is past tick 30: the reload comes later, mid-run
        said.append(process.stderr.readline())
        assert said[-1], said
    game_file.write_text(told.replace("STEP = 1", "STEP = 1000"))
    out, rest = process.communicate(timeout=120)
    said += rest.splitlines()
    assert process.returncode == 0, said
    tick = int(next(line for line in said if "squares.py reloaded at tick" in line).split("reloaded at tick ")[1].split()[0])
    assert tick >= 30
    ended = next(line for line in said if "the recording run.jsonl ends at tick" in line)
    assert (f"ends at tick {tick}: reloaded at tick {tick}; it replays with the code before the reload, and the run "
            f"goes on recorded in run.from-{tick}.jsonl, which replays with the new code") in ended, ended
    assert f"recorded run.jsonl (to tick {tick}) and run.from-{tick}.jsonl" in out, out
    replay = tickswap("replay", f"run.from-{tick}.jsonl", "--game", game_file.name, cwd=tmp_path)
    assert replay.returncode == 0 and "all match" in replay.stdout, replay.stdout + replay.stderr
    (tmp_path / "old.py").write_text(told)
    replay = tickswap("replay", "run.jsonl", "--game", "old.py", cwd=tmp_path)
    assert replay.returncode == 0 and f"{tick} ticks of" in replay.stdout, replay.stderr


# -- a small window: the HUD and the inspector leave the game visible (issue 39) -------------------------

HERO = '''"""A 480x448 jam game: a hero with many fields, in three places."""
from engine import Entity, Look, buffered

WIDTH, HEIGHT = 480, 448


class Hero(Entity):
    look = Look("square", 16, (200, 80, 80))
    hp = buffered(3)
    speed = buffered(1.5)
    facing = buffered("left")
    coins = buffered(0)
    swing = buffered(0)
    invulnerable = buffered(0)
    room = buffered("cave")
    saved = ("name", "notes")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.name = "the hero of the long quest"
        self.notes = "x" * 50

    def update(self, world):
        self.coins += 1


def build(world):
    world.spawn(Hero(x=60, y=400))   # top left, where the inspector's panel starts
    world.spawn(Hero(x=400, y=60))   # bottom right
    world.spawn(Hero(x=240, y=224))  # the middle, where any half-height panel reaches
'''


def _box(shape) -> tuple[float, float, float, float]:
    return shape.x, shape.y, shape.x + shape.width, shape.y + shape.height


def _overlap(a, b) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


@pytest.mark.parametrize("which", [0, 1, 2])
def test_on_a_480x448_window_the_hud_and_inspector_leave_the_play_field_and_the_inspected_entity_visible(
        offscreen, tmp_path, which):
    path = tmp_path / "hero.py"
    path.write_text(HERO)
    runner = _studio_runner(path)
    try:
        runner.run(frames=20)
        press(runner, keys.F2)
        hero = runner.world.entities[which]
        runner.window.dispatch_event("on_mouse_press", int(hero.x), int(hero.y), 1, 0)
        runner.window.dispatch_event("on_mouse_release", int(hero.x), int(hero.y), 1, 0)
        runner.run(frames=2)
        assert runner.studio is not None and runner.studio.inspected is hero and runner.hud.visible
        window = (0.0, 0.0, float(runner.window.width), float(runner.window.height))
        assert window[2:] == (480.0, 448.0)
        hud, overlay = runner.hud, runner.overlay
        assert overlay is not None
        boxes = {"hud": _box(hud._backdrop), "inspector": _box(overlay._backdrop)}
        for name, box in boxes.items():
            assert window[0] <= box[0] and window[1] <= box[1] and box[2] <= window[2] and box[3] <= window[3], \
                f"the {name} runs past the window: {box}"
        label = overlay._label
        text_box = (label.x, label.y - label.content_height, label.x + label.content_width, label.y)
        assert _overlap(text_box, boxes["inspector"]) == pytest.approx(label.content_width * label.content_height), \
            "the inspector's text lies on its backdrop"
        hud_text = (hud._label.x, hud._label.y, hud._label.x + hud._label.content_width,
                    hud._label.y + hud._label.content_height)
        assert _overlap(hud_text, boxes["hud"]) == pytest.approx(
            hud._label.content_width * hud._label.content_height), "the HUD's text lies on its backdrop"
        assert _overlap(boxes["hud"], boxes["inspector"]) == 0, boxes
        covered = sum((box[2] - box[0]) * (box[3] - box[1]) for box in boxes.values())
        assert covered <= 0.5 * 480 * 448, f"{covered / (480 * 448):.0%} of the window covered: {boxes}"
        assert overlay._frame.visible
        assert _overlap(_box(overlay._frame), boxes["inspector"]) == 0, "the inspected hero stays in sight"
        lines = overlay.shown[0].splitlines()
        assert lines[2] == f"Hero (id {which + 1})  game:Hero  after tick {runner.world.tick_count}", lines
        assert any(line.startswith("  ... ") and "more line" in line for line in lines[-1:]), lines
    finally:
        runner.close()


def test_on_a_large_window_the_inspector_shows_every_line_top_left(offscreen, tmp_path):
    path = tmp_path / "hero.py"
    path.write_text(HERO.replace("WIDTH, HEIGHT = 480, 448", "WIDTH, HEIGHT = 1280, 720"))
    runner = _studio_runner(path)
    try:
        runner.run(frames=5)
        press(runner, keys.F2)
        hero = runner.world.entities[0]
        runner.window.dispatch_event("on_mouse_press", int(hero.x), int(hero.y), 1, 0)
        runner.window.dispatch_event("on_mouse_release", int(hero.x), int(hero.y), 1, 0)
        runner.run(frames=2)
        overlay = runner.overlay
        assert overlay is not None
        lines = overlay.shown[0].splitlines()
        assert lines[-1].startswith("  look square 16x16"), lines  # nothing cut
        assert (overlay._backdrop.x, overlay._label.font_size, runner.hud._label.font_size) == (4, 9, 10)
    finally:
        runner.close()
