"""The size of a PNG, read from its header alone: what a sprite sheet needs, without pyglet.

Game logic is headless, yet ``Look.frames`` must know a sheet's size to cut it into
frames. A PNG says its size in its first 33 bytes (the signature, then the ``IHDR``
chunk, checked by its CRC), so only those are read; the whole file is checked when it
is drawn: ``read_png``/``check_png`` read it bounded and check it whole (chunks, CRCs,
image data that inflates to exactly the size its header promises), without pyglet, so
a tile map's tileset images are checked when the map loads, not when it is drawn.
"""

from __future__ import annotations

import struct
import zlib

from engine.disk.reading import open_regular, read_bounded
from engine.messages import shown_name

__all__ = ["MAX_PICTURE_BYTES", "MAX_PICTURE_SIDE", "PictureError", "check_png", "png_size", "read_png"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_HEADER_BYTES = len(_SIGNATURE) + 8 + 13 + 4
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
MAX_PICTURE_SIDE = 8192
"""The widest and tallest picture a look may name, in pixels (a texture larger than this fails on many GPUs)."""

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
    if width > MAX_PICTURE_SIDE or height > MAX_PICTURE_SIDE:
        raise PictureError(f"{what} {name} is {width}x{height}; a picture is at most "
                           f"{MAX_PICTURE_SIDE}x{MAX_PICTURE_SIDE} pixels")
    return int(width), int(height)


MAX_PICTURE_BYTES = 64 * 1024 * 1024
"""The largest picture file a look may name."""


def read_png(path: str) -> bytes:
    """The bytes of the PNG at ``path``, read bounded and checked whole; ``ValueError`` naming the file otherwise.

    A FIFO, a device or a directory is refused without blocking (``engine.disk.reading``).
    """
    data = _read(path)
    _check(data, path)
    return data


def check_png(path: str) -> tuple[int, int]:
    """The (width, height) of the PNG at ``path``; ``ValueError`` naming the file and the problem otherwise."""
    return _check(_read(path), path)


def _read(path: str) -> bytes:
    try:
        return read_bounded(path, MAX_PICTURE_BYTES, "the picture")
    except OSError as error:
        raise PictureError(str(error)) from None


def _check(data: bytes, path: str) -> tuple[int, int]:
    name = shown_name(path)
    if not data.startswith(_SIGNATURE):
        raise PictureError(f"the picture {name} is not a PNG file (a look's picture is a PNG)")
    at, header, compressed, ended = len(_SIGNATURE), None, [], False
    while at < len(data) and not ended:
        if at + 12 > len(data):
            break
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if len(body) != length or at + 12 + length > len(data):
            break
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise PictureError(f"the picture {name} is damaged "
                               f"(the checksum of its {kind.decode('latin-1')} chunk is wrong)")
        if header is None and kind != b"IHDR":
            raise PictureError(f"the picture {name} is damaged (no IHDR chunk first)")
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body) if length == 13 else None
        elif kind == b"IDAT":
            compressed.append(body)
        ended = kind == b"IEND"
        at += 12 + length
    if header is None or not ended:
        raise PictureError(f"the picture {name} is cut short ({len(data)} bytes, no IEND chunk): it is damaged")
    width, height, depth, colour, _, _, interlace = header
    if not (1 <= width <= MAX_PICTURE_SIDE and 1 <= height <= MAX_PICTURE_SIDE):
        raise PictureError(f"the picture {name} is {width}x{height}; a look's picture is at most "
                         f"{MAX_PICTURE_SIDE}x{MAX_PICTURE_SIDE} pixels")
    if colour not in _CHANNELS or depth not in (1, 2, 4, 8, 16):
        raise PictureError(f"the picture {name} has an unknown PNG colour type {colour} or depth {depth}")
    if interlace == 0:  # interlaced pictures are laid out in passes; their size check is pyglet's
        expected = height * (1 + (width * _CHANNELS[colour] * depth + 7) // 8)
        inflater = zlib.decompressobj()
        try:
            # Bounded by what the header promises: a small file can't inflate to gigabytes here.
            raw = inflater.decompress(b"".join(compressed), expected + 1)
        except zlib.error as error:
            raise PictureError(f"the picture {name} is damaged (its image data: {error})") from None
        if len(raw) != expected or not inflater.eof:
            raise PictureError(f"the picture {name} is damaged: its image data holds {len(raw)} of the "
                             f"{expected} bytes its header promises")
    return width, height
