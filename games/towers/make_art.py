"""Draw the towers sample's map, tiles, sprites and sounds: the files beside it.

Re-run from the repository root (it rewrites them, byte for byte the same):

    python -m games.towers.make_art

Pixel art drawn at 16 px and doubled (the map's tiles are 32 px), with the standard
library only (``engine.art``). ``towers.tmj`` is a Tiled map (JSON, Tiled 1.10) of 20 x 15
tiles: a ground layer, the road drawn under the route, and an object layer holding the
route itself, a polyline the enemies walk (``Path.from_object``). Open it in Tiled to
move the road, or change ``ROUTE`` here and re-run: the road tiles follow the route.
"""

from __future__ import annotations

import json
import math
import random
from itertools import pairwise
from pathlib import Path

from engine.art import Canvas, Sfx, hex_color, mix, note, write_wav

HERE = Path(__file__).parent
TILE = 32
COLUMNS, ROWS = 20, 15
ROUTE = [(-16, 80), (496, 80), (496, 208), (144, 208), (144, 336), (560, 336), (560, 400), (656, 400)]
"""The route in Tiled's pixels (y down from the map's top): in from the left, out at the right."""

INK = hex_color("#1a1c2c")
GRASS, GRASS_DARK, GRASS_LIGHT = hex_color("#38b764"), hex_color("#257179"), hex_color("#a7f070")
ROAD, ROAD_DARK, ROAD_LIGHT = hex_color("#c2a36b"), hex_color("#8a6a44"), hex_color("#e4cf9a")
STONE, STONE_DARK, STONE_LIGHT = hex_color("#94b0c2"), hex_color("#566c86"), hex_color("#f4f4f4")
RED, ORANGE, YELLOW = hex_color("#b13e53"), hex_color("#ef7d57"), hex_color("#ffcd75")
BLUE, DARK_BLUE, PURPLE = hex_color("#41a6f6"), hex_color("#3b5dc9"), hex_color("#5d275d")
WHITE, STEEL = hex_color("#f4f4f4"), hex_color("#333c57")
GRASS_TILE, FLOWERS_TILE, ROAD_TILE, ROCK_TILE = range(4)


# -- tiles --------------------------------------------------------------------------------

def speckled(base: tuple[int, int, int, int], marks: list[tuple[int, int, int, int]], seed: int,
             count: int = 12) -> Canvas:
    """A 16 px square of ``base`` with a few seeded marks."""
    canvas = Canvas(16, 16, base)
    rng = random.Random(seed)
    for _ in range(count):
        canvas.set(rng.randrange(16), rng.randrange(16), rng.choice(marks))
    return canvas


def tileset() -> Canvas:
    """grass, grass with flowers, road, rock: 4 tiles of 32 px in a row."""
    grass = speckled(GRASS, [GRASS_DARK, GRASS_LIGHT], seed=1)
    flowers = speckled(GRASS, [GRASS_DARK, GRASS_LIGHT], seed=2)
    for x, y, color in ((3, 4, YELLOW), (11, 3, WHITE), (6, 11, RED), (13, 12, YELLOW)):
        flowers.set(x, y, color)
        flowers.set(x, y + 1, GRASS_DARK)
    road = speckled(ROAD, [ROAD_DARK, ROAD_LIGHT], seed=3, count=18)
    rock = speckled(GRASS, [GRASS_DARK], seed=4, count=6)
    rock.draw(["..oooo..", ".osssso.", "osslsso.", "ossssdo.", "osssdddo", ".oddddo."],
              {"o": INK, "s": STONE, "l": STONE_LIGHT, "d": STONE_DARK}, 4, 5)
    sheet = Canvas(64, 16)
    for index, tile in enumerate((grass, flowers, road, rock)):
        sheet.blit(tile, index * 16, 0)
    return sheet.scaled(2)


# -- sprites --------------------------------------------------------------------------------

def creature(body: tuple[int, int, int, int], shade: tuple[int, int, int, int], art: list[str]) -> Canvas:
    canvas = Canvas(16, 16)
    canvas.draw(art, {"b": body, "d": shade, "w": WHITE, "k": INK}, 0, 0)
    return canvas.outlined(INK)


