"""What every benchmark family shares: the interleaved timer, the patrolling entity, the path line.

Each family (``world``, ``render``, ``frame``, ``collisions``, ``loop``, ``crowd``) measures
its own figures, but all of them time cases the same way (``measure``: rounds interleaved,
medians reported, so a noisy neighbour slows both sides alike), report the same rows, and
several walk the same Skeleton of Game Programming Patterns (``Patroller``, and
``PlainPatroller``, the same update on a plain object). Kept here so the families agree.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

from engine.entity import Entity

__all__ = ["Patroller", "PlainPatroller", "Rows", "measure", "nothing", "patrol", "tick_path", "verdict"]

Rows = list[tuple[str, float, float, str]]
"""A benchmark's figures: rows of (case, milliseconds, ratio, target)."""


def verdict(ratio: float, limit: float, *, at_least: bool = False, words: str = "") -> str:
    """A row's target, said with whether this run met it: ``ok, within target <= 1.3x ...`` or ``OVER target ...``
    (``UNDER target >= 1.0x ...`` where ``at_least``), so a missed target is never read as a met one."""
    met = ratio >= limit if at_least else ratio <= limit
    sign = ">=" if at_least else "<="
    word = "ok, within" if met else ("UNDER" if at_least else "OVER")
    if at_least and met:
        word = "ok, at"
    return f"{word} target {sign} {limit:g}x{' ' + words if words else ''}"


def patrol(self: Any, world: Any) -> None:
    """Walk one step; turn round at 0 and 100 (the Skeleton of Game Programming Patterns)."""
    step = -1 if self.patrolling_left else 1
    self.x += step
    if self.x <= 0:
        self.patrolling_left = False
    elif self.x >= 100:
        self.patrolling_left = True


class Patroller(Entity):
    """The benchmark's Skeleton: walks between 0 and 100 and back."""

    def __init__(self, x: float = 0) -> None:
        super().__init__(x=x)
        self.patrolling_left = False

    update = patrol


class PlainPatroller:
    """The same update on a plain object: the floor the World is measured against."""

    def __init__(self, x: float = 0) -> None:
        self.x = x
        self.y = 0.0
        self.patrolling_left = False

    update = patrol


def measure(cases: dict[str, Callable[[], Any]], rounds: int,
            clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    """Run each case once per round, interleaved, and return median seconds per case.

    ``clock`` is wall-clock time by default; ``time.thread_time`` counts only this thread's
    CPU time, so on a busy machine a long case is not charged for the other work that
    preempts it (the collisions family, whose cases differ a hundredfold in length).
    """
    times: dict[str, list[float]] = {name: [] for name in cases}
    gc.collect()
    for _ in range(rounds):
        for name, case in cases.items():
            start = clock()
            case()
            times[name].append(clock() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def tick_path() -> str:
    """Which Double Buffer runs the tick: the compiled core or the pure-Python fallback."""
    import platform

    from engine.buffering import ACCELERATED

    path = "compiled core (engine.buffering._core)" if ACCELERATED else "pure Python (no core, or TICKSWAP_PURE=1)"
    return f"path: {path}, Python {platform.python_version()}"


def nothing(*args: Any) -> None:
    """The empty update and render of the loop benchmark."""

