"""Game loops: how real time turns into logic updates and rendered frames.

A game loop decouples the progression of game time from user input and processor
speed. This module holds the classic loops side by side, all driven by an injected
clock, all recording what they do into an optional ``Trace``:

* ``FixedStepLoop`` (also ``GameLoop``): fixed-step logic driven by a lag accumulator,
  rendering as often as possible with ``alpha = lag / ms_per_update`` (the default).

Every loop takes ``update`` and ``render`` callables plus keyword-only
``process_input``, ``clock`` and ``trace``; every loop has ``frame()`` (one pass of the
main loop), ``run(frames=None, until=None)``, ``stop()``, ``ticks`` and ``frames``.
A loop takes its first clock reading when it is constructed, so the first ``frame()``
accounts for the time since then. Within a frame the order is always: input, updates,
the per-frame hook, render.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Union

from engine.clock import NS_PER_MS, Clock, RealClock
from engine.trace import Trace

__all__ = ["FixedStepLoop", "GameLoop", "Until"]

Until = Union[float, int, Callable[[], bool], None]
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


def _positive_ms(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number of milliseconds, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive, finite number of milliseconds, got {value!r}")
    return float(value)


def _positive_rate(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number per second, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive, finite number per second, got {value!r}")
    return float(value)


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


class _Loop:
    """What every loop shares: callbacks, clock, trace, counters, ``run`` and ``stop``."""

    def __init__(
        self,
        update: Callable[..., Any],
        render: Callable[[float], Any],
        *,
        process_input: Callable[[], Any] | None = None,
        clock: Clock | None = None,
        trace: Trace | None = None,
    ) -> None:
        self._update = _require_callable("update", update)
        self._render = _require_callable("render", render)
        self._process_input = _require_callable("process_input", process_input, optional=True)
        if clock is None:
            clock = RealClock()
        elif not callable(getattr(clock, "now_ns", None)) or not callable(getattr(clock, "sleep_ms", None)):
            raise TypeError(f"clock must have now_ns() and sleep_ms(ms) methods, got {clock!r}")
        if trace is not None and not isinstance(trace, Trace):
            raise TypeError(f"trace must be a Trace or None, got {trace!r}")
        self.clock: Clock = clock
        self.trace: Trace | None = trace
        self.ticks = 0
        """Logic updates run so far."""
        self.frames = 0
        """Passes of the main loop (``frame()`` calls) so far."""
        self._stop_requested = False
        self._last_ns = _read_clock(clock)

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
            until_ns = round(until * NS_PER_MS) if math.isfinite(until) else None
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


class FixedStepLoop(_Loop):
    """Run game logic in fixed steps and render as often as the machine allows.

    Real time accumulates as *lag*; each frame runs ``update()`` while at least one
    step of lag is owed, then calls ``render(lag / ms_per_update)`` so the view can
    draw between the last two logic states. Because every update advances the game by
    exactly ``ms_per_update``, the game's state depends only on its inputs, never on the
    frame rate: the same inputs give bit-identical results on any machine.

    A slow frame is caught up with at most ``max_updates_per_frame`` updates, so a slow
    machine degrades instead of spiralling (each catch-up update makes the next frame
    slower still). When the cap is hit, a single-player game *discards* the time debt:
    lag is cut back to one step, the game falls behind real time, harmlessly, and the
    discarded time is added to ``dropped_ms`` and traced as ``"behind"``. A lockstep or
    networked game passes ``keep_time_debt=True`` and works the debt off over the
    following frames instead, since every peer must simulate the same ticks.

    The default step, 15.625 ms (64 updates a second), is exact in binary floating point
    and in integer nanoseconds, and is not a multiple of a 60 Hz display's frame, so
    frames don't alternate between two updates and none.

    ``interpolate=False`` gives the "fixed step, max fps" loop: ``render`` always gets
    1.0 and draws the latest state. ``on_frame(frame_ms)`` runs once per frame after the
    updates, with the simulated time they covered: the place for input pumping, HUD and
    anything that must not affect game state. ``max_fps`` (default ``None``: as often as
    possible) waits at the end of each frame until the next frame is due, like vsync.
    """

    def __init__(
        self,
        update: Callable[[], Any],
        render: Callable[[float], Any],
        *,
        ms_per_update: float = 15.625,
        max_updates_per_frame: int | None = 5,
        keep_time_debt: bool = False,
        interpolate: bool = True,
        on_frame: Callable[[float], Any] | None = None,
        max_fps: float | None = None,
        process_input: Callable[[], Any] | None = None,
        clock: Clock | None = None,
        trace: Trace | None = None,
    ) -> None:
        self.ms_per_update = _positive_ms("ms_per_update", ms_per_update)
        self._step = _step_ns("ms_per_update", self.ms_per_update)
        self.max_updates_per_frame = _update_cap("max_updates_per_frame", max_updates_per_frame)
        self.keep_time_debt = bool(keep_time_debt)
        self.interpolate = bool(interpolate)
        """Whether ``render`` gets ``lag / ms_per_update`` (True) or always 1.0 (False)."""
        self._on_frame = _require_callable("on_frame", on_frame, optional=True)
        self._frame_ns = 0.0 if max_fps is None else 1e9 / _positive_rate("max_fps", max_fps)
        super().__init__(update, render, process_input=process_input, clock=clock, trace=trace)
        self._lag = 0
        self._dropped = 0
        self._time_scale = 1.0
        self._scale_carry = 0.0
        self._pace_origin = self._last_ns
        self._paced_frames = 0
        self.paused = False
        """While paused no updates run and no lag accumulates; rendering continues."""
        self.alpha = 0.0
        """The alpha handed to the latest render."""
        self.frame_updates = 0
        """How many updates the latest frame ran (for a HUD)."""

    @property
    def lag_ms(self) -> float:
        """Real time owed to the simulation, in milliseconds (less than one step unless behind)."""
        return self._lag / NS_PER_MS

    @property
    def dropped_ms(self) -> float:
        """Total time debt discarded so far because the catch-up cap was hit."""
        return self._dropped / NS_PER_MS

    @property
    def sim_ms(self) -> float:
        """Simulated time reached: ``ticks * ms_per_update``."""
        return self.ticks * self._step / NS_PER_MS

    @property
    def time_scale(self) -> float:
        """How fast game time runs against the clock: 1.0 real time, 0.5 slow motion, 0 frozen."""
        return self._time_scale

    @time_scale.setter
    def time_scale(self, value: float) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"time_scale must be a number, got {value!r}")
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"time_scale must be finite and >= 0, got {value!r}")
        self._time_scale = float(value)

    def _run_update(self, trace: Trace | None) -> None:
        if trace is not None:
            tick = self.ticks + 1
            trace.record("update", self._now_ms(), tick=tick, sim_ms=tick * self._step / NS_PER_MS)
        self._update()
        self.ticks += 1

    def step(self) -> None:
        """Run exactly one update while paused (single-stepping, for debugging)."""
        if not self.paused:
            raise RuntimeError("step() single-steps a paused loop; set paused = True first")
        self._run_update(self.trace)

    def frame(self) -> None:
        """Run one frame: input, as many updates as the lag owes (capped), on_frame, render."""
        trace = self.trace
        elapsed = self._begin_frame()
        if not self.paused and elapsed:
            if self._time_scale != 1.0:
                # Carry the fraction of a nanosecond so slow motion doesn't drift either.
                exact = elapsed * self._time_scale + self._scale_carry
                elapsed = math.floor(exact)
                self._scale_carry = exact - elapsed
            self._lag += elapsed

        step = self._step
        cap = self.max_updates_per_frame
        updates = 0
        while self._lag >= step and not self.paused:
            if cap is not None and updates >= cap:
                self._fall_behind(trace)
                break
            self._run_update(trace)
            self._lag -= step
            updates += 1
        self.frame_updates = updates

        frame_ms = updates * step / NS_PER_MS
        if trace is not None:
            trace.record("frame", self._now_ms(), ms=frame_ms)
        if self._on_frame is not None:
            self._on_frame(frame_ms)

        alpha = min(1.0, self._lag / step) if self.interpolate else 1.0
        self.alpha = alpha
        if trace is not None:
            trace.record("render", self._now_ms(), alpha=alpha)
        self._render(alpha)
        self.frames += 1
        if self._frame_ns:
            self._wait_for_next_frame(trace)

    def _fall_behind(self, trace: Trace | None) -> None:
        """The catch-up cap was hit: drop the debt down to one step, or keep it (lockstep)."""
        debt = self._lag - self._step
        if not self.keep_time_debt:
            self._dropped += debt
            self._lag = self._step
        if trace is not None:
            trace.record("behind", self._now_ms(), ms=debt / NS_PER_MS)

    def _wait_for_next_frame(self, trace: Trace | None) -> None:
        # Each deadline is computed from an origin rather than by adding a rounded period,
        # so pacing doesn't drift; a frame that overran resynchronises to now rather than
        # rushing to make up the lost frames.
        self._paced_frames += 1
        deadline = self._pace_origin + round(self._paced_frames * self._frame_ns)
        now = _read_clock(self.clock)
        if now >= deadline:
            self._pace_origin, self._paced_frames = now, 0
            return
        wait_ms = (deadline - now) / NS_PER_MS
        if trace is not None:
            trace.record("wait", now / NS_PER_MS, ms=wait_ms)
        self.clock.sleep_ms(wait_ms)


GameLoop = FixedStepLoop
"""The default game loop: ``FixedStepLoop`` under the name the pattern is known by."""
