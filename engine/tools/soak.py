"""Soak: a long run of spawn and despawn churn, showing memory stays flat and nothing leaks.

``python -m engine.tools.soak`` runs 1,000,000 ticks of a world of 1,000 entities in which 10
are despawned and 10 spawned every tick (from inside the tick, as games do), and prints,
at ten checkpoints, the live entities, esper's entities and Python's allocated memory
blocks (``sys.getallocatedblocks``: exact, and free to read). ``--tracemalloc`` also
traces every allocation and reports bytes, at about ten times the run time. It exits 1
if esper holds entities the world doesn't, or if memory grew past the budget between the
first checkpoint and the last. The test suite runs a short version.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from array import array
from collections import deque
from typing import Any

import esper

from engine.entity import Entity, buffered
from engine.world import World

__all__ = ["Mote", "main", "soak"]


class Mote(Entity):
    """A short-lived entity that drifts and counts its age."""

    age = buffered(0)

    def update(self, world: World) -> None:
        self.x += 1.0
        self.age += 1


class _Churner(Entity):
    """Despawns the oldest motes and spawns new ones, every tick."""

    def __init__(self, motes: deque[Mote], churn: int) -> None:
        super().__init__()
        self.motes = motes
        self.churn = churn

    def update(self, world: World) -> None:
        for _ in range(self.churn):
            world.despawn(self.motes.popleft())
            self.motes.append(world.spawn(Mote(x=float(world.random.randrange(640)))))
            world.random.random()


def soak(ticks: int, entities: int = 1000, churn: int = 10, checkpoints: int = 10,
         report: Any = print, trace: bool = False) -> list[tuple[int, int, int, int, float]]:
    """Run the churn; per checkpoint return (tick, live, in esper, allocated blocks, traced KiB)."""
    # The readings go into arrays allocated up front (they hold numbers, not objects), so
    # taking a reading allocates nothing that the next reading would count as growth.
    slots = checkpoints + 1
    counts = array("q", bytes(8 * 4 * slots))
    traced_kib = array("d", bytes(8 * slots))
    taken = 0
    with World(seed=1) as world:
        motes: deque[Mote] = deque(world.spawn(Mote(x=float(i))) for i in range(entities))
        world.spawn(_Churner(motes, churn))
        gc.collect()
        if trace:
            tracemalloc.start()
        try:
            every = max(1, ticks // checkpoints)
            for tick in range(1, ticks + 1):
                world.tick()
                if (tick % every == 0 or tick == ticks) and taken < slots:
                    gc.collect()
                    counts[4 * taken + 3] = sys.getallocatedblocks()
                    traced_kib[taken] = tracemalloc.get_traced_memory()[0] / 1024 if trace else 0.0
                    with world.esper_context():
                        counts[4 * taken + 2] = sum(1 for _ in esper.get_entities())
                    counts[4 * taken] = tick
                    counts[4 * taken + 1] = len(world)
                    report(f"  tick {tick:>9,}  live {counts[4 * taken + 1]:>6}  esper {counts[4 * taken + 2]:>6}  "
                           f"blocks {counts[4 * taken + 3]:>9,}"
                           + (f"  traced {traced_kib[taken]:9.1f} KiB" if trace else ""))
                    taken += 1
        finally:
            if trace:
                tracemalloc.stop()
    return [(counts[4 * i], counts[4 * i + 1], counts[4 * i + 2], counts[4 * i + 3], traced_kib[i])
            for i in range(taken)]


def main(argv: list[str] | None = None) -> int:
    """Run the soak and judge it: exit 0 when memory is flat and esper leaks nothing."""
    from engine.tools.cli.options import soak_options

    args = soak_options(argv, description=(__doc__ or "").splitlines()[0])
    print(f"soak: {args.ticks:,} ticks, {args.entities} entities, {args.churn} spawned and despawned per tick")
    try:
        rows = soak(args.ticks, args.entities, args.churn, trace=args.tracemalloc)
    except KeyboardInterrupt:
        print("soak: interrupted", file=sys.stderr)
        return 130
    growth = rows[-1][3] - rows[0][3]
    leaked = [row for row in rows if row[2] != row[1]]
    print(f"allocated blocks after the first checkpoint: {growth:+,} (budget {args.budget_blocks:,})"
          + (f", traced memory {rows[-1][4] - rows[0][4]:+.1f} KiB" if args.tracemalloc else "")
          + f"; esper entities equal live entities at every checkpoint: {'yes' if not leaked else 'NO'}")
    return 0 if growth <= args.budget_blocks and not leaked else 1


if __name__ == "__main__":
    raise SystemExit(main())
