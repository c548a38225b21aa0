"""The messages of a networked session: a few small ones, each the body of one UDP datagram.

A message's body is the compact JSON of one object whose ``"k"`` names its kind; the
envelope around it (``engine.net.integrity``: the magic, which peer sent it, a tag checked
before anything is decoded) is the session's to add. Every message is a frozen dataclass
whose fields are checked when it is built, so a message this side builds wrongly is
refused here (by name) rather than by the peer, and a decoded message is as valid as a
built one. One codec (``encode``, ``decode``) writes and reads them all from their fields;
every field of every message is checked by the rule of its name (``checks.RULES``: a
``session`` or a ``key`` is the same in every message), so the plain messages declare
nothing but their fields, ``Hello``, ``Welcome`` and ``Inputs`` add only the checks
between fields, and the two kinds of piece (``Chunk``, ``Catchup``) are one declaration.

Bytes from the network are data from anyone: ``decode`` reads them with the engine's
bounded JSON parser (size first, no ``NaN``/``Infinity``, no huge integers, no deep
nesting, no key twice) and raises only ``PacketError``, naming the problem, whatever the
bytes are. Nothing is ever unpickled or evaluated. Input events are checked by the same
code that checks replays and scripts (``engine.input.checks``).

``encode`` refuses a body over ``MAX_BODY`` bytes (so that with its envelope a datagram is
at most ``MAX_DATAGRAM``, 1200 bytes: under the smallest common path MTU, never
fragmented). The per-frame ``Inputs`` may carry more input than fits; ``fit_inputs`` trims
it, latest ticks first and never inside a tick.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, TypeVar

from engine.messages import shown
from engine.net import checks
from engine.net.checks import (
    MAGIC,
    MAX_BODY,
    MAX_DATAGRAM,
    PROTOCOL,
    SPECTATOR,
    PacketError,
)
from engine.net.inputs import Inputs, Run
from engine.net.integrity import open_hello
from engine.schema import check_depth, expect_keys, expect_str, expect_whole, parse_json

__all__ = ["MAGIC", "MAX_BODY", "MAX_DATAGRAM", "PROTOCOL", "SPECTATOR", "Bye", "Catchup", "Caught", "Chunk", "Desync",
           "Got", "Hello", "Inputs", "Message", "PacketError", "Refuse", "Retry", "Run", "Start", "Welcome", "decode",
           "encode", "encode_inputs", "fit_inputs", "fit_refuse", "read_hello"]

class _Plain:
    """A message whose fields are each checked by the rule of their name (``checks.RULES``), in the order declared.

    A refusal names the message's kind and the field (``bye reason must be ...``): the
    message says nothing of its checks but its fields.
    """

    __slots__ = ()

    def __post_init__(self) -> None:
        with checks.refusing():
            checks.check_fields(self, _KIND_OF[type(self)])


@dataclass(frozen=True, slots=True)
class Hello:
    """A joiner asks the host for a place: its game (name and content digest), engine version, a nonce, its key.

    The nonce is random per join attempt; the host's ``Welcome`` or ``Refuse`` echoes it, so
    a reply to an earlier attempt is told from the answer to this one. ``key`` is the
    joiner's SPAKE2 message over the join code (``engine.net.integrity.Pake``): with the
    host's, in its ``Welcome``, both sides agree the key that tags the session's datagrams.
    """

    game: str
    digest: str
    engine: str
    spectate: bool
    nonce: int
    allow_mismatch: bool = False
    """The joiner plays even a different game (``--allow-game-mismatch``, a testing aid for planted desyncs);
    the host must allow it too."""
    ticks: int | None = None
    """The joiner's ``--ticks`` (``None``: it takes the host's): a different one is refused."""
    key: str = ""
    """The joiner's SPAKE2 message (66 hex digits); ``""`` only in a message that is never sent to join."""
    rejoin: int | None = None
    """A player dropped from this running session asks for its seat back: the token its peer had."""
    proof: str = ""
    """With ``rejoin``: ``engine.net.integrity.rejoin_proof`` of this ``Hello``, keyed by the seat's rejoin secret."""
    seats: int = 1
    """How many players the joiner plays on its machine (``tickswap join --local N``): it asks for that many seats.
    Left off the wire at 1, so a one-seat ``Hello`` is what it always was."""

    def __post_init__(self) -> None:
        with checks.refusing():
            checks.check_fields(self, "hello")
            if self.seats > 1 and (self.spectate or self.rejoin is not None):
                raise PacketError(f"hello seats {self.seats}: a spectator or a rejoin asks for no new seats")
            if self.rejoin is not None:
                expect_str(self.proof, "hello proof (32 hex digits)", 32, checks.PROOF)  # a rejoin proves itself
                if self.spectate:
                    raise PacketError("hello: a spectator has no seat to rejoin")
            elif self.proof:
                raise PacketError("hello proof without a rejoin")


