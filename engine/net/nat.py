"""Home routers on demand: a NAT emulator on 127.0.0.1, seeded, of the four kinds ICE has to get through.

Two peers behind home routers can only be tested behind home routers. A ``NatBox`` is one
house's router: the peer's sockets (its "inside", made by ``NatBox.make_socket``) reach the
world only through the box, which sends each datagram on from an "outside" port of its own
and lets back only what its kind lets back. Everything is real UDP on 127.0.0.1: the
inside sockets talk to the box's gateway port in a 6-byte envelope (the far address: 4
bytes of IPv4, 2 of port) and hear nothing else, so an inside address is as unreachable
from the world as a private address behind a real router; the outside ports are plain
sockets the world sees. The kinds (RFC 4787's terms):

``full-cone``        one outside port per inside socket; anyone may send to it.
``port-restricted``  one outside port per inside socket; only an address it sent to may answer.
``symmetric``        one outside port per inside socket *and far address*; only that address may answer.
                     Two peers behind symmetric NATs never reach each other directly: a relay is needed.
``rebinding``        ``port-restricted``, but once armed (``arm``: play has started) every mapping moves to
                     a new outside port about every ``rebind_ms`` (seeded), as a router that forgets mappings.

``NatTable`` is the box's logic with no socket (mappings and filters, the time from an
injected clock); ``NatBox`` runs one on real sockets in a thread of its own, so the house
keeps routing while its peer waits on asyncio or on its game. The box keeps a record of
every address it sent to (``destinations``): a test asserts no datagram left 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import os
import random
import select
import socket
import struct
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from engine.clock import Clock, RealClock
from engine.messages import shown

__all__ = ["ENVELOPE", "NAT_KINDS", "GatewaySocket", "NatBox", "NatTable"]

NAT_KINDS = ("full-cone", "port-restricted", "symmetric", "rebinding")
"""The kinds of NAT a ``NatBox`` emulates."""
ENVELOPE = 6
"""The bytes an inside datagram carries to and from the gateway: the far address (IPv4, port)."""
MAX_MAPPINGS = 256
"""The most mappings a box keeps; past it the oldest is forgotten (a router's table is finite too)."""
MAX_PERMITS = 64
"""The most far addresses a mapping remembers having sent to (the others' answers are filtered)."""
_ADDRESS = struct.Struct(">4sH")

Address = tuple[str, int]


def _pack(address: Address) -> bytes:
    return _ADDRESS.pack(ipaddress.IPv4Address(address[0]).packed, address[1])


def _unpack(data: bytes) -> Address:
    raw, port = _ADDRESS.unpack_from(data)
    return str(ipaddress.IPv4Address(raw)), port


@dataclass
class _Mapping:
    key: int
    inside: Address
    permits: OrderedDict[Address, None] = field(default_factory=OrderedDict)


class NatTable:
    """A NAT's mappings and filters, sans-IO: which outside port an inside datagram leaves by, and what may answer.

    An outside port is named by a mapping ``key`` (an int); the owner binds one socket per
    key. ``outbound`` gives the key a datagram leaves by (a new key: the owner opens a new
    outside port), ``inbound`` the inside address a datagram arriving at a key goes to, or
    ``None`` when the filter drops it. ``poll`` moves mappings of a ``rebinding`` NAT and
    returns the keys that are gone (the owner closes their sockets).
    """

    def __init__(self, kind: str, *, clock: Clock | None = None, seed: int = 0, rebind_ms: float = 1000.0) -> None:
        if kind not in NAT_KINDS:
            raise ValueError(f"NAT kind {shown(kind)} is not one of {', '.join(NAT_KINDS)}")
        if isinstance(rebind_ms, bool) or not isinstance(rebind_ms, (int, float)) or not 50 <= rebind_ms <= 1e9:
            raise ValueError(f"NAT rebind_ms is a time in ms from 50, got {shown(rebind_ms)}")
        self.kind = kind
        self._clock = clock if clock is not None else RealClock()
        self._random = random.Random(f"nat {seed}")
        self._rebind_s = rebind_ms / 1000.0
        self._mappings: OrderedDict[tuple[Address, Address | None], _Mapping] = OrderedDict()
        self._by_key: dict[int, _Mapping] = {}
        self._next_key = 1
        self._next_move: float | None = None
        self.moves = 0
        """How many times a ``rebinding`` NAT moved its mappings."""
        self.filtered = 0
        """Datagrams from outside that the filter dropped."""

    def now(self) -> float:
        """The injected clock's time, in seconds."""
        return self._clock.now_ns() / 1e9

    def outbound(self, inside: Address, far: Address) -> int:
        """The key of the outside port a datagram from ``inside`` to ``far`` leaves by (the far address may answer)."""
        slot = (inside, far if self.kind == "symmetric" else None)
        mapping = self._mappings.get(slot)
        if mapping is None:
            mapping = _Mapping(self._next_key, inside)
            self._next_key += 1
            self._mappings[slot] = mapping
            self._by_key[mapping.key] = mapping
            while len(self._mappings) > MAX_MAPPINGS:
                _, old = self._mappings.popitem(last=False)
                del self._by_key[old.key]
        else:
            self._mappings.move_to_end(slot)
        mapping.permits[far] = None
        mapping.permits.move_to_end(far)
        while len(mapping.permits) > MAX_PERMITS:
            mapping.permits.popitem(last=False)
        return mapping.key

    def inbound(self, key: int, source: Address) -> Address | None:
        """Where a datagram from ``source`` arriving at the outside port ``key`` goes inside; ``None``: filtered."""
        mapping = self._by_key.get(key)
        if mapping is None or (self.kind != "full-cone" and source not in mapping.permits):
            self.filtered += 1
            return None
        return mapping.inside

    @property
    def keys(self) -> set[int]:
        """The keys of the outside ports in use now."""
        return set(self._by_key)

    def arm(self) -> None:
        """Start a ``rebinding`` NAT's moves (nothing for the other kinds): the first is drawn from now."""
        if self.kind == "rebinding" and self._next_move is None:
            self._next_move = self.now() + self._random.uniform(0.5, 1.5) * self._rebind_s

    def next_due(self) -> float | None:
        """When the next move is due, in the clock's seconds (``None``: none)."""
        return self._next_move

    def poll(self) -> list[int]:
        """Move every mapping when a move is due (a ``rebinding`` NAT, armed); the keys of the ports given up."""
        if self._next_move is None or self.now() < self._next_move:
            return []
        gone = list(self._by_key)
        self._mappings.clear()
        self._by_key.clear()
        self.moves += 1
        self._next_move = self.now() + self._random.uniform(0.5, 1.5) * self._rebind_s
        return gone


class GatewaySocket(socket.socket):
    """An inside socket of a ``NatBox``: a real UDP socket that reaches the world only through the box's gateway.

    ``sendto`` wraps the datagram for the gateway; ``recvfrom`` takes only the gateway's
    datagrams, unwrapped, and drops anything else (an inside address is private: the world
    cannot reach it). ``connect`` only remembers the far address (``send``/``recv`` then
    talk to it alone), as asyncio's connected endpoints need. Bind it as any socket: its
    address is the "host" address the peer sees of itself.
    """

    def __init__(self, gateway: Address, fileno: int | None = None) -> None:
        super().__init__(socket.AF_INET, socket.SOCK_DGRAM, 0, fileno)
        self.gateway = gateway
        self.far: Address | None = None

    def sendto(self, data: bytes, *args: object) -> int:  # type: ignore[override]
        """Send ``data`` to the address (the last argument) through the gateway; returns ``len(data)``."""
        address = args[-1]
        if not (isinstance(address, tuple) and len(address) == 2 and isinstance(address[0], str)
                and isinstance(address[1], int)):
            raise OSError(errno.EINVAL, f"not an IPv4 address and port: {shown(address)}")
        try:
            envelope = _pack((address[0], address[1]))
        except (ValueError, struct.error):
            raise OSError(errno.EINVAL, f"not an IPv4 address and port: {shown(address)}") from None
        super().sendto(envelope + bytes(data), self.gateway)
        return len(data)

    def send(self, data: bytes, flags: int = 0) -> int:  # type: ignore[override]
        """Send to the far address given to ``connect``."""
        if self.far is None:
            raise OSError(errno.ENOTCONN, "not connected")
        return self.sendto(data, self.far)

    def recvfrom(self, bufsize: int, flags: int = 0) -> tuple[bytes, Address]:
        """The next datagram through the gateway, unwrapped, and where it came from; ``BlockingIOError``: none."""
        while True:
            data, source = super().recvfrom(bufsize + ENVELOPE, flags)
            if source != self.gateway or len(data) < ENVELOPE:
                continue  # not through the router: a private address hears nothing else
            far = _unpack(data)
            if self.far is not None and far != self.far:
                continue
            return data[ENVELOPE:], far

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        """The next datagram's bytes (see ``recvfrom``)."""
        return self.recvfrom(bufsize, flags)[0]

    def connect(self, address: object) -> None:
        """Remember the far address: ``send`` goes there and only its datagrams are received."""
        if not (isinstance(address, tuple) and len(address) == 2):
            raise OSError(errno.EINVAL, f"not an address: {shown(address)}")
        self.far = (str(address[0]), int(address[1]))

    def getpeername(self) -> Address:
        """The far address given to ``connect`` (``OSError`` when none)."""
        if self.far is None:
            raise OSError(errno.ENOTCONN, "not connected")
        return self.far

    def dup(self) -> GatewaySocket:
        """Another socket on the same port, behind the same gateway."""
        twin = GatewaySocket(self.gateway, fileno=os.dup(self.fileno()))
        twin.far = self.far
        return twin


class NatBox:
    """One house's router on 127.0.0.1 (``kind``: one of ``NAT_KINDS``), run in a thread of its own until ``close``.

    ``make_socket()`` makes an inside socket (a ``GatewaySocket``; bind it to 127.0.0.1). The
    box's gateway listens at ``gateway``; each outside port is a plain socket on ``host``.
    ``destinations`` is every address the box has sent a datagram to; ``forwarded`` counts
    datagrams out and in.
    """

    def __init__(self, kind: str, *, host: str = "127.0.0.1", seed: int = 0, rebind_ms: float = 1000.0) -> None:
        self.table = NatTable(kind, seed=seed, rebind_ms=rebind_ms)
        self.host = host
        self._gateway = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._gateway.bind((host, 0))
        self._gateway.setblocking(False)
        self.gateway: Address = self._gateway.getsockname()
        self._wake_read, self._wake_write = socket.socketpair()
        self._outside: dict[int, socket.socket] = {}
        self._lock = threading.Lock()
        self.destinations: set[Address] = set()
        self.forwarded = {"out": 0, "in": 0, "filtered": 0}
        self._stop = False
        self._thread = threading.Thread(target=self._run, name=f"nat-{kind}", daemon=True)
        self._thread.start()

    def __repr__(self) -> str:
        return f"NatBox({self.table.kind}, gateway {self.gateway[0]}:{self.gateway[1]})"

    def make_socket(self) -> GatewaySocket:
        """A new inside socket (not bound yet): everything it sends and hears goes through this box."""
        return GatewaySocket(self.gateway)

    def arm(self) -> None:
        """Play has started: a ``rebinding`` box starts moving its mappings."""
        with self._lock:
            self.table.arm()
        self._wake_write.send(b"!")

    @property
    def outside_ports(self) -> dict[int, Address]:
        """The outside addresses in use now, by mapping key."""
        with self._lock:
            return {key: sock.getsockname() for key, sock in self._outside.items()}

    def close(self) -> None:
        """Stop the thread, send on what the house sent before (its goodbye), and close every socket of the box.

        A datagram the inside sent before the box was switched off is on the wire: a real
        router would have sent it on. Dropping it lost a leaving host's ``Bye`` whenever the
        box's thread had not run since, and its joiner waited out its disconnect timeout.
        """
        if self._stop:
            return
        self._stop = True
        self._wake_write.send(b"!")
        self._thread.join(5)
        with self._lock:
            self._from_inside()
        for sock in (self._gateway, self._wake_read, self._wake_write, *self._outside.values()):
            sock.close()
        self._outside.clear()

    def _run(self) -> None:
        while not self._stop:
            with self._lock:
                watched = [self._gateway, self._wake_read, *self._outside.values()]
                due = self.table.next_due()
            timeout = 0.5 if due is None else max(0.0, min(0.5, due - self.table.now()))
            try:
                readable, _, _ = select.select(watched, [], [], timeout)
            except (OSError, ValueError):  # a socket closed under us: look again
                continue
            with self._lock:
                if self._stop:
                    return
                for gone in self.table.poll():
                    sock = self._outside.pop(gone, None)
                    if sock is not None:
                        sock.close()
                for sock in readable:
                    if sock is self._wake_read:
                        with contextlib.suppress(OSError):
                            sock.recv(64)
                    elif sock is self._gateway:
                        self._from_inside()
                    else:
                        self._from_outside(sock)

    def _from_inside(self) -> None:
        for _ in range(64):
            try:
                data, inside = self._gateway.recvfrom(65535)
            except OSError:
                return
            if len(data) < ENVELOPE:
                continue
            try:
                far = _unpack(data)
            except (ValueError, struct.error):
                continue
            key = self.table.outbound((str(inside[0]), int(inside[1])), far)
            sock = self._outside.get(key)
            if sock is None:
                for old in set(self._outside) - self.table.keys:  # forgotten mappings (a full table)
                    self._outside.pop(old).close()
                sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                sock.bind((self.host, 0))
                sock.setblocking(False)
                self._outside[key] = sock
            with contextlib.suppress(OSError):
                sock.sendto(data[ENVELOPE:], far)
                self.destinations.add(far)
                self.forwarded["out"] += 1

    def _from_outside(self, sock: socket.socket) -> None:
        key = next((k for k, s in self._outside.items() if s is sock), None)
        for _ in range(64):
            try:
                data, source = sock.recvfrom(65535)
            except OSError:
                return
            source = (str(source[0]), int(source[1]))
            inside = self.table.inbound(key, source) if key is not None else None
            if inside is None:
                self.forwarded["filtered"] += 1
                continue
            with contextlib.suppress(OSError):
                self._gateway.sendto(_pack(source) + data, inside)
                self.forwarded["in"] += 1
