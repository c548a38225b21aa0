"""Benchmarks: scripts that print figures, measured side by side in one run.

``python -m engine.bench world`` compares ``World.tick()`` on 10,000 patrolling
entities with a bare Python loop calling the same ``update()`` on plain objects, and a
tick with 100 spawns and 100 despawns against the steady tick. Rounds are interleaved
(A, B, A, B, ...) and medians reported, so a noisy neighbour on a shared machine slows
both sides alike. These are figures to read, never assertions: timing tests are flaky.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections import deque
from typing import Any, Callable

from engine.entity import Entity
from engine.world import World

__all__ = ["Patroller", "main", "measure"]


def _patrol(self: Any, world: Any) -> None:
    step = -1 if self.patrolling_left else 1
    self.x += step
    if self.x <= 0:
        self.patrolling_left = False
    elif self.x >= 100:
        self.patrolling_left = True


class Patroller(Entity):
    """The benchmark's Skeleton: walks between 0 and 100 and back."""

    def __init__(self, x: float = 0) -> None:
        super().__init__(x=x)
        self.patrolling_left = False

    update = _patrol


class _PlainPatroller:
    """The same update on a plain object: the floor the World is measured against."""

    def __init__(self, x: float = 0) -> None:
        self.x = x
        self.y = 0.0
        self.patrolling_left = False

    update = _patrol


def measure(cases: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    """Run each case once per round, interleaved, and return median seconds per case."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    gc.collect()
    for _ in range(rounds):
        for name, case in cases.items():
            start = time.perf_counter()
            case()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def bench_world(count: int = 10_000, rounds: int = 50, churn: int = 100) -> list[tuple[str, float, float, str]]:
    """Return rows of (case, ms, ratio, target) for the Update Method and churn figures."""
    world = World()
    for i in range(count):
        world.spawn(Patroller(i % 100))
    plain = [_PlainPatroller(i % 100) for i in range(count)]

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
    steady = measure({"bare": bare, "tick": world.tick}, rounds)
    churned = measure({"steady": world.tick, "churn": churn_world.tick}, rounds)
    world.close()
    churn_world.close()
    return [
        (f"bare loop, {count} update() calls", steady["bare"] * 1e3, 1.0, ""),
        (f"World.tick(), {count} entities", steady["tick"] * 1e3, steady["tick"] / steady["bare"], "<= 2x bare"),
        (f"World.tick(), steady (again)", churned["steady"] * 1e3, 1.0, ""),
        (f"World.tick(), {churn} spawns + {churn} despawns", churned["churn"] * 1e3,
         churned["churn"] / churned["steady"], "<= 1.3x steady"),
    ]


def _print_table(title: str, rows: list[tuple[str, float, float, str]]) -> None:
    print(title)
    width = max(len(row[0]) for row in rows)
    for name, ms, ratio, target in rows:
        print(f"  {name:<{width}}  {ms:8.3f} ms  {ratio:5.2f}x  {target}")


def main(argv: list[str] | None = None) -> int:
    """Run the named benchmarks and print their tables."""
    parser = argparse.ArgumentParser(prog="python -m engine.bench", description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*", default=["world"], choices=["world"])
    parser.add_argument("--quick", action="store_true", help="few rounds, small counts: checks it runs")
    args = parser.parse_args(argv)
    if "world" in args.which:
        count, rounds = (1000, 3) if args.quick else (10_000, 50)
        _print_table(f"Update Method ({count} entities, median of {rounds} interleaved rounds)",
                     bench_world(count, rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
