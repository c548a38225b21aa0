"""A game's mistakes and a lost stdout: refused by name, in one line, never a traceback nor silence."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from engine import InputEvent, Look, keys
from engine.disk.png import check_png
from engine.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


def game(tmp_path: Path, body: str, name: str = "g.py") -> Path:
    path = tmp_path / name
    path.write_text("from engine import Entity\n" + body)
    return path


RAISES = {
    "BaseException": "raise BaseException('odd')",
    "custom": "raise Odd('odd')",
    "GeneratorExit": "raise GeneratorExit('odd')",
    "KeyboardInterrupt": "raise KeyboardInterrupt('odd')",
}
PRELUDE = "class Odd(BaseException):\n    pass\n"


@pytest.mark.parametrize("kind", list(RAISES))
def test_any_exception_an_update_raises_is_one_line_naming_entity_tick_and_line(tmp_path, capsys, kind):
    path = game(tmp_path, PRELUDE + "class Boom(Entity):\n    def update(self, world):\n"
                f"        {RAISES[kind]}\ndef build(world):\n    world.spawn(Boom())\n")
    assert main(["run", str(path), "--ticks", "3", "--record", str(tmp_path / "r.jsonl")]) == 1
    err = capsys.readouterr().err
    assert one_line(err) and "Boom (id 1)" in err and "tick 1" in err and f"{path}:6" in err, err
    assert main(["replay", str(tmp_path / "r.jsonl"), "--game", str(path)]) == 0, "the crash is reproduced"


@pytest.mark.parametrize("kind", list(RAISES))
def test_any_exception_at_a_game_files_top_level_is_one_line_not_130(tmp_path, capsys, kind):
    path = game(tmp_path, PRELUDE + RAISES[kind] + "\ndef build(world):\n    pass\n")
    assert main(["run", str(path), "--ticks", "3"]) == 2
    err = capsys.readouterr().err
    assert one_line(err) and "failed to import" in err and f"{path}:4" in err, err


# Whatever a game's own code raises is the game's crash, one line and exit status 1, its own
# KeyboardInterrupt, GeneratorExit or BaseException included: only a signal is a Ctrl-C
# (engine.interrupts). The tests below hold each place that catches BaseException for it.

@pytest.mark.parametrize("kind", list(RAISES))
def test_anything_build_raises_is_a_crash_in_one_line(tmp_path, capsys, kind):
    path = game(tmp_path, PRELUDE + f"def build(world):\n    {RAISES[kind]}\n")
    assert main(["run", str(path), "--ticks", "3"]) == 1
    err = capsys.readouterr().err
    assert one_line(err) and "build(world) failed" in err and f"{path}:5" in err, err
    assert main(["check", str(path), "--ticks", "3"]) == 1
    err = capsys.readouterr().err
    assert one_line(err) and "failed" in err and f"{path}:5" in err, err


@pytest.mark.parametrize("kind", list(RAISES))
def test_anything_systems_raises_on_a_loaded_save_is_a_crash_in_one_line(tmp_path, capsys, kind):
    # systems(world) fails only on a world that has run: the one a save loads, not a fresh one.
    path = game(tmp_path, PRELUDE + "class Still(Entity):\n    pass\ndef build(world):\n    world.spawn(Still())\n"
                f"def systems(world):\n    if world.tick_count:\n        {RAISES[kind]}\n")
    save = tmp_path / "g.save"
    assert main(["run", str(path), "--ticks", "5", "--save-at", "3", str(save)]) == 0
    capsys.readouterr()
    assert main(["run", str(path), "--ticks", "5", "--load", str(save)]) == 1
    err = capsys.readouterr().err
    assert one_line(err) and "systems(world) failed" in err and f"{path}:10" in err, err


@pytest.mark.parametrize("kind", list(RAISES))
def test_anything_a_replayed_game_raises_is_a_crash_in_one_line(tmp_path, capsys, kind):
    path = game(tmp_path, PRELUDE + "class Boom(Entity):\n    def update(self, world):\n        pass\n"
                "def build(world):\n    world.spawn(Boom())\n")
    recording = tmp_path / "r.jsonl"
    assert main(["run", str(path), "--ticks", "5", "--record", str(recording)]) == 0
    path.write_text(path.read_text().replace("        pass\n", f"        {RAISES[kind]}\n"))
    capsys.readouterr()
    assert main(["replay", str(recording), "--game", str(path)]) == 1
    err = capsys.readouterr().err
    assert one_line(err) and "the replay crashed" in err, err


@pytest.mark.parametrize(("body", "status", "words"), [
    ("systems = [1, 2]\n", 2, "systems must be a function"),
    ("class S:\n    def process(self):\n        pass\ndef systems(world):\n    return [S()]\n", 2, "g.py: systems(world) returned [<"),
    ("class G(Entity):\n    def update(self, world):\n        yield\n", 2, "G.update is a generator function"),
    ("class A(Entity):\n    async def update(self, world):\n        pass\n", 2, "A.update is an async def"),
], ids=["systems-list", "systems-returns", "generator-update", "async-update"])
def test_game_mistakes_are_refused_by_name_before_the_run(tmp_path, capsys, body, status, words):
    path = game(tmp_path, body + "def build(world):\n    pass\n")
    assert main(["run", str(path), "--ticks", "3"]) == status
    err = capsys.readouterr().err
    assert one_line(err) and words in err, err


def test_a_game_file_python_would_not_decode_is_refused_and_a_coding_cookie_is_honoured(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"# caf\xe9\ndef build(world):\n    pass\n")
    assert subprocess.run([sys.executable, str(bad)], capture_output=True, check=False).returncode == 1
    assert main(["run", str(bad), "--ticks", "1"]) == 2
    err = capsys.readouterr().err
    assert one_line(err) and "bad.py:1: not valid utf-8" in err, err
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\nNAME = '\xe9'\ndef build(world):\n    pass\n")
    assert main(["run", str(latin), "--ticks", "1"]) == 0


@pytest.mark.parametrize("arguments", [
    {"size": True}, {"size": (True, True)}, {"size": float("nan")}, {"size": float("inf")}, {"size": -1},
    {"size": 1e300}, {"size": (1, 2, 3)}, {"color": (True, 0, 0)}, {"color": (256, 0, 0)}, {"color": (-1, 0, 0)},
    {"color": (1, 2)}, {"color": (1, 2, 3, 4, 5)}, {"color": "red"}, {"color": (1.5, 2, 3)}, {"color": 7},
    {"text": "x", "size": True}, {"text": "x", "size": 1e9}, {"layer": True}, {"image": "a\0.png"},
])
def test_bad_look_arguments_are_refused_by_name(arguments):
    with pytest.raises((TypeError, ValueError), match="Look"):
        Look(**arguments)


def _png(width: int, height: int) -> bytes:
    raw = b"".join(b"\x00" + b"\xff\x00\x00\xff" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


@pytest.mark.parametrize(("content", "words"), [
    (lambda: _png(16, 16)[:60], "cut short"),
    (lambda: b"GIF89a" + b"\0" * 100, "not a PNG"),
    (lambda: _png(16, 16).replace(b"IDAT", b"IDAT", 1)[:-20] + _png(1, 1)[-12:], "damaged"),
    (lambda: _png(9000, 1), "at most 8192x8192"),
    (lambda: None, "No such file"),
])
def test_a_damaged_missing_or_huge_picture_is_refused_by_name(tmp_path, content, words):
    path = tmp_path / "p.png"
    data = content()
    if data is not None:
        path.write_bytes(data)
    with pytest.raises(ValueError, match=words):
        check_png(str(path))
    path.write_bytes(_png(16, 16))
    assert check_png(str(path)) == (16, 16)


def test_a_picture_damaged_past_its_header_is_bad_input_when_drawn_not_a_crash(tmp_path, capsys):
    pytest.importorskip("pyglet")
    data = bytearray(_png(16, 16))
    data[data.index(b"IDAT") + 6] ^= 0xFF  # the header is whole: only drawing reads the image data
    (tmp_path / "p.png").write_bytes(bytes(data))
    path = game(tmp_path, "from engine import Entity, Look\n"
                          "class B(Entity):\n    look = Look(image=__file__.replace('g.py', 'p.png'))\n"
                          "def build(world):\n    world.spawn(B(x=8, y=8))\n")
    status = main(["run", str(path), "--headless", "--frames", "2"])
    err = capsys.readouterr().err
    if "EGL" in err or "unavailable" in err:
        pytest.skip("no off-screen rendering here")
    assert status == 2 and one_line(err), err
    assert "p.png is damaged (the checksum of its IDAT chunk is wrong)" in err, err


def test_make_view_returning_none_is_refused_by_name(tmp_path, capsys):
    pytest.importorskip("pyglet")
    path = game(tmp_path, "def make_view(world):\n    return None\ndef build(world):\n    pass\n")
    status = main(["run", str(path), "--headless", "--frames", "2"])
    err = capsys.readouterr().err
    if "EGL" in err or "unavailable" in err:
        pytest.skip("no off-screen rendering here")
    assert status == 2 and one_line(err) and "make_view(world) returned None" in err, err


@pytest.mark.parametrize("key", ["true", "false", "null", '["LEFT"]', '"NOPE"', "1.5", '"12"'])
def test_an_input_script_key_of_the_wrong_type_is_refused_by_name(tmp_path, capsys, key):
    script = tmp_path / "in.jsonl"
    script.write_text('{"tick": 1, "input": [["key_press", ' + key + ', 0, 0]]}\n')
    assert main(["run", "patrol", "--ticks", "3", "--input", str(script)]) == 2
    err = capsys.readouterr().err
    assert one_line(err) and "in.jsonl:1" in err, err


def test_an_input_event_from_json_resolves_a_key_name_or_refuses_it():
    assert InputEvent.from_json(["key_press", "RIGHT", 0, 0]).key == keys.RIGHT
    for bad in (["key_press", "NOPE", 0, 0], ["key_press", True, 0, 0], ["mouse_motion", 1, 0, 0],
                ["key_press", 1, "12", 0], ["key_press", 1, float("nan"), 0]):
        with pytest.raises(ValueError):
            InputEvent.from_json(bad)
    with pytest.raises(ValueError, match="key codes"):
        InputEvent("key_press", "a").to_json()


@pytest.mark.parametrize(("shell", "status", "words"), [
    ("list > /dev/full", 74, "the device is full"),
    ("list >&-", 74, "it is closed"),
    ("run patrol --ticks 5 >&-", 74, "it is closed"),
    ("run patrol --ticks 5 > /dev/full", 74, "the device is full"),
    ("check patrol --ticks 5 --orders 1 --hash-seeds 0 > /dev/full", 74, "the device is full"),
    ("replay {recording} > /dev/full", 74, "the device is full"),
    ("replay {recording} >&-", 74, "it is closed"),
    ("lab --seconds 0.1 > /dev/full", 74, "the device is full"),
    ("run patrol --ticks 5 | true", 141, ""),
])
def test_a_lost_stdout_ends_quietly_and_is_never_a_game_crash(shell, status, words, tmp_path):
    # 74 (sysexits' EX_IOERR), never 1: check's "the orders differ", replay's "a hash differs", run's "crashed".
    if "{recording}" in shell:
        subprocess.run([sys.executable, "-m", "engine.tools.cli", "run", "patrol", "--ticks", "20", "--record",
                        str(tmp_path / "r.jsonl")], check=True, capture_output=True, env=ENV)
        shell = shell.format(recording=tmp_path / "r.jsonl")
    command = f"set -o pipefail; {sys.executable} -m engine.tools.cli {shell}"
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120, check=False, env=ENV)
    assert result.returncode == status, result.stderr
    assert (result.stderr == "") if not words else (one_line(result.stderr) and words in result.stderr)
    assert "failed" not in result.stderr and "Traceback" not in result.stderr


def test_messy_refusals_are_one_short_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit:
        main(["run", "patrol", "--ticks", "x" * 5_000_000])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert one_line(err) and len(err) < 300, len(err)
    assert main(["run", "patrol", "--headless", "--frames", "1", "--screenshot", "a\nb.gif"]) == 2
    err = capsys.readouterr().err
    assert one_line(err) and "a\\nb.gif" in err, err
    with pytest.raises(SystemExit) as exit:
        main(["bench", "no-such-bench"])
    assert exit.value.code == 2
    assert one_line(capsys.readouterr().err)
    assert main(["lab", "--seconds", "86400", "--ups", "100000"]) == 2
    err = capsys.readouterr().err
    assert one_line(err) and "8,640,000,000 updates" in err, err


UNHASHABLE = """
class Thing(Entity):
    saved = ("thing",)

    def __init__(self):
        super().__init__()
        self.thing = 0

    def update(self, world):
        self.x += 1
        if world.tick_count == AT:
            self.thing = object()


