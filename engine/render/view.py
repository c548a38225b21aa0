"""View: the protocol of what draws a world, for games that draw what looks cannot say.

A game's view module (or game file) may define ``make_view(world) -> View``; the runner
then calls ``view.draw(alpha)`` every frame, after clearing the window and before the
HUD, and ``view.delete()`` when it closes. ``alpha`` is how far between the last two
ticks to draw (0.0 = the previous state, 1.0 = the latest; ``entity.draw_position(alpha)``
and ``entity.draw_angle(alpha)`` do the arithmetic). A view only reads the world: it
must never change game state.

The easiest view wraps the standard renderer and adds to it::

    import pyglet
    from engine.render.entities import EntityRenderer

    class MyView:
        def __init__(self, world):
            self.entities = EntityRenderer(world)
            self.batch = pyglet.graphics.Batch()
            self.line = pyglet.shapes.Line(0, 0, 100, 100, batch=self.batch)

        def draw(self, alpha):
            self.entities.draw(alpha)
            self.batch.draw()

        def delete(self):
            self.entities.delete()

    def make_view(world):
        return MyView(world)

Optional: an ``extrapolate`` attribute (F5 toggles it) and an ``entity_count`` (the HUD
shows it; else the world's entity count).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["View"]


@runtime_checkable
class View(Protocol):
    """What ``make_view(world)`` returns: ``draw(alpha)`` every frame, ``delete()`` at the end."""

    def draw(self, alpha: float) -> None:
        """Draw the world ``alpha`` of the way from the previous tick's state to the latest."""

    def delete(self) -> None:
        """Release whatever the view made (GPU buffers, labels)."""
