"""Testing your own game with pytest: the fixtures, order independence as an assertion, and the game itself.

tickswap ships the pytest fixtures ``world`` (a fresh ``World``, closed after the test)
and ``clock`` (a ``VirtualClock`` at 0 ms) in ``engine.testing.fixtures``, for a project
that opts in (``tickswap_fixtures = true`` in its pytest settings, or ``pytest_plugins =
["engine.testing.fixtures"]`` in its top ``conftest.py``: see ``engine.testing.plugin``).
This package holds the rest, as ``trio.testing`` does for trio::

    from engine import World
    from engine.testing import assert_order_independent, load_game

    def test_my_game_does_not_depend_on_update_order():
        game = load_game("mygame.py")
        assert_order_independent(game.build, systems=game.add_systems, ticks=200)

    def test_my_game_after_a_second():
        game = load_game("mygame.py")
        with World(seed=0) as world:
            game.setup(world)
            for _ in range(64):
                world.tick()
            assert world.state_hash().startswith(...)  # what `tickswap run mygame.py --ticks 64` prints

``assert_order_independent`` runs the game in spawn order and in several reshuffled
update orders (and systems of one priority in permuted orders) with the same (seeded
random) input, and fails at the first tick where they differ, naming the tick, the
entities (class and id) and the fields, with both values. ``load_game`` loads a game
exactly as ``tickswap run`` does, so a test sees the same game, hashes and saves.
``Studio`` is the window's pause, rewind, reload and inspector with no window: a test
rewinds a game, edits its code and re-runs the same input (``engine.studio``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.files.game import Game
    from engine.studio import Inspection, ReloadResult, Studio
    from engine.tools.check import (
        CheckResult,
        EntityDifference,
        Inputs,
        check_order_independence,
        random_input,
    )
    from engine.tools.rollback import RollbackResult, check_rollback
    from engine.tools.saveload import SaveLoadResult, check_save_load
    from engine.tools.seeds import SeedResult, check_hash_seeds
    from engine.world import World

# Imported when first named: the pytest plugin's entry point (``engine.testing.plugin``)
# is imported by every pytest run of an environment with tickswap installed, and a
# project that never uses tickswap should not pay for loading its world, files and checks.
_LAZY = {"CheckResult": "engine.tools.check", "EntityDifference": "engine.tools.check", "Inputs": "engine.tools.check",
         "check_order_independence": "engine.tools.check", "random_input": "engine.tools.check",
         "RollbackResult": "engine.tools.rollback", "check_rollback": "engine.tools.rollback",
          "SaveLoadResult": "engine.tools.saveload", "check_save_load": "engine.tools.saveload",
         "SeedResult": "engine.tools.seeds", "check_hash_seeds": "engine.tools.seeds",
         "Studio": "engine.studio", "Inspection": "engine.studio", "ReloadResult": "engine.studio"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'engine.testing' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = ["CheckResult", "EntityDifference", "Inputs", "Inspection", "ReloadResult", "RollbackResult",
           "SaveLoadResult", "SeedResult", "Studio",
           "assert_order_independent", "assert_rollback_deterministic", "assert_same_after_load",
           "assert_same_in_every_process", "check_hash_seeds", "check_order_independence", "check_rollback",
           "check_save_load", "load_game", "load_save", "random_input", "save_game"]


def load_game(name_or_path: str | os.PathLike[str]) -> Game:
    """The game ``tickswap run NAME_OR_PATH`` would run: a registered game by name, or a game file or package.

    Loaded by the command line's own loader, under the same stable module name, so a
    test's worlds have the classes, snapshots, state hashes and saves of the command
    line's. Set a world up with ``game.setup(world)`` (``build``, then ``systems``), as
    ``tickswap run`` does. A game that can't be loaded raises ``GameError``, one line.
    """
    from engine.files.importer import load_game as command_line_load

    return command_line_load(name_or_path)


def save_game(world: World, game: Game, path: str) -> None:
    """Save ``world``, a world of ``game``, as ``tickswap run --save-at`` does: ``--load PATH`` loads it.

    The save names its game (``world.save`` alone does not, so the command line would not
    know which game it belongs to).
    """
    from engine.world.save import save_world

    save_world(world, path, meta={"game": game.name, "game_digest": game.digest}, root=game.root)


def load_save(game: Game, path: str) -> World:
    """The world of the save at ``path`` (one of ``save_game`` or ``tickswap run --save-at``), as
    ``tickswap run GAME --load PATH`` loads it: checked against ``game``, with its ``systems`` added.

    As there, the game's ``build`` runs first, into a world thrown away: a save names the
    game's tile maps by content, and ``build`` is what reads them in this process."""
    from engine.world import World
    from engine.world.save import load_world

    with World() as built:
        game.build(built)
    world = load_world(path, game, world_class=World)
    try:
        game.add_systems(world)
    except BaseException:
        world.close()
        raise
    return world