@dataclass(frozen=True, slots=True)
class Welcome:
    """The host takes a joiner: the session id, the joiner's player (``None``: a spectator) and the game's terms.

    ``token`` names the joiner's link in every datagram after this (a peer is its token, not
    its address); ``key`` is the host's SPAKE2 message, from which the joiner draws the link's keys,
    and ``confirm`` proves the host drew the same (so the same code, and nobody in between).
    """

    session: int
    nonce: int
    player: int | None
    players: int
    seed: int
    ms_per_update: float
    game: str
    digest: str
    ticks: int | None = None
    """The session's length in confirmed ticks (the host's ``--ticks``; ``None``: played in frames until Esc)."""
    desync_interval: int = 60
    """The session's ``--desync-interval`` (the host's): every peer compares hashes of the same ticks."""
    token: int = 0
    key: str = ""
    catchup: int | None = None
    """The session is running: the world of this confirmed tick follows, in ``Catchup`` chunks, then play."""
    confirm: str = ""
    """The host's key confirmation (``engine.net.integrity.confirmation``): the joiner checks it before anything."""
    seats: int = 1
    """How many players the joiner plays: ``player`` to ``player + seats - 1`` (what its ``Hello`` asked for)."""

    def __post_init__(self) -> None:
        with checks.refusing():
            checks.check_fields(self, "welcome")
            if self.player is not None and self.player >= self.players:
                raise PacketError(f"welcome player {self.player} is not one of the {self.players} players")
            if self.seats > 1 and (self.player is None or self.player + self.seats > self.players):
                raise PacketError(f"welcome seats {self.seats} from player {shown(self.player)} are not among the "
                                  f"{shown(self.players)} players")


@dataclass(frozen=True, slots=True)
class Refuse(_Plain):
    """The host turns a joiner away (game mismatch, session full, ...): the nonce of its ``Hello`` and why."""

    nonce: int
    reason: str


@dataclass(frozen=True, slots=True)
class Retry(_Plain):
    """The host asks a joiner to prove its address: send the ``Hello`` again with this cookie (``engine.net.cookies``).

    The only answer an address that has not proven it receives there gets: smaller than
    the ``Hello`` it answers, so a forged source address gains nothing by it.
    """

    nonce: int
    cookie: str
    """The cookie, 32 hex digits."""


@dataclass(frozen=True, slots=True)
class Start(_Plain):
    """The host tells everyone the session starts: every player has joined."""

    session: int
    players: int


@dataclass(frozen=True, slots=True)
class Desync(_Plain):
    """A peer found its state hash for ``tick`` differs: the session stops (and both sides say where)."""

    session: int
    tick: int


_P = TypeVar("_P", bound="_Piece")


@dataclass(frozen=True, slots=True)
class _Piece:
    """One piece (``index`` of ``total``) of a larger whole (a snapshot, a catch-up): its bytes base64 on the wire."""

    session: int
    tick: int
    index: int
    total: int
    data: bytes

    def __post_init__(self) -> None:
        what = _KIND_OF[type(self)]
        with checks.refusing():
            checks.check_fields(self, what)
            expect_whole(self.index, f"{what} index", 0, self.total - 1)

    def _wire(self) -> dict[str, Any]:
        return {"session": self.session, "tick": self.tick, "index": self.index, "total": self.total,
                "data": base64.b64encode(self.data).decode("ascii")}

    @classmethod
    def _from_wire(cls: type[_P], record: dict[str, Any]) -> _P:
        """A piece from its record, its bytes from their base64 text (refused in one line when it is not base64)."""
        what = _KIND_OF[cls]
        text = expect_str(record["data"], f"{what} data", 2 * MAX_BODY)
        try:
            data = base64.b64decode(text.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):
            raise PacketError(f"{what} data is not base64: {shown(text)}") from None
        return cls(record["session"], record["tick"], record["index"], record["total"], data)


