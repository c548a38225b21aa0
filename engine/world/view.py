"""The world's view of its window: the window's size, the camera the view follows, and the mouse mapped through it.

A part ``World`` is composed of (``world.view_size``, ``world.mouse``, ``world.mouse_of``).
The mapping itself is the camera's (``Camera.to_world``, the renderer's own transform);
this part knows the window's size, which a camera centres the view in, and finds the
camera as the renderer does: the first live ``Camera`` in spawn order, looked up again
only when the set of entities changes.
"""

from __future__ import annotations

from typing import Any

from engine.camera import Camera, Mouse, first_camera
from engine.constants import DEFAULT_VIEW_SIZE, MAX_WINDOW_SIDE
from engine.errors import GameError
from engine.input.events import TickInput
from engine.messages import shown
from engine.world.spawner import Spawner

__all__ = ["View", "checked_view_size"]


class View:
    """A world's window size and camera: maps a player's mouse into the world."""

    def __init__(self, spawner: Spawner) -> None:
        self._spawner = spawner
        self._size = DEFAULT_VIEW_SIZE
        self._cameras: tuple[int, list[Camera]] = (-1, [])  # the cameras, as of a structure version

    @property
    def size(self) -> tuple[int, int]:
        """The window's ``(width, height)`` in pixels."""
        return self._size

    @size.setter
    def size(self, size: tuple[int, int]) -> None:
        self._size = checked_view_size(size)

    def camera(self) -> Camera | None:
        """The camera the view follows, or ``None``."""
        version = self._spawner.structure_version
        if self._cameras[0] != version:
            self._cameras = (version, self._spawner.live_of(Camera))
        return first_camera(self._cameras[1])

    def mouse(self, tick_input: TickInput) -> Mouse:
        """Where ``tick_input``'s mouse is, in the window and (through the camera) in the world."""
        window_x, window_y = float(tick_input.mouse_x), float(tick_input.mouse_y)
        camera = self.camera()
        if camera is None:
            return Mouse(window_x, window_y, window_x, window_y)
        x, y = camera.to_world(window_x, window_y, self._size)
        return Mouse(x, y, window_x, window_y)


def checked_view_size(size: Any, where: str = "world.view_size") -> tuple[int, int]:
    """A window size ``(width, height)``, each a whole number of pixels from 1 to ``MAX_WINDOW_SIDE``; else
    ``GameError`` naming ``where``."""
    if not (isinstance(size, (tuple, list)) and len(size) == 2 and all(
            type(side) is int and 1 <= side <= MAX_WINDOW_SIDE for side in size)):
        raise GameError(f"{where}: a window size is (width, height), each a whole number of pixels from 1 to "
                        f"{MAX_WINDOW_SIDE}, got {shown(size)}")
    return int(size[0]), int(size[1])
