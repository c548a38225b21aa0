"""The docs site's code runs: every ```python block of README and docs/ runs, in order.

The blocks of one page run one after another in one namespace, in a fresh directory (so a
page can define a game in one block and test it in the next). Markers, HTML comments on
the line before a block, say what else a block is:

- ``<!-- file: NAME.py -->``: the page tells the reader to save the block as NAME.py; it
  is written there (importable, as it would be beside the reader's game) and run.
- ``<!-- prints -->`` before a ```text block: what the python block before it prints,
  compared exactly.
- ``<!-- command-output -->`` before a ```text block: its first line is ``$ tickswap ...``,
  run (in the page's directory, after the blocks before it) and compared with the rest.
- ``<!-- not-run -->``: a fragment (a method without its class); it is only compiled.

Functions named ``test_*`` that a block defines are called, as pytest would call them.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts)])

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.S | re.M)
_MARKER = re.compile(r"<!--\s*(?P<marker>[^>]*?)\s*-->\s*$")


@dataclass
class Block:
    """One fenced block of a page: its language, its code, the marker before it, its line."""

    language: str
    code: str
    marker: str
    line: int


def blocks_of(text: str) -> list[Block]:
    """Every fenced block of a Markdown page, in order, dedented (a block may sit in a list)."""
    found = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = _MARKER.search(before)
        found.append(Block(match["info"].strip(), textwrap.dedent(match["body"]),
                           marker["marker"] if marker else "", text.count("\n", 0, match.start()) + 1))
    return found


def run_page(page: Path, directory: Path) -> int:
    """Run a page's python blocks in ``directory``; return how many ran."""
    blocks = blocks_of(page.read_text())
    namespace: dict[str, object] = {"__name__": "docs_page", "__file__": str(directory / "page.py")}
    ran = 0
    printed: str | None = None
    for block in blocks:
        where = f"{page.relative_to(ROOT)}:{block.line}"
        if block.marker == "prints":
            assert block.language == "text", f"{where}: a <!-- prints --> block is a ```text block"
            assert printed is not None, f"{where}: no python block before it prints anything"
            assert printed == block.code, f"{where}: the block before prints something else:\n{printed}"
            printed = None
            continue
        if block.marker == "command-output":
            command, _, expected = block.code.partition("\n")
            assert command.startswith("$ tickswap "), f"{where}: a command-output block starts with $ tickswap"
            assert run_command(command[len("$ tickswap "):]) == expected, f"{where}: the command prints something else"
            continue
        if block.language != "python":
            continue
        if block.marker == "not-run":
            compile(block.code, where, "exec")
            continue
        if block.marker.startswith("file:"):
            name = block.marker.split(":", 1)[1].strip()
            (directory / name).write_text(block.code)
            namespace["__file__"] = str(directory / name)
        before = set(namespace)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block.code, where, "exec"), namespace)
            for name in sorted(set(namespace) - before):
                if name.startswith("test_") and callable(namespace[name]):
                    namespace[name]()  # type: ignore[operator]
        printed = out.getvalue()
        ran += 1
    return ran


def run_command(arguments: str) -> str:
    """What ``tickswap ARGUMENTS`` prints (standard output and error, in order)."""
    from engine.tools.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        main(shlex.split(arguments))
    return out.getvalue()


@pytest.fixture
def in_fresh_directory(tmp_path, monkeypatch):
    """Run in an empty directory that is importable, as a reader's game directory is."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    modules = set(sys.modules)
    yield tmp_path
    # Modules a page saved (comet, test_comet) must not leak into the next page's imports.
    for name in set(sys.modules) - modules:
        if getattr(sys.modules[name], "__file__", None) and str(tmp_path) in str(sys.modules[name].__file__):
            del sys.modules[name]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_python_block_of_the_page_runs_and_prints_what_the_page_shows(page, in_fresh_directory):
    run_page(page, in_fresh_directory)


def test_the_runner_finds_the_pages_and_their_blocks():
    names = {str(p.relative_to(ROOT)) for p in PAGES}
    assert {"README.md", "docs/index.md", "docs/tutorial.md", "docs/guides/testing.md"} <= names
    python = sum(b.language == "python" for p in PAGES for b in blocks_of(p.read_text()))
    assert python >= 15


def test_a_block_that_prints_something_else_fails(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.md"
    page.write_text('```python\nprint("one")\n```\n\nprints\n\n<!-- prints -->\n```text\ntwo\n```\n')
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    with pytest.raises(AssertionError, match="prints something else"):
        run_page(page, tmp_path)


def test_a_failing_test_function_in_a_block_fails(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.md"
    page.write_text("<!-- file: test_x.py -->\n```python\ndef test_false():\n    assert 1 == 2\n```\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    with pytest.raises(AssertionError):
        run_page(page, tmp_path)
