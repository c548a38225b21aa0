"""Loops by name: the one table that ``tickswap run --loop``, the runner and the lab build loops from.

A name is what a user types (``--loop gated``); ``LOOPS`` maps it to how that loop is
built from an ``update`` and a ``render``, and to the few facts the code around a loop
needs about it (whether its render interpolates, whether it renders as often as it can,
whether ``max_fps`` paces it). The table's order is the order of the Background section
of DESIGN.md, from the simplest loop to the most elaborate: the command line offers the
names in it and the lab reports them in it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.clock import Clock
from engine.loops.base import Loop
from engine.loops.constant import ConstantRateLoop
from engine.loops.fixed import FixedStepLoop
from engine.loops.gated import RenderGatedLoop
from engine.loops.variable import VariableStepLoop
from engine.trace import Trace

__all__ = ["LOOPS", "LoopKind", "make_loop"]

Build = Callable[[Callable[..., Any], Callable[[float], Any], float, float | None, dict[str, Any]], Loop]
"""How a table entry builds its loop (see ``LoopKind.build``)."""


@dataclass(frozen=True)
class LoopKind:
    """One named loop: how to build it, and what its drivers need to know about it."""

    name: str
    description: str
    build: Build
    """``build(update, render, ms_per_update, max_fps, common)``: ``common`` holds the keywords every loop takes."""
    interpolates: bool = False
    """Whether ``render`` is handed a fraction of a step to draw between two states (not always 1.0)."""
    renders_freely: bool = False
    """Whether it renders as often as it can: off-screen, each render stands in for a display refresh."""
    takes_max_fps: bool = False
    """Whether ``max_fps`` paces it (the fixed-step loops); the others pace themselves or not at all."""


def _elapsed_update(update: Callable[..., Any]) -> Callable[[float], Any]:
    """``update`` itself if it takes the frame's elapsed ms, else a wrapper that drops it.

    A tick that takes no argument still ticks once per frame under the variable-step
    loop, whatever the frame's length (the game then runs as fast as frames come).
    """
    try:
        inspect.signature(update).bind(0.0)
        return update
    except (TypeError, ValueError):  # takes no elapsed time (ValueError: no signature to read)
        def dropped(elapsed_ms: float) -> Any:
            return update()
        return dropped


def _constant(update: Callable[..., Any], render: Callable[[float], Any], ms_per_update: float,
              max_fps: float | None, common: dict[str, Any]) -> Loop:
    return ConstantRateLoop(update, render, fps=1000 / ms_per_update, **common)


def _variable(update: Callable[..., Any], render: Callable[[float], Any], ms_per_update: float,
              max_fps: float | None, common: dict[str, Any]) -> Loop:
    return VariableStepLoop(_elapsed_update(update), render, target_fps=1000 / ms_per_update, **common)


def _max_fps(update: Callable[..., Any], render: Callable[[float], Any], ms_per_update: float,
             max_fps: float | None, common: dict[str, Any]) -> Loop:
    return FixedStepLoop(update, render, ms_per_update=ms_per_update, interpolate=False, max_fps=max_fps, **common)


def _fixed(update: Callable[..., Any], render: Callable[[float], Any], ms_per_update: float,
           max_fps: float | None, common: dict[str, Any]) -> Loop:
    return FixedStepLoop(update, render, ms_per_update=ms_per_update, max_fps=max_fps, **common)


def _gated(update: Callable[..., Any], render: Callable[[float], Any], ms_per_update: float,
           max_fps: float | None, common: dict[str, Any]) -> Loop:
    return RenderGatedLoop(update, render, ms_per_update=ms_per_update, **common)


LOOPS: dict[str, LoopKind] = {kind.name: kind for kind in (
    LoopKind("constant", "constant rate: update, render, sleep until the next tick", _constant),
    LoopKind("variable", "variable step: one update per frame, scaled by the frame's length", _variable,
             renders_freely=True),
    LoopKind("max-fps", "fixed step, no interpolation: renders the latest state", _max_fps,
             renders_freely=True, takes_max_fps=True),
    LoopKind("fixed", "fixed step, interpolated (the default)", _fixed,
             interpolates=True, renders_freely=True, takes_max_fps=True),
    LoopKind("gated", "render-gated: steady renders, the simulation stepped just past each", _gated,
             interpolates=True),
)}
"""Every loop by the name the command line uses, simplest first."""


def make_loop(name: str, update: Callable[..., Any], render: Callable[[float], Any], *, ms_per_update: float,
              clock: Clock | None = None, trace: Trace | None = None, process_input: Callable[[], Any] | None = None,
              on_frame: Callable[[float], Any] | None = None, max_fps: float | None = None) -> Loop:
    """Build loop ``name`` (a key of ``LOOPS``) running ``update`` every step and ``render(alpha)`` every frame.

    The fixed-step loops call ``update()``; the variable-step loop calls
    ``update(elapsed_ms)`` with the frame's real elapsed time when ``update`` accepts
    it (so that it can pass it on to ``world.tick(elapsed_ms)``), else ``update()``.
    ``ms_per_update`` is the step (the constant-rate and variable-step loops aim at its
    rate); ``max_fps`` is refused for a loop it does not pace.
    """
    kind = LOOPS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise ValueError(f"unknown loop {name!r}; the loops are {', '.join(LOOPS)}")
    if max_fps is not None and not kind.takes_max_fps:
        raise ValueError(f"max_fps paces the fixed-step loops; the {name!r} loop paces itself or not at all")
    common: dict[str, Any] = {"process_input": process_input, "clock": clock, "on_frame": on_frame, "trace": trace}
    return kind.build(update, render, ms_per_update, max_fps, common)
