"""The world a command runs: a fresh one from the game's ``build`` and ``systems``, or a save's."""

from __future__ import annotations

from engine.errors import where
from engine.files.game import Game, GameError
from engine.interrupts import Interrupted
from engine.tiles.model import MapError
from engine.tools.errors import GameCrashed, UsageError, exception_summary, failed_function, say, shown_name
from engine.world import World, system_count
from engine.world.save import load_world

__all__ = ["add_systems", "build_world", "check_players", "load_saved_world"]


def check_players(game: Game, players: int | None) -> int:
    """How many players a run of ``game`` has: ``players`` if the game takes that many, else ``UsageError``.

    ``None`` is the fewest the game takes (``game.players.start``): a game for one or two
    run alone is a one-player game, as a local run is.
    """
    taken = game.players
    if players is None:
        return taken.start
    if players not in taken:
        raise UsageError(f"--players {players}: {game.name} is played by {game.played_by()} (its PLAYERS)")
    return players


def build_world(game: Game, seed: int, saves: str | None = None, players: int | None = None) -> World:
    """A fresh world of ``players`` players (``None``: the game's fewest): ``build(world)``, then ``systems(world)``.

    A player count the game does not take is refused (``UsageError``). With ``saves`` (the
    option that saves or loads), a ``build`` that adds systems is
    refused: a save can't hold systems, so they would be silently lost on ``--load``.
    """
    world = World(seed=seed, players=check_players(game, players))
    world.view_size = game.view_size
    try:
        game.build(world)
        added = system_count(world)
        game.add_systems(world)
    except (GameError, MapError) as error:  # the game's mistake (or its map's), found before the run
        world.close()
        raise UsageError(str(error)) from None
    except Interrupted:
        world.close()
        raise
    except BaseException as error:  # whatever the game raises, KeyboardInterrupt and GeneratorExit included
        world.close()
        raise GameCrashed(f"{game.name}: {failed_function(error)} failed: {exception_summary(error)} "
                          f"(at {where(error)})") from None
    if saves and added:
        world.close()
        raise UsageError(f"{saves}: {game.name}'s build(world) adds {added} system{'s' if added != 1 else ''}, "
                         "which a save can't hold (systems are code): add them in systems(world) instead")
    return world


def load_saved_world(game: Game, path: str, players: int | None = None, seed: int = 0) -> World:
    """The world of the save at ``path`` (``--load``), with the game's ``systems(world)`` added again.

    ``players``, when given (``--players``), must be the save's own: a loaded world keeps its players.
    """
    build_world(game, seed, "--load").close()  # refuses a build() whose systems the save would lose
    notes: list[str] = []
    world = load_world(path, game, notes, world_class=World)
    for note in notes:
        say(note)
    if world.players not in game.players:
        world.close()
        raise UsageError(f"{shown_name(path)}: a save of {world.players} player{'s' if world.players != 1 else ''}"
                         f"; {game.name} is played by {game.played_by()} (its PLAYERS)")
    if players is not None and players != world.players:
        world.close()
        raise UsageError(f"--players {players}: {shown_name(path)} is a save of {world.players} "
                         f"player{'s' if world.players != 1 else ''}, and a loaded world keeps its players "
                         f"(give --players {world.players}, or none)")
    return add_systems(game, world)


def add_systems(game: Game, world: World) -> World:
    """``world`` (loaded from a save) with the game's ``systems(world)`` added again; a failure is the game's crash."""
    return game.add_systems_again(world, lambda error: GameCrashed(
        f"{game.name}: systems(world) failed: {exception_summary(error)} (at {where(error)})"))
