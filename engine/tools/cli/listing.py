"""``tickswap list``: the registered games, one a line."""

from __future__ import annotations

from engine.files.game import GameError
from engine.files.importer import load_game, sample_games

__all__ = ["list_command"]


def list_command() -> int:
    """``tickswap list``: every registered game, one a line, with its description."""
    for name in sorted(sample_games()):
        try:
            description = load_game(name).description
        except GameError as error:
            description = f"(cannot be loaded: {error})"
        print(f"{name:<12} {description}")
    return 0
