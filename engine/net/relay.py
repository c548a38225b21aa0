"""A TURN relay for the polled game loop: ChannelData framing, and the refreshes the loop's clock drives.

When ICE selects a relayed candidate of ours (both peers behind symmetric NATs, say), the
game's datagrams go through the TURN server (RFC 8656): each one to the peer is wrapped
for the server, and the server sends it on from our relayed address. ICE (``aioice``)
made the allocation and bound a channel to the peer during its checks; ``TurnRelay`` takes
that allocation over, with no asyncio: ``wrap`` frames a datagram for the server (4 bytes
of ChannelData on a bound channel; a Send indication while a channel is being bound),
``unwrap`` takes the server's datagrams apart (ChannelData and Data indications to the
game, the answers to its own requests consumed), and ``poll`` sends what the time asks
for, read from the injected clock:

- the allocation is refreshed at once (which confirms it and tells its lifetime), then
  every half lifetime;
- each channel in use (sent or received in the last ``IDLE_S``) is bound again every
  ``CHANNEL_REFRESH_S``: a binding lasts 600 s and the permission it installs 300 s;
- a peer that shows up from a new address (its NAT rebound) gets a channel of its own;
  a permission (per IP address, as the server keeps them) covers it meanwhile;
- a request is sent again after 0.5, 1, 2, 4 s, then given up (the next refresh tries
  again); a stale nonce (438) or a new realm (401) is taken and the request sent anew.

Every answer from the server is data: a success is used only when its MESSAGE-INTEGRITY
holds with the allocation's key, a ChannelData only on a channel we bound, a Data
indication only from an address we have a permission for. ``RelayTransport`` couples a
``TurnRelay`` to the socket aioice allocated from, as a polled ``Transport``.
"""

from __future__ import annotations

import hashlib
import secrets
import select
import socket
import struct
from dataclasses import dataclass, field
from typing import Any

from engine.clock import Clock, RealClock
from engine.net import stun
from engine.net.checks import MAX_DATAGRAM
from engine.net.transport import Address, TransportError

__all__ = ["CHANNEL_REFRESH_S", "IDLE_S", "MAX_CHANNELS", "RelayTransport", "TurnAllocation", "TurnRelay"]

CHANNEL_REFRESH_S = 240.0
"""How often a channel in use is bound again (its permission lasts 300 s, the binding 600 s)."""
IDLE_S = 600.0
"""A channel or permission not used for this long is left to lapse."""
MAX_CHANNELS = 16
"""The most channels a relay binds (one per address a peer has come from)."""
MAX_PENDING = 32
"""The most requests waiting for an answer at once."""
RETRY_S = (0.5, 1.0, 2.0, 4.0)
"""When a request unanswered is sent again; after the last it is given up."""
_FIRST_CHANNEL, _LAST_CHANNEL = 0x4000, 0x4FFF
_CHANNEL_HEADER = struct.Struct("!HH")


def integrity_key(username: str, realm: str, password: str) -> bytes:
    """The long-term credential key of RFC 8489: MD5 of ``username:realm:password`` (what TURN servers check)."""
    return hashlib.md5(f"{username}:{realm}:{password}".encode()).digest()


@dataclass
class TurnAllocation:
    """A TURN allocation as ICE left it: the server, our relayed address, the credentials, the channels bound.

    ``channels`` maps a peer's address to its channel number; ``next_channel`` is the
    first number not used yet.
    """

    server: Address
    relayed: Address
    username: str
    password: str
    realm: str
    nonce: bytes
    channels: dict[Address, int] = field(default_factory=dict)
    next_channel: int = _FIRST_CHANNEL

    @classmethod
    def of_aioice(cls, protocol: Any) -> TurnAllocation:
        """The allocation an ``aioice`` TURN client protocol holds (its public attributes), validated.

        A ``ValueError`` names what is missing: an allocation that never completed.
        """
        needed = {"server": protocol.server, "relayed_address": protocol.relayed_address,
                  "username": protocol.username, "password": protocol.password, "realm": protocol.realm,
                  "nonce": protocol.nonce}
        missing = [name for name, value in needed.items() if value is None]
        if missing:
            raise ValueError(f"the TURN allocation is not complete: no {', '.join(missing)}")
        channels = {(str(peer[0]), int(peer[1])): int(number) for peer, number in protocol.peer_to_channel.items()}
        return cls(server=(str(protocol.server[0]), int(protocol.server[1])),
                   relayed=(str(protocol.relayed_address[0]), int(protocol.relayed_address[1])),
                   username=str(protocol.username), password=str(protocol.password), realm=str(protocol.realm),
                   nonce=bytes(protocol.nonce), channels=channels,
                   next_channel=max([int(protocol.channel_number), *[n + 1 for n in channels.values()]]))


