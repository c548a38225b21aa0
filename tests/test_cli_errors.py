"""No traceback for any user mistake: one line, and the right status, from every command."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine import FixedStepLoop, VirtualClock, World
from engine.loops import ConstantRateLoop, RenderGatedLoop
from engine.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent


def status_of(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exit:
        return int(str(exit.code))


@pytest.mark.parametrize("argv", [
    ["run", "tennis"],
    ["run", "patrol", "--ups", "1e-300"],
    ["run", "patrol", "--ups", "nan"],
    ["run", "patrol", "--ups", "0"],
    ["run", "patrol", "--ticks", "-1"],  # 0 runs no tick (the world as build left it): test_outputs
    ["run", "patrol", "--ticks", "1.5"],
    ["run", "patrol", "--ticks", "10000000000000"],
    ["run", "patrol", "--seed", "-3"],
    ["run", "patrol", "--seed", "x"],
    ["run", "patrol", "--frames", "x"],
    ["run", "patrol", "--loop", "warp"],
    ["run", "patrol", "--max-fps", "inf"],
    ["run", "patrol", "--spin-ms", "1e308"],
    ["run", "patrol", "--ticks", "5", "--save-at", "zero", "x.json"],
    ["run", "patrol", "--ticks", "5", "--save-at", "-1", "x.json"],
    ["run", "patrol", "--ticks", "5", "--screenshot", "x.png"],
    ["run", "patrol", "--ticks", "5", "--no-hud"],
    ["run", "patrol", "--headless", "--frames", "5", "--screenshot", "x.gif"],
    ["run", "patrol", "--ticks", "5", "--input", "no-such-input.jsonl"],
    ["run", "patrol", "--ticks", "5", "--load", "no-such-save.json"],
    ["run", "no/such/game.py"],
    ["run", "patrol", "--no-such-option"],
    ["replay", "no-such-replay.jsonl"],
    ["replay", ""],
    ["replay", "x.jsonl", "--screenshot", "x.png"],
    ["lab", "--update-ms", "1e308"],
    ["lab", "--ups", "1e-300"],
    ["lab", "--seconds", "1e300"],
    ["lab", "--render-ms", "-1"],
    ["lab", "tennis"],
    ["lab", "--png", ""],
    ["nothing"],
    [],
])
def test_a_user_mistake_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    assert status_of(argv) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and captured.err.count("\n") == 1, captured.err
    assert not list(tmp_path.iterdir()), "nothing was written"


def test_ctrl_c_is_130_with_one_line_in_replay_lab_and_bench(tmp_path, capsys, monkeypatch):
    recording = tmp_path / "r.jsonl"
    assert main(["run", "patrol", "--ticks", "100", "--record", str(recording)]) == 0
    capsys.readouterr()
    real_tick = World.tick
    calls = {"n": 0}

    def interrupted(self: World) -> None:
        calls["n"] += 1
        if calls["n"] == 30:
            os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C: only a signal is 130
        real_tick(self)

    monkeypatch.setattr(World, "tick", interrupted)
    assert main(["replay", str(recording)]) == 130
    err = capsys.readouterr().err
    assert "interrupted at tick 29" in err and err.count("\n") == 1
    monkeypatch.setattr(World, "tick", real_tick)

    import engine.tools.bench
    import engine.tools.lab

    def ctrl_c(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(engine.tools.lab, "run_lab", ctrl_c)
    assert main(["lab"]) == 130
    assert capsys.readouterr().err.count("\n") == 1
    monkeypatch.setattr(engine.tools.bench, "main", ctrl_c)
    assert main(["bench", "--quick"]) == 130
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("command", ["list", "lab"])
def test_a_closed_pipe_ends_quietly(command):
    shell = f"{sys.executable} -m engine.tools.cli {command} | head -1"
    result = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120, check=False,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.stdout.count("\n") == 1 and result.stderr == "", result.stderr


@pytest.mark.parametrize("argv", [["--ticks", "0"], ["--entities", "-5"], ["--churn", "x"],
                                  ["--entities", "3", "--churn", "10"]])
def test_the_soak_refuses_bad_numbers_in_one_line(argv, capsys):
    from engine.tools.soak import main as soak_main

    with pytest.raises(SystemExit) as exit:
        soak_main(argv)
    assert exit.value.code == 2 and "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(("make", "name"), [
    (lambda: VirtualClock().advance(1e303), "VirtualClock.advance"),
    (lambda: VirtualClock(start_ms=1e303), "start_ms"),
    (lambda: FixedStepLoop(lambda: None, lambda alpha: None, ms_per_update=1e303), "ms_per_update"),
    (lambda: RenderGatedLoop(lambda: None, lambda alpha: None, ms_per_update=1e303), "ms_per_update"),
    (lambda: ConstantRateLoop(lambda: None, lambda alpha: None, fps=1e-300), "fps"),
])
def test_numbers_too_large_for_a_clock_are_refused_by_name_at_construction(make, name):
    with pytest.raises(ValueError, match=name):
        make()


def test_run_until_beyond_any_clock_runs_until_stopped():
    loop = FixedStepLoop(lambda: None, lambda alpha: None, clock=VirtualClock())
    assert loop.run(frames=3, until=1e303) == 3


@pytest.mark.parametrize(("body", "status", "where"), [
    # A bad Look refused inside the engine, from an update (a crash) and from a class body (bad input).
    ("    def update(self, world):\n        self.look = Look('sqaure', 10, (1, 2, 3))\n", 1, "4 in update"),
    ("    look = Look('triangle', 10, (1, 2, 3))\n", 2, "3 in Bad"),
], ids=["in-update", "in-class-body"])
def test_a_mistake_the_engine_refuses_names_the_games_line_not_the_engines(tmp_path, capsys, body, status, where):
    game = tmp_path / "badlook.py"
    game.write_text("from engine import Entity, Look\nclass Bad(Entity):\n" + body
                    + "def build(world):\n    world.spawn(Bad())\n")
    assert main(["run", str(game), "--ticks", "3"]) == status
    err = capsys.readouterr().err
    assert f"(at {game}:{where})" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("argv", "words"), [
    (["--ticks", "5", "--loop", "variable"], "can't be combined with --loop"),
    (["--ticks", "5", "--max-fps", "30"], "can't be combined with --loop, --max-fps"),
    (["--ticks", "5", "--no-vsync"], "--max-fps or --no-vsync"),
], ids=["loop", "max-fps", "no-vsync"])
def test_options_a_ticks_run_would_ignore_are_refused(argv, words, capsys):
    assert main(["run", "patrol", *argv]) == 2
    assert words in capsys.readouterr().err


def test_a_seed_for_a_loaded_save_is_refused_since_the_save_keeps_its_own(tmp_path, capsys):
    save = tmp_path / "s.json"
    assert main(["run", "patrol", "--ticks", "10", "--save-at", "5", str(save)]) == 0
    assert main(["run", "patrol", "--ticks", "5", "--load", str(save), "--seed", "3"]) == 2
    assert "--load continues the saved world with its own seed" in capsys.readouterr().err
    assert main(["run", "patrol", "--ticks", "5", "--load", str(save)]) == 0


def test_every_rate_ups_accepts_is_a_step_a_recording_can_hold(tmp_path, capsys):
    from engine.files.game import MS_PER_UPDATE_RANGE
    from engine.tools.cli import main
    from engine.tools.cli.options import UPS_RANGE

    low, high = MS_PER_UPDATE_RANGE
    assert low <= 1000 / UPS_RANGE[1] and 1000 / UPS_RANGE[0] <= high
    # A rate below the range is refused by the option, not later by the recorder.
    with pytest.raises(SystemExit) as exit:
        main(["run", "patrol", "--ups", "0.01", "--ticks", "1", "--record", str(tmp_path / "r.jsonl")])
    assert exit.value.code == 2
    assert "--ups" in capsys.readouterr().err
    assert main(["run", "patrol", "--ups", str(UPS_RANGE[0]), "--ticks", "1", "--record", str(tmp_path / "r.jsonl")]) == 0


@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize("players", ["0", "9", "99999999999999999999", "two"])
def test_a_player_count_out_of_range_names_the_range_a_world_takes(command, players, capsys):
    assert status_of([command, "pong", "--players", players, "--ticks", "5"]) == 2
    err = capsys.readouterr().err
    said = "expected a whole number, got 'two'" if players == "two" else f"expected a number from 1 to 8, got {players}"
    assert f"--players: {said}" in err, err


@pytest.mark.parametrize(("argv", "abbreviation"), [
    (["run", "patrol", "--tick", "100"], "--tick"),
    (["run", "patrol", "--headles", "--ticks", "3"], "--headles"),
    (["run", "patrol", "--headless", "--frame", "10"], "--frame"),
    (["check", "patrol", "--order", "2"], "--order"),
    (["replay", "r.jsonl", "--gam", "patrol"], "--gam"),
])
def test_an_abbreviated_option_is_refused_not_guessed(argv, abbreviation, capsys):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    # Refused by the subcommand it follows, as its other mistakes are (it said "tickswap: unrecognized ...").
    err = capsys.readouterr().err
    assert err.startswith(f"tickswap {argv[0]}: unrecognized arguments: {abbreviation}"), err
    assert err.endswith(f" (see tickswap {argv[0]} --help)\n"), err


def test_no_parser_of_any_command_takes_an_abbreviation(tmp_path):
    import argparse

    from engine.tools.cli.options import build_parser

    parser = build_parser()
    parsers = [parser] + [sub for action in parser._actions if isinstance(action, argparse._SubParsersAction)
                          for sub in action.choices.values()]
    assert len(parsers) > 6 and all(each.allow_abbrev is False for each in parsers)
    game = tmp_path / "g.py"
    game.write_text("from engine import run\ndef build(world):\n    pass\nrun(build)\n")
    done = subprocess.run([sys.executable, str(game), "--tick", "3"], capture_output=True, text=True)
    assert done.returncode == 2 and "unrecognized arguments: --tick" in done.stderr, done.stderr
    for tool in ("engine.tools.soak", "engine.tools.seeds"):
        done = subprocess.run([sys.executable, "-m", tool, "--tick", "3"], capture_output=True, text=True)
        assert done.returncode == 2 and "--tick" in done.stderr, (tool, done.stderr)


HUGE = '''from engine import Entity, run


class Boom(Entity):
    def update(self, world):
        raise ValueError("x" * 5_000_000)


class Loud:
    def process(self):
        raise RuntimeError("y" * 5_000_000)


def build(world):
    if not SYSTEM:
        world.spawn(Boom())


def systems(world):
    if SYSTEM:
        world.add_processor(Loud())


SYSTEM = False
if __name__ == "__main__":
    run(build)
'''


@pytest.mark.parametrize("raiser", ["update", "system"])
@pytest.mark.parametrize("command", ["run", "check", "python"])
def test_a_5_mb_exception_message_is_shortened_and_the_location_kept(tmp_path, command, raiser):
    game = tmp_path / "g.py"
    game.write_text(HUGE.replace("SYSTEM = False", f"SYSTEM = {raiser == 'system'}"))
    argv = {"run": ["-m", "engine.tools.cli", "run", str(game), "--ticks", "3"],
            "check": ["-m", "engine.tools.cli", "check", str(game), "--ticks", "3", "--hash-seeds", "0"],
            "python": [str(game), "--ticks", "3"]}[command]
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120)
    lines = (done.stdout + done.stderr).splitlines()
    (line,) = [line for line in lines if "xxxx" in line or "yyyy" in line]
    line_number = 6 if raiser == "update" else 11
    assert len(line) < 1000 and "…" in line, len(line)
    assert line.endswith(f"(at {game}:{line_number} in {'update' if raiser == 'update' else 'process'})"), line[-200:]


def test_an_overlong_line_loses_its_middle_not_its_end():
    from engine.messages import LONGEST_LINE, one_line

    line = one_line("start " + "\n" * 10 + "z" * 5_000_000 + " (at g.py:5 in update)")
    assert len(line) <= LONGEST_LINE and line.startswith("start \\n\\n") and line.endswith("(at g.py:5 in update)")


@pytest.mark.parametrize("text", [" 5", "5 ", "+5", "1_000", "\u0663", "5.0", ""])
@pytest.mark.parametrize("option", ["--seed", "--ticks"])
def test_a_whole_number_is_ascii_digits_not_whatever_int_takes(option, text, capsys):
    # int() takes spaces, a plus, underscores and other scripts' digits: a typo or a paste, refused by value.
    with pytest.raises(SystemExit) as exited:
        main(["run", "patrol", option, text] + (["--ticks", "3"] if option == "--seed" else []))
    assert exited.value.code == 2
    assert f"argument {option}: expected a whole number, got {text!r}" in capsys.readouterr().err
