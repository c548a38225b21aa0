"""Game files: the same identity in every process, and files from elsewhere that never run code."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from engine import World
from engine.display import Display
from engine.files.game import GameError
from engine.files.importer import load_game, sample_games
from engine.tools.cli import main
from engine.world.save import SaveError

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial.md"


def comet_source() -> str:
    """The tutorial's game, exactly as docs/tutorial.md shows it."""
    section = TUTORIAL.read_text().split("## The game", 1)[1]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)[0]


def tickswap(*argv: str, cwd: Path, hashseed: str) -> subprocess.CompletedProcess[str]:
    """Run the command line in a fresh process, from ``cwd``, with ``PYTHONHASHSEED``."""
    env = {**os.environ, "PYTHONHASHSEED": hashseed, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "engine.tools.cli", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def python(*argv: str, cwd: Path, hashseed: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hashseed, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False)


def state(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout.split("state ")[1][:16].strip()


@pytest.fixture
def comet(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "comet.py").write_text(comet_source())
    _chime(home / "chime.wav")  # the tutorial: "any short chime.wav beside it"
    return home / "comet.py"


def _chime(path: Path) -> None:
    import wave

    with wave.open(str(path), "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(8000)
        sound.writeframes(b"\0\0" * 80)


def test_comet_records_in_one_process_and_directory_and_replays_in_another(comet, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    recorded = tickswap("run", "comet.py", "--ticks", "300", "--record", "r.jsonl", cwd=comet.parent, hashseed="1")
    assert state(recorded)
    again = tickswap("run", str(comet), "--ticks", "300", cwd=elsewhere, hashseed="2")
    assert state(again) == state(recorded), "same history, same hash, whatever the hash seed, cwd or path"
    moved = elsewhere / "r.jsonl"
    moved.write_bytes((comet.parent / "r.jsonl").read_bytes())
    with_game = tickswap("replay", str(moved), "--game", str(comet), cwd=elsewhere, hashseed="2")
    assert with_game.returncode == 0 and "all match" in with_game.stdout, with_game.stderr
    beside = tickswap("replay", "r.jsonl", cwd=comet.parent, hashseed="3")
    assert beside.returncode == 2 and beside.stderr.count("\n") == 1, beside.stderr
    assert "pass --game comet.py" in beside.stderr, "the file beside it is never run unless named"
    named = tickswap("replay", "r.jsonl", "--game", "comet.py", cwd=comet.parent, hashseed="3")
    assert named.returncode == 0 and "all match" in named.stdout, named.stderr
    alone = tickswap("replay", str(moved), cwd=elsewhere, hashseed="3")
    assert alone.returncode == 2 and "--game" in alone.stderr and alone.stderr.count("\n") == 1


def test_comet_runs_itself_and_matches_tickswap_run(comet):
    itself = python("comet.py", "--ticks", "300", "--record", "own.jsonl", cwd=comet.parent, hashseed="4")
    through_cli = tickswap("run", "comet.py", "--ticks", "300", cwd=comet.parent, hashseed="5")
    assert state(itself) == state(through_cli)
    replayed = tickswap("replay", "own.jsonl", "--game", "comet.py", cwd=comet.parent, hashseed="6")
    assert replayed.returncode == 0, replayed.stderr


def test_comet_saved_in_one_process_continues_hash_for_hash_in_another(comet, tmp_path):
    straight = python("comet.py", "--ticks", "300", "--save-at", "100", "s.json", cwd=comet.parent, hashseed="1")
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    loaded = python(str(comet), "--ticks", "200", "--load", str(comet.parent / "s.json"), cwd=elsewhere, hashseed="2")
    assert state(loaded) == state(straight)
    via_cli = tickswap("run", str(comet), "--ticks", "200", "--load", str(comet.parent / "s.json"), cwd=elsewhere,
                       hashseed="3")
    assert state(via_cli) == state(straight)


def test_a_changed_game_file_is_reported_as_changed(comet, capsys):
    assert main(["run", str(comet), "--ticks", "120", "--record", str(comet.parent / "r.jsonl"),
                 "--save-at", "60", str(comet.parent / "s.json")]) == 0
    comet.write_text(comet.read_text().replace("self.dx, self.dy = 5, 3", "self.dx, self.dy = 6, 3"))
    capsys.readouterr()
    assert main(["replay", str(comet.parent / "r.jsonl")]) == 2
    assert f"pass --game {comet}" in capsys.readouterr().err
    # A file named by the user is run: the hashes say whether it still plays the same.
    assert main(["replay", str(comet.parent / "r.jsonl"), "--game", str(comet)]) == 1
    out = capsys.readouterr().out
    assert "differs at tick 60" in out and "the game file changed since it was recorded" in out
    # Its classes and fields still fit: the save loads, with one line saying the file changed.
    assert main(["run", str(comet), "--ticks", "5", "--load", str(comet.parent / "s.json")]) == 0
    err = capsys.readouterr().err
    assert "changed since it was saved" in err and err.count("\n") == 1


def test_renaming_or_commenting_a_game_file_keeps_its_hashes_replays_and_saves(comet, capsys):
    assert main(["run", str(comet), "--ticks", "120", "--record", str(comet.parent / "r.jsonl"),
                 "--save-at", "60", str(comet.parent / "s.json")]) == 0
    first = capsys.readouterr().out.split("state ")[1][:16]
    saved = json.loads((comet.parent / "s.json").read_text())
    assert "game:Comet" in {record["class"] for record in saved["entities"]}
    renamed = comet.parent / "renamed_comet.py"
    renamed.write_text("# a comment changes the digest, not the game\n" + comet.read_text())
    assert main(["run", str(renamed), "--ticks", "120"]) == 0
    assert capsys.readouterr().out.split("state ")[1][:16] == first
    assert main(["replay", str(comet.parent / "r.jsonl"), "--game", str(renamed)]) == 0
    captured = capsys.readouterr()
    assert "all match" in captured.out and "game file changed" in captured.err
    assert main(["run", str(renamed), "--ticks", "60", "--load", str(comet.parent / "s.json")]) == 0
    captured = capsys.readouterr()
    assert captured.out.split("state ")[1][:16] == first
    assert "comet.py" in captured.err and captured.err.count("\n") == 1


def test_a_save_of_another_game_file_says_so(comet, tmp_path, capsys):
    assert main(["run", str(comet), "--ticks", "10", "--save-at", "5", str(comet.parent / "s.json")]) == 0
    # In a directory of its own: a game owns the classes of files under its directory (its package's), and
    # comet's classes are loaded in this process, so other.py in comet's parent directory would take them.
    (tmp_path / "elsewhere").mkdir()
    other = tmp_path / "elsewhere" / "other.py"
    other.write_text("from engine import Entity\nclass Rock(Entity):\n    pass\ndef build(world):\n"
                     "    world.spawn(Rock())\n")
    capsys.readouterr()
    assert main(["run", str(other), "--ticks", "5", "--load", str(comet.parent / "s.json")]) == 2
    err = capsys.readouterr().err
    assert "is a save of another game, comet.py" in err and "changed" not in err


def test_a_save_of_a_game_file_loaded_into_a_registered_game_names_both(comet, capsys):
    assert main(["run", str(comet), "--ticks", "10", "--save-at", "5", str(comet.parent / "s.json")]) == 0
    capsys.readouterr()
    assert main(["run", "patrol", "--ticks", "5", "--load", str(comet.parent / "s.json")]) == 2
    err = capsys.readouterr().err
    assert "is a save of another game, comet.py, not of patrol" in err and "'game:Comet'" in err, err


def test_loading_a_replay_as_a_save_says_it_is_a_replay(comet, capsys):
    assert main(["run", str(comet), "--ticks", "10", "--record", str(comet.parent / "r.jsonl")]) == 0
    capsys.readouterr()
    assert main(["run", str(comet), "--ticks", "5", "--load", str(comet.parent / "r.jsonl")]) == 2
    assert "is a replay" in capsys.readouterr().err


MARKER_GAME = """
import pathlib
pathlib.Path({marker!r}).write_text("ran")
def build(world):
    pass
"""


def hostile_replay(path: Path, game: str, digest: str | None) -> None:
    header = {"format": "tickswap-replay", "version": 2, "game": game, "game_digest": digest, "seed": 0,
              "ms_per_update": 15.625, "engine": "0.1.0"}
    path.write_text(json.dumps(header) + "\n" + json.dumps({"end": 0, "hash": "0" * 64}) + "\n")


@pytest.mark.parametrize("named", ["absolute", "beside", "relative", "digest-of-other", "package", "bare"])
def test_a_replay_naming_a_game_file_never_runs_it(tmp_path, capsys, monkeypatch, named):
    monkeypatch.chdir(tmp_path)  # where a careless loader would look first
    marker = tmp_path / "marker"
    evil = tmp_path / "game.py"
    evil.write_text(MARKER_GAME.format(marker=str(marker)))
    replay = tmp_path / "r.jsonl"
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text(MARKER_GAME.format(marker=str(marker)))
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "__init__.py").write_text(MARKER_GAME.format(marker=str(marker)))
    game, digest = {"absolute": (str(evil), None), "beside": ("game.py", None),
                    "relative": ("../" + evil.name, "a" * 64), "digest-of-other": ("game.py", "b" * 64),
                    "package": ("pkg", "c" * 64), "bare": ("bare", None)}[named]
    hostile_replay(replay, game, digest)
    assert main(["replay", str(replay)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not marker.exists(), "the game file named by the replay was imported"


@pytest.mark.parametrize("name", ["this:Entity", "antigravity:Entity", "os:system", "engine.world:World",
                                  "subprocess:Popen", "games.patrol.logic:Skeleton.__init__"])
def test_a_save_naming_a_foreign_class_is_refused_and_nothing_is_imported(tmp_path, capsys, name):
    path = tmp_path / "s.json"
    assert main(["run", "patrol", "--ticks", "20", "--save-at", "10", str(path)]) == 0
    data = json.loads(path.read_text())
    data["entities"][0]["class"] = name
    path.write_text(json.dumps(data))
    module = name.split(":")[0]
    was_loaded = module in sys.modules
    capsys.readouterr()
    assert main(["run", "patrol", "--ticks", "5", "--load", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert (module in sys.modules) == was_loaded, f"{module} was imported"
    with pytest.raises(SaveError, match="class"):
        World.load(path)


def test_games_are_found_through_entry_points_and_listed_name_first(capsys):
    names = sorted(sample_games())
    assert names == ["bouncy", "comet", "explorer", "framebuffer", "patrol", "platformer", "pong", "quest", "slapstick",
                     "swarm", "towers"]
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == names and all(len(line.split()) > 2 for line in lines)


def test_the_engine_imports_no_game():
    code = ("import sys, engine, engine.tools.cli, engine.world.save, engine.files.replay; "
            "print([m for m in sys.modules if m == 'games' or m.startswith('games.')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_game_file_gets_one_stable_module_whatever_the_path(comet, monkeypatch):
    monkeypatch.chdir(comet.parent)
    first = load_game("comet.py")
    second = load_game(str(comet))
    assert first.module is second.module
    assert first.module.__name__.startswith("tickswap_game_comet_") and first.digest
    assert str(hash(str(comet))) not in first.module.__name__


@pytest.mark.parametrize(("source", "words"), [
    ("def build(world)\n    pass\n", "bad.py:1: syntax error"),
    ("import no_such_module_here\ndef build(world): pass\n", "ModuleNotFoundError"),
    ("raise RuntimeError('boom')\n", "RuntimeError: boom"),
    ("import sys\nsys.exit(3)\n", "SystemExit"),
    ("x = 1\n", "no build(world)"),
])
def test_a_broken_game_file_is_one_line_naming_the_file(tmp_path, capsys, source, words):
    game = tmp_path / "bad.py"
    game.write_text(source)
    assert main(["run", str(game), "--ticks", "3"]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
    with pytest.raises(GameError):
        load_game(str(game))


@pytest.mark.parametrize(("body", "words"), [
    ("def build(world):\n    raise ValueError('no level')\n", "build(world) failed: ValueError: no level"),
    ("from engine import Entity\ndef build(world):\n    e = Entity()\n    world.spawn(e)\n    world.spawn(e)\n",
     "already spawned"),
    (("from engine import Entity\nclass Bad(Entity):\n    def __init__(self):\n        self.hp = 1\n"
      "def build(world):\n    world.spawn(Bad())\n"), "super().__init__()"),
])
def test_a_build_that_fails_is_a_crash_in_one_line(tmp_path, capsys, body, words):
    game = tmp_path / "g.py"
    game.write_text(body)
    assert main(["run", str(game), "--ticks", "3"]) == 1
    err = capsys.readouterr().err
    assert words in err and "g.py:" in err and err.count("\n") == 1 and "Traceback" not in err


def test_system_exit_inside_update_is_a_crash_not_a_quiet_success(tmp_path, capsys):
    game = tmp_path / "quits.py"
    game.write_text("import sys\nfrom engine import Entity\nclass Q(Entity):\n    def update(self, world):\n"
                    "        sys.exit(0)\ndef build(world):\n    world.spawn(Q())\n")
    assert main(["run", str(game), "--ticks", "3"]) == 1
    err = capsys.readouterr().err
    assert "SystemExit" in err and err.count("\n") == 1


def test_run_input_feeds_scripted_input_per_tick(tmp_path, capsys, write_game):
    game = write_game("keys.py", "from engine import Entity, buffered\nclass K(Entity):\n    seen = buffered(0)\n"
                                 "    def update(self, world):\n        if world.input.just_pressed(65):\n"
                                 "            self.seen += world.tick_count + 1\ndef build(world):\n    world.spawn(K())\n")
    script = tmp_path / "in.jsonl"
    script.write_text('{"tick": 3, "input": [["key_press", 65, 0, 0]]}\n{"tick": 7, "input": [["key_press", 65, 0, 0]]}\n')
    assert main(["run", str(game), "--ticks", "10", "--input", str(script)]) == 0
    with_input = capsys.readouterr().out.split("state ")[1]
    assert main(["run", str(game), "--ticks", "10"]) == 0
    assert capsys.readouterr().out.split("state ")[1] != with_input
    from engine.files.importer import load_game as load

    module = load(str(game)).module
    with World() as world:
        module.build(world)
        for tick in range(1, 11):
            if tick in (3, 7):
                world.input_queue.press(65)
                world.input_queue.release(65)
            world.tick()
        assert cast(Any, world.entities[0]).seen == 3 + 7  # the game file's class


def test_a_game_package_runs_records_replays_and_loads(tmp_path, capsys, monkeypatch):
    package = tmp_path / "mygame"
    package.mkdir()
    (package / "__init__.py").write_text('"""A game in a package."""\nfrom .things import Mover\n\n'
                                         "def build(world):\n    world.spawn(Mover())\n")
    (package / "things.py").write_text("from engine import Entity\n\nclass Mover(Entity):\n"
                                       "    def update(self, world):\n        self.x += 1\n")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "mygame", "--ticks", "130", "--record", "r.jsonl", "--save-at", "100", "s.json"]) == 0
    straight = capsys.readouterr().out.split("state ")[1][:16].strip()
    assert main(["run", str(package), "--ticks", "30", "--load", "s.json"]) == 0
    assert capsys.readouterr().out.split("state ")[1][:16].strip() == straight
    assert main(["replay", "r.jsonl", "--game", "mygame"]) == 0


def test_run_build_uses_the_module_the_user_imported(comet, capsys):
    import importlib.util

    from engine.tools.cli import run_game

    assert main(["run", str(comet), "--ticks", "90"]) == 0
    through_cli = capsys.readouterr().out.split("state ")[1]
    spec = importlib.util.spec_from_file_location("my_comet", comet)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["my_comet"] = module
    try:
        spec.loader.exec_module(module)
        assert run_game(module.build, ["--ticks", "90"]) == 0
        assert capsys.readouterr().out.split("state ")[1] == through_cli
        from engine.state.names import class_name

        assert module.Comet.__module__ == "my_comet", "its classes keep the module the user imported"
        assert class_name(module.Comet) == "game:Comet", "and are named as tickswap run names them"
        assert load_game(str(comet)).module is module, "one module: the file is not imported a second time"
    finally:
        del sys.modules["my_comet"]


def test_engine_run_exits_with_the_commands_status(comet):
    import engine

    module = load_game(str(comet)).module
    with pytest.raises(SystemExit) as exit:
        engine.run(module.build, ["--ticks", "5"])
    assert exit.value.code == 0
    with pytest.raises(SystemExit) as exit:
        engine.run(module.build, ["--ticks", "5", "--load", ""])
    assert exit.value.code == 2


def test_a_game_file_that_runs_itself_takes_a_screenshot(comet, offscreen):
    result = python("comet.py", "--headless", "--frames", "30", "--screenshot", "c.png", "--no-hud",
                    cwd=comet.parent, hashseed="1")
    assert result.returncode == 0, result.stderr
    assert (comet.parent / "c.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.usefixtures("offscreen")
def test_no_hud_hides_the_hud():
    from engine.render.runner import GameRunner

    runner = GameRunner("bouncy", display=Display(headless=True, show_hud=False))
    try:
        assert runner.hud.visible is False
    finally:
        runner.close()


@pytest.mark.parametrize("value", ["0", "-1", "float('nan')", "'fast'", "1e303"])
def test_a_game_step_out_of_range_is_refused_by_name(tmp_path, capsys, value):
    game = tmp_path / "steps.py"
    game.write_text(f"MS_PER_UPDATE = {value}\ndef build(world):\n    pass\n")
    assert main(["run", str(game), "--ticks", "3", "--record", str(tmp_path / "r.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "MS_PER_UPDATE" in err and err.count("\n") == 1 and not (tmp_path / "r.jsonl").exists()


CLAMP = """
from engine import Entity

class Ball(Entity):
    def update(self, world):
        self.x += 10

class Clamp:
    def __init__(self, world):
        self.world = world

    def process(self):
        for ball in self.world.entities:
            ball.x = min(ball.x, 100)

def build(world):
    world.spawn(Ball())
{in_build}
def systems(world):
{in_systems}
"""
ADD_CLAMP = "    world.add_processor(Clamp(world), priority=-1)\n"


def test_systems_of_systems_world_come_back_after_a_load(tmp_path, capsys):
    game = tmp_path / "clamp.py"
    game.write_text(CLAMP.format(in_build="", in_systems=ADD_CLAMP))
    assert main(["run", str(game), "--ticks", "50"]) == 0
    straight = capsys.readouterr().out.split("state ")[1][:16]
    assert main(["run", str(game), "--ticks", "20", "--save-at", "20", str(tmp_path / "p.json")]) == 0
    assert main(["run", str(game), "--ticks", "30", "--load", str(tmp_path / "p.json"),
                 "--save-at", "50", str(tmp_path / "q.json")]) == 0
    assert capsys.readouterr().out.splitlines()[-1].split("state ")[1][:16] == straight
    ball = json.loads((tmp_path / "q.json").read_text())["entities"][0]
    assert ball["buffered"]["x"] == 100, "the clamp still clamps after the load"
    assert main(["check", str(game), "--ticks", "20"]) == 0


@pytest.mark.parametrize("option", ["--save-at", "--load"])
def test_systems_added_in_build_refuse_save_and_load_up_front(tmp_path, capsys, option):
    game = tmp_path / "clamp.py"
    game.write_text(CLAMP.format(in_systems="    pass\n", in_build=ADD_CLAMP))
    (tmp_path / "p.json").write_text("{}")
    argv = ["run", str(game), "--ticks", "5", option] + (["3"] if option == "--save-at" else [])
    assert main([*argv, str(tmp_path / ("q.json" if option == "--save-at" else "p.json"))]) == 2
    err = capsys.readouterr().err
    assert "systems(world)" in err and option in err and err.count("\n") == 1
    assert not (tmp_path / "q.json").exists()


@pytest.mark.parametrize("setting, words", [
    ("WIDTH = 1280 / 2", "WIDTH must be a whole number of pixels"),
    ("WIDTH, HEIGHT = -5, 0", "WIDTH must be a whole number of pixels"),
    ("HEIGHT = 20000", "HEIGHT must be a whole number of pixels"),
    ("BACKGROUND = (300, 0, 0)", "BACKGROUND must be a colour"),
    ("BACKGROUND = 'black'", "BACKGROUND must be a colour"),
    ("DESCRIPTION = 3", "DESCRIPTION must be a string"),
])
@pytest.mark.parametrize("command", [["--ticks", "3"], ["--headless", "--frames", "1"]])
def test_a_bad_game_setting_is_one_line_naming_it_before_anything_runs(tmp_path, capsys, setting, words, command):
    game = tmp_path / "settings.py"
    game.write_text(f"{setting}\ndef build(world):\n    pass\n")
    assert main(["run", str(game), *command]) == 2
    err = capsys.readouterr().err
    assert words in err and "EGL" not in err and err.count("\n") == 1, err


@pytest.mark.parametrize("body, words", [
    ("def build(world):\n    import helper\n", "ZeroDivisionError"),
    ("def build(world):\n    world.spawn(Boom())\n", "Boom (id 1)"),
])
def test_python_game_py_reports_what_it_can_catch_in_one_line(tmp_path, body, words):
    (tmp_path / "helper.py").write_text("from engine import Entity\nclass Bad(Entity):\n    size = 1 / 0\n")
    game = tmp_path / "game.py"
    game.write_text("from engine import Entity, run\nclass Boom(Entity):\n    def update(self, world):\n"
                    f"        raise ValueError('no')\n{body}run(build)\n")
    result = python(str(game), "--ticks", "3", cwd=tmp_path, hashseed="0")
    assert result.returncode == 1 and words in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr


def test_sample_games_keep_their_module_names_in_snapshots():
    with World() as world:
        load_game("patrol").build(world)
        classes = {entity["class"] for entity in world.snapshot()["entities"]}
    assert classes and all(name.startswith("games.patrol.") for name in classes), classes


BELOW_RUN = '''
from engine import Entity, run


def build(world):
    world.spawn(Walker())          # Walker is defined below run(build)


if __name__ == "__main__":
    run(build)


class Walker(Entity):
    def update(self, world):
        self.x += STEP


STEP = 3


def systems(world):
    world.add_processor(Nudge())


class Nudge:
    def process(self):
        for walker in self.world.entities:
            walker.y += 1


def make_view(world):
    import sys
    print("make_view found", file=sys.stderr)
    from engine.render.view import View

    class Nothing(View):
        def draw(self, alpha):
            pass

        def delete(self):
            pass

    return Nothing()
'''


def test_python_game_py_finds_what_the_file_defines_below_run_build(tmp_path):
    game = tmp_path / "below.py"
    game.write_text(BELOW_RUN.replace("self.world.entities", "WORLD[0].entities").replace(
        "world.add_processor(Nudge())", "WORLD.append(world); world.add_processor(Nudge())") + "\nWORLD = []\n")
    straight = python(str(game), "--ticks", "5", cwd=tmp_path, hashseed="0")
    assert straight.returncode == 0, straight.stderr
    assert state(straight) == state(tickswap("run", str(game), "--ticks", "5", cwd=tmp_path, hashseed="1"))


def test_python_game_py_uses_a_make_view_defined_below_run_build(tmp_path, offscreen):
    game = tmp_path / "viewed.py"
    game.write_text(BELOW_RUN.replace("world.add_processor(Nudge())", "pass"))
    result = python(str(game), "--headless", "--frames", "2", cwd=tmp_path, hashseed="0")
    assert result.returncode == 0 and "make_view found" in result.stderr, result.stderr


def test_code_below_run_build_still_runs_for_a_version_with_a_warning_naming_the_fix(tmp_path):
    game = tmp_path / "below.py"
    game.write_text(BELOW_RUN.replace("world.add_processor(Nudge())", "pass"))
    result = python(str(game), "--ticks", "2", cwd=tmp_path, hashseed="0")
    assert result.returncode == 0, result.stderr
    # Walker, defined below run(build), was found: the same game as tickswap run's.
    assert state(result) == state(tickswap("run", str(game), "--ticks", "2", cwd=tmp_path, hashseed="1"))
    first_below = game.read_text().splitlines().index("class Walker(Entity):") + 1
    warning = [line for line in result.stderr.splitlines() if "DeprecationWarning" in line]
    assert len(warning) == 1 and "below.py" in warning[0] and f"line {first_below})" in warning[0], result.stderr
    assert "call run(build) last, at the end of the file" in warning[0] and "0.6" in warning[0]


def test_a_game_file_that_calls_run_build_last_gets_no_warning(tmp_path):
    game = tmp_path / "last.py"
    body = BELOW_RUN.replace("world.add_processor(Nudge())", "pass").replace(
        '\nif __name__ == "__main__":\n    run(build)\n', "")
    game.write_text(body + '\n\nif __name__ == "__main__":\n    run(build)\n')
    result = python(str(game), "--ticks", "2", cwd=tmp_path, hashseed="0")
    assert result.returncode == 0 and "Warning" not in result.stderr, result.stderr


def test_a_library_installed_in_a_venv_beside_the_game_is_not_taken_for_the_games_own_module(tmp_path, monkeypatch):
    # A trial's finding: with the game in the folder that holds its venv (./.venv), numpy was
    # taken for a module beside the game and dropped from sys.modules after the game's import,
    # so its next import failed ("cannot load module more than once per process").
    site = tmp_path / ".venv" / "lib" / "python3" / "site-packages"
    site.mkdir(parents=True)
    (site / "venvlib_for_test.py").write_text("VALUE = 3\n")
    (tmp_path / "helper_for_test.py").write_text("VALUE = 4\n")
    (tmp_path / "game.py").write_text(
        "import venvlib_for_test\nimport helper_for_test\nfrom engine import Entity\n\n\n"
        "class Dot(Entity):\n    pass\n\n\ndef build(world):\n    world.spawn(Dot())\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "venvlib_for_test", raising=False)
    load_game(str(tmp_path / "game.py"))
    assert "venvlib_for_test" in sys.modules, "the installed library stays imported, once"
    assert "helper_for_test" not in sys.modules, "the game's own module beside it is still the game's"
    sys.modules.pop("venvlib_for_test", None)


def test_one_game_file_copied_into_two_directories_imports_each_ones_own_module_beside_it(tmp_path):
    # The same content has one module name (the digest): the second copy must still be a module of its own,
    # or it would run with the first one's helpers.
    game = "import rules\n\n\ndef build(world):\n    pass\n"
    for name, speed in (("a", 1), ("b", 2)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "rules.py").write_text(f"SPEED = {speed}\n")
        (tmp_path / name / "game.py").write_text(game)
    first, second = load_game(str(tmp_path / "a" / "game.py")), load_game(str(tmp_path / "b" / "game.py"))
    assert first.module is not second.module
    assert (first.module.rules.SPEED, second.module.rules.SPEED) == (1, 2)
    assert load_game(str(tmp_path / "a" / "game.py")).module is first.module


# A game's own KeyboardInterrupt or GeneratorExit is its failure, reported in one line like any
# other (only a signal is a Ctrl-C: engine.interrupts); these hold the importer to it.

@pytest.mark.parametrize("raises", ["raise KeyboardInterrupt('odd')", "raise GeneratorExit('odd')"])
def test_anything_the_code_below_run_build_raises_is_one_line(tmp_path, raises):
    game = tmp_path / "below.py"
    game.write_text(BELOW_RUN.replace("world.add_processor(Nudge())", "pass") + f"\n{raises}\n")
    result = python(str(game), "--ticks", "2", cwd=tmp_path, hashseed="0")
    assert result.returncode == 2 and "below.py failed to import: " in result.stderr, result.stderr
    assert "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize("raises", ["raise KeyboardInterrupt('odd')", "raise GeneratorExit('odd')"])
def test_a_registered_game_reloaded_into_code_that_raises_anything_goes_on_as_it_was(tmp_path, monkeypatch, raises):
    import importlib

    from engine.files.game import Game
    from engine.files.importer import reload_game

    package = tmp_path / "reloadpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    logic = package / "logic.py"
    logic.write_text("def build(world):\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("reloadpkg.logic")
    try:
        logic.write_text(f"{raises}\ndef build(world):\n    pass\n")
        with pytest.raises(GameError, match=r"game 'reloadpkg' failed to import: (KeyboardInterrupt|GeneratorExit): odd"):
            reload_game(Game("reloadpkg", module))
        assert sys.modules["reloadpkg.logic"] is module, "the running modules are put back"
    finally:
        for name in ("reloadpkg.logic", "reloadpkg"):
            sys.modules.pop(name, None)


@pytest.mark.parametrize("import_first", [True, False])
def test_a_game_loaded_and_imported_in_either_order_is_one_module(tmp_path, monkeypatch, import_first):
    # A newcomer's trial: load_game("arena.py") and then `from arena import Ship` (the test beside
    # its game) made a second copy of every class; world.entities_of(Ship) found no ship.
    (tmp_path / "arena_for_test.py").write_text(
        "from engine import Entity\n\n\nclass Ship(Entity):\n    pass\n\n\ndef build(world):\n"
        "    world.spawn(Ship())\n    world.spawn(Ship())\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "arena_for_test", raising=False)
    try:
        if import_first:
            import arena_for_test  # type: ignore[import-not-found]
        game = load_game(str(tmp_path / "arena_for_test.py"))
        if not import_first:
            import arena_for_test
        assert game.module is arena_for_test
        with World() as world:
            game.setup(world)
            assert len(world.entities_of(arena_for_test.Ship)) == 2
    finally:
        sys.modules.pop("arena_for_test", None)