GRUNT = ["................", "................", "................", ".....bbbbbb.....",
         "....bbbbbbbb....", "...bbwkbbwkbb...", "...bbwkbbwkbb...", "...bbbbbbbbbb...",
         "...bbbbbbbbbb...", "...bddbbbbddb...", "....dddddddd....", "....d..dd..d....",
         "................", "................", "................", "................"]
RUNNER = ["................", "................", "................", "......bbbb......",
          ".....bbbbbb.....", "....bwkbbwkb....", "....bbbbbbbb....", "....dbbbbbbd....",
          ".....dbbbbd.....", "....d.dddd.d....", "...d..d..d..d...", "................",
          "................", "................", "................", "................"]
BRUTE = [".....d....d.....", "....bd....db....", "...bbbbbbbbbb...", "..bbbbbbbbbbbb..",
         "..bbwwkbbkwwbb..", "..bbwwkbbkwwbb..", "..bbbbbbbbbbbb..", "..bbbddddddbbb..",
         "..bbdwdwwdwdbb..", "..bbbddddddbbb..", "..bbbbbbbbbbbb..", "...dddddddddd...",
         "...dd..dd..dd...", "................", "................", "................"]


def tower_base(color: tuple[int, int, int, int], shade: tuple[int, int, int, int]) -> Canvas:
    """A round stone plinth, 24 px, with a coloured ring."""
    canvas = Canvas(24, 24)
    for y in range(24):
        for x in range(24):
            distance = math.hypot(x - 11.5, y - 11.5)
            if distance <= 11:
                canvas.set(x, y, STONE_DARK if distance > 9.5 else color if distance > 7.5 else
                           shade if y > 12 else STONE)
    return canvas.outlined(INK)


def barrel() -> Canvas:
    """The gun's barrel, pointing right (+x, angle 0): a part that turns with the tower."""
    canvas = Canvas(14, 6)
    canvas.rect(0, 1, 14, 4, STEEL)
    canvas.rect(0, 1, 14, 1, STONE)
    canvas.rect(11, 0, 3, 6, INK)
    return canvas


def spikes() -> Canvas:
    """The tack tower's head: eight spikes round a hub."""
    canvas = Canvas(16, 16)
    for step in range(8):
        angle = step * math.pi / 4
        for r in range(3, 8):
            canvas.set(round(7.5 + r * math.cos(angle)), round(7.5 + r * math.sin(angle)), STONE_LIGHT)
    for y in range(16):
        for x in range(16):
            if math.hypot(x - 7.5, y - 7.5) <= 3.2:
                canvas.set(x, y, ORANGE)
    return canvas.outlined(INK)


def shot() -> Canvas:
    canvas = Canvas(6, 6)
    canvas.draw([".yy.", "yyyy", "yyww", ".yy."], {"y": YELLOW, "w": WHITE}, 1, 1)
    return canvas.outlined(ORANGE)


# -- sounds ------------------------------------------------------------------------------------

def sounds() -> None:
    """sfxr-style sounds (``engine.art.Sfx``): pitches that slide by octaves a second, linear fades."""
    Sfx(frequency=note("A5"), duty=0.25, slide=-3.5, sustain=0.0, decay=0.05, volume=0.25).save(HERE / "shoot.wav")
    burst = Sfx(wave="noise", frequency=11025, sustain=0.0, decay=0.07, volume=0.35, seed=3)
    drop = Sfx(frequency=note("E4"), slide=-2.9, sustain=0.0, decay=0.1, volume=0.25)
    write_wav(HERE / "pop.wav", mix(burst.samples(), drop.samples()))
    Sfx(frequency=note("C3"), slide=-0.7, sustain=0.05, decay=0.25, volume=0.4).save(HERE / "leak.wav")
    write_wav(HERE / "build.wav", Sfx(frequency=note("C5"), sustain=0.04, decay=0.02, volume=0.3).samples()
              + Sfx(frequency=note("G5"), sustain=0.05, decay=0.03, volume=0.3).samples())
    horn = Sfx(wave="triangle", frequency=note("G4"), sustain=0.06, decay=0.06, volume=0.3)
    write_wav(HERE / "wave.wav", horn.samples() + horn.but(frequency=note("C5"), sustain=0.1, decay=0.15).samples())


