"""Several players' input outside the network: scripts, recordings, saves, `tickswap run --players`, pong for two."""

from __future__ import annotations

import json

import pytest

import engine.input
from engine import World, keys
from engine.files.replay import HASH_EVERY, Recorder, ReplayError, read_replay, verify
from engine.input.events import InputEvent
from engine.input.scripts import read_input_script, read_input_scripts
from engine.testing import load_game, load_save
from engine.tools.cli import main
from engine.world.save import SaveError

# Space serves from player 0; player 1 holds Up (the right paddle) from tick 60 to 120, player 0 holds S.
COMBINED = [
    {"tick": 2, "input": [["key_press", "SPACE", 0, 0], ["key_release", "SPACE", 0, 0]]},
    {"tick": 60, "player": 1, "input": [["key_press", "UP", 0, 0]]},
    {"tick": 70, "player": 0, "input": [["key_press", "S", 0, 0]]},
    {"tick": 120, "player": 1, "input": [["key_release", "UP", 0, 0]]},
]


def write_lines(path, lines) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def summary_hash(out: str) -> str:
    return out.split("state ")[1][:16]


def test_scripts_are_read_by_player_and_player_0_keeps_its_reader(tmp_path):
    path = write_lines(tmp_path / "in.jsonl", COMBINED)
    scripts = read_input_scripts(path)
    assert set(scripts) == {0, 1}, "by player, the lines naming none player 0's: nothing to merge by hand"
    assert scripts[1][60] == [InputEvent("key_press", keys.UP)]
    assert scripts[0][70] == [InputEvent("key_press", keys.S)]
    assert sorted(scripts[0]) == sorted(read_input_script(path)) == [2, 70]  # unnamed lines and player 0's
    assert sorted(read_input_scripts(path, unnamed=1)[1]) == [2, 60, 120], "unnamed lines to another player"
    assert engine.input.read_input_scripts is read_input_scripts and "read_input_scripts" in engine.input.__all__


@pytest.mark.parametrize("player", [-1, 8, "1", 1.0, True])
def test_a_script_line_with_a_bad_player_is_refused_by_line(tmp_path, player):
    path = write_lines(tmp_path / "in.jsonl", [{"tick": 1, "player": player, "input": []}])
    with pytest.raises(ReplayError, match=r"in\.jsonl:1: player"):
        read_input_scripts(path)


def test_run_refuses_a_script_line_for_a_player_the_world_does_not_have(tmp_path, capsys):
    path = write_lines(tmp_path / "in.jsonl", COMBINED)
    assert main(["run", "pong", "--ticks", "5", "--input", path]) == 2  # one player by default
    err = capsys.readouterr().err.strip()
    assert "in.jsonl:2: player 1" in err and "\n" not in err


def test_players_outside_the_games_range_are_refused_by_name(capsys):
    assert main(["run", "pong", "--ticks", "5", "--players", "3"]) == 2
    assert "--players 3" in capsys.readouterr().err
    assert main(["run", "patrol", "--ticks", "5", "--players", "2"]) == 2


def test_pong_for_two_the_right_paddle_moves_from_player_1s_lines(tmp_path, capsys):
    script = write_lines(tmp_path / "in.jsonl", COMBINED)
    save = str(tmp_path / "at150.json")
    assert main(["run", "pong", "--players", "2", "--ticks", "150", "--input", script,
                 "--save-at", "150", save]) == 0
    game = load_game("pong")
    from games.pong.logic import Paddle
    world = load_save(game, save)
    with world:
        assert world.players == 2
        left, right = sorted(world.entities_of(Paddle), key=lambda paddle: paddle.x)
        assert right.y > 240 + 100  # Up held by player 1 for 60 ticks
        assert left.y < 240 - 100  # S held by player 0 since tick 70
    # The same lines all given to player 0 (hot seat): Up moves the right paddle there too, by its own keys.
    alone = write_lines(tmp_path / "alone.jsonl", [{k: v for k, v in line.items() if k != "player"}
                                                   for line in COMBINED])
    assert main(["run", "pong", "--ticks", "150", "--input", alone]) == 0
    out = capsys.readouterr().out
    assert main(["run", "pong", "--ticks", "150", "--input", alone, "--players", "2"]) == 0
    assert summary_hash(capsys.readouterr().out) != summary_hash(out)  # player 1 idle: the right paddle stays


