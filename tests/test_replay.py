"""Replays: every game recorded with scripted input plays back hash for hash; damage is caught."""

from __future__ import annotations

import json
import re

import pytest

from engine.display import Display
from engine.files.importer import sample_games
from engine.files.replay import ReplayError, read_replay
from engine.tools.cli import main


def record_with_scripted_input(name: str, path, frames: int = 240) -> None:
    """Play ``name`` headless, pressing and releasing keys on a script, recording it all."""
    from pyglet.window import key

    from engine.files.importer import load_game
    from engine.files.replay import Recorder
    from engine.render.runner import GameRunner
    from engine.tools.cli.worlds import build_world
    from engine.world.driver import LocalDriver

    game = load_game(name)
    recorder = Recorder(path, game=name, seed=3, ms_per_update=game.ms_per_update)
    runner = GameRunner(game, LocalDriver(build_world(game, 3), after_tick=recorder.after_tick),
                        display=Display(headless=True))
    script = {10: ("on_key_press", key.RIGHT, 0), 40: ("on_key_release", key.RIGHT, 0),
              60: ("on_key_press", key.UP, 0), 61: ("on_key_press", key.R, 0), 62: ("on_key_release", key.R, 0),
              90: ("on_key_press", key.B, 0), 150: ("on_key_release", key.UP, 0),
              151: ("on_mouse_press", 100, 100, 1, 0)}
    for frame in range(frames):
        if frame in script:
            runner.window.dispatch_event(*script[frame])
        runner.run(frames=1)
    recorder.close(runner.world)
    runner.close()


@pytest.mark.usefixtures("offscreen")
@pytest.mark.parametrize("name", sorted(sample_games()))
def test_every_game_replays_hash_for_hash(tmp_path, capsys, name):
    path = tmp_path / f"{name}.jsonl"
    record_with_scripted_input(name, path)
    replay = read_replay(path)
    assert replay.input_ticks, "the scripted input was recorded"
    assert main(["replay", str(path)]) == 0
    assert "all match" in capsys.readouterr().out
    assert main(["replay", str(path), "--headless"]) == 0
    assert "all match" in capsys.readouterr().out


def test_a_tampered_hash_is_reported_at_its_tick(tmp_path, capsys):
    assert "differs at tick 180" in _replayed_after_a_tampered_hash(tmp_path, capsys)


def test_a_replay_whose_header_seed_was_edited_says_it_differs_from_the_start(tmp_path, capsys, write_game):
    game = write_game("dice.py", "from engine import Entity\n\n\nclass Die(Entity):\n    def update(self, world):\n"
                                 "        self.x = float(self.random.randint(1, 6))\n\n\ndef build(world):\n"
                                 "    world.spawn(Die())\n")
    path = tmp_path / "d.jsonl"
    assert main(["run", str(game), "--ticks", "120", "--record", str(path)]) == 0
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["seed"] += 1
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    capsys.readouterr()
    assert main(["replay", str(path), "--game", str(game)]) == 1
    out = capsys.readouterr().out
    assert ("0 hashes matched before it); it is the first hash checked, so the runs part between the start and "
            "tick 60: an input line before it edited, or the header (seed, step)") in out
    # A difference later on is past the first hash: no such hint.
    assert "first hash checked" not in _replayed_after_a_tampered_hash(tmp_path, capsys)


def test_a_replay_with_an_input_edited_before_its_first_hash_says_where_and_how_to_find_what(tmp_path, capsys,
                                                                                            monkeypatch):
    # The newcomer's trial: an input edited at tick 10, the first hash at 60; the hint asked whether the header was
    # edited and pointed to tickswap check, which does not take a recording.
    monkeypatch.chdir(tmp_path)
    assert main(["run", "comet", "--ticks", "120", "--record", "rec.jsonl"]) == 0
    lines = (tmp_path / "rec.jsonl").read_text().splitlines()
    lines.insert(1, '{"tick": 10, "input": [["key_press", "LEFT", 0, 0]]}')
    (tmp_path / "edited.jsonl").write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["replay", "edited.jsonl"]) == 1
    out = capsys.readouterr().out
    assert "was the recording's header" not in out and "tickswap check" not in out
    command = "tickswap run comet --input edited.jsonl --seed 0 --ticks 60 --save-at 60 here.json"
    assert ("the state differs at tick 60 (the first mismatch; 0 hashes matched before it); it is the first hash "
            "checked, so the runs part between the start and tick 60: an input line before it edited, or the header "
            f"(seed, step), or another game or engine. To see what: {command} saves the state at tick 60") in out
    # The command it gives runs, and beside the original's save shows what differs.
    assert main(command.split()[1:]) == 0
    assert main(["run", "comet", "--input", "rec.jsonl", "--seed", "0", "--ticks", "60", "--save-at", "60",
                 "orig.json"]) == 0
    assert (tmp_path / "here.json").read_text() != (tmp_path / "orig.json").read_text()


