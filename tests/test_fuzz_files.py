"""Fuzzing saves and replays: whatever the damage, a clean refusal, nothing run, nothing written.

Hypothesis mutates a valid save, a valid replay and an input script (truncation, type
swaps, huge and non-finite numbers, deep nesting, duplicated and reordered lines, foreign
class names, hostile game paths, keys that are no keys, and byte-level damage: flipped,
inserted and deleted bytes) and checks every outcome: exit 2 (or a clean ``SaveError`` /
``ReplayError``) where the file is damaged, no traceback and one line on stderr, nothing
imported, nothing written, and a world running beside it unchanged. The figures are
collected in ``FIGURES`` and printed at the end (``pytest -s tests/test_fuzz_files.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import World
from engine.files.replay import ReplayError, read_replay
from engine.input.scripts import read_input_script
from engine.tools.cli import main
from engine.world.save import SaveError

FIGURES = {"inputs tried": 0, "clear errors": 0, "accepted (still valid)": 0, "tracebacks": 0,
           "silent acceptances": 0, "code executed from a file": 0, "files lost": 0}
FUZZ = settings(max_examples=400, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

HOSTILE_VALUES: list[Any] = ["1", "", "x" * 300, 1.5, -1, 0, 10**13, 2**64, -(2**63), 1e308, -1e308, True, False, None,
                             [], [1, 2], {}, {"$entity": 999}, {"$float": "boom"}, {"$tuple": {}}, [[[[[]]]]]]
TEXT_NUMBERS = ["1e400", "-1e400", "NaN", "Infinity", "-Infinity", "9" * 5001, "1" * 41]
FOREIGN_CLASSES = ["this:Entity", "antigravity:Entity", "os:system", "subprocess:Popen", "builtins:object",
                   "engine.world:World", "engine.entity:Entity.__init__", "__main__:Entity", "collections:OrderedDict",
                   "games.patrol.logic:build", "tests.test_fuzz_files:Evil", "tickswap_game_evil_0:Entity", "x:y"]


WHOLE_FIELDS = {"id", "tick_count", "last_id", "tick", "end", "seed", "count", "capacity", "version"}


def kind(value: Any) -> str:
    return "bool" if isinstance(value, bool) else type(value).__name__


def compatible(path: tuple[Any, ...], old: Any, new: Any) -> bool:
    """Whether ``new`` is the same kind of value as ``old`` where it stands (a float is no whole number)."""
    if kind(old) == kind(new):
        return True
    numbers = {"int", "float"}
    whole = any(key in WHOLE_FIELDS for key in path if isinstance(key, str)) or "random" in path
    return kind(old) in numbers and kind(new) in numbers and not whole


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value the engine owns (not inside saved attributes or input events, which hold anything)."""
    if prefix and prefix[-1] in ("saved", "rest", "held", "events", "meta"):
        return []
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, prefix + (key,))
    elif isinstance(value, list) and not (prefix and prefix[-1] in ("input", "random")):
        for index, item in enumerate(value):
            found += paths(item, prefix + (index,))
    return found


def replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    target = value
    for key in path[:-1]:
        target = target[key]
    old = target[path[-1]]
    target[path[-1]] = new
    return old


class Watch:
    """Checks what one hostile input did: status, stderr, modules imported, files written, the world beside it."""

    def __init__(self, directory: Path, capsys: pytest.CaptureFixture[str], world: World) -> None:
        self.directory = directory
        self.capsys = capsys
        self.world = world

    def run(self, argv: list[str], damaged: bool, marker: Path | None = None) -> int:
        FIGURES["inputs tried"] += 1
        modules = set(sys.modules)
        files = {path: path.read_bytes() for path in self.directory.iterdir() if path.is_file()}
        before = self.world.state_hash()
        try:
            status = main(argv)
        except BaseException as error:  # a traceback: the worst outcome, counted, then failed
            FIGURES["tracebacks"] += 1
            raise AssertionError(f"{argv}: {type(error).__name__}: {error}") from error
        captured = self.capsys.readouterr()
        err = captured.out + captured.err if status == 1 and not captured.err else captured.err
        if "Traceback" in err or (status != 0 and err.count("\n") != 1):
            FIGURES["tracebacks"] += 1
            raise AssertionError(f"{argv}: not one line: {err!r}")
        new_modules = sorted(set(sys.modules) - modules)
        if new_modules or (marker is not None and marker.exists()):
            FIGURES["code executed from a file"] += 1
            raise AssertionError(f"{argv}: imported {new_modules}")
        after = {path: path.read_bytes() for path in self.directory.iterdir() if path.is_file()}
        if after != files:
            FIGURES["files lost"] += 1
            raise AssertionError(f"{argv}: files changed: {sorted(set(after) ^ set(files))}")
        assert self.world.state_hash() == before, "the running world changed"
        if status == 2:
            FIGURES["clear errors"] += 1
        elif damaged:
            FIGURES["silent acceptances"] += 1
            raise AssertionError(f"{argv}: a damaged file was accepted (exit {status})")
        else:
            FIGURES["accepted (still valid)"] += 1
        return status