def test_a_two_player_run_recorded_and_replayed_matches_hash_for_hash(tmp_path, capsys):
    script = write_lines(tmp_path / "in.jsonl", COMBINED)
    record = str(tmp_path / "two.jsonl")
    assert main(["run", "pong", "--players", "2", "--ticks", "200", "--input", script, "--record", record]) == 0
    ran = summary_hash(capsys.readouterr().out)
    lines = [json.loads(line) for line in (tmp_path / "two.jsonl").read_text().splitlines()]
    assert lines[0]["players"] == 2
    assert {"tick": 60, "player": 1, "input": [["key_press", keys.UP, 0.0, 0.0]]} in lines
    assert {"tick": 70, "input": [["key_press", keys.S, 0.0, 0.0]]} in lines  # player 0 names no player
    replay = read_replay(record)
    assert replay.players == 2 and replay.hash_count == 200 // HASH_EVERY
    assert main(["replay", record]) == 0
    assert "all match" in capsys.readouterr().out
    # The same world driven in-process by the combined script, hash for hash.
    game = load_game("pong")
    scripts = read_input_scripts(script)
    with World(seed=0, players=2) as world:
        game.setup(world)
        for tick in range(1, 201):
            for player, script_of in scripts.items():
                for event in script_of.get(tick, ()):
                    world.input_queue_of(player).push(event)
            world.tick()
        assert world.state_hash()[:16] == ran


def test_record_tick_writes_what_after_tick_writes(tmp_path):
    game = load_game("pong")
    events = {(30, 1): [InputEvent("key_press", keys.UP)], (31, 0): [InputEvent("key_press", keys.SPACE)]}

    def run(path, from_data: bool) -> None:
        recorder = Recorder(path, game="pong", seed=0, ms_per_update=game.ms_per_update, players=2)
        with World(seed=0, players=2) as world:
            game.setup(world)
            recorder.start(world)
            for tick in range(1, 131):
                for (at, player), pushed in events.items():
                    if at == tick:
                        for event in pushed:
                            world.input_queue_of(player).push(event)
                world.tick()
                if from_data:
                    inputs = [world.input_of(player).events for player in range(2)]
                    recorder.record_tick(tick, inputs, world.state_hash() if tick % HASH_EVERY == 0 else None)
                else:
                    recorder.after_tick(world)
            recorder.close(world)

    run(tmp_path / "a.jsonl", False)
    run(tmp_path / "b.jsonl", True)
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()
    replay = read_replay(tmp_path / "b.jsonl")
    with World(seed=0, players=2) as world:
        game.setup(world)
        assert verify(replay, world).ok


def test_record_tick_refuses_ticks_out_of_order_and_misplaced_hashes(tmp_path):
    recorder = Recorder(tmp_path / "r.jsonl", game="pong", seed=0, ms_per_update=15.625, players=2)
    with pytest.raises(ValueError, match="tick 1 comes next"):
        recorder.record_tick(2, [(), ()], None)
    with pytest.raises(ValueError, match="2 players"):
        recorder.record_tick(1, [()], None)
    with pytest.raises(ValueError, match="no hash is due"):
        recorder.record_tick(1, [(), ()], "0" * 64)
    recorder.record_tick(1, [(), ()], None)
    for tick in range(2, HASH_EVERY):
        recorder.record_tick(tick, [(), ()], None)
    with pytest.raises(ValueError, match="a hash is due"):
        recorder.record_tick(HASH_EVERY, [(), ()], None)
    recorder.abandon()


def _recording(tmp_path, header_extra, *lines) -> str:
    header = {"format": "tickswap-replay", "version": 2, "game": "pong", "game_digest": None, "seed": 0,
              "ms_per_update": 15.625, "engine": __import__("engine").__version__, **header_extra}
    return write_lines(tmp_path / "bad.jsonl", [header, *lines, {"end": 0, "hash": "0" * 64}])