def _replayed_after_a_tampered_hash(tmp_path, capsys) -> str:
    path = tmp_path / "p.jsonl"
    assert main(["run", "patrol", "--ticks", "300", "--record", str(path)]) == 0
    lines = path.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"tick":180,"hash"' in line)
    record = json.loads(lines[index])
    record["hash"] = "0" * 64
    lines[index] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    return str(capsys.readouterr().out)


@pytest.mark.usefixtures("offscreen")
def test_tampered_input_changes_the_game_and_is_caught(tmp_path, capsys):
    path = tmp_path / "slap.jsonl"
    record_with_scripted_input("slapstick", path)
    text = path.read_text().replace('["key_press",98,', '["key_press",97,')  # B (buffer off) becomes A
    path.write_text(text)
    assert main(["replay", str(path)]) == 1
    assert "differs at tick" in capsys.readouterr().out


@pytest.mark.parametrize(("damage", "words"), [
    (lambda lines: lines[:-1], "stops without its end line"),
    (lambda lines: lines[:-1] + [lines[-1][:20]], "not valid JSON"),
    (lambda lines: [lines[0].replace('"version":2', '"version":1')] + lines[1:], "version 1 is not supported"),
    (lambda lines: ['{"format":"something-else"}'] + lines[1:], "not a tickswap replay"),
    (lambda lines: [], "empty"),
    (lambda lines: lines + [lines[1]], "after the end line"),
    (lambda lines: [lines[0], lines[2], lines[1]] + lines[3:], "was due"),
])
def test_a_broken_replay_is_refused_naming_file_line_and_problem(tmp_path, capsys, damage, words):
    path = tmp_path / "r.jsonl"
    main(["run", "patrol", "--ticks", "200", "--record", str(path)])
    capsys.readouterr()
    path.write_text("\n".join(damage(path.read_text().splitlines())))
    with pytest.raises(ReplayError, match=words):
        read_replay(path)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and words.split()[0] in err and "Traceback" not in err


def test_a_replay_of_an_unknown_game_is_refused(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    main(["run", "patrol", "--ticks", "10", "--record", str(path)])
    path.write_text(path.read_text().replace('"game":"patrol"', '"game":"tennis"'))
    capsys.readouterr()
    assert main(["replay", str(path)]) == 2
    assert "tennis" in capsys.readouterr().err


def write_script(tmp_path, *lines: str):
    path = tmp_path / "in.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_an_input_script_takes_key_names_modifiers_and_merges_lines_of_one_tick(tmp_path):
    from engine import keys
    from engine.input.scripts import read_input_script

    script = read_input_script(write_script(
        tmp_path,
        '{"tick": 3, "input": [["key_press", "LEFT", 0, 0]]}',
        '{"tick": 3, "input": [["key_press", "space", 0, 0, 1, 0, 0]]}',
        '{"tick": 4, "input": [["key_release", "A", 0, 0], ["key_press", "1", 0, 0]]}'))
    assert [(event.key, event.modifiers) for event in script[3]] == [(keys.LEFT, 0), (keys.SPACE, keys.MOD_SHIFT)]
    assert [event.key for event in script[4]] == [keys.A, keys._1]


@pytest.mark.parametrize("lines, words", [
    (['{"tick": 3, "input": [["key_press", "LEFTT", 0, 0]]}'], ":1: input[0]: 'LEFTT' is not a key"),
    (['{"format": "tickswap-save", "version": 2}'], ":1: a tickswap save"),
    (['{"tick": 1, "input": [["key_press", 65, 0, 0]]}', '{"format": "x", "tick": 2}'], ":2: not an input script"),
    (['{"tick": 4, "input": [["key_press", 65, 0, 0]]}', '{"tick": 2, "input": [["key_press", 65, 0, 0]]}'],
     ":2: tick 2 comes after tick 4"),
])
def test_what_is_not_an_input_line_is_refused_by_file_and_line(tmp_path, capsys, lines, words):
    from engine.tools.cli import main

    path = write_script(tmp_path, *lines)
    for command in (["run", "patrol", "--ticks", "5"], ["check", "patrol", "--ticks", "5"]):
        assert main([*command, "--input", str(path)]) == 2
        err = capsys.readouterr().err
        assert f"{path}{words}" in err and err.count("\n") == 1, err


def test_a_replay_is_still_an_input_script(tmp_path, capsys):
    from engine.input.scripts import read_input_script
    from engine.tools.cli import main

    record_with_scripted_input("slapstick", tmp_path / "r.jsonl")
    assert read_input_script(tmp_path / "r.jsonl")
    assert main(["run", "slapstick", "--ticks", "5", "--input", str(tmp_path / "r.jsonl")]) == 0


CRASHER = """
from engine import Entity

class Bomb(Entity):
    def update(self, world):
        self.x += 1
        if world.tick_count + 1 == {at}:
            raise RuntimeError("boom")

def build(world):
    world.spawn(Bomb())
"""


def test_a_crashed_runs_recording_says_where_and_replay_reproduces_the_crash(tmp_path, capsys):
    game = tmp_path / "bomb.py"
    game.write_text(CRASHER.format(at=130))
    assert main(["run", str(game), "--ticks", "200", "--record", str(tmp_path / "r.jsonl")]) == 1
    end = json.loads((tmp_path / "r.jsonl").read_text().splitlines()[-1])
    assert end["end"] == 129 and end["crashed"] == 130
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "r.jsonl"), "--game", str(game)]) == 0
    out = capsys.readouterr().out
    assert "crashed at tick 130: reproduced" in out and out.count("\n") == 1
    game.write_text(CRASHER.format(at=10**6))
    assert main(["replay", str(tmp_path / "r.jsonl"), "--game", str(game)]) == 1
    assert "crashed at tick 130, but this one does not" in capsys.readouterr().out


