"""Which peers a session keeps: a silent one, or one whose acknowledgements lag too far, is dropped.

Two bounds, both checked once a frame by ``Session.poll``. A peer that sends nothing for
``disconnect_timeout`` seconds is dropped. A peer that keeps sending but whose
acknowledgements fall more than ``MAX_ACK_LAG`` confirmed ticks behind (a stalled
spectator, a peer that never acknowledges) is dropped too: what it has not acknowledged is
kept and resent for it, so without this bound its memory would grow for as long as the
session runs. A spectator is dropped alone (the host says so in one line and tells it why
with a ``Bye``). A player dropped by the host of a session of 3 or more is dropped alone
too: the others play on, and the game reads that player as disconnected from a tick every
peer agrees on (``SessionMachine.lose_player``). The host, or a player of a session of 2,
ends the session on every side, naming it: the host is the star's centre (nobody relays
without it), and in a session of 2 no one is left to play with.
"""

from __future__ import annotations

from typing import Any

from engine.net.lobby import bye
from engine.net.peers import MAX_ACK_LAG, Peer

__all__ = ["check_peers"]


def check_peers(session: Any, now: float) -> None:
    """Drop the peers of ``session`` (an ``engine.net.machine.SessionMachine``) that are silent or lag too far.

    May end the session (a player dropped). ``now`` is the session's clock, in seconds.
    """
    timeout = session.options.disconnect_timeout
    emitted = session.sync.emitted
    for peer in list(session.peers.values()):
        silent = now - peer.heard > timeout
        if silent and (session.finished or peer.done):
            session.remove_peer(peer)  # it finished and left: no one to wait for
            continue
        lag = peer.ack_lag(emitted)
        if not silent and lag <= MAX_ACK_LAG:
            continue
        where = f"{peer.address[0]}:{peer.address[1]}"
        why = (f"sent nothing for {timeout:g} s" if silent
               else f"fell {lag} ticks behind (acknowledged tick {min(peer.acks)}, more than {MAX_ACK_LAG} behind)")
        if peer.player is None and session.is_host:
            session.spectator_lines.say(f"the spectator at {where} {why}: dropped", now)
            _goodbye(session, peer, f"this spectator {why}: dropped by the host")
            session.remove_peer(peer)
            continue
        session.lose_player(peer, f"{why}: dropped")
        if session.ended is not None:
            return


def _goodbye(session: Any, peer: Peer, reason: str) -> None:
    for _ in range(3):  # a lost goodbye costs the dropped peer its disconnect timeout, no more
        session._to(peer, bye(session.session_id, reason))
