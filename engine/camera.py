"""Camera: an entity the view is centred on.

Headless like every entity: it has a position (buffered, interpolated and replayed like
any other) and no look. Spawn one and the renderer centres the view on its interpolated
position; without one, world (0, 0) is the window's bottom-left corner and y points up.
To follow a player, move the camera in its own ``update``, reading the player's
committed position (smoothly, if you like)::

    class Follow(Camera):
        def __init__(self, target):
            super().__init__(target.x, target.y)
            self.target = target

        def update(self, world):
            self.x += (self.target.x - self.x) * 0.1
            self.y += (self.target.y - self.y) * 0.1
"""

from __future__ import annotations

from engine.entity import Entity

__all__ = ["Camera"]


class Camera(Entity):
    """The point the view is centred on; the first live ``Camera`` in update order wins."""

    look = None

    def __init__(self, x: float = 0.0, y: float = 0.0) -> None:
        super().__init__(x=x, y=y)
