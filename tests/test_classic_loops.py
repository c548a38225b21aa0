"""The other classic loops, on a VirtualClock whose callbacks spend fixed costs."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from engine import FixedStepLoop, VirtualClock
from engine.loops import ConstantRateLoop, FrameRate, RenderGatedLoop, Trace, VariableStepLoop
from engine.tools.lab import BallScenario, Machine, lab_loop


def costly(clock: VirtualClock, update_ms: float, render_ms: float):
    """Update and render callbacks that spend fixed time on the clock."""
    log: list[tuple[str, float]] = []

    def update(*elapsed: float) -> None:
        log.append(("update", clock.now_ms()))
        clock.advance(update_ms)

    def render(alpha: float) -> None:
        log.append(("render", alpha))
        clock.advance(render_ms)

    return update, render, log


def events(trace: Trace) -> list[tuple]:
    return [(e.kind, e.at_ms, e.ms if e.kind in ("wait", "behind", "frame") else e.alpha if e.kind == "render"
             else e.sim_ms if e.kind == "update" else None) for e in trace]


# -- constant rate ----------------------------------------------------------------------

def _two_frames_at_25_fps(clock: VirtualClock, update_ms: float) -> tuple[ConstantRateLoop, Trace]:
    """A 25 fps constant-rate loop whose update takes ``update_ms`` and render 3 ms, after two frames, and its trace."""
    update, render, _ = costly(clock, update_ms, 3)
    trace = Trace()
    loop = ConstantRateLoop(update, render, fps=25, clock=clock, trace=trace)
    loop.frame()
    loop.frame()
    return loop, trace


def test_constant_rate_updates_renders_then_sleeps_until_the_next_tick(clock):
    loop, trace = _two_frames_at_25_fps(clock, 5)
    assert events(trace) == [
        ("input", 0.0, None), ("update", 0.0, 40.0), ("frame", 5.0, 40.0), ("render", 5.0, 1.0), ("wait", 8.0, 32.0),
        ("input", 40.0, None), ("update", 40.0, 80.0), ("frame", 45.0, 40.0), ("render", 45.0, 1.0),
        ("wait", 48.0, 32.0),
    ]
    assert clock.now_ms() == 80.0 and (loop.ticks, loop.frames) == (2, 2)


def test_constant_rate_records_behind_when_a_frame_is_late_and_the_game_slows_down(clock):
    loop, trace = _two_frames_at_25_fps(clock, 50)
    assert [e for e in events(trace) if e[0] in ("wait", "behind")] == [("behind", 53.0, 13.0), ("behind", 106.0, 13.0)]
    assert loop.behind_ms == 26.0
    assert loop.ticks == 2, "one update per frame: game time (80 ms) fell behind real time (106 ms)"


# -- variable step ----------------------------------------------------------------------

def test_frame_rate_speed_factor_and_fps():
    rate = FrameRate(100)
    rate.tick(1000 / 85)
    assert rate.speed_factor == pytest.approx(100 / 85)
    assert rate.fps == pytest.approx(85)
    rate.tick(0)
    assert (rate.speed_factor, rate.fps) == (1.0, 100)
    rate.tick(-3)
    assert rate.speed_factor == 1.0


def test_variable_step_hands_update_the_real_elapsed_time(clock):
    seen: list[float] = []
    trace = Trace()

    def update(elapsed_ms: float) -> None:
        seen.append(elapsed_ms)
        clock.advance(2)

    loop = VariableStepLoop(update, lambda alpha: clock.advance(8), target_fps=100, clock=clock, trace=trace)
    clock.advance(10)
    loop.frame()
    loop.frame()
    assert seen == [10.0, 10.0]
    assert loop.rate.speed_factor == 1.0 and loop.rate.fps == 100
    assert loop.sim_ms == 20.0 and loop.sim_ns == 20_000_000
    assert trace.kinds() == ["input", "update", "frame", "render"] * 2


def test_variable_step_is_not_deterministic_across_frame_rates():
    positions = {}
    for fps in (30, 60, 144, 240):
        clock = VirtualClock()
        ball = BallScenario()
        loop = VariableStepLoop(ball.step, lambda alpha: None, clock=clock)
        for _ in range(fps * 2):
            clock.advance(1000 / fps)
            loop.frame()
        assert loop.sim_ns == 2_000_000_000 or abs(loop.sim_ns - 2_000_000_000) <= 1
        positions[fps] = ball.x
    assert len(set(positions.values())) > 1, f"float drift should differ by frame rate: {positions}"
    exact = float(Fraction(BallScenario.SPEED) * 2000)
    assert any(x != exact for x in positions.values())


# -- fixed step: determinism --------------------------------------------------------------

@pytest.mark.parametrize("interpolate", [True, False])
def test_fixed_step_state_is_bit_identical_at_30_60_144_and_240_fps(interpolate):
    states = {}
    for fps in (30, 60, 144, 240):
        clock = VirtualClock()
        ball = BallScenario()
        recorded: list[str] = []
        loop_holder: list[FixedStepLoop] = []

        def update() -> None:
            ball.step(15.625)
            if loop_holder[0].ticks + 1 == 128:
                recorded.append(ball.state())

        loop = FixedStepLoop(update, lambda alpha: None, max_fps=fps, interpolate=interpolate, clock=clock)
        loop_holder.append(loop)
        loop.run(until=lambda: loop.ticks >= 128)
        states[fps] = recorded[0]
    assert len(set(states.values())) == 1
    assert float(states[60]) == BallScenario.SPEED * 128 * 15.625


# -- render-gated ---------------------------------------------------------------------------

def test_render_gated_first_frame_renders_the_initial_state_then_renders_at_the_proportion(clock):
    update, render, log = costly(clock, 0, 0)
    trace = Trace()
    loop = RenderGatedLoop(update, render, ms_per_update=10, render_interval_ms=25, clock=clock, trace=trace)
    loop.frame()
    assert (loop.ticks, log) == (0, [("render", 1.0)])
    loop.frame()
    assert loop.ticks == 3 and log[-1] == ("render", 0.5) and clock.now_ms() == 25
    loop.frame()
    assert loop.ticks == 6 and log[-1] == ("render", 0.0) and clock.now_ms() == 50
    assert trace.timeline() == "R0 U10 U20 U30 W25 R25 U40 U50 U60 W50 R50"


def test_render_gated_reads_frame_start_before_the_render_as_the_contract_traces_it(clock):
    update, render, log = costly(clock, 1, 3)
    trace = Trace()
    loop = RenderGatedLoop(update, render, ms_per_update=5, render_interval_ms=16, clock=clock, trace=trace)
    for _ in range(3):
        loop.frame()
    assert trace.timeline() == "R0 U5 U10 U15 U20 W16 R16 U25 U30 U35 W32 R32"
    renders = [value for kind, value in log if kind == "render"]
    assert renders[0] == 1.0, "the first frame renders the initial state"
    assert renders[1] == pytest.approx(0.2), "(16 - 15) / (20 - 15)"
    assert renders[2] == pytest.approx(0.4), "(32 - 30) / (35 - 30)"
    assert loop.render_interval_ms == 16, "a frame with slack never grows the interval"


def test_render_gated_render_that_overruns_grows_the_interval_in_that_same_frame(clock):
    update, render, _ = costly(clock, 1, 20)
    trace = Trace()
    loop = RenderGatedLoop(update, render, ms_per_update=5, render_interval_ms=16, clock=clock, trace=trace)
    loop.frame()  # the very first render takes 20 ms of a 16 ms interval
    assert clock.now_ms() == 20
    assert loop.render_interval_ms == pytest.approx(1.2 * 20), "grown at once, not a frame later"
    loop.frame()  # the frame was due at 16: step past it, then render at once, without waiting
    assert trace.timeline() == "R0 U5 U10 U15 U20 R24"
    assert loop.alpha == pytest.approx(0.2)
    assert loop.render_interval_ms == pytest.approx(1.2 * 20), "24 ms taken by then: not past the grown interval"
    loop.frame()
    # The next frame started at 24 and is due at 24 + 24 = 48; the 20 ms render and the
    # updates up to sim 50 (six, 1 ms each) end at 50. The update ending at 49 overran the
    # 24 ms interval (25 ms taken): it grew to 30 there, and the last one fit in that.
    assert trace.timeline() == "R0 U5 U10 U15 U20 R24 U25 U30 U35 U40 U45 U50 R50"
    assert loop.render_interval_ms == pytest.approx(1.2 * 25)


def test_render_gated_update_that_overruns_grows_the_interval_as_soon_as_it_does(clock):
    update, render, _ = costly(clock, 6, 1)
    loop = RenderGatedLoop(update, render, ms_per_update=5, render_interval_ms=10, clock=clock)
    loop.frame()
    assert loop.render_interval_ms == 10
    seen: list[float] = []

    def noted_update() -> None:
        seen.append(loop.render_interval_ms)
        update()

    loop._update = noted_update
    loop.frame()  # frame from 0 due at 10: updates end at 7, 13 (overrun: 1.2 x 13), 19 (1.2 x 19)
    assert seen == [10, 10, pytest.approx(1.2 * 13)], "the update after the overrun already sees it grown"
    assert loop.render_interval_ms == pytest.approx(1.2 * 19)


def test_render_gated_presents_frames_at_even_intervals_when_update_cost_jitters(clock):
    machine = Machine(update_ms=1.0, render_ms=2.0, jitter_ms=0.9, seed=4)
    trace = Trace()
    loop = lab_loop("gated", BallScenario(), machine, clock, trace)
    loop.run(until=2000)
    presented = [e.at_ms for e in trace if e.kind == "render"][1:]
    gaps = [b - a for a, b in itertools.pairwise(presented)]
    assert len(gaps) > 100
    assert max(gaps) - min(gaps) < 1e-5
    assert min(gaps) == pytest.approx(1000 / 60, abs=1e-5)
    updates_per_frame = {e.ms for e in trace if e.kind == "frame"}
    assert len(updates_per_frame) > 1, "the update work varied; the presentation did not"


def test_render_gated_interval_grows_on_overrun_and_comes_back_down(clock):
    render_cost = [30.0]
    loop = RenderGatedLoop(lambda: clock.advance(1), lambda alpha: clock.advance(render_cost[0]),
                           ms_per_update=15.625, clock=clock)
    for _ in range(5):
        loop.frame()
    grown = loop.render_interval_ms
    assert grown >= 1.2 * 30
    render_cost[0] = 2.0
    history = []
    for _ in range(80):
        loop.frame()
        history.append(loop.render_interval_ms)
    assert all(b <= a for a, b in itertools.pairwise(history)), "shrinks monotonically, never overshoots"
    assert history[1] > history[-1]
    assert history[-1] == pytest.approx(1000 / 60, rel=1e-3)


def test_render_gated_never_shrinks_below_what_the_frame_needs(clock):
    trace = Trace()
    loop = RenderGatedLoop(lambda: clock.advance(2), lambda alpha: clock.advance(20),
                           ms_per_update=15.625, clock=clock, trace=trace)
    for _ in range(60):
        loop.frame()
    # The first render (20 ms) grew the interval to 24 at once; a frame is that render plus
    # one or two updates (22 or 24 ms), which never overruns it again, so it stays there and
    # frames are presented evenly, never late.
    assert loop.render_interval_ms == pytest.approx(1.2 * 20)
    presented = [e.at_ms for e in trace if e.kind == "render"][-20:]
    assert {round(b - a, 6) for a, b in itertools.pairwise(presented)} == {24.0}
    assert not any(e.kind == "behind" for e in trace)


def test_render_gated_cap_drops_time_after_a_stall(clock):
    loop = RenderGatedLoop(lambda: None, lambda alpha: None, ms_per_update=10, max_updates_per_frame=3,
                           render_interval_ms=20, clock=clock)
    loop.frame()
    clock.advance(10_000)
    loop.frame()  # the frame that was due at 20 ms, presented late: a stall, not the pace
    assert loop.render_interval_ms == 250.0
    loop.frame()  # owes ten seconds of simulation: three updates, the rest dropped
    assert loop.ticks == 3 + 3
    assert loop.dropped_ms == pytest.approx(10_000 + 250 - 60, abs=0.01)
    assert loop.sim_ms == 60


# -- every loop ------------------------------------------------------------------------------

def tiny_wait_loops(clock):
    noop = lambda *a: None  # noqa: E731
    return [
        ConstantRateLoop(noop, noop, fps=1e9, clock=clock),
        FixedStepLoop(noop, noop, ms_per_update=1e-6, max_fps=1e9, max_updates_per_frame=None, clock=clock),
        RenderGatedLoop(noop, noop, ms_per_update=1e-6, render_interval_ms=1e-6, clock=clock),
    ]


@pytest.mark.parametrize("index", range(3))
def test_no_loop_hangs_on_a_wait_that_rounds_to_zero(index):
    clock = VirtualClock()
    loop = tiny_wait_loops(clock)[index]
    frames = loop.run(until=0.01)
    assert clock.now_ms() >= 0.01 and frames >= 1


@pytest.mark.parametrize("kind", ["constant", "variable", "max-fps", "fixed", "gated"])
def test_stop_and_until_end_run_for_every_loop(kind):
    clock = VirtualClock()
    loop = lab_loop(kind, BallScenario(), Machine(), clock, None)
    loop.run(until=500)
    assert 500 <= clock.now_ms() < 600
    frames_before = loop.frames
    original_render = loop._render  # type: ignore[attr-defined]  # past the Loop protocol, on purpose

    def render_then_stop(alpha: float) -> None:
        original_render(alpha)
        if loop.frames - frames_before == 2:
            loop.stop()

    loop._render = render_then_stop  # type: ignore[attr-defined]  # past the Loop protocol, on purpose
    assert loop.run() == 3


@pytest.mark.parametrize("make", [
    lambda clock: VariableStepLoop(print, lambda alpha: None, clock=clock),
    lambda clock: FixedStepLoop(lambda: None, lambda alpha: None, interpolate=False, clock=clock),
])
def test_loops_without_waits_on_a_frozen_clock_raise_instead_of_hanging(make):
    loop = make(VirtualClock())  # a clock nobody advances
    with pytest.raises(RuntimeError, match="did not move"):
        loop.run(until=1000)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: ConstantRateLoop(print, print, fps=0), "fps.*0"),
        (lambda: ConstantRateLoop(print, print, fps=math.nan), "fps.*nan"),
        (lambda: VariableStepLoop(print, print, target_fps=-1), "target_fps.*-1"),
        (lambda: RenderGatedLoop(print, print, ms_per_update=0), "ms_per_update.*0"),
        (lambda: RenderGatedLoop(print, print, ms_per_update=10, render_interval_ms=math.inf),
         "render_interval_ms.*inf"),
        (lambda: RenderGatedLoop(print, print, ms_per_update=10, max_updates_per_frame=0), "max_updates_per_frame.*0"),
        (lambda: ConstantRateLoop(42, print), "update must be callable, got 42"),  # type: ignore[arg-type]
        (lambda: VariableStepLoop(print, "draw"), "render must be callable, got 'draw'"),  # type: ignore[arg-type]
    ],
)
def test_every_loop_validates_its_arguments_by_name(make, words):
    with pytest.raises((ValueError, TypeError), match=words):
        make()


def test_render_gated_requires_ms_per_update():
    with pytest.raises(TypeError, match="ms_per_update"):
        RenderGatedLoop(print, print)  # type: ignore[call-arg]
