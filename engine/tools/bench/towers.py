"""The towers family: the towers sample's heavy wave, logic only, with shots as entities and as a crowd.

Not a synthetic workload: the game itself (``games/towers``), its last wave built at once by
``heavy_wave`` (330 enemies on the road, a tower on every grass tile beside it), warmed until
its shots fill the air (about 2,000 alive), then timed tick by tick in CPU time. The shooter
of the collisions family is the same kind of work reduced to collisions, beside Arcade.
"""

from __future__ import annotations

import statistics
import sys
import time

from engine.tools.bench.base import Rows
from engine.world import World

__all__ = ["bench_towers"]

TARGET_TICKS = 120
"""Issue 29's target for the heavy wave with shots as entities, in ticks a second."""


def bench_towers(warm: int = 40, ticks: int = 20, rounds: int = 3) -> Rows:
    """``rounds`` heavy waves a mode, interleaved: each built afresh, ticked ``warm`` ticks, then ``ticks`` timed.

    The figure is the median of the rounds' CPU time a tick (``time.thread_time``: on a busy
    machine a tick is not charged for the work that preempts it); beside it, how many enemies
    and shots were alive on average over the timed ticks (counted between ticks, untimed).
    """
    from engine.files.importer import load_game

    module = load_game("towers").module
    units = sys.modules[module.Enemy.__module__]  # the sample's units, imported with it
    shot_class, crowd_class, enemy_class = units.Shot, units.Shots, units.Enemy
    times: dict[bool, list[float]] = {False: [], True: []}
    alive: dict[bool, list[tuple[int, int]]] = {False: [], True: []}
    for _ in range(rounds):
        for crowd in (False, True):
            with World(seed=0) as world:
                module.heavy_wave(world, crowd)
                for _ in range(warm):
                    world.tick()
                spent = 0.0
                for _ in range(ticks):
                    start = time.thread_time()
                    world.tick()
                    spent += time.thread_time() - start
                    shots = (world.entities_of(crowd_class)[0].count if crowd
                             else len(world.entities_of(shot_class)))
                    alive[crowd].append((len(world.entities_of(enemy_class)), shots))
            times[crowd].append(spent / ticks)
    entities_ms, crowd_ms = (statistics.median(times[crowd]) * 1e3 for crowd in (False, True))
    rows: Rows = []
    for crowd, ms in ((False, entities_ms), (True, crowd_ms)):
        enemies = round(statistics.mean(pair[0] for pair in alive[crowd]))
        shots = round(statistics.mean(pair[1] for pair in alive[crowd]))
        how = "one Crowd of shots" if crowd else "shots as entities"
        target = f"; target >= {TARGET_TICKS} ticks/s" if not crowd else "; ratio: times the entities' ticks/s"
        rows.append((f"towers heavy wave, {how}: {enemies} enemies, {shots:,} shots alive", ms,
                     entities_ms / ms, f"{1e3 / ms:,.0f} ticks/s{target}"))
    return rows
