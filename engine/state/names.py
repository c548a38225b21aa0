"""Names that every other module may need and that need nothing: the version, and game modules' names.

A leaf of the import graph: it imports nothing from the engine, so saves, replays and
snapshots can name the engine's version and a game's classes without importing the
package root or the module that loads games.
"""

from __future__ import annotations

__all__ = ["GAME_MODULE", "GAME_MODULE_PREFIX", "__version__", "public_module_name"]

__version__ = "0.1.0"
"""This tickswap's version: saves and replays record it, and refuse another's."""
GAME_MODULE = "game"
"""How a game file's module is named in snapshots, hashes and saves, whatever the file is called."""
GAME_MODULE_PREFIX = "tickswap_game_"
"""The start of the module name a game file is imported under (``tickswap_game_<stem>_<digest>``)."""


def public_module_name(module: str) -> str:
    """The module name that snapshots and saves record: ``game`` (``game.sub``) for a game file's modules.

    A game file's import name carries its content digest; recording that would make a
    renamed or re-commented file a different game. Other modules keep their own names.
    """
    head, dot, rest = module.partition(".")
    return GAME_MODULE + dot + rest if head.startswith(GAME_MODULE_PREFIX) else module
