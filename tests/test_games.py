"""Sample games: each builds headless, runs deterministically, and documents its command."""

from __future__ import annotations

import shlex

import pytest

from engine.files.game import load_game, sample_games
from engine import World
from engine.tools.cli import main


@pytest.mark.parametrize("name", sorted(sample_games()))
def test_each_game_runs_headless_and_deterministically(name):
    hashes = []
    for _ in range(2):
        with World(seed=7) as world:
            load_game(name).module.build(world)
            for _ in range(300):
                world.tick()
            assert len(world) > 0
            hashes.append(world.state_hash())
    assert hashes[0] == hashes[1]


@pytest.mark.parametrize("name", sorted(sample_games()))
def test_each_game_docstring_ends_with_a_command_that_works(name, capsys):
    doc = load_game(name).module.__doc__
    assert doc
    command = shlex.split(doc.strip().splitlines()[-1])
    assert command[:3] == ["tickswap", "run", name]
    assert main(command[1:]) == 0


def test_patrol_statues_fire_bolts_that_join_after_the_tick_and_leave_again():
    from games.patrol.logic import Bolt, build

    with World(seed=3) as world:
        build(world)
        bolt_counts = []
        for _ in range(400):
            world.tick()
            bolt_counts.append(len(world.entities_of(Bolt)))
        assert max(bolt_counts) >= 1
        assert min(bolt_counts[100:]) < max(bolt_counts[100:]), "bolts must come and go"


def test_patrol_a_bolt_hitting_the_player_stuns_it_and_vanishes():
    from games.patrol.logic import Bolt, Player

    with World() as world:
        player = world.spawn(Player(x=100, y=100))
        bolt = world.spawn(Bolt(90, 100, 3.0, 0.0))
        world.tick()  # bolt moves to 93, sees the player at 100 (committed), hits, despawns
        assert not bolt.alive
        assert player.stunned == 0, "the hit is a signal: seen next tick"
        world.tick()
        assert (player.hits, player.stunned) == (1, Player.STUN_TICKS - 1)
        world.input_queue.press(65363)
        world.tick()
        assert player.x == 100, "a stunned player does not move"


def test_patrol_player_moves_with_the_arrow_keys():
    from games.patrol.logic import RIGHT, Player

    with World() as world:
        player = world.spawn(Player(x=50, y=50))
        world.input_queue.press(RIGHT)
        for _ in range(5):
            world.tick()
        assert player.x == 60
        world.input_queue.release(RIGHT)
        world.tick()
        assert player.x == 60
