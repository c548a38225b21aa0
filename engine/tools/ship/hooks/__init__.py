"""PyInstaller's hooks for tickswap: how a frozen program gets the whole engine (``hook-engine.py``).

PyInstaller finds this directory through the ``pyinstaller40`` entry point (``get_hook_dirs``),
so a game frozen by hand (``pyinstaller mygame.py``) gets the engine's modules too, not only
``tickswap package``'s bundles.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["get_hook_dirs"]


def get_hook_dirs() -> list[str]:
    """The directories of tickswap's PyInstaller hooks (PyInstaller's ``pyinstaller40`` ``hook-dirs`` entry point)."""
    return [str(Path(__file__).resolve().parent)]