@pytest.mark.parametrize(("extra", "line", "said"), [
    ({"players": 9}, None, "bad.jsonl:1: players"),
    ({"players": 0}, None, "bad.jsonl:1: players"),
    ({"players": "2"}, None, "bad.jsonl:1: players"),
    ({"players": 2}, {"tick": 1, "player": 2, "input": []}, "bad.jsonl:2: player 2"),
    ({}, {"tick": 1, "player": 1, "input": []}, "bad.jsonl:2: player 1"),
    ({"players": 2}, {"tick": 1, "player": 0, "input": []}, "bad.jsonl:2: player"),
])
def test_bad_players_in_a_recording_are_refused_by_line(tmp_path, extra, line, said):
    path = _recording(tmp_path, extra, *([line] if line else []))
    with pytest.raises(ReplayError, match=said.replace(".", r"\.")):
        read_replay(path)


def test_two_input_lines_of_one_player_in_one_tick_are_refused(tmp_path):
    line = {"tick": 1, "player": 1, "input": [["key_press", keys.UP, 0.0, 0.0]]}
    with pytest.raises(ReplayError, match="bad.jsonl:3: tick 1 comes after tick 1: lines are out of order or repeated"):
        read_replay(_recording(tmp_path, {"players": 2}, line, line))


def _two_player_world() -> World:
    world = World(seed=3, players=2)
    game = load_game("pong")
    game.setup(world)
    world.input_queue_of(1).press(keys.UP)
    world.input_queue_of(0).press(keys.SPACE)
    for _ in range(5):
        world.tick()
    world.input_queue_of(1).press(keys.DOWN)  # waiting in the queue when saved
    world.input_queue_of(0).mouse_press(10.0, 20.0)
    return world


def test_a_two_player_save_round_trips_every_players_queue(tmp_path):
    from engine.testing import save_game

    game = load_game("pong")
    path = str(tmp_path / "two.json")
    with _two_player_world() as world:
        save_game(world, game, path)
        data = json.loads((tmp_path / "two.json").read_text())
        assert data["world"]["players"] == 2 and len(data["world"]["inputs"]) == 1
        loaded = load_save(game, path)
        with loaded:
            assert loaded.players == 2
            for player in range(2):
                assert loaded.input_queue_of(player).state() == world.input_queue_of(player).state()
            for _ in range(70):
                world.tick()
                loaded.tick()
                assert loaded.state_hash() == world.state_hash()
            assert loaded.input_of(1).pressed(keys.DOWN)


def test_a_one_player_save_has_no_players_field(tmp_path):
    with World(seed=1) as world:
        world.save(tmp_path / "one.json")
    assert "players" not in json.loads((tmp_path / "one.json").read_text())["world"]


@pytest.mark.parametrize(("change", "said"), [
    (lambda w: w.update(players=9), "world.players"),
    (lambda w: w.update(players=3), "world.inputs must be a list of 2"),
    (lambda w: w.pop("inputs"), "world.inputs must be a list of 1"),
    (lambda w: w.update(players=1), "world.inputs .players 1 and up. in a save of one player"),
    (lambda w: w["inputs"][0].update(held="x"), r"world.inputs\[0\] \(player 1\)"),
])
def test_bad_players_in_a_save_are_refused_by_name(tmp_path, change, said):
    path = tmp_path / "two.json"
    with _two_player_world() as world:
        world.save(path)
    data = json.loads(path.read_text())
    change(data["world"])
    path.write_text(json.dumps(data))
    with pytest.raises(SaveError, match=said):
        World.load(path)


def test_a_two_player_checkpoint_round_trips(tmp_path):
    with _two_player_world() as world:
        checkpoint = world.checkpoint()
        hashes = []
        for _ in range(20):
            world.tick()
            hashes.append(world.state_hash())
        world.rollback(checkpoint)
        for expected in hashes:
            world.tick()
            assert world.state_hash() == expected


