"""The platformer sample: its rules played tick by tick, its art, and one game in tests and on the command line.

The level (``games/platformer/make_art.py``) is 100 x 15 tiles of 16 px: the grass's top is at
y = 48, so the hero (14 px tall) stands at y = 55; it starts at x = 56. Gaps: x 352-400,
720-784 and 1120-1168; the stairs start at x = 832; spikes at x 544-576; low bricks over
x 224-304 (their underside at y = 80).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine import World, keys
from engine.input import read_input_script
from engine.testing import load_game, load_save
from engine.world import take_music, take_sounds

WIN = Path(__file__).parent / "platformer_win.jsonl"
"""Inputs that play the level through to the flag (found by a small bot, checked here): won at tick 1307."""
WIN_TICKS = 1307
STANDING = 55.0


def platformer_world(start: bool = True):
    """A world of the platformer as `tickswap run platformer` sets it up; with ``start``, Space pressed and play begun."""
    game = load_game("platformer")
    world = World(seed=0)
    game.setup(world)
    module = game.module
    if start:
        world.input_queue.press(keys.SPACE)
        world.tick()
        world.input_queue.release(keys.SPACE)
        world.tick()
    return world, module, world.entities_of(module.Game)[0]


def hero_of(world, module):
    return world.entities_of(module.Hero)[0]


@pytest.fixture
def playing():
    """The platformer started (``platformer_world()``) and its hero: ``(world, module, game, hero)``; closed after."""
    world, module, game = platformer_world()
    with world:
        yield world, module, game, hero_of(world, module)


def put(hero, x: float, y: float = STANDING) -> None:
    """Move the hero between ticks (a jump, not a slide)."""
    hero.x, hero.y, hero.dx, hero.dy = x, y, 0.0, 0.0
    hero.snap()


def run(world, ticks: int, heard: list | None = None) -> None:
    for _ in range(ticks):
        world.tick()
        if heard is not None:
            heard.extend(request.path for request in take_sounds(world))


def test_platformer_title_waits_then_space_starts_play_and_the_music():
    world, module, game = platformer_world(start=False)
    with world:
        run(world, 100)
        assert game.phase == "title" and take_music(world) == [] and hero_of(world, module).y == 56.0
        world.input_queue.press(keys.SPACE)
        run(world, 2)
        assert game.phase == "play" and (game.score, game.lives) == (0, 3)
        [music] = take_music(world)
        assert (music.path, music.loop, music.volume) == (module.MUSIC, True, 0.6)


def test_platformer_the_hero_lands_and_stands_on_the_grass(playing):
    world, module, _, hero = playing
    for _ in range(200):
        world.tick()
    assert (hero.x, hero.y, hero.on_ground, hero.dy) == (56.0, STANDING, True, 0.0)


def test_platformer_the_hero_runs_right_until_a_step_of_the_stairs_stops_it(playing):
    world, module, _, hero = playing
    put(hero, 800.0)
    world.input_queue.press(keys.RIGHT)
    run(world, 5)
    assert hero.x == 810.0 and hero.facing == 1
    run(world, 40)
    assert (hero.x, hero.y, hero.on_ground) == (832.0 - 5.0, STANDING, True), "against the first step"


def test_platformer_falling_into_a_gap_costs_a_life_and_starts_again_at_the_start(playing):
    world, module, game, hero = playing
    put(hero, 376.0)  # over the first gap
    heard: list = []
    run(world, 40, heard)
    assert game.lives == 2 and module.HURT in heard
    assert (hero.x, hero.y) == (56.0, STANDING) and hero.safe > 0


def test_platformer_a_jump_rises_about_three_and_a_half_tiles_with_a_sound(playing):
    world, module, _, hero = playing
    run(world, 10)
    world.input_queue.press(keys.UP)
    heard: list = []
    peak = hero.y
    for _ in range(60):
        world.tick()
        heard.extend(request.path for request in take_sounds(world))
        peak = max(peak, hero.y)
    assert 3.4 * 16 < peak - STANDING < 3.6 * 16
    assert heard == [module.JUMP] and hero.y == STANDING and hero.on_ground


def test_platformer_a_running_jump_lands_on_every_floating_platform():
    world, module, _ = platformer_world()
    with world:
        level = world.entities_of(module.Game)[0].level
        floating = sorted({(tile.column, tile.y) for column in range(level.columns) for row in range(4, level.rows)
                           if (tile := level.tile_at(column * 16 + 8, row * 16 + 8)) is not None and tile.solid
                           and level.tile_at(column * 16 + 8, row * 16 - 8) is None})
        lefts = [column for column, _ in floating if (column - 1, floating[0][1]) not in floating]
        assert lefts == [14, 39, 63, 82], "the left ends of the platforms (the bricks at 63 go on as planks)"
        for column in lefts:
            hero = hero_of(world, module)
            put(hero, column * 16 - 24.0)
            hero.safe = 1000  # no slime in the way
            run(world, 2)
            world.input_queue.press(keys.RIGHT)
            world.input_queue.press(keys.UP)
            run(world, 40)
            world.input_queue.release(keys.RIGHT)
            world.input_queue.release(keys.UP)
            run(world, 2)
            assert (hero.y, hero.on_ground) == (96.0 + 7.0, True), f"on the platform from column {column}"


def test_platformer_a_jump_under_the_bricks_bumps_the_hero_s_head(playing):
    world, module, _, hero = playing
    put(hero, 264.0)
    run(world, 2)
    world.input_queue.press(keys.SPACE)
    peak = hero.y
    for _ in range(40):
        world.tick()
        peak = max(peak, hero.y)
    assert peak == 80.0 - 7.0, "its top stops at the bricks' underside"
    assert hero.y == STANDING


def test_platformer_a_coin_the_hero_touches_adds_ten_chimes_and_goes(playing):
    world, module, game, hero = playing
    coins = world.entities_of(module.Coin)
    coin = coins[0]
    put(hero, coin.x, coin.y)
    heard: list = []
    run(world, 3, heard)
    assert game.score == 10 and not coin.alive and heard.count(module.COIN) == 1
    assert len(world.entities_of(module.Coin)) == len(coins) - 1
    run(world, 10)
    assert game.score == 10, "a coin counts once"


def test_platformer_landing_on_a_slime_stomps_it_and_walking_into_one_hurts(playing):
    world, module, game, hero = playing
    slimes = world.entities_of(module.Slime)
    slime = slimes[0]
    put(hero, slime.x, slime.y + 30)
    heard: list = []
    run(world, 15, heard)
    assert slime.squashed and slime.alive, "flat for half a second"
    run(world, 40, heard)
    assert game.score == 50 and game.lives == 3 and heard.count(module.STOMP) == 1
    assert not slime.alive and len(world.entities_of(module.Slime)) == len(slimes) - 1

    other = world.entities_of(module.Slime)[0]
    put(hero, other.x + 30)
    world.input_queue.press(keys.LEFT)
    run(world, 30, heard)
    assert game.lives == 2 and module.HURT in heard and other.alive


def test_platformer_a_slime_is_stomped_from_any_height_of_the_fall():
    # The stomp is judged where the hero is after its move: from every starting height the
    # fall ends on the slime, never with a hurt.
    for drop in range(12, 60, 3):
        world, module, game = platformer_world()
        with world:
            hero = hero_of(world, module)
            slime = world.entities_of(module.Slime)[0]
            put(hero, slime.x, slime.y + drop)
            run(world, 30)
            assert (game.score, game.lives) == (50, 3), f"dropped from {drop} px above"


def test_platformer_spikes_hurt_a_hero_walking_into_them(playing):
    world, module, game, hero = playing
    put(hero, 520.0)
    world.input_queue.press(keys.RIGHT)
    heard: list = []
    run(world, 30, heard)
    assert game.lives == 2 and module.HURT in heard and hero.x < 520.0


def test_platformer_a_running_jump_over_the_spikes_before_the_bricks_lands_safe_from_any_take_off():
    # Spikes at x 960-992, low bricks from x 1008: a short jump lands between them, a long one on the bricks.
    for take_off in range(926, 958, 3):  # up to the last take-off whose first step stays clear of them
        world, module, game = platformer_world()
        with world:
            hero = hero_of(world, module)
            for slime in world.entities_of(module.Slime):
                world.despawn(slime)  # spikes only
            put(hero, float(take_off))
            run(world, 2)
            world.input_queue.press(keys.RIGHT)
            world.input_queue.press(keys.UP)
            run(world, 36)
            world.input_queue.release(keys.RIGHT)
            run(world, 30)
            assert game.lives == 3 and hero.x > 992 and hero.on_ground, f"took off at {take_off}"


def test_platformer_no_lives_left_is_game_over_and_r_starts_afresh():
    world, module, game = platformer_world()
    with world:
        coins, slimes = len(world.entities_of(module.Coin)), len(world.entities_of(module.Slime))
        hero = hero_of(world, module)
        coin = world.entities_of(module.Coin)[0]
        put(hero, coin.x, coin.y)
        run(world, 4)
        take_music(world)
        for _ in range(3):
            hero = hero_of(world, module)
            hero.safe = 0
            put(hero, 376.0)
            run(world, 40)
        assert game.phase == "over" and game.lives == 0 and game.score == 10
        assert [request.path for request in take_music(world)] == [None], "the music stops"
        world.input_queue.press(keys.RIGHT)
        run(world, 20)
        assert hero_of(world, module).x == 56.0, "nobody moves after the game is over"
        world.input_queue.release(keys.RIGHT)
        world.input_queue.press(keys.R)
        run(world, 2)
        assert game.phase == "play" and (game.score, game.lives) == (0, 3)
        assert (len(world.entities_of(module.Coin)), len(world.entities_of(module.Slime))) == (coins, slimes)
        assert len(world.entities_of(module.Hero)) == 1 and hero_of(world, module).x == 56.0
        assert [request.path for request in take_music(world)] == [module.MUSIC]


def test_platformer_touching_the_flag_wins_and_stops_the_music(playing):
    world, module, game, hero = playing
    goal = world.entities_of(module.Goal)[0]
    put(hero, goal.x - 20)
    take_music(world)
    world.input_queue.press(keys.RIGHT)
    run(world, 12)
    assert game.phase == "won" and game.lives == 3
    assert [request.path for request in take_music(world)] == [None]


def test_platformer_plays_with_a_pad_d_pad_stick_a_and_start():
    world, module, game = platformer_world(start=False)
    with world:
        world.input_queue.press(keys.PAD_START)
        run(world, 2)
        assert game.phase == "play"
        hero = hero_of(world, module)
        run(world, 10)
        world.input_queue.press(keys.PAD_RIGHT)
        run(world, 10)
        assert hero.x == 56.0 + 20
        world.input_queue.release(keys.PAD_RIGHT)
        world.input_queue.stick(0, -0.5, 0.0)
        run(world, 10)
        assert hero.x == 56.0 + 10 and hero.facing == -1
        world.input_queue.stick(0, 0.0, 0.0)
        world.input_queue.press(keys.PAD_A)
        run(world, 10)
        assert hero.y > STANDING + 30 and not hero.on_ground


def _played(world, script: dict, first: int, last: int) -> None:
    """Ticks ``first`` to ``last`` of ``script`` (tick N's line is what tick N sees)."""
    for tick in range(first, last + 1):
        for event in script.get(tick, []):
            world.input_queue.push(event)
        world.tick()


def _command_line(*args: str) -> str:
    """The state hash `tickswap run` prints, from a process of its own."""
    out = subprocess.run([sys.executable, "-m", "engine.tools.cli", "run", *args], capture_output=True, text=True,
                         check=True).stdout
    return out.split("state ", 1)[1][:16]


def test_the_winning_script_wins_in_a_test_with_the_command_line_s_hash_and_saves_cross_over(tmp_path):
    script = read_input_script(WIN)
    save = tmp_path / "at600.json"
    printed = _command_line("platformer", "--ticks", str(WIN_TICKS), "--input", str(WIN),
                            "--save-at", "600", str(save))
    game = load_game("platformer")
    with World(seed=0) as world:
        game.setup(world)
        _played(world, script, 1, WIN_TICKS)
        module = game.module
        match = world.entities_of(module.Game)[0]
        assert match.phase == "won" and match.lives == 3 and match.score > 0
        assert world.state_hash()[:16] == printed
    with load_save(game, str(save)) as world:
        assert world.tick_count == 600
        _played(world, script, 601, WIN_TICKS)
        assert world.state_hash()[:16] == printed


def test_by_name_and_by_path_the_platformer_is_one_game():
    # `tickswap run platformer` imports games.platformer.logic; `tickswap run games/platformer/logic.py`
    # loads the same file under another module name. Classes are named by where their file lies
    # (games.platformer.logic.Hero both ways), so the two snapshots are one.
    import json

    script = read_input_script(WIN)
    snapshots = []
    for name in ("platformer", "games/platformer/logic.py"):
        with World(seed=0) as world:
            load_game(name).setup(world)
            _played(world, script, 1, 400)
            snapshots.append(json.dumps(world.snapshot(), sort_keys=True, default=str))
    by_name, by_path = snapshots
    assert '"games.platformer.logic.Hero"' in by_name
    assert by_name == by_path


def _state(out: str) -> str:
    return out.split("state ", 1)[1][:16]


def test_the_platformer_passes_tickswap_check_with_its_own_keys_and_with_the_winning_script(capsys):
    from engine.tools.cli import main

    assert main(["check", "platformer", "--ticks", "400", "--orders", "2"]) == 0
    assert main(["check", "platformer", "--ticks", str(WIN_TICKS), "--orders", "1", "--input", str(WIN)]) == 0
    assert capsys.readouterr().out.count("order independent") == 2


def test_the_platformer_replays_and_a_save_loads_to_the_straight_run_s_hash(tmp_path, capsys):
    from engine.tools.cli import main

    recording, save = tmp_path / "win.replay", tmp_path / "at600.json"
    assert main(["run", "platformer", "--ticks", str(WIN_TICKS), "--input", str(WIN), "--record", str(recording),
                 "--save-at", "600", str(save)]) == 0
    straight = _state(capsys.readouterr().out)
    assert main(["replay", str(recording)]) == 0
    capsys.readouterr()
    assert main(["run", "platformer", "--ticks", str(WIN_TICKS - 600), "--input", str(WIN), "--load", str(save)]) == 0
    assert _state(capsys.readouterr().out) == straight
