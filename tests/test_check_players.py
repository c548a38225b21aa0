"""`tickswap check --players N` and engine.testing's players=: every player of a checked world gets input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from engine.testing import (
    assert_order_independent,
    assert_rollback_deterministic,
    check_order_independence,
    check_rollback,
    load_game,
    random_input,
)
from engine.tools.cli import main

# Keeps player 1's presses in a module-level counter: the same in every update order and every
# re-simulation as long as player 1 presses nothing, different as soon as it does.
TALLY_GAME = '''
from engine import Entity, buffered, keys

PLAYERS = 2
KEYS = (keys.SPACE,)
PRESSES = 0


class Tally(Entity):
    """Shows how often player 1 pressed Space, counted where no checkpoint and no other world can see."""

    count = buffered(0)

    def update(self, world):
        global PRESSES
        if world.input_of(1).just_pressed(keys.SPACE):
            PRESSES += 1
        self.count = PRESSES


def build(world):
    world.spawn(Tally())
'''


@pytest.fixture
def tally(write_game):
    return str(write_game("tally.py", TALLY_GAME))


def script(tmp_path, lines) -> str:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


PLAYER_1_PRESSES = [{"tick": 5, "player": 1, "input": [["key_press", "SPACE", 0, 0]]}]
PLAYER_0_PRESSES = [{"tick": 5, "input": [["key_press", "SPACE", 0, 0]]},
                    {"tick": 9, "player": 0, "input": [["key_release", "SPACE", 0, 0], ["key_press", "SPACE", 0, 0]]}]


def test_check_gives_a_two_player_game_its_players_and_fails_on_player_1s_input_naming_tick_and_field(
        tally, tmp_path, capsys):
    assert main(["check", tally, "--ticks", "30", "--input", script(tmp_path, PLAYER_1_PRESSES)]) == 1
    out = capsys.readouterr().out
    assert "order dependent: after tick 5, shuffled order 0 differs from spawn order in 1 entity" in out
    assert_one_more(out)


def assert_one_more(out: str) -> None:
    """The tally's count in the other world is one more: the counter lives on in the process, so not from 0."""
    found = re.search(r"Tally \(id 1\): count (\d+) vs (\d+)", out)
    assert found is not None, out
    assert int(found[2]) == int(found[1]) + 1


def test_check_rollback_fails_on_player_1s_input_naming_tick_and_field(tally, tmp_path, capsys):
    assert main(["check", tally, "--players", "2", "--rollback", "8", "--ticks", "30",
                 "--input", script(tmp_path, PLAYER_1_PRESSES)]) == 1
    out = capsys.readouterr().out
    # Re-simulated from tick 0 at tick 8, tick 1 already sees the press of the first run's tick 5.
    assert "not rollback deterministic: tick 1, re-simulated after rolling back 8 ticks at tick 8" in out
    assert_one_more(out)


@pytest.mark.parametrize("rollback", [[], ["--rollback", "8"]])
def test_player_0s_input_alone_leaves_the_tally_game_deterministic(tally, tmp_path, capsys, rollback):
    assert main(["check", tally, "--ticks", "30", *rollback, "--input", script(tmp_path, PLAYER_0_PRESSES)]) == 0
    assert "with 2 players" in capsys.readouterr().out


@pytest.mark.parametrize("rollback", [[], ["--rollback", "8"]])
def test_random_input_reaches_player_1(tally, capsys, rollback):
    assert main(["check", tally, "--ticks", "60", *rollback]) == 1
    assert "Tally (id 1): count " in capsys.readouterr().out


@pytest.mark.parametrize("rollback", [[], ["--rollback", "8"]])
def test_pong_for_two_passes_check(capsys, rollback):
    assert main(["check", "pong", "--players", "2", "--ticks", "120", *rollback]) == 0
    out = capsys.readouterr().out
    assert out.startswith("pong: ") and ("deterministic" in out or "order independent" in out)
    assert "for 120 ticks with 2 players" in out


@pytest.mark.parametrize("players", ["3", "8"])
def test_check_refuses_a_player_count_the_game_does_not_take_as_run_does(players, capsys):
    assert main(["run", "pong", "--ticks", "1", "--players", players]) == 2
    run_err = capsys.readouterr().err
    assert main(["check", "pong", "--players", players]) == 2
    err = capsys.readouterr().err
    assert err == run_err == f"tickswap: --players {players}: pong is played by 1 to 2 players (its PLAYERS)\n"


def test_check_refuses_an_input_line_for_a_player_the_world_does_not_have(tmp_path, capsys):
    lines = [{"tick": 3, "player": 1, "input": [["key_press", "UP", 0, 0]]}]
    assert main(["check", "pong", "--input", script(tmp_path, lines)]) == 2  # pong alone: one player
    err = capsys.readouterr().err
    assert "in.jsonl:1" in err and "player 1" in err and len(err.strip().splitlines()) == 1


