"""The engine's optional compiled extensions: loaded where they were built, else their pure-Python twins.

Two mechanisms have a C twin that gives the same results faster: the Double Buffer's core
(``engine.buffering._core``) and the collision grids (``engine._spatial``). Either may be
missing (no C compiler where the engine was installed), and ``TICKSWAP_PURE=1`` asks for
the pure-Python path everywhere (to compare the two, or to debug in Python). ``load`` is the
one place that decides which, so the two cannot disagree about what the variable means.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

__all__ = ["load", "pure_asked"]


def pure_asked() -> bool:
    """Whether ``TICKSWAP_PURE`` asks for the pure-Python path (set, and neither empty nor ``0``)."""
    return os.environ.get("TICKSWAP_PURE", "") not in ("", "0")


def load(import_extension: Callable[[], Any]) -> Any:
    """The extension ``import_extension`` imports, or ``None`` where it was not built or ``TICKSWAP_PURE`` is set.

    The caller passes the import itself (``lambda: importlib.import_module("engine._spatial")``)
    rather than the module's name, so the import graph test reads which extension each module loads.
    """
    if pure_asked():
        return None
    try:
        return import_extension()
    except ImportError:
        return None
