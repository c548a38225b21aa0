"""The loop lab runs headless, and its table has every loop."""

from __future__ import annotations

import pytest

from engine.tools.cli import main
from engine.tools.lab import LOOP_NAMES, MACHINES, BallScenario, GameScenario, Machine, format_report, run_lab


def test_the_lab_table_has_every_loop_and_a_timeline_for_each(capsys):
    assert main(["lab", "--seconds", "0.5", "--machine", "spiky", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    table, timelines = out.split("first 100 ms")
    rows = [line.split()[0] for line in table.splitlines()[3:] if line.strip()]
    assert rows == list(LOOP_NAMES)
    assert [line.split()[0] for line in timelines.splitlines()[1:] if line.strip()] == list(LOOP_NAMES)
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


def test_a_sample_game_runs_in_the_lab_and_stays_deterministic():
    reports = run_lab(lambda: GameScenario("patrol"), MACHINES["fast"], seconds=0.3)
    assert {r.versus_exact for r in reports} == {"identical"}
    variable = next(r for r in reports if r.loop == "variable")
    assert variable.game_ms == variable.ticks * 15.625 > variable.real_ms


@pytest.mark.parametrize(("argv", "words"), [
    (["lab", "pong"], "unknown scenario 'pong'"),
    (["lab", "--update-ms", "0", "--render-ms", "0"], "never lets time pass"),
])
def test_lab_user_errors_exit_2_without_a_traceback(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_a_machine_refuses_negative_costs():
    with pytest.raises(ValueError, match="render_ms.*-1"):
        Machine(render_ms=-1)
