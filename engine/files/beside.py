"""Modules beside a game file: importable while it loads, as under ``python game.py``, and never leaked.

``tickswap run game.py``, ``check`` and ``replay --game`` (and ``engine.testing.load_game``)
let the game file the user named ``import helpers`` from its own directory. Only that
file: a replay never makes a directory importable by itself (its game is run only when
the user names it with ``--game``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from engine.state.names import remember_module

__all__ = ["BESIDE", "importable_beside", "is_beside"]

BESIDE: dict[str, tuple[ModuleType, ...]] = {}
"""The modules each loaded game file imported from its own directory, by the game's module name."""


def is_beside(module: ModuleType, directory: Path) -> bool:
    """Whether ``module`` was imported from ``directory`` (a module there, or a package there and its modules)."""
    file = getattr(module, "__file__", None)
    if not file or module.__name__.partition(".")[0] == "engine":
        return False
    path = Path(file).resolve()
    if not path.is_relative_to(directory):
        return False
    # An installed library is never the game's own, even where its folder holds the installation
    # (a venv made beside the game: ./.venv/lib/.../site-packages/numpy): taking numpy out of
    # sys.modules as the game's module would make its next import fail ("cannot load module more
    # than once per process").
    for entry in sys.path:
        if not entry:  # the working directory: where the user stands, not an installation
            continue
        root = Path(entry).resolve()
        if root != directory and root.is_relative_to(directory) and path.is_relative_to(root):
            return False
    return not any(part in ("site-packages", "dist-packages") for part in path.relative_to(directory).parts)


@contextmanager
def importable_beside(directory: Path, found: list[ModuleType]) -> Iterator[None]:
    """Modules beside the game file import while it runs, as under ``python game.py``; then none leak.

    ``sys.path`` gets the game's directory first, and loses it again after the import; the
    modules imported from there (``helpers``) are taken out of ``sys.modules`` into ``found``
    (the game keeps them: its ``import`` bound them), so a second game whose ``helpers.py``
    is another file imports its own. They keep their plain names (``helpers:Tile`` in a
    snapshot), as under ``python game.py``: never a digest, never a path.
    """
    before = set(sys.modules)
    entry = str(directory)
    sys.path.insert(0, entry)
    try:
        yield
    finally:
        if entry in sys.path:
            sys.path.remove(entry)
        for name in [name for name in sys.modules if name not in before]:
            module = sys.modules[name]
            if name.partition(".")[0] not in before and is_beside(module, directory):
                found.append(module)
                remember_module(module)  # its classes are still named by their file
                del sys.modules[name]
