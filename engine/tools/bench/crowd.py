"""The crowd family: one tick of a vectorized ``Crowd`` against the memory-bandwidth floor.

A million drifting members ticked in place (fused, buffers rotated) against one
``numpy.copyto`` of the same state, and the same update written naively for comparison.
"""

from __future__ import annotations

from typing import Any

from engine.tools.bench.base import Rows, measure
from engine.world import World

__all__ = ["bench_crowd"]


def bench_crowd(count: int = 1_000_000, rounds: int = 30) -> Rows:
    """One crowd tick of ``count`` drifting members vs one ``numpy.copyto`` of the same state."""
    import numpy as np

    from engine.crowd import Crowd

    class Drift(Crowd):
        def update(self, world: Any) -> None:
            np.add(self.current("position"), self.current("velocity"), out=self.next("position"))

    class NaiveDrift(Crowd):
        """The same update written the obvious way: new arrays, copied into place."""

        def update(self, world: Any) -> None:
            position = np.array(self.current("position"))
            position = position + np.array(self.current("velocity"))
            self.next("position")[:] = position

    rng = np.random.default_rng(0)
    position, velocity = rng.uniform(0, 640, (count, 2)), rng.uniform(-1, 1, (count, 2))
    worlds = []
    for kind in (Drift, NaiveDrift):
        world = World()
        world.spawn(kind(count)).spawn_members(position=position, velocity=velocity)
        worlds.append(world)
    source = np.asarray(position, dtype=np.float32)
    target = np.empty_like(source)
    times = measure({"copyto": lambda: np.copyto(target, source), "crowd": worlds[0].tick,
                     "naive": worlds[1].tick}, rounds)
    for world in worlds:
        world.close()
    return [
        (f"numpy.copyto of {count:,} float32 pairs", times["copyto"] * 1e3, 1.0, "the memory-bandwidth floor"),
        (f"Crowd tick, {count:,} members (fused, buffers rotated)", times["crowd"] * 1e3,
         times["crowd"] / times["copyto"], "<= 3x copyto"),
        ("the same tick written naively", times["naive"] * 1e3, times["naive"] / times["copyto"], "for comparison"),
    ]
