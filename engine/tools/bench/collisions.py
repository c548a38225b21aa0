"""The collisions family: every entity asks what it overlaps, ``world.overlapping`` against a loop."""

from __future__ import annotations

from typing import Any

from engine.entity import Entity
from engine.tools.bench.base import Rows, measure
from engine.world import World

__all__ = ["bench_collisions"]


def bench_collisions(count: int = 10_000, rounds: int = 5,
                     brute_askers: int = 500) -> Rows:
    """Every entity asks what it overlaps, once per tick: ``world.overlapping`` vs the O(n*m) loop.

    The loop over ``entities_of`` at 10,000 entities takes seconds per tick, so it is
    timed for ``brute_askers`` entities and scaled to all of them (it is linear in askers).
    """
    from engine.look import Look

    side = (count ** 0.5) * 24.0  # about one neighbour within reach of each box

    class Box(Entity):
        look = Look("square", 10)

        def __init__(self, x: float, y: float, asks: bool) -> None:
            super().__init__(x=x, y=y)
            self.asks = asks
            self.touching = 0

    class Indexed(Box):
        def update(self, world: Any) -> None:
            if self.asks:
                self.touching = len(world.overlapping(self))

    class Brute(Box):
        def update(self, world: Any) -> None:
            if self.asks:
                x, y, touching = self.x, self.y, 0
                for other in world.entities_of(Box):
                    if other is not self and abs(other.x - x) < 10 and abs(other.y - y) < 10:
                        touching += 1
                self.touching = touching

    import random

    placer = random.Random(1)
    spots = [(placer.uniform(0, side), placer.uniform(0, side)) for _ in range(count)]
    askers = min(brute_askers, count)
    indexed, brute = World(), World()
    for i, (x, y) in enumerate(spots):
        indexed.spawn(Indexed(x, y, True))
        brute.spawn(Brute(x, y, i < askers))
    times = measure({"indexed": indexed.tick, "brute": brute.tick}, rounds)
    touching = [getattr(e, "touching", None) for e in indexed.entities[:askers]]
    assert touching == [getattr(e, "touching", None) for e in brute.entities[:askers]], "both find the same"
    indexed.close()
    brute.close()
    brute_ms = times["brute"] * 1e3 * count / askers
    scaled = "" if askers == count else f" (timed for {askers}, scaled)"
    return [
        (f"O(n*m) loop over entities_of, {count} ask{scaled}", brute_ms, 1.0, ""),
        (f"world.overlapping, one grid per tick, {count} ask", times["indexed"] * 1e3,
         brute_ms / (times["indexed"] * 1e3), "the grid's build included"),
    ]
