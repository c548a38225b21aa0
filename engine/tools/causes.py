"""Why a world differed: the second looks ``tickswap check`` takes once two update orders disagree.

Each runs the game again in a fresh world, in spawn order: whether the same order repeats
(if not, the cause is state outside the world), and which entities draw from
``world.random`` in their ``update()`` (its draws follow the update order).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from engine.state.differences import compare_snapshots
from engine.tools.inputs import Setup
from engine.world import World, updating_entity

__all__ = ["random_drawers", "repeats"]


@contextmanager
def _replayed(setup: Setup, seed: int, ticks: int,
              before_last: Callable[[World], None] | None = None) -> Iterator[World]:
    """A fresh world in spawn order after ``ticks`` ticks of the setup's input; ``before_last`` runs before the last."""
    with World(seed=seed, players=setup.players) as world:
        setup.start(world)
        for tick in range(1, ticks + 1):
            if tick == ticks and before_last is not None:
                before_last(world)
            setup.feed(world, setup.events_at(tick))
            world.tick()
        yield world


def repeats(setup: Setup, seed: int, ticks: int, reference: dict[str, Any]) -> bool:
    """Whether a fresh world, in spawn order, comes to ``reference``'s snapshot after ``ticks`` ticks again."""
    try:
        with _replayed(setup, seed, ticks) as world:
            return not compare_snapshots(reference, world.snapshot())
    except Exception:  # failing now where it did not fail before: it does not repeat either
        return False


class Watched(random.Random):
    """``world.random`` with the same draws, noting which entities draw from it in their ``update()``.

    Both ``random`` and ``getrandbits`` are overridden: with ``random`` alone, ``randrange``
    and ``choice`` would switch to another algorithm and draw other numbers.
    """

    def __init__(self, world: World) -> None:
        super().__init__()
        self.setstate(world.random.getstate())
        self.world = world
        self.drawers: dict[int, str] = {}

    def _note(self) -> None:
        entity = updating_entity(self.world)
        if entity is not None:
            entity_id = getattr(entity, "id", None)
            self.drawers.setdefault(entity_id if isinstance(entity_id, int) else -1,
                                    f"{type(entity).__name__} (id {entity_id})")

    def random(self) -> float:
        self._note()
        return super().random()

    def getrandbits(self, k: int) -> int:
        self._note()
        return super().getrandbits(k)


def random_drawers(setup: Setup, seed: int, tick: int) -> tuple[str, ...]:
    """The entities that draw from ``world.random`` in their ``update()`` at ``tick``, in spawn order.

    In a fresh world run to ``tick`` in spawn order: its draws are those the report's tick made.
    """
    watched: list[Watched] = []

    def watch(world: World) -> None:
        world.random = Watched(world)
        watched.append(world.random)

    try:
        with _replayed(setup, seed, tick, watch):
            return tuple(name for _, name in sorted(watched[0].drawers.items()))
    except Exception:  # the tick failing now: no cause named, the report stands without it
        return ()
