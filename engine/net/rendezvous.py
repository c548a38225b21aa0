"""The rendezvous: where two sides of a room code swap their ICE offers, and nothing else (no game traffic).

A host opens a room under a short code (``new_code``: 6 characters with no 0, O, 1, I
or L) and keeps posting its current offer there; a joiner who was told the code posts its
own offer and gets the host's back; the host's next post picks the joiner's up. Then the
two check the paths between them (``engine.net.ice``) and play: the rendezvous never sees
a game datagram. It also answers STUN binding requests, so a peer learns the address its
router shows the world (its server-reflexive candidate) from the same small server.

What it keeps, and for how long: per open room the host's address, a 16-byte secret only
the host knows (its posts must carry it), the host's current offer and at most one
joiner's answer, until ``ROOM_TTL_S`` after the host's last post (the host posts every
``POST_EVERY_S``; a closed or vanished host's room is gone within that). At most
``max_rooms`` rooms (new ones are refused past it), and per source IP address a rate
limit (a token bucket: ``rate`` datagrams a second, ``burst`` at once; ``MAX_SOURCES``
addresses remembered, the least recent forgotten first). Each datagram is checked whole
as data before anything is kept: its size (every request is exactly ``REQUEST_BYTES``:
the answer is never larger than the question, so the rendezvous amplifies nothing), the
magic, the kind, the code, the lengths, the padding (zeros), and the offer inside (parsed
as ``engine.net.ice.Offer`` would). Anything else is dropped without an answer, and
counted.

The wire (big-endian), requests exactly ``REQUEST_BYTES`` long, zero-padded::

    header        MAGIC b"TSRV" | version 1 | kind (1 byte) | code (6 ASCII)
    open   b"O"   header | secret (16) | offer id (u64) | length (u16) | offer     (host: post the room)
    close  b"C"   header | secret (16)                                             (host: the room is done)
    join   b"J"   header | nonce (u64) | length (u16) | answer                     (joiner)
    room   b"o"   header | status | offer id (u64) | nonce (u64) | length | answer (to an open)
    offer  b"j"   header | status | nonce (u64) | offer id (u64) | length | offer  (to a join)

A status is ``OK``, ``TAKEN`` (the code is another host's), ``NO_ROOM``, ``BUSY`` (the
offer is being answered by another joiner: ask again), ``WAIT`` (the host has no offer
out yet, it is gathering: ask again), ``FULL`` (the rendezvous holds ``max_rooms``
rooms) or ``PROVE`` (the answer's blob is a 16-byte cookie: post again with it). An offer
id of 0 means no offer yet.

A room is opened only for an address that proved it receives there (QUIC's rule,
``engine.net.cookies``): an open of a new room without the rendezvous's cookie for its
source address, in the request's last 16 bytes (zeros otherwise), is answered ``PROVE``
(47 bytes for 1200) and keeps nothing, so opens with forged source addresses cannot fill
the table. A room's host posts with its secret from then on, from wherever its NAT puts it.
"""

from __future__ import annotations

import secrets
import struct
from collections import OrderedDict
from dataclasses import dataclass

from engine.clock import Clock, RealClock
from engine.messages import shown
from engine.net import stun
from engine.net.cookies import COOKIE_BYTES, Cookies
from engine.net.transport import Address, UdpTransport

