"""The engine's logic under Pyodide (CPython compiled to WebAssembly) in Node: the same game, bit for bit.

The npm package ``pyodide`` is installed into ``~/.cache/tickswap-web`` (outside the
repository; ``TICKSWAP_WEB_CACHE`` moves it) by the first test that needs it; where node or
npm is missing, or the package can't be had (no network), the tests skip and say why. The
app archive is ``tickswap package --web``'s (``engine.tools.ship.web.app_archive``): the
engine's Python files, esper, pytiled-parser and the game, unpacked into Pyodide's
``/app``; ``engine/tools/ship/web_check.mjs`` runs the game's program (``tickswap run``'s options) and
``tickswap replay`` there, with a host directory mounted for the files that go in and out.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from webgames import write_script
from webpyodide import pyodide_or_skip

from engine.tools.cli import main
from engine.tools.ship.web import WEB_CHECK, app_archive

STATE = re.compile(r"state ([0-9a-f]{16})")


def _in_pyodide(pyodide: Path, app: Path, host: Path, commands: list[list[str]]) -> str:
    done = subprocess.run(["node", str(WEB_CHECK), str(pyodide), str(app), str(host), json.dumps(commands)],
                          capture_output=True, text=True, timeout=300)
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


def test_package_web_checks_its_build_in_pyodide_and_refuses_another_game(tmp_path: Path) -> None:
    import zipfile

    from engine.errors import GameError
    from engine.tools.ship.web import APP_ARCHIVE, check_web, web_folder

    pyodide = pyodide_or_skip()
    made = web_folder("pong", tmp_path / "pong-web", pyodide)
    state = check_web(made.path, "pong")
    assert state is not None and len(state) == 16
    # The same folder with the ball's speed changed in its archive: not the same game.
    archive = made.path / APP_ARCHIVE
    with zipfile.ZipFile(archive) as source:
        entries = {name: source.read(name) for name in source.namelist()}
    logic = "tickswap-game/games/pong/logic.py"
    changed = entries[logic].replace(b"START_SPEED, TOP_SPEED = 5.0, 11.0", b"START_SPEED, TOP_SPEED = 4.0, 11.0")
    assert changed != entries[logic]
    entries[logic] = changed
    with zipfile.ZipFile(archive, "w") as target:
        for name, data in entries.items():
            target.writestr(name, data)
    with pytest.raises(GameError, match=f"is not the same game: after 64 ticks in Pyodide its state is [0-9a-f]{{16}}, "
                                        f"tickswap run's {state}"):
        check_web(made.path, "pong")
