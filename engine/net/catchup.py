"""A late joiner's start: a confirmed tick's world as a save, and every player's input since, sent in pieces.

A spectator joining a running session, or a dropped player taking its seat back, cannot
start from the game's first tick: the others have played on. The host sends it what it
needs to continue exactly as they do: the world of its last confirmed tick as a *save*
(``engine.world.save``'s format, the text of a save file), every player's input from the
tick after it to what the host knows, and the input delay changes still to come. The
whole is zlib'd JSON cut into ``Catchup`` datagrams (``engine.net.packets``), each on the
session's tagged link, sent in turns (``PIECES_PER_STEP`` every ``RESEND_S``) until the
joiner says it has them all (``Caught``), then play goes on as for any peer.

What arrives is data from another machine and is checked whole before anything is built:
its size (``MAX_PIECES`` datagrams, ``MAX_CATCHUP_BYTES`` once inflated: a head of
``MAX_CATCHUP_HEAD`` and a save of ``MAX_CATCHUP_SAVE`` at most, each measured before it is
parsed), then the head's JSON (the engine's bounded parser), then every input run (none
past ``MAX_CATCHUP_TICKS``, the session's tick window) and event (the replay format's
checks), then the save by the very checks a save file goes through (``parse_save``, then
``load_world_data`` with the joiner's own game: classes resolved among its own, never
imported). A world too large to send is refused at the join (the host says so), never
half sent.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field

from engine.constants import MAX_INPUT_DELAY
from engine.messages import shown
from engine.net.checks import MAX_CHUNKS, MAX_DELAYS, PacketError, inflate
from engine.net.inputs import Run
from engine.net.packets import Catchup, Caught, encode
from engine.schema import FieldError, expect_keys, expect_whole, parse_json

__all__ = ["MAX_CATCHUP_BYTES", "MAX_CATCHUP_HEAD", "MAX_CATCHUP_SAVE", "MAX_CATCHUP_TICKS", "PIECE_BYTES",
           "CatchupReceive", "CatchupSend", "Start", "pack", "unpack"]

PIECE_BYTES = 700
"""Bytes of the zlib'd whole per ``Catchup``: with base64 and the JSON around it, a datagram stays under 1200."""
MAX_PIECES = MAX_CHUNKS
"""The most pieces a catch-up may be (about 1.4 MB zlib'd): a larger world is refused at the join."""
MAX_CATCHUP_SAVE = 4 * 1024 * 1024
"""The largest save a catch-up may carry, in bytes of its text (a world larger than this is refused at the join)."""
MAX_CATCHUP_HEAD = 256 * 1024
"""The largest part of a catch-up that is not its save (the ticks, the input runs, the delays), as JSON."""
MAX_CATCHUP_BYTES = MAX_CATCHUP_HEAD + 1 + MAX_CATCHUP_SAVE
"""The most a catch-up may inflate to: its head, a newline, its save. Inflating stops there."""
MAX_CATCHUP_TICKS = 1024
"""How far past the catch-up's tick an input run may reach: the session's tick window, with room to spare.

The host sends every player's input from its last confirmed tick to what it knows. No
honest host knows a player's input further ahead than its own window past its current tick
(``Sync.window``: 4 x (prediction + delay) + 64, at most 424 ticks with the command line's
limits), its current tick being at most its prediction (60) past the confirmed one, and its
own input its delay (30) further: 514 ticks. A run past 1024 is a malicious host's (one to
tick 2**31 - 1 kept a spectator busy for minutes): refused before anything walks it."""
RESEND_S = 0.05
PIECES_PER_STEP = 64
"""Pieces sent every ``RESEND_S`` (about 900 KB/s): the whole goes round in turns, never in one burst."""


