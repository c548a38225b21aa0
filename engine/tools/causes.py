"""Why a world differed: the second looks ``tickswap check`` takes once two update orders disagree.

Each runs the game again in a fresh world, in spawn order: whether the same order repeats
(if not, the cause is state outside the world), and which entities draw from
``world.random`` in their ``update()`` (its draws follow the update order).
"""

from __future__ import annotations

import random
from typing import Any

from engine.tools.differences import compare_snapshots
from engine.tools.inputs import Setup
from engine.world import World, updating_entity

__all__ = ["random_drawers", "repeats"]


def repeats(setup: Setup, seed: int, ticks: int, reference: dict[str, Any]) -> bool:
    """Whether a fresh world, in spawn order, comes to ``reference``'s snapshot after ``ticks`` ticks again."""
    try:
        with World(seed=seed, players=setup.players) as world:
            setup.build(world)
            if setup.systems is not None:
                setup.systems(world)
            for tick in range(1, ticks + 1):
                setup.feed(world, setup.events_at(tick))
                world.tick()
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
    try:
        with World(seed=seed, players=setup.players) as world:
            setup.build(world)
            if setup.systems is not None:
                setup.systems(world)
            for at in range(1, tick + 1):
                if at == tick:
                    world.random = watched = Watched(world)
                setup.feed(world, setup.events_at(at))
                world.tick()
            return tuple(name for _, name in sorted(watched.drawers.items()))
    except Exception:  # the tick failing now: no cause named, the report stands without it
        return ()
