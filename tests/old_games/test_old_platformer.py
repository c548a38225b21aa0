"""The old platformer's tests, as a user wrote them with tickswap 0.2: kept unchanged (warnings allowed)."""

import subprocess
import sys
from pathlib import Path

import platformer  # type: ignore[import-not-found]  # beside this file: the old game, found as 0.2's users ran it

from engine import World, keys
from engine.testing import assert_order_independent

HERE = Path(__file__).parent


def tickswap(*arguments, cwd=HERE):
    done = subprocess.run([sys.executable, "-m", "engine.tools.cli", *arguments], cwd=cwd, capture_output=True,
                          text=True, check=True)
    return done.stdout


def printed_state(out):
    return out.split("state ", 1)[1][:16]


def hero_of(world):
    return world.entities_of(platformer.Hero)[0]


def test_the_hero_lands_on_the_ground(world):
    platformer.build(world)
    for _ in range(60):
        world.tick()
    assert hero_of(world).y == 46 and hero_of(world).on_ground


def test_space_jumps_and_plays_the_jump_sound(world):
    platformer.build(world)
    for _ in range(60):
        world.tick()
    world.take_sounds()
    world.input_queue.press(keys.SPACE)
    world.tick()
    assert hero_of(world).vy > 0
    sounds = world.take_sounds()
    assert [request.sound for request in sounds] == [platformer.JUMP]
    assert sounds[0].tick == 61


def test_running_right_collects_a_coin_with_its_sound(world):
    platformer.build(world)
    world.input_queue.press(keys.RIGHT)
    for _ in range(40):
        world.tick()
    director = world.entities_of(platformer.Director)[0]
    assert director.coins == 1
    assert platformer.COIN in [request.sound for request in world.take_sounds()]


def test_the_platformer_does_not_depend_on_update_order():
    assert_order_independent(platformer.build, ticks=200)


def test_a_test_hashes_as_tickswap_run_does():
    with World(seed=0) as world:
        platformer.build(world)
        for _ in range(120):
            world.tick()
        assert world.state_hash()[:16] == printed_state(tickswap("run", "platformer.py", "--ticks", "120"))


def test_a_save_made_on_the_command_line_loads_in_a_test(tmp_path):
    save = tmp_path / "at60.json"
    straight = printed_state(tickswap("run", "platformer.py", "--ticks", "90", "--save-at", "60", str(save)))
    with World.load(save) as world:
        for _ in range(30):
            world.tick()
        assert world.state_hash()[:16] == straight
