"""The fixed-step loop with interpolation: tickswap's default game loop."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from engine.clock import NS_PER_MS, Clock
from engine.constants import DEFAULT_MS_PER_UPDATE
from engine.loops.base import _positive_rate, _read_clock, _SteppedLoop
from engine.trace import Trace

__all__ = ["FixedStepLoop", "GameLoop"]


class FixedStepLoop(_SteppedLoop):
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

    The default step (``DEFAULT_MS_PER_UPDATE``, 64 updates a second) is exact in binary
    floating point and in integer nanoseconds, and is not a multiple of a 60 Hz display's
    frame, so frames don't alternate between two updates and none.

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
        ms_per_update: float = DEFAULT_MS_PER_UPDATE,
        max_updates_per_frame: int | None = 5,
        keep_time_debt: bool = False,
        interpolate: bool = True,
        on_frame: Callable[[float], Any] | None = None,
        max_fps: float | None = None,
        process_input: Callable[[], Any] | None = None,
        clock: Clock | None = None,
        trace: Trace | None = None,
    ) -> None:
        self.keep_time_debt = bool(keep_time_debt)
        self.interpolate = bool(interpolate)
        """Whether ``render`` gets ``lag / ms_per_update`` (True) or always 1.0 (False)."""
        self._frame_ns = 0.0 if max_fps is None else 1e9 / _positive_rate("max_fps", max_fps)
        super().__init__(update, render, ms_per_update=ms_per_update, max_updates_per_frame=max_updates_per_frame,
                         process_input=process_input, on_frame=on_frame, clock=clock, trace=trace)
        self._lag = 0
        self._time_scale = 1.0
        self._scale_carry = 0.0
        self._pace_origin = self._last_ns
        self._paced_frames = 0
        self.paused = False
        """While paused no updates run and no lag accumulates; rendering continues."""

    @property
    def lag_ms(self) -> float:
        """Real time owed to the simulation, in milliseconds (less than one step unless behind)."""
        return self._lag / NS_PER_MS

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

    def step(self) -> None:
        """Run exactly one update while paused (single-stepping, for debugging)."""
        if not self.paused:
            raise RuntimeError("step() single-steps a paused loop; set paused = True first")
        if self.trace is not None:
            tick = self.ticks + 1
            self.trace.record("update", self._now_ms(), tick=tick, sim_ms=tick * self._step / NS_PER_MS)
        self._update()
        self.ticks += 1

    def frame(self) -> None:
        """Run one frame: input, as many updates as the lag owes (capped), on_frame, render."""
        # The default loop's frame is written out inline: it runs thousands of times a
        # second, and each helper call would cost more than the accumulator itself.
        trace = self.trace
        now = self._now_ns()
        if type(now) is not int:
            now = _read_clock(self.clock)
        elapsed = now - self._last_ns
        self._last_ns = now
        if trace is not None:
            trace.record("input", now / NS_PER_MS)
        if self._process_input is not None:
            self._process_input()
        if elapsed > 0 and not self.paused:
            if self._time_scale != 1.0:
                # Carry the fraction of a nanosecond so slow motion doesn't drift either.
                exact = elapsed * self._time_scale + self._scale_carry
                elapsed = math.floor(exact)
                self._scale_carry = exact - elapsed
            self._lag += elapsed

        step = self._step
        updates = 0
        if self._lag >= step:
            cap = self.max_updates_per_frame
            update = self._update
            while self._lag >= step and not self.paused:
                if cap is not None and updates >= cap:
                    self._fall_behind(trace)
                    break
                if trace is not None:
                    tick = self.ticks + 1
                    trace.record("update", self._now_ms(), tick=tick, sim_ms=tick * step / NS_PER_MS)
                update()
                self.ticks += 1
                self._lag -= step
                updates += 1
        self.frame_updates = updates

        if trace is not None or self._on_frame is not None:
            self._end_updates(updates * step / NS_PER_MS)
        alpha = self._lag / step if self.interpolate else 1.0
        if alpha > 1.0:
            alpha = 1.0
        self.alpha = alpha
        if trace is not None:
            trace.record("render", self._now_ms(), alpha=alpha)
        self._render(alpha)
        self.frames += 1
        if self._frame_ns:
            self._wait_for_next_frame()

    def _fall_behind(self, trace: Trace | None) -> None:
        """The catch-up cap was hit: drop the debt down to one step, or keep it (lockstep)."""
        debt = self._lag - self._step
        if not self.keep_time_debt:
            self._dropped += debt
            self._lag = self._step
        if trace is not None:
            trace.record("behind", self._now_ms(), ms=debt / NS_PER_MS)

    def _wait_for_next_frame(self) -> None:
        # Each deadline is computed from an origin rather than by adding a rounded period,
        # so pacing doesn't drift; a frame that overran resynchronises to now rather than
        # rushing to make up the lost frames.
        self._paced_frames += 1
        deadline = self._pace_origin + round(self._paced_frames * self._frame_ns)
        now = _read_clock(self.clock)
        if now >= deadline:
            self._pace_origin, self._paced_frames = now, 0
            return
        self._wait((deadline - now) / NS_PER_MS)


GameLoop = FixedStepLoop
"""The default game loop: ``FixedStepLoop`` under the name the pattern is known by."""
