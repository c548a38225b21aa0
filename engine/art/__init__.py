"""Art and sound for a jam: pixel sprites from text grids and palettes, sprite sheets, sfxr-style sounds.

A game's pictures and sounds made by a script beside it, with nothing to install and
nothing to download: ``sprite`` draws a text grid in a palette, ``sheet`` lays frames out for
``Look.frames``, ``Sfx`` makes a sound from a few numbers or ``Sfx.preset(kind, seed)``.
The same script writes the same bytes on every run and every machine. Headless and
standard library only (no pyglet, no numpy): see the guide, "Art and sound".
"""

from __future__ import annotations

from engine.art.pixels import CLEAR as CLEAR
from engine.art.pixels import PICO8 as PICO8
from engine.art.pixels import Canvas as Canvas
from engine.art.pixels import Color as Color
from engine.art.pixels import hex_color as hex_color
from engine.art.pixels import sheet as sheet
from engine.art.pixels import sprite as sprite
from engine.art.sounds import PRESETS as PRESETS
from engine.art.sounds import RATE as RATE
from engine.art.sounds import WAVES as WAVES
from engine.art.sounds import Sfx as Sfx
from engine.art.sounds import mix as mix
from engine.art.sounds import note as note
from engine.art.sounds import silence as silence
from engine.art.sounds import wav_bytes as wav_bytes
from engine.art.sounds import write_wav as write_wav

__all__ = ["CLEAR", "PICO8", "PRESETS", "RATE", "WAVES", "Canvas", "Color", "Sfx", "hex_color", "mix", "note",
           "sheet", "silence", "sprite", "wav_bytes", "write_wav"]
