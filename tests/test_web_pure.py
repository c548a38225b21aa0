"""The engine without numpy and without pyglet (what a browser's Pyodide has): the same game, bit for bit.

Each test runs ``tickswap`` in a CPython whose import system refuses numpy and pyglet
(``tests/webgames.py``), on the pure Double Buffer, and compares its state hashes with the
normal path's (numpy, and the compiled cores where they are built) in this process.
"""

from __future__ import annotations

import math
import random
import re
from pathlib import Path

import numpy as np
import pytest
from webgames import run_blocked, write_script

from engine import spatial
from engine.tools.cli import main

STATE = re.compile(r"state ([0-9a-f]{16})")


def _hash_here(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 0
    found = STATE.findall(capsys.readouterr().out)
    assert len(found) == 1, found
    return found[0]


def test_samples_reach_the_same_hash_without_numpy_and_pyglet(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    commands, expected = [], []
    for game, ticks in (("pong", 240), ("patrol", 200), ("platformer", 400)):
        script = str(write_script(game, tmp_path / f"{game}.jsonl"))
        argv = ["run", game, "--ticks", str(ticks), "--input", script]
        expected.append(_hash_here(capsys, argv))
        commands.append(argv)
    blocked = run_blocked(commands, tmp_path)
    assert blocked.returncode == 0, blocked.stderr
    assert STATE.findall(blocked.stdout) == expected
    assert len(set(expected)) == 3


def test_saves_replays_and_the_checker_work_without_numpy_and_pyglet(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    script = str(write_script("platformer", tmp_path / "in.jsonl"))
    expected = _hash_here(capsys, ["run", "platformer", "--ticks", "300", "--input", script,
                                   "--record", str(tmp_path / "desktop.jsonl")])
    blocked = run_blocked([
        ["run", "platformer", "--ticks", "300", "--input", script, "--record", "web.jsonl",
         "--save-at", "150", "web.json"],
        ["replay", "web.jsonl"],
        ["replay", str(tmp_path / "desktop.jsonl")],
        ["check", "platformer", "--ticks", "40", "--orders", "1", "--hash-seeds", "0", "--saves", "1"],
    ], tmp_path)
    assert blocked.returncode == 0, blocked.stdout + blocked.stderr
    assert STATE.findall(blocked.stdout) == [expected]
    assert blocked.stdout.count("all match") == 2
    assert "order independent" in blocked.stdout
    # The save written without numpy loads on the normal path and goes on to the same state.
    resumed = _hash_here(capsys, ["run", "platformer", "--load", str(tmp_path / "web.json"), "--ticks", "150",
                                  "--input", script])
    assert resumed == expected
    # A recording made without numpy replays on the normal path.
    assert main(["replay", str(tmp_path / "web.jsonl")]) == 0
    assert "all match" in capsys.readouterr().out


def test_a_numpy_feature_says_so_in_one_line(tmp_path: Path) -> None:
    game = tmp_path / "dots.py"
    game.write_text("from engine import Crowd, World\n\n\nclass Dots(Crowd):\n    pass\n\n\n"
                    "def build(world: World) -> None:\n    world.spawn(Dots(8))\n")
    blocked = run_blocked([["run", str(game), "--ticks", "3"]], tmp_path)
    assert blocked.returncode != 0
    lines = [line for line in blocked.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, blocked.stderr
    assert "Crowd needs numpy, which can't be imported here: pip install numpy" in lines[0]


def _columns(rng: random.Random, count: int) -> tuple[list[float], ...]:
    picks = [0.0, -0.0, 1e300, -1e300, math.inf, -math.inf, math.nan, 3.5, 2.0 ** 40]
    x = [rng.choice(picks) if rng.random() < 0.05 else rng.uniform(-3000, 3000) for _ in range(count)]
    y = [rng.choice(picks) if rng.random() < 0.05 else rng.uniform(-3000, 3000) for _ in range(count)]
    size = [rng.choice([0.0, 4.0, 16.0, 600.0, 1e9, math.inf]) if rng.random() < 0.2 else rng.uniform(0, 64)
            for _ in range(count)]
    tall = [rng.uniform(0, 40) for _ in range(count)]
    return x, y, [s / 2.0 for s in size], [t / 2.0 for t in tall]


@pytest.mark.parametrize("seed", range(12))
def test_list_levels_equal_numpys_levels(seed: int) -> None:
    rng = random.Random(seed)
    count = rng.choice([1, 2, 7, 40, 300])
    x, y, half_width, half_height = _columns(rng, count)
    boxed = [rng.random() < 0.9 for _ in range(count)]
    slots = sorted(rng.sample(range(count), rng.randint(1, count)))
    want_levels, want_everywhere = spatial.grid_levels(
        np.array(x), np.array(y), np.array(half_width), np.array(half_height), np.array(boxed),
        np.array(slots, dtype=np.int32))
    got_levels, got_everywhere = spatial.list_levels(x, y, half_width, half_height, boxed, slots)
    assert got_everywhere == np.asarray(want_everywhere).tolist()
    assert len(got_levels) == len(want_levels)
    for got, want in zip(got_levels, want_levels):
        cell, dense, x0, y0, columns, rows, keys, starts, members = want
        assert got[:6] == (float(cell), bool(dense), int(x0), int(y0), int(columns), int(rows))
        assert got[6:] == (np.asarray(keys).tolist(), np.asarray(starts).tolist(), np.asarray(members).tolist())
