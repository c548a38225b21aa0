"""Pixel art from text: sprites drawn as grids of characters, palettes, sprite sheets, PNGs.

A jam's art is often a script: a few sprites typed as text, one character a pixel, each
character a colour of a palette, written out as PNG files the game's looks name. This
module is that script's toolbox, with only the standard library (``zlib``, ``struct``), so
the art is rebuilt anywhere with nothing to install::

    from engine.art import PICO8, sprite
    hero = sprite(["..7..",
                   ".777.",
                   "7.7.7"], PICO8, scale=2)
    hero.save("hero.png")

Everything is exact integer work and PNGs are compressed at a fixed level, so the same
script writes the same bytes on every run and every machine (a test hashes them).
A canvas is top row first, as an image editor shows it; a sheet lays frames out left to
right, top row first: the order ``Look.frames`` cuts them back in.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Mapping, Sequence

from engine.disk.atomic import AtomicFile
from engine.messages import shown

__all__ = ["CLEAR", "PICO8", "Canvas", "Color", "hex_color", "sheet", "sprite"]

Color = tuple[int, int, int, int]
"""An RGBA colour, each channel 0 to 255."""

CLEAR: Color = (0, 0, 0, 0)
"""The transparent colour a new canvas is filled with."""

_LARGEST = 4096
"""The widest (and tallest) canvas: far beyond a jam's sprites and sheets, and bounded."""


def hex_color(text: str, alpha: int = 255) -> Color:
    """``"#1d2b53"`` (or ``"1d2b53"``) as an RGBA colour: how palettes are written down."""
    if not isinstance(text, str):
        raise TypeError(f"hex_color takes a colour such as '#1d2b53', got {shown(text)}")
    digits = text[1:] if text.startswith("#") else text
    if len(digits) != 6 or any(char not in "0123456789abcdefABCDEF" for char in digits):
        raise ValueError(f"hex_color takes six hex digits such as '#1d2b53', got {shown(text)}")
    if type(alpha) is not int or not 0 <= alpha <= 255:
        raise ValueError(f"hex_color's alpha must be a whole number from 0 to 255, got {shown(alpha)}")
    return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16), alpha)


PICO8: dict[str, Color] = {
    char: hex_color(value) for char, value in zip("0123456789abcdef", (
        "#000000", "#1d2b53", "#7e2553", "#008751", "#ab5236", "#5f574f", "#c2c3c7", "#fff1e8",
        "#ff004d", "#ffa300", "#ffec27", "#00e436", "#29adff", "#83769c", "#ff77a8", "#ffccaa"))}
"""The PICO-8 palette by its own numbers, ``"0"`` (black) to ``"f"`` (peach): sixteen colours that go together."""


def _check_color(color: object, what: str) -> Color:
    if not (isinstance(color, tuple) and len(color) == 4
            and all(type(part) is int and 0 <= part <= 255 for part in color)):
        raise ValueError(f"{what} must be an RGBA tuple of four whole numbers 0-255, got {shown(color)}")
    return color  # type: ignore[return-value,unused-ignore]


def _check_side(value: object, what: str) -> int:
    if type(value) is not int or not 1 <= value <= _LARGEST:
        raise ValueError(f"{what} must be a whole number of pixels from 1 to {_LARGEST}, got {shown(value)}")
    return value


