"""Saves, checked: save a running game, load it in a fresh world, and run both on with the same input.

A save must hold everything a world needs to continue exactly as the original would
(``engine.world.save``). Whatever a game keeps outside what a save holds (a plain
attribute its class does not list in ``saved``, a module-level variable, an instance's
look before looks were state) plays the same until a player saves and loads, then
diverges. Factorio's determinism tests save and load every tick for this reason;
``check_save_load(build, saves=N)`` does it at ``N`` points spread over the run: after
tick T it saves the world to a temporary file, loads that into a fresh world (as
``tickswap run --load`` does: the game's ``systems`` added again), and from then on ticks
the loaded world beside the straight run, the same input to both, comparing their
``snapshot()`` after the load and after every tick. The first difference is reported
with the entities and fields that differ, as ``tickswap check`` reports an order
dependence (``engine.state.differences``), and the tick of the save it came from.

A world the engine refuses to save (an esper component, a value no save can hold), or a
save that does not load (an ``on_load`` that fails), is reported too: a player would meet
it. ``tickswap check GAME`` runs this after its order (or rollback) check; ``--saves 0``
skips it. ``engine.testing.assert_same_after_load`` is the pytest form.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.errors import located
from engine.files.game import Game
from engine.state.differences import EntityDifference, compare_snapshots
from engine.tools.check import STATE_ADVICE, Inputs, check_report, with_players
from engine.tools.inputs import Setup, game_of, setup_of, whole_numbers
from engine.world import World
from engine.world.save import SaveError, load_world, save_world

__all__ = ["HINT", "SaveLoadResult", "check_save_load", "save_ticks"]

HINT = "state a save does not hold changed the loaded world: " + STATE_ADVICE
"""What the report tells a game to do when a loaded world differs from the straight run."""


@dataclass
class SaveLoadResult:
    """What ``check_save_load`` found. ``ok`` is true when every loaded world agreed with the straight run."""

    ticks: int
    """Ticks run (up to and including the first that differed)."""
    saved_at: tuple[int, ...] = ()
    """The ticks after which the world was saved and loaded (those reached)."""
    tick: int | None = None
    """The first tick after which a loaded world differed from the straight run (None if none did)."""
    loaded_from: int | None = None
    """The tick of the save the differing world was loaded from."""
    differences: list[EntityDifference] = field(default_factory=list)
    note: str = ""
    """What else differed, or why the check stopped (a save refused, a load that failed, a crash)."""
    players: int = 1
    crashed: bool = False
    """The game raised at a tick of the straight run: only the failure to report."""

    @property
    def ok(self) -> bool:
        """Whether every loaded world agreed with the straight run at every tick."""
        return self.tick is None and not self.note

    def describe(self) -> str:
        """The report: one line when all agree, else the tick, the save, one line per entity, and what to do."""
        if self.tick is not None and not self.differences and self.note:
            return f"not the same after a load: {self.note}"  # the loaded world failed: its error says what to do
        points = ", ".join(map(str, self.saved_at)) or "none (too few ticks)"
        moment = "right after the load" if self.tick == self.loaded_from else f"after tick {self.tick}"
        return check_report(self, f"same after a save and a load: saved at ticks {points}, loaded, and agreed with "
                            f"the straight run to tick {self.ticks}" + with_players(self.players),
                            f"not the same after a load: {moment}, the world loaded from the save of tick "
                            f"{self.loaded_from} differs from the straight run", self.note, HINT)


def save_ticks(ticks: int, saves: int) -> tuple[int, ...]:
    """The ticks after which ``check_save_load`` saves: ``saves`` points spread evenly over ``ticks``."""
    return tuple(sorted({max(1, ticks * point // (saves + 1)) for point in range(1, saves + 1)} - {ticks}))


def check_save_load(build: Callable[[World], Any] | Game, *, ticks: int = 300, saves: int = 3, seed: int = 0,
                    inputs: Inputs | str | Sequence[Inputs] = "random", systems: Callable[[World], Any] | None = None,
                    players: int | None = None) -> SaveLoadResult:
    """Run ``build``'s game; at ``saves`` ticks save it, load it in a fresh world, and compare both every tick on.

    ``build``, ``systems``, ``seed``, ``inputs`` and ``players`` are as for
    ``check_order_independence``. A ``Game`` (``load_game``) is saved and loaded as
    ``tickswap run --save-at`` and ``--load`` do; a plain ``build`` function's classes are
    found among the classes this process has. Returns a ``SaveLoadResult``; nothing is
    raised for a difference.
    """
    whole_numbers(ticks=ticks, saves=saves)
    setup = setup_of(build, systems, players, inputs, seed)
    game = game_of(build, systems)
    points = save_ticks(ticks, saves)
    saved: list[int] = []
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="tickswap-check-") as folder:
        straight = setup.start(stack.enter_context(World(seed=seed, players=setup.players)))
        loaded: list[tuple[int, World]] = []
        for tick in range(1, ticks + 1):
            events = setup.events_at(tick)
            for world in [straight, *(world for _, world in loaded)]:
                setup.feed(world, events)
                try:
                    world.tick()
                except Exception as error:
                    if world is straight:
                        return SaveLoadResult(tick, tuple(saved), note=f"the game failed at tick {tick}: "
                                              f"{located(error)}", players=setup.players, crashed=True)
                    origin = next(at for at, other in loaded if other is world)
                    return SaveLoadResult(tick, tuple(saved), tick, origin, players=setup.players,
                                          note=f"the world loaded from the save of tick {origin} failed at tick "
                                               f"{tick}: {located(error)}")
            reference = straight.snapshot()
            for origin, world in loaded:
                found = _compared(reference, world, tick, origin, tuple(saved), setup.players)
                if found is not None:
                    return found
            if tick in points:
                try:
                    world = _saved_and_loaded(straight, game, setup, os.path.join(folder, f"tick{tick}.save"))
                except _Refused as refused:
                    return SaveLoadResult(tick, tuple(saved), note=f"tick {tick}: {refused}", players=setup.players)
                stack.enter_context(world)
                saved.append(tick)
                loaded.append((tick, world))
                found = _compared(reference, world, tick, tick, tuple(saved), setup.players)
                if found is not None:
                    return found
    return SaveLoadResult(ticks, tuple(saved), players=setup.players)


class _Refused(Exception):
    """The world could not be saved, or its save not loaded: the message says which, in one line."""


def _saved_and_loaded(world: World, game: Game | None, setup: Setup, path: str) -> World:
    meta = {} if game is None else {"game": game.name, "game_digest": game.digest}
    try:
        save_world(world, path, meta=meta)
    except SaveError as error:
        raise _Refused(f"the world cannot be saved: {error}") from None
    try:
        loaded = load_world(path, game, world_class=World)
    except SaveError as error:
        raise _Refused(f"its save does not load: {error}") from None
    try:
        if game is not None:
            game.add_systems(loaded)
        elif setup.systems is not None:
            setup.systems(loaded)
    except Exception as error:
        loaded.close()
        raise _Refused(f"systems(world) failed on the loaded world: {located(error)}") from None
    return loaded


def _compared(reference: dict[str, Any], world: World, tick: int, origin: int, saved: tuple[int, ...],
              players: int) -> SaveLoadResult | None:
    other = world.snapshot()
    if other == reference:
        return None
    differences = compare_snapshots(reference, other, ("straight run", "loaded"))
    if not differences and other["tick"] == reference["tick"]:
        return None  # equal as the state hash sees them (NaN is NaN)
    note = "" if differences else f"the tick counts differ: {reference['tick']} vs {other['tick']}"
    return SaveLoadResult(tick, saved, tick, origin, differences, note, players=players)
