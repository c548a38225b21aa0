"""Trace: a record of what a loop did, and when, for tests and for the loop lab.

Every loop accepts ``trace=Trace()`` and records one ``TraceEvent`` per step of its main
loop. Tests assert on the exact sequence; ``timeline()`` prints it as one line of text
that a person can read at a glance (``R0 U16 U31 W40 R40``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

__all__ = ["EventKind", "Trace", "TraceEvent"]

EventKind = Literal["input", "update", "frame", "render", "wait", "behind"]
_KINDS = frozenset(("input", "update", "frame", "render", "wait", "behind"))


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One step of a main loop.

    ``kind`` is one of ``"input"``, ``"update"``, ``"frame"``, ``"render"``, ``"wait"`` and
    ``"behind"``; ``at_ms`` is the clock time when the step began. Updates carry ``tick``
    (1-based number of the tick produced) and ``sim_ms`` (simulated time reached); renders
    carry ``alpha``; waits carry ``ms`` (how long), frames ``ms`` (time covered by the
    frame's updates) and ``behind`` events ``ms`` (how far behind real time the loop fell).
    """

    kind: EventKind
    at_ms: float
    tick: int | None = None
    sim_ms: float | None = None
    alpha: float | None = None
    ms: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"TraceEvent kind must be one of {sorted(_KINDS)}, got {self.kind!r}")


def _fmt(ms: float, decimals: int) -> str:
    text = f"{ms:.{decimals}f}"
    if decimals:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


class Trace:
    """An ordered, optionally bounded record of ``TraceEvent``s.

    ``maxlen`` bounds memory for long runs: only the newest ``maxlen`` events are kept,
    so a game can trace forever. ``None`` keeps everything (tests, short lab runs).
    """

    def __init__(self, maxlen: int | None = None) -> None:
        if maxlen is not None and (isinstance(maxlen, bool) or not isinstance(maxlen, int) or maxlen < 1):
            raise ValueError(f"maxlen must be None or a positive int, got {maxlen!r}")
        self._events: deque[TraceEvent] = deque(maxlen=maxlen)
        self.maxlen = maxlen

    def record(
        self,
        kind: EventKind,
        at_ms: float,
        *,
        tick: int | None = None,
        sim_ms: float | None = None,
        alpha: float | None = None,
        ms: float | None = None,
    ) -> None:
        """Append one event (the oldest is dropped when the trace is full)."""
        self._events.append(TraceEvent(kind, at_ms, tick, sim_ms, alpha, ms))

    def clear(self) -> None:
        """Forget every event recorded so far."""
        self._events.clear()

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(self._events)

    def __len__(self) -> int:
        return len(self._events)

    def __getitem__(self, index: int) -> TraceEvent:
        return self._events[index]

    def kinds(self) -> list[str]:
        """Return the kind of every event, in order: the shape of a run without its times."""
        return [event.kind for event in self._events]

    def of_kind(self, kind: EventKind) -> list[TraceEvent]:
        """Return the events of one kind, in order."""
        return [event for event in self._events if event.kind == kind]

    def timeline(self, until_ms: float | None = None, decimals: int = 0) -> str:
        """Return the run as one line: ``R0 U16 U31 W40 R40 ...``.

        ``R`` is a render at that clock time, ``U`` an update reaching that simulated
        time, ``W`` a wait until that clock time and ``B`` a moment the loop fell behind.
        Input and frame events are left out to keep the line readable. ``until_ms``
        keeps only events that began before that clock time; times are rounded to
        ``decimals`` places (whole milliseconds by default).
        """
        parts = []
        for event in self._events:
            if until_ms is not None and event.at_ms >= until_ms:
                break
            if event.kind == "render":
                parts.append("R" + _fmt(event.at_ms, decimals))
            elif event.kind == "update":
                parts.append("U" + _fmt(event.sim_ms if event.sim_ms is not None else event.at_ms, decimals))
            elif event.kind == "wait":
                parts.append("W" + _fmt(event.at_ms + (event.ms or 0.0), decimals))
            elif event.kind == "behind":
                parts.append("B" + _fmt(event.at_ms, decimals))
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"Trace({len(self)} events, maxlen={self.maxlen})"
