"""Draw the platformer's tiles, sprite sheets, sky, music, sounds and level: the files beside it.

Re-run from the repository root (it rewrites them, byte for byte the same):

    python -m games.platformer.make_art

Everything is 16 px pixel art in the PICO-8 palette's spirit, outlined and shaded; the game
draws it through a camera zoomed 2x. Sheets are laid out as ``Look.frames`` cuts them:
frames left to right, top row first. ``level1.tmj`` is a Tiled map (JSON, Tiled 1.10):
open it in Tiled to change the level, or change ``level()`` here and re-run.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

from engine.art import CLEAR, Canvas, Color, Sfx, hex_color, mix, note, silence, write_wav

HERE = Path(__file__).parent
TILE = 16
INK = hex_color("#1a1020")
GREEN, DARK_GREEN, LIGHT_GREEN = hex_color("#00b543"), hex_color("#065a3a"), hex_color("#7cf05a")
DIRT, DARK_DIRT, LIGHT_DIRT = hex_color("#8a4b2f"), hex_color("#5e2f22"), hex_color("#b06a40")
BRICK, MORTAR, BRICK_LIGHT = hex_color("#c0533a"), hex_color("#4e2420"), hex_color("#e98a5e")
STONE, STONE_DARK, STONE_LIGHT = hex_color("#8b8ba0"), hex_color("#4a4a60"), hex_color("#c8c8d8")
WHITE, CLOUD_SHADE = hex_color("#fff1e8"), hex_color("#bfe3ff")
YELLOW, ORANGE, GOLD = hex_color("#ffec27"), hex_color("#ffa300"), hex_color("#c47a00")
RED, DARK_RED, SKIN, SKIN_SHADE = hex_color("#ff004d"), hex_color("#a0163a"), hex_color("#ffccaa"), hex_color("#e09a7a")
BLUE, DARK_BLUE, BROWN = hex_color("#29adff"), hex_color("#1d4a9a"), hex_color("#5a3420")
SLIME, SLIME_DARK, SLIME_LIGHT = hex_color("#7ee04a"), hex_color("#2e8a3a"), hex_color("#d0ff9a")


# -- tiles ------------------------------------------------------------------------------

def speckled(base: Color, marks: list[Color], seed: int, count: int = 14) -> Canvas:
    """A 16x16 square of ``base`` with a few seeded marks: earth and stone that don't look flat."""
    canvas = Canvas(TILE, TILE, base)
    rng = random.Random(seed)
    for _ in range(count):
        x, y = rng.randrange(TILE), rng.randrange(TILE)
        canvas.rect(x, y, rng.choice((1, 2)), 1, rng.choice(marks))
    return canvas


def grass(left: bool = False, right: bool = False) -> Canvas:
    canvas = speckled(DIRT, [DARK_DIRT, LIGHT_DIRT], seed=2)
    for x in range(TILE):
        depth = 4 + (1 if (x * 7) % 5 < 2 else 0) + (1 if x % 4 == 1 else 0)  # a ragged edge
        canvas.rect(x, 0, 1, depth, GREEN)
        canvas.set(x, depth, DARK_GREEN)
    canvas.rect(0, 0, TILE, 1, LIGHT_GREEN)
    for x in range(1, TILE, 5):
        canvas.set(x, 1, LIGHT_GREEN)
    if left:
        canvas.rect(0, 0, 1, 6, DARK_GREEN)
        canvas.set(0, 0, CLEAR)
    if right:
        canvas.rect(15, 0, 1, 6, DARK_GREEN)
        canvas.set(15, 0, CLEAR)
    return canvas


def brick() -> Canvas:
    canvas = Canvas(TILE, TILE, MORTAR)
    for row, top in enumerate((0, 8)):
        shift = 0 if row == 0 else 4
        for left in range(-8 + shift, TILE, 8):
            canvas.rect(left + 1, top + 1, 7, 6, BRICK)
            canvas.rect(left + 1, top + 1, 7, 1, BRICK_LIGHT)
            canvas.rect(left + 1, top + 6, 7, 1, DARK_RED)
    return canvas


