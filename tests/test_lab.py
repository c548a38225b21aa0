"""The loop lab runs headless, and its table has every loop."""

from __future__ import annotations

import argparse
from typing import cast

import pytest

from engine.loops import LOOPS
from engine.tools.cli import main
from engine.tools.lab import MACHINES, BallScenario, GameScenario, Machine, format_report, run_lab


def test_the_lab_table_has_every_loop_and_a_timeline_for_each(capsys):
    assert main(["lab", "--seconds", "0.5", "--machine", "spiky", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    table, timelines = out.split("first 100 ms")
    rows = [line.split()[0] for line in table.splitlines()[3:] if line.strip()]
    assert rows == list(LOOPS)
    assert [line.split()[0] for line in timelines.splitlines()[1:] if line.strip()] == list(LOOPS)
    assert "R0" in timelines


def test_the_lab_shows_fixed_steps_exact_and_variable_steps_drifting():
    reports = {r.loop: r for r in run_lab(BallScenario, MACHINES["fast"], seconds=1)}
    assert reports["fixed"].versus_exact == "identical"
    assert reports["gated"].versus_exact == "identical"
    assert reports["variable"].versus_exact.startswith("off by")


def test_interpolation_trails_by_one_tick_and_extrapolation_is_on_time_for_constant_motion():
    reports = {r.loop: r for r in run_lab(BallScenario, Machine(update_ms=0.5, render_ms=2.0), seconds=1)}
    interp_mean, interp_sd = reports["fixed"].draw_lag_ms[False]
    extrap_mean, extrap_sd = reports["fixed"].draw_lag_ms[True]
    # Interpolation: one tick behind (the spread is the start-up, before the first tick).
    assert interp_mean == pytest.approx(15.625, abs=1.0) and interp_sd < 1.5
    assert abs(extrap_mean) < 1.0
    max_fps_mean, max_fps_sd = reports["max-fps"].draw_lag_ms[False]
    assert max_fps_sd > 3.0 and max_fps_sd > 2 * interp_sd, "without interpolation the drawn motion saws"


def test_a_slow_machine_slows_the_constant_rate_game_but_not_the_fixed_step_one():
    reports = {r.loop: r for r in run_lab(BallScenario, MACHINES["slow"], seconds=1)}
    assert reports["constant"].game_ms < 0.7 * reports["constant"].real_ms
    assert reports["fixed"].game_ms > 0.95 * reports["fixed"].real_ms - 16


def test_the_same_seed_gives_the_same_lab_run():
    first = format_report(run_lab(BallScenario, MACHINES["spiky"], seconds=0.5))
    second = format_report(run_lab(BallScenario, MACHINES["spiky"], seconds=0.5))
    assert first == second


def test_a_sample_game_runs_in_the_lab_and_fixed_steps_stay_deterministic():
    reports = {r.loop: r for r in run_lab(lambda: GameScenario("patrol"), MACHINES["fast"], seconds=0.3)}
    assert {reports[loop].versus_exact for loop in ("constant", "max-fps", "fixed", "gated")} == {"identical"}
    variable = reports["variable"]
    # Each frame is one tick covering the frame's real elapsed time: game time keeps to real time.
    assert abs(variable.game_ms - variable.real_ms) < 20
    assert variable.versus_exact != "identical"


COMET = """
from engine import Entity


class Comet(Entity):
    SPEED = 0.125  # units per ms

    def update(self, world):
        self.x += self.SPEED * world.ms_per_update * world.speed_factor


def build(world):
    world.spawn(Comet())
"""


@pytest.fixture
def comet(write_game):
    return str(write_game("comet.py", COMET))


def test_the_variable_loop_ticks_an_entity_game_with_the_frames_elapsed_time(comet):
    scenarios = []

    def scenario():
        scenarios.append(GameScenario(comet))
        return scenarios[-1]

    reports = {r.loop: r for r in run_lab(scenario, MACHINES["fast"], seconds=2)}
    variable = reports["variable"]
    world = scenarios[list(reports).index("variable")].world
    assert variable.ticks == world.tick_count > 300
    assert variable.game_ms == pytest.approx(variable.real_ms, abs=10), "not 6x real time"
    (comet_entity,) = world.entities
    assert comet_entity.x == pytest.approx(0.125 * variable.game_ms)
    assert not variable.versus_exact.startswith("game time"), "the world's game time is the loop's"
    assert variable.versus_exact != "identical"
    assert reports["fixed"].versus_exact == "identical"


class OneTickPerFrame(GameScenario):
    """The old lab's mistake: every update one fixed tick, whatever its elapsed time."""

    def step(self, elapsed_ms):
        super().step(self.ms_per_update)


def test_the_lab_never_calls_a_run_identical_whose_game_time_differs(comet):
    reports = {r.loop: r for r in run_lab(lambda: OneTickPerFrame(comet), MACHINES["fast"], seconds=2)}
    variable = reports["variable"]
    ticked_ms = variable.ticks * 15.625
    assert variable.versus_exact == f"game time {ticked_ms:.0f} ms vs {variable.game_ms:.0f} ms"
    assert ticked_ms > 5 * variable.real_ms
    assert reports["fixed"].versus_exact == "identical"


def test_the_lab_refuses_a_game_scenario_built_for_another_step(comet):
    with pytest.raises(ValueError, match="15.625"):
        run_lab(lambda: GameScenario(comet, ms_per_update=10.0), MACHINES["fast"], seconds=0.1)


def test_the_lab_command_prints_game_time_for_a_game_file(comet, capsys):
    assert main(["lab", comet, "--machine", "fast", "--seconds", "1"]) == 0
    table = capsys.readouterr().out.split("first 100 ms")[0]
    rows = {line.split()[0]: line for line in table.splitlines() if line.strip()}
    assert rows["fixed"].endswith("identical")
    assert not rows["variable"].endswith("identical")


def test_make_loop_hands_the_variable_loop_elapsed_time_to_a_tick_that_takes_it(clock):
    from engine.loops import make_loop

    handed: list[object] = []
    loop = make_loop("variable", lambda elapsed_ms=None: handed.append(elapsed_ms),
                     lambda alpha: clock.advance(10), ms_per_update=15.625, clock=clock,
                     process_input=lambda: None)
    loop.run(frames=3)
    assert handed == [0.0, 10.0, 10.0]
    ticked: list[str] = []
    loop = make_loop("variable", lambda: ticked.append("tick"), lambda alpha: clock.advance(10),
                     ms_per_update=15.625, clock=clock, process_input=lambda: None)
    loop.run(frames=2)
    assert ticked == ["tick", "tick"], "a tick that takes no elapsed time still ticks once a frame"


def test_make_loop_refuses_an_unknown_name_and_a_max_fps_the_loop_does_not_take(clock):
    from engine.loops import make_loop

    with pytest.raises(ValueError, match="unknown loop 'turbo'; the loops are constant, variable, max-fps, fixed, gated"):
        make_loop("turbo", lambda: None, lambda alpha: None, ms_per_update=10, clock=clock)
    with pytest.raises(ValueError, match="max_fps paces the fixed-step loops; the 'gated' loop"):
        make_loop("gated", lambda: None, lambda alpha: None, ms_per_update=10, clock=clock, max_fps=30)
    assert make_loop("max-fps", lambda: None, lambda alpha: None, ms_per_update=10, clock=clock, max_fps=30).alpha == 0


def test_the_command_line_offers_exactly_the_loops_of_the_table():
    from engine.loops import LOOPS
    from engine.tools.cli.options import build_parser

    subcommands = build_parser()._subparsers
    assert subcommands is not None
    run = cast("dict[str, argparse.ArgumentParser]", subcommands._group_actions[0].choices)["run"]
    loop_option = next(action for action in run._actions if "--loop" in action.option_strings)
    assert loop_option.choices is not None and list(loop_option.choices) == list(LOOPS)


@pytest.mark.parametrize(("argv", "words"), [
    (["lab", "tennis"], "unknown scenario 'tennis'"),
    (["lab", "--update-ms", "0", "--render-ms", "0"], "never lets time pass"),
])
def test_lab_user_errors_exit_2_without_a_traceback(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_a_machine_refuses_negative_costs():
    with pytest.raises(ValueError, match="render_ms.*-1"):
        Machine(render_ms=-1)
