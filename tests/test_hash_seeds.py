"""The check across processes: a game whose logic reads set order is named, by tick, entity and field."""

from __future__ import annotations

from typing import Any

import pytest

from engine.testing import assert_same_in_every_process, check_hash_seeds, load_game
from engine.tools.cli import main

SET_ORDER = '''"""Moves the mover whose name comes first in a set: set order is seeded per process."""
from engine import Entity, buffered

NAMES = ("ann", "bob", "cyd", "dee", "eve")


class Mover(Entity):
    x = buffered(0.0)
    saved = ("name",)  # its one mistake is set order: a save and a load keep it as it was

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def update(self, world):
        if self.name == next(iter(set(NAMES))):
            self.x += 1


def build(world):
    for name in NAMES:
        world.spawn(Mover(name))
'''

COUNTER = '''"""Counts in a module-level variable: the same in every fresh process, not in one process twice."""
from engine import Entity, buffered

COUNT = [0]


class Mover(Entity):
    x = buffered(0.0)

    def update(self, world):
        COUNT[0] += 1
        self.x = float(COUNT[0])


def build(world):
    world.spawn(Mover())
'''


@pytest.fixture
def set_order_game(write_game):
    return write_game("setorder.py", SET_ORDER)


def test_tickswap_check_rollback_names_the_tick_and_entities_of_a_game_reading_set_order(set_order_game, capsys):
    assert main(["check", str(set_order_game), "--rollback", "8", "--ticks", "20"]) == 1
    out = capsys.readouterr().out
    assert "rollback deterministic" in out  # one process: the rollback itself cannot see it
    assert "differs between processes: after tick 1, the state under PYTHONHASHSEED=" in out
    assert "Mover (id " in out and "x 0.0 vs 1.0" in out
    assert "hash() of a str, the order of a set" in out


def test_tickswap_check_of_update_orders_runs_the_processes_too(set_order_game, capsys):
    assert main(["check", str(set_order_game), "--ticks", "20"]) == 1
    assert "differs between processes: after tick 1" in capsys.readouterr().out


def test_hash_seeds_0_skips_the_processes(set_order_game, capsys):
    assert main(["check", str(set_order_game), "--ticks", "20", "--hash-seeds", "0"]) == 0
    assert "processes" not in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["1", "-1", "17", "x"])
def test_tickswap_check_refuses_a_bad_hash_seeds_count(bad, usage_error):
    err = usage_error(["check", "pong", "--hash-seeds", bad])
    assert "--hash-seeds" in err and bad in err


def test_a_sample_is_the_same_in_every_process(capsys):
    assert main(["check", "patrol", "--ticks", "60"]) == 0
    assert "same in every process: 3 processes, PYTHONHASHSEED 1 to 3, agreed for 60 ticks" in capsys.readouterr().out


def test_assert_same_in_every_process_fails_naming_tick_entity_and_field(set_order_game):
    with pytest.raises(AssertionError, match=r"after tick 1(.|\n)*Mover \(id \d\): x"):
        assert_same_in_every_process(str(set_order_game), ticks=10, no_input=True)
    assert assert_same_in_every_process("pong", ticks=30).ok


def test_a_module_level_counter_is_the_same_in_fresh_processes_and_named_by_the_order_check(tmp_path, capsys):
    path = tmp_path / "counter.py"
    path.write_text(COUNTER)
    assert check_hash_seeds(load_game(path), ticks=10, no_input=True).ok
    assert main(["check", str(path), "--ticks", "10", "--hash-seeds", "0"]) == 1
    out = capsys.readouterr().out
    assert "order dependent: after tick 1" in out
    assert "spawn order run again from the start differs at tick 1 too: the cause is not update order" in out
    assert "use no module-level variables" in out and "checkpoint" not in out, "advice, not the rollback check's cause"


def test_check_hash_seeds_refuses_fewer_than_two_processes():
    with pytest.raises(ValueError, match="processes must be"):
        check_hash_seeds(load_game("pong"), processes=1)


def test_a_game_for_exactly_two_says_2_players_not_2_to_2(tmp_path, capsys):
    path = tmp_path / "duo.py"
    path.write_text("PLAYERS = 2\n\n\ndef build(world):\n    pass\n")
    assert main(["run", str(path), "--ticks", "1", "--players", "3"]) == 2
    assert "duo.py is played by 2 players (its PLAYERS)" in capsys.readouterr().err
    from engine.testing import load_game as load

    assert load(path).played_by() == "2 players"


def test_replay_with_a_samples_name_for_game_replays_with_that_game_and_says_whose_recording_it_is(tmp_path, capsys):
    # --game takes an installed game's name too (a game is one game however it is loaded).
    path = tmp_path / "duo.py"
    path.write_text("def build(world):\n    pass\n")
    record = tmp_path / "duo.jsonl"
    assert main(["run", str(path), "--ticks", "2", "--record", str(record)]) == 0
    capsys.readouterr()
    assert main(["replay", str(record), "--game", "patrol"]) == 1
    out = capsys.readouterr().out
    assert "the state differs at tick 2" in out and "it is a recording of duo.py (its header), replayed with patrol: replay it with --game duo.py" in out
    assert main(["replay", str(record), "--game", "no_such_game"]) == 2
    assert "no such game file, and no installed game of that name" in capsys.readouterr().err