def build(world):
    world.spawn(Thing())
"""


@pytest.mark.parametrize(("at", "ends"), [(70, 60), (5, 0)])
def test_a_saved_attribute_no_snapshot_can_hold_stops_the_run_in_one_line_and_keeps_a_replayable_recording(
        tmp_path, capsys, at, ends):
    path = game(tmp_path, UNHASHABLE.replace("AT", str(at)))
    record = tmp_path / "r.jsonl"
    assert main(["run", str(path), "--ticks", "100", "--record", str(record)]) == 1
    err = capsys.readouterr().err
    assert one_line(err) and "Thing (id 1).thing holds <object object" in err, err
    assert f"the recording {record} ends at tick {ends}" in err
    assert main(["replay", str(record), "--game", str(path)]) == 0
    assert f"{ends} ticks of g.py" in capsys.readouterr().out


def test_a_saved_attribute_no_snapshot_can_hold_is_the_games_mistake_without_a_recording(tmp_path, capsys):
    path = game(tmp_path, UNHASHABLE.replace("AT", "5"))
    assert main(["run", str(path), "--ticks", "10"]) == 1
    err = capsys.readouterr().err
    assert one_line(err) and "g.py stopped: Thing (id 1).thing holds" in err and "snapshot.py" not in err, err


def test_a_failing_system_is_reported_with_the_tick_it_failed(tmp_path, capsys):
    path = game(tmp_path, "import esper\nclass P(esper.Processor):\n    ticks = 0\n"
                          "    def process(self):\n        P.ticks += 1\n        if P.ticks == 3:\n"
                          "            {}['p']\ndef systems(world):\n    world.add_processor(P(), priority=-1)\n"
                          "def build(world):\n    pass\n")
    assert main(["run", str(path), "--ticks", "10"]) == 1
    err = capsys.readouterr().err
    assert one_line(err) and "g.py failed in tick 3, which was rolled back: KeyError: 'p'" in err, err


def test_an_exception_without_a_message_leaves_no_empty_slot(tmp_path, capsys):
    path = game(tmp_path, "class W(Entity):\n    def update(self, world):\n        raise KeyboardInterrupt()\n"
                          "def build(world):\n    world.spawn(W())\n")
    assert main(["run", str(path), "--ticks", "3"]) == 1
    err = capsys.readouterr().err
    assert one_line(err) and "raised KeyboardInterrupt in tick 1; the tick was rolled back" in err, err


def test_a_list_written_to_a_buffered_field_names_the_games_update_not_the_engines_file(tmp_path, capsys):
    # Found only after update() returns, the line named was engine/buffering/fields.py's, then the
    # class's update; refused at the write (0.5), it is the assignment's own line.
    from engine.tools.cli import main

    game = tmp_path / "spawner.py"
    game.write_text("from engine import Entity, buffered\n\n\nclass Spawner(Entity):\n    log = buffered(())\n\n"
                    "    def update(self, world):\n        self.log = [world.tick_count]\n\n\n"
                    "def build(world):\n    world.spawn(Spawner())\n")
    assert main(["run", str(game), "--ticks", "3"]) == 1
    err = capsys.readouterr().err
    assert "Spawner.log is buffered and was set to a list" in err
    assert f"(at {game}:8 in update)" in err and "fields.py" not in err
    assert main(["check", str(game), "--ticks", "3"]) == 1
    out = capsys.readouterr()
    assert f"{game}:8 in update" in out.out + out.err and "fields.py" not in out.out + out.err


def test_an_entity_whose_init_forgot_super_says_so_in_its_repr_and_at_its_spawn():
    # A debugger, a print or a failing assertion shows the entity before it is spawned: its repr
    # must say what is wrong, not raise AttributeError from the engine's own code.
    from engine import Entity, World, buffered

    class Forgetful(Entity):
        hp = buffered(1)

        def __init__(self) -> None:
            self.hp = 3

    forgetful = Forgetful()
    assert "super().__init__()" in repr(forgetful)
    with World() as world, pytest.raises(TypeError, match=r"Forgetful was not initialised as an Entity"):
        world.spawn(forgetful)
