"""A desync explained: the two peers swap the snapshot of the tick whose hashes differ, and name what differs.

GGRS stops at "the checksums differ". Here both peers then send each other the
``World.snapshot()`` of that tick (zlib'd JSON, in ``Chunk`` datagrams, resent until the
peer says ``Got``), and each compares the two with the tools' own
``compare_snapshots``: the report names the tick, the entities and their fields. The
received snapshot is data: it is size-bounded, inflated bounded and parsed by the
engine's bounded JSON reader; a damaged one is reported as such, never a traceback.

A snapshot that needs more than ``MAX_CHUNKS`` datagrams is not sent: a small marker
goes instead, and both peers report the desync by tick (and hashes where known) with one
line saying the snapshot was too large to exchange. Chunks are paced (``CHUNKS_PER_STEP``
every ``RESEND_S``), never a burst of thousands of datagrams.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from typing import Any

from engine.net.checks import MAX_CHUNKS, inflate
from engine.net.lobby import bye
from engine.net.packets import Chunk, Desync, Got, encode
from engine.schema import FieldError, parse_json
from engine.state.differences import compare_snapshots, difference_lines, in_entities

__all__ = ["CHUNK_BYTES", "DesyncExchange", "pack_snapshot", "start_exchange", "unpack_snapshot"]

CHUNK_BYTES = 700
"""Snapshot bytes per ``Chunk``: with base64 and the JSON around it, a datagram stays under 1200 bytes."""
MAX_SNAPSHOT = 64 * 1024 * 1024
"""The most a received snapshot may inflate to."""
RESEND_S = 0.05
CHUNKS_PER_STEP = 64
"""Chunks sent every ``RESEND_S`` (about 900 KB/s): the whole snapshot goes round in turns, not in one burst."""
TOO_LARGE = "too_large"


def pack_snapshot(snapshot: Any) -> list[bytes]:
    """A snapshot as zlib'd JSON cut into ``CHUNK_BYTES`` pieces (at least one)."""
    data = zlib.compress(json.dumps(snapshot, sort_keys=True, separators=(",", ":")).encode("utf-8"), 6)
    return [data[at:at + CHUNK_BYTES] for at in range(0, len(data), CHUNK_BYTES)] or [b""]


def unpack_snapshot(pieces: list[bytes], limit: int = MAX_SNAPSHOT) -> dict[str, Any]:
    """The snapshot the pieces hold, at most ``limit`` bytes of JSON; ``ValueError`` naming the problem otherwise.

    Every entity is checked (an object with a whole-number ``id``, met once, and a string
    ``class``) before anything compares it: the snapshot comes from another machine.
    """
    text = inflate(pieces, limit, "the peer's snapshot")
    try:
        snapshot = parse_json(text.decode("utf-8"))
    except (UnicodeDecodeError, FieldError, ValueError) as error:
        raise ValueError(f"the peer's snapshot is not JSON ({error})") from None
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("entities"), list):
        raise ValueError("the peer's snapshot is not a world snapshot")
    seen: set[int] = set()
    for index, entity in enumerate(snapshot["entities"]):
        if not (isinstance(entity, dict) and type(entity.get("id")) is int and isinstance(entity.get("class"), str)
                and entity["id"] not in seen):
            raise ValueError(f"the peer's snapshot is damaged at entities[{index}]")
        seen.add(entity["id"])
    return snapshot


def snapshot_limit(own: dict[str, Any] | None) -> int:
    """How much JSON a peer's snapshot may inflate to: twice this peer's own and 64 KiB, at most ``MAX_SNAPSHOT``.

    Peers of one game hold snapshots of about one size; a far larger one is a zlib bomb,
    whose parsing alone would stall the frame and take gigabytes.
    """
    size = len(json.dumps(own, sort_keys=True, separators=(",", ":"))) if own is not None else 0
    return min(MAX_SNAPSHOT, 2 * size + 65536)


