"""The variable-step loop: one update per frame, scaled by the real elapsed time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.clock import NS_PER_MS, Clock
from engine.loops.base import _Loop, _positive_rate
from engine.trace import Trace

__all__ = ["FrameRate", "VariableStepLoop"]


class FrameRate:
    """Turns a frame's elapsed time into a *speed factor* for scaling motion.

    ``tick(elapsed_ms)`` sets ``speed_factor = target_fps * elapsed_ms / 1000``: 1.0 when
    the game runs at its target rate, 100/85 at 85 frames a second with a target of 100.
    Motion written as ``x += speed * speed_factor`` then covers the same distance per
    second at any frame rate. ``fps = target_fps / speed_factor``. A non-positive speed
    factor (a frame that took no measurable time) is replaced by 1.
    """

    def __init__(self, target_fps: float) -> None:
        self.target_fps = _positive_rate("target_fps", target_fps)
        self.speed_factor = 1.0
        """How much to scale this frame's motion (1.0 at the target frame rate)."""
        self.fps = self.target_fps
        """The frame rate the last frame ran at."""

    def tick(self, elapsed_ms: float) -> float:
        """Account for one frame of ``elapsed_ms``; return the new speed factor."""
        factor = self.target_fps * elapsed_ms / 1000.0
        if not factor > 0:
            factor = 1.0
        self.speed_factor = factor
        self.fps = self.target_fps / factor
        return factor

    def __repr__(self) -> str:
        return f"FrameRate(target_fps={self.target_fps}, fps={self.fps:.1f}, speed_factor={self.speed_factor:.3f})"


class VariableStepLoop(_Loop):
    """Run one ``update(elapsed_ms)`` per frame with the real time since the last frame.

    The loop adapts to any machine: a fast one renders more often with smaller steps,
    a slow one fewer and larger. The price is determinism. Floating-point error
    accumulates differently with different step sizes, so two machines (or two runs at
    different frame rates) end in different states, which breaks replays and lockstep
    networking; and a very long frame makes a very large step, through which physics can
    tunnel. ``rate`` is the loop's ``FrameRate`` (``rate.speed_factor``, ``rate.fps``).
    ``render`` always gets 1.0.
    """

    def __init__(
        self,
        update: Callable[[float], Any],
        render: Callable[[float], Any],
        *,
        target_fps: float = 60,
        process_input: Callable[[], Any] | None = None,
        on_frame: Callable[[float], Any] | None = None,
        clock: Clock | None = None,
        trace: Trace | None = None,
    ) -> None:
        self.rate = FrameRate(target_fps)
        super().__init__(update, render, process_input=process_input, on_frame=on_frame, clock=clock, trace=trace)
        self.sim_ns = 0
        """Game time simulated so far, exactly: the sum of every frame's elapsed nanoseconds."""
        self.sim_ms = 0.0
        """Game time simulated so far as the game saw it: the float sum of every elapsed_ms."""

    def frame(self) -> None:
        """Input, one ``update(elapsed_ms)``, render."""
        elapsed_ns = self._begin_frame()
        elapsed_ms = elapsed_ns / NS_PER_MS
        self.sim_ns += elapsed_ns
        self.rate.tick(elapsed_ms)
        self.sim_ms += elapsed_ms
        if self.trace is not None:
            self.trace.record("update", self._now_ms(), tick=self.ticks + 1, sim_ms=self.sim_ms)
        self._update(elapsed_ms)
        self.ticks += 1
        self.frame_updates = 1
        self._end_updates(elapsed_ms)
        self._present(1.0)
