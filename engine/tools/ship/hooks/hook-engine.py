"""PyInstaller's hook for the ``engine`` package: the modules it imports by name, found on disk without importing them.

PyInstaller follows ``import`` statements; the engine imports a few modules by name
(``importlib.import_module``): the compiled cores (``engine.buffering._core``,
``engine._spatial``, frozen where they were built, and where not the program takes the
pure-Python path, bit for bit the same) and the names ``engine`` loads lazily
(``engine.crowd``, ``engine.tiles``...). So every module of the engine is named here,
read from the directory, never imported: importing ``engine.render`` would open pyglet's
shadow window. ``engine.testing`` (pytest's plugin) and the shipping side of
``engine.tools.ship`` stay out; pyglet's own lazy back-ends need nothing: pyglet names
them in imports PyInstaller reads.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path

_spec = importlib.util.find_spec("engine")
_root = Path(_spec.origin).parent if _spec is not None and _spec.origin else None
_left_out = ("engine.testing", "engine.tools.ship.build", "engine.tools.ship.hooks")


def _modules(root: Path) -> list[str]:
    found = []
    suffixes = tuple(importlib.machinery.SOURCE_SUFFIXES + importlib.machinery.EXTENSION_SUFFIXES)
    for path in sorted(root.rglob("*")):
        if "__pycache__" in path.parts or not path.name.endswith(suffixes):
            continue
        stem = path.name
        for suffix in sorted(suffixes, key=len, reverse=True):
            if stem.endswith(suffix):
                stem = stem[: -len(suffix)]
                break
        if not stem.isidentifier():  # hook-engine.py itself, or a core built for another Python
            continue
        parts = ["engine", *path.relative_to(root).parent.parts, *([] if stem == "__init__" else [stem])]
        name = ".".join(parts)
        if not name.startswith(_left_out):
            found.append(name)
    return found


hiddenimports = _modules(_root) if _root is not None else []
excludedimports = ["pytest", "_pytest", "hypothesis"]
