"""What the window shows of a ``Studio``: where the world is in the rewind ring, the last reload, the inspector.

Drawn over the game and the HUD, top left, as text on a translucent backdrop (the HUD's
style): a status line while paused or rewound (the tick, how far back, what the ring
holds, the keys), the last reload's line (a failure in red, kept until a reload works;
a success for a few seconds), and the inspected entity's lines with a frame around it.
It reads the studio and never changes it; text is laid out again only when it changes.

It leaves the game visible on a small window too (a 480x448 jam game's): there
(``engine.render.hud.compact``) its type is smaller and its panel narrower, and it stays
above the compact HUD's strip. On any window the panel takes at most ``MAX_SHARE`` of the
window's height (the inspected entity's last lines give way to one saying how many more
there are), and it moves off the inspected entity: top left, else top right, else low on
the right, whichever leaves the framed entity in sight.
"""

from __future__ import annotations

from typing import Any

import pyglet

from engine.camera import Camera, first_camera
from engine.look import resolved
from engine.render.hud import COMPACT_TOP, compact
from engine.studio import Studio

__all__ = ["MAX_SHARE", "StudioOverlay"]

MESSAGE_MS = 4000.0
"""How long a successful reload's line stays on screen."""
KEYS_LINE = "F2 resume here  F3 step  F6/F7 back/forward (Shift: 1 s)  click or F8 inspect  F9 reload"
"""What the keys do, shown while paused."""
MAX_SHARE = 0.5
"""The most of the window's height the panel takes (never less than ``_MIN_HEIGHT`` pixels)."""
_MIN_HEIGHT = 120
_MIN_LINES = 3
"""The lines always kept, however little room: the status and the inspected entity's name."""
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
        self._laid: tuple[str, str, int, int, float] | None = None  # what the labels were last laid out for
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
        self._frame.visible = self._place_frame(studio.inspected)
        window = self.window
        small = compact(window)
        width = max(200, min(900, window.width - 16))
        if small:  # narrower, so that the game shows beside it
            width = min(width, max(240, int(window.width * 0.6)))
        font = 8 if small else 9
        floor = COMPACT_TOP if small else 4  # a small window's bottom strip is the HUD's
        room = max(_MIN_HEIGHT, min(window.height * MAX_SHARE, window.height - floor - 12))
        self._layout(lines, error, width, font, room)
        text = self._shown[0]
        self._backdrop.visible = bool(text or error)
        if not (text or error or self._frame.visible):
            return
        spot = self._place(width + 8, self._height() + 8, floor)
        if spot is None:  # the entity is where every spot is: the panel shrinks to the side of it with more room
            frame = self._frame
            above, below = window.height - 12 - (frame.y + frame.height), frame.y - floor - 12
            # In steps of 16 pixels: an entity moving a pixel a tick lays the text out again only now and then.
            self._layout(lines, error, width, font, max(above, below, 0.0) // 16 * 16)
            height = self._height() + 8
            spot = (4.0, window.height - 4.0) if above >= below else (4.0, floor + 4 + height)
        x, top = spot
        height = self._height()
        self._error.x = self._label.x = x + 4
        self._error.y = top - 4
        self._label.y = top - 4 - (self._error.content_height if error else 0)
        self._backdrop.x, self._backdrop.y = x, top - height - 8
        self._backdrop.width, self._backdrop.height = width + 8, height + 8
        self._batch.draw()

    def _height(self) -> int:
        """The height of the text laid out (the error's and the lines')."""
        text, error = self._shown
        return (self._error.content_height if error else 0) + (self._label.content_height if text else 0)

    def _layout(self, lines: list[str], error: str, width: int, font: int, room: float) -> None:
        """Lay the labels out for this text, width, type and room (only when one of them changed)."""
        key = ("\n".join(lines), error, width, font, room)
        if key == self._laid:
            return
        self._laid = key
        for label in (self._label, self._error):
            label.font_size = font
            label.width = width
        self._error.text = error
        self._shown = (self._fit(lines, room - (self._error.content_height if error else 0)), error)

    def _fit(self, lines: list[str], room: float) -> str:
        """The label holding as many of ``lines`` as fit in ``room`` pixels (``_MIN_LINES`` at least); the text.

        Cut lines give way to one that counts them. Laid out a few times (a halving search),
        only when the text changes.
        """
        label = self._label
        label.text = "\n".join(lines)
        if label.content_height <= room or len(lines) <= _MIN_LINES:
            return label.text
        low, high = _MIN_LINES, len(lines) - 1  # the most lines kept, with the count line, that fit
        while low < high:
            middle = (low + high + 1) // 2
            label.text = self._cut(lines, middle)
            if label.content_height <= room:
                low = middle
            else:
                high = middle - 1
        label.text = self._cut(lines, low)
        return label.text

    @staticmethod
    def _cut(lines: list[str], kept: int) -> str:
        more = len(lines) - kept
        return "\n".join([*lines[:kept], f"  ... {more} more line{'s' if more != 1 else ''} (a larger window shows "
                                          "them)"])

    def _place(self, width: float, height: float, floor: float) -> tuple[float, float] | None:
        """Where the panel goes (its left and its top): the first of top left, top right and low right that leaves
        the framed entity uncovered (top left when nothing is framed; ``None`` when every one covers it)."""
        window = self.window
        right = max(4.0, window.width - width - 4)
        spots = [(4.0, window.height - 4.0), (right, window.height - 4.0), (right, floor + 4 + height)]
        if not self._frame.visible:
            return spots[0]
        frame = self._frame
        for x, top in spots:
            if (frame.x + frame.width <= x or frame.x >= x + width or frame.y >= top
                    or frame.y + frame.height <= top - height):
                return x, top
        return None

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
