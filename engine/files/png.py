"""The size of a PNG, read from its header alone: what a sprite sheet needs, without pyglet.

Game logic is headless, yet ``Look.frames`` must know a sheet's size to cut it into
frames. A PNG says its size in its first 33 bytes (the signature, then the ``IHDR``
chunk, checked by its CRC), so only those are read; the whole file is checked when it
is drawn (``engine.render.picture``).
"""

from __future__ import annotations

import struct
import zlib

from engine.files.reading import open_regular
from engine.messages import shown_name

__all__ = ["PictureError", "png_size"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_HEADER_BYTES = len(_SIGNATURE) + 8 + 13 + 4



class PictureError(ValueError):
    """A picture (a look's image, a sprite sheet) that is missing, not a PNG or damaged: one line naming the file.

    The command line refuses it as bad input (exit 2), found when the look is made or drawn.
    """

def png_size(path: str, what: str = "the picture") -> tuple[int, int]:
    """The (width, height) in pixels of the PNG at ``path``, from its header.

    ``ValueError`` in one line naming the file (``what`` says what it is) if it is
    missing, not a regular file, not a PNG, or its header is damaged.
    """
    name = shown_name(path)
    try:
        with open_regular(path, what) as file:
            data = file.read(_HEADER_BYTES)
    except OSError as error:
        raise PictureError(str(error)) from None
    if not data.startswith(_SIGNATURE):
        raise PictureError(f"{what} {name} is not a PNG file")
    if len(data) < _HEADER_BYTES:
        raise PictureError(f"{what} {name} is cut short ({len(data)} bytes): no whole PNG header")
    length, kind = struct.unpack(">I4s", data[8:16])
    body = data[16:29]
    (crc,) = struct.unpack(">I", data[29:33])
    if length != 13 or kind != b"IHDR" or zlib.crc32(kind + body) != crc:
        raise PictureError(f"{what} {name} is damaged (its IHDR header is not a valid PNG header)")
    width, height = struct.unpack(">II", body[:8])
    if width == 0 or height == 0:
        raise PictureError(f"{what} {name} is damaged (its header says {width}x{height} pixels)")
    return int(width), int(height)