def assert_rollback_deterministic(build: Callable[[World], Any] | Game, *, ticks: int = 300, distance: int = 8,
                                  seed: int = 0, inputs: Inputs | str | Sequence[Inputs] = "random",
                                  systems: Callable[[World], Any] | None = None,
                                  players: int | None = None) -> RollbackResult:
    """Fail (``AssertionError``) unless rolling back ``distance`` ticks and re-simulating them changes nothing.

    What rollback netcode relies on (``check_rollback``): after every tick the game returns
    to the checkpoint ``distance`` ticks back and runs those ticks again with the same
    input. The message names the first re-simulated tick that differs, the entities and
    their fields, and what to do. Returns the result when it passes. ``players`` and
    ``inputs`` are as for ``assert_order_independent``.
    """
    from engine.tools.rollback import check_rollback

    result = check_rollback(build, ticks=ticks, distance=distance, seed=seed, inputs=inputs, systems=systems,
                            players=players)
    if not result.ok:
        raise AssertionError(result.describe())
    return result


def assert_same_after_load(build: Callable[[World], Any] | Game, *, ticks: int = 300, saves: int = 3, seed: int = 0,
                           inputs: Inputs | str | Sequence[Inputs] = "random",
                           systems: Callable[[World], Any] | None = None,
                           players: int | None = None) -> SaveLoadResult:
    """Fail (``AssertionError``) unless a save and a load, at any of ``saves`` ticks, change nothing.

    What ``tickswap check``'s save/load pass runs (``check_save_load``): the game is saved at
    ``saves`` ticks spread over the run, each save loaded in a fresh world that then runs
    beside the straight run with the same input. The message names the first tick that
    differs, the save it was loaded from, the entities and their fields, and what to do.
    Returns the result when it passes. ``players`` and ``inputs`` are as for
    ``assert_order_independent``.
    """
    from engine.tools.saveload import check_save_load

    result = check_save_load(build, ticks=ticks, saves=saves, seed=seed, inputs=inputs, systems=systems,
                             players=players)
    if not result.ok:
        raise AssertionError(result.describe())
    return result


def assert_same_in_every_process(game: Game | str | os.PathLike[str], *, ticks: int = 300, seed: int = 0,
                                 players: int | None = None, input_path: str | None = None, no_input: bool = False,
                                 processes: int = 3) -> SeedResult:
    """Fail (``AssertionError``) unless the game gives the same state hash every tick in fresh processes.

    What the other checks cannot see, since their worlds share one process: ``hash()`` of a
    ``str``, set order and ``id()`` differ from process to process (``check_hash_seeds``).
    The game runs in ``processes`` interpreters, ``PYTHONHASHSEED`` 1 to ``processes``, with
    ``tickswap check``'s input (seeded random, ``input_path``'s script, or none). ``game`` is
    a ``Game`` or what ``load_game`` takes: another process loads it again, so a plain
    ``build`` function can't be checked this way. The message names the first tick that
    differs, the entities and fields, and what to do.
    """
    from engine.files.game import Game
    from engine.tools.seeds import check_hash_seeds

    loaded = game if isinstance(game, Game) else load_game(game)
    result = check_hash_seeds(loaded, ticks=ticks, seed=seed, players=players, input_path=input_path,
                              no_input=no_input, processes=processes)
    if not result.ok:
        raise AssertionError(result.describe())
    return result


def assert_order_independent(build: Callable[[World], Any] | Game, *, ticks: int = 300, orders: int = 4,
                             seed: int = 0, inputs: Inputs | str | Sequence[Inputs] = "random",
                             systems: Callable[[World], Any] | None = None,
                             players: int | None = None) -> CheckResult:
    """Fail (``AssertionError``) unless ``build``'s game comes out the same in every update order.

    The arguments are ``check_order_independence``'s: ``ticks`` to run, ``orders``
    reshuffled orders besides spawn order, ``seed`` for the worlds and the input, and
    ``inputs`` (``"random"``, ``None``, or scripted per tick); pass your game's
    ``systems`` too if it has them. Every world has ``players`` players, each fed its own
    input (random: a seeded stream each; scripted: a list of one ``Inputs`` per player;
    one alone is player 0's). ``build`` may be a ``Game`` from ``load_game`` (set up as
    ``tickswap check`` does, pressing its ``KEYS``); a game's setup (the ``Game``, its
    ``setup`` or ``add_systems``) gets the fewest players its ``PLAYERS`` takes unless told,
    and a count it does not take is a ``ValueError``; any other setup gets one player. The
    message names the first tick that differs, the entities and their fields. Returns the
    result when it passes.
    """
    from engine.tools.check import check_order_independence

    result = check_order_independence(build, ticks=ticks, orders=orders, seed=seed, inputs=inputs, systems=systems,
                                      players=players)
    if not result.ok:
        raise AssertionError(result.describe())
    return result
