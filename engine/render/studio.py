"""What the window shows of a ``Studio``: where the world is in the rewind ring, the last reload, the inspector.

Drawn over the game and the HUD, top left, as text on a translucent backdrop (the HUD's
style): a status line while paused or rewound (the tick, how far back, what the ring
holds, the keys), the last reload's line (a failure in red, kept until a reload works;
a success for a few seconds), and the inspected entity's lines with a frame around it.
It reads the studio and never changes it; text is laid out again only when it changes.
"""

from __future__ import annotations

from typing import Any

import pyglet

from engine.camera import Camera, first_camera
from engine.look import resolved
from engine.studio import Studio

__all__ = ["StudioOverlay"]

MESSAGE_MS = 4000.0
"""How long a successful reload's line stays on screen."""
KEYS_LINE = "F2 resume here  F3 step  F6/F7 back/forward (Shift: 1 s)  click or F8 inspect  F9 reload"
"""What the keys do, shown while paused."""
_ERROR = (255, 120, 110, 255)
_TEXT = (255, 255, 255, 255)


class StudioOverlay:
    """The studio's text over the game (see the module docstring)."""

    def __init__(self, window: Any, studio: Studio) -> None:
        self.window = window
        self.studio = studio
        self._batch = pyglet.graphics.Batch()
        back, front = pyglet.graphics.Group(order=10), pyglet.graphics.Group(order=11)
        self._backdrop = pyglet.shapes.Rectangle(0, 0, 1, 1, color=(0, 0, 0, 215), batch=self._batch, group=back)
        self._label = pyglet.text.Label("", x=8, y=0, anchor_y="top", multiline=True, width=600, font_size=9,
                                        color=_TEXT, batch=self._batch, group=front)
        self._error = pyglet.text.Label("", x=8, y=0, anchor_y="top", multiline=True, width=600, font_size=9,
                                        color=_ERROR, batch=self._batch, group=front)
        self._frame = pyglet.shapes.Box(0, 0, 1, 1, thickness=2, color=(255, 230, 90, 255), batch=self._batch,
                                        group=front)
        self._shown: tuple[str, str] = ("", "")
        self._message_until = 0.0
        self._reload_seen: object = None

    @property
    def shown(self) -> tuple[str, str]:
        """The text drawn last, and the error drawn above it (``""`` when none): what the person sees."""
        return self._shown

    def draw(self, now_ms: float) -> None:
        """Draw what there is to show at clock time ``now_ms`` (nothing while the game just runs)."""
        studio = self.studio
        result = studio.last_reload
        if result is not self._reload_seen:
            self._reload_seen = result
            self._message_until = now_ms + MESSAGE_MS
        lines = []
        if studio.paused:
            lines += [f"paused at {studio.describe()}", KEYS_LINE]
        if result is not None and result.ok and now_ms < self._message_until:
            lines.append(result.message)
        inspection = studio.inspect() if studio.inspected is not None else None
        if inspection is not None:
            lines += inspection.lines()
        errors = [f"reload failed: {result.message}" if result is not None and not result.ok else "",
                  f"stopped: {studio.crash}; fix the code (it reloads), or go back with F6" if studio.crash else ""]
        error = "\n".join(line for line in errors if line)
        text = "\n".join(lines)
        self._frame.visible = self._place_frame(studio.inspected)
        width = max(200, min(900, self.window.width - 16))
        if (text, error) != self._shown or self._label.width != width:
            self._shown = (text, error)
            self._label.width = self._error.width = width
            self._error.text = error
            self._label.text = text
        self._backdrop.visible = bool(text or error)
        if not (text or error or self._frame.visible):
            return
        top = self.window.height - 8
        self._error.y = top
        self._label.y = top - (self._error.content_height if error else 0)
        height = (self._error.content_height if error else 0) + (self._label.content_height if text else 0)
        self._backdrop.x, self._backdrop.y = 4, top - height - 4
        self._backdrop.width, self._backdrop.height = width + 8, height + 8
        self._batch.draw()

    def _place_frame(self, entity: Any) -> bool:
        """Frame the inspected entity's look in the window, where the renderer draws it; whether it is shown."""
        if entity is None or not entity.alive:
            return False
        look = resolved(entity.look)
        box = look.box if look is not None else None
        width, height = box if box is not None else (16.0, 16.0)
        x, y = entity.x, entity.y
        zoom = 1.0
        camera = None if look is not None and look.screen else first_camera(self.studio.world.entities_of(Camera))
        if camera is not None:
            x, y = camera.to_window(x, y, self.studio.world.view_size)
            zoom = camera.zoom
        width, height = max(width * zoom, 6.0) + 6, max(height * zoom, 6.0) + 6
        self._frame.x, self._frame.y = x - width / 2, y - height / 2
        self._frame.width, self._frame.height = width, height
        return True

    def delete(self) -> None:
        """Free the overlay's GL objects."""
        for shape in (self._backdrop, self._label, self._error, self._frame):
            shape.delete()
