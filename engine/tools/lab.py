"""The loop lab: every classic game loop on the same scenario, on a simulated machine.

Each loop drives the scenario on its own ``VirtualClock``; a ``Machine`` describes what an
update and a render cost (with seeded jitter and an optional stall), and the loop's
callbacks spend that time on the clock. So a two-second run on a "slow" machine takes a
few milliseconds, identically every time, and the loops can be compared side by side:
how many updates each frame ran, how evenly frames were presented, whether game time
kept up with real time, and whether the final state is bit-identical to an exact
reference. ``tickswap lab`` prints the table; ``--png`` draws the timelines.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Protocol

from engine.clock import VirtualClock
from engine.constants import DEFAULT_MS_PER_UPDATE
from engine.files.importer import load_game
from engine.loops import LOOPS, Loop, VariableStepLoop, make_loop
from engine.trace import Trace
from engine.world import World

__all__ = ["MACHINES", "BallScenario", "GameScenario", "LoopReport", "Machine", "Scenario", "format_report",
           "lab_loop", "run_lab"]


@dataclass(frozen=True)
class Machine:
    """What one update and one render cost on a simulated machine, in milliseconds.

    ``jitter_ms`` adds a seeded uniform ±jitter to every cost; ``stall_at_ms`` makes one
    stall of ``stall_ms`` (a hiccup: a page fault, a GC pause, another process) the first
    time a cost is spent after that clock time.
    """

    update_ms: float = 1.0
    render_ms: float = 4.0
    jitter_ms: float = 0.0
    stall_at_ms: float | None = None
    stall_ms: float = 250.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("update_ms", "render_ms", "jitter_ms", "stall_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"Machine.{name} must be a finite number >= 0, got {value!r}")
        if self.render_ms + self.update_ms <= 0:
            raise ValueError("a Machine whose updates and renders cost nothing never lets time pass; "
                             f"got update_ms={self.update_ms!r}, render_ms={self.render_ms!r}")


MACHINES = {
    "fast": Machine(update_ms=0.5, render_ms=2.0, jitter_ms=0.2),
    "slow": Machine(update_ms=6.0, render_ms=24.0, jitter_ms=2.0),
    "spiky": Machine(update_ms=1.0, render_ms=4.0, jitter_ms=5.0, stall_at_ms=600.0, stall_ms=300.0),
}
"""Presets for ``--machine``: a fast desktop, a slow laptop, and a jittery machine that stalls once."""


class _Costs:
    """Spends a machine's costs on a virtual clock."""

    def __init__(self, machine: Machine, clock: VirtualClock) -> None:
        self.machine = machine
        self.clock = clock
        self.random = random.Random(machine.seed)
        self.stalled = machine.stall_at_ms is None

    def spend(self, base_ms: float) -> None:
        jitter = self.machine.jitter_ms
        cost = base_ms + (self.random.uniform(-jitter, jitter) if jitter else 0.0)
        if not self.stalled and self.clock.now_ms() >= (self.machine.stall_at_ms or 0.0):
            self.stalled = True
            cost += self.machine.stall_ms
        self.clock.advance(max(0.0, cost))


class Scenario(Protocol):
    """What the lab runs: something advanced by updates, with a state to compare."""

    name: str
    steps_are_ticks: bool
    """True if every update advances one fixed tick whatever elapsed time it is handed."""

    def step(self, elapsed_ms: float) -> None:
        """Advance by one update covering ``elapsed_ms`` of game time."""

    def state(self) -> str:
        """An exact fingerprint of the state."""

    def compare(self, ticks: int, game_ms: Fraction) -> str:
        """Compare the state with an exact reference at the same game time: 'identical' or how far off."""

    def drawn(self, alpha: float, extrapolate: bool) -> float | None:
        """Where a renderer would draw the tracked object, or None if the scenario has none."""

    def true_position(self, at_ms: float) -> float | None:
        """Where the tracked object really is at clock time ``at_ms`` (None if unknown)."""


class BallScenario:
    """A ball moving at a constant 0.125 units per ms: the classic interpolation demo.

    The speed and the default step (``DEFAULT_MS_PER_UPDATE``) are exact in binary, so fixed steps land
    exactly on the true position; variable steps accumulate rounding error.
    """

    name = "ball"
    steps_are_ticks = False
    SPEED = 0.125

    def __init__(self) -> None:
        self.x = 0.0
        self.prev_x = 0.0

    def step(self, elapsed_ms: float) -> None:
        """Move the ball ``SPEED * elapsed_ms``, remembering where it was (for drawing)."""
        self.prev_x = self.x
        self.x += self.SPEED * elapsed_ms

    def state(self) -> str:
        """The ball's position, exactly (``repr`` of the float)."""
        return repr(self.x)

    def compare(self, ticks: int, game_ms: Fraction) -> str:
        """Against ``SPEED * game_ms`` in exact rational arithmetic."""
        error = Fraction(self.x) - Fraction(self.SPEED) * game_ms
        return "identical" if error == 0 else f"off by {float(error):.3g}"

    def drawn(self, alpha: float, extrapolate: bool) -> float | None:
        """Where a renderer draws the ball at ``alpha``: interpolated or extrapolated."""
        motion = self.x - self.prev_x
        return self.x + motion * alpha if extrapolate else self.prev_x + motion * alpha

    def true_position(self, at_ms: float) -> float | None:
        """Where a ball moving since time 0 really is at clock time ``at_ms``."""
        return self.SPEED * at_ms


