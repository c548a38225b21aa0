"""Sprite sheets: ``Look.frames`` cuts a PNG into looks with a ``region``, headless, and each is drawn as its own part."""

from __future__ import annotations

import struct
import zlib

import pytest

from engine import Entity, Look, World

RED, GREEN, BLUE, YELLOW = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)


def write_png(path, pixels: list[list[tuple[int, int, int]]]) -> None:
    """Write an RGB PNG whose rows are ``pixels``, top row first (as an image editor shows it)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    height, width = len(pixels), len(pixels[0])
    raw = b"".join(b"\x00" + bytes(part for pixel in row for part in pixel) for row in pixels)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def write_sheet(path, frame: int = 8) -> str:
    """A 2x2-frame sheet: red, green on the top row; blue, yellow below."""
    rows = [[RED] * frame + [GREEN] * frame for _ in range(frame)]
    rows += [[BLUE] * frame + [YELLOW] * frame for _ in range(frame)]
    write_png(path, rows)
    return str(path)


def test_frames_are_cut_left_to_right_top_row_first(tmp_path):
    sheet = write_sheet(tmp_path / "sheet.png")
    frames = Look.frames(sheet, (8, 8), layer=2)
    assert [look.region for look in frames] == [(0, 0, 8, 8), (8, 0, 8, 8), (0, 8, 8, 8), (8, 8, 8, 8)]
    assert all(look.image == sheet and look.size == (8.0, 8.0) and look.layer == 2 for look in frames)
    assert Look.frames(sheet, (16, 8), size=32)[1].size == (32.0, 32.0)


def test_a_look_with_a_region_is_a_value_the_region_included(tmp_path):
    sheet = write_sheet(tmp_path / "sheet.png")
    assert Look.frames(sheet, (8, 8))[1] == Look(image=sheet, region=(8, 0, 8, 8))
    assert Look(image=sheet, region=(8, 0, 8, 8)) != Look(image=sheet, region=(0, 0, 8, 8))
    assert len({*Look.frames(sheet, (8, 8)), *Look.frames(sheet, (8, 8))}) == 4


def test_frames_do_not_need_pyglet(tmp_path):
    import subprocess
    import sys

    sheet = write_sheet(tmp_path / "sheet.png")
    code = ("import sys; from engine import Look; frames = Look.frames(sys.argv[1], (8, 8));"
            "assert len(frames) == 4; assert 'pyglet' not in sys.modules, 'pyglet imported'")
    subprocess.run([sys.executable, "-c", code, sheet], check=True)


@pytest.mark.parametrize("frame_size, says", [
    ((5, 8), "is 16x16, not a whole number of 5x8 frames"),
    ((8, 3), "is 16x16, not a whole number of 8x3 frames"),
    ((32, 8), "is 16x16, smaller than one 32x8 frame"),
    ((0, 8), "a frame must be at least 1x1 pixels, got 0x8"),
    ((8, -4), "a frame must be at least 1x1 pixels, got 8x-4"),
])
def test_a_bad_sheet_is_refused_in_one_line_naming_the_file_and_sizes(tmp_path, frame_size, says):
    sheet = write_sheet(tmp_path / "hero.png")
    with pytest.raises(ValueError) as error:
        Look.frames(sheet, frame_size)
    message = str(error.value)
    assert says in message and "hero.png" in message and "\n" not in message


@pytest.mark.parametrize("content, says", [
    (None, "cannot read the sprite sheet"),
    (b"GIF89a not a png at all, just words", "is not a PNG file"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "is cut short"),
    (b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + b"\x00" * 17, "is damaged"),
])
def test_a_missing_or_damaged_sheet_is_refused_in_one_line_naming_it(tmp_path, content, says):
    sheet = tmp_path / "hero.png"
    if content is not None:
        sheet.write_bytes(content)
    with pytest.raises(ValueError) as error:
        Look.frames(str(sheet), (8, 8))
    assert says in str(error.value) and "hero.png" in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize("look_options, says", [
    ({"region": (0, 0, 4, 4)}, "give image="),
    ({"text": "hi", "region": (0, 0, 4, 4)}, "give image="),
    ({"image": "a.png", "region": (0, 0, 4)}, "(left, top, width, height) in whole pixels"),
    ({"image": "a.png", "region": (0, 0, 4.0, 4)}, "(left, top, width, height) in whole pixels"),
    ({"image": "a.png", "region": (0, 0, True, 4)}, "(left, top, width, height) in whole pixels"),
    ({"image": "a.png", "region": (-1, 0, 4, 4)}, "must lie inside a picture"),
    ({"image": "a.png", "region": (0, 0, 0, 4)}, "must lie inside a picture"),
])
def test_a_bad_region_is_refused_naming_it(look_options, says):
    with pytest.raises(ValueError) as error:
        Look(**look_options)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_frames_refuse_options_they_set_themselves(tmp_path):
    sheet = write_sheet(tmp_path / "sheet.png")
    with pytest.raises(TypeError, match="sets each frame's region"):
        Look.frames(sheet, (8, 8), region=(0, 0, 1, 1))


# -- drawn -----------------------------------------------------------------------------------------

@pytest.mark.usefixtures("offscreen")
@pytest.mark.parametrize("points", [True, False], ids=["point sprites", "quads"])
def test_each_frame_is_drawn_in_its_own_colour(tmp_path, monkeypatch, points):
    from test_render_screen import colour, frame, make_window

    from engine.render import sprites
    from engine.render.entities import EntityRenderer

    if not points:
        monkeypatch.setattr(sprites, "_max_point_size", [4.0])  # every frame takes the quad path
    frames = Look.frames(write_sheet(tmp_path / "sheet.png"), (8, 8), size=20)
    window = make_window(200, 40)
    try:
        with World() as world:
            for index, look in enumerate(frames):
                world.spawn(Entity(x=25 + 50 * index, y=20)).look = look
            renderer = EntityRenderer(world)
            data = frame(renderer, window)
            quads = {bucket.quads for bucket in renderer._buckets.values()}
            renderer.delete()
    finally:
        window.close()
    assert quads == {not points}
    for index, expected in enumerate((RED, GREEN, BLUE, YELLOW)):
        centre = 25 + 50 * index
        # The whole 20 px square is the frame's colour, edges included: no neighbour bleeds in.
        assert {colour(data, 200, x, y) for x in range(centre - 10, centre + 10) for y in range(10, 30)} == {expected}
        assert colour(data, 200, centre - 11, 20) == (0, 0, 0)


def test_a_region_past_the_picture_is_refused_when_the_look_is_made_naming_it(tmp_path):
    sheet = write_sheet(tmp_path / "sheet.png")
    with pytest.raises(ValueError, match=r"region \(8, 8, 16, 8\) .*sheet.png goes past its 16x16 pixels"):
        Look(image=sheet, region=(8, 8, 16, 8))


def test_paths_are_taken_as_paths_by_looks_sheets_and_load_game(tmp_path):
    from pathlib import Path

    from engine.testing import load_game

    root = Path(__file__).resolve().parent.parent
    assert Look(image=root / "games/pong/ball.png").image == str(root / "games/pong/ball.png")
    coins = Look.frames(root / "games/platformer/coin.png", 16)
    assert len(coins) == 6 and coins[1].region == (16, 0, 16, 16) and coins[1].size == (16.0, 16.0)
    assert load_game(root / "games/pong/logic.py").path == root / "games/pong/logic.py"
