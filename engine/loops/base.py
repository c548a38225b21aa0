"""What every loop shares: callbacks, clock, trace, counters, ``run`` and ``stop``.

Every loop takes ``update`` and ``render`` callables plus keyword-only
``process_input``, ``clock`` and ``trace``; every loop has ``frame()`` (one pass of the
main loop), ``run(frames=None, until=None)``, ``stop()``, ``ticks`` and ``frames``.
A loop takes its first clock reading when it is constructed, so the first ``frame()``
accounts for the time since then. Within a frame the order is always: input, updates,
the per-frame hook, render.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol, Union

from engine.clock import MAX_MS, NS_PER_MS, Clock, RealClock
from engine.trace import Trace

__all__ = ["Loop", "Until"]

Until = Union[float, int, Callable[[], bool], None]  # noqa: UP007 - a runtime alias, read on 3.10
"""What ``run(until=...)`` accepts: a clock time in ms, a predicate, or ``None``."""

# A virtual clock that nobody advances would make ``run()`` spin forever; after this many
# frames in which no time passed, ``run()`` says so instead of hanging.
_STALLED_FRAMES_LIMIT = 100_000


def _require_callable(name: str, value: Any, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {value!r}")
    return value


def _positive(name: str, value: Any, unit: str, low: float = 0.0, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number {unit}, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive, finite number {unit}, got {value!r}")
    # Beyond these bounds the step in nanoseconds overflows a float: refuse here, by name.
    if not low <= value <= high:
        raise ValueError(f"{name} must be from {low:g} to {high:g} {unit}, got {value!r}")
    return float(value)


def _positive_ms(name: str, value: Any) -> float:
    return _positive(name, value, "of milliseconds", high=MAX_MS)


def _positive_rate(name: str, value: Any) -> float:
    return _positive(name, value, "per second", low=1000 / MAX_MS, high=1e12)


def _until_ns(until: float) -> int | None:
    """A ``run(until=...)`` clock time in ns; ``None`` for one beyond any clock (run until stopped)."""
    ns = until * NS_PER_MS
    return round(ns) if math.isfinite(ns) else None


def _step_ns(name: str, ms: float) -> int:
    ns = round(ms * NS_PER_MS)
    if ns < 1:
        raise ValueError(f"{name} must be at least one nanosecond (1e-06 ms), got {ms!r}")
    return ns


def _update_cap(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int or None, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1 (or None for no cap), got {value!r}")
    return value


def _read_clock(clock: Clock) -> int:
    """Read ``clock.now_ns()``, refusing NaN and non-numbers with a message naming the clock."""
    now = clock.now_ns()
    if type(now) is int:
        return now
    if isinstance(now, float) and math.isfinite(now):
        return int(now)
    if isinstance(now, bool) or not isinstance(now, (int, float)):
        raise TypeError(f"{clock!r}.now_ns() must return an int, got {now!r}")
    if isinstance(now, int):  # an int subclass, such as numpy's integers
        return int(now)
    raise ValueError(f"{clock!r}.now_ns() returned {now!r}; a clock must return finite integer nanoseconds")


class Loop(Protocol):
    """What any game loop offers the code that drives and shows it (the runner, the HUD, the lab).

    Every loop in ``engine.loops`` is one; ``engine.loops.make_loop`` builds them by name.
    """

    ticks: int
    """Logic updates run so far."""
    frames: int
    """Passes of the main loop so far."""
    alpha: float
    """What the latest render was handed."""
    frame_updates: int
    """How many updates the latest frame ran."""
    trace: Trace | None

    @property
    def clock(self) -> Clock:
        """The clock the loop reads."""

    def frame(self) -> None:
        """Run one pass of the main loop: input, updates, render."""

    def run(self, frames: int | None = None, until: Until = None) -> int:
        """Run frames until ``frames`` have run, ``until`` is reached, or ``stop()`` is called."""

    def stop(self) -> None:
        """Ask ``run()`` to return after the frame in progress."""


class _Loop:
    """What every loop shares: callbacks, clock, trace, counters, ``run`` and ``stop``."""

    def __init__(
        self,
        update: Callable[..., Any],
        render: Callable[[float], Any],
        *,
        process_input: Callable[[], Any] | None = None,
        on_frame: Callable[[float], Any] | None = None,
        clock: Clock | None = None,
        trace: Trace | None = None,
    ) -> None:
        self._on_frame = _require_callable("on_frame", on_frame, optional=True)
        self._update = _require_callable("update", update)
        self._render = _require_callable("render", render)
        self._process_input = _require_callable("process_input", process_input, optional=True)
        if clock is None:
            clock = RealClock()
        elif not callable(getattr(clock, "now_ns", None)) or not callable(getattr(clock, "sleep_ms", None)):
            raise TypeError(f"clock must have now_ns() and sleep_ms(ms) methods, got {clock!r}")
        if trace is not None and not isinstance(trace, Trace):
            raise TypeError(f"trace must be a Trace or None, got {trace!r}")
        self._clock: Clock = clock
        self._now_ns = clock.now_ns
        self.trace: Trace | None = trace
        self.ticks = 0
        """Logic updates run so far."""
        self.frames = 0
        """Passes of the main loop (``frame()`` calls) so far."""
        self._stop_requested = False
        self.alpha = 0.0
        """What the latest render was handed (alpha, or proportion for the render-gated loop)."""
        self.frame_updates = 0
        """How many updates the latest frame ran (for a HUD)."""
        self._last_ns = _read_clock(clock)

    @property
    def clock(self) -> Clock:
        """The clock this loop reads (fixed at construction: its readings are a timeline)."""
        return self._clock

    def _elapsed_ns(self) -> int:
        """Read the clock and return the time since the previous reading, never negative.

        A clock that jumps backwards costs the loop nothing and the game carries on from
        the new reading: clamping to the old maximum instead would freeze the game until
        the clock caught up again.
        """
        now = _read_clock(self.clock)
        elapsed = now - self._last_ns
        self._last_ns = now
        return elapsed if elapsed > 0 else 0

    def _now_ms(self) -> float:
        return _read_clock(self.clock) / NS_PER_MS

    def _begin_frame(self) -> int:
        """Take the frame's clock reading and process input; return the elapsed ns."""
        elapsed = self._elapsed_ns()
        if self.trace is not None:
            self.trace.record("input", self._last_ns / NS_PER_MS)
        if self._process_input is not None:
            self._process_input()
        return elapsed

    def _end_updates(self, frame_ms: float) -> None:
        """Trace the frame and run the per-frame hook: between the updates and the render."""
        if self.trace is not None:
            self.trace.record("frame", self._now_ms(), ms=frame_ms)
        if self._on_frame is not None:
            self._on_frame(frame_ms)

    def _present(self, alpha: float) -> None:
        """Trace and call ``render(alpha)``; count the frame."""
        self.alpha = alpha
        if self.trace is not None:
            self.trace.record("render", self._now_ms(), alpha=alpha)
        self._render(alpha)
        self.frames += 1

    def _wait(self, ms: float) -> None:
        """Wait on the clock, traced; a wait that rounds to nothing is skipped."""
        if ms <= 0:
            return
        if self.trace is not None:
            self.trace.record("wait", self._now_ms(), ms=ms)
        self.clock.sleep_ms(ms)

    def frame(self) -> None:
        """Run one pass of the main loop: input, updates, render (and waits, where the loop waits)."""
        raise NotImplementedError

    def stop(self) -> None:
        """Ask ``run()`` to return after the frame in progress (callable from any callback)."""
        self._stop_requested = True

    def run(self, frames: int | None = None, until: Until = None) -> int:
        """Run frames until ``frames`` have run, ``until`` is reached, or ``stop()`` is called.

        ``until`` is either a clock time in milliseconds (stop once the clock reaches it)
        or a predicate checked before every frame (stop once it returns true). With
        neither, the loop runs until ``stop()``. Returns the number of frames run. If the
        clock stops moving altogether (a ``VirtualClock`` that nothing advances) while no
        frame count bounds the run, ``RuntimeError`` is raised instead of hanging.
        """
        if frames is not None and (isinstance(frames, bool) or not isinstance(frames, int) or frames < 0):
            raise ValueError(f"frames must be None or an int >= 0, got {frames!r}")
        until_ns: int | None = None
        predicate: Callable[[], bool] | None = None
        if callable(until):
            predicate = until
        elif until is not None:
            if isinstance(until, bool) or not isinstance(until, (int, float)) or math.isnan(until):
                raise ValueError(f"until must be a clock time in ms, a predicate or None, got {until!r}")
            until_ns = _until_ns(until)
            if until_ns is None and until < 0:
                return 0
        self._stop_requested = False
        count = 0
        stalled = 0
        while not self._stop_requested:
            if frames is not None and count >= frames:
                break
            if until_ns is not None and _read_clock(self.clock) >= until_ns:
                break
            if predicate is not None and predicate():
                break
            before = self._last_ns
            self.frame()
            count += 1
            if frames is None:
                stalled = stalled + 1 if self._last_ns == before else 0
                if stalled >= _STALLED_FRAMES_LIMIT:
                    raise RuntimeError(
                        f"{type(self).__name__}.run(): the clock {self.clock!r} did not move for "
                        f"{stalled} frames; advance a VirtualClock from update/render, or pass frames="
                    )
        return count


class _SteppedLoop(_Loop):
    """What the fixed-step loops share: the step, the catch-up cap, time dropped, time simulated."""

    def __init__(self, update: Callable[..., Any], render: Callable[[float], Any], *, ms_per_update: float,
                 max_updates_per_frame: int | None, **common: Any) -> None:
        self.ms_per_update = _positive_ms("ms_per_update", ms_per_update)
        self._step = _step_ns("ms_per_update", self.ms_per_update)
        self.max_updates_per_frame = _update_cap("max_updates_per_frame", max_updates_per_frame)
        self._dropped = 0
        super().__init__(update, render, **common)

    @property
    def dropped_ms(self) -> float:
        """Total time debt discarded so far because the catch-up cap was hit (never silent)."""
        return self._dropped / NS_PER_MS

    @property
    def sim_ms(self) -> float:
        """Simulated time reached: ``ticks * ms_per_update``."""
        return self.ticks * self._step / NS_PER_MS
