"""A headless session (``--ticks N``): the ticks as fast as the network allows, then an ending all peers reach.

The hard part of a headless session is its end. A peer that has confirmed tick N must
not simply leave: the others may still lack its last inputs or acknowledgements. The host
ends once every peer holds every input up to N (their ``acks``) and says so (``Bye``
"done"); a joiner ends on the host's goodbye, or ``LINGER_S`` after its own last tick (the
goodbye may be lost), answering the host all the while.

The last tick is a check tick (``Sync.final_tick``): no peer finishes before every
player peer's hash of it has been compared with its own (the host's rides on its
goodbye too), so a desync in the last stretch is found like any other, and peers stop
within one desync interval of it. The wait is bounded by the disconnect timeout: if the
hash never comes (the peer left and its last datagrams were lost) the peer says so in
one line and finishes.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LINGER_S", "NAP_S", "begin", "ended", "goodbye"]

LINGER_S = 1.0
"""After its last tick a peer keeps answering this long (or until the host's goodbye), so the others finish."""
NAP_S = 0.0005
"""How long a pass with nothing to do waits for the network (a datagram arriving ends the wait at once)."""


def begin(session: Any, ticks: int) -> None:
    """Make ``session`` (an ``engine.net.machine.SessionMachine``, ready) play ``ticks`` confirmed ticks, then end.

    The ticks count from the session's first (``origin``): a peer that joined late plays
    to the same last tick as the others.
    """
    sync = session.sync
    assert sync is not None
    session.target = sync.final_tick = session.origin + ticks
    session.finished_at = None


def ended(session: Any) -> bool:
    """After a pass (poll, advance): whether the ``--ticks`` session is over (finished together, or ended early).

    Finished once the last tick is confirmed, its hash compared with every player's, and
    every peer holds everything (or ``LINGER_S`` has passed): then ``goodbye`` says so.
    """
    if session.ended is not None or session.finished:
        return True
    sync, target = session.sync, session.target
    if sync.emitted < target or session.desync is not None:
        return False
    now = session.now()
    if session.finished_at is None:
        session.finished_at = now
    waited = now - session.finished_at
    if not _final_compared(session):
        if waited > session.options.disconnect_timeout:  # its hash was lost with its goodbye: say so
            session.say(f"the state hash of the last tick {target} could not be compared with "
                        f"{_unheard(session)} within {session.options.disconnect_timeout:g} s")
            session.finished = True
    elif _all_have_everything(session, target) or waited > LINGER_S:
        session.finished = True
    return bool(session.finished)


def goodbye(session: Any) -> None:
    """A finished peer's goodbye ("done", with its hash of the last tick: a joiner's final check rides on it)."""
    if session.finished:
        checked = session._checked
        target = session.target
        session.goodbye(f"done {checked[0]} {checked[1]}" if checked is not None and checked[0] == target else "done")


def _players(session: Any) -> list[int]:
    return [peer.player for peer in session.peers.values() if peer.player is not None]


def _final_compared(session: Any) -> bool:
    return all(player in session.final_matched for player in _players(session))


def _unheard(session: Any) -> str:
    missing = [player for player in _players(session) if player not in session.final_matched]
    return ", ".join("the host" if player == 0 else f"player {player}" for player in missing)


def _all_have_everything(session: Any, target: int) -> bool:
    if session.is_host:
        return all(peer.done or min(peer.acks) >= target for peer in session.peers.values())
    return all(peer.done for peer in session.peers.values())
