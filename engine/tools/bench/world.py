"""The Update Method family: ``World.tick()`` against a bare loop, and a tick with churn.

10,000 patrolling entities ticked by the world against the same ``update()`` called on
plain objects in a Python loop (the floor), then a tick with 100 spawns and 100
despawns against the steady tick, and one where every entity also sets a look of its
own (an animation frame: a look set on an instance is state, buffered and kept) against
one where it sets the same frames in a plain attribute, which is what a look cost before
looks were state.
"""

from __future__ import annotations

import sys
from collections import deque
from typing import Any

from engine.entity import Entity
from engine.look import Look
from engine.tools.bench.base import Patroller, PlainPatroller, Rows, measure, patrol, verdict
from engine.world import World

__all__ = ["bench_world"]


def _target(accelerated: bool) -> tuple[float, str]:
    """The tick's target against the bare loop, as issue 20 sets it per path and Python version (issue 37 keeps it).

    On 3.13 the slots the core reads cost every entity CPython's inline attribute storage
    (see docs/guides/performance.md), so its target is looser.
    """
    if not accelerated:
        return 3.0, "bare (pure Python)"
    return (1.5, "bare (compiled core, 3.13+)") if sys.version_info >= (3, 13) else (1.3, "bare (compiled core)")


def bench_world(count: int = 10_000, rounds: int = 50, churn: int = 100) -> Rows:
    """Return rows of (case, ms, ratio, target) for the Update Method and churn figures."""
    world = World()
    for i in range(count):
        world.spawn(Patroller(i % 100))
    plain = [PlainPatroller(i % 100) for i in range(count)]

    def bare() -> None:
        for thing in plain:
            thing.update(None)

    churn_world = World()
    oldest = deque(churn_world.spawn(Patroller(i % 100)) for i in range(count))

    def churn_tick() -> None:
        # Churn as games do it, from inside the tick: the oldest go, new ones join after it.
        for _ in range(churn):
            churn_world.despawn(oldest.popleft())
        for i in range(churn):
            oldest.append(churn_world.spawn(Patroller(i)))

    class Churner(Entity):
        def update(self, world: Any) -> None:
            churn_tick()

    churn_world.spawn(Churner())
    # Every entity sets a look of its own each tick (an animation frame): the cost of looks as state.
    frames = [Look("square", 4, (255, 60, 60)), Look("square", 4, (60, 255, 60))]

    class Animated(Patroller):
        def update(self, world: Any) -> None:
            patrol(self, world)
            self.look = frames[world.tick_count & 1]

    # The same frames kept in a plain attribute: what setting a look cost before looks were state
    # (a plain instance attribute, not buffered, not kept), the figure the animated tick is held to.
    class Framed(Patroller):
        def update(self, world: Any) -> None:
            patrol(self, world)
            self.frame = frames[world.tick_count & 1]

    animated_world = World()
    framed_world = World()
    for i in range(count):
        animated_world.spawn(Animated(i % 100))
        framed_world.spawn(Framed(i % 100))
    steady = measure({"bare": bare, "tick": world.tick}, rounds)
    churned = measure({"steady": world.tick, "churn": churn_world.tick}, rounds)
    animated = measure({"steady": world.tick, "plain": framed_world.tick, "animated": animated_world.tick}, rounds)
    world.close()
    churn_world.close()
    animated_world.close()
    framed_world.close()
    from engine.buffering import ACCELERATED

    limit, against = _target(ACCELERATED)
    ratios = {"tick": steady["tick"] / steady["bare"], "churn": churned["churn"] / churned["steady"],
              "look": animated["animated"] / animated["plain"]}
    return [
        (f"bare loop, {count} update() calls", steady["bare"] * 1e3, 1.0, ""),
        (f"World.tick(), {count} entities", steady["tick"] * 1e3, ratios["tick"],
         verdict(ratios["tick"], limit, words=against)),
        ("World.tick(), steady (again)", churned["steady"] * 1e3, 1.0, ""),
        (f"World.tick(), {churn} spawns + {churn} despawns", churned["churn"] * 1e3, ratios["churn"],
         verdict(ratios["churn"], 1.2, words="steady")),
        ("World.tick(), steady (again)", animated["steady"] * 1e3, 1.0, ""),
        (f"World.tick(), {count} entities each setting a plain attribute", animated["plain"] * 1e3,
         animated["plain"] / animated["steady"], "vs steady: a look's cost before looks were state"),
        (f"World.tick(), {count} entities each setting its own look", animated["animated"] * 1e3, ratios["look"],
         verdict(ratios["look"], 1.5, words="the plain attribute")),
    ]
