"""The engine's logic under Pyodide (CPython compiled to WebAssembly) in Node: the same game, bit for bit.

The npm package ``pyodide`` is installed into ``~/.cache/tickswap-web`` (outside the
repository; ``TICKSWAP_WEB_CACHE`` moves it) by the first test that needs it; where node or
npm is missing, or the package can't be had (no network), the tests skip and say why. The
app archive is ``tickswap package --web``'s (``engine.tools.ship.web.app_archive``): the
engine's Python files, esper, pytiled-parser and the game, unpacked into Pyodide's
``/app``; ``tests/web_node.mjs`` runs the game's program (``tickswap run``'s options) and
``tickswap replay`` there, with a host directory mounted for the files that go in and out.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from webgames import ROOT, write_script
from webpyodide import pyodide_or_skip

from engine.tools.cli import main
from engine.tools.ship.web import app_archive

STATE = re.compile(r"state ([0-9a-f]{16})")


def _in_pyodide(pyodide: Path, app: Path, host: Path, commands: list[list[str]]) -> str:
    done = subprocess.run(["node", str(ROOT / "tests" / "web_node.mjs"), str(pyodide), str(app), str(host),
                           json.dumps(commands)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_platformer_in_pyodide_gives_cpythons_hashes_saves_and_replays(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]
                                                                            ) -> None:
    pyodide = pyodide_or_skip()
    app = tmp_path / "app.zip"
    app_archive("platformer", app)
    script = write_script("platformer", tmp_path / "in.jsonl")
    assert main(["run", "platformer", "--ticks", "400", "--input", str(script),
                 "--record", str(tmp_path / "desktop.jsonl")]) == 0
    expected = STATE.findall(capsys.readouterr().out)
    out = _in_pyodide(pyodide, app, tmp_path, [
        ["game", "--ticks", "400", "--input", "in.jsonl", "--record", "web.jsonl", "--save-at", "200", "web.json"],
        ["game", "--load", "web.json", "--ticks", "200", "--input", "in.jsonl"],
        ["tickswap", "replay", "desktop.jsonl"],
    ])
    assert "pyodide statuses [0, 0, 0] python 3.14" in out, out
    assert STATE.findall(out) == expected * 2, out  # the straight run, and the run from its save
    assert "replay desktop.jsonl: 400 ticks of platformer" in out and "all match" in out, out
    # What Pyodide wrote, CPython reads: its recording replays, its save goes on to the same state.
    assert main(["replay", str(tmp_path / "web.jsonl")]) == 0
    assert "all match" in capsys.readouterr().out
    assert main(["run", "platformer", "--load", str(tmp_path / "web.json"), "--ticks", "200",
                 "--input", str(script)]) == 0
    assert STATE.findall(capsys.readouterr().out) == expected