class GameScenario:
    """A sample game's world (or a game file's), driven the way a real loop drives it.

    Under the fixed-step loops every update is ``world.tick()``: one tick of
    ``ms_per_update`` game time, ``world.speed_factor`` exactly 1.0. Under the
    variable-step loop every update is ``world.tick(elapsed_ms)`` with the frame's real
    elapsed time, so entities that scale their motion by ``world.speed_factor`` move at
    the right speed; those that don't run as fast as frames come, and the last column
    says their state differs.
    """

    steps_are_ticks = False

    def __init__(self, name: str, seed: int = 0, ms_per_update: float = DEFAULT_MS_PER_UPDATE) -> None:
        self.name = name
        self.seed = seed
        self.ms_per_update = ms_per_update
        self._game = load_game(name)
        self.world = self._new_world()
        self.game_ms = Fraction(0)
        """Game time the world has been ticked through, exactly: the sum of every tick's elapsed_ms."""

    def _new_world(self) -> World:
        world = World(seed=self.seed)
        world.ms_per_update = self.ms_per_update
        self._game.setup(world)  # build(world), then systems(world)
        return world

    def step(self, elapsed_ms: float) -> None:
        """One tick covering ``elapsed_ms`` of game time (a plain ``tick()`` for a fixed step)."""
        if elapsed_ms == self.ms_per_update:
            self.world.tick()
        else:
            self.world.tick(elapsed_ms)
        self.game_ms += Fraction(self.world.elapsed_ms)

    def state(self) -> str:
        """The world's state hash."""
        return self.world.state_hash()

    def drawn(self, alpha: float, extrapolate: bool) -> float | None:
        """A game has no single object to track: no draw-lag figure."""
        return None

    def true_position(self, at_ms: float) -> float | None:
        """A game has no single object to track: no draw-lag figure."""
        return None

    def compare(self, ticks: int, game_ms: Fraction) -> str:
        """Against a fresh world of the same game and seed, ticked in fixed steps to the same game time.

        ``game_ms`` is the game time the loop ran (what its updates were handed). If the
        world was ticked through a different game time, the comparison says so rather
        than comparing tick counts: a game ticked once per frame whatever the frame's
        length is not "identical" to anything, however its hash compares.
        """
        if abs(self.game_ms - game_ms) * 1_000_000 >= Fraction(1, 2):  # more than half a nanosecond
            return f"game time {float(self.game_ms):.0f} ms vs {float(game_ms):.0f} ms"
        whole_ticks = game_ms / Fraction(self.ms_per_update)
        if whole_ticks.denominator != 1:
            return f"differs (no fixed tick ends at {float(game_ms):.3f} ms)"
        with self._new_world() as reference:
            for _ in range(int(whole_ticks)):
                reference.tick()
            return "identical" if reference.state_hash() == self.state() else "differs"


def lab_loop(kind: str, scenario: Scenario, machine: Machine, clock: VirtualClock, trace: Trace | None,
             ms_per_update: float = DEFAULT_MS_PER_UPDATE, lags: dict[bool, list[float]] | None = None) -> Loop:
    """Build loop ``kind`` (a name in ``engine.loops.LOOPS``) driving ``scenario`` on a simulated machine.

    If ``lags`` is given, every render appends to ``lags[False]`` / ``lags[True]`` how far
    (in ms of motion) the interpolated / extrapolated drawing trails the true position.
    """
    costs = _Costs(machine, clock)

    def update(elapsed_ms: float = ms_per_update) -> None:
        # A fixed-step loop calls update(): one step. The variable-step loop hands the frame's elapsed time.
        costs.spend(machine.update_ms)
        scenario.step(elapsed_ms)

    def render(alpha: float) -> None:
        true = scenario.true_position(clock.now_ms())
        if lags is not None and true is not None:
            for extrapolate in (False, True):
                drawn = scenario.drawn(alpha, extrapolate)
                assert drawn is not None
                lags[extrapolate].append((true - drawn) / BallScenario.SPEED)
        costs.spend(machine.render_ms)

    return make_loop(kind, update, render, ms_per_update=ms_per_update, clock=clock, trace=trace)


