"""Pictures are checked before pyglet sees them: a damaged PNG is refused by name, never drawn as nothing.

pyglet's PNG decoder draws a file cut short (60 bytes of a 16x16 picture) as whatever it
holds, without an error. The check itself is pure Python and lives in ``engine.disk.png``
(a tile map checks its tileset images with it when it loads, headless); drawing imports it
from here.
"""

from __future__ import annotations

from engine.disk.png import MAX_PICTURE_BYTES, MAX_PICTURE_SIDE, check_png, read_png

__all__ = ["MAX_PICTURE_BYTES", "MAX_PICTURE_SIDE", "check_png", "read_png"]
