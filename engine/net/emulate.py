"""A bad network on demand, from a seed: loss, delay, jitter, duplicates, reordering, damage and rebinding.

Rollback netcode is only tested when packets go missing, arrive late, twice, out of order
or damaged. ``EmulatedTransport`` wraps a transport and does that to every datagram it
*sends* (each side emulates its own outgoing link, so two peers with different settings
make an asymmetric link): a datagram is dropped with probability ``loss``; one bit of it
is flipped with probability ``flip``, and it is cut short (to a random length) with
probability ``truncate``; otherwise it is held for ``delay_ms`` plus a uniform jitter in
``[-jitter_ms, +jitter_ms]`` (never below zero), sent twice with probability
``duplicate``, and with probability ``reorder`` held ``REORDER_MS`` longer (at least
``delay_ms`` more) so that later datagrams overtake it. With ``rebind_ms`` the transport's
source port changes, as a home router's NAT does when it drops a mapping: at seeded
moments, on average every ``rebind_ms`` (each wait drawn from half to one and a half of
it), counted from ``arm_rebinding()`` (a session calls it when play starts: a host that
moved in its lobby would strand the joiners still to come). Datagrams sent to the old
port are lost, as they are behind a real NAT.

Every choice comes from a ``random.Random(seed)`` and every due time from the injected
``clock`` (``engine.clock``'s protocol): the same seed, the same sends and the same clock
readings give the same schedule, so a test on a ``VirtualClock`` sees exactly what
happened. Held datagrams wait in a bounded heap (``held_limit``; past it a datagram is
dropped and counted, as a router's full queue would) and go out when due, at ``flush()``,
which ``send`` and ``receive`` also call.

``MemoryNetwork`` is the wire for tests in one process: its transports deliver to each
other at once, by address, with no socket; put an ``EmulatedTransport`` on each to make
the links bad. Several sessions on one ``VirtualClock`` then play a whole game,
lobby included, in a fraction of a second and the same way every time.
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass

from engine.clock import Clock, RealClock
from engine.messages import shown
from engine.net.checks import MAX_DATAGRAM
from engine.net.transport import Address, Transport, TransportError

__all__ = ["MAX_DELAY_MS", "MIN_REBIND_MS", "REORDER_MS", "EmulatedTransport", "Emulation", "MemoryNetwork",
           "MemoryTransport"]

MAX_DELAY_MS = 10_000.0
"""The longest delay or jitter an ``Emulation`` may add, in milliseconds."""
REORDER_MS = 30.0
"""How much longer a reordered datagram is held (at least), in milliseconds."""
HELD_LIMIT = 4096
"""The most datagrams an ``EmulatedTransport`` holds by default."""
MIN_REBIND_MS = 50.0
"""The shortest mean time between two rebindings (a NAT that rebinds faster than a round trip is no NAT)."""


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
    flip: float = 0.0
    """The share of datagrams with one bit flipped (at a random place)."""
    truncate: float = 0.0
    """The share of datagrams cut short (to a random shorter length)."""
    rebind_ms: float = 0.0
    """The mean time between two changes of the source port, once armed (0: never)."""

    def __post_init__(self) -> None:
        for name in ("loss", "duplicate", "reorder", "flip", "truncate"):
            _check(name, getattr(self, name), 1.0, "a probability from 0 to 1")
        for name in ("delay_ms", "jitter_ms"):
            _check(name, getattr(self, name), MAX_DELAY_MS, f"a time in ms from 0 to {MAX_DELAY_MS:g}")
        _check("rebind_ms", self.rebind_ms, 1e9, "a time in ms (0: never)")
        if 0 < self.rebind_ms < MIN_REBIND_MS:
            raise ValueError(f"Emulation rebind_ms is 0 (never) or at least {MIN_REBIND_MS:g} ms, "
                             f"got {shown(self.rebind_ms)}")
        if type(self.seed) is not int or self.seed < 0:
            raise ValueError(f"Emulation seed is a whole number from 0, got {shown(self.seed)}")

    @property
    def active(self) -> bool:
        """Whether it does anything to a datagram (all zero: a plain transport)."""
        return any((self.loss, self.delay_ms, self.jitter_ms, self.duplicate, self.reorder, self.flip,
                    self.truncate, self.rebind_ms))


def _check(name: str, value: object, high: float, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value)
                                                                              and 0 <= value <= high):
        raise ValueError(f"Emulation {name} is {what}, got {shown(value)}")


class EmulatedTransport:
    """A transport whose outgoing datagrams go through an ``Emulation`` (see the module docstring).

    It is a transport itself: ``address`` (the wrapped transport's, which a rebinding
    changes), ``send``, ``receive``, ``close`` and ``counters`` (the wrapped transport's,
    plus ``emulated_lost``, ``emulated_duplicated``, ``emulated_reordered``,
    ``emulated_flipped``, ``emulated_truncated``, ``emulated_rebinds``, ``held_overflow``
    and ``held``, the datagrams waiting now). ``clock`` is an ``engine.clock.Clock``
    (a ``RealClock`` by default). With ``rebind_ms`` the wrapped transport must have a
    ``rebind()`` (``UdpTransport`` and ``MemoryTransport`` do).
    """

    def __init__(self, transport: Transport, emulation: Emulation, clock: Clock | None = None,
                 held_limit: int = HELD_LIMIT) -> None:
        if not isinstance(emulation, Emulation):
            raise TypeError(f"EmulatedTransport needs an Emulation, got {shown(emulation)}")
        if type(held_limit) is not int or held_limit < 1:
            raise ValueError(f"EmulatedTransport held_limit is a whole number from 1, got {shown(held_limit)}")
        if emulation.rebind_ms and not callable(getattr(transport, "rebind", None)):
            raise TypeError(f"EmulatedTransport can't rebind {shown(transport)}: it has no rebind()")
        self.transport = transport
        self.emulation = emulation
        self._clock = clock if clock is not None else RealClock()
        self._random = random.Random(emulation.seed)
        # The moments of rebinding have a generator of their own: arming it never shifts the datagrams' schedule.
        self._rebinds = random.Random(f"rebind {emulation.seed}")
        self._next_rebind: float | None = None
        self._held: list[tuple[float, int, bytes, Address]] = []
        self._order = 0  # ties in due time go out in the order they were sent
        self._held_limit = held_limit
        self._counts = dict.fromkeys(("emulated_lost", "emulated_duplicated", "emulated_reordered", "emulated_flipped",
                                      "emulated_truncated", "emulated_rebinds", "held_overflow"), 0)

    def _now(self) -> float:
        return self._clock.now_ns() / 1e9

    def arm_rebinding(self) -> None:
        """Start the rebinding clock (with ``rebind_ms``; nothing otherwise): the first change is drawn from now."""
        if self.emulation.rebind_ms and self._next_rebind is None:
            self._next_rebind = self._now() + self._rebind_wait()

    def _rebind_wait(self) -> float:
        return self._rebinds.uniform(0.5, 1.5) * self.emulation.rebind_ms / 1000.0

    def _rebind_due(self, now: float) -> None:
        if self._next_rebind is not None and now >= self._next_rebind:
            self.transport.rebind()  # type: ignore[attr-defined]
            self._counts["emulated_rebinds"] += 1
            self._next_rebind = now + self._rebind_wait()

    @property
    def address(self) -> Address:
        """The wrapped transport's address."""
        return self.transport.address

    @property
    def counters(self) -> dict[str, int]:
        """The wrapped transport's counters with this emulation's (a new dict each time)."""
        return {**self.transport.counters, **self._counts, "held": len(self._held)}

    def send(self, data: bytes, to: Address) -> bool:
        """Drop, damage, hold, duplicate or reorder ``data`` as the emulation says, then send what is due.

        Returns whether the datagram was kept (held or sent), not whether the network took it.
        Nine random draws per datagram, whatever the settings, so a schedule depends only on the seed.
        """
        emulation = self.emulation
        lost, twice, late, flipped, cut, where, length = (self._random.random() for _ in range(7))
        jitters = [self._random.uniform(-emulation.jitter_ms, emulation.jitter_ms) for _ in range(2)]
        if lost < emulation.loss:
            self._counts["emulated_lost"] += 1
            self.flush()
            return False
        if flipped < emulation.flip and data:
            bit = int(where * len(data) * 8)
            data = data[:bit // 8] + bytes([data[bit // 8] ^ (1 << (bit % 8))]) + data[bit // 8 + 1:]
            self._counts["emulated_flipped"] += 1
        if cut < emulation.truncate and data:
            data = data[:int(length * len(data))]
            self._counts["emulated_truncated"] += 1
        copies = 2 if twice < emulation.duplicate else 1
        self._counts["emulated_duplicated"] += copies - 1
        extra = 0.0
        if late < emulation.reorder:
            self._counts["emulated_reordered"] += 1
            extra = max(REORDER_MS, emulation.delay_ms)
        now = self._now()
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

    def next_due(self) -> float | None:
        """When the earliest held datagram is due, in the clock's seconds (``None``: none held).

        A test on a ``VirtualClock`` with nothing else to do may move the time straight there.
        """
        return self._held[0][0] if self._held else None

    def flush(self) -> int:
        """Send every held datagram whose time has come, earliest first (rebinding first if due); how many went out."""
        now = self._now()
        self._rebind_due(now)
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
            timeout_s = min(timeout_s, self._held[0][0] - self._now())
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


class MemoryTransport:
    """One end of a ``MemoryNetwork``: a transport with no socket (see ``engine.net.transport.Transport``).

    ``send`` puts the datagram in the inbox of the transport bound to ``to`` at once (or
    loses it, counted as ``send_refused``, when nothing is bound there, as a closed UDP
    port does); ``receive`` takes from this one's inbox. ``rebind()`` moves it to a new
    port: what is sent to the old one is lost from then on.
    """

    def __init__(self, network: MemoryNetwork, address: Address) -> None:
        self._network = network
        self._address = address
        self.inbox: list[tuple[bytes, Address]] = []
        self.closed = False
        self.counters: dict[str, int] = dict.fromkeys(("sent", "received", "bytes_sent", "bytes_received",
                                                       "send_refused"), 0)

    def __repr__(self) -> str:
        return f"MemoryTransport({self._address[0]}:{self._address[1]}{', closed' if self.closed else ''})"

    @property
    def address(self) -> Address:
        """Where datagrams for this transport are sent (a rebinding changes the port)."""
        return self._address

    def send(self, data: bytes, to: Address) -> bool:
        """Deliver ``data`` to the transport at ``to`` now; whether one was there to take it."""
        self._check_open()
        if len(data) > MAX_DATAGRAM:
            raise ValueError(f"a datagram of {len(data)} bytes is over the {MAX_DATAGRAM} a transport sends")
        there = self._network.bound.get(to)
        if there is None:
            self.counters["send_refused"] += 1
            return False
        self.counters["sent"] += 1
        self.counters["bytes_sent"] += len(data)
        there.inbox.append((bytes(data), self._address))
        there.counters["received"] += 1
        there.counters["bytes_received"] += len(data)
        return True

    def receive(self, limit: int = 256) -> list[tuple[bytes, Address]]:
        """The datagrams delivered so far, oldest first, at most ``limit``."""
        self._check_open()
        taken, self.inbox = self.inbox[:max(0, limit)], self.inbox[max(0, limit):]
        return taken

    def wait(self, timeout_s: float) -> bool:
        """Whether a datagram is waiting; never waits (a test moves the time itself)."""
        self._check_open()
        return bool(self.inbox)

    def rebind(self) -> None:
        """Move to a new port, as a NAT that forgot its mapping: the old address is free and forgotten."""
        self._check_open()
        self._network.unbind(self)
        self._address = self._network.bind(self, (self._address[0], 0))

    def close(self) -> None:
        """Leave the network (again: nothing); using it after is a ``TransportError``."""
        if not self.closed:
            self.closed = True
            self._network.unbind(self)

    def _check_open(self) -> None:
        if self.closed:
            raise TransportError(f"the memory transport on {self._address[0]}:{self._address[1]} is closed")


class MemoryNetwork:
    """An in-memory wire between ``MemoryTransport`` ends, by address: perfect and instant (emulate on top).

    ``transport(port=0)`` binds a new one (port 0: the next free port from ``first_port``).
    Ports are handed out in order, so the same test binds the same addresses every time.
    """

    def __init__(self, host: str = "127.0.0.1", first_port: int = 40000) -> None:
        self.host = host
        self.bound: dict[Address, MemoryTransport] = {}
        self._next_port = first_port

    def transport(self, port: int = 0) -> MemoryTransport:
        """A new transport bound to ``port`` on this network (0: any free one); a taken port is a ``TransportError``."""
        transport = MemoryTransport(self, (self.host, port))
        transport._address = self.bind(transport, (self.host, port))
        return transport

    def bind(self, transport: MemoryTransport, address: Address) -> Address:
        """Bind ``transport`` at ``address`` (port 0: the next free one); the address it got."""
        if address[1] == 0:
            while (self.host, self._next_port) in self.bound:
                self._next_port += 1
            address = (self.host, self._next_port)
            self._next_port += 1
        if address in self.bound:
            raise TransportError(f"can't listen on {address[0]}:{address[1]}: the address is taken")
        self.bound[address] = transport
        return address

    def unbind(self, transport: MemoryTransport) -> None:
        """Free the address ``transport`` holds."""
        if self.bound.get(transport.address) is transport:
            del self.bound[transport.address]
