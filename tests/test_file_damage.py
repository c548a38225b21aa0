"""Every class of damage to a save or a replay: refused with exit 2 and one line naming file and problem."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import esper
import pytest

from engine import World
from engine.files.replay import ReplayError, read_replay
from engine.tools.cli import main
from engine.world.save import SaveError

Data = dict[str, Any]


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and captured.err.count("\n") == 1, captured.err
    return captured.err


@pytest.fixture(scope="module")
def swarm_save(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("saves") / "swarm.json"
    assert main(["run", "swarm", "--ticks", "12", "--save-at", "10", str(path)]) == 0
    return path.read_text()


@pytest.fixture(scope="module")
def patrol_save(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("saves") / "patrol.json"
    assert main(["run", "patrol", "--ticks", "12", "--save-at", "10", str(path)]) == 0
    return path.read_text()


def entity(data: Data, index: int = 0) -> Data:
    record: Data = data["entities"][index]
    return record


def set_in(path: tuple[Any, ...], value: Any) -> Callable[[Data], None]:
    def change(data: Data) -> None:
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


SAVE_DAMAGE: list[tuple[str, Callable[[Data], Any], str]] = [
    ("last_id below the highest id", set_in(("world", "last_id"), 1), "last_id is 1, below entity id"),
    ("no meta", lambda data: data.pop("meta"), "no 'meta'"),
    ("meta of no game, a class of another", lambda data: (set_in(("meta",), {})(data),
                                                          entity(data).update({"class": "games.bouncy.logic:Ball"})),
     "names no game and does not fit patrol"),
    ("tick_count a string", set_in(("world", "tick_count"), "10"), "world.tick_count must be a whole number"),
    ("tick_count a float", set_in(("world", "tick_count"), 10.5), "world.tick_count must be a whole number"),
    ("tick_count negative", set_in(("world", "tick_count"), -1), "world.tick_count must be from 0"),
    ("last_id a string", set_in(("world", "last_id"), "99"), "world.last_id must be a whole number"),
    ("id a string", lambda data: entity(data).update(id="1"), ".id must be a whole number"),
    ("id a bool", lambda data: entity(data).update(id=True), ".id must be a whole number"),
    ("ids twice", lambda data: entity(data, 1).update(id=entity(data)["id"]), "is used twice"),
    ("x a string", lambda data: entity(data)["buffered"].update(x="abc"), ".x must be a number"),
    ("previous tick a string", lambda data: entity(data)["previous"].update(tick="3"), "previous.tick must be"),
    ("signals a string", lambda data: entity(data).update(signals="slapped"), "signals must be an object of signal name -> value"),
    ("random state short", set_in(("world", "random"), [3, [1, 2], None]), "world.random"),
    ("random version a float", lambda data: data["world"]["random"].__setitem__(0, 3.0),
     "world.random: the generator's version must be the whole number 3, got 3.0"),
    ("mouse not a pair", set_in(("world", "input", "mouse"), [1]), "mouse"),
    ("seed a float", set_in(("world", "seed"), 1.5), "world.seed must be a whole number"),
    ("seed negative", set_in(("world", "seed"), -1), "world.seed must be from 0 to 18446744073709551615, got -1"),
    ("seed a string", set_in(("world", "seed"), "abc"), "world.seed must be a whole number, got 'abc'"),
    ("seed past 2**64-1", set_in(("world", "seed"), 2**64), "world.seed must be from 0 to"),
    ("a saved value that is an object", lambda data: entity(data)["buffered"].update(x={"a": 1}), "not a saved value"),
    ("a reference to no entity", lambda data: entity(data)["buffered"].update(x={"$entity": 999}), "entity 999"),
    ("unknown field", lambda data: entity(data).update(extra=1), "unknown field 'extra'"),
    ("unknown buffered field", lambda data: entity(data)["buffered"].update(__class__=1), "unknown field"),
    ("a missing buffered field", lambda data: entity(data)["buffered"].pop("x"), "has no 'x'"),
    ("engine version", set_in(("engine",), "7.3.0"), "saved by tickswap 7.3.0"),
    ("save format version", set_in(("version",), 1), "save format version 1"),
    ("foreign class", lambda data: entity(data).update({"class": "collections:OrderedDict"}), "collections"),
    ("class with no colon", lambda data: entity(data).update({"class": "os"}), "class is not valid"),
    ("another game", lambda data: (set_in(("meta", "game"), "bouncy")(data),
                                   entity(data).update({"class": "games.bouncy.logic:Ball"})),
     "a save of another game, bouncy, not of patrol"),
]


@pytest.mark.parametrize(("what", "damage", "words"), SAVE_DAMAGE, ids=[case[0] for case in SAVE_DAMAGE])
def test_a_damaged_save_is_refused_in_one_line(tmp_path, capsys, patrol_save, what, damage, words):
    data = json.loads(patrol_save)
    damage(data)
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(data))
    assert main(["run", "patrol", "--ticks", "3", "--load", str(path)]) == 2
    err = one_line_error(capsys)
    assert str(path) in err and words in err, err


TEXT_DAMAGE: list[tuple[str, Callable[[str], str], str]] = [
    ("1e400", lambda text: text.replace('"tick_count":10', '"tick_count":1e400'), "out of range"),
    ("a 5,001-digit integer", lambda text: text.replace('"tick_count":10', '"tick_count":' + "9" * 5001),
     "5001 digits"),
    ("NaN", lambda text: text.replace('"tick_count":10', '"tick_count":NaN'), "world.tick_count: NaN is not a number"),
    ("50,000-deep nesting", lambda text: text.replace('"meta":{', '"deep":' + "[" * 50_000 + "]" * 50_000
                                                       + ',"meta":{'), "nested deeper"),
    ("truncated", lambda text: text[: len(text) // 2], "not valid JSON"),
    ("empty", lambda text: "", "is empty: it holds no save"),
    ("not UTF-8", lambda text: "\udcff", "cannot read"),
    ("a list", lambda text: "[]", "not a tickswap save"),
]


@pytest.mark.parametrize(("what", "damage", "words"), TEXT_DAMAGE, ids=[case[0] for case in TEXT_DAMAGE])
def test_a_save_with_unreadable_numbers_or_nesting_is_refused_in_one_line(tmp_path, capsys, patrol_save, what,
                                                                          damage, words):
    path = tmp_path / "damaged.json"
    path.write_bytes(damage(patrol_save).encode("utf-8", "surrogateescape"))
    assert main(["run", "patrol", "--ticks", "3", "--load", str(path)]) == 2
    err = one_line_error(capsys)
    assert str(path) in err and words in err, err


@pytest.mark.parametrize(("change", "words"), [
    (lambda crowd: crowd.update(capacity=10**13), "capacity must be from 1 to"),
    (lambda crowd: crowd.update(count=crowd["capacity"] + 1), "count must be from 0 to"),
    (lambda crowd: crowd["fields"].update(position="AAAA"), "bytes;"),
    (lambda crowd: crowd["fields"].update(position="!!"), "not base64"),
    (lambda crowd: crowd["fields"].pop("position"), "has no 'position'"),
])
def test_a_damaged_crowd_is_refused_before_any_memory_is_asked_for(tmp_path, capsys, swarm_save, change, words):
    data = json.loads(swarm_save)
    crowd = next(record for record in data["entities"] if record["crowd"] is not None)["crowd"]
    change(crowd)
    path = tmp_path / "crowd.json"
    path.write_text(json.dumps(data))
    assert main(["run", "swarm", "--ticks", "3", "--load", str(path)]) == 2
    assert words in one_line_error(capsys)


def test_a_failed_load_touches_nothing(tmp_path, patrol_save):
    data = json.loads(patrol_save)
    data["world"]["last_id"] = 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with World(seed=2) as world:
        world.tick()
        before, worlds = world.state_hash(), len(esper.list_worlds())
        with pytest.raises(SaveError):
            World.load(path)
        assert world.state_hash() == before and len(esper.list_worlds()) == worlds


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    path = tmp_path_factory.mktemp("replays") / "r.jsonl"
    script = path.with_name("in.jsonl")
    script.write_text('{"tick": 5, "input": [["key_press", 65363, 0, 0]]}\n'
                      '{"tick": 70, "input": [["key_release", 65363, 0, 0]]}\n')
    assert main(["run", "patrol", "--ticks", "130", "--record", str(path), "--input", str(script)]) == 0
    return path.read_text().splitlines()


def header(change: Callable[[Data], Any]) -> Callable[[list[str]], list[str]]:
    def damage(lines: list[str]) -> list[str]:
        data = json.loads(lines[0])
        change(data)
        return [json.dumps(data)] + lines[1:]
    return damage


def line(index: int, change: Callable[[Data], Any]) -> Callable[[list[str]], list[str]]:
    def damage(lines: list[str]) -> list[str]:
        data = json.loads(lines[index])
        change(data)
        return lines[:index] + [json.dumps(data)] + lines[index + 1:]
    return damage


REPLAY_DAMAGE: list[tuple[str, Callable[[list[str]], list[str]], str]] = [
    ("step 0", header(lambda h: h.update(ms_per_update=0)), "ms_per_update must be a finite number"),
    ("step -1", header(lambda h: h.update(ms_per_update=-1)), "ms_per_update must be a finite number"),
    ("step a string", header(lambda h: h.update(ms_per_update="15")), "ms_per_update must be a number"),
    ("step true", header(lambda h: h.update(ms_per_update=True)), "ms_per_update must be a number"),
    ("step huge", header(lambda h: h.update(ms_per_update=1e300)), "ms_per_update must be a finite number"),
    ("seed -3", header(lambda h: h.update(seed=-3)), "seed must be from 0"),
    ("seed 1.5", header(lambda h: h.update(seed=1.5)), "seed must be a whole number"),
    ("seed a string", header(lambda h: h.update(seed="3")), "seed must be a whole number"),
    ("no seed", header(lambda h: h.pop("seed")), "has no 'seed'"),
    ("an unknown header field", header(lambda h: h.update(extra=1)), "unknown field 'extra'"),
    ("engine version", header(lambda h: h.update(engine="9.0.0")), "recorded by tickswap 9.0.0"),
    ("game a path", header(lambda h: h.update(game="/etc/x.py")), "game"),
    ("game digest not hex", header(lambda h: h.update(game="x.py", game_digest="zz")), "game_digest"),
    ("tick a string", line(1, lambda r: r.update(tick="5")), "tick must be a whole number"),
    ("tick 1.5", line(1, lambda r: r.update(tick=1.5)), "tick must be a whole number"),
    ("tick 0", line(1, lambda r: r.update(tick=0)), "tick must be from 1"),
    ("input not a list", line(1, lambda r: r.update(input="left")), "input must be a list"),
    ("an event of 3", line(1, lambda r: r.update(input=[["key_press", 1, 0]])), "[type, key, x, y]"),
    ("an unknown event", line(1, lambda r: r.update(input=[["explode", 1, 0, 0]])), "InputEvent type"),
    ("an event key object", line(1, lambda r: r.update(input=[["key_press", {"a": 1}, 0, 0]])), "key"),
    ("hash not hex", line(2, lambda r: r.update(hash="xyz")), "hash is not valid"),
    ("end far away", lambda lines: lines[:-1] + ['{"end": 1000000000000, "hash": "' + "0" * 64 + '"}'],
     "end must be from 0"),
    ("end beyond its hashes", lambda lines: lines[:-1] + ['{"end": 100000, "hash": "' + "0" * 64 + '"}'],
     "lines are missing or the end is wrong"),
    ("end before the last tick", lambda lines: lines[:-1] + ['{"end": 3, "hash": "' + "0" * 64 + '"}'],
     "came before it"),
    ("a duplicated line", lambda lines: lines[:2] + [lines[1]] + lines[2:], "out of order or repeated"),
    ("reordered lines", lambda lines: [lines[0], lines[2], lines[1]] + lines[3:], "comes after"),
    ("a hash line missing", lambda lines: [line for line in lines if '"tick":60,"hash"' not in line], "was due"),
    ("a blank line", lambda lines: lines[:2] + [""] + lines[2:], "a blank line, where a JSON object was expected"),
    ("a line that is a list", lambda lines: lines[:2] + ["[1, 2]"] + lines[2:], "expected a JSON object"),
    ("NaN", lambda lines: lines[:1] + ['{"tick": 5, "input": [["key_press", 1, NaN, 0]]}'] + lines[2:],
     "input[0][2]: NaN is not a number"),
    ("1e400", lambda lines: lines[:1] + ['{"tick": 5, "input": [["key_press", 1, 1e400, 0]]}'] + lines[2:],
     "out of range"),
    ("deep nesting", lambda lines: lines[:1] + ['{"tick": 5, "input": ' + "[" * 50_000 + "]" * 50_000 + "}"]
     + lines[2:], "nested deeper"),
    ("a long line", lambda lines: lines[:1] + ['{"tick": 5, "input": "' + "x" * (1 << 20) + '"}'] + lines[2:],
     "longer than"),
    ("cut short", lambda lines: lines[:-1], "stops without its end line"),
    ("cut mid-line", lambda lines: lines[:-1] + [lines[-1][:20]], "not valid JSON"),
    ("after the end", lambda lines: lines + [lines[1]], "after the end line"),
    ("empty", lambda lines: [], "empty"),
    ("wrong version", header(lambda h: h.update(version=1)), "version 1 is not supported"),
    ("not a replay", lambda lines: ['{"format": "x"}'] + lines[1:], "not a tickswap replay"),
]


@pytest.mark.parametrize(("what", "damage", "words"), REPLAY_DAMAGE, ids=[case[0] for case in REPLAY_DAMAGE])
def test_a_damaged_replay_is_refused_with_exit_2_not_reported_as_non_determinism(tmp_path, capsys, recording, what,
                                                                               damage, words):
    assert '"input"' in recording[1] and '"hash"' in recording[2], recording[:3]
    path = tmp_path / "damaged.jsonl"
    damaged = damage(list(recording))
    path.write_text("".join(text + "\n" for text in damaged))
    assert main(["replay", str(path)]) == 2
    err = one_line_error(capsys)
    assert str(path) in err and words in err, err
    with pytest.raises(ReplayError):
        read_replay(path)


def test_the_undamaged_recording_replays(tmp_path, capsys, recording):
    path = tmp_path / "good.jsonl"
    path.write_text("\n".join(recording) + "\n")
    assert main(["replay", str(path)]) == 0


def test_reading_a_long_replay_holds_one_line_at_a_time(tmp_path):
    import tracemalloc

    path = tmp_path / "long.jsonl"
    lines = [('{"format":"tickswap-replay","version":2,"game":"patrol","game_digest":null,"seed":0,'
              '"ms_per_update":15.625,"engine":"0.1.0"}')]
    for tick in range(1, 12_001):
        lines.append(f'{{"tick":{tick},"input":[["key_press",65,0.0,0.0],["key_release",65,0.0,0.0]]}}')
        if tick % 60 == 0:
            lines.append(f'{{"tick":{tick},"hash":"{"0" * 64}"}}')
    lines.append(f'{{"end":12000,"hash":"{"0" * 64}"}}')
    path.write_text("\n".join(lines) + "\n")
    size = path.stat().st_size
    tracemalloc.start()
    replay = read_replay(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert replay.end == 12_000 and replay.input_ticks == 12_000
    assert peak < size / 10, f"reading a {size:,}-byte replay peaked at {peak:,} bytes"


def test_an_empty_save_a_bom_and_a_cut_save_each_say_what_they_are(tmp_path):
    # All three said "not valid JSON ...; truncated?", which only the cut one is.
    from engine.world.save import parse_save

    path = tmp_path / "s.json"
    with World(seed=1) as world:
        world.tick()
        world.save(path)
    text = path.read_text()
    with pytest.raises(SaveError, match=r"^s.json is empty: it holds no save$"):
        parse_save(" \n", "s.json")
    with pytest.raises(SaveError, match=r"byte-order mark .*save it as plain UTF-8$"):
        parse_save("\ufeff" + text, "s.json")
    for cut in (38, 40, len(text) - 1):
        with pytest.raises(SaveError, match=r"not valid JSON .*; truncated\?$"):
            parse_save(text[:cut], "s.json")
    with pytest.raises(SaveError) as caught:
        parse_save(text[:20] + "]" + text[20:], "s.json")
    assert "truncated" not in str(caught.value)
