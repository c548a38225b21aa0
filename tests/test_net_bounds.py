"""A hostile review's network findings (issue 19, review 20): memory bounds, the last tick compared, big snapshots.

Against fake peers (``test_net_running``'s ``FakeTransport``), with no sockets and no
timing: each defect is shown on its own.
"""

from __future__ import annotations

from test_net_running import ONE, PRESS, inputs, running

from engine.net.packets import Run
from engine.net.peers import MAX_ACK_LAG


def test_a_flooding_player_cannot_grow_the_log_past_this_peers_own_tick() -> None:
    session, transport, _ = running()
    sync = session.sync
    assert sync is not None
    for _ in range(200):  # each run starts at what the host acknowledged, as the review's flood did
        first = sync.known[1] + 1
        events = tuple((tick, (PRESS,)) for tick in range(first, first + 50))
        transport.inbox.append((inputs(1, 0, (2**31 - 1, 2**31 - 1), (Run(1, first, first + 103, events),)), ONE))
        session.poll()
    assert sync.known[1] <= sync.current + sync.window, sync.known[1]
    assert len(sync._events[1]) <= sync.window
    assert sync.cut_off > 0 and session.stats.dropped_packets > 0, "what was refused is counted"


def test_forged_huge_acks_do_not_hide_a_peer_that_never_acknowledges() -> None:
    session, transport, _ = running()
    sync = session.sync
    assert sync is not None
    for tick in range(1, MAX_ACK_LAG + 50):  # one forged ack of everything, then never an acknowledgement
        acks = (2**31 - 1, 2**31 - 1) if tick == 1 else (0, 0)
        transport.inbox.append((inputs(1, tick, acks, (Run(1, tick, tick),)), ONE))
        session.poll()
        session.advance(())
        if session.ended is not None:
            break
    assert session.ended is not None and "player 1 (127.0.0.1:5001) fell" in session.ended, session.ended