@pytest.fixture(scope="module")
def originals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("originals")
    script = home / "in.jsonl"
    script.write_text('{"tick": 3, "input": [["key_press", 65363, 0, 0]]}\n'
                      '{"tick": 61, "input": [["key_release", 65363, 0, 0], ["mouse_motion", null, 5.5, 6]]}\n')
    assert main(["run", "patrol", "--ticks", "130", "--record", str(home / "r.jsonl"), "--input", str(script),
                 "--save-at", "125", str(home / "s.json")]) == 0
    return {"save": (home / "s.json").read_text(), "replay": (home / "r.jsonl").read_text()}


@pytest.fixture
def watch(tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> Any:
    directory = tmp_path_factory.mktemp("fuzz")
    with World(seed=5) as world:
        from engine.files.importer import load_game

        load_game("patrol").build(world)
        world.tick()
        main(["run", "patrol", "--ticks", "2"])  # warm every lazy import up before watching
        capsys.readouterr()
        yield Watch(directory, capsys, world)


def save_mutation() -> st.SearchStrategy[tuple[str, Any]]:
    return st.one_of(
        st.tuples(st.just("truncate"), st.floats(0, 0.999)),
        st.tuples(st.just("type swap"), st.tuples(st.integers(0, 10**6), st.sampled_from(HOSTILE_VALUES))),
        st.tuples(st.just("number"), st.tuples(st.integers(0, 10**6), st.sampled_from(TEXT_NUMBERS))),
        st.tuples(st.just("nest"), st.integers(33, 60_000)),
        st.tuples(st.just("class"), st.tuples(st.integers(0, 10**6), st.sampled_from(FOREIGN_CLASSES))),
        st.tuples(st.just("range"), st.tuples(st.integers(0, 10**6), st.sampled_from([-1, 0, 10**13, 2**63, -(2**70)]))),
    )


def mutate_save(text: str, mutation: tuple[str, Any]) -> tuple[str, bool]:
    """The damaged text, and whether it must be refused."""
    how, detail = mutation
    if how == "truncate":
        return text[: int(len(text) * detail)], True
    data = json.loads(text)
    if how == "nest":
        data["meta"]["game"] = json.loads("[" * min(detail, 500) + "]" * min(detail, 500))
        raw = json.dumps(data)
        return raw.replace("[" * min(detail, 500), "[" * detail).replace("]" * min(detail, 500), "]" * detail), True
    if how == "class":
        index, name = detail
        data["entities"][index % len(data["entities"])]["class"] = name
        return json.dumps(data), True
    targets = paths(data)
    index, value = detail
    path = targets[index % len(targets)]
    if how == "number":
        old = replace(data, path, "@@NUMBER@@")
        return json.dumps(data).replace('"@@NUMBER@@"', value), not isinstance(old, str) or True
    old = replace(data, path, value)
    if how == "range":
        return json.dumps(data), False
    return json.dumps(data), not compatible(path, old, value)


@FUZZ
@given(mutation=save_mutation())
def test_fuzzed_saves_are_refused_cleanly(watch, originals, mutation):
    text, damaged = mutate_save(originals["save"], mutation)
    path = watch.directory / "fuzzed.json"
    path.write_text(text)
    status = watch.run(["run", "patrol", "--ticks", "2", "--load", str(path)], damaged)
    assert status in (0, 1, 2)
    if status == 2:
        modules = set(sys.modules)
        with pytest.raises(SaveError):
            World.load(path).close()
        assert set(sys.modules) == modules


def replay_mutation() -> st.SearchStrategy[tuple[str, Any]]:
    return st.one_of(
        st.tuples(st.just("truncate"), st.floats(0, 0.999)),
        st.tuples(st.just("type swap"), st.tuples(st.integers(0, 10**6), st.sampled_from(HOSTILE_VALUES))),
        st.tuples(st.just("number"), st.tuples(st.integers(0, 10**6), st.sampled_from(TEXT_NUMBERS))),
        st.tuples(st.just("nest"), st.tuples(st.integers(0, 10**6), st.integers(33, 60_000))),
        st.tuples(st.just("duplicate"), st.integers(0, 10**6)),
        st.tuples(st.just("reorder"), st.tuples(st.integers(0, 10**6), st.integers(0, 10**6))),
        st.tuples(st.just("game"), st.tuples(st.sampled_from(["{evil}", "evil.py", "../evil.py", "./evil.py", "evil",
                                                              "/etc/passwd", "C:\\evil.py", ".", "..", "", "patrol.py",
                                                              "pkg", "x" * 300]),
                                             st.sampled_from([None, "0" * 64, "{digest}", "zz", 5]))),
    )


def mutate_replay(text: str, mutation: tuple[str, Any], evil: Path) -> tuple[str, bool]:
    how, detail = mutation
    lines = text.splitlines()
    if how == "truncate":
        cut = text[: int(len(text) * detail)]
        return cut, cut.strip() != text.strip()
    if how == "duplicate":
        index = detail % len(lines)
        return "\n".join(lines[: index + 1] + lines[index:]) + "\n", True
    if how == "reorder":
        first, second = sorted((detail[0] % len(lines), detail[1] % len(lines)))
        if lines[first] == lines[second]:
            return text, False
        lines[first], lines[second] = lines[second], lines[first]
        return "\n".join(lines) + "\n", True
    if how == "game":
        import hashlib

        name, digest = detail
        header = json.loads(lines[0])
        header["game"] = name.format(evil=evil)
        header["game_digest"] = (digest.format(digest=hashlib.sha256(evil.read_bytes()).hexdigest())
                                 if isinstance(digest, str) else digest)
        return "\n".join([json.dumps(header)] + lines[1:]) + "\n", True
    records = [json.loads(line) for line in lines]
    targets = [(number,) + path for number, record in enumerate(records) for path in paths(record)]
    index, value = detail
    path = targets[index % len(targets)]
    if how == "nest":
        replace(records, path, "@@NEST@@")
        raw = [json.dumps(record) for record in records]
        raw[path[0]] = raw[path[0]].replace('"@@NEST@@"', "[" * value + "]" * value)
        return "\n".join(raw) + "\n", True
    if how == "number":
        replace(records, path, "@@NUMBER@@")
        raw = [json.dumps(record) for record in records]
        raw[path[0]] = raw[path[0]].replace('"@@NUMBER@@"', value)
        return "\n".join(raw) + "\n", True
    old = replace(records, path, value)
    return "\n".join(json.dumps(record) for record in records) + "\n", not compatible(path, old, value)


@FUZZ
@given(mutation=replay_mutation())
def test_fuzzed_replays_are_refused_cleanly_and_never_run_a_game_they_name(watch, originals, mutation):
    marker = watch.directory / "marker"
    evil = watch.directory / "evil.py"
    source = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\ndef build(world):\n    pass\n"
    if not evil.exists():
        evil.write_text(source)
        package = watch.directory / "pkg"
        package.mkdir()
        (package / "__init__.py").write_text(source)
    # Even the game file beside the replay with the recorded digest is refused: only --game runs a file.
    text, damaged = mutate_replay(originals["replay"], mutation, evil)
    path = watch.directory / "fuzzed.jsonl"
    path.write_text(text)
    status = watch.run(["replay", str(path)], damaged, marker=marker)
    assert status in (0, 1, 2)
    if status == 2 and mutation[0] != "game":
        try:
            replay = read_replay(path)
        except ReplayError:
            pass
        else:  # a well-formed file naming a game that is not installed: refused by the command, not the reader
            from engine.files.importer import sample_games

            assert replay.game not in sample_games() or replay.game_digest is not None, replay


def byte_mutation() -> st.SearchStrategy[tuple[str, int, bytes]]:
    """A byte-level change: flip one byte, insert bytes, delete a span (as a disk or a transfer damages a file)."""
    return st.tuples(st.sampled_from(["flip", "insert", "delete"]), st.integers(0, 10**6),
                     st.binary(min_size=1, max_size=4))


def mutate_bytes(data: bytes, mutation: tuple[str, int, bytes]) -> bytes:
    how, where, payload = mutation
    at = where % max(1, len(data))
    if how == "flip":
        return data[:at] + bytes([data[at] ^ (payload[0] or 1)]) + data[at + 1:]
    if how == "insert":
        return data[:at] + payload + data[at:]
    return data[:at] + data[at + len(payload) * 7:]


BYTES = settings(max_examples=250, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@BYTES
@given(which=st.sampled_from(["save", "replay"]), mutation=byte_mutation())
def test_byte_damaged_saves_and_replays_are_refused_or_still_valid(watch, originals, which, mutation):
    original = originals[which].encode()
    data = mutate_bytes(original, mutation)
    path = watch.directory / ("fuzzed.json" if which == "save" else "fuzzed.jsonl")
    path.write_bytes(data)
    argv = ["run", "patrol", "--ticks", "2", "--load", str(path)] if which == "save" else ["replay", str(path)]
    # A changed byte may leave a valid file (a digit in a coordinate, a space): then it is accepted
    # and must give a clean outcome; a damaged one must be refused. Which it is, the reader says;
    # the watch checks the outcome is one of them, one line, nothing run, nothing lost.
    status = watch.run(argv, damaged=False)
    assert status in (0, 1, 2)
    if status == 2:
        with pytest.raises(SaveError if which == "save" else ReplayError):
            if which == "save":
                World.load(path).close()
            else:
                read_replay(path)


SCRIPT = ('{"tick": 3, "input": [["key_press", "LEFT", 0, 0]]}\n'
          '{"tick": 5, "input": [["mouse_motion", null, 5.5, 6], ["key_release", 65361, 0, 0]]}\n')


def script_mutation() -> st.SearchStrategy[tuple[str, Any]]:
    return st.one_of(
        st.tuples(st.just("bytes"), byte_mutation()),
        st.tuples(st.just("key"), st.sampled_from([True, False, None, ["LEFT"], "NOPE", 1.5, "x" * 100, {}, -1,
                                                   2**70])),
        st.tuples(st.just("number"), st.tuples(st.integers(0, 3), st.sampled_from(TEXT_NUMBERS + ['"12"', "true",
                                                                                               "null", "[]"]))),
        st.tuples(st.just("tick"), st.sampled_from([0, -1, 1.5, "3", True, None, 2**31, 10**40])),
        st.tuples(st.just("type"), st.sampled_from(["", "key_down", 5, None, "mouse_press"])),
    )


@BYTES
@given(mutation=script_mutation())
def test_fuzzed_input_scripts_are_refused_cleanly_or_still_valid(watch, mutation):
    how, detail = mutation
    lines = [json.loads(line) for line in SCRIPT.splitlines()]
    damaged = True
    if how == "bytes":
        text = mutate_bytes(SCRIPT.encode(), detail)
        damaged = False  # a changed byte may leave a valid script: the reader decides, the watch checks
    else:
        event = lines[0]["input"][0]
        if how == "key":
            event[1] = detail
            damaged = detail != -1  # a negative key code is still a key code
        elif how == "number":
            index, value = detail
            event[2 + index % 2] = "@@N@@"
            if index >= 2:
                lines[1]["input"][0][2] = "@@N@@"
                event[2 + index % 2] = 0
        elif how == "tick":
            lines[0]["tick"] = detail
        else:
            event[0] = detail
            damaged = detail != "mouse_press"
        raw = "\n".join(json.dumps(line) for line in lines) + "\n"
        text = raw.replace('"@@N@@"', detail[1] if how == "number" else "").encode()
    path = watch.directory / "in.jsonl"
    path.write_bytes(text)
    status = watch.run(["run", "patrol", "--ticks", "8", "--input", str(path)], damaged)
    assert status in (0, 2)
    if status == 2:
        with pytest.raises(ReplayError):
            read_input_script(path)


def test_zz_report_the_figures(capsys):
    with capsys.disabled():
        print("\nfuzz figures: " + ", ".join(f"{name} {count}" for name, count in FIGURES.items()))
    assert FIGURES["tracebacks"] == FIGURES["silent acceptances"] == 0
    assert FIGURES["code executed from a file"] == FIGURES["files lost"] == 0
