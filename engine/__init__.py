"""tickswap: fixed-step game loops, Update Method entities and double-buffered state.

Everything importable here runs headless: ``import engine`` never opens a window or
touches OpenGL. Drawing lives in ``engine.render``, imported only by code that draws.
"""

from __future__ import annotations

from engine.clock import Clock as Clock
from engine.clock import RealClock as RealClock
from engine.clock import VirtualClock as VirtualClock
from engine.loops import FixedStepLoop as FixedStepLoop
from engine.loops import GameLoop as GameLoop
from engine.trace import Trace as Trace
from engine.trace import TraceEvent as TraceEvent

__version__ = "0.1.0"

__all__ = [
    "Clock",
    "FixedStepLoop",
    "GameLoop",
    "RealClock",
    "Trace",
    "TraceEvent",
    "VirtualClock",
]