def test_a_session_recording_with_an_input_delay_line_is_an_input_script_as_it_is_a_replay(tmp_path, capsys):
    # Issue 39's defect 7: replay took {"tick": N, "input_delay": D}, but --input, check and
    # read_input_scripts said "an input line has no 'input'".
    import json

    from engine.input import read_input_scripts

    recorded = tmp_path / "plain.jsonl"
    script = write_lines(tmp_path / "keys.jsonl", [
        {"player": 1, "tick": 3, "input": [["key_press", "UP", 0, 0]]},
        {"player": 0, "tick": 12, "input": [["key_press", "W", 0, 0]]},
        {"player": 1, "tick": 15, "input": [["key_release", "UP", 0, 0]]}])
    assert main(["run", "pong", "--players", "2", "--ticks", "20", "--input", script, "--record", str(recorded)]) == 0
    lines = [json.loads(line) for line in recorded.read_text().splitlines()]
    at = next(n for n, line in enumerate(lines) if n and line.get("tick", 0) >= 10)
    session = write_lines(tmp_path / "session.jsonl", [*lines[:at], {"tick": 10, "input_delay": 4}, *lines[at:]])
    assert main(["replay", session]) == 0
    expected = capsys.readouterr().out
    assert read_input_scripts(session, 2) == read_input_scripts(recorded, 2) != {}
    assert main(["run", "pong", "--players", "2", "--ticks", "20", "--input", session]) == 0
    state = capsys.readouterr().out.split("state ")[1][:16]
    assert state in expected or state == lines[-1]["hash"][:16]
    assert main(["check", "pong", "--players", "2", "--ticks", "20", "--input", session]) == 0, capsys.readouterr()
    bad = write_lines(tmp_path / "bad.jsonl", [*lines[:at], {"tick": 10, "input_delay": -1}, *lines[at:]])
    with pytest.raises(ReplayError, match=r"bad\.jsonl:\d+: input_delay"):
        read_input_scripts(bad, 2)


def test_a_script_line_for_a_player_past_players_says_the_players_option_that_plays_it(tmp_path, capsys):
    # The newcomer's trial: "player 2, but the game runs with 2 players (0 to 1)" said nothing of --players 3.
    up = [["key_press", "UP", 0, 0]]
    path = write_lines(tmp_path / "play.jsonl", [{"tick": 1, "input": up}, {"tick": 2, "player": 1, "input": up}])
    assert main(["run", "pong", "--ticks", "5", "--input", path]) == 2
    assert capsys.readouterr().err.strip() == (f"tickswap: {path}:2: player 1, but the game runs with 1 player "
                                               "(0 to 0): give --players 2 (the game takes 1 to 2)")
    assert main(["check", "pong", "--ticks", "5", "--input", path]) == 2
    assert "player 1, but the game runs with 1 player (0 to 0): give --players 2" in capsys.readouterr().err
    past = write_lines(tmp_path / "past.jsonl", [{"tick": 1, "player": 2, "input": [["key_press", "UP", 0, 0]]}])
    assert main(["run", "pong", "--ticks", "5", "--players", "2", "--input", past]) == 2
    assert capsys.readouterr().err.strip() == (f"tickswap: {past}:1: player 2, but the game runs with 2 players "
                                               "(0 to 1); the game takes at most 2 (its PLAYERS)")


def test_a_joiners_combined_script_refusal_allows_a_two_seat_joiners_lines_naming_both(tmp_path):
    from engine.input.scripts import read_script_lines

    up = [["key_press", "UP", 0, 0]]
    path = write_lines(tmp_path / "all.jsonl", [{"tick": 1, "input": up}, {"tick": 2, "player": 2, "input": up}])
    with pytest.raises(ReplayError, match="all naming no player, or each naming one of its players") as refused:
        read_script_lines(path, joining=True)
    assert "all naming its player)" not in str(refused.value)
    two = write_lines(tmp_path / "two.jsonl", [{"tick": 1, "player": 1, "input": up},
                                               {"tick": 2, "player": 2, "input": up}])
    assert set(read_script_lines(two, joining=True)) == {1, 2}, "a --local 2 joiner's script names both"
