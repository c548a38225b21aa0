"""Draw Quest's pictures and sounds with the engine's art kit (``engine.art``): the files beside this script.

Re-run from the repository root (it rewrites them, byte for byte the same):

    python -m games.quest.make_art

Sprites are text grids in the PICO-8 palette, scaled 2x; sounds are sfxr presets picked by seed.
"""

from __future__ import annotations

from pathlib import Path

from engine.art import PICO8, Sfx, sprite

HERE = Path(__file__).parent

HERO = ["..4444..",
        ".4ffff4.",
        ".f1ff1f.",
        ".ffffff.",
        "..cccc..",
        ".cccccc.",
        "..c..c..",
        ".44..44."]
SLIME = ["........",
         "..3333..",
         ".3bbbb3.",
         "3b1bb1b3",
         "3bbbbbb3",
         "3bbbbbb3",
         ".333333.",
         "........"]
ELDER = ["..6666..",
         ".6ffff6.",
         ".f1ff1f.",
         ".f7777f.",
         "..d77d..",
         ".dddddd.",
         ".dddddd.",
         "..4..4.."]
WALL = ["5555",
        "5665",
        "5555",
        "6556"]
DOOR = ["4444",
        "4994",
        "4994",
        "4994"]

SOUNDS = {"swing": ("laser", 3), "squish": ("hit", 5), "hurt": ("hit", 2), "door": ("powerup", 1), "page": ("blip", 4)}


def main() -> None:
    for name, grid, scale in (("hero", HERO, 2), ("slime", SLIME, 2), ("elder", ELDER, 2), ("wall", WALL, 4),
                              ("door", DOOR, 4)):
        sprite(grid, PICO8, scale=scale).save(HERE / f"{name}.png")
    for name, (kind, seed) in SOUNDS.items():
        Sfx.preset(kind, seed).but(volume=0.4).save(HERE / f"{name}.wav")


if __name__ == "__main__":
    main()