@dataclass(frozen=True, slots=True)
class Chunk(_Piece):
    """One piece (``index`` of ``total``) of a zlib'd JSON snapshot of tick ``tick``; base64 on the wire."""


@dataclass(frozen=True, slots=True)
class Got(_Plain):
    """Every chunk of the snapshot of tick ``tick`` arrived."""

    session: int
    tick: int


@dataclass(frozen=True, slots=True)
class Catchup(_Piece):
    """One piece (``index`` of ``total``) of what a late joiner starts from: the zlib'd JSON of confirmed tick ``tick``.

    The whole (``engine.net.catchup``) is a save of that tick's world and every player's
    input since; the joiner checks it whole, like any file, before building anything.
    """


@dataclass(frozen=True, slots=True)
class Caught(_Plain):
    """A late joiner has ``have`` of the ``Catchup`` pieces of tick ``tick`` (all of them: it plays from there)."""

    session: int
    tick: int
    have: int


@dataclass(frozen=True, slots=True)
class Bye(_Plain):
    """The sender leaves the session, and why (shown to the others)."""

    session: int
    reason: str


Message = Hello | Welcome | Refuse | Retry | Start | Inputs | Desync | Chunk | Got | Catchup | Caught | Bye
"""Any message ``decode`` may return."""
_KINDS: dict[str, type[Any]] = {"hello": Hello, "welcome": Welcome, "refuse": Refuse, "retry": Retry, "start": Start,
                                "inputs": Inputs, "desync": Desync, "chunk": Chunk, "got": Got, "catchup": Catchup,
                                "caught": Caught, "bye": Bye}
_KIND_OF = {kind: name for name, kind in _KINDS.items()}
_LATER = ("rejoin", "proof", "catchup", "delays", "confirm", "seats")
"""Fields added since protocol 2 began (sessions that survive a drop, a joiner's seats): absent on the wire when at
their default (none, or one seat), so a message that needs none of them is the same datagram as before."""
_ANY_FIELD = sorted({field.name for cls in _KINDS.values() for field in fields(cls)})


def encode(message: Message) -> bytes:
    """The body of ``message``; ``PacketError`` if it is no message or would be over ``MAX_BODY`` bytes."""
    data = _body(message)
    if len(data) > MAX_BODY:
        raise PacketError(f"an {_KIND_OF[type(message)]!r} packet of {len(data)} bytes is over the {MAX_BODY} "
                          "bytes a datagram holds")
    return data


