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

import time
from typing import Any

from engine.interrupts import TICK
from engine.net.lobby import bye

__all__ = ["LINGER_S", "run_ticks"]

LINGER_S = 1.0
"""After its last tick a peer keeps answering this long (or until the host's goodbye), so the others finish."""
NAP_S = 0.0005
"""How long to sleep when nothing could be done (the network is waited for)."""


def run_ticks(session: Any, ticks: int) -> None:
    """Run ``session`` (an ``engine.net.Session``, ready) for ``ticks`` confirmed ticks, or until it ends."""
    sync = session.sync
    assert sync is not None
    session.target = sync.final_tick = target = sync.current + ticks
    finished_at: float | None = None
    while session.ended is None and not session.finished:
        # Ctrl-C or SIGTERM waits for a whole step: landing between a tick and its hash, or
        # inside a rollback's re-run, it would leave the confirmed ticks and their hashes apart,
        # and the recording would have to end at its last hash.
        with TICK:
            session.poll()
            if session.ended is not None:
                break
            ran = session.advance(()) if session.desync is None else 0
        if sync.emitted >= target and session.desync is None:
            finished_at = finished_at or time.monotonic()
            waited = time.monotonic() - finished_at
            if not _final_compared(session):
                if waited > session.options.disconnect_timeout:  # its hash was lost with its goodbye: say so
                    session.say(f"the state hash of the last tick {target} could not be compared with "
                                f"{_unheard(session)} within {session.options.disconnect_timeout:g} s")
                    session.finished = True
            elif _all_have_everything(session, target) or waited > LINGER_S:
                session.finished = True
        if not ran:
            time.sleep(NAP_S)
    if session.finished:
        checked = session._checked
        done = f"done {checked[0]} {checked[1]}" if checked is not None and checked[0] == target else "done"
        for peer in session.peers:
            for _ in range(3):  # a lost goodbye costs the others LINGER_S, no more
                session.transport.send(bye(session.session_id, done), peer.address)


def _players(session: Any) -> list[int]:
    return [peer.player for peer in session.peers if peer.player is not None]


def _final_compared(session: Any) -> bool:
    return all(player in session.final_matched for player in _players(session))


def _unheard(session: Any) -> str:
    missing = [player for player in _players(session) if player not in session.final_matched]
    return ", ".join("the host" if player == 0 else f"player {player}" for player in missing)


def _all_have_everything(session: Any, target: int) -> bool:
    if session.is_host:
        return all(peer.done or min(peer.acks) >= target for peer in session.peers)
    return all(peer.done for peer in session.peers)