class Canvas:
    """A grid of RGBA pixels, top row first: what a sprite, a tile or a sheet is drawn on.

    Drawing outside the canvas is clipped (a sprite half off the edge is half drawn), so
    art code needs no bounds checks; ``pixels`` is the grid itself, row by row.
    """

    def __init__(self, width: int, height: int, fill: Color = CLEAR) -> None:
        self.width = _check_side(width, "a canvas's width")
        self.height = _check_side(height, "a canvas's height")
        fill = _check_color(fill, "a canvas's fill")
        self.pixels: list[list[Color]] = [[fill] * width for _ in range(height)]

    def __repr__(self) -> str:
        return f"Canvas({self.width}, {self.height})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Canvas) and self.pixels == other.pixels

    __hash__ = None  # type: ignore[assignment]  # mutable: compared by its pixels, never a key

    def get(self, x: int, y: int) -> Color:
        """The pixel at column ``x``, row ``y`` (from the top); ``CLEAR`` outside the canvas."""
        if 0 <= x < self.width and 0 <= y < self.height:
            return self.pixels[y][x]
        return CLEAR

    def set(self, x: int, y: int, color: Color) -> None:
        """Paint one pixel; outside the canvas nothing happens."""
        if 0 <= x < self.width and 0 <= y < self.height:
            self.pixels[y][x] = color

    def rect(self, x: int, y: int, width: int, height: int, color: Color) -> None:
        """Fill a ``width`` x ``height`` rectangle whose top-left pixel is (x, y)."""
        for row in range(max(0, y), min(self.height, y + height)):
            line = self.pixels[row]
            for column in range(max(0, x), min(self.width, x + width)):
                line[column] = color

    def draw(self, grid: Sequence[str], palette: Mapping[str, Color], x: int = 0, y: int = 0,
             transparent: str = ".") -> None:
        """Paint a text grid at (x, y): one character a pixel, its colour from ``palette``.

        ``transparent`` (``.`` by default) and spaces leave the canvas as it is. A character
        the palette lacks is refused, naming it, its row and its column.
        """
        for row, line in enumerate(_check_grid(grid)):
            for column, char in enumerate(line):
                if char == transparent or char == " ":
                    continue
                if char not in palette:
                    raise ValueError(f"the sprite's row {row + 1}, column {column + 1} is {char!r}, "
                                     f"which the palette does not name (it names {''.join(sorted(palette))!r}; "
                                     f"{transparent!r} and ' ' are transparent)")
                self.set(x + column, y + row, palette[char])

    def blit(self, other: Canvas, x: int, y: int) -> None:
        """Copy ``other``'s opaque pixels onto this canvas, its top-left at (x, y)."""
        for row in range(other.height):
            for column in range(other.width):
                color = other.pixels[row][column]
                if color[3]:
                    self.set(x + column, y + row, color)

    def mirrored(self) -> Canvas:
        """This canvas flipped left to right: a sprite facing the other way."""
        flipped = Canvas(self.width, self.height)
        flipped.pixels = [list(reversed(line)) for line in self.pixels]
        return flipped

    def flipped(self) -> Canvas:
        """This canvas upside down."""
        result = Canvas(self.width, self.height)
        result.pixels = [list(line) for line in reversed(self.pixels)]
        return result

    def outlined(self, color: Color) -> Canvas:
        """A copy with every clear pixel beside an opaque one (four ways) painted ``color``: an outline."""
        result = Canvas(self.width, self.height)
        result.pixels = [list(line) for line in self.pixels]
        for y in range(self.height):
            for x in range(self.width):
                if self.pixels[y][x][3] == 0 and any(
                        self.get(x + dx, y + dy)[3] for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))):
                    result.pixels[y][x] = color
        return result

    def scaled(self, factor: int) -> Canvas:
        """Every pixel as a ``factor`` x ``factor`` block: chunky pixels the game draws 1:1, unblurred."""
        if type(factor) is not int or factor < 1:
            raise ValueError(f"a canvas is scaled by a whole number of at least 1, got {shown(factor)}")
        result = Canvas(_check_side(self.width * factor, "the scaled canvas's width"),
                        _check_side(self.height * factor, "the scaled canvas's height"))
        wide = [[color for color in line for _ in range(factor)] for line in self.pixels]
        result.pixels = [list(line) for line in wide for _ in range(factor)]
        return result

    def png(self) -> bytes:
        """The canvas as PNG bytes (8-bit RGBA, compressed at level 9): the same bytes every run."""
        raw = b"".join(b"\x00" + bytes(part for color in line for part in color) for line in self.pixels)

        def chunk(kind: bytes, data: bytes) -> bytes:
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 6, 0, 0, 0)  # 8 bits, RGBA, not interlaced
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
                + chunk(b"IEND", b""))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the canvas as a PNG file, atomically (whole or not at all), for a ``Look(image=...)``."""
        with AtomicFile(path, suffix=".png") as output:
            output.open("wb").write(self.png())
            output.commit()


def _check_grid(grid: object) -> Sequence[str]:
    if isinstance(grid, str) or not isinstance(grid, Sequence) or not all(isinstance(line, str) for line in grid):
        raise TypeError(f"a sprite's grid is a list of strings, one a row, got {shown(grid)}")
    return grid


def sprite(grid: Sequence[str], palette: Mapping[str, Color], *, scale: int = 1, transparent: str = ".") -> Canvas:
    """A canvas drawn from a text grid: one string a row, one character a pixel, colours from ``palette``.

    Rows must all be as long as the first (a ragged row is refused, naming it);
    ``transparent`` (``.``) and spaces are clear. ``scale`` makes each pixel a block.
    """
    rows = _check_grid(grid)
    if not rows or not rows[0]:
        raise ValueError("a sprite's grid needs at least one row of at least one character")
    for number, line in enumerate(rows, 1):
        if len(line) != len(rows[0]):
            raise ValueError(f"the sprite's row {number} is {len(line)} characters long, "
                             f"but its first row is {len(rows[0])}: every row is one pixel per character")
    canvas = Canvas(len(rows[0]), len(rows))
    canvas.draw(rows, palette, transparent=transparent)
    return canvas if scale == 1 else canvas.scaled(scale)


def sheet(frames: Sequence[Canvas], columns: int | None = None) -> Canvas:
    """Frames of one size laid out left to right, top row first, ``columns`` a row (all in one row by default).

    The order ``Look.frames(path, (width, height))`` cuts a sheet back into, so
    ``Look.frames`` of the saved sheet gives the frames in the order given here.
    """
    if not frames or not all(isinstance(frame, Canvas) for frame in frames):
        raise ValueError(f"a sheet is made of one or more canvases, got {shown(frames)}")
    width, height = frames[0].width, frames[0].height
    for number, frame in enumerate(frames, 1):
        if (frame.width, frame.height) != (width, height):
            raise ValueError(f"frame {number} of the sheet is {frame.width}x{frame.height}, "
                             f"but the first is {width}x{height}: a sheet's frames are all one size")
    across = len(frames) if columns is None else columns
    if type(across) is not int or across < 1:
        raise ValueError(f"a sheet's columns must be a whole number of at least 1, got {shown(columns)}")
    rows = -(-len(frames) // across)
    result = Canvas(_check_side(width * across, "the sheet's width"), _check_side(height * rows, "the sheet's height"))
    for index, frame in enumerate(frames):
        row, column = divmod(index, across)
        for line in range(height):
            result.pixels[row * height + line][column * width:(column + 1) * width] = frame.pixels[line]
    return result
