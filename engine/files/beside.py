"""Modules beside a game file: importable while it loads, as under ``python game.py``, and never leaked.

``tickswap run game.py``, ``check`` and ``replay --game`` (and ``engine.testing.load_game``)
let the game file the user named ``import helpers`` from its own directory. Only that
file: a replay never makes a directory importable by itself (its game is run only when
the user names it with ``--game``).

A game's own modules load from their source, never from a ``__pycache__`` file
(``SourceOnlyLoader``, ``from_source``): a cache whose header matches the source's size
and second would run instead of an edit made within that second, so a live reload would
keep the old code.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from engine.state.names import remember_module

__all__ = ["BESIDE", "SourceOnlyLoader", "from_source", "importable_beside", "is_beside"]

BESIDE: dict[str, tuple[ModuleType, ...]] = {}
"""The modules each loaded game file imported from its own directory, by the game's module name."""


class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Loads a game's modules from their source only, never reading or writing a ``__pycache__`` file.

    The interpreter trusts a ``.pyc`` whose header matches the source's size and modification
    second: an edit of the same length saved within that second (a live reload's quick fix,
    a tool writing files) would run the old code. A game's few modules compile in
    milliseconds; a stale game never runs.
    """

    def get_code(self, fullname: str) -> Any:
        """The module's code, compiled from its source as it is now."""
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)


class _FromSource(importlib.abc.MetaPathFinder):
    """Finds what the path finder finds; the modules ``owns`` accepts come through ``SourceOnlyLoader``."""

    def __init__(self, owns: Callable[[str, Path], bool]) -> None:
        self.owns = owns

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if (spec is None or type(spec.loader) is not importlib.machinery.SourceFileLoader or spec.origin is None
                or not self.owns(fullname, Path(spec.origin))):
            return None  # not a game's source: the usual finders import it, as they would have
        return importlib.util.spec_from_file_location(
            fullname, spec.origin, loader=SourceOnlyLoader(fullname, spec.origin),
            submodule_search_locations=spec.submodule_search_locations)


@contextmanager
def from_source(owns: Callable[[str, Path], bool]) -> Iterator[None]:
    """While open, the modules that ``owns(name, file)`` accepts import from their source (``SourceOnlyLoader``)."""
    finder = _FromSource(owns)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)


def is_beside(module: ModuleType, directory: Path) -> bool:
    """Whether ``module`` was imported from ``directory`` (a module there, or a package there and its modules)."""
    file = getattr(module, "__file__", None)
    if not file or module.__name__.partition(".")[0] == "engine":
        return False
    return _lies_beside(Path(file).resolve(), directory)


def _lies_beside(path: Path, directory: Path) -> bool:
    """Whether the module file ``path`` is the game's own in ``directory``: not an installed library there."""
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
        with from_source(lambda name, file: name.partition(".")[0] != "engine"
                         and _lies_beside(file.resolve(), directory)):
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
