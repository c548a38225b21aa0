"""The crowd family: one tick of a vectorized ``Crowd`` against the same update in bare numpy.

A million drifting members ticked (fused, buffers rotated) against their floor, the same
update written as one fused numpy expression into a preallocated array; beside them one
``numpy.copyto`` of the state (the memory bandwidth) and the update written naively. The
floor is the fused update, not the copy: a drift reads two arrays (position and velocity)
and writes one where a copy reads one, so no crowd tick can come near a copy's time; what
the crowd itself adds is the tick around the update and the rotation of its buffers.
"""

from __future__ import annotations

from typing import Any

from engine.tools.bench.base import Rows, measure, verdict
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
    # Arrays of its own: sharing the copy's would find them in the cache, which the crowd's never are.
    drifted, speed, drift = source.copy(), np.asarray(velocity, dtype=np.float32), np.empty_like(source)
    times = measure({"copyto": lambda: np.copyto(target, source), "fused": lambda: np.add(drifted, speed, out=drift),
                     "crowd": worlds[0].tick, "naive": worlds[1].tick}, rounds)
    for world in worlds:
        world.close()
    fused = times["fused"]
    return [
        (f"numpy.copyto of {count:,} float32 pairs", times["copyto"] * 1e3, 1.0,
         "memory bandwidth: reads 1 array, writes 1"),
        ("the drift fused in numpy, np.add(out=) a preallocated array (floor)", fused * 1e3, 1.0,
         f"reads 2 arrays, writes 1: {times['fused'] / times['copyto']:.2f}x copyto"),
        (f"Crowd tick, {count:,} members (fused, buffers rotated)", times["crowd"] * 1e3, times["crowd"] / fused,
         f"{verdict(times['crowd'] / fused, 1.3, words='the floor')}; {times['crowd'] / times['copyto']:.2f}x copyto"),
        ("the same tick written naively", times["naive"] * 1e3, times["naive"] / fused, "vs floor, for comparison"),
    ]
