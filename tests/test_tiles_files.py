"""What a map holds and names is checked before pytiled-parser reads it: bounded data, regular files beside it."""

from __future__ import annotations

import base64
import gzip
import json
import os
import struct
import zlib
from pathlib import Path

import pytest
from mapfiles import tmj, tmx, write_png

from engine.disk.png import PictureError, png_size
from engine.look import MAX_FRAMES, Look
from engine.tiles.model import MapError
from engine.tiles.reading import read_map

ROWS = [[1, 2], [3, 0]]


def _one_line(error: pytest.ExceptionInfo[BaseException]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def _packed(gids: list[int]) -> bytes:
    return struct.pack(f"<{len(gids)}I", *gids)


def _encoded_map(tmp_path: Path, raw: bytes, compression: str) -> Path:
    path = tmj(tmp_path, ROWS)
    document = json.loads(path.read_text())
    ground = document["layers"][0]
    ground.update(encoding="base64", compression=compression, data=base64.b64encode(raw).decode())
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("compression, pack", [("zlib", zlib.compress), ("gzip", gzip.compress),
                                                ("", lambda raw: raw)])
def test_compressed_layer_data_that_inflates_past_its_tiles_is_refused(tmp_path, compression, pack):
    # 2 x 2 tiles take 16 bytes; 64 MiB of zeros compress to a few kilobytes.
    raw = bytes(64 * 1024 * 1024) if compression else bytes(17)
    with pytest.raises(MapError) as error:
        read_map(_encoded_map(tmp_path, pack(raw), compression))
    assert "layer 'ground' holds more data than its 2 x 2 tiles" in _one_line(error)


@pytest.mark.parametrize("compression, pack", [("zlib", zlib.compress), ("gzip", gzip.compress), ("", bytes)])
def test_compressed_layer_data_of_the_right_size_loads(tmp_path, compression, pack):
    data = read_map(_encoded_map(tmp_path, pack(_packed([1, 2, 3, 0])), compression))
    assert data.layers[0].cells == ((3, 0), (1, 2))


def test_a_second_gzip_member_is_refused(tmp_path):
    # gzip.decompress would inflate every member; the bounded check stops after the first.
    packed = gzip.compress(_packed([1, 2, 3, 0])) + gzip.compress(bytes(1024 * 1024))
    with pytest.raises(MapError) as error:
        read_map(_encoded_map(tmp_path, packed, "gzip"))
    assert "holds more data than its 2 x 2 tiles" in _one_line(error)


def test_unknown_compression_is_refused_by_name(tmp_path):
    with pytest.raises(MapError) as error:
        read_map(_encoded_map(tmp_path, _packed([1, 2, 3, 0]), "zstd"))
    assert "'zstd' compression" in _one_line(error)


def test_tmx_compressed_layer_data_is_bounded_too(tmp_path):
    path = tmx(tmp_path, ROWS)
    bomb = base64.b64encode(zlib.compress(bytes(64 * 1024 * 1024))).decode()
    text = path.read_text()
    start, end = text.index('<data encoding="csv">'), text.index("</data>")
    path.write_text(text[:start] + f'<data encoding="base64" compression="zlib">{bomb}' + text[end:])
    with pytest.raises(MapError) as error:
        read_map(path)
    assert "layer 'ground' holds more data than its 2 x 2 tiles" in _one_line(error)


def _with_tileset(tmp_path: Path, tileset: dict, name: str = "level.tmj") -> Path:
    path = tmj(tmp_path, ROWS, name=name)
    document = json.loads(path.read_text())
    document["tilesets"] = [tileset]
    path.write_text(json.dumps(document))
    return path


def _with_template(tmp_path: Path, template: str, name: str = "level.tmj") -> Path:
    path = tmj(tmp_path, ROWS, objects=[{"id": 1, "template": template, "x": 8, "y": 8}], name=name)
    return path


def test_a_fifo_named_by_a_map_is_refused_without_blocking(tmp_path):
    # Each one blocked TileMap.load forever: a tileset image, an external tileset, a template.
    os.mkfifo(tmp_path / "pipe.png")
    os.mkfifo(tmp_path / "pipe.tsj")
    os.mkfifo(tmp_path / "pipe.tj")
    image = _with_tileset(tmp_path, {**json.loads(tmj(tmp_path, ROWS).read_text())["tilesets"][0], "image": "pipe.png"}, "a.tmj")
    for path, name in ((image, "pipe.png"), (_with_tileset(tmp_path, {"firstgid": 1, "source": "pipe.tsj"}, "b.tmj"),
                                             "pipe.tsj"),
                       (_with_template(tmp_path, "pipe.tj", "c.tmj"), "pipe.tj")):
        with pytest.raises(MapError) as error:
            read_map(path)
        assert name in _one_line(error) and "FIFO" in str(error.value)


def test_an_external_tilesets_fifo_image_is_refused(tmp_path):
    tileset = json.loads(tmj(tmp_path, ROWS).read_text())["tilesets"][0]
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "sub" / "pipe.png")
    (tmp_path / "sub" / "set.tsj").write_text(json.dumps({**tileset, "image": "pipe.png", "type": "tileset"}))
    with pytest.raises(MapError) as error:
        read_map(_with_tileset(tmp_path, {"firstgid": 1, "source": "sub/set.tsj"}))
    assert "pipe.png" in _one_line(error) and "FIFO" in str(error.value)


