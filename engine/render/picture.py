"""Pictures are checked before pyglet sees them: a damaged PNG is refused by name, never drawn as nothing.

pyglet's PNG decoder draws a file cut short (60 bytes of a 16x16 picture) as whatever it
holds, without an error. A look's picture is therefore read here first, bounded: a regular
file, a PNG signature, chunks whose lengths and CRCs hold, an ``IHDR`` first, image data
that decompresses to exactly the size the header promises, and an ``IEND`` last.
"""

from __future__ import annotations

import struct
import zlib

from engine.files.png import PictureError
from engine.files.reading import read_bounded
from engine.look import MAX_PICTURE_SIDE
from engine.messages import shown_name

__all__ = ["MAX_PICTURE_BYTES", "MAX_PICTURE_SIDE", "check_png", "read_png"]

MAX_PICTURE_BYTES = 64 * 1024 * 1024
"""The largest picture file a look may name."""
_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def read_png(path: str) -> bytes:
    """The bytes of the PNG at ``path``, read bounded and checked whole; ``ValueError`` naming the file otherwise.

    A FIFO, a device or a directory is refused without blocking (``engine.files.reading``).
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
