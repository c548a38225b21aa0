"""What a session shows on the HUD, and GGRS's time sync: how far ahead this peer runs, and when to wait.

A peer whose world runs ahead of the others makes them roll back more and more; GGRS
answers with a ``WaitRecommendation``: skip a frame or two so the others catch up. Frames
ahead are estimated per peer from the tick its last datagram said it was at, moved on by
half the round trip (``Peer.frames_ahead``). The peer most waited on (whose missing input
held this one up most often) is the slow one (``waits``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.net.peers import Peer
from engine.net.sync import Sync

__all__ = ["WAIT_FROM", "SessionStats"]

WAIT_FROM = 3.0
"""Frames ahead from which a peer is told to wait (half of it, as GGRS does: the others move too)."""


@dataclass
class SessionStats:
    """What the HUD shows: ping, frames ahead, rollbacks, who is waited for, datagrams dropped."""

    ping_ms: float = 0.0
    frames_ahead: float = 0.0
    rollbacks_per_s: float = 0.0
    rollbacks: int = 0
    waiting_on: int | None = None
    dropped_packets: int = 0
    waits: dict[int, int] = field(default_factory=dict)
    """How many times each player's missing input held this peer up (the slow peer is the most waited on)."""
    rollback_times: list[float] = field(default_factory=list)
    """When the rollbacks of the last second happened (``time.monotonic``)."""

    def refresh(self, peers: Sequence[Peer], sync: Sync, now: float) -> None:
        """Recompute the figures from the peers and the rollback core."""
        self.rollback_times = [at for at in self.rollback_times if now - at <= 1.0]
        self.rollbacks_per_s = float(len(self.rollback_times))
        self.rollbacks = sync.rollbacks
        players = [peer for peer in peers if peer.player is not None]
        if players:
            self.ping_ms = max(peer.ping_ms for peer in players)
            self.frames_ahead = max(peer.frames_ahead(sync.current, sync.world.ms_per_update) for peer in players)

    def hud_text(self) -> str:
        """One short line: ping, frames ahead, rollbacks a second, who is waited on."""
        waiting = f", waiting on player {self.waiting_on}" if self.waiting_on is not None else ""
        return (f"ping {self.ping_ms:.0f} ms, {self.frames_ahead:+.1f} ahead, "
                f"{self.rollbacks_per_s:.1f} rollbacks/s{waiting}")

    def recommend_wait(self) -> int:
        """Frames to skip now (0: none): half the frames ahead, once they reach ``WAIT_FROM``."""
        return int(self.frames_ahead / 2) if self.frames_ahead >= WAIT_FROM else 0
