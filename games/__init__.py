"""Sample games, registered by name for ``tickswap list`` and ``tickswap run NAME``.

Each game is a package whose ``logic`` module runs headless (entities only) and
exposes ``build(world)``, which spawns the starting scene, plus ``DESCRIPTION``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["GAMES", "load"]

GAMES: dict[str, str] = {
    "patrol": "games.patrol.logic",
}
"""Game name -> module holding its headless logic."""


def load(name: str) -> ModuleType:
    """Import a game's logic module by name; an unknown name raises ``KeyError`` listing the known ones."""
    if name not in GAMES:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")
    return importlib.import_module(GAMES[name])
