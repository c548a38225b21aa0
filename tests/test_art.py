"""engine.art: sprites from text grids, sheets, PNGs and sfxr-style sounds, the same bytes every run."""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import wave

import pytest

from engine import Look
from engine.art import PICO8, PRESETS, RATE, Canvas, Sfx, hex_color, mix, note, sheet, silence, sprite, wav_bytes
from engine.disk.png import png_size

GRID = ["..8888..", ".8ffff8.", ".f1ff1f.", "..cccc..", ".11..11."]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_sprite_is_its_grid_in_the_palettes_colours():
    hero = sprite(GRID, PICO8)
    assert (hero.width, hero.height) == (8, 5)
    assert hero.get(0, 0) == (0, 0, 0, 0) and hero.get(2, 0) == hex_color("#ff004d")
    assert hero.get(2, 2) == PICO8["1"] and hero.get(3, 2) == PICO8["f"]
    doubled = sprite(GRID, PICO8, scale=2)
    assert (doubled.width, doubled.height) == (16, 10) and doubled.get(5, 1) == hero.get(2, 0)


def test_a_ragged_row_or_a_character_without_a_colour_is_refused_by_row_and_column():
    with pytest.raises(ValueError, match="row 2 is 3 characters long, but its first row is 4"):
        sprite(["8888", "888"], PICO8)
    with pytest.raises(ValueError, match=r"row 1, column 3 is 'x'"):
        sprite(["88x8"], PICO8)
    with pytest.raises(ValueError, match="six hex digits"):
        hex_color("#12345")


def test_the_png_of_a_sprite_is_the_same_bytes_every_run(tmp_path):
    hero = sprite(GRID, PICO8, scale=2).outlined(PICO8["0"])
    hero.save(tmp_path / "hero.png")
    assert (tmp_path / "hero.png").read_bytes() == hero.png()
    assert png_size(str(tmp_path / "hero.png")) == (16, 10)
    # Another process, with another string-hash seed, writes the same bytes.
    code = ("from engine.art import PICO8, sprite; import hashlib, sys; "
            f"sys.stdout.write(hashlib.sha256(sprite({GRID!r}, PICO8, scale=2).outlined(PICO8['0']).png()).hexdigest())")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": "12345", "PATH": ""}).stdout
    assert other == digest(hero.png()) == PINNED_PNG


# Pinned: a change to the drawing or the PNG writer that changes a byte fails here, on purpose.
PINNED_PNG = "224d220cb2789fe30a77a311d7f9a484b2822c55053a28493eca8361c0c6e0ae"


def test_a_sheet_lays_frames_out_in_the_order_look_frames_cuts_them(tmp_path):
    frames = [Canvas(3, 2, (value, 0, 0, 255)) for value in (10, 20, 30, 40, 50)]
    laid = sheet(frames, columns=2)
    assert (laid.width, laid.height) == (6, 6)
    assert [laid.get(0, 0)[0], laid.get(3, 0)[0], laid.get(0, 2)[0], laid.get(3, 2)[0], laid.get(0, 4)[0]] == \
        [10, 20, 30, 40, 50]
    assert laid.get(3, 4) == (0, 0, 0, 0)
    laid.save(tmp_path / "sheet.png")
    assert len(Look.frames(str(tmp_path / "sheet.png"), (3, 2))) == 6
    with pytest.raises(ValueError, match="frame 2 of the sheet is 1x1, but the first is 3x2"):
        sheet([frames[0], Canvas(1, 1)])


def test_every_preset_is_the_same_wav_bytes_every_run():
    digests = {kind: digest(Sfx.preset(kind, seed=7).wav()) for kind in PRESETS}
    assert digests == {kind: digest(Sfx.preset(kind, seed=7).wav()) for kind in PRESETS}
    assert len(set(digests.values())) == len(PRESETS), "each kind sounds different"
    assert digests == PINNED_PRESETS


# Pinned on Linux x86-64; the synthesis uses only correctly rounded operations, so every machine agrees.
PINNED_PRESETS = {
    "blip": "a7c67fb8a393b4e6364649060f8e64164535241dac47fbccb4e2d45345b3e9e4",
    "coin": "01feb367313f18e74b9bdf64c18458582da070fa3291c65622cccf7aaaa49070",
    "explosion": "2a2cbdbb9a03e14431f911d81eece93cfb2ea92398220cd549904f6e7686b64c",
    "hit": "304c791a5e97883865c438195938d069c87760a237e71a90823cdc7491e7aeaf",
    "jump": "9e63111eb0215b8c7857fd3a8914949dd9eae4be80b6558953c813d88bbfa9a0",
    "laser": "60775b57371a325d5c1ee129d54c1c7fc145afb47db2bc12b591868cba6ee0c5",
    "powerup": "dfe7183c50bdd82e931324d787858970cd8a1502bf505a8e0487f5bc402f30e8",
}


def test_a_sound_is_a_readable_16_bit_wav_of_its_length_and_seeds_differ():
    sound = Sfx(frequency=note("A4"), sustain=0.1, decay=0.1)
    with wave.open(io.BytesIO(sound.wav())) as read:
        assert (read.getnchannels(), read.getsampwidth(), read.getframerate()) == (1, 2, RATE)
        assert read.getnframes() == round(0.1 * RATE) * 2
    assert note("A4") == 440.0 and note("A5") == 880.0
    assert Sfx.preset("coin", seed=1) != Sfx.preset("coin", seed=2)
    noise = Sfx(wave="noise", sustain=0.05, decay=0.0)
    assert noise.samples() != noise.but(seed=1).samples()
    samples = sound.samples()
    assert max(samples) > 0.4 and min(samples) < -0.4 and abs(samples[-1]) < 0.01, "full, then faded out"


def test_jingles_join_and_mix_and_loud_mixes_are_clipped():
    beep = Sfx(sustain=0.01, decay=0.0, volume=1.0).samples()
    assert len(beep + silence(0.01) + beep) == 3 * round(0.01 * RATE)
    loud = mix(beep, beep)
    assert max(loud) == 2.0
    with wave.open(io.BytesIO(wav_bytes(loud))) as read:
        assert max(memoryview(read.readframes(read.getnframes())).cast("h")) == 32767


@pytest.mark.parametrize(("changes", "message"), [
    ({"wave": "organ"}, "wave must be one of square"),
    ({"frequency": 0}, "frequency must be a number from 1"),
    ({"volume": float("nan")}, "volume must be a number"),
    ({"sustain": 9.0, "decay": 9.0}, "at most 10 s"),
    ({"sustain": 0.0, "decay": 0.0}, "at least one sample"),
])
def test_a_bad_number_is_refused_naming_it(changes, message):
    with pytest.raises(ValueError, match=message):
        Sfx(**changes)
    with pytest.raises(TypeError, match="Sfx has no 'pitch'"):
        Sfx().but(pitch=3)
    with pytest.raises(ValueError, match="kind must be one of blip"):
        Sfx.preset("boing")
