"""The quick start (docs/quickstart.md) works as a newcomer follows it, and quickly.

Its files are saved from the page as a reader saves them, into an empty directory, and its
steps run as the page says: ``python make_art.py``, ``tickswap run game.py --ticks 120``
(the page's own command), ``python -m pytest -q``. The page's python blocks also run in
``tests/test_docs_site.py``; this test adds the commands, in fresh processes, and the clock:
the machine's share of the promised 10 minutes is well under one.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "quickstart.md"
FILES = ("make_art.py", "game.py", "test_game.py")


def _saved(directory: Path) -> None:
    text = PAGE.read_text()
    for name in FILES:
        block = re.search(rf"<!-- file: {re.escape(name)} -->\n```python\n(.*?)^```", text, re.S | re.M)
        assert block is not None, f"the quick start no longer has {name}"
        (directory / name).write_text(block[1])


def _run(directory: Path, *command: str) -> str:
    done = subprocess.run([sys.executable, *command], cwd=directory, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}"
    return done.stdout


def test_the_quick_start_runs_from_an_empty_directory_to_a_passing_test(tmp_path):
    text = PAGE.read_text()
    assert "tickswap run game.py --ticks 120" in text and "python -m pytest -q" in text
    started = time.monotonic()
    _saved(tmp_path)
    assert _run(tmp_path, "make_art.py").strip() == "wrote hero.png, coin.png and coin.wav"
    assert {"hero.png", "coin.png", "coin.wav"} <= {path.name for path in tmp_path.iterdir()}
    out = _run(tmp_path, "-m", "engine.tools.cli", "run", "game.py", "--ticks", "120")
    assert re.match(r"game\.py: 120 ticks in .*, 6 entities, state [0-9a-f]{16}", out), out
    tested = _run(tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_game.py")
    assert "2 passed" in tested, tested
    assert time.monotonic() - started < 120, "the machine's part of the quick start takes seconds, not minutes"
