"""Sample games, registered by name for ``tickswap list`` and ``tickswap run NAME``.

Each game is a package whose ``logic`` module runs headless (entities only) and
exposes ``build(world)``, which spawns the starting scene, ``DESCRIPTION``, and
optionally ``WIDTH``/``HEIGHT`` (pixels) and ``MS_PER_UPDATE``. Its ``view`` module, imported
only to draw, declares ``LOOKS`` (entity class -> ``Look``) and ``BACKGROUND``, or a
``make_view(world)`` of its own.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["GAMES", "load", "load_view"]

GAMES: dict[str, str] = {
    "bouncy": "games.bouncy.logic",
    "framebuffer": "games.framebuffer.logic",
    "patrol": "games.patrol.logic",
    "slapstick": "games.slapstick.logic",
}
"""Game name -> module holding its headless logic."""


def load_view(name: str) -> ModuleType:
    """Import a game's view module (this imports pyglet: only for drawing)."""
    load(name)
    return importlib.import_module(GAMES[name].rsplit(".", 1)[0] + ".view")


def load(name: str) -> ModuleType:
    """Import a game's logic module by name; an unknown name raises ``KeyError`` listing the known ones."""
    if name not in GAMES:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")
    return importlib.import_module(GAMES[name])
