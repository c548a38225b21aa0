"""The towers sample: headless runs, its winning and losing inputs, replays, saves mid-wave, the check, its art.

``games/towers/win.jsonl`` builds towers with the mouse and the buttons and wins the twelfth
wave at tick 6109 with 10 lives left; with no input at all no tower is built and the
fourth wave takes the last life (tick 2011).
"""

from __future__ import annotations

from pathlib import Path

from engine import World
from engine.input import read_input_script
from engine.testing import load_game, load_save, save_game
from engine.tools.cli import main

WIN = Path(str(load_game("towers").module.__file__)).parent / "win.jsonl"
WIN_TICKS = 6109
CROWD = Path(__file__).parent / "towers_crowd.jsonl"
"""A tack beside the road, the shots switched to the crowd (C), the first wave sent at once (N): the tack
fires from tick 70, its volleys rows of the crowd of shots."""


def _played(world: World, script: dict, first: int, last: int) -> None:
    """Ticks ``first`` to ``last`` of ``script`` (tick N's line is what tick N sees)."""
    for tick in range(first, last + 1):
        for event in script.get(tick, []):
            world.input_queue.push(event)
        world.tick()


def _state(out: str) -> str:
    return out.split("state ", 1)[1][:16]


def test_towers_with_no_input_loses_in_the_fourth_wave_and_stops():
    game = load_game("towers")
    with World(seed=0) as world:
        game.setup(world)
        [rules] = world.entities_of(game.module.Game)
        for _ in range(2010):
            world.tick()
        assert (rules.phase, rules.lives, rules.wave) == ("play", 1, 4)
        world.tick()
        assert (rules.phase, rules.lives, rules.wave) == ("over", 0, 4)
        money = rules.money
        for _ in range(50):
            world.tick()
        assert (rules.phase, rules.money) == ("over", money), "over is over: nothing more is sent or earned"
        assert not world.entities_of(game.module.Tower)


def test_the_winning_script_wins_and_a_save_in_the_heavy_wave_plays_on_to_the_same_state(tmp_path):
    game = load_game("towers")
    module = game.module
    script = read_input_script(WIN)
    save = tmp_path / "heavy.json"
    with World(seed=0) as world:
        game.setup(world)
        _played(world, script, 1, 5450)
        [rules] = world.entities_of(module.Game)
        assert rules.wave == 12 and len(world.entities_of(module.Enemy)) > 200 and len(world) > 1500, "mid heavy wave"
        save_game(world, game, str(save))
        _played(world, script, 5451, WIN_TICKS)
        assert (rules.phase, rules.lives) == ("won", 10) and len(world.entities_of(module.Tower)) > 40
        straight = world.state_hash()
    with load_save(game, str(save)) as loaded:
        assert loaded.tick_count == 5450
        _played(loaded, script, 5451, WIN_TICKS)
        assert loaded.state_hash() == straight
        assert loaded.entities_of(module.Game)[0].phase == "won"


def test_towers_replays_and_a_save_mid_wave_loads_to_the_straight_run_s_hash(tmp_path, capsys):
    recording, save = tmp_path / "towers.replay", tmp_path / "at450.json"
    assert main(["run", "towers", "--ticks", "900", "--input", str(WIN), "--record", str(recording),
                 "--save-at", "450", str(save)]) == 0
    straight = _state(capsys.readouterr().out)
    assert main(["replay", str(recording)]) == 0
    replayed = capsys.readouterr().out
    assert "900 ticks of towers" in replayed and "all match" in replayed
    assert main(["run", "towers", "--ticks", "450", "--input", str(WIN), "--load", str(save)]) == 0
    assert _state(capsys.readouterr().out) == straight


def test_the_crowd_script_fires_volleys_into_the_crowd_of_shots():
    game = load_game("towers")
    units = __import__(game.module.Enemy.__module__, fromlist=["Shots"])
    script = read_input_script(CROWD)
    with World(seed=0) as world:
        game.setup(world)
        [shots] = world.entities_of(units.Shots)
        _played(world, script, 1, 69)
        assert shots.count == 0
        _played(world, script, 70, 70)
        assert shots.count == 8, "a tack's volley: eight rows, joined after the tick"
        _played(world, script, 71, 200)
        [rules] = world.entities_of(game.module.Game)
        assert rules.crowd_shots and shots.count > 8 and not world.entities_of(units.Shot)


def test_towers_passes_tickswap_check_in_orders_rollback_and_saves_with_entity_and_crowd_shots(capsys):
    assert main(["check", "towers", "--ticks", "450", "--orders", "2", "--input", str(WIN), "--hash-seeds", "0"]) == 0
    assert main(["check", "towers", "--ticks", "200", "--orders", "2", "--input", str(CROWD), "--hash-seeds", "0"]) == 0
    assert main(["check", "towers", "--ticks", "200", "--rollback", "8", "--input", str(CROWD), "--saves", "2",
                 "--hash-seeds", "0"]) == 0
    assert main(["check", "towers", "--ticks", "150", "--rollback", "8", "--saves", "2", "--hash-seeds", "0"]) == 0
    out = capsys.readouterr().out
    assert out.count("order independent") == 2 and out.count("rollback deterministic") == 2
    assert out.count("same after a save and a load") == 4


def test_towers_runs_headless_with_frames_and_a_screenshot(tmp_path, capsys):
    shot = tmp_path / "towers.png"
    assert main(["run", "towers", "--headless", "--frames", "30", "--screenshot", str(shot)]) == 0
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_heavy_wave_the_bench_times_has_its_enemies_and_shots_in_both_modes():
    module = load_game("towers").module
    units = __import__(module.Enemy.__module__, fromlist=["Shot"])
    for crowd in (False, True):
        with World(seed=0) as world:
            rules = module.heavy_wave(world, crowd)
            for _ in range(40):
                world.tick()
            shots = world.entities_of(units.Shots)[0].count if crowd else len(world.entities_of(units.Shot))
            assert rules.wave == 12 and rules.crowd_shots is crowd
            assert len(world.entities_of(units.Enemy)) > 300 and 1500 < shots < 3000

