"""``tickswap check``'s save/load pass: state a save does not hold is named, as an order dependence is.

Issue 29, item 2: a save made at tick T, loaded in a fresh world, must play like the
straight run; a game that keeps state outside what a save holds must be caught by the
check, naming the entity and the field, not found by a player after a load.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine import Entity, Look, World, buffered
from engine.testing import assert_same_after_load, check_save_load
from engine.tools.saveload import save_ticks


class Forgetful(Entity):
    """Counts in a plain attribute its class does not list in ``saved``: a load starts it again at 0."""

    total = buffered(0)
    steps = 0  # the class's: what a loaded instance reads, since its own was not saved

    def update(self, world: World) -> None:
        self.steps += 1
        self.total = self.steps * 2


class Careful(Forgetful):
    saved = ("steps",)


class Blinker(Entity):
    """Its look, set on the instance, is its collision box: kept by saves since looks are state."""

    look = Look("square", 4)

    def update(self, world: World) -> None:
        if self.random.random() < 0.05:
            self.look = Look("square", 30) if self.look == Look("square", 4) else Look("square", 4)


class Counter(Entity):
    hits = buffered(0)

    def update(self, world: World) -> None:
        self.hits += len(world.overlapping(self, Blinker))


def _forgetful(world: World) -> None:
    world.spawn(Forgetful())


def _blinkers(world: World) -> None:
    for index in range(6):
        world.spawn(Blinker(x=index * 10.0))
        world.spawn(Counter(x=index * 10.0 + 5, y=3))


def test_state_a_save_does_not_hold_is_named_with_the_entity_the_field_and_the_save():
    result = check_save_load(_forgetful, ticks=40, saves=1, inputs=None)
    assert not result.ok and result.loaded_from == 20 and result.tick == 21
    assert [(difference.kind, [name for name, *_ in difference.fields]) for difference in result.differences] == [
        ("Forgetful", ["total"])]
    said = result.describe()
    assert said.startswith("not the same after a load: after tick 21, the world loaded from the save of tick 20 "
                           "differs from the straight run in 1 entity\n  Forgetful (id 1): total 42 vs 2\n")
    assert "saved" in said.splitlines()[-1]
    assert check_save_load(lambda world: world.spawn(Careful()), ticks=40, saves=1, inputs=None).ok


def test_a_game_whose_instance_looks_decide_collisions_is_the_same_after_every_load():
    result = assert_same_after_load(_blinkers, ticks=300, saves=4, inputs=None)
    assert result.saved_at == (60, 120, 180, 240)
    assert "saved at ticks 60, 120, 180, 240, loaded, and agreed with the straight run to tick 300" in result.describe()


def test_a_world_that_cannot_be_saved_is_reported_with_the_tick():
    class Velocity:
        """An esper component: a save cannot hold one."""

    result = check_save_load(lambda world: world.spawn(Entity(), Velocity()), ticks=10, saves=1, inputs=None)
    assert not result.ok
    assert result.describe() == ("tick 5: the world cannot be saved: Entity (id 1) has esper components a save cannot "
                                 "hold: Velocity")


def test_a_loaded_world_that_fails_is_reported_with_its_error():
    class Unsaved(Entity):
        def __init__(self) -> None:
            super().__init__()
            self.steps = 0

        def update(self, world: World) -> None:
            self.steps += 1

    said = check_save_load(lambda world: world.spawn(Unsaved()), ticks=20, saves=1, inputs=None).describe()
    assert said.startswith("not the same after a load: the world loaded from the save of tick 10 failed at tick 11: "
                           "EntityUpdateError: Unsaved (id 1) has no attribute 'steps' after loading a save")


def test_the_pytest_helper_fails_naming_the_difference():
    with pytest.raises(AssertionError, match=r"Forgetful \(id 1\): total"):
        assert_same_after_load(_forgetful, ticks=30, saves=2, inputs=None)


def test_save_points_spread_over_the_run_and_never_at_its_end():
    assert save_ticks(300, 3) == (75, 150, 225)
    assert save_ticks(2, 3) == (1,)
    assert save_ticks(1, 1) == ()
    with pytest.raises(ValueError, match="saves must be a whole number >= 1, got 0"):
        check_save_load(_forgetful, saves=0)


def _check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine.tools.cli", "check", *args], capture_output=True, text=True,
                          cwd=cwd)


def test_tickswap_check_runs_the_save_load_pass_and_fails_naming_what_a_save_lost(tmp_path):
    (tmp_path / "forgets.py").write_text(
        "from engine import Entity, buffered\n\n"
        "class Forgetful(Entity):\n    total = buffered(0)\n    steps = 0\n\n"
        "    def update(self, world):\n        self.steps += 1\n        self.total = self.steps\n\n"
        "def build(world):\n    world.spawn(Forgetful())\n")
    done = _check("forgets.py", "--ticks", "40", "--hash-seeds", "0", "--saves", "1", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "forgets.py: order independent: 4 shuffled orders agreed with spawn order for 40 ticks"
    assert lines[1] == ("forgets.py: not the same after a load: after tick 21, the world loaded from the save of tick "
                        "20 differs from the straight run in 1 entity")
    assert lines[2] == "  Forgetful (id 1): total 21 vs 1"
    skipped = _check("forgets.py", "--ticks", "40", "--hash-seeds", "0", "--saves", "0", cwd=tmp_path)
    assert skipped.returncode == 0 and len(skipped.stdout.splitlines()) == 1
    bad = _check("forgets.py", "--saves", "-1", cwd=tmp_path)
    assert bad.returncode == 2 and "expected 0 (skip) to 100 saves, got -1" in bad.stderr


def test_world_load_with_two_copies_of_a_game_loaded_says_how_and_loads_when_given_the_game(tmp_path):
    # Issue 39: a test suite loads a game twice (two versions of one file); World.load refused, and
    # said only to use the command line.
    from engine import SaveError, World
    from engine.testing import load_game

    games = []
    for name, step in (("a", 1), ("b", 2)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "g.py").write_text(
            "from engine import Entity, buffered\nclass Ball(Entity):\n    n = buffered(0)\n"
            f"    def update(self, world):\n        self.n += {step}\n"
            "def build(world):\n    world.spawn(Ball())\n")
        games.append(load_game(tmp_path / name / "g.py"))
    with World() as world:
        games[0].setup(world)
        world.tick()
        world.save(tmp_path / "s.json")
    with pytest.raises(SaveError, match=r"World\.load\(path, game=load_game\(\.\.\.\)\) or "
                                        r"engine\.testing\.load_save\(game, path\)") as caught:
        World.load(tmp_path / "s.json")
    assert "\n" not in str(caught.value)
    with World.load(tmp_path / "s.json", game=games[0]) as loaded:
        loaded.tick()
        assert [entity.n for entity in loaded.entities] == [2]  # type: ignore[attr-defined]
        assert type(loaded.entities[0]) is games[0].module.Ball
