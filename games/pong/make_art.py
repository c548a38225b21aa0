"""Draw Pong's pictures and sounds: the files beside this script are its output, committed.

Re-run from the repository root (it rewrites them, byte for byte the same):

    python -m games.pong.make_art

Pixel art is drawn at half size and scaled up 2x, so the game shows it 1:1 with chunky
pixels and nothing blurs. The colours are the PICO-8 palette's. It uses the engine's art kit
(``engine.art``: canvases, text-grid sprites, sfxr-style sounds), so the same bytes come out
on every machine.
"""

from __future__ import annotations

from pathlib import Path

from engine.art import Canvas, Color, Sfx, hex_color, mix, note, sprite, write_wav
from engine.portable import RADIANS, cos, sin

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
        x = 160 + round(34 * cos(angle * RADIANS))
        y = 120 + round(34 * sin(angle * RADIANS))
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


def paddle(light: Color, main: Color, dark: Color) -> Canvas:
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
    return sprite([
        "..ooo..",
        ".oyyyo.",
        "oywyyyo",
        "oyyyyOo",
        "oyyyOOo",
        ".oOOOo.",
        "..ooo..",
    ], {"o": INK, "y": YELLOW, "w": WHITE, "O": ORANGE}, scale=2)


def sounds() -> None:
    """sfxr-style sounds (``engine.art.Sfx``): square waves with short linear fades, a noise burst for a point."""
    Sfx(frequency=note("A5"), duty=0.25, sustain=0.01, decay=0.06, volume=0.5).save(HERE / "hit.wav")
    Sfx(frequency=note("E5"), sustain=0.01, decay=0.04, volume=0.4).save(HERE / "wall.wav")
    point = []
    for name in ("G5", "E5", "C5"):
        point += Sfx(frequency=note(name), duty=0.25, sustain=0.02, decay=0.06, volume=0.4).samples()
    burst = Sfx(wave="noise", frequency=3000, sustain=0.0, decay=0.1, volume=0.2, seed=3).samples()
    write_wav(HERE / "score.wav", mix(point, burst))
    fanfare = []
    for name, seconds in (("C5", 0.1), ("E5", 0.1), ("G5", 0.1), ("C6", 0.35)):
        fanfare += Sfx(frequency=note(name), sustain=seconds * 0.4, decay=seconds * 0.6, volume=0.4).samples()
    write_wav(HERE / "win.wav", fanfare)


def main() -> None:
    court().save(HERE / "court.png")
    paddle(CYAN, BLUE, DARK_BLUE).save(HERE / "paddle_blue.png")
    paddle(PINK, RED, DARK_RED).save(HERE / "paddle_red.png")
    ball().save(HERE / "ball.png")
    sounds()


if __name__ == "__main__":
    main()
