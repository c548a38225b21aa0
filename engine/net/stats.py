"""What a session shows on the HUD, and GGRS's time sync: how far ahead this peer runs, and when to wait.

A peer whose world runs ahead of the others makes them roll back more and more; GGRS
answers with a ``WaitRecommendation``: skip a frame or two so the others catch up. Frames
ahead are estimated per peer from the tick its last datagram said it was at, moved on by
half the round trip (``Peer.frames_ahead``). The peer most waited on (whose missing input
held this one up most often) is the slow one (``waits``). A recommendation is at most
``MAX_WAIT`` frames: frames ahead come from a peer's word (its tick), and a garbled one
must not freeze this peer. ``summary`` is the line a headless session ends with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.deprecation import warn_deprecated
from engine.net.peers import Peer
from engine.net.refusals import DatagramCounts
from engine.net.sync import Sync

__all__ = ["LATE_REMEMBERED", "MAX_WAIT", "WAIT_FROM", "SessionStats"]

WAIT_FROM = 3.0
"""Frames ahead from which a peer is told to wait (half of it, as GGRS does: the others move too)."""
MAX_WAIT = 4
"""The most frames one recommendation skips; a peer still ahead is told again at the next check."""
LATE_REMEMBERED = 256
"""Late joins remembered (address and nonce) so that one joiner's repeated ``Hello`` counts once; past it
(a flood of forged ones) every refused ``Hello`` counts, and memory stays bounded."""


@dataclass
class SessionStats(DatagramCounts):
    """What the HUD shows: ping, frames ahead, rollbacks, who is waited for; and datagrams dropped, joins refused.

    The datagrams dropped (``garbage``, ``damaged``, ``replayed``) and the addresses followed
    (``moved``) are ``DatagramCounts``: the lobby counts into these very figures.
    """

    ping_ms: float = 0.0
    frames_ahead: float = 0.0
    """Ticks this peer has run past the player furthest behind, as this peer estimates it.

    The estimate is that player's tick in its last datagram moved on by half the ping: it
    takes the two ways of the link to be equally slow. Each peer estimates from its own side,
    so two peers can both read ahead at once (a link slower one way than the other, or both
    stalled at their prediction limit waiting for the other's input); the wait
    recommendation acts on it all the same, as GGRS's does.
    """
    ahead_of: int | None = None
    """The player ``frames_ahead`` is measured against (the one furthest behind); ``None`` before any."""
    rollbacks_per_s: float = 0.0
    rollbacks: int = 0
    waiting_on: int | None = None
    waits: dict[int, int] = field(default_factory=dict)
    """How many times each player's missing input held this peer up (the slow peer is the most waited on).

    One count per stall: a frame in a window, a pass of the ``--ticks`` loop (about half a
    millisecond apart) headless, in which the next tick could not run for want of that input.
    """
    rollback_times: list[float] = field(default_factory=list)
    """When the rollbacks of the last second happened (``time.monotonic``)."""
    pings: int = 0
    ping_total_ms: float = 0.0
    last_ping_ms: float | None = None
    late_joins: int = 0
    """Joins the host refused because the session had started (a joiner asking again counts once)."""
    late_seen: set[tuple[Any, int]] = field(default_factory=set, repr=False)

    @property
    def dropped_packets(self) -> int:
        """Deprecated (goes in 0.6): ``garbage``, the name the lobby counts the same datagrams under."""
        warn_deprecated("SessionStats.dropped_packets", "SessionStats.garbage", stacklevel=3)
        return self.garbage

    def refused_late(self, address: Any, nonce: int) -> None:
        """Count a late joiner's ``Hello`` refused, once per join attempt (its address and nonce)."""
        if (address, nonce) in self.late_seen:
            return
        if len(self.late_seen) < LATE_REMEMBERED:
            self.late_seen.add((address, nonce))
        self.late_joins += 1

    def took_ping(self, ping_ms: float | None) -> None:
        """Count one round trip measured (``None``: the datagram measured none) for the summary's mean."""
        if ping_ms is not None:
            self.pings += 1
            self.ping_total_ms += ping_ms
            self.last_ping_ms = ping_ms

    def refresh(self, peers: Sequence[Peer], sync: Sync, now: float) -> None:
        """Recompute the figures from the peers and the rollback core."""
        self.rollback_times = [at for at in self.rollback_times if now - at <= 1.0]
        self.rollbacks_per_s = float(len(self.rollback_times))
        self.rollbacks = sync.rollbacks
        players = [peer for peer in peers if peer.player is not None]
        if players:
            self.ping_ms = max(peer.ping_ms for peer in players)
            aheads = [(peer.frames_ahead(sync.current, sync.world.ms_per_update), peer.player) for peer in players]
            self.frames_ahead, self.ahead_of = max(aheads, key=lambda pair: pair[0])

    def hud_text(self) -> str:
        """One short line: ping, ticks ahead of whom (an estimate), rollbacks a second, who is waited on."""
        waiting = f", waiting on player {self.waiting_on}" if self.waiting_on is not None else ""
        # Named against a player and called an estimate: two peers each reading "ahead" at the
        # same moment is what two one-sided estimates can say, not a contradiction.
        ahead = ""
        if self.ahead_of is not None:
            way = "ahead of" if self.frames_ahead >= 0 else "behind"
            ahead = f"est. {abs(self.frames_ahead):.1f} ticks {way} player {self.ahead_of}, "
        return f"ping {self.ping_ms:.0f} ms, {ahead}{self.rollbacks_per_s:.1f} rollbacks/s{waiting}"

    def recommend_wait(self) -> int:
        """Frames to skip now (0: none): half the frames ahead, once they reach ``WAIT_FROM``."""
        return min(MAX_WAIT, int(self.frames_ahead / 2)) if self.frames_ahead >= WAIT_FROM else 0

    def summary(self, rollbacks: int, resimulated: int, counters: dict[str, int]) -> str:
        """The session line of a headless end: rollbacks, what was dropped or refused, ping, waits.

        ``counters`` are the transport's; ``emulated_lost`` (what the network emulator threw
        away) is there only when an emulator runs on this peer. A part that does not apply
        is left out: garbage, damaged and replayed datagrams, address changes and late joins when there
        were none, the emulator's part when there is no emulator (with one, its 0 lost is
        said: it tells that nothing was lost; what it damaged and its port changes, when any).
        """
        parts = [f"{rollbacks} rollback{'' if rollbacks == 1 else 's'} ({resimulated} "
                 f"tick{'' if resimulated == 1 else 's'} re-simulated)"]
        if self.damaged:
            parts.append(f"{self.damaged} damaged or forged dropped")
        if self.garbage:
            parts.append(f"{self.garbage} garbage dropped")
        if self.replayed:
            parts.append(f"{self.replayed} replayed dropped")
        if self.moved:
            parts.append(f"followed {self.moved} address change{'' if self.moved == 1 else 's'}")
        if self.late_joins:
            parts.append(f"refused {self.late_joins} late join{'' if self.late_joins == 1 else 's'}")
        if "emulated_lost" in counters:
            damaged = counters.get("emulated_flipped", 0) + counters.get("emulated_truncated", 0)
            parts.append(f"{counters['emulated_lost']} lost" + (f" and {damaged} damaged" if damaged else "")
                         + " by the emulator")
            moves = counters.get("emulated_rebinds", 0)
            if moves:
                parts.append(f"this peer's port moved {_times(moves)} by the emulator")
        parts.append(f"ping {self.ping_total_ms / self.pings:.0f} ms mean, {self.last_ping_ms:.0f} ms last"
                     if self.pings and self.last_ping_ms is not None else "no ping measured")
        # A stall: this peer was ready for its next tick, but that player's input for it had not come.
        parts.extend(f"stalled {_times(count)} waiting for player {player}'s input"
                     for player, count in sorted(self.waits.items()))
        return "session: " + ", ".join(parts)


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")
