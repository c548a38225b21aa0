"""Sample games: each builds headless, runs deterministically, and documents its command."""

from __future__ import annotations

import importlib
import shlex

import pytest

from engine import World, keys
from engine.files.importer import load_game, sample_games
from engine.tools.cli import main
from engine.world import take_sounds


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
        bolt = world.spawn(Bolt(91, 100, 3.0, 0.0))
        world.tick()  # the bolt's box (6 wide) overlaps the player's (14) at 91 vs 100: hit, despawn
        assert not bolt.alive
        assert player.stunned == 0, "the hit is a signal: seen next tick"
        world.tick()
        assert (player.hits, player.stunned) == (1, Player.STUN_TICKS - 1)
        world.input_queue.press(keys.RIGHT)
        world.tick()
        assert player.x == 100, "a stunned player does not move"


def test_patrol_player_moves_with_the_arrow_keys():
    from engine.input.keys import RIGHT
    from games.patrol.logic import Player

    with World() as world:
        player = world.spawn(Player(x=50, y=50))
        world.input_queue.press(RIGHT)
        for _ in range(5):
            world.tick()
        assert player.x == 60
        world.input_queue.release(RIGHT)
        world.tick()
        assert player.x == 60


def test_the_samples_are_found_through_their_entry_points():
    assert {"bouncy", "comet", "explorer", "framebuffer", "patrol", "platformer", "pong", "slapstick", "swarm"} <= set(sample_games())


def test_comet_bullets_break_rocks_score_shows_as_text_and_hits_ask_for_sounds():
    from games.comet.logic import BANG, SHOT, Rock, Score, Ship, build

    with World(seed=2) as world:
        build(world)
        ship = world.entities_of(Ship)[0]
        score = world.entities_of(Score)[0]
        rock = world.spawn(Rock(ship.x, ship.y + 60, 0.0, 0.0, 2.0))
        world.input_queue.press(keys.SPACE)  # the ship starts facing up, at the rock
        heard: list[str] = []
        for _ in range(20):
            world.tick()
            heard.extend(request.path for request in take_sounds(world))
        assert not rock.alive and score.points >= 10
        assert score.look is not None and score.look.text is not None
        assert score.look is not None and score.look.text is not None
        assert score.look.text.startswith(f"Score {score.points}")
        assert SHOT in heard and BANG in heard
        assert ship.angle == 90.0


def test_comet_the_ship_turns_with_the_arrow_keys():
    from games.comet.logic import Ship

    with World() as world:
        ship = world.spawn(Ship())
        world.input_queue.press(keys.LEFT)
        for _ in range(3):
            world.tick()
        assert ship.angle == 105.0 and ship.draw_angle(0.5) == 102.5


def test_explorer_the_camera_follows_the_player_and_gems_chime():
    from engine import Camera
    from games.explorer.logic import PICKUP, Gem, Player, build

    with World(seed=1) as world:
        build(world)
        player = world.entities_of(Player)[0]
        camera = world.entities_of(Camera)[0]
        gem = world.spawn(Gem(player.x + 40, player.y))
        world.input_queue.press(keys.RIGHT)
        heard: list[str] = []
        for _ in range(60):
            world.tick()
            heard.extend(request.path for request in take_sounds(world))
        assert player.x - 40 < camera.x < player.x, "the camera eases after the player"
        assert not gem.alive and PICKUP in heard


@pytest.mark.parametrize(("sample", "files"), [("pong", 8), ("platformer", 12), ("towers", 15), ("quest", 10)])
def test_a_samples_art_on_disk_is_what_its_script_draws(tmp_path, monkeypatch, sample, files):
    """Each sample's ``make_art.py`` (``engine.art``) rewrites its pictures, sounds and maps byte for byte."""
    art = importlib.import_module(f"games.{sample}.make_art")
    committed = {path.name: path.read_bytes() for path in art.HERE.iterdir()
                 if path.suffix in (".png", ".wav", ".tmj")}
    monkeypatch.setattr(art, "HERE", tmp_path)
    art.main()
    drawn = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    assert drawn == committed and len(drawn) == files


def pong_world(seed: int = 1):
    from games.pong.logic import Ball, Match, Paddle, build

    world = World(seed=seed)
    build(world)
    return world, world.entities_of(Match)[0], world.entities_of(Ball)[0], world.entities_of(Paddle)


def test_pong_the_title_screen_plays_itself_in_silence_until_space_serves():
    world, match, ball, _ = pong_world()
    with world:
        heard = []
        for _ in range(400):
            world.tick()
            heard.extend(take_sounds(world))
        assert match.phase == "title" and heard == [] and ball.x != 320
        world.input_queue.press(keys.SPACE)
        world.tick()
        world.tick()
        assert match.phase == "play" and (match.left_score, match.right_score) == (0, 0)
        assert (ball.x, ball.y, ball.wait) == (320, 240, 48), "a new match serves from the centre after a pause"


def test_pong_paddles_move_with_their_own_keys_and_stop_at_the_rails():
    from games.pong.logic import BOTTOM, PADDLE_SIZE, TOP

    world, match, _, (left, right) = pong_world()
    with world:
        world.input_queue.press(keys.SPACE)
        world.tick()
        world.input_queue.release(keys.SPACE)
        world.input_queue.press(keys.W)
        world.input_queue.press(keys.DOWN)
        for _ in range(5):
            world.tick()
        assert match.phase == "play"
        assert (left.y, right.y) == (240 + 5 * 6, 240 - 5 * 6)
        for _ in range(100):
            world.tick()
        assert (left.y, right.y) == (TOP - PADDLE_SIZE[1] / 2, BOTTOM + PADDLE_SIZE[1] / 2)


def test_pong_a_paddle_sends_the_ball_back_faster_with_a_hit_sound():
    from games.pong.logic import HIT

    world, match, ball, (left, _) = pong_world()
    with world:
        world.input_queue.press(keys.SPACE)
        world.tick()
        world.tick()
        ball.x, ball.y, ball.dx, ball.dy, ball.wait = left.x + 30, left.y, -5.0, 0.0, 0
        heard: list[str] = []
        for _ in range(4):
            world.tick()
            heard.extend(request.path for request in take_sounds(world))
        assert ball.dx == 5.5 and HIT in heard


def test_pong_seven_points_end_the_match_and_r_starts_another():
    from games.pong.logic import SCORE, WIN

    world, match, ball, _ = pong_world()
    with world:
        world.input_queue.press(keys.SPACE)
        world.tick()
        world.input_queue.release(keys.SPACE)
        world.tick()
        heard: list[str] = []
        for point in range(7):
            ball.x, ball.y, ball.dx, ball.dy, ball.wait = 636.0, 240.0, 5.0, 0.0, 0  # about to leave on the right
            world.tick()
            world.tick()
            heard.extend(request.path for request in take_sounds(world))
            assert match.left_score == point + 1
        assert match.phase == "over" and match.right_score == 0
        assert heard.count(SCORE) == 7 and WIN in heard
        world.input_queue.press(keys.R)
        world.tick()
        world.tick()
        assert match.phase == "play" and (match.left_score, match.right_score) == (0, 0)