def test_bench_rollback_marks_a_figure_over_its_target(monkeypatch):
    from engine.tools.bench import rollback

    def measured(rollback_s: float, pair_s: float) -> Any:
        return lambda count, rounds: {"tick": 1e-3, "ticks": 8e-3, "checkpoint": 1e-4, "pair": pair_s,
                                      "rollback": rollback_s}

    monkeypatch.setattr(rollback, "_measured", measured(5e-3, 4e-4))
    rows = {name: target for name, _ms, _ratio, target in rollback.bench_rollback((1000,))}
    assert rows["rollback + 8 ticks, a checkpoint each, 1000 entities"].startswith("OVER target 4.17 ms")
    assert rows["a checkpoint and a rollback, 1000 entities"].startswith("OVER target <= 0.2x")
    monkeypatch.setattr(rollback, "_measured", measured(3e-3, 1.5e-4))
    rows = {name: target for name, _ms, _ratio, target in rollback.bench_rollback((1000,))}
    assert rows["rollback + 8 ticks, a checkpoint each, 1000 entities"].startswith("ok, within target")
    assert rows["a checkpoint and a rollback, 1000 entities"].startswith("ok, within target <= 0.2x")


FAILS = '''"""Raises at tick 3: in every order, and in every process."""
from engine import Entity


class Doomed(Entity):
    def update(self, world):
        if world.tick_count == 2:
            raise ValueError("doomed")


def build(world):
    world.spawn(Doomed())
'''

FAILS_IN_ONE = '''"""Raises at tick 3 only in the process run with PYTHONHASHSEED=2."""
import os

from engine import Entity


class Fussy(Entity):
    def update(self, world):
        if world.tick_count == 2 and os.environ.get("PYTHONHASHSEED") == "2":
            raise ValueError("only here")


def build(world):
    world.spawn(Fussy())
'''


@pytest.mark.parametrize("extra", [[], ["--rollback", "2"]])
def test_a_game_failing_at_a_tick_is_reported_once_not_again_by_every_process(tmp_path, capsys, extra):
    path = tmp_path / "doomed.py"
    path.write_text(FAILS)
    assert main(["check", str(path), "--ticks", "5", "--no-input", *extra]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and "the game failed at tick 3" in lines[0], lines
    assert "doomed.py:8 in update)" in lines[0], lines


def test_a_process_that_fails_alone_is_named_with_the_games_line_not_a_traceback(tmp_path):
    path = tmp_path / "fussy.py"
    path.write_text(FAILS_IN_ONE)
    result = check_hash_seeds(load_game(path), ticks=5, no_input=True)
    assert not result.ok
    assert result.note.startswith("the process with PYTHONHASHSEED=2 failed: EntityUpdateError: Fussy (id 1) raised "
                                  "ValueError in tick 3: only here"), result.note
    assert result.note.endswith(f"(at {path}:10 in update)"), result.note


def test_every_check_result_reports_agreement_a_stop_or_a_difference_alike():
    # check_report decides for all four checks' results: agreed, the note alone when the
    # check stopped before any tick differed, else the headline, the entities and the notes.
    from engine.state.differences import EntityDifference
    from engine.testing import RollbackResult, SaveLoadResult, SeedResult
    from engine.tools.check import CheckResult

    bolt = [EntityDifference("Bolt", 7, (("x", 80.0, 83.0),))]
    assert SeedResult(5, 3).describe() == "same in every process: 3 processes, PYTHONHASHSEED 1 to 3, agreed for 5 ticks"
    assert SeedResult(5, 3, note="process 2 timed out").describe() == "process 2 timed out"
    differs = SeedResult(5, 3, 4, (1, 2), bolt, "").describe()
    assert differs.startswith("differs between processes: after tick 4, the state under PYTHONHASHSEED=1 differs "
                              "from PYTHONHASHSEED=2")
    assert "Bolt (id 7): x 80.0 vs 83.0" in differs and differs.endswith("never by id()")
    assert RollbackResult(9, 2, players=2).describe().endswith("agreed for 9 ticks with 2 players")
    assert RollbackResult(3, 2, note="the game failed at tick 3: boom", crashed=True).describe() == \
        "the game failed at tick 3: boom"
    assert SaveLoadResult(4, (2,), 3, 2, [], "its save does not load: no").describe() == \
        "not the same after a load: its save does not load: no"
    assert SaveLoadResult(4, (2,), 2, 2, bolt).describe().startswith("not the same after a load: right after the load")
    assert CheckResult(6, 1, players=3).describe() == \
        "order independent: 1 shuffled order agreed with spawn order for 6 ticks with 3 players"
    assert CheckResult(6, 1, note="ids permuted").describe() == "ids permuted"