def _body(message: Message) -> bytes:
    """``message`` as bytes, however long."""
    kind = _KIND_OF.get(type(message))
    if kind is None:
        raise PacketError(f"{shown(message)} is not a message")
    wire = getattr(message, "_wire", None)
    record = wire() if wire is not None else {field.name: getattr(message, field.name) for field in fields(message)}
    for name in _LATER:  # a field added since protocol 2 began is left out at its default: the datagram is as before
        if name in record and (record[name] in (None, "", [], ()) or (name == "seats" and record[name] == 1)):
            del record[name]
    with checks.refusing(f"an {kind!r} packet can't be written: "):
        text = json.dumps({"k": kind, **record}, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8")


def read_hello(data: bytes) -> Hello | Literal["damaged", "garbage"]:
    """The ``Hello`` a hello envelope carries, or what it is instead: ``"damaged"`` (its check fails) or
    ``"garbage"`` (a body that holds no ``Hello``): what the lobby and the running session count, each in its tally."""
    body = open_hello(data)
    if body is None:
        return "damaged"
    try:
        hello = decode(body)
    except PacketError:
        return "garbage"
    return hello if isinstance(hello, Hello) else "garbage"


def decode(data: bytes) -> Message:
    """The message a body holds; any other bytes raise ``PacketError`` naming the problem (never anything else)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise PacketError(f"a datagram is bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > MAX_BODY:
        raise PacketError(f"a packet of {len(data)} bytes is over {MAX_BODY}")
    if not data.startswith(b"{"):
        raise PacketError(f"not a tickswap packet of protocol {PROTOCOL}: it starts {shown(data[:8])}")
    with checks.refusing("a malformed packet: "):
        record = parse_json(data.decode("utf-8"))
        check_depth(record, checks.DEPTH)
        kind = expect_keys(record, "a packet", ("k",), _ANY_FIELD).get("k")
        cls = _KINDS.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise PacketError(f"unknown packet kind {shown(kind)}")
        names = [field.name for field in fields(cls)]
        later = {field.name: field.default for field in fields(cls) if field.name in _LATER}
        expect_keys(record, f"an {kind!r} packet", ["k", *(name for name in names if name not in later)], list(later))
        record = {**{name: [] if name == "delays" else default for name, default in later.items()}, **record}
        if hasattr(cls, "_from_wire"):
            message: Message = cls._from_wire(record)
        else:
            message = cls(*(record[name] for name in names))
    return message


def fit_inputs(message: Inputs, limit: int = MAX_BODY) -> Inputs:
    """``message`` with its runs cut short, latest ticks first, so its body is at most ``limit`` bytes.

    Every run keeps the ticks up to one cut tick (the latest that fits): a tick's events
    are all kept or all dropped, a run wholly after the cut is dropped, and the earliest
    ticks (those the peer waits for) are the last to go. A message that fits is returned
    as it is; ``PacketError`` if even one with no runs would not fit. A tick whose events
    alone overflow a datagram can never be sent: keep ticks' events few.
    """
    if type(limit) is not int or not 0 < limit <= MAX_BODY:
        raise PacketError(f"fit_inputs limit must be a whole number of bytes up to {MAX_BODY}, got {shown(limit)}")
    if len(_body(message)) <= limit:
        return message
    candidates = sorted({run.first - 1 for run in message.runs} | {run.last for run in message.runs}
                        | {tick - 1 for run in message.runs for tick, _ in run.events})
    low, high = 0, len(candidates) - 1  # candidates[0] (before every run) means no runs
    if len(_body(_cut(message, candidates[0]))) > limit:
        raise PacketError(f"an inputs packet does not fit in {limit} bytes even with no input in it")
    while low < high:  # the latest cut that fits: the size grows with the cut
        middle = (low + high + 1) // 2
        if len(_body(_cut(message, candidates[middle]))) <= limit:
            low = middle
        else:
            high = middle - 1
    return _cut(message, candidates[low])


def _cut(message: Inputs, cut: int) -> Inputs:
    """``message`` with every run ending at ``cut`` at the latest (runs starting after it dropped)."""
    runs = tuple(Run(run.player, run.first, min(run.last, cut), tuple(item for item in run.events if item[0] <= cut))
                 for run in message.runs if run.first <= cut)
    return replace(message, runs=runs)


def fit_refuse(nonce: int, reason: str, limit: int = MAX_BODY) -> bytes | None:
    """The body of ``Refuse(nonce, reason)`` at most ``limit`` bytes: the reason cut short to fit.

    ``None`` when even an empty reason would not fit. A refusal answers anyone's ``Hello``:
    with ``limit`` what the ``Hello`` leaves once the reply's envelope is counted, a forged
    sender gets back no more than it sent.
    """
    data = _body(Refuse(nonce=nonce, reason=reason))
    while len(data) > limit and reason:
        # Every character costs at least a byte: cut the excess (an escaped one costs more: go round again).
        reason = reason[:max(0, len(reason) - (len(data) - limit))]
        data = _body(Refuse(nonce=nonce, reason=reason))
    return data if len(data) <= limit else None


def encode_inputs(message: Inputs, limit: int = MAX_BODY) -> bytes:
    """The body of ``fit_inputs(message, limit)``: an ``Inputs`` trimmed to fit, then encoded."""
    return encode(fit_inputs(message, limit))
