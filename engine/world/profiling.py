"""TickProfile: where a world's ticks spend their time, by entity class, by system, and the engine's share.

``tickswap run GAME --profile`` prints it at the end of a run; a test or a script uses it
directly::

    with TickProfile(world) as profile:
        for _ in range(600):
            world.tick()
    print("\\n".join(profile.lines()))

While attached, the world times each part of its ticks on a clock: entities' ``update()``
calls, summed by class (the time inside the collision queries they make taken out, and
counted as the engine's); every system added with ``add_processor``, by class; and the
engine's own work: the Double Buffer (setting committed values aside, the commit, the
previous values, crowds' buffers), collisions (the tick's tables, the grids and every
query), signals (combining and swapping them) and spawns (despawned entities leaving,
spawned ones joining). What is left of a tick (taking the input, the esper call) is
``other``.

A profile only reads a clock: the ticks run the same code on the same state in the same
order, so a profiled world's state hash is the one it has unprofiled (a test holds it).
Reading a clock costs time (0.05 to 0.3 microseconds, by machine), so the updates are
timed in runs, one reading each time the class changes along the update order, not one
per entity, and each query is timed with two. The profile measures what one reading costs
when it starts, takes that out of every figure, and says how much its readings added to
a tick (``overhead_ms``): the figures are estimates of the unprofiled tick.
An update's time includes the Double Buffer's bookkeeping around it (about 20 ns an
entity with the compiled core, 200 on the pure path).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any

from engine.buffering import Host

__all__ = ["ENGINE_PARTS", "TickProfile", "TimedCollisions"]

ENGINE_PARTS = ("double buffer", "collisions", "signals", "spawns", "other")
"""The engine's share of a tick, in the order ``lines()`` says them."""


def clock_cost(clock: Callable[[], int], reads: int = 400, trials: int = 7) -> int:
    """What one reading of ``clock`` costs, in its nanoseconds: the median of a few timed runs of ``reads``."""
    costs = []
    for _ in range(trials):
        started = clock()
        for _ in range(reads):
            clock()
        costs.append((clock() - started) / (reads + 1))
    return round(statistics.median(costs))


