"""Rollback determinism, checked: every tick, roll back N ticks and re-simulate them with the same input.

Rollback netcode predicts a remote player's input, and when the real input arrives it
returns to a checkpoint (``World.checkpoint``) and runs the ticks since again. That is
only sound if running a tick again from a checkpoint gives the same state: the game's
state must all be in what a checkpoint keeps (buffered fields, signals, ``saved``
attributes, the entities' and the world's ``random``). ``check_rollback(build,
distance=N)`` tests exactly that, with no network: it runs the game tick by tick with
seeded input, and after every tick T rolls back to the checkpoint of tick T - N and
runs ticks T - N + 1 .. T again with the same input, comparing each re-simulated tick's
``snapshot()`` with the one the first run gave. The first tick that differs is reported
with the entities and fields that differ (``compare_snapshots``, as ``tickswap check``
reports update orders). The run goes on from the re-simulated state, as a session would.

What it catches is what a checkpoint cannot keep and a re-run changes: a module-level
counter, a plain attribute not listed in ``saved``, the time. It does not catch what is
the same for every run in one process, since the run and its re-simulation share one:
``hash()`` of a ``str``, the order of a set of strings, ``id()`` of a long-lived object.
``engine.tools.seeds`` catches those, in fresh processes with other ``PYTHONHASHSEED``s;
``tickswap check GAME --rollback N`` runs both from the command line; ``engine.testing``
offers them as ``assert_rollback_deterministic`` and ``assert_same_in_every_process``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.errors import located
from engine.files.game import Game
from engine.state.differences import EntityDifference, compare_snapshots
from engine.tools.check import STATE_HINT, Inputs, check_report, with_players
from engine.tools.inputs import Setup, setup_of, whole_numbers
from engine.world import World
from engine.world.checkpoints import Checkpoint

__all__ = ["HINT", "RollbackResult", "check_rollback"]

HINT = STATE_HINT
"""What the report tells a game to do when a re-simulated tick differs."""


@dataclass
class RollbackResult:
    """What ``check_rollback`` found. ``ok`` is true when every re-simulated tick was the same."""

    ticks: int
    """Ticks run (up to and including the one whose re-simulation differed first)."""
    distance: int
    tick: int | None = None
    """The first re-simulated tick whose state differed from the first run's (None if none did)."""
    rolled_back_at: int | None = None
    """The tick after which the check rolled back when it found the difference."""
    differences: list[EntityDifference] = field(default_factory=list)
    note: str = ""
    """What else differed, or why the check stopped (a crash)."""
    players: int = 1
    """How many players the world had, each with input of its own."""
    crashed: bool = False
    """The game raised at that tick (the first run's, before any rollback): only the failure to report."""

    @property
    def ok(self) -> bool:
        """Whether every re-simulated tick agreed with the first run."""
        return self.tick is None and not self.note

    def describe(self) -> str:
        """The report: one line when all agree, else the tick, one line per entity, and what to do."""
        return check_report(self, f"rollback deterministic: rolling back {self.distance} ticks and re-simulating "
                            f"them agreed for {self.ticks} ticks" + with_players(self.players),
                            f"not rollback deterministic: tick {self.tick}, re-simulated after rolling back "
                            f"{self.distance} ticks at tick {self.rolled_back_at}, differs from its first run",
                            self.note, HINT)


def check_rollback(build: Callable[[World], Any] | Game, *, ticks: int = 300, distance: int = 8, seed: int = 0,
                   inputs: Inputs | str | Sequence[Inputs] = "random", systems: Callable[[World], Any] | None = None,
                   players: int | None = None) -> RollbackResult:
    """Run ``build``'s game; after every tick roll back ``distance`` ticks and re-simulate them; compare.

    ``build``, ``systems``, ``seed``, ``inputs`` and ``players`` are as for
    ``check_order_independence``: every player gets its input, the same in the first run
    and the re-simulation.
    Returns a ``RollbackResult``; nothing is raised for a difference. A game whose tick
    fails stops the check, with the failure in ``note``.
    """
    whole_numbers(ticks=ticks, distance=distance)
    if distance > ticks:
        raise ValueError(f"distance {distance} is more than ticks {ticks}: no tick would be rolled back that far "
                         "and re-simulated; run at least as many ticks as the distance")
    setup = setup_of(build, systems, players, inputs, seed)
    with contextlib.ExitStack() as stack:
        world = setup.start(stack.enter_context(World(seed=seed, players=setup.players)))
        checkpoints: dict[int, Checkpoint] = {0: world.checkpoint()}
        firsts: dict[int, tuple[str, dict[str, Any], Any]] = {}
        for tick in range(1, ticks + 1):
            failed = _run(world, setup, tick)
            if failed:
                return RollbackResult(tick, distance, note=f"the game failed at tick {tick}: {failed}", crashed=True)
            firsts[tick] = _state(world)
            start = tick - distance
            if start >= 0:
                world.rollback(checkpoints[start])
                for again in range(start + 1, tick + 1):
                    failed = _run(world, setup, again)
                    if failed:
                        return RollbackResult(tick, distance, again, tick,
                                              note=f"re-simulated, tick {again} failed: {failed}")
                    found = _compared(firsts[again], _state(world), tick, distance, again)
                    if found is not None:
                        found.players = setup.players
                        return found
                del checkpoints[start], firsts[start + 1]
            checkpoints[tick] = world.checkpoint()
    return RollbackResult(ticks, distance, players=setup.players)


def _run(world: World, setup: Setup, tick: int) -> str:
    setup.feed(world, setup.events_at(tick))
    try:
        world.tick()
    except Exception as error:
        return located(error)
    return ""


def _state(world: World) -> tuple[str, dict[str, Any], Any]:
    snapshot = world.snapshot()
    return json.dumps(snapshot, sort_keys=True, separators=(",", ":")), snapshot, world.random.getstate()


def _compared(first: tuple[str, dict[str, Any], Any], again: tuple[str, dict[str, Any], Any], tick: int,
              distance: int, resimulated: int) -> RollbackResult | None:
    if first[0] == again[0] and first[2] == again[2]:
        return None
    differences = compare_snapshots(first[1], again[1], ("first run", "re-simulated"))
    note = "" if first[2] == again[2] else "world.random was drawn a different number of times"
    if not differences and not note:
        note = "the snapshots differ outside the entities (the tick count)"
    return RollbackResult(tick, distance, resimulated, tick, differences, note)
