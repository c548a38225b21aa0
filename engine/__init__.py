"""tickswap: fixed-step game loops, Update Method entities and double-buffered state.

Everything importable here runs headless: ``import engine`` never opens a window or
touches OpenGL. Drawing lives in ``engine.render``, imported only by code that draws.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from engine import easing as easing
from engine.camera import Camera as Camera
from engine.camera import Mouse as Mouse
from engine.clock import Clock as Clock
from engine.clock import RealClock as RealClock
from engine.clock import VirtualClock as VirtualClock
from engine.entity import Entity as Entity
from engine.entity import buffered as buffered
from engine.entity import signal as signal
from engine.errors import BufferedWriteError as BufferedWriteError
from engine.errors import EntityUpdateError as EntityUpdateError
from engine.gui import Button as Button
from engine.gui import Label as Label
from engine.gui import Panel as Panel
from engine.gui import Slider as Slider
from engine.gui import Style as Style
from engine.gui import TextInput as TextInput
from engine.gui import Widget as Widget
from engine.gui import widget_under_mouse as widget_under_mouse
from engine.input import InputEvent as InputEvent
from engine.input import InputQueue as InputQueue
from engine.input import TickInput as TickInput
from engine.input import keys as keys
from engine.look import Look as Look
from engine.look import Part as Part
from engine.loops import FixedStepLoop as FixedStepLoop
from engine.loops import GameLoop as GameLoop
from engine.path import Follower as Follower
from engine.path import Path as Path
from engine.state.names import __version__ as __version__
from engine.tween import Tweened as Tweened
from engine.world import World as World

# ``import engine.keys`` (0.2's module, now engine.input.keys) keeps working: the same module by its old path.
sys.modules.setdefault("engine.keys", keys)

if TYPE_CHECKING:
    from engine.crowd import Crowd as Crowd
    from engine.files.replay import ReplayError as ReplayError
    from engine.particles import Particles as Particles
    from engine.tiles import Tile as Tile
    from engine.tiles import TileMap as TileMap
    from engine.world.save import SaveError as SaveError

if TYPE_CHECKING:
    # The names 0.5 moved out (see _MOVED), still known to a type checker while their aliases last.
    from engine.lab import DoubleBuffer as DoubleBuffer
    from engine.lab import Framebuffer as Framebuffer
    from engine.lab import Scene as Scene
    from engine.loops import ConstantRateLoop as ConstantRateLoop
    from engine.loops import FrameRate as FrameRate
    from engine.loops import RenderGatedLoop as RenderGatedLoop
    from engine.loops import Trace as Trace
    from engine.loops import TraceEvent as TraceEvent
    from engine.loops import VariableStepLoop as VariableStepLoop

# Names loaded when a game first uses them, so that ``import engine`` stays light:
# ``Crowd`` and ``Particles`` bring numpy, the two file errors the save and replay packages,
# and the tile map (pytiled-parser is imported only when a map is read) its package.
_LAZY = {"Crowd": "engine.crowd", "Particles": "engine.particles", "ReplayError": "engine.files.replay",
         "SaveError": "engine.world.save", "Tile": "engine.tiles", "TileMap": "engine.tiles"}


# Names 0.5 moved out of the package root, which is for writing games: the loop lab (the
# loops a game compares but does not run, and their traces) lives in engine.loops, the Game
# Programming Patterns teaching classes in engine.lab. Each still works here, warning, until 0.6.
_MOVED = {"ConstantRateLoop": "engine.loops", "FrameRate": "engine.loops", "RenderGatedLoop": "engine.loops",
          "Trace": "engine.loops", "TraceEvent": "engine.loops", "VariableStepLoop": "engine.loops",
          "DoubleBuffer": "engine.lab", "Framebuffer": "engine.lab", "Scene": "engine.lab"}


def __getattr__(name: str) -> Any:
    if name in _LAZY or name in _MOVED:
        import importlib

        home = _LAZY.get(name) or _MOVED[name]
        value = getattr(importlib.import_module(home), name)
        if name in _MOVED:
            from engine.deprecation import MOVED_REMOVED_IN, warn_deprecated

            # Not cached: every use warns, so each line that still says engine.Scene is found.
            warn_deprecated(f"engine.{name}", f"{home}.{name}", removed_in=MOVED_REMOVED_IN)
            return value
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'engine' has no attribute {name!r}")


def __dir__() -> list[str]:
    # The lazy names are part of the API: ``dir()``, autodoc and completion must see them.
    return sorted({*globals(), *_LAZY})


def run(build: Callable[[World], object], argv: list[str] | None = None) -> NoReturn:
    """Run the game whose ``build(world)`` this is, with ``tickswap run``'s options, and exit.

    A game file is a whole program: ``if __name__ == "__main__": run(build)`` makes
    ``python comet.py --headless --frames 60 --screenshot c.png`` (and ``--ticks``,
    ``--record``, ``--save-at``, ``--load``, ``--input``, ``--no-hud``...) work, through
    the same code as ``tickswap run comet.py``, with the same hashes. ``argv`` defaults
    to the command line. Exits with the command's status (0, 1 crashed, 2 bad input, 130
    Ctrl-C). The command line (and pyglet, when drawing) is imported only when called,
    so ``import engine`` stays headless and light.
    """
    from engine.tools.cli import run_game

    raise SystemExit(run_game(build, argv))


__all__ = [
    "BufferedWriteError",
    "Button",
    "Camera",
    "Clock",
    "Crowd",
    "Entity",
    "EntityUpdateError",
    "FixedStepLoop",
    "Follower",
    "GameLoop",
    "InputEvent",
    "InputQueue",
    "Label",
    "Look",
    "Mouse",
    "Panel",
    "Part",
    "Particles",
    "Path",
    "RealClock",
    "ReplayError",
    "SaveError",
    "Slider",
    "Style",
    "TextInput",
    "TickInput",
    "Tile",
    "TileMap",
    "Tweened",
    "VirtualClock",
    "Widget",
    "World",
    "buffered",
    "easing",
    "keys",
    "run",
    "signal",
    "widget_under_mouse",
]
