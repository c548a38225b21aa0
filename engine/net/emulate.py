"""A bad network on demand: loss, delay, jitter, duplicates and reordering, from a seed.

Rollback netcode is only tested when packets go missing, arrive late, twice, or out of
order. ``EmulatedTransport`` wraps a transport and does that to every datagram it
*sends* (each side emulates its own outgoing link, so two emulated peers make both
directions bad): a datagram is dropped with probability ``loss``; otherwise it is held
for ``delay_ms`` plus a uniform jitter in ``[-jitter_ms, +jitter_ms]`` (never below
zero), sent twice with probability ``duplicate``, and with probability ``reorder`` held
``REORDER_MS`` longer (at least ``delay_ms`` more) so that later datagrams overtake it.

Every choice comes from a ``random.Random(seed)`` and every due time from the injected
``clock``: the same seed, the same sends and the same clock readings give the same
schedule, so a test with a fake clock sees exactly what happened. Held datagrams wait in
a bounded heap (``held_limit``; past it a datagram is dropped and counted, as a router's
full queue would) and go out when due, at ``flush()``, which ``send`` and ``receive``
also call.
"""

from __future__ import annotations

import heapq
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.messages import shown
from engine.net.transport import Address, Transport

__all__ = ["MAX_DELAY_MS", "REORDER_MS", "EmulatedTransport", "Emulation"]

MAX_DELAY_MS = 10_000.0
"""The longest delay or jitter an ``Emulation`` may add, in milliseconds."""
REORDER_MS = 30.0
"""How much longer a reordered datagram is held (at least), in milliseconds."""
HELD_LIMIT = 4096
"""The most datagrams an ``EmulatedTransport`` holds by default."""


@dataclass(frozen=True)
class Emulation:
    """What to do to outgoing datagrams: probabilities from 0 to 1, delays in ms from 0 to ``MAX_DELAY_MS``.

    A wrong value is a ``ValueError`` naming the field, e.g. ``Emulation loss is a probability from 0 to 1``.
    """

    loss: float = 0.0
    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    duplicate: float = 0.0
    reorder: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("loss", "duplicate", "reorder"):
            _check(name, getattr(self, name), 1.0, "a probability from 0 to 1")
        for name in ("delay_ms", "jitter_ms"):
            _check(name, getattr(self, name), MAX_DELAY_MS, f"a time in ms from 0 to {MAX_DELAY_MS:g}")
        if type(self.seed) is not int or self.seed < 0:
            raise ValueError(f"Emulation seed is a whole number from 0, got {shown(self.seed)}")

    @property
    def active(self) -> bool:
        """Whether it does anything to a datagram (all zero: a plain transport)."""
        return any((self.loss, self.delay_ms, self.jitter_ms, self.duplicate, self.reorder))


def _check(name: str, value: object, high: float, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value)
                                                                              and 0 <= value <= high):
        raise ValueError(f"Emulation {name} is {what}, got {shown(value)}")


class EmulatedTransport:
    """A transport whose outgoing datagrams go through an ``Emulation`` (see the module docstring).

    It is a transport itself: ``address``, ``send``, ``receive``, ``close`` and
    ``counters`` (the wrapped transport's, plus ``emulated_lost``, ``emulated_duplicated``,
    ``emulated_reordered``, ``held_overflow`` and ``held``, the datagrams waiting now).
    ``clock`` returns seconds (``time.monotonic`` by default).
    """

    def __init__(self, transport: Transport, emulation: Emulation, clock: Callable[[], float] = time.monotonic,
                 held_limit: int = HELD_LIMIT) -> None:
        if not isinstance(emulation, Emulation):
            raise TypeError(f"EmulatedTransport needs an Emulation, got {shown(emulation)}")
        if type(held_limit) is not int or held_limit < 1:
            raise ValueError(f"EmulatedTransport held_limit is a whole number from 1, got {shown(held_limit)}")
        self.transport = transport
        self.emulation = emulation
        self._clock = clock
        self._random = random.Random(emulation.seed)
        self._held: list[tuple[float, int, bytes, Address]] = []
        self._order = 0  # ties in due time go out in the order they were sent
        self._held_limit = held_limit
        self._counts = dict.fromkeys(("emulated_lost", "emulated_duplicated", "emulated_reordered", "held_overflow"),
                                     0)

    @property
    def address(self) -> Address:
        """The wrapped transport's address."""
        return self.transport.address

    @property
    def counters(self) -> dict[str, int]:
        """The wrapped transport's counters with this emulation's (a new dict each time)."""
        return {**self.transport.counters, **self._counts, "held": len(self._held)}

    def send(self, data: bytes, to: Address) -> bool:
        """Drop, hold, duplicate or reorder ``data`` as the emulation says, then send what is due.

        Returns whether the datagram was kept (held or sent), not whether the network took it.
        Five random draws per datagram, whatever the settings, so a schedule depends only on the seed.
        """
        emulation = self.emulation
        lost, twice, late = (self._random.random() for _ in range(3))
        jitters = [self._random.uniform(-emulation.jitter_ms, emulation.jitter_ms) for _ in range(2)]
        if lost < emulation.loss:
            self._counts["emulated_lost"] += 1
            self.flush()
            return False
        copies = 2 if twice < emulation.duplicate else 1
        self._counts["emulated_duplicated"] += copies - 1
        extra = 0.0
        if late < emulation.reorder:
            self._counts["emulated_reordered"] += 1
            extra = max(REORDER_MS, emulation.delay_ms)
        now = self._clock()
        kept = False
        for copy in range(copies):
            delay_ms = max(0.0, emulation.delay_ms + jitters[copy]) + extra
            if len(self._held) >= self._held_limit:
                self._counts["held_overflow"] += 1
                continue
            heapq.heappush(self._held, (now + delay_ms / 1000.0, self._order, bytes(data), to))
            self._order += 1
            kept = True
        self.flush()
        return kept

    def flush(self) -> int:
        """Send every held datagram whose time has come, earliest first; how many went out."""
        now = self._clock()
        sent = 0
        while self._held and self._held[0][0] <= now:
            _, _, data, to = heapq.heappop(self._held)
            self.transport.send(data, to)
            sent += 1
        return sent

    def receive(self, limit: int = 256) -> list[tuple[bytes, Address]]:
        """Send what is due, then the wrapped transport's waiting datagrams (incoming ones are not emulated)."""
        self.flush()
        return self.transport.receive(limit)

    def wait(self, timeout_s: float) -> bool:
        """Wait for an incoming datagram, at most ``timeout_s`` and no later than the next held one is due.

        Held datagrams go out on time while this waits: the wait stops when the earliest is due,
        sends what is due, and says whether a datagram has arrived.
        """
        if self._held:
            timeout_s = min(timeout_s, self._held[0][0] - self._clock())
        arrived = self.transport.wait(timeout_s)
        self.flush()
        return arrived

    def close(self) -> None:
        """Send every datagram still held, at once and in due order, then close the wrapped transport.

        A held datagram is one already sent, on the emulated wire: a real link delivers it
        after the sender closes its socket. Dropping it instead lost every goodbye a peer
        sent as it left (a ``Bye`` is held ``delay_ms``), so the others waited out their
        disconnect timeout and reported a failure. Only the rest of its delay is skipped.
        """
        while self._held:
            _, _, data, to = heapq.heappop(self._held)
            self.transport.send(data, to)
        self.transport.close()