def test_each_players_random_input_is_its_own_stream_and_player_0s_is_unchanged():
    assert random_input(4, player=0)(7) == random_input(4)(7)
    streams = [[random_input(4, player=player)(tick) for tick in range(1, 200)] for player in range(3)]
    assert streams[0] != streams[1] and streams[1] != streams[2] and streams[0] != streams[2]
    assert streams[1] == [random_input(4, player=1)(tick) for tick in range(1, 200)]
    with pytest.raises(ValueError, match="random_input's player is a whole number from 0 to 7, got 8"):
        random_input(4, player=8)


def test_each_players_random_input_is_the_same_in_every_process():
    code = ("from engine.testing import random_input\n"
            "print([[repr(e) for e in random_input(3, player=p)(t)] for p in range(3) for t in range(1, 40)])")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "random")}
    assert len(outs) == 1 and outs.pop().count("key_press") > 5


def test_the_helpers_give_a_games_setup_its_player_count(tally):
    game = load_game(tally)
    with pytest.raises(AssertionError, match=r"(?s)after tick \d+.*Tally \(id 1\): count"):
        assert_order_independent(game.setup, ticks=60)  # PLAYERS = 2: player 1's random input is there
    result = assert_rollback_deterministic(game, ticks=30, inputs=[None, None])
    assert result.players == 2
    with pytest.raises(AssertionError, match=r"(?s)tick 1, re-simulated.*at tick 8.*Tally \(id 1\): count") as failed:
        assert_rollback_deterministic(game, ticks=30, inputs=[None, {5: random_input(0, keys=[32], rate=1)(1)}])
    assert_one_more(str(failed.value))


def test_the_helpers_take_players_for_any_build():
    pong = load_game("pong")
    assert check_order_independence(pong.build, systems=pong.add_systems, ticks=40, players=2).players == 2
    assert check_rollback(pong.build, ticks=40).players == 1  # a plain function: one player unless told
    assert assert_rollback_deterministic(pong.module.build, ticks=40, players=2).players == 2


@pytest.mark.parametrize(("players", "inputs", "error"), [
    (3, "random", "players=3: pong is played by 1 to 2 players (its PLAYERS)"),
    (0, "random", "players must be a whole number from 1 to 8, got 0"),
    (True, "random", "players must be a whole number from 1 to 8, got True"),
    (2, [None], "inputs holds 1 players' input for a world of 2 players: pass players=1 for 1 player, or give 2 "
                "inputs (one per player, None for none)"),
])
def test_the_helpers_refuse_a_bad_player_count_or_input_by_name(players, inputs, error):
    pong = load_game("pong")
    with pytest.raises(ValueError, match=f"^{re.escape(error)}$"):
        assert_order_independent(pong, players=players, inputs=inputs, ticks=1)


# A game for one or two: player 1's presses kept where no checkpoint sees them. Played by one, it passes
# every check; the networked game (two players) is the one that fails.
ONE_OR_TWO = TALLY_GAME.replace("PLAYERS = 2", "PLAYERS = range(1, 3)").replace(
    "if world.input_of(1)", "if world.players > 1 and world.input_of(1)")


def test_check_rollback_of_a_game_for_one_or_two_checks_the_networked_two_and_says_so(tmp_path, capsys):
    path = tmp_path / "either.py"
    path.write_text(ONE_OR_TWO)
    assert main(["check", str(path), "--rollback", "8", "--ticks", "60", "--hash-seeds", "0"]) == 1
    out = capsys.readouterr().out
    assert re.search(r"tick \d+, re-simulated after rolling back 8 ticks .*Tally \(id 1\): count", out, re.S), out
    assert f"{path}: checked with 2 players; its PLAYERS takes 1 to 2 players: --players 1 checks that count" in out
    assert main(["check", str(path), "--ticks", "60", "--hash-seeds", "0"]) == 0  # update orders: the fewest, said
    assert f"{path}: checked with 1 player; its PLAYERS takes 1 to 2 players: --players 2 checks that count" in \
        capsys.readouterr().out


def test_a_list_of_inputs_gives_the_check_that_many_players_and_a_mismatch_names_the_fix(tmp_path):
    path = tmp_path / "either.py"
    path.write_text(ONE_OR_TWO)
    game = load_game(str(path))
    presses = {5: random_input(0, keys=[32], rate=1)(1)}
    result = check_order_independence(game, ticks=30, inputs=[None, presses])
    assert result.players == 2, "two inputs: two players, not a refusal that says to give one per player"
    with pytest.raises(ValueError, match=r"inputs holds 2 players' input for a world of 1 player: pass players=2 "
                                         r"for 2 players, or give 1 input \(one per player, None for none\)"):
        check_order_independence(game, ticks=30, inputs=[None, presses], players=1)