def test_files_outside_the_maps_directory_are_refused(tmp_path):
    (tmp_path / "game").mkdir()
    game = tmp_path / "game"
    (tmp_path / "secret.tsj").write_text("{}")
    (game / "zero.png").symlink_to("/dev/zero")
    tileset = json.loads(tmj(game, ROWS).read_text())["tilesets"][0]
    for path, name in ((_with_tileset(game, {"firstgid": 1, "source": "../secret.tsj"}, "a.tmj"), "secret.tsj"),
                       (_with_tileset(game, {"firstgid": 1, "source": "/etc/hostname"}, "b.tmj"), "hostname"),
                       (_with_tileset(game, {**tileset, "image": "zero.png"}, "c.tmj"), "zero.png"),
                       (_with_template(game, "../../../../etc/passwd.tj", "d.tmj"), "passwd.tj")):
        with pytest.raises(MapError) as error:
            read_map(path)
        assert name in _one_line(error) and "beside it or below" in str(error.value)


def test_a_tmx_tileset_source_outside_is_refused(tmp_path):
    path = tmx(tmp_path, ROWS)
    text = path.read_text().replace('<image source="tiles.png"', '<image source="/etc/hostname"')
    path.write_text(text)
    with pytest.raises(MapError) as error:
        read_map(path)
    assert "hostname" in _one_line(error) and "beside it or below" in str(error.value)


def test_an_external_tileset_in_a_subdirectory_loads(tmp_path):
    tileset = json.loads(tmj(tmp_path, ROWS).read_text())["tilesets"][0]
    (tmp_path / "sets").mkdir()
    write_png(tmp_path / "sets" / "tiles.png", 32, 8, lambda x, y: (x * 7 % 256, 0, 0))
    (tmp_path / "sets" / "set.tsj").write_text(json.dumps({**tileset, "type": "tileset"}))
    assert read_map(_with_tileset(tmp_path, {"firstgid": 1, "source": "sets/set.tsj"})).tilesets[0].image_width == 32


def test_a_tileset_image_is_checked_whole_when_the_map_loads(tmp_path):
    path = tmj(tmp_path, ROWS)
    image = tmp_path / "tiles.png"
    image.write_bytes(image.read_bytes()[:60])  # a good header, cut short: drawing would fail
    with pytest.raises(MapError) as error:
        read_map(path)
    assert "tiles.png" in _one_line(error) and "cut short" in str(error.value)


def _header(width: int, height: int) -> bytes:
    body = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + body + struct.pack(">I", zlib.crc32(b"IHDR" + body))


def test_a_sheet_larger_than_a_picture_may_be_is_refused(tmp_path):
    sheet = tmp_path / "huge.png"
    sheet.write_bytes(_header(8193, 16))
    with pytest.raises(PictureError) as error:
        png_size(str(sheet))
    assert "8193x16" in _one_line(error)


def test_a_sheet_cut_into_too_many_frames_is_refused(tmp_path):
    # 8192 x 8192 into 1 x 1 frames was 67 million looks from a 33-byte file.
    sheet = tmp_path / "big.png"
    sheet.write_bytes(_header(8192, 8192))
    with pytest.raises(ValueError) as error:
        Look.frames(str(sheet), 1)
    assert f"{MAX_FRAMES:,}" in _one_line(error) and "big.png" in str(error.value)
