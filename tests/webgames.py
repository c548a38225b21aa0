"""What the web tests share: input scripts for the sample games, and a CPython with numpy and pyglet refused.

``BLOCKED`` is a program for ``python -c``: it puts a finder first on ``sys.meta_path`` that
refuses ``numpy`` and ``pyglet`` (and their submodules), as a browser's Pyodide without them
would, and the libraries only a networked session needs (``cryptography``, ``spake2``,
``aioice``: Pyodide has no wheel of them offline), then runs each command line given as JSON in
argv through ``tickswap``'s own ``main``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPTS = {
    # SPACE starts the match; W/S move the left paddle, UP/DOWN the right one (hot seat).
    "pong": [
        {"tick": 2, "input": [["key_press", "SPACE", 0, 0]]},
        {"tick": 3, "input": [["key_release", "SPACE", 0, 0], ["key_press", "W", 0, 0]]},
        {"tick": 40, "input": [["key_release", "W", 0, 0], ["key_press", "DOWN", 0, 0]]},
        {"tick": 90, "input": [["key_release", "DOWN", 0, 0], ["key_press", "S", 0, 0]]},
        {"tick": 150, "input": [["key_release", "S", 0, 0]]},
    ],
    # The arrow keys walk the hero.
    "patrol": [
        {"tick": 1, "input": [["key_press", "RIGHT", 0, 0]]},
        {"tick": 60, "input": [["key_release", "RIGHT", 0, 0], ["key_press", "UP", 0, 0]]},
        {"tick": 120, "input": [["key_release", "UP", 0, 0]]},
    ],
}


def write_script(game: str, path: Path) -> Path:
    """``game``'s input script (the platformer's is the test suite's winning run) written to ``path``."""
    if game == "platformer":
        path.write_text((ROOT / "tests" / "platformer_win.jsonl").read_text())
    else:
        path.write_text("".join(json.dumps(line) + "\n" for line in SCRIPTS[game]))
    return path


BLOCKED = r"""
import importlib.abc, json, sys

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("numpy", "pyglet", "cryptography", "spake2", "aioice"):
            raise ImportError(f"No module named {name!r} (refused by the test)", name=name)
        return None

sys.meta_path.insert(0, Refuse())
from engine.tools.cli import main
status = 0
for argv in json.loads(sys.argv[1]):
    status = status or main(argv)
assert not any(m.partition(".")[0] in ("numpy", "pyglet", "cryptography", "spake2", "aioice") for m in sys.modules), \
    "a refused library was loaded"
sys.exit(status)
"""


def run_blocked(commands: list[list[str]], cwd: Path, pure: bool = True, timeout: float = 240
                ) -> subprocess.CompletedProcess[str]:
    """Each ``tickswap`` command line in one CPython where numpy and pyglet can't be imported
    (``pure``: and the pure Double Buffer, TICKSWAP_PURE=1, as in Pyodide)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if pure:
        env["TICKSWAP_PURE"] = "1"
    return subprocess.run([sys.executable, "-c", BLOCKED, json.dumps(commands)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
