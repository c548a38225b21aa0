"""Draw Pong's pictures and sounds: the files beside this script are its output, committed.

Re-run from the repository root (it rewrites them, byte for byte the same):

    python -m games.pong.make_art

Pixel art is drawn at half size and scaled up 2x, so the game shows it 1:1 with chunky
pixels and nothing blurs. The colours are the PICO-8 palette's.
"""

from __future__ import annotations

import math
from pathlib import Path

from games.artkit import Canvas, hex_color, mix, noise, note, tone, write_wav

HERE = Path(__file__).parent
NAVY, DEEP, INK = hex_color("#1d2b53"), hex_color("#111a36"), hex_color("#0b0f1f")
BAND = hex_color("#15204a")
GREY, LIGHT, WHITE = hex_color("#5f574f"), hex_color("#c2c3c7"), hex_color("#fff1e8")
LAVENDER, BLUE, CYAN = hex_color("#83769c"), hex_color("#29adff"), hex_color("#a8e4ff")
DARK_BLUE, RED, PINK, DARK_RED = hex_color("#065ab5"), hex_color("#ff004d"), hex_color("#ff77a8"), hex_color("#7e2553")
YELLOW, ORANGE, PEACH = hex_color("#ffec27"), hex_color("#ffa300"), hex_color("#ffccaa")


def court() -> Canvas:
    """320x240: a deep blue floor in soft bands, rails top and bottom, a dashed net, a centre ring."""
    canvas = Canvas(320, 240, DEEP)
    for band in range(16, 320, 32):
        canvas.rect(band, 8, 16, 224, BAND)
    for y in range(12, 228, 12):  # the net: dashes down the middle
        canvas.rect(159, y, 2, 7, LAVENDER)
        canvas.rect(159, y + 6, 2, 1, GREY)
    for angle in range(360):  # the centre ring, one pixel wide
        x = 160 + round(34 * math.cos(math.radians(angle)))
        y = 120 + round(34 * math.sin(math.radians(angle)))
        if canvas.get(x, y) != LAVENDER:
            canvas.set(x, y, GREY)
    for x in (24, 295):  # the goal lines, faint
        for y in range(8, 232, 4):
            canvas.rect(x, y, 1, 2, GREY)
    for top in (0, 232):  # the rails: a highlight above, a shadow below
        canvas.rect(0, top, 320, 8, LIGHT)
        canvas.rect(0, top, 320, 1, WHITE)
        canvas.rect(0, top + 6, 320, 2, GREY)
        for x in range(4, 320, 16):
            canvas.rect(x, top + 3, 2, 2, LAVENDER)  # rivets
    canvas.rect(0, 8, 320, 2, INK)  # the top rail's shadow on the floor
    return canvas.scaled(2)


def paddle(light: tuple[int, ...], main: tuple[int, ...], dark: tuple[int, ...]) -> Canvas:
    """8x44: a rounded bar, lit from the left, with a grip in the middle."""
    art = Canvas(8, 44)
    art.rect(1, 1, 6, 42, main)
    art.rect(1, 1, 2, 42, light)
    art.rect(5, 1, 2, 42, dark)
    for y in (18, 21, 24):
        art.rect(2, y, 4, 1, dark)
    art.set(1, 1, main)
    art.set(6, 42, dark)
    return art.outlined(INK).scaled(2)


def ball() -> Canvas:
    """7x7: a round ball with a shine."""
    art = Canvas(7, 7)
    art.draw([
        "..ooo..",
        ".oyyyo.",
        "oywyyyo",
        "oyyyyOo",
        "oyyyOOo",
        ".oOOOo.",
        "..ooo..",
    ], {"o": INK, "y": YELLOW, "w": WHITE, "O": ORANGE})
    return art.scaled(2)


def sounds() -> None:
    write_wav(HERE / "hit.wav", tone(note("A5"), 0.07, 0.5, duty=0.25, decay=20))
    write_wav(HERE / "wall.wav", tone(note("E5"), 0.05, 0.4, duty=0.5, decay=30))
    point = []
    for name in ("G5", "E5", "C5"):
        point += tone(note(name), 0.08, 0.4, duty=0.25, decay=8)
    write_wav(HERE / "score.wav", mix(point, noise(0.1, 0.2, decay=30, seed=3)))
    fanfare = []
    for name, seconds in (("C5", 0.1), ("E5", 0.1), ("G5", 0.1), ("C6", 0.35)):
        fanfare += tone(note(name), seconds, 0.4, duty=0.5, decay=3)
    write_wav(HERE / "win.wav", fanfare)


def main() -> None:
    court().save(HERE / "court.png")
    paddle(CYAN, BLUE, DARK_BLUE).save(HERE / "paddle_blue.png")
    paddle(PINK, RED, DARK_RED).save(HERE / "paddle_red.png")
    ball().save(HERE / "ball.png")
    sounds()


if __name__ == "__main__":
    main()