@dataclass
class _Request:
    kind: str  # "refresh", "bind", "permit" or "release"
    peer: Address | None
    channel: int
    sent_at: float
    tries: int = 1
    renewed: int = 0  # times sent anew with a fresh nonce or realm


@dataclass
class _Channel:
    number: int
    bound: bool = False
    refreshed: float = 0.0
    used: float = 0.0


class TurnRelay:
    """The client side of one TURN allocation, sans-IO (see the module docstring).

    ``lost`` says why the allocation is gone (its refresh refused), else ``None``;
    ``counters`` counts what it did (``relay_*``).
    """

    def __init__(self, allocation: TurnAllocation, clock: Clock | None = None) -> None:
        self.allocation = allocation
        self._clock = clock if clock is not None else RealClock()
        self._key = integrity_key(allocation.username, allocation.realm, allocation.password)
        now = self.now()
        self._channels: dict[Address, _Channel] = {
            peer: _Channel(number, bound=True, refreshed=now - CHANNEL_REFRESH_S, used=now)
            for peer, number in allocation.channels.items()}  # ICE bound them: bound again at the first poll
        self._permits: dict[str, float] = {peer[0]: now for peer in allocation.channels}
        self._fallback: set[Address] = set()  # peers whose channel the server refused: Send indications only
        self._pending: dict[bytes, _Request] = {}
        self._sent: dict[bytes, bytes] = {}  # each pending request's bytes, sent again as they are
        self._resend: list[bytes] = []  # requests made anew in unwrap (a stale nonce): taken by take_resends
        self._refresh_at = now  # at once: confirms the allocation and learns its lifetime
        self.lifetime_s = 600.0
        self.lost: str | None = None
        self.counters: dict[str, int] = dict.fromkeys(
            ("relay_channel_data", "relay_indications", "relay_held_back", "relay_requests", "relay_retries",
             "relay_refused", "relay_dropped", "relay_stale"), 0)

    def now(self) -> float:
        """The injected clock's time, in seconds."""
        return self._clock.now_ns() / 1e9

    @property
    def pending(self) -> int:
        """How many requests wait for the server's answer now."""
        return len(self._pending)

    # -- out ---------------------------------------------------------------------------------

    def wrap(self, data: bytes, peer: Address) -> list[bytes]:
        """What to send the server so that ``data`` reaches ``peer`` (possibly a channel binding first)."""
        if self.lost is not None:
            return []
        now = self.now()
        channel = self._channels.get(peer)
        if channel is not None and channel.bound:
            channel.used = now
            self.counters["relay_channel_data"] += 1
            return [_CHANNEL_HEADER.pack(channel.number, len(data)) + data]
        out = []
        if channel is None and peer not in self._fallback:
            out += self._bind(peer, now)
        if peer[0] in self._permits:
            if peer in self._fallback:
                self._permits[peer[0]] = max(self._permits[peer[0]], now - CHANNEL_REFRESH_S / 2)
            self.counters["relay_indications"] += 1
            out.append(stun.build(stun.SEND, stun.INDICATION, [(stun.XOR_PEER_ADDRESS, stun.xor_address(peer)),
                                                                (stun.DATA_ATTRIBUTE, data)]))
        else:
            if peer in self._fallback and not any(r.kind == "permit" and r.peer == peer
                                                  for r in self._pending.values()):
                out += self._request("permit", peer, 0, now)
            self.counters["relay_held_back"] += 1  # no permission yet: the session resends it
        return out

    def _bind(self, peer: Address, now: float) -> list[bytes]:
        numbers = {c.number for c in self._channels.values()}
        if len(self._channels) >= MAX_CHANNELS or self.allocation.next_channel > _LAST_CHANNEL:
            self._fallback.add(peer)
            return self._request("permit", peer, 0, now)
        number = self.allocation.next_channel
        while number in numbers:
            number += 1
        self.allocation.next_channel = number + 1
        self._channels[peer] = _Channel(number, bound=False, refreshed=now, used=now)
        return self._request("bind", peer, number, now)

    def _request(self, kind: str, peer: Address | None, channel: int, now: float, renewed: int = 0) -> list[bytes]:
        if len(self._pending) >= MAX_PENDING:
            return []
        method = {"refresh": stun.REFRESH, "release": stun.REFRESH, "bind": stun.CHANNEL_BIND,
                  "permit": stun.CREATE_PERMISSION}[kind]
        attributes: list[tuple[int, bytes]] = []
        if kind in ("refresh", "release"):
            attributes.append((stun.LIFETIME, struct.pack(">I", 0 if kind == "release" else 600)))
        if kind == "bind":
            attributes.append((stun.CHANNEL_NUMBER, struct.pack(">HH", channel, 0)))
        if peer is not None:
            attributes.append((stun.XOR_PEER_ADDRESS, stun.xor_address(peer)))
        attributes += [(stun.USERNAME, self.allocation.username.encode()), (stun.REALM, self.allocation.realm.encode()),
                       (stun.NONCE, self.allocation.nonce)]
        transaction = secrets.token_bytes(12)
        self._pending[transaction] = _Request(kind, peer, channel, now, renewed=renewed)
        self._sent[transaction] = stun.build(method, stun.REQUEST, attributes, transaction=transaction, key=self._key)
        self.counters["relay_requests"] += 1
        return [self._sent[transaction]]

    def poll(self) -> list[bytes]:
        """What the time asks to send now: refreshes due, requests to send again."""
        if self.lost is not None:
            return []
        now = self.now()
        out: list[bytes] = []
        for tid, request in list(self._pending.items()):
            if request.tries > len(RETRY_S):
                self._give_up(tid, request)
            elif now - request.sent_at >= RETRY_S[request.tries - 1]:
                request.tries += 1
                request.sent_at = now
                self.counters["relay_retries"] += 1
                out.append(self._sent[tid])
        busy = {(r.kind, r.peer) for r in self._pending.values()}
        if now >= self._refresh_at and ("refresh", None) not in busy:
            out += self._request("refresh", None, 0, now)
            self._refresh_at = now + 10.0  # again in 10 s unless the answer sets the next one
        for peer, channel in list(self._channels.items()):
            if now - channel.used > IDLE_S:
                if now - channel.refreshed > 600.0:
                    del self._channels[peer]  # lapsed at the server too: its number is free again
                continue
            if channel.bound and now - channel.refreshed >= CHANNEL_REFRESH_S and ("bind", peer) not in busy:
                channel.refreshed = now
                out += self._request("bind", peer, channel.number, now)
        for peer in list(self._fallback):
            ip = peer[0]
            if ip in self._permits and now - self._permits[ip] >= CHANNEL_REFRESH_S and ("permit", peer) not in busy:
                if now - self._permits[ip] > IDLE_S:
                    self._fallback.discard(peer)
                    continue
                self._permits[ip] = now
                out += self._request("permit", peer, 0, now)
        return out

    def next_due(self) -> float:
        """When ``poll`` has something to do next, in the clock's seconds."""
        dues = [self._refresh_at]
        dues += [r.sent_at + RETRY_S[min(r.tries, len(RETRY_S)) - 1] for r in self._pending.values()]
        dues += [c.refreshed + CHANNEL_REFRESH_S for c in self._channels.values() if c.bound]
        return min(dues)

    def _give_up(self, tid: bytes, request: _Request) -> None:
        del self._pending[tid]
        self._sent.pop(tid, None)
        if request.kind == "bind" and request.peer is not None:
            channel = self._channels.get(request.peer)
            if channel is not None and not channel.bound:
                del self._channels[request.peer]  # unanswered: the next datagram to that peer asks again

    def release(self) -> list[bytes]:
        """The request that gives the allocation back (a Refresh of lifetime 0), to send once when leaving."""
        if self.lost is not None:
            return []
        return self._request("release", None, 0, self.now())

    # -- in ----------------------------------------------------------------------------------

    def unwrap(self, data: bytes) -> tuple[bytes, Address] | None:
        """A datagram from the server: (the peer's datagram, the peer's address), or ``None`` (consumed or dropped)."""
        if len(data) >= 4 and 0x40 <= data[0] <= 0x4F:
            number, length = _CHANNEL_HEADER.unpack_from(data)
            peer = next((p for p, c in self._channels.items() if c.number == number), None)
            if peer is None or len(data) < 4 + length or length > MAX_DATAGRAM:
                self.counters["relay_dropped"] += 1
                return None
            self._channels[peer].used = self.now()
            return data[4:4 + length], peer
        message = stun.parse(data)
        if message is None:
            self.counters["relay_dropped"] += 1
            return None
        if message.klass == stun.INDICATION and message.method == stun.DATA:
            peer, payload = message.address(stun.XOR_PEER_ADDRESS), message.attributes.get(stun.DATA_ATTRIBUTE)
            if peer is None or payload is None or peer[0] not in self._permits or len(payload) > MAX_DATAGRAM:
                self.counters["relay_dropped"] += 1
                return None
            return payload, peer
        if message.klass in (stun.SUCCESS, stun.ERROR):
            self._answer(message)
        else:
            self.counters["relay_dropped"] += 1
        return None

    def _answer(self, message: stun.Message) -> None:
        request = self._pending.get(message.transaction)
        if request is None:
            self.counters["relay_stale"] += 1  # an answer to a request no longer open (a resent one's second answer)
            return
        now = self.now()
        code = message.error_code if message.klass == stun.ERROR else None
        nonce = message.attributes.get(stun.NONCE)
        if code in (401, 438) and nonce and len(nonce) <= 763 and request.renewed < 2:
            # A new nonce (or realm): unauthenticated by design (RFC 8489 9.2.5); the request goes again with it.
            self.allocation.nonce = nonce
            realm = message.text(stun.REALM)
            if code == 401 and realm:
                self.allocation.realm = realm
                self._key = integrity_key(self.allocation.username, realm, self.allocation.password)
            del self._pending[message.transaction]
            self._sent.pop(message.transaction, None)
            self._resend += self._request(request.kind, request.peer, request.channel, now, renewed=request.renewed + 1)
            return
        if not message.integrity_ok(self._key):
            self.counters["relay_dropped"] += 1  # not the server's (or damaged): the request stays open
            return
        del self._pending[message.transaction]
        self._sent.pop(message.transaction, None)
        if code is not None:
            self._refused(request, code)
            return
        if request.kind == "refresh":
            lifetime = message.number(stun.LIFETIME)
            if lifetime is not None and lifetime > 0:
                self.lifetime_s = float(min(lifetime, 3600))
            self._refresh_at = now + max(5.0, self.lifetime_s / 2)
        elif request.kind == "bind" and request.peer is not None:
            channel = self._channels.get(request.peer)
            if channel is not None:
                channel.bound, channel.refreshed = True, now
            self._permits[request.peer[0]] = now
        elif request.kind == "permit" and request.peer is not None:
            self._permits[request.peer[0]] = now

    def _refused(self, request: _Request, code: int) -> None:
        self.counters["relay_refused"] += 1
        if request.kind == "refresh":
            if code == 437:  # allocation mismatch: the server no longer has it
                self.lost = f"the TURN server at {self.allocation.server[0]}:{self.allocation.server[1]} dropped " \
                            "the relay (its refresh was refused: 437 allocation mismatch)"
            else:
                self._refresh_at = self.now() + 10.0
        elif request.kind == "bind" and request.peer is not None:
            self._channels.pop(request.peer, None)
            self._fallback.add(request.peer)  # Send indications under a permission from now on

    def take_resends(self) -> list[bytes]:
        """Requests sent anew after a stale nonce or a new realm (``unwrap`` found them): send them."""
        taken, self._resend = self._resend, []
        return taken


