"""What a session knows of each peer it talks to, and the ``Inputs`` datagram it sends one.

A peer's ``acks`` say which inputs it holds (``acks[p]``: every tick of player p up to
there), so each ``Inputs`` carries exactly what the peer still lacks, from ``acks[p] + 1``
on: an input is sent again in every datagram until acknowledged, and a lost datagram
costs only time. A spectator is sent confirmed input only. Pings ride along: each
datagram carries our clock (``ping``) and the peer's last one (``echo``), so a reply gives
the round trip; ``tick`` and ``ahead`` give the frames-ahead estimate of time sync. An echo
is the peer's word, not ours: a garbled or forged one is clamped to 0..``max_ping_ms`` (the
disconnect timeout: a longer round trip would have dropped the peer), never a huge or
negative ping. ``ack_lag`` is how far behind a peer's acknowledgements are: a peer that
never acknowledges would make us keep its inputs forever (``MAX_ACK_LAG``). An
acknowledgement is clamped to what this peer itself knows: a forged huge one would
otherwise make the lag negative forever and defeat that bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.net.integrity import Link
from engine.net.packets import Inputs, Run, encode_inputs
from engine.net.sync import Sync

__all__ = ["MAX_ACK_LAG", "Peer", "PeerStats", "inputs_packet"]

_SMOOTHING = 0.1
MAX_ACK_LAG = 600
"""How many confirmed ticks a peer's acknowledgements may lag (10 s at 60 Hz) before it is dropped.

The inputs a peer has not acknowledged are kept (and resent) for it: a stalled spectator,
or a peer that keeps sending but never acknowledges, would otherwise make them grow forever.
"""


@dataclass
class PeerStats:
    """A peer's round trip and where it is (smoothed)."""

    ping_ms: float = 0.0
    tick: int = 0
    ahead: float = 0.0


@dataclass
class Peer:
    """One peer: where it is now, its player (``None``: a spectator), its token and link, and what it has told us.

    A peer is its ``token`` (the session's peer table is keyed by it); ``address`` is only
    where its newest datagram came from, and moves with it (a NAT rebinding).
    """

    address: Any
    player: int | None
    players: int
    acks: list[int] = field(default_factory=list)
    heard: float = 0.0
    sent: float = -1.0
    sent_known: list[int] = field(default_factory=list)
    done: bool = False
    echo: float = 0.0
    ping_ms: float = 0.0
    tick: int = 0
    heard_tick_at: float = 0.0
    ahead: float = 0.0
    welcome: bytes = b""
    """The host's ``Welcome`` to this joiner, sent again if its ``Hello`` comes again."""
    max_ping_ms: float = 5000.0
    """The longest round trip believed (the disconnect timeout): an echo further back is clamped."""
    last_ping_ms: float | None = None
    """The last round trip measured (clamped), for the session's summary."""
    token: int = 0
    """The link's token: what names this peer in every datagram, both ways."""
    link: Link | None = None
    """The link's keys and numbers (``engine.net.integrity``): every datagram to or from this peer is sealed by it."""
    answers: bytes = b""
    """The reply key of this joiner's ``Hello``: a ``Hello`` asked again is told by it (the host's side)."""
    rejoin_secret: bytes = b""
    """What this player proves it is itself with if it drops and asks for its seat back (the host's side)."""
    catchup: Any = None
    """A late joiner's catch-up being sent (``engine.net.catchup.CatchupSend``): no ``Inputs`` until it is done."""
    seats: int = 1
    """How many players it plays: ``player`` to ``player + seats - 1`` (a joiner's ``--local N``)."""

    def __post_init__(self) -> None:
        self.acks = [0] * self.players

    @property
    def key(self) -> int | None:
        """The player this peer is (``None``: a spectator)."""
        return self.player

    @property
    def plays(self) -> tuple[int, ...]:
        """The players this peer plays (none for a spectator): its runs may carry only theirs."""
        return () if self.player is None else tuple(range(self.player, self.player + self.seats))

    def take(self, packet: Inputs, now: float, known: Sequence[int]) -> None:
        """Note what an ``Inputs`` from this peer says: what it holds (at most ``known``), its tick, the round trip."""
        self.acks = [max(old, min(new, ours)) for old, new, ours in zip(self.acks, packet.acks, known)]
        if packet.tick >= self.tick:
            self.tick = packet.tick
            self.heard_tick_at = now
        self.ahead = packet.ahead
        self.echo = packet.ping
        if packet.echo > 0:
            rtt = min(max(0.0, now * 1000 - packet.echo), self.max_ping_ms)
            self.last_ping_ms = rtt
            self.ping_ms = rtt if self.ping_ms == 0 else self.ping_ms + _SMOOTHING * (rtt - self.ping_ms)

    def frames_ahead(self, current: int, ms_per_update: float) -> float:
        """How many ticks this peer's world is ahead of this one (the peer's tick moved on by half a round trip)."""
        theirs = self.tick + self.ping_ms / 2 / ms_per_update
        return current - theirs

    def ack_lag(self, emitted: int) -> int:
        """How many ticks confirmed here (up to ``emitted``) this peer has not acknowledged for some player."""
        return emitted - min(self.acks)

    def behind(self, sync: Sync, players: Sequence[int]) -> bool:
        """Whether we hold something new to tell this peer since our last datagram (inputs, acknowledgements)."""
        return sync.known != self.sent_known


def inputs_packet(sync: Sync, peer: Peer, *, session: int, sender: int, players: Sequence[int],
                  checked: tuple[int, str] | None, now_ms: float, spectator: bool,
                  delays: tuple[tuple[int, int], ...] = ()) -> bytes:
    """The ``Inputs`` datagram for ``peer``: every input of ``players`` it lacks (trimmed to fit), acks, ping.

    ``delays``: the host's input delay changes still to come, told to every peer in every datagram.
    """
    runs = []
    for player in players:
        first = max(peer.acks[player], sync.start) + 1  # an ack of -1 (nothing yet) asks from the first tick
        last = min(sync.known[player], sync.emitted) if spectator else sync.known[player]
        if last < first:
            continue
        events = tuple(sync.run_of(player, first, last).items())
        runs.append(Run(player=player, first=first, last=last, events=events))
    ahead = max(-1e5, min(1e5, peer.frames_ahead(sync.current, sync.world.ms_per_update)))
    message = Inputs(session=session, sender=sender, tick=sync.current, acks=tuple(sync.known), runs=tuple(runs),
                     ping=now_ms, echo=peer.echo, checked=checked, ahead=ahead, delays=delays)
    return encode_inputs(message)
