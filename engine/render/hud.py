"""The HUD: frames and updates per second, alpha, updates per frame, entities, frame times.

Toggled with F1 by the runner. It reads the loop and the world and never changes them.
Text is re-laid-out four times a second, not every frame (pyglet text layout is costly);
the frame-time graph is one vertex list rewritten through numpy.

On a small window (narrower than ``COMPACT_BELOW[0]`` or lower than ``COMPACT_BELOW[1]``
pixels, a 480x448 jam game's) the HUD is compact: smaller type, a graph half as tall and
half as wide, and a backdrop no wider than its text, so that it takes a strip along the
bottom edge and leaves the play field visible (``engine.render.studio`` keeps the
inspector above that strip).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np
import pyglet
from pyglet.gl import GL_LINES

from engine.render.shaders import carrying_vertex
from engine.world import population

__all__ = ["COMPACT_BELOW", "COMPACT_TOP", "Hud", "compact"]

_VERTEX_SOURCE = carrying_vertex("vec4", "colors", "vertex_colors")
_FRAGMENT_SOURCE = """#version 330 core
in vec4 vertex_colors;
out vec4 final_colors;
void main() { final_colors = vertex_colors; }
"""
SAMPLES = 120
"""Frames shown in the frame-time graph."""
MS_PER_PIXEL = 0.5
"""Graph scale: a 16.7 ms frame is a bar 33 pixels tall."""
GRAPH_MS = 40.0
"""The longest frame time the graph shows (it fills the backdrop's height)."""
GRAPH_TOP = 8 + GRAPH_MS / MS_PER_PIXEL
"""The highest pixel row a graph bar reaches (the bars stand on row 8)."""
TEXT_BOTTOM = GRAPH_TOP + 4
"""The text starts above the graph, so no bar or reference line runs through it however many lines wrap."""
COMPACT_BELOW = (640, 480)
"""A window narrower or lower than this (width, height) gets the compact HUD (see the module docstring)."""
COMPACT_MS_PER_PIXEL = 2 * MS_PER_PIXEL
"""The compact graph's scale: its bars half as tall (a 16.7 ms frame is a bar 17 pixels tall)."""
COMPACT_TEXT_BOTTOM = 8 + GRAPH_MS / COMPACT_MS_PER_PIXEL + 4
"""Where the compact HUD's text starts: above its lower graph."""
COMPACT_TOP = 96
"""The highest row the compact HUD's backdrop reaches with its usual two lines (a third, wrapped, may pass it):
what the inspector leaves free at the bottom of a small window."""
_FONT, _COMPACT_FONT = 10, 8


def compact(window: Any) -> bool:
    """Whether ``window`` is small enough for the compact HUD and inspector (``COMPACT_BELOW``)."""
    return bool(window.width < COMPACT_BELOW[0] or window.height < COMPACT_BELOW[1])


class Hud:
    """Statistics drawn over the game, bottom left; ``visible`` toggles it."""

    def __init__(self, window: Any, loop: Any, world: Any) -> None:
        from pyglet.graphics.shader import Shader, ShaderProgram

        self.window = window
        self.loop = loop
        self.world = world
        self.visible = True
        self.note = ""
        """A short status line (paused, interpolation off, ...) the runner sets."""
        self.profile: Any = None
        """A ``TickProfile`` timing the ticks (``--profile``): its one-line summary is shown, or ``None``."""
        self._times: deque[float] = deque([0.0] * SAMPLES, maxlen=SAMPLES)
        self._batch = pyglet.graphics.Batch()
        program = ShaderProgram(Shader(_VERTEX_SOURCE, "vertex"), Shader(_FRAGMENT_SOURCE, "fragment"))
        # A translucent backdrop first, so the text reads on any game's colours.
        self._backdrop = pyglet.shapes.Rectangle(4, 4, 520, TEXT_BOTTOM, color=(0, 0, 0, 170), batch=self._batch,
                                                 group=pyglet.graphics.Group(order=0))
        group = pyglet.graphics.ShaderGroup(program, order=1)
        count = SAMPLES * 2 + 2
        colors = [120, 220, 120, 255] * (SAMPLES * 2) + [255, 90, 90, 255] * 2
        self._graph = program.vertex_list(count, GL_LINES, batch=self._batch, group=group,
                                          position=("f", [0.0] * (count * 2)), colors=("Bn", colors))
        buffer = self._graph.domain.attrib_name_buffers["position"]
        start = self._graph.start * 2
        self._positions = np.ctypeslib.as_array(buffer.data)[start:start + count * 2].reshape(count, 2)
        self._buffer = buffer
        self._label = pyglet.text.Label("", x=8, y=TEXT_BOTTOM, anchor_y="bottom", multiline=True, width=510,
                                        font_size=_FONT, color=(255, 255, 255, 255), batch=self._batch,
                                        group=pyglet.graphics.Group(order=2))
        self._last_text = -1.0
        self._frames_then = 0
        self._ticks_then = 0
        self._fps = 0.0
        self._ups = 0.0
        self._samples: deque[tuple[float, int, int]] = deque(maxlen=5)

    def frame_time(self, ms: float) -> None:
        """Record how long the last frame took (real time), for the graph."""
        self._times.append(ms)

    def draw(self, now_ms: float) -> None:
        """Draw the HUD at clock time ``now_ms`` (rates are measured against it)."""
        if not self.visible:
            return
        elapsed = now_ms - self._last_text
        if self._last_text < 0 or elapsed >= 250:
            # Rates over the last second, refreshed every quarter: a quarter second holds too
            # few ticks (16 at 64 a second) to count them without flicker between 56 and 68.
            self._samples.append((now_ms, self.loop.frames, self.loop.ticks))
            since, frames, ticks = self._samples[0]
            if now_ms > since:
                self._fps = (self.loop.frames - frames) * 1000 / (now_ms - since)
                self._ups = (self.loop.ticks - ticks) * 1000 / (now_ms - since)
            self._frames_then, self._ticks_then, self._last_text = self.loop.frames, self.loop.ticks, now_ms
            entities = population(self.world)  # the summary line's count, in its words
            # Until a quarter second has passed there is no rate to show yet: say so.
            rates = (f"{self._fps:5.1f} fps  {self._ups:5.1f} ups" if self._frames_then or self._fps
                     else "  -- fps    -- ups")
            # As wide as the window allows (a 480-pixel window is narrower than the HUD's 520):
            # longer lines wrap, and the text and its backdrop grow upward, away from the graph.
            small = compact(self.window)
            font, bottom = (_COMPACT_FONT, COMPACT_TEXT_BOTTOM) if small else (_FONT, TEXT_BOTTOM)
            if self._label.font_size != font:
                self._label.font_size = font
            self._label.y = bottom
            self._label.width = max(64, min(510, self.window.width - 16))
            self._label.text = (
                f"{rates}  alpha {self.loop.alpha:.2f}  "
                f"updates/frame {self.loop.frame_updates}  {entities}\n"
                f"{type(self.loop).__name__}  {self.note}"
                + (f"\n{self.profile.summary()}" if self.profile is not None else "")
            )
            # No wider than the text and the graph (a small window's play field shows beside it).
            graph = 8 + SAMPLES * (1 if small else 2)
            self._backdrop.width = min(self._label.width, max(self._label.content_width, graph - 8)) + 10
            top = self._label.y + self._label.content_height + 4
            self._backdrop.height = top - self._backdrop.y
        small = compact(self.window)
        scale, step = (COMPACT_MS_PER_PIXEL, 1) if small else (MS_PER_PIXEL, 2)
        times = np.asarray(self._times, dtype=np.float32)
        bars = self._positions[: SAMPLES * 2].reshape(SAMPLES, 2, 2)
        bars[:, :, 0] = (8 + np.arange(SAMPLES, dtype=np.float32) * step)[:, None]
        bars[:, 0, 1] = 8
        # Capped at the backdrop's top: a stall draws a full bar, not a line across the game.
        bars[:, 1, 1] = 8 + np.minimum(times, GRAPH_MS) / scale
        budget = 8 + (1000 / 60) / scale
        self._positions[SAMPLES * 2:] = ((8, budget), (8 + SAMPLES * step, budget))
        self._buffer.invalidate_region(self._graph.start, SAMPLES * 2 + 2)
        self._batch.draw()
