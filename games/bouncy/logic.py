"""Bouncy: the classic interpolation demo, a ball at 25 updates a second.

Logic runs only 25 times a second and the ball moves 16 units per update, so drawn
without interpolation it visibly jumps; with interpolation (the default) each frame
draws it between its last two positions and it glides. Press F4 to toggle
interpolation and F5 for extrapolation and see the difference.

    tickswap run bouncy --ticks 250
"""

from __future__ import annotations

from engine import Entity, World

DESCRIPTION = "a ball at 25 updates a second: F4 toggles interpolation, F5 extrapolation"
WIDTH, HEIGHT = 640, 360
MS_PER_UPDATE = 40.0


class Ball(Entity):
    """Moves 16 units per update and bounces off the walls."""

    saved = ("dx", "dy")

    def __init__(self, x: float, y: float, dx: float, dy: float) -> None:
        super().__init__(x=x, y=y)
        self.dx, self.dy = dx, dy

    def update(self, world: World) -> None:
        self.x += self.dx
        self.y += self.dy
        if not 12 <= self.x <= WIDTH - 12:
            self.dx = -self.dx
            self.x = min(WIDTH - 12.0, max(12.0, self.x))
        if not 12 <= self.y <= HEIGHT - 12:
            self.dy = -self.dy
            self.y = min(HEIGHT - 12.0, max(12.0, self.y))


def build(world: World) -> None:
    """One ball, 16 units per update."""
    world.spawn(Ball(40, 60, 16 * 0.8, 16 * 0.6))