def test_a_crash_mark_that_is_not_the_tick_after_the_end_is_damage(tmp_path):
    game = tmp_path / "bomb.py"
    game.write_text(CRASHER.format(at=30))
    main(["run", str(game), "--ticks", "200", "--record", str(tmp_path / "r.jsonl")])
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    lines[-1] = lines[-1].replace('"crashed":30', '"crashed":31')
    (tmp_path / "r.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayError, match="crash can only be at tick 30"):
        read_replay(tmp_path / "r.jsonl")


def test_save_at_may_be_given_several_times(tmp_path, capsys):
    assert main(["run", "patrol", "--ticks", "30", "--save-at", "10", str(tmp_path / "a.json"),
                 "--save-at", "20", str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    assert "saved" in out and "a.json at tick 10" in out and "b.json at tick 20" in out
    assert json.loads((tmp_path / "a.json").read_text())["world"]["tick_count"] == 10
    assert json.loads((tmp_path / "b.json").read_text())["world"]["tick_count"] == 20
    assert main(["run", "patrol", "--ticks", "5", "--save-at", "3", str(tmp_path / "c.json"),
                 "--save-at", "4", str(tmp_path / "c.json")]) == 2


def test_a_crash_is_reproduced_by_a_replay_drawn_off_screen_too(tmp_path, capsys, offscreen):
    game = tmp_path / "bomb.py"
    game.write_text(CRASHER.format(at=70))
    assert main(["run", str(game), "--ticks", "100", "--record", str(tmp_path / "r.jsonl")]) == 1
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "r.jsonl"), "--game", str(game), "--headless"]) == 0
    assert "crashed at tick 70: reproduced" in capsys.readouterr().out


KEY_BOMB = """
from engine import Entity, keys

class Fuse(Entity):
    def update(self, world):
        if world.input.just_pressed(keys.X):
            raise RuntimeError("pressed X")

def build(world):
    world.spawn(Fuse())
"""


@pytest.mark.parametrize("shown", [[], ["--headless"]])
def test_a_crash_on_a_tick_with_input_is_recorded_with_that_input_and_reproduced(tmp_path, capsys, shown):
    game = tmp_path / "fuse.py"
    game.write_text(KEY_BOMB)
    script = tmp_path / "in.jsonl"
    script.write_text('{"tick": 20, "input": [["key_press", "X", 0, 0]]}\n')
    assert main(["run", str(game), "--ticks", "50", "--input", str(script), "--record", str(tmp_path / "r.jsonl")]) == 1
    lines = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert lines[-2]["tick"] == 20 and lines[-1] == {**lines[-1], "end": 19, "crashed": 20}
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "r.jsonl"), "--game", str(game), *shown]) == 0
    assert "crashed at tick 20: reproduced" in capsys.readouterr().out


def test_an_input_script_may_have_blank_lines(tmp_path):
    from engine.input.scripts import read_input_script

    script = tmp_path / "in.jsonl"
    script.write_text('\n{"tick": 3, "input": [["key_press", "LEFT", 0, 0]]}\n\n   \n')
    assert list(read_input_script(script)) == [3]


