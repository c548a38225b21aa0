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
    "swarm": "games.swarm.logic",
}
"""Game name -> module holding its headless logic."""


def is_game_file(name: str) -> bool:
    """Whether ``name`` names a game in a ``.py`` file of the user's rather than a sample game."""
    return name.endswith(".py")


def load_view(name: str) -> ModuleType:
    """Import a game's view module (this imports pyglet: only for drawing).

    A game in a single file is its own view: ``LOOKS`` and ``BACKGROUND`` sit beside
    ``build`` (or entities carry a ``look``).
    """
    game = load(name)
    if is_game_file(name):
        return game
    return importlib.import_module(GAMES[name].rsplit(".", 1)[0] + ".view")


def load(name: str) -> ModuleType:
    """Import a game's logic by sample-game name or by the path of a ``.py`` file.

    An unknown name raises ``KeyError`` listing the known ones; a file that is missing
    or has no ``build(world)`` raises ``ValueError`` naming it.
    """
    if is_game_file(name):
        return _load_file(name)
    if name not in GAMES:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))} (or a path to a .py file)")
    return importlib.import_module(GAMES[name])


def _load_file(path: str) -> ModuleType:
    import importlib.util
    import sys
    from pathlib import Path

    file = Path(path).resolve()
    if not file.is_file():
        raise ValueError(f"no game file at {path}")
    module_name = f"tickswap_user_game_{abs(hash(str(file)))}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look modules up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    if not callable(getattr(module, "build", None)):
        del sys.modules[module_name]
        raise ValueError(f"{path} has no build(world) function to set up the game")
    return module
