"""The rollback check: every sample re-simulates the same; a game keeping state outside the world is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Entity, World, buffered
from engine.testing import assert_rollback_deterministic, check_rollback, load_game, random_input
from engine.tools.cli import main

SAMPLES = [("bouncy", 60), ("comet", 60), ("explorer", 30), ("framebuffer", 40), ("patrol", 60),
           ("platformer", 60), ("pong", 60), ("slapstick", 60), ("swarm", 20)]


@pytest.mark.parametrize(("name", "ticks"), SAMPLES)
def test_every_sample_game_is_rollback_deterministic(name, ticks):
    game = load_game(name)
    inputs = random_input(0, keys=game.keys) if game.keys is not None else "random"
    result = assert_rollback_deterministic(game.build, systems=game.add_systems, ticks=ticks, distance=8,
                                           inputs=inputs)
    assert result.ok and result.ticks == ticks


COUNTER_GAME = '''
from engine import Entity, buffered

SERVED = 0


class Ticket(Entity):
    """Takes its number from a module-level counter, which no checkpoint keeps."""

    number = buffered(0)

    def update(self, world):
        global SERVED
        SERVED += 1
        self.number = SERVED


def build(world):
    world.spawn(Ticket())
'''


def test_tickswap_check_rollback_fails_a_module_level_counter_naming_the_tick_and_field(tmp_path, capsys):
    path = tmp_path / "counter.py"
    path.write_text(COUNTER_GAME)
    assert main(["check", str(path), "--rollback", "8", "--ticks", "30"]) == 1
    out = capsys.readouterr().out
    assert "not rollback deterministic: tick 1, re-simulated after rolling back 8 ticks at tick 8" in out
    assert "Ticket (id 1): number 1 vs 9" in out
    assert "list a plain attribute that is state in its class's `saved`" in out


def test_tickswap_check_rollback_passes_a_sample(capsys):
    assert main(["check", "pong", "--rollback", "8", "--ticks", "40"]) == 0
    assert "rollback deterministic: rolling back 8 ticks" in capsys.readouterr().out


def test_tickswap_check_refuses_a_rollback_longer_than_its_ticks(capsys):
    assert main(["check", "pong", "--rollback", "100", "--ticks", "50"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("tickswap: --rollback 100 rolls back further than --ticks 50 runs: no tick would be re-simulated "
                   "(give --ticks 100 or more)")


@pytest.mark.parametrize("bad", ["0", "-1", "eight"])
def test_tickswap_check_refuses_a_bad_rollback_distance(bad, usage_error):
    err = usage_error(["check", "pong", "--rollback", bad])
    assert "argument --rollback" in err and bad in err


class Walker(Entity):
    """Counts its steps in a plain attribute that is not in ``saved``: a rollback cannot take it back."""

    x = buffered(0.0)

    def __init__(self) -> None:
        super().__init__()
        self.steps = 0

    def update(self, world: World) -> None:
        self.steps += 1
        self.x = float(self.steps)


class SavedWalker(Walker):
    saved = ("steps",)


def test_a_plain_attribute_not_in_saved_is_named_with_what_to_do():
    with pytest.raises(AssertionError) as failed:
        assert_rollback_deterministic(lambda world: world.spawn(Walker()), ticks=20, distance=3, inputs=None)
    message = str(failed.value)
    assert "tick 1, re-simulated after rolling back 3 ticks at tick 3" in message
    assert "Walker (id 1): x 1.0 vs 4.0" in message and "`saved`" in message


def test_listing_the_attribute_in_saved_makes_it_rollback_deterministic():
    result = check_rollback(lambda world: world.spawn(SavedWalker()), ticks=20, distance=3, inputs=None)
    assert result.ok, result.describe()


def test_a_distance_longer_than_the_run_is_refused_and_a_failing_tick_is_reported():
    class Fails(Entity):
        def update(self, world: World) -> None:
            if world.tick_count == 4:
                raise RuntimeError("boom")

    # It once said "rolling back 9 ticks ... agreed for 5 ticks", having rolled back none.
    with pytest.raises(ValueError, match="distance 9 is more than ticks 5: no tick would be rolled back"):
        check_rollback(lambda world: world.spawn(Walker()), ticks=5, distance=9, inputs=None)
    assert not check_rollback(lambda world: world.spawn(Walker()), ticks=5, distance=5, inputs=None).ok, \
        "a distance as long as the run rolls back once: the walker's plain attribute is found"
    result = check_rollback(lambda world: world.spawn(Fails()), ticks=10, distance=2, inputs=None)
    assert not result.ok and "the game failed at tick 5" in result.describe() and "boom" in result.describe()
    line = next(number for number, text in enumerate(Path(__file__).read_text().splitlines(), 1) if 'raise RuntimeError("boom")' in text)
    assert f"(at {__file__}:{line} in update)" in result.describe(), result.describe()


@pytest.mark.parametrize(("name", "value"), [("ticks", 0), ("distance", 0), ("distance", True)])
def test_bad_arguments_are_refused_by_name(name, value):
    with pytest.raises(ValueError, match=name):
        check_rollback(lambda world: None, **{name: value})
