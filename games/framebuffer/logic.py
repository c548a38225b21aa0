"""Framebuffer: a picture drawn pixel by pixel into a double-buffered Scene.

A 160x120 ``Scene`` has two framebuffers; each tick a painter clears the next one and
draws a Lissajous figure into it dot by dot, then the scene swaps. Whoever shows
``scene.buffer`` (the view, scaled up with crisp square pixels) always gets a complete
picture, never a half-drawn one: the picture never tears.

    tickswap run framebuffer --ticks 128
"""

from __future__ import annotations

import math

from engine import Entity, World, buffered
from engine.lab import Framebuffer, Scene

DESCRIPTION = "a 160x120 Scene of two framebuffers, drawn pixel by pixel, never torn"
WIDTH, HEIGHT = 640, 480
SCALE = 4


class Canvas(Entity):
    """Owns the scene and paints the next picture every tick."""

    frame = buffered(0)

    def __init__(self) -> None:
        super().__init__()
        self.scene = Scene(160, 120)

    def on_load(self, world: World) -> None:
        """The pictures are derived state: after a load, make the scene and paint the current one."""
        self.scene = Scene(160, 120)
        self.scene.draw(self.paint)

    def paint(self, target: Framebuffer) -> None:
        phase = self.frame * 0.05
        for i in range(600):
            t = i * 2 * math.pi / 600
            x = int(80 + 70 * math.sin(3 * t + phase))
            y = int(60 + 50 * math.sin(2 * t))
            target.draw(x, y)

    def update(self, world: World) -> None:
        self.frame += 1
        self.scene.draw(self.paint)


def build(world: World) -> None:
    """One canvas."""
    world.spawn(Canvas())
