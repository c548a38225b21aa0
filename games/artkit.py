"""Artkit: the few tools the samples' art scripts share: a pixel canvas, a PNG writer, a chiptune synth.

Only the standard library (``zlib``, ``struct``, ``wave``), so the art is rebuilt anywhere with
nothing to install and nothing downloaded. Everything is deterministic: the same script writes
the same bytes on every machine (noise comes from a seeded ``random.Random``; PNGs are
compressed at a fixed level; WAVs are 8-bit, so float rounding cannot differ in the output).
The scripts that use it are ``games/platformer/make_art.py`` and ``games/towers/make_art.py``; a game of
your own uses the public kit, ``engine.art`` (pong's script does).
"""

from __future__ import annotations

import math
import random
import struct
import wave
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

Color = tuple[int, int, int, int]
CLEAR: Color = (0, 0, 0, 0)


def hex_color(text: str, alpha: int = 255) -> Color:
    """``"#1d2b53"`` as an RGBA tuple."""
    text = text.lstrip("#")
    return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16), alpha)


class Canvas:
    """A grid of RGBA pixels, top row first (as an image editor shows it)."""

    def __init__(self, width: int, height: int, fill: Color = CLEAR) -> None:
        self.width, self.height = width, height
        self.pixels = [[fill] * width for _ in range(height)]

    def get(self, x: int, y: int) -> Color:
        if 0 <= x < self.width and 0 <= y < self.height:
            return self.pixels[y][x]
        return CLEAR

    def set(self, x: int, y: int, color: Color) -> None:
        if 0 <= x < self.width and 0 <= y < self.height:
            self.pixels[y][x] = color

    def rect(self, x: int, y: int, width: int, height: int, color: Color) -> None:
        for row in range(y, y + height):
            for column in range(x, x + width):
                self.set(column, row, color)

    def draw(self, art: Sequence[str], palette: dict[str, Color], x: int = 0, y: int = 0) -> None:
        """Paint ASCII art: one character a pixel, looked up in ``palette``; ``.`` is left alone."""
        for row, line in enumerate(art):
            for column, char in enumerate(line):
                if char != ".":
                    self.set(x + column, y + row, palette[char])

    def blit(self, other: Canvas, x: int, y: int) -> None:
        """Copy ``other``'s opaque pixels onto this canvas, its top-left at (x, y)."""
        for row in range(other.height):
            for column in range(other.width):
                color = other.pixels[row][column]
                if color[3]:
                    self.set(x + column, y + row, color)

    def mirrored(self) -> Canvas:
        """This canvas flipped left to right (a sprite facing the other way)."""
        flipped = Canvas(self.width, self.height)
        flipped.pixels = [list(reversed(line)) for line in self.pixels]
        return flipped

    def outlined(self, color: Color) -> Canvas:
        """A copy with every clear pixel next to an opaque one (4 ways) painted ``color``: a sprite's outline."""
        result = Canvas(self.width, self.height)
        result.pixels = [list(line) for line in self.pixels]
        for y in range(self.height):
            for x in range(self.width):
                if self.pixels[y][x][3] == 0 and any(
                        self.get(x + dx, y + dy)[3] for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))):
                    result.pixels[y][x] = color
        return result

    def scaled(self, factor: int) -> Canvas:
        """Every pixel as a ``factor`` x ``factor`` block: chunky pixels, drawn 1:1 so nothing blurs."""
        result = Canvas(self.width * factor, self.height * factor)
        wide = [[color for color in line for _ in range(factor)] for line in self.pixels]
        result.pixels = [list(line) for line in wide for _ in range(factor)]
        return result

    def save(self, path: Path) -> None:
        write_png(path, self.pixels)


def write_png(path: Path, rows: Sequence[Sequence[Color]]) -> None:
    """Write RGBA ``rows`` (top row first) as a PNG: the format's three chunks, by hand."""
    height, width = len(rows), len(rows[0])
    raw = b"".join(b"\x00" + bytes(part for color in line for part in color) for line in rows)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8 bits, RGBA, no interlace
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
                     + chunk(b"IEND", b""))


RATE = 11025
"""Samples a second: plenty for square waves, and it keeps the files small."""


def note(name: str) -> float:
    """The frequency of a note such as ``"A4"``, ``"C#5"`` or ``"Eb3"`` (equal temperament, A4 = 440 Hz)."""
    steps = {"C": -9, "D": -7, "E": -5, "F": -4, "G": -2, "A": 0, "B": 2}[name[0]]
    rest = name[1:]
    if rest[0] in "#b":
        steps += 1 if rest[0] == "#" else -1
        rest = rest[1:]
    return 440.0 * 2 ** ((steps + 12 * (int(rest) - 4)) / 12)


def tone(frequency: float, seconds: float, volume: float = 0.5, duty: float = 0.5, slide: float = 0.0,
         wave_shape: str = "square", decay: float = 4.0) -> list[float]:
    """One note: a square (or triangle) wave, its pitch sliding by ``slide`` Hz a second, fading by ``decay``."""
    samples, phase = [], 0.0
    for index in range(int(seconds * RATE)):
        t = index / RATE
        phase = (phase + (frequency + slide * t) / RATE) % 1.0
        square = 1.0 if phase < duty else -1.0
        value = 4 * abs(phase - 0.5) - 1 if wave_shape == "triangle" else square
        samples.append(value * volume * math.exp(-decay * t))
    return samples


def noise(seconds: float, volume: float = 0.5, decay: float = 12.0, seed: int = 1) -> list[float]:
    """A burst of noise (a hit, a drum), from a seeded generator so it is the same every run."""
    rng = random.Random(seed)
    return [rng.uniform(-1, 1) * volume * math.exp(-decay * i / RATE) for i in range(int(seconds * RATE))]


def mix(*tracks: Iterable[float]) -> list[float]:
    """Add tracks sample by sample (the longest sets the length)."""
    lists = [list(track) for track in tracks]
    length = max(len(track) for track in lists)
    return [sum(track[i] for track in lists if i < len(track)) for i in range(length)]


def write_wav(path: Path, samples: Sequence[float]) -> None:
    """Write ``samples`` (-1.0 to 1.0) as an 8-bit mono WAV at ``RATE``."""
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(RATE)
        out.writeframes(bytes(max(0, min(255, round(128 + 127 * value))) for value in samples))
