"""The old Pong's tests, as a user wrote them with tickswap 0.2: kept unchanged (warnings allowed)."""

import subprocess
import sys
from pathlib import Path

import pong  # type: ignore[import-not-found]  # beside this file: the old game, found as 0.2's users ran it

from engine import World, keys

HERE = Path(__file__).parent


def tickswap(*arguments, cwd=HERE):
    done = subprocess.run([sys.executable, "-m", "engine.tools.cli", *arguments], cwd=cwd, capture_output=True,
                          text=True, check=True)
    return done.stdout


def printed_state(out):
    return out.split("state ", 1)[1][:16]


def test_w_moves_the_left_paddle_up(world):
    pong.build(world)
    left = world.entities_of(pong.Paddle)[0]
    world.input_queue.press(keys.W)
    for _ in range(10):
        world.tick()
    assert left.y == pong.HEIGHT / 2 + 50


def test_the_ball_hits_a_paddle_with_a_sound(world):
    pong.build(world)
    hits = []
    for _ in range(200):
        world.tick()
        hits += [request for request in world.take_sounds() if request.sound == pong.HIT]
    assert hits, "the ball reaches a paddle within 200 ticks"


def test_a_point_is_scored_and_heard(world):
    pong.build(world)
    world.input_queue.press(keys.UP)          # the right paddle goes away: the left side scores
    heard = []
    for _ in range(400):
        world.tick()
        heard += world.take_sounds()
    score = world.entities_of(pong.Score)[0]
    assert score.points[0] >= 1
    assert pong.SCORE in [request.sound for request in heard]


def test_a_test_hashes_as_python_pong_py_does():
    with World(seed=0) as world:
        pong.build(world)
        for _ in range(300):
            world.tick()
        out = subprocess.run([sys.executable, "pong.py", "--ticks", "300"], cwd=HERE, capture_output=True,
                             text=True, check=True).stdout
        assert world.state_hash()[:16] == printed_state(out)


def test_a_save_made_in_a_test_loads_on_the_command_line(tmp_path):
    save = tmp_path / "pong.json"
    with World(seed=0) as world:
        pong.build(world)
        for _ in range(100):
            world.tick()
        world.save(save)
        for _ in range(50):
            world.tick()
        expected = world.state_hash()[:16]
    assert printed_state(tickswap("run", "pong.py", "--ticks", "50", "--load", str(save))) == expected
