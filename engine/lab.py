"""The teaching classes: the Double Buffer pattern in its textbook form, apart from the engine's own.

Double Buffer: build the next state while readers see the current one, then swap.

``DoubleBuffer`` is the pattern in its general form: two instances of anything, a
``current`` that readers use and a ``next`` that writers fill, and ``swap()``, which
exchanges the two references and copies nothing. ``Framebuffer`` and ``Scene`` are the
classic example from Game Programming Patterns: a scene draws pixel by pixel into the
next framebuffer, so whoever shows ``scene.buffer`` never sees a half-drawn picture.

These are for learning the pattern (the ``framebuffer`` sample game shows them); a game's
entities get the same guarantee from the engine itself, through ``buffered`` fields and
signals. Up to 0.4 they were importable from ``engine`` itself; there the names still
work, warning, until 0.6.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["DoubleBuffer", "Framebuffer", "Scene"]

T = TypeVar("T")


class DoubleBuffer(Generic[T]):
    """Two buffers made by ``factory``: read ``current``, write ``next``, then ``swap()``."""

    def __init__(self, factory: Callable[[], T]) -> None:
        if not callable(factory):
            raise TypeError(f"factory must be callable, got {factory!r}")
        self.current: T = factory()
        """The buffer readers see."""
        self.next: T = factory()
        """The buffer being written for the next swap."""

    def swap(self) -> None:
        """Exchange ``current`` and ``next`` (references only: nothing is copied)."""
        self.current, self.next = self.next, self.current


def _dimension(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value!r}")
    return value


class Framebuffer:
    """A ``width`` x ``height`` grid of pixels, each ``WHITE`` or ``BLACK``; starts clear.

    ``pixels`` is a read-only, row-major view: pixel ``(x, y)`` is at ``y * width + x``.
    """

    WHITE = 255
    """A cleared pixel (an 8-bit grey level, so the buffer can be shown as an image)."""
    BLACK = 0
    """A drawn pixel."""

    def __init__(self, width: int = 160, height: int = 120) -> None:
        self.width = _dimension("width", width)
        self.height = _dimension("height", height)
        self._pixels = bytearray([self.WHITE]) * (self.width * self.height)

    def clear(self) -> None:
        """Set every pixel to ``WHITE``."""
        self._pixels[:] = bytes([self.WHITE]) * len(self._pixels)

    def draw(self, x: int, y: int) -> None:
        """Set pixel ``(x, y)`` to ``BLACK``; a pixel outside the frame raises ``IndexError``."""
        if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, int) or not isinstance(y, int):
            raise TypeError(f"pixel coordinates must be ints, got ({x!r}, {y!r})")
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError(f"pixel ({x}, {y}) is outside the {self.width}x{self.height} framebuffer")
        self._pixels[y * self.width + x] = self.BLACK

    @property
    def pixels(self) -> Sequence[int]:
        """Every pixel, row-major, read-only (a ``memoryview`` of bytes: no copy)."""
        return memoryview(self._pixels).toreadonly()

    def __repr__(self) -> str:
        return f"Framebuffer({self.width}x{self.height})"


class Scene:
    """Two framebuffers: ``draw(painter)`` paints the next one, then swaps it in.

    ``buffer`` is always a complete frame. If the painter raises, nothing is swapped,
    so the previous complete frame stays on show.
    """

    def __init__(self, width: int = 160, height: int = 120) -> None:
        self._buffers = DoubleBuffer(lambda: Framebuffer(width, height))

    def draw(self, painter: Callable[[Framebuffer], object]) -> None:
        """Clear the next framebuffer, let ``painter`` draw on it, then swap it in."""
        target = self._buffers.next
        target.clear()
        painter(target)
        self._buffers.swap()

    @property
    def buffer(self) -> Framebuffer:
        """The framebuffer to show: the last one completely drawn."""
        return self._buffers.current
