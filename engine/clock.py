"""Clocks: where a loop gets its time from.

Time is always injected. A loop never calls ``time.perf_counter`` itself; it asks the
clock it was given. ``RealClock`` reads the machine's monotonic counter; ``VirtualClock``
only moves when told to, so tests (and the loop lab) can run a game loop through any
timing scenario, instantly and identically every time.

Both keep time as integer nanoseconds: adding 16.666... ms a million times in floating
point drifts, adding integers does not.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Protocol, runtime_checkable

__all__ = ["Clock", "RealClock", "VirtualClock", "checked_ms", "ms_to_ns"]

NS_PER_MS = 1_000_000
MAX_MS = 1e15
"""The longest duration a clock accepts, in ms (about 31,700 years): beyond it nanoseconds overflow a float."""


def checked_ms(name: str, value: float, zero_allowed: bool = False) -> float:
    """``value`` as a float number of milliseconds, > 0 (or >= 0): a world's step and a tick's elapsed time.

    ``ValueError`` otherwise, naming ``name`` and the value (a bool, NaN or infinity is no duration).
    """
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
            or value < 0 or (value == 0 and not zero_allowed)):
        bound = ">= 0" if zero_allowed else "> 0"
        raise ValueError(f"{name} must be a finite number of milliseconds {bound}, got {value!r}")
    return float(value)


def ms_to_ns(ms: float, name: str = "ms") -> int:
    """Convert a finite, non-negative duration in milliseconds to whole nanoseconds.

    Raises ``ValueError`` naming ``name`` for NaN, infinite or negative values and
    ``TypeError`` for anything that is not a real number, so callers can pass their own
    argument name and the user sees which value was wrong.
    """
    if isinstance(ms, bool) or not isinstance(ms, (int, float)):
        raise TypeError(f"{name} must be a number of milliseconds, got {ms!r}")
    if not math.isfinite(ms) or ms < 0:
        raise ValueError(f"{name} must be a finite, non-negative number of milliseconds, got {ms!r}")
    if ms > MAX_MS:
        raise ValueError(f"{name} must be at most {MAX_MS:g} milliseconds, got {ms!r}")
    return round(ms * NS_PER_MS)


@runtime_checkable
class Clock(Protocol):
    """What a loop needs from a clock: the time, and a way to wait.

    Implement this to drive a loop from any time source (a network clock, a recording).
    ``now_ns`` must return an ``int``; loops reject NaN and clamp readings that go
    backwards, so a misbehaving clock can stall a game but never corrupt it.
    """

    def now_ns(self) -> int:
        """Return the current time in integer nanoseconds."""
        ...

    def now_ms(self) -> float:
        """Return the current time in milliseconds."""
        ...

    def sleep_ms(self, ms: float) -> None:
        """Wait ``ms`` milliseconds (a virtual clock advances instead)."""
        ...


class RealClock:
    """The machine's monotonic time, with precise waits.

    ``time_source`` returns integer nanoseconds (``time.perf_counter_ns`` by default);
    pass your own to test code that uses a real clock, as pyglet's ``Clock`` allows.
    A source that reads backwards (a buggy driver, a VM migration) is clamped: this clock
    repeats its last reading rather than letting time run backwards for a loop.

    ``sleep_ms`` sleeps until ``spin_ms`` before the deadline, then spins on the time
    source: operating-system sleeps overshoot by up to a millisecond or more, which is a
    visible stutter at 60 frames a second. ``spin_ms=0`` never spins (saves CPU).
    """

    def __init__(
        self,
        time_source: Callable[[], int] = time.perf_counter_ns,
        *,
        spin_ms: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not callable(time_source):
            raise TypeError(f"time_source must be callable, got {time_source!r}")
        self._source = time_source
        self._spin_ns = ms_to_ns(spin_ms, "spin_ms")
        self._sleep = sleep
        self._last_ns = int(time_source())

    def now_ns(self) -> int:
        """Return the time in nanoseconds, never less than the previous reading."""
        now = int(self._source())
        if now < self._last_ns:
            return self._last_ns
        self._last_ns = now
        return now

    def now_ms(self) -> float:
        """Return the time in milliseconds, never less than the previous reading."""
        return self.now_ns() / NS_PER_MS

    def sleep_ms(self, ms: float) -> None:
        """Block for ``ms`` milliseconds: OS sleep for most of it, then spin to the deadline."""
        if not ms > 0:
            return
        deadline = self.now_ns() + max(1, round(ms * NS_PER_MS))
        coarse = deadline - self._spin_ns - self.now_ns()
        if coarse > 0:
            self._sleep(coarse / 1e9)
        while self.now_ns() < deadline:
            pass

    def __repr__(self) -> str:
        return f"RealClock(now_ms={self.now_ms():.3f})"


class VirtualClock:
    """A clock that moves only when told to: the testing tool for anything time-driven.

    ``advance(ms)`` moves time forward; ``sleep_ms(ms)`` advances instead of blocking, so
    a loop that waits on this clock runs instantly. Fractions of a nanosecond are carried
    over between calls, so advancing by ``1000 / 60`` an hour's worth of times lands on
    the hour, not 72 microseconds past it. Any positive advance moves time by at least
    one nanosecond: a loop waiting for a deadline can never spin on a wait that rounds
    to zero.

    >>> clock = VirtualClock()
    >>> clock.advance(12.5)
    >>> clock.now_ms()
    12.5
    """

    def __init__(self, start_ms: float = 0.0) -> None:
        self._ns = ms_to_ns(start_ms, "start_ms")
        self._carry = 0.0

    def now_ns(self) -> int:
        """Return the virtual time in integer nanoseconds."""
        return self._ns

    def now_ms(self) -> float:
        """Return the virtual time in milliseconds."""
        return self._ns / NS_PER_MS

    def advance(self, ms: float) -> None:
        """Move time forward by ``ms`` milliseconds; negative, NaN or infinite is a ``ValueError``."""
        if isinstance(ms, bool) or not isinstance(ms, (int, float)):
            raise TypeError(f"VirtualClock.advance: ms must be a number, got {ms!r}")
        if not math.isfinite(ms) or ms < 0:
            raise ValueError(
                f"VirtualClock.advance: ms must be finite and >= 0 (time never runs backwards), got {ms!r}"
            )
        if ms > MAX_MS:
            raise ValueError(f"VirtualClock.advance: ms must be at most {MAX_MS:g} (about 31,700 years), got {ms!r}")
        if ms == 0:
            return
        exact = ms * NS_PER_MS + self._carry
        whole = max(1, math.floor(exact))
        self._carry = exact - whole
        self._ns += whole

    def advance_ns(self, ns: int) -> None:
        """Move time forward by a whole number of nanoseconds (exact; no carry involved)."""
        if isinstance(ns, bool) or not isinstance(ns, int):
            raise TypeError(f"VirtualClock.advance_ns: ns must be an int, got {ns!r}")
        if ns < 0:
            raise ValueError(f"VirtualClock.advance_ns: ns must be >= 0 (time never runs backwards), got {ns!r}")
        self._ns += ns

    def sleep_ms(self, ms: float) -> None:
        """Advance by ``ms`` instead of blocking; zero or negative waits do nothing."""
        if isinstance(ms, (int, float)) and not isinstance(ms, bool) and ms > 0:
            self.advance(min(ms, MAX_MS) if math.isfinite(ms) else ms)
        elif not isinstance(ms, (int, float)) or isinstance(ms, bool) or math.isnan(ms):
            raise ValueError(f"VirtualClock.sleep_ms: ms must be a number, got {ms!r}")

    def __repr__(self) -> str:
        return f"VirtualClock(now_ms={self.now_ms()!r})"
