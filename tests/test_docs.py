"""Docs that match the code: README's example prints what README says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_prints_what_readme_shows():
    text = README.read_text()
    section = text.split("## A first game, headless", 1)[1]
    code, expected = re.findall(r"```(?:python)?\n(.*?)```", section, flags=re.S)[:2]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README example", "exec"), {"__name__": "readme_example"})
    assert out.getvalue() == expected


def test_readme_names_a_test_command_that_ci_runs():
    text = README.read_text()
    assert "<!-- test-command" in text
    assert "pytest" in text.split("<!-- test-command", 1)[1].split("```", 3)[1]