def stone() -> Canvas:
    canvas = speckled(STONE, [STONE_LIGHT, STONE_DARK], seed=5, count=6)
    canvas.rect(0, 0, TILE, 2, STONE_LIGHT)
    canvas.rect(0, 0, 2, TILE, STONE_LIGHT)
    canvas.rect(0, 14, TILE, 2, STONE_DARK)
    canvas.rect(14, 0, 2, TILE, STONE_DARK)
    canvas.set(0, 15, INK)
    canvas.set(15, 0, INK)
    return canvas


def bonus() -> Canvas:
    canvas = Canvas(TILE, TILE, ORANGE)
    canvas.rect(1, 1, 14, 14, YELLOW)
    canvas.rect(1, 14, 14, 1, GOLD)
    canvas.rect(14, 1, 1, 14, GOLD)
    canvas.draw([".oooo.", "oo..oo", "....oo", "...oo.", "..oo..", "......", "..oo.."],
                {"o": GOLD}, 5, 4)
    for x, y in ((2, 2), (13, 2), (2, 13), (13, 13)):
        canvas.set(x, y, BROWN)
    return canvas


def plank() -> Canvas:
    canvas = Canvas(TILE, TILE)
    canvas.rect(0, 0, TILE, 6, LIGHT_DIRT)
    canvas.rect(0, 0, TILE, 1, SKIN)
    canvas.rect(0, 5, TILE, 1, DARK_DIRT)
    for x in (3, 12):
        canvas.set(x, 2, DARK_DIRT)
    return canvas.outlined(INK)


