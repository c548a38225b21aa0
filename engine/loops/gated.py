"""The render-gated loop: frames presented on a steady cadence, adapting to the machine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.clock import NS_PER_MS, Clock
from engine.loops.base import _positive_ms, _read_clock, _SteppedLoop
from engine.trace import Trace

__all__ = ["RenderGatedLoop"]

GROWTH = 1.2
"""An overrun frame sets the interval to this multiple of the time the frame took."""
SHRINK = 0.1
"""With slack, the interval gives back this fraction of its excess over the target per frame."""


class RenderGatedLoop(_SteppedLoop):
    """Render on a steady cadence; step the simulation just past each presentation time.

    Instead of rendering as often as possible, this loop keeps a *render interval*
    (starting at ``render_interval_ms``, 1/60 s by default). After each render it steps
    the simulation (fixed steps of ``ms_per_update``) until simulated time has just
    passed the end of the current interval, waits for that moment, and renders at
    ``proportion = (frame_end - previous_sim_time) / (current_sim_time -
    previous_sim_time)``: where the presentation time falls between the last two logic
    states. Frames are thus presented at even intervals, whatever the update cost does
    from frame to frame.

    The timing follows the pseudo-code of DESIGN.md exactly. ``frame_start`` is read just
    *before* the render, and the frame is expected to end at ``frame_start + interval``
    (the interval as it was then). As soon as the render, or any update after it, has
    taken longer than the current interval, the interval grows to 1.2x the time taken
    so far (checked after the render and after every update, so a render that overruns
    grows the interval in that same frame, not a frame later); a frame whose end has
    already passed when its updates are done is rendered at once, without waiting.
    When there is slack again, the interval shrinks slowly back toward the target (a
    tenth of its excess a frame), but never below 1.2x the frame's busy time: that
    margin is the hysteresis that keeps it from shrinking into an overrun and growing
    straight back. The very first frame renders the initial state at 1.0.

    With a 3 ms render, 1 ms updates, 5 ms steps and a 16 ms interval the timeline is
    ``R0 U5 U10 U15 U20 W16 R16 U25 U30 U35 W32 R32``, and the render at 16 gets
    ``(16 - 15) / (20 - 15) = 0.2``.

    The interval never grows past ``max_render_interval_ms`` (250 ms: 4 frames a second):
    a frame that took longer was a stall (a closed laptop lid, a debugger), not the
    machine's pace, and must not leave the game presenting a frame every ten seconds.
    ``max_updates_per_frame`` (default ``None``: no cap) bounds the catch-up after such a
    stall; time beyond it is dropped and counted in ``dropped_ms``, as in ``FixedStepLoop``.
    """

    def __init__(
        self,
        update: Callable[[], Any],
        render: Callable[[float], Any],
        *,
        ms_per_update: float,
        render_interval_ms: float = 1000 / 60,
        max_render_interval_ms: float = 250.0,
        max_updates_per_frame: int | None = None,
        process_input: Callable[[], Any] | None = None,
        on_frame: Callable[[float], Any] | None = None,
        clock: Clock | None = None,
        trace: Trace | None = None,
    ) -> None:
        self.target_interval_ms = _positive_ms("render_interval_ms", render_interval_ms)
        self.max_interval_ms = max(self.target_interval_ms,
                                   _positive_ms("max_render_interval_ms", max_render_interval_ms))
        super().__init__(update, render, ms_per_update=ms_per_update, max_updates_per_frame=max_updates_per_frame,
                         process_input=process_input, on_frame=on_frame, clock=clock, trace=trace)
        self._interval = self.target_interval_ms * NS_PER_MS
        self._sim_origin = self._last_ns  # the clock time at which simulated time 0 sits
        self._frame_start: int | None = None
        self._frame_end = 0

    @property
    def render_interval_ms(self) -> float:
        """The current render interval: the target, or more on a machine that can't keep up."""
        return self._interval / NS_PER_MS

    def frame(self) -> None:
        """Input, updates until just past the frame's end, wait for it, render at the proportion."""
        self._begin_frame()
        if self._frame_start is None:
            self._end_updates(0.0)
            self._render_frame(1.0)
            return

        step = self._step
        frame_end = self._frame_end
        cap = self.max_updates_per_frame
        updates = 0
        while self._sim_origin + self.ticks * step <= frame_end:
            if cap is not None and updates >= cap:
                skipped = frame_end - (self._sim_origin + self.ticks * step) + 1
                self._sim_origin += skipped
                self._dropped += skipped
                if self.trace is not None:
                    self.trace.record("behind", self._now_ms(), ms=skipped / NS_PER_MS)
                break
            if self.trace is not None:
                tick = self.ticks + 1
                self.trace.record("update", self._now_ms(), tick=tick, sim_ms=tick * step / NS_PER_MS)
            self._update()
            self.ticks += 1
            updates += 1
            self._grow_if_overrun()
        self.frame_updates = updates
        self._end_updates(updates * step / NS_PER_MS)

        now = _read_clock(self.clock)
        if now < frame_end:
            busy = now - self._frame_start
            self._wait((frame_end - now) / NS_PER_MS)
            target = self.target_interval_ms * NS_PER_MS
            shrunk = max(target, GROWTH * busy, self._interval - (self._interval - target) * SHRINK)
            self._interval = min(self._interval, shrunk)
        # else: the frame overran; the checks above already grew the interval. Render now.

        previous_sim = self._sim_origin + (self.ticks - 1) * step
        proportion = (frame_end - previous_sim) / step
        self._render_frame(min(1.0, max(0.0, proportion)))

    def _render_frame(self, proportion: float) -> None:
        """Start the next frame: read ``frame_start``, fix its end, render, check the render's cost."""
        # frame_start is read *before* the render: the render is part of the frame it
        # starts, so its cost counts against that frame's interval.
        self._frame_start = _read_clock(self.clock)
        self._frame_end = self._frame_start + round(self._interval)
        self._present(proportion)
        self._grow_if_overrun()

    def _grow_if_overrun(self) -> None:
        """If the frame so far took longer than the interval, grow it to 1.2x that, at once."""
        assert self._frame_start is not None
        taken = _read_clock(self.clock) - self._frame_start
        if taken > self._interval:
            self._interval = min(GROWTH * taken, self.max_interval_ms * NS_PER_MS)
