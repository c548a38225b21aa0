"""Game loops: how real time turns into logic updates and rendered frames.

A game loop decouples the progression of game time from user input and processor
speed. Here are the classic loops side by side, all driven by an injected clock, all
recording what they do into an optional ``Trace``, so that users can compare them on
the same game (``tickswap lab`` does exactly that):

1. ``ConstantRateLoop``: update, render, sleep until the next tick. Simple; the game
   slows down on a slow machine and the frame rate is capped at the tick rate.
2. ``VariableStepLoop``: one ``update(elapsed_ms)`` per frame, motion scaled by a speed
   factor. Smooth on any machine, but not deterministic: float error accumulates
   differently at different frame rates.
3. ``FixedStepLoop(interpolate=False)``: fixed steps, caught up with several updates per
   frame, rendered once per frame as the latest state.
4. ``FixedStepLoop`` (also ``GameLoop``, the default): as 3, and render gets
   ``alpha = lag / ms_per_update`` to draw between the last two logic states.
5. ``RenderGatedLoop``: renders on a steady cadence, stepping the simulation just past
   each frame's presentation time and adapting the interval to the machine.

``LOOPS`` names them (``tickswap run --loop NAME``) and ``make_loop(name, update, render)``
builds one by name; every loop is a ``Loop``.

A game runs under ``FixedStepLoop`` (``engine.FixedStepLoop``, ``engine.GameLoop``); the
others, ``FrameRate`` and the loops' ``Trace`` and ``TraceEvent`` are the loop lab, for
comparing loops, and are imported from here (``engine.ConstantRateLoop`` and the like warn
until 0.6).
"""

from __future__ import annotations

from engine.loops.base import Loop as Loop
from engine.loops.base import Until as Until
from engine.loops.constant import ConstantRateLoop as ConstantRateLoop
from engine.loops.fixed import FixedStepLoop as FixedStepLoop
from engine.loops.fixed import GameLoop as GameLoop
from engine.loops.gated import RenderGatedLoop as RenderGatedLoop
from engine.loops.registry import LOOPS as LOOPS
from engine.loops.registry import LoopKind as LoopKind
from engine.loops.registry import make_loop as make_loop
from engine.loops.variable import FrameRate as FrameRate
from engine.loops.variable import VariableStepLoop as VariableStepLoop
from engine.trace import Trace as Trace
from engine.trace import TraceEvent as TraceEvent

__all__ = ["LOOPS", "ConstantRateLoop", "FixedStepLoop", "FrameRate", "GameLoop", "Loop", "LoopKind", "RenderGatedLoop",
           "Trace", "TraceEvent", "Until", "VariableStepLoop", "make_loop"]