def spikes() -> Canvas:
    canvas = Canvas(TILE, TILE)
    for left in (0, 8):
        for row in range(8):
            width = 1 + row // 2 * 2 if row < 7 else 7
            canvas.rect(left + 4 - width // 2, 6 + row, width, 1, STONE)
            canvas.set(left + 4 - width // 2, 6 + row, STONE_LIGHT)
    canvas.rect(0, 14, TILE, 2, STONE_DARK)
    return canvas.outlined(INK)


def cloud(part: int) -> Canvas:
    """One third of a cloud: 0 left, 1 middle, 2 right."""
    canvas = Canvas(TILE, TILE)
    for y in range(TILE):
        for x in range(TILE):
            wx = x + part * TILE  # the whole cloud is 48 px wide: three bumps over a flat base
            bumps = max(7 - math.hypot(wx - 12, y - 9), 9 - math.hypot(wx - 24, y - 7), 7 - math.hypot(wx - 36, y - 9))
            if bumps > 0 and y <= 13 and 3 <= wx <= 45:
                canvas.set(x, y, WHITE if y < 10 else CLOUD_SHADE)
    return canvas


def bush(part: int) -> Canvas:
    canvas = Canvas(TILE, TILE)
    for y in range(TILE):
        for x in range(TILE):
            wx = x + part * TILE
            inside = max(8 - math.hypot(wx - 12, y - 12), 10 - math.hypot(wx - 24, y - 12),
                         8 - math.hypot(wx - 36, y - 12))
            if inside > 0 and 3 <= wx <= 45:
                canvas.set(x, y, LIGHT_GREEN if inside > 6 and y < 8 else GREEN if y < 12 else DARK_GREEN)
    return canvas.outlined(DARK_GREEN)


def flowers() -> Canvas:
    canvas = Canvas(TILE, TILE)
    for x, color in ((3, RED), (8, YELLOW), (12, WHITE)):
        canvas.rect(x, 11, 1, 5, DARK_GREEN)
        canvas.rect(x - 1, 9, 3, 3, color)
        canvas.set(x, 10, ORANGE)
    return canvas


def fence() -> Canvas:
    canvas = Canvas(TILE, TILE)
    for x in (2, 11):
        canvas.rect(x, 4, 3, 12, LIGHT_DIRT)
        canvas.rect(x + 2, 4, 1, 12, DIRT)
    canvas.rect(0, 7, TILE, 2, LIGHT_DIRT)
    canvas.rect(0, 12, TILE, 2, LIGHT_DIRT)
    return canvas.outlined(DARK_DIRT)


TILES = [grass(), speckled(DIRT, [DARK_DIRT, LIGHT_DIRT], seed=3), brick(), stone(), spikes(), bonus(), plank(),
         grass(left=True), cloud(0), cloud(1), cloud(2), bush(0), bush(1), bush(2), flowers(), fence()]
GRASS, DIRT_TILE, BRICK_TILE, STONE_TILE, SPIKES, BONUS, PLANK, GRASS_EDGE = range(8)
CLOUD, BUSH, FLOWERS, FENCE = 8, 11, 14, 15
SOLID = (GRASS, DIRT_TILE, BRICK_TILE, STONE_TILE, BONUS, PLANK, GRASS_EDGE)


def tileset() -> Canvas:
    sheet = Canvas(8 * TILE, 2 * TILE)
    for index, tile in enumerate(TILES):
        sheet.blit(tile, index % 8 * TILE, index // 8 * TILE)
    return sheet


# -- sprites ----------------------------------------------------------------------------

HERO = {"r": RED, "R": DARK_RED, "s": SKIN, "S": SKIN_SHADE, "k": INK, "h": BROWN, "b": BLUE, "B": DARK_BLUE,
        "y": YELLOW, "n": BROWN, "w": WHITE}
HEAD = ["......rrrrr.....",
        ".....rrrrrrrr...",
        ".....RRRRrrrrrr.",
        ".....hhsskss....",
        "....hsssskss....",
        ".....sssssSS....",
        "......SSSSS....."]
BODY = [".....rbbbr......",
        "....srbybrs.....",
        "....sbbbbbs.....",
        ".....bbbbb......"]
LEGS = {
    "stand": [".....bb.bb......", ".....BB.BB......", "....nnn.nnn....."],
    "stride": ["....bb...bb.....", "...BB.....BB....", "..nnn.....nnn..."],
    "pass": [".....bbbb.......", "......BB........", ".....nnnn......."],
    "stride2": [".....bb..bb.....", "....BB....BB....", "...nnn....nnn..."],
    "jump": ["....bbb.bbb.....", "...nnB...Bnn....", "................"],
}


def hero(legs: str, bob: int = 0, palette: dict[str, Color] = HERO) -> Canvas:
    canvas = Canvas(TILE, TILE)
    canvas.draw(HEAD, palette, 0, 1 + bob)
    canvas.draw(BODY, palette, 0, 8)
    canvas.draw(LEGS[legs], palette, 0, 12)
    return canvas.outlined(INK)


def hero_sheet() -> Canvas:
    """Frames 0-1 idle, 2-5 walk, 6 jump, 7 hurt; the top row faces right, the bottom row left."""
    flash = {key: WHITE if key not in "k" else RED for key in HERO}
    frames = [hero("stand"), hero("stand", bob=1), hero("stride"), hero("pass"), hero("stride2"), hero("pass"),
              hero("jump"), hero("stand", palette=flash)]
    sheet = Canvas(8 * TILE, 2 * TILE)
    for index, frame in enumerate(frames):
        sheet.blit(frame, index * TILE, 0)
        sheet.blit(frame.mirrored(), index * TILE, TILE)
    return sheet


def blob(half_width: float, height: float, eyes: bool = True) -> Canvas:
    """A slime: a dome ``half_width`` wide each way and ``height`` tall, standing on the frame's bottom."""
    canvas = Canvas(TILE, TILE)
    bottom = 14
    for y in range(TILE):
        for x in range(TILE):
            dx, dy = (x + 0.5 - 8) / half_width, (bottom + 0.5 - y) / height
            if dy >= 0 and dx * dx + dy * dy <= 1.0 and y <= bottom:
                shade = SLIME_DARK if y >= bottom - 1 or dx > 0.6 else SLIME
                canvas.set(x, y, shade)
    top = bottom - int(height) + 1
    canvas.set(8 - int(half_width / 2), top + 1, SLIME_LIGHT)
    canvas.set(8 - int(half_width / 2) + 1, top + 1, SLIME_LIGHT)
    if eyes:
        eye_y = bottom - int(height * 0.55)
        for x in (6, 10):
            canvas.set(x, eye_y, INK)
            canvas.set(x, eye_y - 1, WHITE)
    return canvas.outlined(INK)


def slime_sheet() -> Canvas:
    """Frames 0-3 hop (rest, squash, stretch, squash), 4 squashed flat (stomped)."""
    frames = [blob(6, 8), blob(7, 6.5), blob(5, 10), blob(7, 6.5), blob(7.5, 3, eyes=False)]
    sheet = Canvas(5 * TILE, TILE)
    for index, frame in enumerate(frames):
        sheet.blit(frame, index * TILE, 0)
    return sheet


def coin_sheet() -> Canvas:
    """Six frames of a coin turning: its width follows a cosine."""
    sheet = Canvas(6 * TILE, TILE)
    for index, half in enumerate((5.0, 4.0, 2.0, 0.6, 2.0, 4.0)):
        coin = Canvas(TILE, TILE)
        for y in range(TILE):
            for x in range(TILE):
                dx, dy = (x + 0.5 - 8) / half, (y + 0.5 - 8) / 6
                inside = dx * dx + dy * dy
                if inside <= 1.0:
                    coin.set(x, y, GOLD if inside > 0.55 else YELLOW)
        if half > 1:
            coin.set(8 - int(half / 2), 5, WHITE)
            coin.set(8 - int(half / 2), 6, WHITE)
        sheet.blit(coin.outlined(INK), index * TILE, 0)
    return sheet


def flag_sheet() -> Canvas:
    """Two frames (16x32) of the goal flag waving on its pole."""
    sheet = Canvas(2 * TILE, 2 * TILE)
    for index in range(2):
        frame = Canvas(TILE, 2 * TILE)
        frame.rect(3, 3, 2, 29, STONE_LIGHT)
        frame.rect(4, 3, 1, 29, STONE)
        frame.rect(2, 1, 4, 3, YELLOW)
        for x in range(10):
            wave = round(math.sin((x + index * 5) / 10 * 2 * math.pi))
            height = 9 - x * 7 // 10
            frame.rect(5 + x, 4 + wave + (9 - height) // 2, 1, height, RED if x % 4 else DARK_RED)
        sheet.blit(frame.outlined(INK), index * TILE, 0)
    return sheet


def sky() -> Canvas:
    """320x240 sky with two ranges of hills; it repeats every 320 px, so it can scroll forever."""
    canvas = Canvas(320, 240)
    top, horizon = (41, 120, 220), (190, 230, 255)
    for y in range(240):
        t = min(1.0, y / 200)
        step = round(t * 6) / 6  # banded, as old hardware would have drawn it
        color = tuple(round(a + (b - a) * step) for a, b in zip(top, horizon))
        canvas.rect(0, y, 320, 1, (*color, 255))
    far, near = hex_color("#8fa8d8"), hex_color("#4f8a8b")
    for x in range(320):
        angle = 2 * math.pi * x / 320
        far_top = 150 - round(22 * math.sin(angle * 2) + 10 * math.sin(angle * 5 + 1))
        near_top = 185 - round(16 * math.sin(angle * 3 + 2) + 6 * math.sin(angle * 7))
        canvas.rect(x, far_top, 1, 240 - far_top, far)
        canvas.rect(x, near_top, 1, 240 - near_top, near)
        canvas.set(x, near_top, hex_color("#7fc0a0"))
    return canvas


# -- sound ------------------------------------------------------------------------------

def music() -> list[float]:
    """An 8-bar loop at 150 beats a minute: a square-wave tune over a triangle bass, with a noise hat."""
    eighth = 0.2
    tune = ["E5", "G5", "A5", "G5", "E5", "D5", "C5", "D5", "E5", "G5", "A5", "C6", "B5", "A5", "G5", ".",
            "A5", "C6", "D6", "C6", "A5", "G5", "E5", "G5", "A5", "G5", "E5", "D5", "C5", "D5", "C5", "."]
    bass = ["C3", "C3", "G3", "G3", "A2", "A2", "E3", "E3", "F2", "F2", "C3", "C3", "G2", "G2", "G2", "G2"]
    melody: list[float] = []
    for name in tune:
        melody += (Sfx(frequency=note(name), duty=0.25, sustain=0.05, decay=0.15, volume=0.22).samples()
                   if name != "." else silence(eighth))
    low: list[float] = []
    for name in bass:
        low += Sfx(wave="triangle", frequency=note(name), sustain=0.2, decay=0.2, volume=0.3).samples()
    hat = Sfx(wave="noise", frequency=11025, sustain=0.0, decay=0.025, volume=0.08, seed=9).samples()
    hats: list[float] = []
    for _ in range(len(tune)):
        hats += hat + silence(eighth - 0.025)
    return mix(melody, low, hats)


def sounds() -> None:
    """sfxr-style sounds (``engine.art.Sfx``): pitches that slide by octaves a second, linear fades."""
    write_wav(HERE / "music.wav", music())
    Sfx(frequency=note("C5"), duty=0.25, slide=2.2, sustain=0.02, decay=0.13, volume=0.35).save(HERE / "jump.wav")
    write_wav(HERE / "coin.wav", Sfx(frequency=note("B5"), sustain=0.03, decay=0.03, volume=0.35).samples()
              + Sfx(frequency=note("E6"), sustain=0.0, decay=0.2, volume=0.35).samples())
    thud = Sfx(frequency=note("C4"), slide=-2.4, sustain=0.0, decay=0.1, volume=0.4)
    crunch = Sfx(wave="noise", frequency=11025, sustain=0.0, decay=0.06, volume=0.3, seed=4)
    write_wav(HERE / "stomp.wav", mix(thud.samples(), crunch.samples()))
    ouch = Sfx(frequency=note("A4"), slide=-2.1, sustain=0.05, decay=0.3, volume=0.4)
    write_wav(HERE / "hurt.wav", mix(ouch.samples(), crunch.but(decay=0.13, volume=0.25, seed=5).samples()))


# -- the level --------------------------------------------------------------------------

COLUMNS, ROWS = 100, 15
SURFACE = 12  # the grass row, counted from the top as Tiled counts


def level() -> dict[str, object]:
    """level1: a Tiled map, 100x15 tiles of 16 px, built column by column."""
    background = [[0] * COLUMNS for _ in range(ROWS)]
    ground = [[0] * COLUMNS for _ in range(ROWS)]
    gaps = set(range(22, 25)) | set(range(45, 49)) | set(range(70, 73))

    def put(layer: list[list[int]], column: int, row: int, tile: int) -> None:
        layer[row][column] = tile + 1  # Tiled's gid: the tileset starts at 1; 0 is an empty cell

    for column in range(COLUMNS):
        if column in gaps:
            continue
        edge = column - 1 in gaps or column == 0
        put(ground, column, SURFACE, GRASS_EDGE if edge else GRASS)
        for row in range(SURFACE + 1, ROWS):
            put(ground, column, row, DIRT_TILE)
    # Platforms float three tiles above the grass (row 9): a jump (about 3.5 tiles) lands on them.
    for column in range(14, 19):
        put(ground, column, 9, BRICK_TILE)
    put(ground, 16, 9, BONUS)
    for column in range(39, 44):  # ending a tile before the gap: room to jump it from the grass
        put(ground, column, 9, PLANK)
    for step, column in enumerate(range(52, 56)):  # stairs up, then a drop
        for row in range(SURFACE - 1 - step, SURFACE):
            put(ground, column, row, STONE_TILE)
    for column in range(63, 68):  # a tile clear of the spikes: a jump over them lands safe, short or long
        put(ground, column, 9, BRICK_TILE)
    for column in range(68, 75):
        put(ground, column, 9, PLANK)
    for column in range(82, 86):
        put(ground, column, 9, BRICK_TILE)
    put(ground, 84, 9, BONUS)
    for column in (34, 35, 60, 61, 90):
        put(ground, column, SURFACE - 1, SPIKES)
    for column, row in ((4, 3), (19, 2), (33, 4), (50, 2), (66, 3), (80, 2), (93, 4)):
        for part in range(3):
            put(background, column + part, row, CLOUD + part)
    for column in (8, 28, 57, 77, 92):
        for part in range(3):
            put(background, column + part, SURFACE - 1, BUSH + part)
    for column in (2, 12, 31, 38, 66, 87):
        put(background, column, SURFACE - 1, FLOWERS)
    for column in (5, 6, 50, 51):
        put(background, column, SURFACE - 1, FENCE)

    things: list[tuple[str, int, int]] = [("player", 3, SURFACE - 1), ("goal", 96, SURFACE - 2)]
    things += [("coin", column, 7) for column in range(14, 19)]
    things += [("coin", column, 10) for column in range(21, 26)]
    things += [("coin", column, 7) for column in range(39, 44)]
    things += [("coin", column, SURFACE - 6) for column in (53, 54, 55)]
    things += [("coin", column, 7) for column in range(63, 68)]
    things += [("coin", column, 7) for column in range(69, 74)]
    things += [("coin", column, 7) for column in range(82, 86)]
    things += [("slime", column, SURFACE - 1) for column in (28, 38, 58, 76, 80, 88)]
    objects = [{"id": index + 1, "name": kind, "type": kind, "x": column * TILE, "y": row * TILE,
                "width": TILE, "height": TILE * (2 if kind == "goal" else 1), "rotation": 0, "visible": True}
               for index, (kind, column, row) in enumerate(things)]

    def tile_layer(layer_id: int, name: str, cells: list[list[int]]) -> dict[str, object]:
        return {"id": layer_id, "name": name, "type": "tilelayer", "width": COLUMNS, "height": ROWS,
                "x": 0, "y": 0, "opacity": 1, "visible": True, "data": [gid for row in cells for gid in row]}

    return {
        "type": "map", "version": "1.10", "tiledversion": "1.10.2", "orientation": "orthogonal",
        "renderorder": "right-down", "infinite": False, "compressionlevel": -1,
        "width": COLUMNS, "height": ROWS, "tilewidth": TILE, "tileheight": TILE,
        "nextlayerid": 4, "nextobjectid": len(objects) + 1,
        "properties": [{"name": "title", "type": "string", "value": "Green Hills"}],
        "tilesets": [{
            "firstgid": 1, "name": "tiles", "image": "tiles.png", "imagewidth": 8 * TILE, "imageheight": 2 * TILE,
            "tilewidth": TILE, "tileheight": TILE, "columns": 8, "tilecount": 16, "margin": 0, "spacing": 0,
            "tiles": [{"id": tile, "properties": [{"name": "solid", "type": "bool", "value": True}]}
                      for tile in SOLID]
                     + [{"id": SPIKES, "properties": [{"name": "hurts", "type": "bool", "value": True}]}],
        }],
        "layers": [tile_layer(1, "background", background), tile_layer(2, "ground", ground),
                   {"id": 3, "name": "things", "type": "objectgroup", "draworder": "topdown", "x": 0, "y": 0,
                    "opacity": 1, "visible": True, "objects": objects}],
    }


def main() -> None:
    tileset().save(HERE / "tiles.png")
    hero_sheet().save(HERE / "hero.png")
    slime_sheet().save(HERE / "slime.png")
    coin_sheet().save(HERE / "coin.png")
    flag_sheet().save(HERE / "flag.png")
    sky().save(HERE / "sky.png")
    sounds()
    (HERE / "level1.tmj").write_text(json.dumps(level(), indent=1) + "\n")


if __name__ == "__main__":
    main()