__all__ = ["BUSY", "CODE_ALPHABET", "CODE_LENGTH", "DEFAULT_PORT", "FULL", "MAX_BLOB", "MAX_SOURCES", "NO_ROOM", "OK",
           "POST_EVERY_S", "PROVE", "REQUEST_BYTES", "ROOM_TTL_S", "TAKEN", "WAIT", "Rendezvous", "RendezvousServer",
           "Reply", "close_request", "is_room_code", "join_request", "new_code", "open_request", "read_reply",
           "room_code", "room_code_or_none", "stun_answer"]

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""The characters of a room code: letters and digits, without 0, O, 1, I and L, which read alike."""
CODE_LENGTH = 6
"""A room code's length: 31**6, about 890 million codes."""
DEFAULT_PORT = 7770
"""The port a rendezvous listens on unless told (and where ``--rendezvous HOST`` looks)."""
MAGIC = b"TSRV"
VERSION = 1
REQUEST_BYTES = 1200
"""Every request's exact size: answers are never larger, so a forged source gains no amplification."""
MAX_BLOB = 1100
"""The largest offer or answer, in bytes."""
POST_EVERY_S = 0.25
"""How often a host posts its room (and so how soon it hears of a joiner)."""
ROOM_TTL_S = 20.0
"""A room is forgotten this long after its host's last post."""
MAX_SOURCES = 4096
"""The most source addresses the rate limit remembers."""
OK, TAKEN, NO_ROOM, BUSY, FULL, WAIT, PROVE = 0, 1, 2, 3, 4, 5, 6
_STATUS_NAMES = {OK: "ok", TAKEN: "taken", NO_ROOM: "no room", BUSY: "busy", FULL: "full", WAIT: "wait",
                 PROVE: "prove"}
_COOKIE_AT = REQUEST_BYTES - COOKIE_BYTES  # an open's cookie: its last 16 bytes (zeros: none yet)
_HEADER = struct.Struct(">4sBc6s")
_OPEN = struct.Struct(">16sQH")
_CLOSE = struct.Struct(">16s")
_JOIN = struct.Struct(">QH")
_REPLY = struct.Struct(">BQQH")