def test_a_replay_with_another_game_says_which_game_made_the_recording(tmp_path, capsys):
    recording = tmp_path / "pong.jsonl"
    assert main(["run", "pong", "--ticks", "60", "--record", str(recording)]) == 0
    capsys.readouterr()
    assert main(["replay", str(recording), "--game", "bouncy"]) == 1
    out = capsys.readouterr().out
    assert "it is a recording of pong (its header), replayed with bouncy: replay it with --game pong" in out, out
    assert "(seed, step)" not in out
    for name, body in (("a.py", "X = 1"), ("b.py", "X = 2")):
        (tmp_path / name).write_text("from engine import Entity, buffered\n" + body + "\n"
                                     "class Counter(Entity):\n    n = buffered(0)\n"
                                     "    def update(self, world):\n        self.n += X\n"
                                     "def build(world):\n    world.spawn(Counter())\n")
    assert main(["run", str(tmp_path / "a.py"), "--ticks", "60", "--record", str(tmp_path / "a.jsonl")]) == 0
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "a.jsonl"), "--game", str(tmp_path / "b.py")]) == 1
    out = capsys.readouterr().out
    assert "it is a recording of a.py (its header), replayed with b.py: replay it with --game a.py" in out, out


def _verified(replay_path, game_file, drawn: bool) -> tuple[object, ...]:
    """Verify a recording headless (``verify``) or drawn off-screen (a runner stepping ``ReplayDriver``)."""
    from engine.files.importer import load_game
    from engine.files.replay import ReplayDriver, Verification, verify
    from engine.tools.cli.display import make_runner
    from engine.tools.cli.worlds import build_world

    replay = read_replay(replay_path)
    game = load_game(str(game_file))
    world = build_world(game, replay.seed, players=replay.players)
    if drawn:
        verification = Verification(replay, world)
        runner = make_runner(Display(headless=True), game, world, ups=1000 / replay.ms_per_update,
                             driver=ReplayDriver(verification))
        try:
            runner.run(frames=10_000)
        finally:
            runner.close()
        result = verification.result
    else:
        result = verify(replay, world)
        world.close()
    assert result is not None, "the drawn replay stopped before its verification had a result"
    crash = None if result.crash is None else (type(result.crash).__name__, str(result.crash))
    return result.ok, result.ticks, result.checked, result.first_mismatch, crash


@pytest.mark.usefixtures("offscreen")
@pytest.mark.parametrize("case", ["matches", "crash reproduced", "crash not reproduced", "edited hash"])
def test_a_replay_verified_headless_and_drawn_gives_the_same_result(tmp_path, case):
    # One verifier: drawn, the window's runner steps the same Verification that verify() steps.
    game = tmp_path / "bomb.py"
    game.write_text(CRASHER.format(at=70 if case.startswith("crash") else 10**6))
    recording = tmp_path / "r.jsonl"
    assert main(["run", str(game), "--ticks", "100", "--record", str(recording)]) in (0, 1)
    if case == "crash not reproduced":
        game.write_text(CRASHER.format(at=10**6))
    if case == "edited hash":
        lines = recording.read_text().splitlines()
        at = next(index for index, line in enumerate(lines) if '"hash"' in line and index > 1)
        record = json.loads(lines[at])
        record["hash"] = "0" * len(record["hash"])
        lines[at] = json.dumps(record, separators=(",", ":"))
        recording.write_text("\n".join(lines) + "\n")
    headless, drawn = _verified(recording, game, drawn=False), _verified(recording, game, drawn=True)
    assert headless == drawn
    boom = ("EntityUpdateError", "Bomb (id 1) raised RuntimeError in tick 70: boom; the tick was rolled back")
    expected = {"matches": (True, None), "crash reproduced": (True, boom),
                "crash not reproduced": (False, None), "edited hash": (False, None)}[case]
    assert (headless[0], headless[4]) == expected
    assert (headless[3] is not None) == (case == "edited hash")


@pytest.mark.parametrize(("players", "said"), [
    (None, "player 1, but the header gives no players: 1 by default, so the recording has 1 player (0 to 0)"),
    (2, "player 2, but the header says the recording has 2 players (0 to 1)"),
])
def test_a_line_naming_a_player_past_the_headers_says_what_the_header_gave(tmp_path, players, said):
    # A newcomer deleted "players": 2 from a header: the refusal said the header "says" 1 player.
    from engine.files.replay.format import ReplayError, new_header, read_replay

    header = new_header(game="pong", seed=0, ms_per_update=1000 / 60, game_digest=None, players=players or 1)
    path = tmp_path / "edited.jsonl"
    lines = [header, {"tick": 1, "player": 1 if players is None else 2, "input": [["key_press", 97, 0]]}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(ReplayError, match=re.escape(said)):
        read_replay(path)
