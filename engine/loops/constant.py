"""The constant-rate loop: update, render, then sleep until the next tick."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.clock import NS_PER_MS, Clock
from engine.loops.base import _Loop, _positive_rate, _read_clock
from engine.trace import Trace

__all__ = ["ConstantRateLoop"]


class ConstantRateLoop(_Loop):
    """Update once, render once, then sleep until the next tick is due.

    The simplest loop that keeps time: ticks are due every ``1000 / fps`` ms
    (``next_tick += SKIP``). It is deterministic, since every update is one tick, but
    the machine sets the pace: on a fast machine the frame rate is capped at the tick
    rate, and on a slow one the game itself slows down. A frame that finishes after its
    tick was due records ``"behind"`` (with how late) instead of ``"wait"``, and the
    schedule restarts from now rather than rushing through missed ticks, which is what
    "the game slows down" means. ``render`` always gets 1.0: there is nothing to
    interpolate between.
    """

    def __init__(
        self,
        update: Callable[[], Any],
        render: Callable[[float], Any],
        *,
        fps: float = 25,
        process_input: Callable[[], Any] | None = None,
        on_frame: Callable[[float], Any] | None = None,
        clock: Clock | None = None,
        trace: Trace | None = None,
    ) -> None:
        self.fps = _positive_rate("fps", fps)
        self.ms_per_update = 1000.0 / self.fps
        super().__init__(update, render, process_input=process_input, on_frame=on_frame, clock=clock, trace=trace)
        self._origin = self._last_ns
        self._scheduled = 0
        self.behind_ms = 0.0
        """Total time the loop ran late: real time that did not become game time."""

    def frame(self) -> None:
        """Input, one update, render, then wait for the next tick (or record being behind)."""
        self._begin_frame()
        if self.trace is not None:
            tick = self.ticks + 1
            self.trace.record("update", self._now_ms(), tick=tick, sim_ms=tick * self.ms_per_update)
        self._update()
        self.ticks += 1
        self.frame_updates = 1
        self._end_updates(self.ms_per_update)
        self._present(1.0)

        # Deadlines come from an origin, not by adding a rounded SKIP, so they don't drift.
        self._scheduled += 1
        next_tick = self._origin + round(self._scheduled * 1e9 / self.fps)
        now = _read_clock(self.clock)
        if now <= next_tick:
            self._wait((next_tick - now) / NS_PER_MS)
        else:
            late_ms = (now - next_tick) / NS_PER_MS
            self.behind_ms += late_ms
            if self.trace is not None:
                self.trace.record("behind", now / NS_PER_MS, ms=late_ms)
            self._origin, self._scheduled = now, 0
