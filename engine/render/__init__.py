"""Drawing with pyglet: the only part of tickswap that imports pyglet graphics.

* ``context``: a real window, or an off-screen one through EGL (``headless=True``).
* ``entities``: ``EntityRenderer`` draws every entity at ``draw_position(alpha)``, turned
  by ``draw_angle(alpha)``, from one numpy-filled vertex buffer per ``Look`` (text as
  batched labels), centred on a ``Camera`` if the world has one. Its parts: ``sprites``
  (one look's point sprites), ``shaders`` (the programs that cut their shapes), ``texts``
  (text labels) and ``crowds`` (a crowd's layer).
* ``view``: ``View``, the protocol of a game's own ``make_view(world)``.
* ``sound``: ``SoundPlayer`` plays what ``world.play`` asked for, after each tick;
  ``music``: ``MusicPlayer`` streams what ``world.music`` asked for, one track at a time.
* ``pads``: ``PadReader``, the first connected game controller as input events.
* ``hud``: frames and updates per second, alpha, entity count and a frame-time graph.
* ``runner``: ``GameRunner`` wires a sample game, a loop, a window and input together.
* ``chart``: the loop lab's timelines as a PNG.

pyglet fixes its window backend when ``pyglet.gl`` or ``pyglet.window`` is first imported
(importing them even creates a hidden window on the display). So this package decides
before any of its modules import them: on a machine with no display it selects the
off-screen EGL backend, the only one that can work there. Call ``use_headless(True)``
before importing ``engine.render.entities`` (or making a window) to go off-screen on a
machine that has a display.
"""

from __future__ import annotations

import sys

import pyglet

from engine.render.context import DisplayUnavailable as DisplayUnavailable
from engine.render.context import create_window as create_window
from engine.render.context import has_display as has_display
from engine.render.context import save_screenshot as save_screenshot
from engine.render.context import use_headless as use_headless

if "pyglet.window" not in sys.modules and not has_display():
    pyglet.options["headless"] = True

__all__ = ["DisplayUnavailable", "create_window", "has_display", "save_screenshot", "use_headless"]