def new_code() -> str:
    """A fresh room code (random, from ``secrets``)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def room_code(text: str) -> str:
    """``text`` as a room code: upper case, spaces and dashes left out; a ``ValueError`` says what is wrong."""
    code = text.strip().upper().replace("-", "").replace(" ", "")
    if len(code) != CODE_LENGTH:
        raise ValueError(f"room code {shown(text)} is not {CODE_LENGTH} characters")
    wrong = sorted(set(code) - set(CODE_ALPHABET))
    if wrong:
        raise ValueError(f"room code {shown(text)} has {shown(''.join(wrong))}: codes have only letters and digits, "
                         "and never 0, O, 1, I or L")
    return code


def is_room_code(text: str) -> bool:
    """Whether ``text`` reads as a room code rather than HOST[:PORT] (6 code characters, no ``:`` nor ``.``)."""
    try:
        room_code(text)
    except ValueError:
        return False
    return ":" not in text and "." not in text


def _request(kind: bytes, code: str, body: bytes) -> bytes:
    data = _HEADER.pack(MAGIC, VERSION, kind, code.encode("ascii")) + body
    if len(data) > REQUEST_BYTES:
        raise ValueError(f"a rendezvous request of {len(data)} bytes is over {REQUEST_BYTES}")
    return data + bytes(REQUEST_BYTES - len(data))


def _blob(blob: bytes) -> bytes:
    if len(blob) > MAX_BLOB:
        raise ValueError(f"an offer of {len(blob)} bytes is over the {MAX_BLOB} the rendezvous carries")
    return blob


def open_request(code: str, secret: bytes, offer_id: int, offer: bytes, cookie: bytes = b"") -> bytes:
    """A host's post: its room under ``code`` (``secret``: 16 bytes of its own), its current offer (id 0: none yet).

    ``cookie``: the rendezvous's proof of this host's address (a ``PROVE`` answer's blob), in
    the request's last 16 bytes; a new room is opened only for a post that carries it.
    """
    if cookie and len(cookie) != COOKIE_BYTES:
        raise ValueError(f"a rendezvous cookie is {COOKIE_BYTES} bytes, got {len(cookie)}")
    data = _request(b"O", code, _OPEN.pack(secret, offer_id, len(_blob(offer))) + offer)
    return data[:_COOKIE_AT] + cookie if cookie else data


def close_request(code: str, secret: bytes) -> bytes:
    """A host's word that the room is done (the game started, or it left)."""
    return _request(b"C", code, _CLOSE.pack(secret))


def join_request(code: str, nonce: int, answer: bytes) -> bytes:
    """A joiner's post: its answer to the room's offer (``nonce``: its own number, the same on every repeat)."""
    return _request(b"J", code, _JOIN.pack(nonce, len(_blob(answer))) + answer)


@dataclass(frozen=True)
class Reply:
    """An answer of the rendezvous: ``kind`` (``b"o"`` to an open, ``b"j"`` to a join), the status, the ids, the blob.

    To an open, ``blob`` is a joiner's answer to the offer ``offer_id`` (empty: none yet);
    to a join, the host's offer.
    """

    kind: bytes
    code: str
    status: int
    offer_id: int
    nonce: int
    blob: bytes

    @property
    def status_name(self) -> str:
        """The status in words."""
        return _STATUS_NAMES.get(self.status, str(self.status))


def read_reply(data: bytes) -> Reply | None:
    """A datagram from the rendezvous as a ``Reply``, or ``None`` when it is not one (checked whole)."""
    if len(data) < _HEADER.size + _REPLY.size or len(data) > REQUEST_BYTES:
        return None
    magic, version, kind, code = _HEADER.unpack_from(data)
    if magic != MAGIC or version != VERSION or kind not in (b"o", b"j"):
        return None
    status, first, second, length = _REPLY.unpack_from(data, _HEADER.size)
    body = data[_HEADER.size + _REPLY.size:]
    if status not in _STATUS_NAMES or len(body) != length or length > MAX_BLOB:
        return None
    try:
        text = code.decode("ascii")
    except UnicodeDecodeError:
        return None
    if room_code_or_none(text) != text:
        return None
    offer_id, nonce = (first, second) if kind == b"o" else (second, first)
    return Reply(kind, text, status, offer_id, nonce, bytes(body))


def room_code_or_none(text: str) -> str | None:
    """``room_code(text)``, or ``None`` when it is not one."""
    try:
        return room_code(text)
    except ValueError:
        return None


def _reply(kind: bytes, code: str, status: int, first: int, second: int, blob: bytes = b"") -> bytes:
    return _HEADER.pack(MAGIC, VERSION, kind, code.encode("ascii")) + _REPLY.pack(status, first, second,
                                                                                   len(blob)) + blob


def stun_answer(data: bytes, source: Address) -> bytes | None:
    """The answer to a STUN binding request (RFC 8489: the source address, XOR-mapped), or ``None`` for anything else.

    Only a well-formed request of at most 548 bytes is answered (``engine.net.stun.parse``
    checks it whole; its attributes are not used). The answer is 32 bytes.
    """
    message = stun.parse(data) if len(data) <= 548 else None
    if message is None or message.method != stun.BINDING or message.klass != stun.REQUEST:
        return None
    return stun.build(stun.BINDING, stun.SUCCESS, [(stun.XOR_MAPPED_ADDRESS, stun.xor_address(source))],
                      transaction=message.transaction)


@dataclass
class _Room:
    secret: bytes
    host: Address
    offer_id: int
    offer: bytes
    expires: float
    answer: bytes = b""
    answer_nonce: int = 0


class Rendezvous:
    """The rendezvous's logic, sans-IO: ``receive(data, source)`` returns the answers to send (to ``source`` only).

    ``max_rooms`` bounds the rooms, ``rate`` and ``burst`` the datagrams per source IP
    address (see the module docstring). ``counters`` counts requests by kind, answers,
    and what was dropped (``malformed``, ``rate_limited``, ``refused``).
    """

    def __init__(self, *, clock: Clock | None = None, max_rooms: int = 4096, rate: float = 20.0,
                 burst: float = 40.0) -> None:
        if type(max_rooms) is not int or max_rooms < 1:
            raise ValueError(f"rendezvous max_rooms is a whole number from 1, got {shown(max_rooms)}")
        for name, value in (("rate", rate), ("burst", burst)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1e6:
                raise ValueError(f"rendezvous {name} is a number from 0 (excluded) to 1e6, got {shown(value)}")
        self._clock = clock if clock is not None else RealClock()
        self.max_rooms = max_rooms
        self.rate, self.burst = float(rate), float(burst)
        self._rooms: dict[str, _Room] = {}
        self.cookies = Cookies()
        """The address proofs a new room's host must echo (``engine.net.cookies``): spoofed opens fill nothing."""
        self._sources: OrderedDict[str, tuple[float, float]] = OrderedDict()  # ip -> (tokens, when)
        self.counters = dict.fromkeys(("open", "close", "join", "stun", "answered", "malformed", "rate_limited",
                                       "refused", "expired", "unproven"), 0)

    def now(self) -> float:
        """The injected clock's time, in seconds."""
        return self._clock.now_ns() / 1e9

    @property
    def rooms(self) -> int:
        """How many rooms are open now (expired ones forgotten first)."""
        self.expire()
        return len(self._rooms)

    @property
    def sources(self) -> int:
        """How many source addresses the rate limit remembers now (at most ``MAX_SOURCES``)."""
        return len(self._sources)

    def expire(self) -> None:
        """Forget the rooms whose host has not posted for ``ROOM_TTL_S``."""
        now = self.now()
        for code in [code for code, room in self._rooms.items() if room.expires <= now]:
            del self._rooms[code]
            self.counters["expired"] += 1

    def _allowed(self, ip: str) -> bool:
        now = self.now()
        tokens, when = self._sources.pop(ip, (self.burst, now))
        tokens = min(self.burst, tokens + (now - when) * self.rate)
        allowed = tokens >= 1.0
        self._sources[ip] = (tokens - 1.0 if allowed else tokens, now)
        while len(self._sources) > MAX_SOURCES:
            self._sources.popitem(last=False)
        return allowed

    def receive(self, data: bytes, source: Address) -> list[tuple[bytes, Address]]:
        """Take one datagram from ``source``; the answers to send (none for what is dropped)."""
        if not self._allowed(source[0]):
            self.counters["rate_limited"] += 1
            return []
        if data[:4] != MAGIC:
            answer = stun_answer(data, source)
            if answer is None:
                self.counters["malformed"] += 1
                return []
            self.counters["stun"] += 1
            self.counters["answered"] += 1
            return [(answer, source)]
        reply = self._request(data, source)
        if reply is None:
            return []
        self.counters["answered"] += 1
        return [(reply, source)]

    def _request(self, data: bytes, source: Address) -> bytes | None:
        if len(data) != REQUEST_BYTES:
            self.counters["malformed"] += 1
            return None
        _, version, kind, raw = _HEADER.unpack_from(data)
        code = raw.decode("ascii", "replace")
        if version != VERSION or kind not in (b"O", b"C", b"J") or room_code_or_none(code) != code:
            self.counters["malformed"] += 1
            return None
        self.expire()
        if kind == b"C":
            secret, = _CLOSE.unpack_from(data, _HEADER.size)
            if any(data[_HEADER.size + _CLOSE.size:]):
                self.counters["malformed"] += 1
                return None
            room = self._rooms.get(code)
            if room is not None and secrets.compare_digest(room.secret, secret):
                del self._rooms[code]
                self.counters["close"] += 1
            return None
        if kind == b"O":
            secret, offer_id, length = _OPEN.unpack_from(data, _HEADER.size)
            blob = self._blob(data[:_COOKIE_AT], _HEADER.size + _OPEN.size, length, offer_id == 0)
            return None if blob is None else self._open(code, secret, offer_id, blob, source, data[_COOKIE_AT:])
        nonce, length = _JOIN.unpack_from(data, _HEADER.size)
        if nonce == 0:
            self.counters["malformed"] += 1
            return None
        blob = self._blob(data, _HEADER.size + _JOIN.size, length, False)
        return None if blob is None else self._join(code, nonce, blob)

    def _blob(self, data: bytes, start: int, length: int, empty: bool) -> bytes | None:
        """The offer at ``start`` (``empty``: it must be empty), checked: its length, the zeros after, its text."""
        end = start + length
        if length > MAX_BLOB or end > len(data) or any(data[end:]) or (length == 0) != empty:
            self.counters["malformed"] += 1
            return None
        blob = data[start:end]
        if blob and not _looks_like_offer(blob):
            self.counters["malformed"] += 1
            return None
        return blob

    def _open(self, code: str, secret: bytes, offer_id: int, blob: bytes, source: Address, cookie: bytes) -> bytes:
        self.counters["open"] += 1
        room = self._rooms.get(code)
        now = self.now()
        if room is None:
            if not self.cookies.holds(cookie, source, now):
                # A new room only for an address that receives where it says: its cookie, and nothing else.
                self.counters["unproven"] += 1
                return _reply(b"o", code, PROVE, offer_id, 0, self.cookies.cookie(source, now))
            if len(self._rooms) >= self.max_rooms:
                self.counters["refused"] += 1
                return _reply(b"o", code, FULL, offer_id, 0)
            room = self._rooms[code] = _Room(secret, source, offer_id, blob, now + ROOM_TTL_S)
        elif not secrets.compare_digest(room.secret, secret):
            self.counters["refused"] += 1
            return _reply(b"o", code, TAKEN, offer_id, 0)
        room.host, room.expires = source, now + ROOM_TTL_S
        if offer_id != room.offer_id:  # a fresh offer: the last one's answer, taken, is dropped
            room.offer_id, room.offer, room.answer, room.answer_nonce = offer_id, blob, b"", 0
        return _reply(b"o", code, OK, room.offer_id, room.answer_nonce, room.answer)

    def _join(self, code: str, nonce: int, blob: bytes) -> bytes:
        self.counters["join"] += 1
        room = self._rooms.get(code)
        if room is None:
            return _reply(b"j", code, NO_ROOM, nonce, 0)
        if room.offer_id == 0:
            return _reply(b"j", code, WAIT, nonce, 0)
        if room.answer_nonce not in (0, nonce):
            return _reply(b"j", code, BUSY, nonce, 0)
        room.answer, room.answer_nonce = blob, nonce
        return _reply(b"j", code, OK, nonce, room.offer_id, room.offer)


def _looks_like_offer(blob: bytes) -> bool:
    """Whether ``blob`` is an ICE offer as ``engine.net.ice.Offer.decode`` reads it (checked here without aioice)."""
    from engine.net.offer import check_offer

    return check_offer(blob) is None


class RendezvousServer:
    """A ``Rendezvous`` on a UDP socket of ``host:port`` (port 0: any free one; see ``address``), polled by ``serve``.

    ``tickswap rendezvous`` runs one until stopped; a test may run one in a thread.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, clock: Clock | None = None, max_rooms: int = 4096,
                 rate: float = 20.0, burst: float = 40.0) -> None:
        self.machine = Rendezvous(clock=clock, max_rooms=max_rooms, rate=rate, burst=burst)
        self.transport = UdpTransport(host, port)

    @property
    def address(self) -> Address:
        """Where the rendezvous listens."""
        return self.transport.address

    def serve(self, timeout_s: float) -> int:
        """Wait up to ``timeout_s`` for datagrams and answer what came; how many datagrams were taken."""
        self.transport.wait(timeout_s)
        taken = self.transport.receive()
        for data, source in taken:
            for answer, to in self.machine.receive(data, source):
                self.transport.send(answer, to)
        return len(taken)

    def close(self) -> None:
        """Close the socket."""
        self.transport.close()