@dataclass
class LoopReport:
    """What one loop did in the lab."""

    loop: str
    ticks: int
    frames: int
    updates_per_frame: tuple[int, float, int]
    game_ms: float
    real_ms: float
    intervals: tuple[float, float, float]
    dropped_ms: float
    versus_exact: str
    trace: Trace
    draw_lag_ms: dict[bool, tuple[float, float]]
    """Interpolated (False) and extrapolated (True) drawing: (mean, standard deviation) of
    how far behind the true position the drawn object is, in ms of motion."""


def _updates_per_frame(trace: Trace) -> list[int]:
    counts, current = [], 0
    for event in trace:
        if event.kind == "update":
            current += 1
        elif event.kind == "render":
            counts.append(current)
            current = 0
    return counts


def run_lab(scenario_factory: Callable[[], Scenario], machine: Machine, seconds: float = 2.0,
            ms_per_update: float = DEFAULT_MS_PER_UPDATE, loops: tuple[str, ...] = tuple(LOOPS)) -> list[LoopReport]:
    """Run the scenario under each loop for ``seconds`` of simulated real time."""
    reports = []
    for kind in loops:
        clock = VirtualClock()
        trace = Trace()
        scenario = scenario_factory()
        own_step = getattr(scenario, "ms_per_update", ms_per_update)
        if own_step != ms_per_update:
            raise ValueError(f"the scenario steps {own_step!r} ms per update but the lab runs {ms_per_update!r}; "
                             "build it with the same ms_per_update")
        lags: dict[bool, list[float]] = {False: [], True: []}
        loop = lab_loop(kind, scenario, machine, clock, trace, ms_per_update, lags)
        loop.run(until=seconds * 1000)
        if isinstance(loop, VariableStepLoop) and not scenario.steps_are_ticks:
            exact_game_ms = Fraction(loop.sim_ns, 1_000_000)
        else:
            exact_game_ms = loop.ticks * Fraction(ms_per_update)
        presented = [event.at_ms for event in trace if event.kind == "render"]
        gaps = [b - a for a, b in itertools.pairwise(presented)] or [0.0]
        counts = _updates_per_frame(trace) or [0]
        dropped = float(getattr(loop, "dropped_ms", getattr(loop, "behind_ms", 0.0)))
        reports.append(LoopReport(
            loop=kind, ticks=loop.ticks, frames=loop.frames,
            updates_per_frame=(min(counts), statistics.median(counts), max(counts)),
            game_ms=float(exact_game_ms), real_ms=clock.now_ms(),
            intervals=(min(gaps), statistics.median(gaps), max(gaps)),
            dropped_ms=dropped, versus_exact=scenario.compare(loop.ticks, exact_game_ms), trace=trace,
            draw_lag_ms={mode: (statistics.fmean(values), statistics.pstdev(values))
                         for mode, values in lags.items() if values},
        ))
    return reports


def _lag_cell(report: LoopReport) -> str:
    if not report.draw_lag_ms:
        return "-"
    if LOOPS[report.loop].interpolates:
        return " | ".join("{:.1f}±{:.1f}".format(*report.draw_lag_ms[mode]) for mode in (False, True))
    # The other loops render the latest state (alpha 1.0): there is one way to draw it.
    return "{:.1f}±{:.1f}".format(*report.draw_lag_ms[False]) + " | same"


def format_report(reports: list[LoopReport], timeline_ms: float = 100.0) -> str:
    """The lab's table, one row per loop, then each loop's first ``timeline_ms`` as a timeline."""
    header = ("loop", "ticks", "frames", "upd/frame min/med/max", "game/real ms",
              "frame interval ms min/med/max", "dropped ms", "draw lag ms interp | extrap", "final state vs exact")
    rows = [header]
    for r in reports:
        lo, med, hi = r.updates_per_frame
        rows.append((
            r.loop, str(r.ticks), str(r.frames), f"{lo}/{med:g}/{hi}",
            f"{r.game_ms:.0f}/{r.real_ms:.0f}",
            "{:.1f}/{:.1f}/{:.1f}".format(*r.intervals),
            f"{r.dropped_ms:.0f}", _lag_cell(r), r.versus_exact,
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    lines.append("")
    lines.append(f"first {timeline_ms:g} ms (R render at, U update reaching game time, W wait until, B behind):")
    for r in reports:
        lines.append(f"  {r.loop:<9} {r.trace.timeline(until_ms=timeline_ms)}")
    return "\n".join(lines)


def machine_from_args(preset: str | None, **overrides: Any) -> Machine:
    """A preset (or the default machine) with any given costs overriding it."""
    base = MACHINES[preset] if preset else Machine()
    return replace(base, **{key: value for key, value in overrides.items() if value is not None})
