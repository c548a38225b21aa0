"""The loop family: what ``FixedStepLoop`` costs per frame, and how evenly it paces frames.

``loop``: an empty frame against the same lag accumulator written inline.
``pacing``: a real-clock loop presenting at 60 fps, plain ``time.sleep`` against
sleeping then spinning to the deadline (the one benchmark on the real clock).
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable

from engine.tools.bench.base import Rows, measure, nothing

__all__ = ["bench_loop", "bench_pacing"]


def bench_loop(frames: int = 20_000, rounds: int = 15) -> Rows:
    """An empty ``FixedStepLoop.frame()`` against the same lag accumulator written inline."""
    from engine.clock import VirtualClock
    from engine.constants import DEFAULT_MS_PER_UPDATE
    from engine.loops import FixedStepLoop

    clock = VirtualClock()
    loop = FixedStepLoop(nothing, nothing, clock=clock)
    step = round(DEFAULT_MS_PER_UPDATE * 1_000_000)  # the loop's own step, in the inline loop's nanoseconds

    def engine_loop() -> None:
        frame = loop.frame
        advance = clock.advance_ns
        for _ in range(frames):
            advance(4_000_000)
            frame()

    def inline_loop() -> None:
        lag = 0
        last = clock.now_ns()
        now_ns = clock.now_ns
        advance = clock.advance_ns
        for _ in range(frames):
            advance(4_000_000)
            now = now_ns()
            lag += now - last
            last = now
            updates = 0
            while lag >= step and updates < 5:
                nothing()
                lag -= step
                updates += 1
            nothing(lag / step)

    times = measure({"inline": inline_loop, "engine": engine_loop}, rounds)
    return [
        (f"inline lag-accumulator loop, {frames} frames", times["inline"] * 1e3, 1.0, ""),
        (f"FixedStepLoop.frame(), {frames} frames", times["engine"] * 1e3, times["engine"] / times["inline"],
         "<= 2x inline"),
    ]


def bench_pacing(seconds: float = 5.0) -> Rows:
    """A real-clock FixedStepLoop presenting at 60 fps: frame interval error, plain sleep vs spin."""
    from engine.clock import RealClock
    from engine.loops import FixedStepLoop

    target_ms = 1000 / 60
    errors: dict[str, list[float]] = {"sleep": [], "spin": []}
    clocks = {"sleep": RealClock(spin_ms=0.0), "spin": RealClock(spin_ms=1.0)}
    # Alternate one-second runs, so both ways see the same machine load.
    for _ in range(max(1, round(seconds))):
        for name, clock in clocks.items():
            presented: list[int] = []

            def present(alpha: float, times: list[int] = presented) -> None:
                times.append(time.perf_counter_ns())

            loop = FixedStepLoop(nothing, present, max_fps=60, clock=clock)
            loop.run(until=clock.now_ms() + min(1000.0, seconds * 1000))
            errors[name] += [abs((b - a) / 1e6 - target_ms) for a, b in itertools.pairwise(presented)]
    def percentile_99(values: list[float]) -> float:
        return sorted(values)[min(len(values) - 1, int(0.99 * len(values)))]

    rows = []
    picks: tuple[tuple[str, Callable[[list[float]], float]], ...] = (
        ("median", statistics.median), ("99th percentile", percentile_99))
    for statistic, pick in picks:
        plain, spin = pick(errors["sleep"]), pick(errors["spin"])
        rows.append((f"{statistic} |interval - 16.667 ms|, time.sleep only", plain, 1.0, ""))
        rows.append((f"{statistic} |interval - 16.667 ms|, sleep then spin", spin, plain / spin if spin else 0.0,
                     "median <= 0.1 ms" if statistic == "median" else "shared VM: the tail is the host's"))
    return rows
