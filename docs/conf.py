"""Sphinx configuration of tickswap's documentation (MyST Markdown pages, autodoc API).

Build it with ``sphinx-build -W --keep-going -b html docs docs/_build/html``: CI does, and
any warning (a broken reference, a docstring autodoc cannot read) fails the build.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

# The engine is imported from the checkout, whether or not it is installed.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

project = "tickswap"
author = "the tickswap authors"
copyright = "the tickswap authors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]

source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"

# Headings up to level 3 get anchors, so pages can link to a section: [the tick](guides/entities.md#the-rules).
myst_heading_anchors = 3

# The API reference shows what each public name is for, in source order, with signatures
# as written (type hints in the signature, not repeated in the text).
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "show-inheritance": True}
# A type hint that names something outside the documented API (an esper type, a private
# protocol) is printed as written instead of failing the build as a missing reference.
nitpicky = False

html_theme = "alabaster"
html_title = "tickswap"


def _plural_literals(app: object, what: str, name: str, obj: object, options: object, lines: list[str]) -> None:
    """Let a docstring's plural of an inline literal (a literal followed by "s") build as it reads.

    reStructuredText wants a break after an inline literal; an escaped space (rendered as
    nothing) is put after a closing pair that a letter follows; an opening pair is left alone.
    """
    for index, line in enumerate(lines):
        parts = line.split("``")
        if len(parts) < 3:
            continue
        # parts[1], parts[3], ... are literals; the part after each is what follows its closing pair.
        for after in range(2, len(parts), 2):
            if re.match(r"\w", parts[after]):
                parts[after] = "\\ " + parts[after]
        lines[index] = "``".join(parts)


def setup(app: Any) -> None:
    """Hook the docstring fix into autodoc."""
    app.connect("autodoc-process-docstring", _plural_literals)