class DesyncExchange:
    """Both sides of one snapshot swap: ours sent until ``Got``, theirs gathered; ``step`` returns the report.

    ``send(body)`` sends a message body to the peer (sealed for its link, to where it is now);
    ``token`` is that peer's, so only its datagrams take part.
    """

    def __init__(self, send: Callable[[bytes], None], token: int, session: int, tick: int,
                 snapshot: dict[str, Any] | None, *, who: str, timeout_s: float, now: float,
                 hashes: tuple[str | None, str | None] = (None, None)) -> None:
        self.send = send
        self.token = token
        self.session = session
        self.tick = tick
        self.snapshot = snapshot
        self.who = who
        self.hashes = hashes
        """(ours, theirs): the state hashes of ``tick``, where known, for a report with no snapshots to compare."""
        self.pieces = pack_snapshot(snapshot if snapshot is not None else {"entities": [], "missing": True})
        self.too_large = len(self.pieces) > MAX_CHUNKS
        if self.too_large:  # the peer is told so in one small marker, and reports it too
            self.pieces = pack_snapshot({"entities": [], TOO_LARGE: len(self.pieces)})
        self.next_chunk = 0
        self.theirs: dict[int, bytes] = {}
        self.their_total: int | None = None
        self.got = False
        self.deadline = now + timeout_s
        self.sent = -1.0

    def take(self, packet: Any) -> None:
        """A ``Desync``, ``Chunk`` or ``Got`` from the peer (another tick's are ignored)."""
        if getattr(packet, "tick", None) != self.tick:
            return
        if isinstance(packet, Got):
            self.got = True
        elif isinstance(packet, Chunk):
            if self.their_total is None:
                self.their_total = packet.total
            if packet.total == self.their_total:
                self.theirs[packet.index] = packet.data
            if self._complete():
                self.send(encode(Got(session=self.session, tick=self.tick)))

    def _complete(self) -> bool:
        return self.their_total is not None and len(self.theirs) == self.their_total

    def step(self, now: float) -> str | None:
        """Send what the peer still needs; the report once both snapshots are across (or the time is up)."""
        if self._complete() and self.got:
            return self.report()
        if now > self.deadline:
            return self.report(late=True)
        if now - self.sent >= RESEND_S:
            self.sent = now
            self.send(encode(Desync(session=self.session, tick=self.tick)))
            if not self.got:
                total = len(self.pieces)
                for index in range(self.next_chunk, min(total, self.next_chunk + CHUNKS_PER_STEP)):
                    self.send(encode(Chunk(session=self.session, tick=self.tick, index=index, total=total,
                                           data=self.pieces[index])))
                self.next_chunk = self.next_chunk + CHUNKS_PER_STEP if self.next_chunk + CHUNKS_PER_STEP < total else 0
            elif self._complete():
                self.send(encode(Got(session=self.session, tick=self.tick)))
        return None

    def report(self, late: bool = False) -> str:
        """The lines naming the tick and what differs (the first line alone when no snapshot could be compared)."""
        head = f"desync at tick {self.tick}: the state differs from {self.who}'s"
        if self.too_large:
            return head + self._too_large()
        if not self._complete():
            return head + f" ({self.who}'s snapshot of tick {self.tick} did not arrive)"
        if self.snapshot is None:
            return head + f" (this peer no longer holds its snapshot of tick {self.tick})"
        try:
            theirs = unpack_snapshot([self.theirs[index] for index in range(len(self.theirs))],
                                     snapshot_limit(self.snapshot))
            if theirs.get(TOO_LARGE):
                return head + self._too_large()
            differences = compare_snapshots(self.snapshot, theirs, ("here", self.who))
        except Exception as error:  # another machine's data: whatever it breaks is named, never raised
            return head + f" ({error if isinstance(error, ValueError) else 'the peer sent a damaged snapshot'})"
        where = in_entities(differences) + f" (values: here vs {self.who})" if differences else " outside the entities"
        return "\n".join([head + where, *difference_lines(differences)])

    def _too_large(self) -> str:
        mine, theirs = (digest[:16] if digest else "unknown" for digest in self.hashes)
        return (f" (state hash here {mine}, {self.who}'s {theirs}; the snapshot was too large to exchange, "
                f"more than {MAX_CHUNKS} datagrams)")


def start_exchange(session: Any, peer: Any, tick: int, snapshot: Any,
                   hashes: tuple[str | None, str | None]) -> DesyncExchange:
    """A session's swap with ``peer`` of the snapshot of ``tick`` (ours: ``snapshot``), hashes (ours, theirs).

    A host tells its other peers the session ended by a desync, naming the tick and who.
    """
    who = "the host" if peer.player == 0 else f"player {peer.player}"
    exchange = DesyncExchange(lambda body: session._to(peer, body), peer.token, session.session_id, tick, snapshot,
                              who=who, timeout_s=session.options.disconnect_timeout, now=session.now(), hashes=hashes)
    if session.is_host:
        for other in session.peers.values():
            if other is not peer:
                session._to(other, bye(session.session_id, f"desync at tick {tick} with {who}"))
    return exchange
