"""FixedStepLoop: state tables on a VirtualClock, in the way Bevy tests its fixed timestep."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import FixedStepLoop, GameLoop, VirtualClock
from engine.loops import Trace


class Recorder:
    """Update and render callbacks that remember what they were handed."""

    def __init__(self) -> None:
        self.updates = 0
        self.alphas: list[float] = []

    def update(self) -> None:
        self.updates += 1

    def render(self, alpha: float) -> None:
        self.alphas.append(alpha)


def make_loop(clock, **kwargs):
    recorder = Recorder()
    loop = FixedStepLoop(recorder.update, recorder.render, clock=clock, **kwargs)
    return loop, recorder


def test_game_loop_is_the_fixed_step_loop():
    assert GameLoop is FixedStepLoop


def test_state_table_lag_and_alpha_after_each_advance(clock):
    loop, recorder = make_loop(clock, ms_per_update=40)
    expected = [  # (ticks, lag_ms, alpha) after each 10 ms frame
        (0, 10, 0.25), (0, 20, 0.5), (0, 30, 0.75), (1, 0, 0.0),
        (1, 10, 0.25), (1, 20, 0.5), (1, 30, 0.75), (2, 0, 0.0),
    ]
    for ticks, lag_ms, alpha in expected:
        clock.advance(10)
        loop.frame()
        assert (loop.ticks, loop.lag_ms, recorder.alphas[-1]) == (ticks, lag_ms, alpha)
    assert recorder.updates == loop.ticks == 2
    assert loop.frames == len(recorder.alphas) == 8


def test_first_frame_counts_only_the_time_since_construction(clock):
    clock.advance(1000)
    loop, recorder = make_loop(clock, ms_per_update=40)
    clock.advance(50)
    loop.frame()
    assert (loop.ticks, loop.lag_ms) == (1, 10)


def test_a_frame_can_run_several_updates_to_catch_up(clock):
    loop, recorder = make_loop(clock, ms_per_update=40)
    clock.advance(130)
    loop.frame()
    assert (loop.ticks, loop.lag_ms, recorder.alphas) == (3, 10, [0.25])
    assert loop.frame_updates == 3


def test_a_long_stall_hits_the_cap_then_solo_play_drops_the_debt(clock):
    trace = Trace()
    loop, recorder = make_loop(clock, ms_per_update=40, max_updates_per_frame=5, trace=trace)
    clock.advance(1000)
    loop.frame()
    assert loop.ticks == 5
    assert recorder.alphas[-1] == 1.0
    assert loop.lag_ms == 40
    assert loop.dropped_ms == 760
    assert trace.of_kind("behind")[0].ms == 760
    clock.advance(10)
    loop.frame()  # catches up the one step it kept, then is back in real time
    assert (loop.ticks, loop.lag_ms, recorder.alphas[-1]) == (6, 10, 0.25)
    assert loop.dropped_ms == 760


def test_lockstep_keeps_the_time_debt_and_works_it_off_over_later_frames(clock):
    loop, recorder = make_loop(clock, ms_per_update=40, max_updates_per_frame=5, keep_time_debt=True)
    clock.advance(1000)
    loop.frame()
    assert (loop.ticks, loop.lag_ms, recorder.alphas[-1]) == (5, 800, 1.0)
    table = [(10, 10, 610, 1.0), (10, 15, 420, 1.0), (10, 20, 230, 1.0), (10, 25, 40, 1.0), (10, 26, 10, 0.25)]
    for advance, ticks, lag_ms, alpha in table:
        clock.advance(advance)
        loop.frame()
        assert (loop.ticks, loop.lag_ms, recorder.alphas[-1]) == (ticks, lag_ms, alpha)
    assert loop.ticks == math.floor(1050 / 40)
    assert loop.dropped_ms == 0
    assert all(alpha <= 1.0 for alpha in recorder.alphas)


def test_no_cap_runs_every_owed_update_in_one_frame(clock):
    loop, _ = make_loop(clock, ms_per_update=40, max_updates_per_frame=None)
    clock.advance(1000)
    loop.frame()
    assert (loop.ticks, loop.lag_ms, loop.dropped_ms) == (25, 0, 0)


def test_on_frame_gets_the_time_the_frames_updates_covered(clock):
    covered: list[float] = []
    loop, _ = make_loop(clock, ms_per_update=40, on_frame=covered.append)
    for advance in (10, 30, 100, 0):
        clock.advance(advance)
        loop.frame()
    assert covered == [0.0, 40.0, 80.0, 0.0]


def test_order_within_a_frame_is_input_updates_hook_render(clock):
    calls: list[str] = []
    trace = Trace()
    loop = FixedStepLoop(
        lambda: calls.append("update"),
        lambda alpha: calls.append("render"),
        ms_per_update=40,
        process_input=lambda: calls.append("input"),
        on_frame=lambda ms: calls.append("frame"),
        clock=clock,
        trace=trace,
    )
    clock.advance(85)
    loop.frame()
    assert calls == ["input", "update", "update", "frame", "render"]
    assert trace.kinds() == calls
    updates = trace.of_kind("update")
    assert [(event.tick, event.sim_ms) for event in updates] == [(1, 40.0), (2, 80.0)]
    assert trace.of_kind("render")[0].alpha == pytest.approx(5 / 40)


def test_without_interpolation_render_always_gets_one(clock):
    loop, recorder = make_loop(clock, ms_per_update=40, interpolate=False)
    for _ in range(5):
        clock.advance(10)
        loop.frame()
    assert recorder.alphas == [1.0] * 5
    assert loop.ticks == 1


def test_paused_loop_renders_but_neither_updates_nor_accumulates_lag(clock):
    loop, recorder = make_loop(clock, ms_per_update=40)
    clock.advance(30)
    loop.frame()
    loop.paused = True
    clock.advance(500)
    loop.frame()
    assert (loop.ticks, loop.lag_ms, len(recorder.alphas)) == (0, 30, 2)
    loop.step()
    assert (loop.ticks, recorder.updates, loop.lag_ms) == (1, 1, 30)
    loop.paused = False
    clock.advance(10)
    loop.frame()
    assert (loop.ticks, loop.lag_ms) == (2, 0)


def test_step_refuses_to_run_while_the_loop_is_running(clock):
    loop, _ = make_loop(clock)
    with pytest.raises(RuntimeError, match="paused"):
        loop.step()


@pytest.mark.parametrize(("scale", "advance", "ticks"), [(0.5, 80, 1), (2.0, 20, 1), (0.0, 1000, 0), (0.25, 1000, 6)])
def test_time_scale_speeds_up_or_slows_down_game_time(clock, scale, advance, ticks):
    loop, _ = make_loop(clock, ms_per_update=40, max_updates_per_frame=None)
    loop.time_scale = scale
    clock.advance(advance)
    loop.frame()
    assert loop.ticks == ticks


def test_slow_motion_carries_fractions_of_a_nanosecond(clock):
    loop, _ = make_loop(clock, ms_per_update=40)
    loop.time_scale = 1 / 3
    for _ in range(3):
        clock.advance_ns(1)
        loop.frame()
    assert loop.lag_ms * 1_000_000 == pytest.approx(1)


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf, "fast"])
def test_time_scale_refuses_bad_values(clock, bad):
    loop, _ = make_loop(clock)
    with pytest.raises((ValueError, TypeError), match="time_scale"):
        loop.time_scale = bad
    assert loop.time_scale == 1.0


class SettableClock:
    """A custom clock a test can set to any reading, including backwards."""

    def __init__(self) -> None:
        self.ns = 0

    def now_ns(self) -> int:
        return self.ns

    def now_ms(self) -> float:
        return self.ns / 1e6

    def sleep_ms(self, ms: float) -> None:
        self.ns += max(1, round(ms * 1e6))


def test_a_clock_jumping_backwards_costs_nothing_and_the_game_carries_on():
    clock = SettableClock()
    loop, recorder = make_loop(clock, ms_per_update=40)
    clock.ns = 100_000_000
    loop.frame()
    assert loop.ticks == 2
    clock.ns = 20_000_000  # an hour's worth of negative time would be just as harmless
    loop.frame()
    assert (loop.ticks, loop.lag_ms) == (2, 20)
    clock.ns = 40_000_000
    loop.frame()
    assert (loop.ticks, loop.lag_ms) == (3, 0)  # 20 ms owed from before the jump, 20 since
    assert all(0 <= alpha <= 1 for alpha in recorder.alphas)


def test_a_clock_jumping_forwards_by_hours_costs_at_most_the_cap(clock):
    loop, _ = make_loop(clock, max_updates_per_frame=5)
    clock.advance(3 * 3600 * 1000)
    loop.frame()
    assert loop.ticks == 5
    assert loop.dropped_ms == 3 * 3600 * 1000 - 6 * 15.625
    clock.advance(15.625)
    loop.frame()
    assert loop.ticks == 7 and loop.lag_ms == 0


@pytest.mark.parametrize("reading", [math.nan, math.inf, "12"])
def test_a_clock_returning_nonsense_is_refused_by_name(reading):
    class BadClock(SettableClock):
        def __repr__(self) -> str:
            return "BadClock()"

        def now_ns(self):
            return reading

    with pytest.raises((ValueError, TypeError), match=r"BadClock\(\)\.now_ns\(\)"):
        FixedStepLoop(lambda: None, lambda alpha: None, clock=BadClock())


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"ms_per_update": 0}, ValueError, "ms_per_update.*0"),
        ({"ms_per_update": -15.0}, ValueError, "ms_per_update.*-15.0"),
        ({"ms_per_update": math.nan}, ValueError, "ms_per_update.*nan"),
        ({"ms_per_update": math.inf}, ValueError, "ms_per_update.*inf"),
        ({"ms_per_update": "16"}, TypeError, "ms_per_update.*'16'"),
        ({"ms_per_update": True}, TypeError, "ms_per_update.*True"),
        ({"ms_per_update": 1e-9}, ValueError, "ms_per_update.*nanosecond"),
        ({"max_updates_per_frame": 0}, ValueError, "max_updates_per_frame.*0"),
        ({"max_updates_per_frame": -2}, ValueError, "max_updates_per_frame.*-2"),
        ({"max_updates_per_frame": 2.5}, TypeError, "max_updates_per_frame.*2.5"),
        ({"max_fps": 0}, ValueError, "max_fps.*0"),
        ({"on_frame": 3}, TypeError, "on_frame.*3"),
        ({"process_input": "keys"}, TypeError, "process_input.*'keys'"),
        ({"clock": object()}, TypeError, "clock"),
        ({"trace": []}, TypeError, "trace.*\\[\\]"),
    ],
)
def test_bad_arguments_are_refused_with_a_message_naming_them(kwargs, error, words):
    with pytest.raises(error, match=words):
        FixedStepLoop(lambda: None, lambda alpha: None, **kwargs)


@pytest.mark.parametrize("position", ["update", "render"])
def test_callbacks_must_be_callable(position):
    args: dict[str, Any] = {"update": lambda: None, "render": lambda alpha: None}
    args[position] = 42
    with pytest.raises(TypeError, match=f"{position} must be callable, got 42"):
        FixedStepLoop(args["update"], args["render"])


def test_run_for_a_number_of_frames(clock):
    loop, recorder = make_loop(clock, ms_per_update=40, on_frame=lambda ms: clock.advance(10))
    assert loop.run(frames=8) == 8
    assert (loop.frames, loop.ticks) == (8, 1)


def test_run_until_a_clock_time_with_max_fps_pacing(clock):
    trace = Trace()
    loop, recorder = make_loop(clock, max_fps=60, trace=trace)
    assert loop.run(until=1000) == 60
    assert loop.ticks == math.floor(59 * (1000 / 60) / 15.625)
    waits = trace.of_kind("wait")
    assert len(waits) == 60
    assert clock.now_ms() == pytest.approx(1000, abs=1e-5)


def test_run_until_a_predicate(clock):
    loop, _ = make_loop(clock, ms_per_update=40, on_frame=lambda ms: clock.advance(10))
    loop.run(until=lambda: loop.ticks >= 3)
    assert loop.ticks == 3


def test_stop_from_a_callback_ends_run_after_that_frame(clock):
    holder: list[FixedStepLoop] = []

    def render(alpha: float) -> None:
        clock.advance(10)
        if holder[0].frames == 4:
            holder[0].stop()

    loop = FixedStepLoop(lambda: None, render, clock=clock)
    holder.append(loop)
    assert loop.run() == 5


def test_run_on_a_clock_nobody_advances_raises_instead_of_hanging(clock):
    loop, _ = make_loop(clock)
    with pytest.raises(RuntimeError, match="did not move"):
        loop.run(until=1000)


@pytest.mark.parametrize("bad", [-1, 2.5, "ten"])
def test_run_refuses_a_bad_frame_count(clock, bad):
    loop, _ = make_loop(clock)
    with pytest.raises(ValueError, match="frames"):
        loop.run(frames=bad)


@settings(max_examples=200, deadline=None)
@given(
    step_us=st.integers(min_value=1, max_value=50_000),
    durations_us=st.lists(st.integers(min_value=0, max_value=200_000), max_size=60),
)
def test_without_a_cap_ticks_are_total_time_over_step_and_alpha_stays_below_one(step_us, durations_us):
    clock = VirtualClock()
    loop, recorder = make_loop(clock, ms_per_update=step_us / 1000, max_updates_per_frame=None)
    total = 0
    for duration in durations_us:
        clock.advance_ns(duration * 1000)
        total += duration * 1000
        loop.frame()
        assert loop.ticks == total // (step_us * 1000)
        assert 0.0 <= recorder.alphas[-1] < 1.0


def test_an_hour_at_sixty_frames_a_second_does_not_drift_by_a_tick(clock):
    loop, _ = make_loop(clock, max_updates_per_frame=None)
    for _ in range(60 * 3600):
        clock.advance(1000 / 60)
        loop.frame()
    assert loop.ticks == 3600 * 64
    assert loop.sim_ms == 3_600_000.0
