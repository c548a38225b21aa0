"""Decode a PNG's pixels (8-bit greyscale, RGB or RGBA, not interlaced) with zlib and numpy: screenshot tests."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["rgb_pixels"]

_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def rgb_pixels(data: bytes | Path) -> np.ndarray[Any, Any]:
    """The picture's pixels as an (height, width, 3) uint8 array, top row first."""
    raw = data.read_bytes() if isinstance(data, Path) else data
    assert raw[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    offset, chunks, header = 8, [], b""
    while offset < len(raw):
        length, kind = struct.unpack(">I4s", raw[offset:offset + 8])
        body = raw[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        offset += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in _CHANNELS and not interlace, (depth, colour, interlace)
    channels = _CHANNELS[colour]
    stride = width * channels
    flat = np.frombuffer(zlib.decompress(b"".join(chunks)), dtype=np.uint8).reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.uint8)
    previous = np.zeros(stride, dtype=np.int64)
    for y in range(height):
        kind, line = int(flat[y, 0]), flat[y, 1:].astype(np.int64)
        if kind == 0:
            row = line
        elif kind == 1:  # Sub: a running sum per channel
            row = np.cumsum(line.reshape(width, channels), axis=0).reshape(-1) % 256
        elif kind == 2:
            row = (line + previous) % 256
        else:
            values, up = line.tolist(), previous.tolist()
            for x in range(stride):
                left = values[x - channels] if x >= channels else 0
                corner = up[x - channels] if x >= channels else 0
                guess = (left + up[x]) // 2 if kind == 3 else _paeth(left, up[x], corner)
                values[x] = (values[x] + guess) % 256
            row = np.array(values, dtype=np.int64)
        out[y] = row
        previous = row
    pixels = out.reshape(height, width, channels)
    if channels < 3:
        return np.repeat(pixels[:, :, :1], 3, axis=2)
    return pixels[:, :, :3].copy()