class TickProfile:
    """Where the ticks of ``world`` spend their time while the profile is attached (see the module docstring).

    ``start()`` attaches it (or ``with TickProfile(world) as profile:``), ``stop()`` detaches
    it; figures add up over every tick completed in between (a failed tick's are dropped),
    and ``lines()`` says them. ``clock`` returns integer nanoseconds (``time.perf_counter_ns``
    by default).
    """

    def __init__(self, world: Host, clock: Callable[[], int] = time.perf_counter_ns) -> None:
        self.world = world
        self.clock = clock
        self.read_ns = 0
        """What one reading of ``clock`` costs, measured by ``start()``, taken out of every figure."""
        self.ticks = 0
        """Ticks profiled (completed)."""
        self.tick_ns = 0
        """Time the profiled ticks took, start to end, the profile's own readings taken out."""
        self.reads = 0
        """Clock readings the profile made in those ticks (their cost is ``reads * read_ns``)."""
        self.updates: dict[type, list[int]] = {}
        """Entity class -> [nanoseconds in its updates, updates run] (collision queries taken out)."""
        self.systems: dict[str, int] = {}
        """System (``add_processor``'s processor class name) -> nanoseconds."""
        self.engine: dict[str, int] = dict.fromkeys(ENGINE_PARTS[:-1], 0)
        """The engine's parts (``ENGINE_PARTS`` but ``other``) -> nanoseconds."""
        self._nested = 0  # nanoseconds of queries (and their readings) so far: taken out of whatever holds them
        self._loop = 0  # the last update loop's span, start to end
        self._reads = 0  # readings in the tick in progress
        self._pending: dict[type, list[int]] = {}  # the tick in progress: kept only once it completes
        self._pending_systems: dict[str, int] = {}
        self._pending_engine: dict[str, int] = dict.fromkeys(ENGINE_PARTS[:-1], 0)

    # -- attaching -------------------------------------------------------------------------

    def start(self) -> TickProfile:
        """Attach to the world (between ticks): its next ticks are timed. Returns the profile."""
        if not self.read_ns:
            self.read_ns = clock_cost(self.clock)
        self.world.profile = self
        return self

    def stop(self) -> None:
        """Detach from the world: its ticks are no longer timed (the figures stay)."""
        self.world.profile = None

    def __enter__(self) -> TickProfile:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what the world calls while attached -----------------------------------------------

    def run_updates(self, settler: Iterable[Any], world: Any) -> None:
        """The Update Method system's loop: every entity ``settler`` hands out updated, the time summed by class.

        ``settler`` does the Double Buffer's bookkeeping around each update, exactly as the
        unprofiled loop does. The clock is read where the class changes along the order.
        """
        clock, pending, cost = self.clock, self._pending, self.read_ns
        kind: type | None = None
        count = 0
        first = started = clock()
        nested = self._nested
        reads = 1
        for entity in settler:
            if type(entity) is not kind:
                now = clock()
                reads += 1
                if kind is not None:
                    _add(pending, kind, now - started - cost - (self._nested - nested), count)
                kind, count, started, nested = type(entity), 0, now, self._nested
            entity.update(world)
            count += 1
        now = clock()
        if kind is not None:
            _add(pending, kind, now - started - cost - (self._nested - nested), count)
        self._reads += reads + 1
        self._loop = now - first

    def timed(self, part: str, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)``, its time added to the engine's ``part`` (one of ``ENGINE_PARTS``) and taken out of
        whatever timed span holds it (an update's, a system's, another part's)."""
        nested = self._nested
        started = self.clock()
        try:
            return call(*args)
        finally:
            spent = self.clock() - started
            self._pending_engine[part] += spent - self.read_ns - (self._nested - nested)
            self._nested = nested + spent + self.read_ns  # the enclosing span holds both readings whole
            self._reads += 2

    def query(self, call: Callable[..., Any], *args: Any) -> Any:
        """A collision query, timed as the engine's (and taken out of the update that asked)."""
        return self.timed("collisions", call, *args)

    def system(self, processor: Any) -> None:
        """Run one system (an esper processor), timed by its class name.

        The Update Method system (``updates_entities``) is not counted as a system: its updates
        are timed by class, its queries as collisions, and the rest of it (the commit) is the
        Double Buffer's.
        """
        nested = self._nested
        started = self.clock()
        processor.process()
        spent = self.clock() - started - self.read_ns - (self._nested - nested)
        self._reads += 2
        if getattr(processor, "updates_entities", False):
            self._pending_engine["double buffer"] += max(0, spent - self._loop - self.read_ns)
            self._loop = 0
            return
        name = type(processor).__name__
        self._pending_systems[name] = self._pending_systems.get(name, 0) + spent

    def tick_done(self, nanoseconds: int) -> None:
        """A tick completed in ``nanoseconds`` (as measured): its figures join the profile's."""
        reads = self._reads + 2
        self.ticks += 1
        self.reads += reads
        self.tick_ns += max(0, nanoseconds - (reads - 1) * self.read_ns)
        for kind, (spent, count) in self._pending.items():
            _add(self.updates, kind, spent, count)
        for name, spent in self._pending_systems.items():
            self.systems[name] = self.systems.get(name, 0) + spent
        for part, spent in self._pending_engine.items():
            self.engine[part] += spent
        self.tick_failed()

    def tick_failed(self) -> None:
        """A tick was abandoned (or its figures taken): what it measured is dropped, as its state is."""
        self._pending = {}
        self._pending_systems = {}
        self._pending_engine = dict.fromkeys(ENGINE_PARTS[:-1], 0)
        self._reads = 0
        self._loop = 0

    # -- what it says ------------------------------------------------------------------------

    @property
    def overhead_ms(self) -> float:
        """What the profile's own clock readings added to a tick, on average (taken out of every figure)."""
        return self.reads * self.read_ns / max(1, self.ticks) / 1e6

    def shares(self) -> dict[str, float]:
        """Milliseconds a tick, on average: ``"tick"``, ``"updates"``, ``"systems"`` and each of ``ENGINE_PARTS``."""
        ticks = max(1, self.ticks)
        updates = sum(max(0, spent) for spent, _ in self.updates.values())
        systems = sum(max(0, spent) for spent in self.systems.values())
        engine = {part: max(0, spent) for part, spent in self.engine.items()}
        engine["other"] = max(0, self.tick_ns - updates - systems - sum(engine.values()))
        figures = {"tick": self.tick_ns, "updates": updates, "systems": systems, **engine}
        return {name: spent / ticks / 1e6 for name, spent in figures.items()}

    def summary(self) -> str:
        """One short line (the HUD's): the tick, the updates with the costliest class, the engine's parts."""
        if not self.ticks:
            return "profile: no tick yet"
        share = self.shares()
        costliest = max(self.updates.items(), key=lambda item: (item[1][0], item[0].__qualname__), default=None)
        top = f" ({costliest[0].__qualname__} {_ms(max(0, costliest[1][0]) / self.ticks / 1e6)})" if costliest else ""
        engine = ", ".join(f"{name} {_ms(share[name])}" for name in ENGINE_PARTS[:-1])
        systems = f", systems {_ms(share['systems'])}" if self.systems else ""
        return f"tick {_ms(share['tick'])}: updates {_ms(share['updates'])}{top}{systems}, {engine}"

    def lines(self, classes: int = 6) -> list[str]:
        """The profile in a few readable lines: the tick, updates by class (the ``classes`` costliest), systems,
        and the engine's share."""
        if not self.ticks:
            return ["profile: no tick completed"]
        ticks = self.ticks
        share = self.shares()
        tick = share["tick"] or 1e-9

        def part(ms: float) -> str:
            return f"{_ms(ms)} ({100 * ms / tick:.0f}%)"

        said = [f"profile: {ticks:,} ticks, {_ms(share['tick'])} a tick ({1000 / tick:,.0f} ticks/s); "
                f"the profile's {self.reads / ticks:,.0f} clock readings a tick ({_ms(self.overhead_ms)}) taken out"]
        ranked = sorted(self.updates.items(), key=lambda item: (-item[1][0], item[0].__qualname__))
        by_class = [f"{kind.__qualname__} x{count / ticks:,.0f} {_ms(max(0, spent) / ticks / 1e6)}"
                    for kind, (spent, count) in ranked[:classes]]
        if len(ranked) > classes:
            rest = sum(max(0, spent) for _, (spent, _) in ranked[classes:]) / ticks / 1e6
            by_class.append(f"{len(ranked) - classes} more classes {_ms(rest)}")
        said.append(f"  updates {part(share['updates'])}: " + (", ".join(by_class) or "none"))
        if self.systems:
            systems = sorted(self.systems.items(), key=lambda item: (-item[1], item[0]))
            said.append(f"  systems {part(share['systems'])}: "
                        + ", ".join(f"{name} {_ms(max(0, spent) / ticks / 1e6)}" for name, spent in systems))
        engine = sum(share[name] for name in ENGINE_PARTS)
        said.append(f"  engine {part(engine)}: " + ", ".join(f"{name} {_ms(share[name])}" for name in ENGINE_PARTS))
        return said


def _add(table: dict[type, list[int]], kind: type, spent: int, count: int) -> None:
    figures = table.get(kind)
    if figures is None:
        table[kind] = [spent, count]
    else:
        figures[0] += spent
        figures[1] += count


def _ms(ms: float) -> str:
    """A duration for a person: ``3.21 ms``, ``0.043 ms``."""
    return f"{ms:.2f} ms" if ms >= 0.1 else f"{ms:.3f} ms"


class TimedCollisions:
    """A world's ``Collisions`` while a profile is attached: every query timed as the engine's, same answers.

    The world swaps it in for its ``Collisions`` when a profile attaches and back when it
    detaches, so an unprofiled query pays nothing for profiles.
    """

    def __init__(self, collisions: Any, profile: TickProfile) -> None:
        self._collisions = collisions
        self._profile = profile

    def __getattr__(self, name: str) -> Any:
        return getattr(self._collisions, name)

    def overlapping(self, *args: Any) -> Any:
        """``Collisions.overlapping``, timed."""
        return self._profile.query(self._collisions.overlapping, *args)

    def overlapping_at(self, *args: Any) -> Any:
        """``Collisions.overlapping_at``, timed."""
        return self._profile.query(self._collisions.overlapping_at, *args)

    def near(self, *args: Any) -> Any:
        """``Collisions.near``, timed."""
        return self._profile.query(self._collisions.near, *args)

    def overlapping_members(self, *args: Any) -> Any:
        """``Collisions.overlapping_members``, timed."""
        return self._profile.query(self._collisions.overlapping_members, *args)