class RelayTransport:
    """A polled ``Transport`` through a TURN relay: what is sent to a peer goes to the server, wrapped (``TurnRelay``).

    ``sock`` is the socket the allocation was made from (it talks to the server alone);
    ``address`` is the relayed address, the one peers send to. ``close`` gives the
    allocation back (once, without waiting) and closes the socket.
    """

    def __init__(self, sock: socket.socket, allocation: TurnAllocation, clock: Clock | None = None) -> None:
        self.relay = TurnRelay(allocation, clock)
        self._socket = sock
        self._socket.setblocking(False)
        self._server = allocation.server
        self._closed = False
        self._counters = dict.fromkeys(("sent", "received", "bytes_sent", "bytes_received", "send_failed",
                                        "oversize"), 0)

    def __repr__(self) -> str:
        relayed = self.relay.allocation.relayed
        return f"RelayTransport({relayed[0]}:{relayed[1]} via {self._server[0]}:{self._server[1]})"

    @property
    def address(self) -> Address:
        """Our relayed address at the TURN server: where peers send."""
        return self.relay.allocation.relayed

    @property
    def counters(self) -> dict[str, int]:
        """Datagrams to and from the server, and the relay's own counts (a new dict each time)."""
        return {**self._counters, **self.relay.counters}

    def fileno(self) -> int:
        """The socket's descriptor, for a ``select`` over several transports."""
        self._check_open()
        return self._socket.fileno()

    def _to_server(self, datagrams: list[bytes]) -> None:
        for data in datagrams:
            try:
                self._socket.sendto(data, self._server)
            except OSError:
                self._counters["send_failed"] += 1
                continue
            self._counters["sent"] += 1
            self._counters["bytes_sent"] += len(data)

    def send(self, data: bytes, to: Address) -> bool:
        """Send ``data`` to the peer at ``to`` through the relay; whether it went (a failure is counted)."""
        self._check_open()
        if len(data) > MAX_DATAGRAM:
            raise ValueError(f"a datagram of {len(data)} bytes is over the {MAX_DATAGRAM} a transport sends")
        wrapped = self.relay.wrap(bytes(data), (str(to[0]), int(to[1])))
        self._to_server(wrapped)
        return bool(wrapped)

    def receive(self, limit: int = 256) -> list[tuple[bytes, Address]]:
        """Send what the relay's time asks for, then the peers' datagrams that arrived, at most ``limit``."""
        self._check_open()
        self._to_server(self.relay.poll())
        received: list[tuple[bytes, Address]] = []
        for _ in range(max(0, limit)):
            try:
                data, source = self._socket.recvfrom(MAX_DATAGRAM + 64)
            except BlockingIOError:
                break
            except OSError:
                break
            if (str(source[0]), int(source[1])) != self._server:
                continue  # only the server speaks on this socket
            self._counters["received"] += 1
            self._counters["bytes_received"] += len(data)
            unwrapped = self.relay.unwrap(data)
            if unwrapped is not None:
                received.append(unwrapped)
        self._to_server(self.relay.take_resends())
        return received

    def wait(self, timeout_s: float) -> bool:
        """Wait at most ``timeout_s`` (and no later than the relay's next refresh) for a datagram; whether one waits."""
        self._check_open()
        timeout_s = max(0.0, min(timeout_s, self.relay.next_due() - self.relay.now()))
        try:
            readable, _, _ = select.select([self._socket], [], [], timeout_s)
        except (OSError, ValueError):
            return False
        return bool(readable)

    def close(self) -> None:
        """Give the allocation back (one request, not waited for) and close the socket."""
        if not self._closed:
            self._to_server(self.relay.release())
            self._closed = True
            self._socket.close()

    def _check_open(self) -> None:
        if self._closed:
            raise TransportError(f"the TURN relay on {self.address[0]}:{self.address[1]} is closed")

