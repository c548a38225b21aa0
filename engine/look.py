"""Look: how an entity is drawn, declared without touching pyglet.

Game logic stays headless, so an entity says what it looks like with a plain value and
the renderer (``engine.render``) turns that into vertices::

    class Skeleton(Entity):
        look = Look("square", size=(10, 10), color=(230, 230, 210))

Entities of the same look are drawn together from one vertex buffer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

__all__ = ["Look"]

Shape = Literal["square", "circle", "diamond", "image"]
_SHAPES = ("square", "circle", "diamond", "image")


@dataclass(frozen=True)
class Look:
    """A shape (``"square"``, ``"circle"`` or ``"diamond"``), a size in pixels, and an RGB(A) colour.

    ``size`` is ``(width, height)`` (or one number for both), centred on the entity's
    position. For a picture, give ``image`` (the path of a PNG): the shape becomes
    ``"image"``, ``size`` defaults to the picture's own and ``color`` tints it (white
    keeps its colours). Looks are values: equal looks share a vertex buffer.
    """

    shape: Shape = "square"
    size: tuple[float, float] | float | None = None
    color: tuple[int, ...] = (255, 255, 255, 255)
    image: str | None = None

    def __post_init__(self) -> None:
        if self.image is not None:
            if not isinstance(self.image, str) or not self.image:
                raise ValueError(f"Look image must be the path of a picture, got {self.image!r}")
            object.__setattr__(self, "shape", "image")
        elif self.shape == "image":
            raise ValueError("Look shape 'image' needs image='path/to/picture.png'")
        if self.shape not in _SHAPES:
            raise ValueError(f"Look shape must be one of {', '.join(_SHAPES)}, got {self.shape!r}")
        if self.size is None and self.image is None:
            object.__setattr__(self, "size", (8.0, 8.0))
        size = self.size
        if isinstance(size, (int, float)) and not isinstance(size, bool):
            size = (float(size), float(size))
            object.__setattr__(self, "size", size)
        if size is not None and (not isinstance(size, tuple) or len(size) != 2
                or not all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in size)):
            raise ValueError(f"Look size must be a positive number or (width, height), got {self.size!r}")
        color = tuple(self.color)
        if len(color) == 3:
            color = (*color, 255)
        if len(color) != 4 or not all(isinstance(c, int) and 0 <= c <= 255 for c in color):
            raise ValueError(f"Look color must be 3 or 4 ints from 0 to 255, got {self.color!r}")
        object.__setattr__(self, "color", color)


DEFAULT_LOOK = Look()
"""What an entity that declares no look is drawn as: a small white square."""
