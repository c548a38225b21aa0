"""Issue 32 item 1, measured: the state-in-columns prototype against today's engine, in one interleaved run.

    python docs/experiments/columns/run.py              # the compiled designs against the compiled core
    TICKSWAP_PURE=1 python docs/experiments/columns/run.py   # the pure design against the pure path

Builds ``columns.c`` in a temporary directory (a C compiler is needed for the compiled
designs), checks every design's semantics (check.py), then times whole workloads, each
case interleaved with the others round by round (``engine.tools.bench.base.measure``,
medians), on the Python that runs it:

- **tick**: 10,000 patrollers (``tickswap bench world``'s, the same ``update``), against
  ``World.tick()`` and the bare loop of the same update on plain objects;
- **checkpoint + rollback** of those 10,000 (as ``tickswap bench rollback``: back and forth
  between two checkpoints a tick apart, so every moving value changes), and a rollback of
  8 ticks re-simulated with a checkpoint each, against 8 plain ticks;
- **collisions**: the grid of committed positions (today read from every entity, with
  columns a slice), and a whole tick in which 10,000 boxes each ask what they overlap
  (``tickswap bench collisions``'s), and a tick in which 100 boxes read every other's
  position (the O(n*m) loop: reads of other entities' fields, where a descriptor costs most);
- **render gather**: previous and current (x, y, angle) of 10,000 entities into the
  renderer's two float32 arrays (today ``gather_pair``, one walk in C; with columns six
  column copies).

Prints one table (milliseconds and each design's ratio to today's engine), the rule of
issue 32 per design, the load average, and the lines of the prototype.
"""

from __future__ import annotations

import gc
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import check
import numpy as np
import proto

from engine.buffering import ACCELERATED, gather_pair
from engine.entity import Entity
from engine.look import Look
from engine.spatial import SpatialIndex
from engine.tools.bench.base import Patroller, PlainPatroller, patrol
from engine.world import World

COUNT = 10_000
ROUNDS = int(os.environ.get("COLUMNS_ROUNDS", "40"))
DESIGNS = ("getset", "descriptor", "slots", "arena") if ACCELERATED else ("pure",)
ENGINE = "engine"
Row = tuple[str, dict[str, float], str]
"""(workload, value per column, unit): "ms" for seconds shown as milliseconds, "x" for ratios."""