# -- the map -----------------------------------------------------------------------------------

def road_cells() -> set[tuple[int, int]]:
    """The (column, row) of every tile the route passes through (its segments are level or upright)."""
    cells = set()
    for (x0, y0), (x1, y1) in pairwise(ROUTE):
        steps = max(abs(x1 - x0), abs(y1 - y0)) // 8
        for step in range(steps + 1):
            x, y = x0 + (x1 - x0) * step / steps, y0 + (y1 - y0) * step / steps
            column, row = math.floor(x / TILE), math.floor(y / TILE)
            if 0 <= column < COLUMNS and 0 <= row < ROWS:
                cells.add((column, row))
    return cells


def level() -> dict[str, object]:
    """towers.tmj: the ground (grass, flowers, rocks), the road under the route, and the route."""
    road = road_cells()
    rng = random.Random(7)
    data = []
    for row in range(ROWS):
        for column in range(COLUMNS):
            if (column, row) in road:
                tile = ROAD_TILE
            else:
                tile = rng.choices((GRASS_TILE, FLOWERS_TILE, ROCK_TILE), (14, 3, 1))[0]
            data.append(tile + 1)  # Tiled's gid: the tileset starts at 1
    buildable = [{"name": "buildable", "type": "bool", "value": True}]
    route = {"id": 1, "name": "route", "type": "route", "x": ROUTE[0][0], "y": ROUTE[0][1], "width": 0, "height": 0,
             "rotation": 0, "visible": True,
             "polyline": [{"x": x - ROUTE[0][0], "y": y - ROUTE[0][1]} for x, y in ROUTE]}
    return {
        "type": "map", "version": "1.10", "tiledversion": "1.10.2", "orientation": "orthogonal",
        "renderorder": "right-down", "infinite": False, "compressionlevel": -1,
        "width": COLUMNS, "height": ROWS, "tilewidth": TILE, "tileheight": TILE, "nextlayerid": 3, "nextobjectid": 2,
        "tilesets": [{
            "firstgid": 1, "name": "ground", "image": "tiles.png", "imagewidth": 4 * TILE, "imageheight": TILE,
            "tilewidth": TILE, "tileheight": TILE, "columns": 4, "tilecount": 4, "margin": 0, "spacing": 0,
            "tiles": [{"id": GRASS_TILE, "properties": buildable}, {"id": FLOWERS_TILE, "properties": buildable}],
        }],
        "layers": [
            {"id": 1, "name": "ground", "type": "tilelayer", "width": COLUMNS, "height": ROWS, "x": 0, "y": 0,
             "opacity": 1, "visible": True, "data": data},
            {"id": 2, "name": "routes", "type": "objectgroup", "draworder": "topdown", "x": 0, "y": 0,
             "opacity": 1, "visible": True, "objects": [route]},
        ],
    }


def main() -> None:
    tileset().save(HERE / "tiles.png")
    creature(hex_color("#73eff7"), DARK_BLUE, GRUNT).scaled(2).save(HERE / "grunt.png")
    creature(YELLOW, ORANGE, RUNNER).scaled(2).save(HERE / "runner.png")
    creature(hex_color("#b13e53"), PURPLE, BRUTE).scaled(2).save(HERE / "brute.png")
    tower_base(BLUE, DARK_BLUE).save(HERE / "gun.png")
    barrel().save(HERE / "barrel.png")
    tower_base(ORANGE, RED).save(HERE / "tack.png")
    spikes().save(HERE / "spikes.png")
    shot().save(HERE / "shot.png")
    sounds()
    (HERE / "towers.tmj").write_text(json.dumps(level(), indent=1) + "\n")


if __name__ == "__main__":
    main()
