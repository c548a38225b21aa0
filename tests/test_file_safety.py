"""Files are never lost, never followed and never block: outputs replace only regular files, inputs are read bounded.

Every test here makes its own special files (a FIFO, a link to ``/dev/null``) in a
temporary directory; no test writes to a real device node.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Entity, World
from engine.disk import atomic
from engine.disk.atomic import AtomicFile, OutputError, remove_stale_temporaries
from engine.disk.reading import NotAFile, read_bounded
from engine.files.replay import ReplayError, read_replay
from engine.input.scripts import read_input_script
from engine.tools.cli import main
from engine.world.save import SaveError, load_world


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.fixture
def specials(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    devnull = tmp_path / "null-link"
    devnull.symlink_to(os.devnull)
    directory = tmp_path / "folder"
    directory.mkdir()
    return {"fifo": fifo, "device": devnull, "directory": directory}


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
@pytest.mark.parametrize("option", [["--record"], ["--save-at", "2"]])
def test_an_output_onto_a_fifo_a_device_or_a_directory_is_refused_by_name_before_the_run(
        specials, capsys, kind, option):
    target = specials[kind]
    assert main(["run", "patrol", "--ticks", "3", *option, str(target)]) == 2
    err = one_line(capsys)
    assert target.name in err and "regular file" in err
    assert "patrol:" not in capsys.readouterr().out, "the game did not run"
    assert os.path.realpath(specials["device"]) == os.devnull and Path(os.devnull).is_char_device()
    assert specials["fifo"].is_fifo() and specials["directory"].is_dir()


def test_a_screenshot_onto_a_link_to_a_device_is_refused_before_the_run(specials, capsys, tmp_path):
    link = tmp_path / "shot.png"
    link.symlink_to(os.devnull)
    assert main(["run", "patrol", "--headless", "--frames", "2", "--screenshot", str(link)]) == 2
    assert "character device" in one_line(capsys)
    assert link.is_symlink()


def test_an_atomic_write_checks_the_target_again_at_the_rename(tmp_path):
    target = tmp_path / "out.json"
    with AtomicFile(target) as output:
        output.open("w").write("data")
        os.mkfifo(target)  # appeared during the run
        with pytest.raises(OutputError, match="FIFO"):
            output.commit()
    assert target.is_fifo()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out.json"], "no temporary file left"


def test_a_link_planted_under_the_temporary_name_receives_nothing(tmp_path, monkeypatch):
    target = tmp_path / "save.json"
    victim = tmp_path / "victim"
    victim.write_text("precious")
    tokens = iter(["0" * 16, "1" * 16])
    monkeypatch.setattr(atomic.secrets, "token_hex", lambda size: next(tokens))
    planted = tmp_path / f".save.json.tickswap-{os.getpid()}-{'0' * 16}.tmp"
    planted.symlink_to(victim)
    predictable = tmp_path / f".save.json.{os.getpid()}.tmp"  # the name an earlier tickswap used
    predictable.symlink_to(victim)
    with World() as world:
        world.spawn(Entity(x=3))
        world.save(target)
    assert victim.read_text() == "precious"
    assert planted.is_symlink() and predictable.is_symlink(), "the planted names were left alone, not used"
    assert not target.is_symlink() and target.is_file() and "tickswap-save" in target.read_text()


def test_the_temporary_file_is_created_exclusively_and_never_followed(tmp_path, monkeypatch):
    opened: list[int] = []
    real_open = os.open

    def spy(path, flags, *args):
        if ".tickswap-" in os.fspath(path):
            opened.append(flags)
        return real_open(path, flags, *args)

    monkeypatch.setattr(atomic.os, "open", spy)
    with AtomicFile(tmp_path / "x.txt") as output:
        output.open("w").write("x")
        output.commit()
    assert opened and all(flags & os.O_EXCL and flags & os.O_CREAT and flags & os.O_NOFOLLOW for flags in opened)


def test_a_temporary_file_left_by_a_killed_run_is_removed_by_the_next_write_of_that_output(tmp_path):
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True)
    dead = int(finished.stdout)
    target = tmp_path / "r.jsonl"
    stale = tmp_path / f".r.jsonl.tickswap-{dead}-{'a' * 16}.tmp"
    stale.write_text("half a recording")
    alive = tmp_path / f".r.jsonl.tickswap-{os.getppid()}-{'b' * 16}.tmp"
    alive.write_text("another run, writing now")
    other = tmp_path / f".other.jsonl.tickswap-{dead}-{'c' * 16}.tmp"
    other.write_text("someone else's output")
    assert main(["run", "patrol", "--ticks", "3", "--record", str(target)]) == 0
    assert not stale.exists()
    assert alive.exists() and other.exists()
    assert remove_stale_temporaries(target) == []


def test_a_full_disk_at_the_sync_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path, monkeypatch, capsys):
    target = tmp_path / "s.json"
    assert main(["run", "patrol", "--ticks", "3", "--save-at", "2", str(target)]) == 0
    before = target.read_bytes()

    def full(descriptor):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full)
    capsys.readouterr()
    assert main(["run", "patrol", "--ticks", "3", "--save-at", "3", str(target)]) == 2
    assert "No space left on device" in one_line(capsys)
    assert target.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["s.json"]


def test_a_full_disk_while_writing_a_recording_keeps_the_old_one(tmp_path, monkeypatch, capsys):
    target = tmp_path / "r.jsonl"
    assert main(["run", "patrol", "--ticks", "3", "--record", str(target)]) == 0
    before = target.read_bytes()
    real_fdopen = os.fdopen

    class Full:
        """The temporary file on a disk that fills up after the header line."""

        def __init__(self, file):
            self.file, self.written = file, 0

        def write(self, text):
            self.written += 1
            if self.written > 1:
                raise OSError(28, "No space left on device")
            return self.file.write(text)

        def __getattr__(self, name):
            return getattr(self.file, name)

    monkeypatch.setattr(atomic.os, "fdopen", lambda *args, **kwargs: Full(real_fdopen(*args, **kwargs)))
    capsys.readouterr()
    status = main(["run", "patrol", "--ticks", "3", "--record", str(target)])
    monkeypatch.undo()
    assert status == 2
    assert "No space left on device" in one_line(capsys)
    assert target.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["r.jsonl"]


def test_an_output_into_a_directory_that_cannot_be_written_is_refused_before_the_run(tmp_path, capsys, monkeypatch):
    real_access = os.access
    locked = tmp_path / "locked"
    locked.mkdir()
    # Root may write anywhere, so the refusal is tested with the permission check answering as for a user.
    monkeypatch.setattr(atomic.os, "access", lambda path, mode: False if Path(path) == locked else real_access(path, mode))
    assert main(["run", "patrol", "--ticks", "3", "--record", str(locked / "r.jsonl")]) == 2
    assert "not writable" in one_line(capsys)
    assert list(locked.iterdir()) == []


# -- reading: special files refused by name, reads bounded by the bytes read --

@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_a_special_file_as_a_save_a_replay_or_an_input_script_is_refused_without_blocking(specials, kind):
    path = specials[kind]
    with pytest.raises(SaveError, match=f"{path.name} is a"):
        load_world(path, world_class=World)
    with pytest.raises(ReplayError, match=f"{path.name} is a"):
        read_replay(path)
    with pytest.raises(ReplayError, match=f"{path.name} is a"):
        read_input_script(path)


@pytest.mark.parametrize("option", ["--load", "--input"])
def test_a_fifo_given_to_the_command_is_one_line_and_no_hang(specials, capsys, option):
    assert main(["run", "patrol", "--ticks", "3", option, str(specials["fifo"])]) == 2
    assert "FIFO" in one_line(capsys)
    assert main(["replay", str(specials["fifo"])]) == 2
    assert "FIFO" in one_line(capsys)


def test_an_endless_device_is_refused_by_what_it_is_and_reads_stop_at_the_limit(tmp_path):
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    with pytest.raises(SaveError, match="character device"):
        load_world(zero, world_class=World)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2000)
    with pytest.raises(NotAFile, match="larger than 1,000 bytes"):
        read_bounded(big, 1000)
    assert read_bounded(big, 2000) == b" " * 2000


# -- code from a replay: never run because a replay names it; a package's digest covers what it can import --

MARKER = "import pathlib\npathlib.Path({marker!r}).write_text('ran')\ndef build(world):\n    pass\n"


@pytest.mark.parametrize("kind", ["file", "package"])
def test_a_game_beside_its_replay_with_the_recorded_digest_is_still_not_run(tmp_path, capsys, kind):
    marker = tmp_path / "marker"
    if kind == "file":
        game = tmp_path / "evil.py"
        game.write_text(MARKER.format(marker=str(marker)))
    else:
        game = tmp_path / "evil"
        game.mkdir()
        (game / "__init__.py").write_text(MARKER.format(marker=str(marker)))
    from engine.files.importer import file_digest

    header = {"format": "tickswap-replay", "version": 2, "game": game.name, "game_digest": file_digest(game),
              "seed": 0, "ms_per_update": 15.625, "engine": __import__("engine").__version__}
    replay = tmp_path / "r.jsonl"
    replay.write_text(json.dumps(header) + "\n" + json.dumps({"end": 0, "hash": "0" * 64}) + "\n")
    assert main(["replay", str(replay)]) == 2
    err = one_line(capsys)
    assert f"pass --game {game}" in err and "never runs" in err
    assert not marker.exists(), "the game the replay names was run"


def _package(directory: Path, value: int) -> Path:
    package = directory / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from .things import VALUE\n\ndef build(world):\n    pass\n")
    (package / "things.py").write_text(f"VALUE = {value}\n")
    return package


def test_a_swapped_bytecode_cache_in_a_game_package_never_runs(tmp_path):
    import importlib.util
    from importlib._bootstrap_external import _code_to_timestamp_pyc  # type: ignore[attr-defined]  # CPython's, untyped

    from engine.files.importer import load_game

    package = _package(tmp_path, 1)
    source = package / "things.py"
    cache = Path(importlib.util.cache_from_source(str(source)))
    cache.parent.mkdir()
    swapped = compile("VALUE = 666\n", str(source), "exec")
    info = source.stat()
    # A cache that claims to be of this very source (its time and size): the standard loader would run it.
    cache.write_bytes(bytes(_code_to_timestamp_pyc(swapped, int(info.st_mtime), info.st_size)))
    game = load_game(str(package))
    assert game.module.VALUE == 1


def test_a_game_packages_digest_covers_every_file_but_its_caches(tmp_path):
    from engine.files.importer import file_digest

    package = _package(tmp_path, 1)
    first = file_digest(package)
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "things.cpython-311.pyc").write_bytes(b"cache")
    assert file_digest(package) == first, "a cache the interpreter writes is not a change"
    digests = {first}
    for name, content in [("helper.pyc", b"sourceless bytecode"), ("fast.so", b"\x7fELF"), ("level.txt", b"1"),
                          ("level.txt", b"2")]:
        (package / name).write_bytes(content)
        digests.add(file_digest(package))
    assert len(digests) == 5, "each added or changed file changes the digest"
    os.mkfifo(package / "pipe")
    with pytest.raises(__import__("engine").files.game.GameError, match="FIFO"):
        file_digest(package)


# -- silent acceptances: strict numbers, the end hash always checked --

def _patrol_replay(tmp_path: Path, ticks: int) -> Path:
    """A recording of patrol that ends at tick ``ticks`` (0: no tick at all, which the command line never runs)."""
    from engine.files.importer import load_game
    from engine.files.replay import Recorder

    path = tmp_path / "r.jsonl"
    with World(seed=0) as world:
        load_game("patrol").setup(world)
        recorder = Recorder(path, game="patrol", seed=0, ms_per_update=15.625)
        for _ in range(ticks):
            world.tick()
            recorder.after_tick(world)
        recorder.close(world)
    return path


@pytest.mark.parametrize("shown", [[], ["--headless"]])
def test_a_replay_ending_at_tick_0_with_a_wrong_hash_is_a_mismatch_not_all_match(tmp_path, capsys, shown):
    path = _patrol_replay(tmp_path, 0)
    lines = path.read_text().splitlines()
    assert main(["replay", str(path), *shown]) == 0
    lines[-1] = json.dumps({"end": 0, "hash": "0" * 64})
    path.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["replay", str(path), *shown]) == 1
    out = capsys.readouterr().out
    assert "differs at tick 0" in out and "all match" not in out


def test_a_crashed_recordings_end_hash_is_checked_before_the_crash(tmp_path, capsys, write_game):
    game = write_game("bomb.py", "from engine import Entity\n\nclass Bomb(Entity):\n    def update(self, world):\n"
                                 "        self.x += 1\n        if world.tick_count == 9:\n            raise RuntimeError('boom')\n\n"
                                 "def build(world):\n    world.spawn(Bomb())\n")
    path = tmp_path / "r.jsonl"
    assert main(["run", str(game), "--ticks", "20", "--record", str(path)]) == 1
    lines = path.read_text().splitlines()
    end = json.loads(lines[-1])
    assert end["crashed"] == 10
    lines[-1] = json.dumps({**end, "hash": "1" * 64})
    path.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["replay", str(path), "--game", str(game)]) == 1
    assert "differs at tick 9" in capsys.readouterr().out


@pytest.mark.parametrize("field, value", [("version", 2.0), ("version", True), ("crashed", True), ("crashed", 1.0)])
def test_a_number_in_a_replay_is_a_whole_number_of_its_own_type(tmp_path, field, value):
    path = _patrol_replay(tmp_path, 0)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    if field == "version":
        lines[0]["version"] = value
    else:
        lines[-1]["crashed"] = value
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    with pytest.raises(ReplayError) as refused:
        read_replay(path)
    assert "tick True" not in str(refused.value)


@pytest.mark.parametrize("value", ["12", "nan", "1e999", True, None])
def test_a_saves_queued_input_events_are_checked_as_numbers(tmp_path, value):
    with World() as world:
        world.spawn(Entity())
        world.input_queue.move_mouse(1.0, 2.0) if hasattr(world.input_queue, "move_mouse") else None
        from engine.input import InputEvent

        world.input_queue.push(InputEvent("mouse_motion", None, 1.0, 2.0))
        world.save(tmp_path / "s.json")
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["world"]["input"]["events"][0][2] == 1.0
    data["world"]["input"]["events"][0][2] = value
    (tmp_path / "s.json").write_text(json.dumps(data))
    with pytest.raises(SaveError, match=r"events\[0\]"):
        load_world(tmp_path / "s.json", world_class=World)


def test_the_save_version_is_a_whole_number(tmp_path):
    with World() as world:
        world.save(tmp_path / "s.json")
    data = json.loads((tmp_path / "s.json").read_text())
    data["version"] = 2.0
    (tmp_path / "s.json").write_text(json.dumps(data))
    with pytest.raises(SaveError, match="version 2.0"):
        load_world(tmp_path / "s.json", world_class=World)


def test_a_file_name_with_a_newline_or_a_huge_value_stays_one_short_line(tmp_path, capsys):
    path = tmp_path / "bad\nname.json"
    path.write_text(json.dumps({"format": "tickswap-save", "version": "v" * 5_000_000}))
    assert main(["run", "patrol", "--ticks", "1", "--load", str(path)]) == 2
    err = one_line(capsys)
    assert "bad\\nname.json" in err and len(err) < 400


@pytest.mark.parametrize("key", ["true", "false", "null", '["LEFT"]'])
def test_an_input_script_key_that_is_no_key_is_refused_by_name(tmp_path, key):
    script = tmp_path / "in.jsonl"
    script.write_text(f'{{"tick": 1, "input": [["key_press", {key}, 0, 0]]}}\n')
    with pytest.raises(ReplayError, match=r"in\.jsonl:1: input\[0\]: .* is not a key"):
        read_input_script(script)


@pytest.mark.parametrize("event", ['["key_press", "NOPE", 0, 0]', '["key_release", true, 0, 0]',
                                   '["key_press", ["LEFT"], 0, 0]', '["mouse_press", null, 0, 0]'])
def test_a_bad_key_is_worded_alike_in_a_replay_and_an_input_script(tmp_path, event):
    header = {"format": "tickswap-replay", "version": 2, "game": "g.py", "game_digest": "0" * 64, "seed": 0,
              "ms_per_update": 15.625, "engine": "0.1.0"}
    replay, script = tmp_path / "same.jsonl", tmp_path / "scripts" / "same.jsonl"
    replay.write_text(json.dumps(header) + f'\n{{"tick": 1, "input": [{event}]}}\n{{"end": 1, "hash": "{"0" * 64}"}}\n')
    script.parent.mkdir()
    script.write_text(f'{{"tick": 1, "input": [{event}]}}\n')
    with pytest.raises(ReplayError) as from_replay:
        read_replay(replay)
    with pytest.raises(ReplayError) as from_script:
        read_input_script(script)
    said = str(from_script.value)
    assert ":1: input[0]: " in said  # the file and line, then the event
    assert str(from_replay.value).partition(":2: input[0]")[2] == said.partition(":1: input[0]")[2]
    assert "is not a key" in said or "is a mouse button" in said


def test_a_sound_that_is_a_fifo_is_said_as_one_and_never_opened(tmp_path, capsys):
    from engine.world.sounds import SoundRequest, missing_sound

    fifo = tmp_path / "boom.wav"
    os.mkfifo(fifo)
    assert missing_sound(SoundRequest(str(fifo), 1.0, 1), set())
    assert "is a FIFO (a named pipe), not a file" in one_line(capsys)


def test_a_picture_that_is_a_fifo_is_refused_without_blocking(tmp_path):
    pytest.importorskip("pyglet")
    from engine import Look
    from engine.render import sprites

    fifo = tmp_path / "face.png"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="FIFO"):
        sprites.picture_texture(Look("square", 10, (255, 255, 255), image=str(fifo)))


@pytest.mark.parametrize(("line", "words"), [
    ('{"tick": 5, "input": [["key_press", -1, 0, 0]]}', "key must be from 0"),
    ('{"tick": 5, "tick": 7, "input": [["key_press", "LEFT", 0, 0]]}', "the key 'tick' appears twice"),
    ('{"tick": 5, "input": [["mouse_press", "LEFT", 10, 10]]}', "mouse_press event's key is a mouse button"),
], ids=["negative key code", "a key twice", "a key name as a mouse button"])
def test_input_script_lines_a_reader_would_misread_are_refused_by_name(tmp_path, line, words):
    script = tmp_path / "s.jsonl"
    script.write_text(line + "\n")
    with pytest.raises(ReplayError, match=words):
        read_input_script(script)


def test_a_save_or_replay_saying_a_key_twice_is_refused(tmp_path):
    from engine.schema import FieldError, parse_json

    with pytest.raises(FieldError, match="'end' appears twice"):
        parse_json('{"end": 1, "hash": "a", "end": 2}')


@pytest.mark.parametrize(("text", "words", "not_words"), [
    ('{"tick": 1, "input": [["key_press", "LEFT", 0, 0]]}\n# a note\n', ":2: a comment", "cut short"),
    ('{"tick": 1, "input": [["key_press", "LEFT", 0, 0]', ":1: not valid JSON", "comment"),
    ('{"tick": 1 x}\n', ":1: not valid JSON (Expecting ',' delimiter at column 12)", "cut short"),
    ('{"tick": 1, "input": [["key_press", "LE', ":1: not valid JSON (Unterminated string starting at column 37); "
     "the file may be cut short", "comment"),
], ids=["comment", "cut", "edited", "cut-in-a-string"])
def test_a_line_that_is_no_json_says_what_it_looks_like(tmp_path, text, words, not_words):
    script = tmp_path / "s.jsonl"
    script.write_text(text)
    with pytest.raises(ReplayError, match=re.escape(words)) as refused:
        read_input_script(script)
    assert not_words not in str(refused.value)


def test_a_blank_line_in_a_replay_is_called_a_blank_line(tmp_path, capsys):
    record = tmp_path / "r.jsonl"
    assert main(["run", "patrol", "--ticks", "3", "--record", str(record)]) == 0
    lines = record.read_text().splitlines()
    record.write_text("\n".join([lines[0], "", *lines[1:]]) + "\n")
    capsys.readouterr()
    assert main(["replay", str(record)]) == 2
    assert ":2: a blank line, where a JSON object was expected" in capsys.readouterr().err


@pytest.mark.parametrize("held", [[True], [None], ["nonsense"], [-5]], ids=["true", "null", "a word", "negative"])
def test_a_saves_held_keys_are_key_codes_only(tmp_path, capsys, held):
    save = tmp_path / "s.json"
    assert main(["run", "patrol", "--ticks", "10", "--save-at", "5", str(save)]) == 0
    data = json.loads(save.read_text())
    data["world"]["input"]["held"] = {"$set": held}
    save.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["run", "patrol", "--ticks", "3", "--load", str(save)]) == 2
    assert "world.input.held holds" in capsys.readouterr().err