def measure(cases: dict[str, Any], rounds: int) -> dict[str, float]:
    """``engine.tools.bench.base.measure`` (each case once per round, interleaved; medians), timed in the
    thread's CPU time: on a host shared with busy neighbours, the time this thread waited for a core
    is not the workload's."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    gc.collect()
    for _ in range(rounds):
        for name, case in cases.items():
            start = time.thread_time()
            case()
            times[name].append(time.thread_time() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    """Check, time, print."""
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        core = proto.build(Path(folder)) if ACCELERATED else None
        print(f"semantics checked: {', '.join(check.check_all(core) if core else _check_pure())}")
        rows: list[Row] = []
        rows += _ticks(core)
        rows += _rollbacks(core)
        rows += _collisions(core)
        rows += _gathers(core)
    path = "compiled core" if ACCELERATED else "pure Python (TICKSWAP_PURE=1)"
    print(f"\nPython {platform.python_version()}, today's engine on its {path}; medians of interleaved rounds "
          f"(load average {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after)")
    names = [ENGINE, *DESIGNS]
    print(f"  {'workload (ms; each design also as a ratio to the engine)':62s}"
          + "".join(f"{name:>20s}" for name in names))
    for label, values, unit in rows:
        if unit == "x":  # a ratio within each column
            cells = [f"{values[name]:5.3f}x" for name in names]
        else:
            cells = [f"{values[ENGINE] * 1e3:9.3f}       "]
            cells += [f"{values[d] * 1e3:9.3f} {values[d] / values[ENGINE]:5.2f}x" for d in DESIGNS]
        print(f"  {label:62s}" + "".join(f"{cell:>20s}" for cell in cells))
    _verdict({label: values for label, values, _ in rows})
    _lines()


def _check_pure() -> list[str]:
    for test in (check._own_and_others, check._foreign_write, check._previous_and_rollback, check._own_fields,
                 check._same_as_engine):
        test("pure", None)
    return ["pure"]


def _patrollers(core: Any, design: str, floats: bool = False) -> proto.ColumnWorld:
    base = proto.base_class(design, core)

    class ColumnPatroller(base):  # type: ignore[misc, valid-type]
        def __init__(self, x: float = 0) -> None:
            super().__init__(x=x)
            self.patrolling_left = False

        update = patrol

    world = proto.ColumnWorld(design, core)
    for i in range(COUNT):
        world.spawn(ColumnPatroller(float(i % 100) if floats else i % 100))
    return world


def _ticks(core: Any) -> list[Row]:
    """The 10,000-patroller tick, as ``tickswap bench world`` has it (int positions: ``Patroller(i % 100)``
    and steps of 1), and the same at float positions (as moving games have them), all in one run.

    With float64 columns an int written is read back as a float: where the update mixes
    the two (``self.x <= 0``), CPython's bytecode takes slower paths than with ints on
    both sides, which today's engine (values kept as the objects written) never does.
    """
    cases: dict[str, Any] = {}
    engines = []
    worlds: dict[str, Any] = {}
    for kind, start in (("int", lambda i: i % 100), ("float", lambda i: float(i % 100))):
        engine = World()
        for i in range(COUNT):
            engine.spawn(Patroller(start(i)))
        engines.append(engine)
        plain = [PlainPatroller(start(i)) for i in range(COUNT)]

        def bare(plain: list[Any] = plain) -> None:
            for thing in plain:
                thing.update(None)

        cases[f"bare {kind}"] = bare
        cases[f"{ENGINE} {kind}"] = engine.tick
        for design in DESIGNS:
            world = worlds[f"{design} {kind}"] = _patrollers(core, design, floats=kind == "float")
            cases[f"{design} {kind}"] = world.tick
    times = measure(cases, ROUNDS)
    for design in DESIGNS:
        for kind, engine in zip(("int", "float"), engines):
            assert [e.x for e in worlds[f"{design} {kind}"].entities] == [float(e.x) for e in engine.entities], (
                f"{design}: same positions")
    for engine in engines:
        engine.close()
    names = (ENGINE, *DESIGNS)
    empty = World()
    fixed = measure({"tick": empty.tick, "pair": lambda: empty.rollback(empty.checkpoint())}, ROUNDS)
    empty.close()
    rows: list[Row] = []
    for kind, words in (("int", "int positions, as bench world"), ("float", "float positions")):
        rows += [(f"bare loop, {COUNT} update() on plain objects, {kind}", {n: times[f"bare {kind}"] for n in names},
                  "ms"),
                 (f"tick, {COUNT} patrollers, {words}", {n: times[f"{n} {kind}"] for n in names}, "ms"),
                 ("  the tick / the bare loop", {n: times[f"{n} {kind}"] / times[f"bare {kind}"] for n in names}, "x")]
    rows += [("an empty World's tick (part of every column's tick)", {n: fixed["tick"] for n in names}, "ms"),
             ("an empty World's checkpoint + rollback (part of every column's)", {n: fixed["pair"] for n in names},
              "ms")]
    return rows


def _rollbacks(core: Any) -> list[Row]:
    worlds: dict[str, Any] = {}
    engine = World()
    for i in range(COUNT):
        engine.spawn(Patroller(i % 100))
    worlds[ENGINE] = engine
    for design in DESIGNS:
        worlds[design] = _patrollers(core, design)
    cases: dict[str, Any] = {}
    for name, world in worlds.items():
        world.tick()
        pair = [world.checkpoint()]
        world.tick()
        pair.append(world.checkpoint())
        start = world.checkpoint()

        def checkpoint_and_rollback(world: Any = world, pair: list[Any] = pair) -> None:
            world.checkpoint()
            pair.reverse()
            world.rollback(pair[0])  # the other one: every moving value changes

        def rollback_8(world: Any = world, start: Any = start) -> None:
            world.rollback(start)
            for _ in range(8):
                world.tick()
                world.checkpoint()

        def ticks_8(world: Any = world) -> None:
            for _ in range(8):
                world.tick()

        cases[f"pair {name}"] = checkpoint_and_rollback
        cases[f"tick {name}"] = world.tick
        cases[f"r8 {name}"] = rollback_8
        cases[f"t8 {name}"] = ticks_8
    times = measure(cases, max(10, ROUNDS // 2))
    engine.close()
    names = (ENGINE, *DESIGNS)
    return [
        (f"checkpoint + rollback, {COUNT}", {n: times[f"pair {n}"] for n in names}, "ms"),
        ("  the same / a tick of its own world", {n: times[f"pair {n}"] / times[f"tick {n}"] for n in names}, "x"),
        (f"rollback + 8 ticks with a checkpoint each, {COUNT}", {n: times[f"r8 {n}"] for n in names}, "ms"),
        ("  the same / 8 plain ticks of its own world", {n: times[f"r8 {n}"] / times[f"t8 {n}"] for n in names}, "x"),
    ]


def _boxes(core: Any, design: str | None, asks: bool, brute_askers: int = 0) -> Any:
    """10,000 boxes (tickswap bench collisions' set-up) in today's world (design None) or a prototype's."""
    base: Any = Entity if design is None else proto.base_class(design, core)

    class Box(base):  # type: ignore[misc, valid-type]
        look = Look("square", 10)

        def __init__(self, x: float, y: float, index: int) -> None:
            super().__init__(x=x, y=y)
            self.asks = asks or index < brute_askers
            self.touching = 0

        def update(self, world: Any) -> None:
            if not self.asks:
                return
            if asks:
                self.touching = len(world.overlapping(self))
                return
            x, y, touching = self.x, self.y, 0
            for other in world.entities_of(Box):
                if other is not self and abs(other.x - x) < 10 and abs(other.y - y) < 10:
                    touching += 1
            self.touching = touching

    side = (COUNT ** 0.5) * 24.0
    placer = random.Random(1)
    world: Any = World() if design is None else proto.ColumnWorld(design, core)
    for i in range(COUNT):
        world.spawn(Box(placer.uniform(0, side), placer.uniform(0, side), i))
    return world


def _collisions(core: Any) -> list[Row]:
    names = (ENGINE, *DESIGNS)
    asking = {name: _boxes(core, None if name == ENGINE else name, True) for name in names}
    for world in asking.values():
        world.tick()  # the first query makes the world build its grid at every tick's start
    grids: dict[str, Any] = {}
    for name, world in asking.items():
        if name == ENGINE:
            grids[name] = lambda world=world: SpatialIndex(world.entities)  # as Collisions.tick_started builds it
        else:
            grids[name] = world._build_index
    built = measure({f"grid {n}": grids[n] for n in names}, ROUNDS)
    ticked = measure({f"ask {n}": asking[n].tick for n in names}, max(3, ROUNDS // 8))
    touching = {n: [e.touching for e in w.entities] for n, w in asking.items()}
    assert all(found == touching[ENGINE] for found in touching.values()), "every world finds the same overlaps"
    reading = {name: _boxes(core, None if name == ENGINE else name, False, brute_askers=100) for name in names}
    read = measure({f"read {n}": reading[n].tick for n in names}, max(3, ROUNDS // 8))
    touching = {n: [e.touching for e in w.entities] for n, w in reading.items()}
    assert all(found == touching[ENGINE] for found in touching.values()), "every world finds the same boxes"
    asking[ENGINE].close()
    reading[ENGINE].close()
    return [
        (f"collisions: grid of committed positions, {COUNT}", {n: built[f"grid {n}"] for n in names}, "ms"),
        (f"collisions: tick, {COUNT} boxes each ask overlapping()", {n: ticked[f"ask {n}"] for n in names}, "ms"),
        (f"reads: tick, 100 boxes read x, y of all {COUNT}", {n: read[f"read {n}"] for n in names}, "ms"),
    ]


def _gathers(core: Any) -> list[Row]:
    # Float positions, as moving games have: today's gather reads an int through a slower path.
    engine = World()
    for i in range(COUNT):
        engine.spawn(Patroller(float(i % 100)))
    engine.tick()
    worlds = {design: _patrollers(core, design, floats=True) for design in DESIGNS}
    for world in worlds.values():
        world.tick()
    outs = {name: (np.empty((COUNT, 3), np.float32), np.empty((COUNT, 3), np.float32)) for name in (ENGINE, *DESIGNS)}
    entities = engine.entities

    def engine_gather() -> None:
        if ACCELERATED:
            gather_pair(entities, engine.tick_count, *outs[ENGINE])
        else:  # the pure path's gather, as the renderer makes it (engine.render.entities.gather_motion)
            from engine.buffering.access import motion

            previous, current = motion(entities, engine.tick_count)
            outs[ENGINE][0][:] = np.array(previous, dtype=np.float64).reshape(COUNT, 3)
            outs[ENGINE][1][:] = np.array(current, dtype=np.float64).reshape(COUNT, 3)

    cases = {ENGINE: engine_gather, **{d: (lambda w=w, o=outs[d]: w.gather(*o)) for d, w in worlds.items()}}
    times = measure(cases, ROUNDS)
    for design in DESIGNS:
        assert all(np.array_equal(a, b) for a, b in zip(outs[ENGINE], outs[design])), f"{design}: the same bits"
    engine.close()
    return [(f"render gather: previous + current of {COUNT} (float32)", times, "ms")]


def _verdict(rows: dict[str, dict[str, float]]) -> None:
    tick = rows[f"tick, {COUNT} patrollers, int positions, as bench world"]
    floats = rows[f"tick, {COUNT} patrollers, float positions"]
    pair = rows[f"checkpoint + rollback, {COUNT}"]
    grid = rows[f"collisions: grid of committed positions, {COUNT}"]
    ask = rows[f"collisions: tick, {COUNT} boxes each ask overlapping()"]
    gather = rows[f"render gather: previous + current of {COUNT} (float32)"]
    print("\nIssue 32's rule (lines: see below)")
    for design in DESIGNS:
        checks = [
            (f"tick {tick[design] / tick[ENGINE]:.2f}x today's (<= 1.15; at float positions "
             f"{floats[design] / floats[ENGINE]:.2f}x)", tick[design] <= 1.15 * tick[ENGINE]),
            (f"collision tick {ask[design] / ask[ENGINE]:.2f}x, grid {grid[design] / grid[ENGINE]:.2f}x (<= 1)",
             ask[design] <= ask[ENGINE] and grid[design] <= grid[ENGINE]),
            (f"gather {gather[design] / gather[ENGINE]:.2f}x (<= 1)", gather[design] <= gather[ENGINE]),
            (f"checkpoint + rollback {pair[design] / tick[design]:.3f} of its tick, "
             f"{pair[design] / tick[ENGINE]:.3f} of today's (<= 0.1)", pair[design] <= 0.1 * tick[design]),
        ]
        print(f"  {design:10s} " + "; ".join(f"{text} {'ok' if ok else 'MISSED'}" for text, ok in checks))
    print("  (the rule's fourth part, the machinery's lines, is not measured here: see README.md)")


def _lines() -> None:
    here = Path(__file__).resolve().parent
    engine = Path(__file__).resolve().parents[3] / "engine" / "buffering"

    def count(path: Path) -> int:
        return len(path.read_text().splitlines())

    today = sum(count(p) for p in engine.iterdir() if p.suffix in (".py", ".c"))
    print(f"\nLines (as wc -l counts them): engine/buffering today {today} (py + c); the prototype's "
          f"columns.c {count(here / 'columns.c')} (all four compiled designs), proto.py {count(here / 'proto.py')}")


if __name__ == "__main__":
    main()
