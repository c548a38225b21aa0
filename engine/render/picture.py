"""Deprecated (goes in 0.6): the picture check lives in ``engine.disk.png``, which drawing imports.

pyglet's PNG decoder draws a file cut short (60 bytes of a 16x16 picture) as whatever it
holds, without an error, so pictures are checked before pyglet sees them. The check is pure
Python and lives in ``engine.disk.png`` (a tile map checks its tileset images with it when
it loads, headless); this module only re-exported it, and warns.
"""

from __future__ import annotations

from engine.deprecation import MOVED_REMOVED_IN, warn_deprecated
from engine.disk.png import MAX_PICTURE_BYTES, MAX_PICTURE_SIDE, check_png, read_png

__all__ = ["MAX_PICTURE_BYTES", "MAX_PICTURE_SIDE", "check_png", "read_png"]

warn_deprecated("engine.render.picture", "engine.disk.png", stacklevel=2, removed_in=MOVED_REMOVED_IN)