@dataclass(frozen=True)
class Start:
    """What a late joiner starts from: the save of confirmed tick ``tick``, and the input since.

    ``runs`` holds, per player, that player's input from ``tick + 1`` to what the host knew
    (a dropped player's up to the tick it takes its seat back); ``delays`` the input delay
    changes scheduled, ``(from tick, delay)``; ``input_delay`` the delay agreed last
    (``None``: never changed, each peer keeps its own ``--input-delay``).
    """

    tick: int
    save: str
    runs: tuple[Run, ...]
    delays: tuple[tuple[int, int], ...] = ()
    input_delay: int | None = None


def pack(start: Start) -> list[bytes]:
    """``start`` zlib'd in ``PIECE_BYTES`` pieces: its head as JSON, a newline, its save's text.

    ``PacketError`` when the save is over ``MAX_CATCHUP_SAVE`` bytes, the head over
    ``MAX_CATCHUP_HEAD``, a run reaches past ``MAX_CATCHUP_TICKS``, or it needs more than
    ``MAX_PIECES`` datagrams. The save is not inside the JSON: the joiner checks its size
    before parsing a byte of it.
    """
    head = json.dumps({"tick": start.tick, "runs": [run._wire() for run in start.runs],
                       "delays": [list(change) for change in start.delays], "input_delay": start.input_delay},
                      separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("ascii")
    save = start.save.encode("utf-8")
    if len(save) > MAX_CATCHUP_SAVE:
        raise PacketError(f"the world of tick {start.tick} is {len(save):,} bytes as a save, more than the "
                          f"{MAX_CATCHUP_SAVE:,} a late join may carry")
    if len(head) > MAX_CATCHUP_HEAD or any(run.last - start.tick > MAX_CATCHUP_TICKS for run in start.runs):
        raise PacketError(f"the input since tick {start.tick} is more than a late join may carry "
                          f"({MAX_CATCHUP_TICKS} ticks, {MAX_CATCHUP_HEAD:,} bytes)")
    packed = zlib.compress(head + b"\n" + save, 6)
    pieces = [packed[at:at + PIECE_BYTES] for at in range(0, len(packed), PIECE_BYTES)]
    if len(pieces) > MAX_PIECES:
        raise PacketError(f"the world of tick {start.tick} needs {len(pieces)} datagrams, more than the {MAX_PIECES} "
                          "a late join may take")
    return pieces


def unpack(pieces: list[bytes], players: int) -> Start:
    """The ``Start`` the pieces hold, checked whole (all but the save's own checks, which building it makes).

    ``PacketError`` names the problem: not zlib, too large, not JSON, a field out of place,
    an input event a replay could not hold, a run that is not one player's from the tick
    after or that reaches past ``MAX_CATCHUP_TICKS``. Its cost is bounded whatever the host
    sends: inflating stops at ``MAX_CATCHUP_BYTES``, the sizes of the head and the save are
    checked before either is parsed, and only the head (at most ``MAX_CATCHUP_HEAD`` bytes)
    is parsed here.
    """
    data = inflate(pieces, MAX_CATCHUP_BYTES, "the host's catch-up")
    end = data.find(b"\n", 0, MAX_CATCHUP_HEAD + 1)
    if end < 0:
        raise PacketError(f"the host's catch-up has no head of at most {MAX_CATCHUP_HEAD:,} bytes before its save")
    if len(data) - end - 1 > MAX_CATCHUP_SAVE:
        raise PacketError(f"the host's catch-up carries a save of {len(data) - end - 1:,} bytes, more than the "
                          f"{MAX_CATCHUP_SAVE:,} a late join may carry")
    try:
        save = data[end + 1:].decode("utf-8")
        record = parse_json(data[:end].decode("utf-8"))
        expect_keys(record, "the catch-up", ("tick", "runs", "delays", "input_delay"))
        tick = expect_whole(record["tick"], "the catch-up's tick", 0, 2**31 - 1)
        if not isinstance(record["runs"], list) or len(record["runs"]) > players:
            raise FieldError(f"the catch-up's runs must be a list of at most {players}, got {shown(record['runs'])}")
        runs = tuple(Run._from_wire(value) for value in record["runs"])
        seen = set()
        for run in runs:
            if run.player >= players or run.player in seen or run.first != tick + 1:
                raise FieldError(f"the catch-up's run of player {run.player} (ticks {run.first} to {run.last}) is not "
                                 f"one of {players} players' input from tick {tick + 1}")
            if run.last - tick > MAX_CATCHUP_TICKS:
                raise FieldError(f"the catch-up's run of player {run.player} reaches tick {run.last}, more than "
                                 f"{MAX_CATCHUP_TICKS} ticks past its tick {tick} (the session's window)")
            seen.add(run.player)
        delays = record["delays"]
        if not isinstance(delays, list) or len(delays) > MAX_DELAYS:
            raise FieldError(f"the catch-up's delays must be a list of at most {MAX_DELAYS}, got {shown(delays)}")
        changes = []
        for change in delays:
            if not (isinstance(change, list) and len(change) == 2):
                raise FieldError(f"the catch-up's delays are [tick, delay] pairs, got {shown(change)}")
            changes.append((expect_whole(change[0], "a delay's tick", 1, 2**31 - 1),
                            expect_whole(change[1], "a delay", 0, MAX_INPUT_DELAY)))
        agreed = record["input_delay"]
        if agreed is not None:
            expect_whole(agreed, "the catch-up's input_delay", 0, MAX_INPUT_DELAY)
    except UnicodeDecodeError:
        raise PacketError("the host's catch-up is not UTF-8 text") from None
    except (FieldError, ValueError, TypeError) as error:
        raise PacketError(f"the host's catch-up is damaged: {error}") from None
    return Start(tick, save, runs, tuple(changes), agreed)


@dataclass
class CatchupSend:
    """The host's side: the pieces of one catch-up, sent in turns until the joiner has them all."""

    session: int
    tick: int
    pieces: list[bytes]
    have: int = 0
    """How many pieces the joiner says it has (its last ``Caught``)."""
    next_piece: int = 0
    sent: float = -1.0

    @property
    def done(self) -> bool:
        """Whether the joiner has every piece: it plays from here."""
        return self.have >= len(self.pieces)

    def step(self, now: float) -> list[bytes]:
        """The message bodies to send now (the next turn of pieces, every ``RESEND_S``)."""
        if self.done or now - self.sent < RESEND_S:
            return []
        self.sent = now
        total = len(self.pieces)
        bodies = [encode(Catchup(session=self.session, tick=self.tick, index=index, total=total,
                                 data=self.pieces[index]))
                  for index in range(self.next_piece, min(total, self.next_piece + PIECES_PER_STEP))]
        self.next_piece = self.next_piece + PIECES_PER_STEP if self.next_piece + PIECES_PER_STEP < total else 0
        return bodies

    def take(self, caught: Caught) -> None:
        """The joiner's count of pieces (another tick's is ignored)."""
        if caught.tick == self.tick:
            self.have = max(self.have, min(caught.have, len(self.pieces)))


@dataclass
class CatchupReceive:
    """The joiner's side: the pieces gathered, acknowledged by count, until the whole is there."""

    session: int
    tick: int
    total: int | None = None
    pieces: dict[int, bytes] = field(default_factory=dict)
    said: float = -1.0

    @property
    def complete(self) -> bool:
        """Whether every piece has arrived."""
        return self.total is not None and len(self.pieces) == self.total

    def take(self, piece: Catchup) -> None:
        """One piece (another tick's, or a total other than the first piece's, is ignored)."""
        if piece.tick != self.tick:
            return
        if self.total is None:
            self.total = piece.total
        if piece.total == self.total:
            self.pieces[piece.index] = piece.data

    def caught(self) -> bytes:
        """The ``Caught`` body that says how many pieces are here."""
        return encode(Caught(session=self.session, tick=self.tick, have=len(self.pieces)))

    def whole(self) -> list[bytes]:
        """The pieces in order (once ``complete``)."""
        return [self.pieces[index] for index in range(len(self.pieces))]
