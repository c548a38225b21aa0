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

``zoom`` (a factor: 2.0 draws everything twice as large, around the view's centre) and
``shake(amplitude, ticks)`` are the camera's own buffered state, so both are saved,
rolled back and replayed like its position. A shake's offsets are drawn from the
camera's own ``random`` when it starts (one seed), then follow from that seed and the
tick: the same in a replay, whatever the frame rate, and drawing changes nothing.

``view_transform`` is the one statement of where the camera puts the world in the window
(the renderer draws with it); ``to_world`` and ``to_window`` map points through it, which
is what ``world.mouse`` does with the mouse. A ``Mouse`` is a mouse position in both.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass

from engine.entity import Entity, buffered
from engine.messages import shown

__all__ = ["Camera", "Mouse", "first_camera"]

MAX_ZOOM = 100.0
"""The largest zoom factor (and 1 / the smallest): beyond it a look is a pixel or the window one."""


def _zoom_checked(zoom: object, who: str) -> float:
    if not (isinstance(zoom, (int, float)) and not isinstance(zoom, bool) and math.isfinite(zoom)
            and 1 / MAX_ZOOM <= zoom <= MAX_ZOOM):
        raise ValueError(f"{who} zoom must be a factor from {1 / MAX_ZOOM:g} to {MAX_ZOOM:g} "
                         f"(1 draws at size), got {shown(zoom)}")
    return float(zoom)


class Camera(Entity):
    """The point the view is centred on; the first live ``Camera`` in update order wins."""

    look = None
    zoom = buffered(1.0)
    shake_amplitude = buffered(0.0)
    shake_ticks = buffered(0)
    shake_start = buffered(0)
    shake_seed = buffered(0)

    def __init__(self, x: float = 0.0, y: float = 0.0, zoom: float = 1.0) -> None:
        super().__init__(x=x, y=y)
        self.zoom = _zoom_checked(zoom, "Camera")

    def shake(self, amplitude: float, ticks: int) -> None:
        """Shake the view by up to ``amplitude`` pixels, fading out over the next ``ticks`` ticks.

        Called by the camera in its own ``update`` (it is its own buffered state; another
        entity asks it with a signal), or from a system. A new shake replaces the old one.
        """
        if not (isinstance(amplitude, (int, float)) and not isinstance(amplitude, bool)
                and math.isfinite(amplitude) and 0 <= amplitude <= 10_000):
            raise ValueError(f"Camera shake amplitude must be pixels from 0 to 10000, got {shown(amplitude)}")
        if isinstance(ticks, bool) or not isinstance(ticks, int) or not 0 <= ticks <= 1_000_000:
            raise ValueError(f"Camera shake ticks must be a whole number from 0 to 1000000, got {shown(ticks)}")
        assert self.world is not None, "shake a spawned camera"
        self.shake_amplitude = float(amplitude)
        self.shake_ticks = ticks
        self.shake_start = self.world.tick_count
        self.shake_seed = self.random.getrandbits(48)

    def shake_offset(self, tick: int) -> tuple[float, float]:
        """The shake's offset in pixels once ``tick`` ticks have run (0, 0 outside a shake)."""
        step = tick - self.shake_start
        if not 1 <= step <= self.shake_ticks:
            return (0.0, 0.0)
        fade = self.shake_amplitude * (1.0 - (step - 1) / self.shake_ticks)
        # A generator per (seed, step): the offset is a function of the camera's state and
        # the tick, never of how many frames were drawn.
        draws = random.Random(self.shake_seed * 1_000_003 + step)
        return (draws.uniform(-fade, fade), draws.uniform(-fade, fade))

    def draw_view(self, alpha: float, extrapolate: bool = False) -> tuple[float, float, float]:
        """Where the view is centred and its zoom, ``alpha`` of the way into the next tick: ``(x, y, zoom)``.

        Reading only: the renderer calls it every frame. A zoom set to something that is
        not a factor is refused here, by name.
        """
        x, y = self.draw_position(alpha, extrapolate)
        zoom = _zoom_checked(self.zoom, f"{type(self).__name__} {self.id}")
        before = _zoom_checked(self.previous("zoom"), f"{type(self).__name__} {self.id}")
        zoom = zoom + (zoom - before) * alpha if extrapolate else before + (zoom - before) * alpha
        if self.shake_ticks and self.world is not None:
            tick = self.world.tick_count
            (x0, y0), (x1, y1) = self.shake_offset(tick - 1), self.shake_offset(tick)
            x, y = x + x0 + (x1 - x0) * alpha, y + y0 + (y1 - y0) * alpha
        return x, y, max(zoom, 1 / MAX_ZOOM)

    def view_transform(self, alpha: float, view_size: tuple[int, int],
                       extrapolate: bool = False) -> tuple[float, float, float]:
        """Where the world lies in a window of ``view_size`` pixels, ``alpha`` into the next tick: ``(tx, ty, zoom)``.

        A world point ``(x, y)`` is drawn at window ``(x * zoom + tx, y * zoom + ty)``: the
        view's centre (``draw_view``) lands on the window's centre, moved by whole pixels
        (a camera between two pixels would blur nothing but shimmer edges). The renderer
        draws with exactly this; ``to_world`` inverts it.
        """
        x, y, zoom = self.draw_view(alpha, extrapolate)
        width, height = view_size
        return float(round(width / 2 - x * zoom)), float(round(height / 2 - y * zoom)), zoom

    def to_world(self, window_x: float, window_y: float, view_size: tuple[int, int]) -> tuple[float, float]:
        """The world point drawn at window pixel ``(window_x, window_y)`` (bottom-left origin), as of the last tick.

        The renderer's own transform at alpha 1 (``view_transform``): the latest committed
        state, which is what game logic can know (how far a frame was into the next tick is
        not game state). ``world.mouse`` calls it with the window's size.
        """
        tx, ty, zoom = self.view_transform(1.0, view_size)
        return (window_x - tx) / zoom, (window_y - ty) / zoom

    def to_window(self, x: float, y: float, view_size: tuple[int, int]) -> tuple[float, float]:
        """Where world point ``(x, y)`` is drawn in the window, as of the last tick: ``to_world`` undone."""
        tx, ty, zoom = self.view_transform(1.0, view_size)
        return x * zoom + tx, y * zoom + ty


def first_camera(entities: Iterable[object]) -> Camera | None:
    """The camera the view follows: the first live ``Camera`` of ``entities`` (spawn order), or ``None``."""
    return next((each for each in entities if isinstance(each, Camera) and each.alive), None)


@dataclass(frozen=True, slots=True)
class Mouse:
    """Where the mouse is: ``x``, ``y`` in the world (through the camera, if any); ``window_x``, ``window_y``
    in the window.

    Window coordinates have their origin at the window's bottom-left corner, as screen-space
    looks (``Look(screen=True)``) and GUI widgets do; world coordinates are where a world
    entity under the mouse is. Without a camera they are the same.
    """

    x: float
    y: float
    window_x: float
    window_y: float
