"""A hostile review's network findings (issue 19, review 20): memory bounds, the last tick compared, big snapshots.

Against fake peers (``test_net_running``'s ``FakeTransport``), with no sockets and no
timing: each defect is shown on its own (the last stretch's desync: ``test_net_play``).
"""

from __future__ import annotations

import random
from typing import Any

from test_net_running import GAME as LOADED
from test_net_running import ONE, PRESS, SESSION, inputs, running

from engine.net.checks import MAX_CHUNKS
from engine.net.desync import CHUNKS_PER_STEP, DesyncExchange, pack_snapshot
from engine.net.packets import Chunk, Inputs, Run, decode, encode_inputs
from engine.net.peers import MAX_ACK_LAG
from engine.net.sync import Sync
from engine.world import World


def test_a_flooding_player_cannot_grow_the_log_past_this_peers_own_tick() -> None:
    session, transport, _ = running()
    sync = session.machine.sync
    assert sync is not None
    for _ in range(200):  # each run starts at what the host acknowledged, as the review's flood did
        first = sync.known[1] + 1
        events = tuple((tick, (PRESS,)) for tick in range(first, first + 50))
        transport.deliver(ONE, inputs(1, 0, (2**31 - 1, 2**31 - 1), (Run(1, first, first + 103, events),)))
        session.poll()
    assert sync.known[1] <= sync.current + sync.window, sync.known[1]
    assert len(sync._events[1]) <= sync.window
    assert sync.cut_off > 0 and session.machine.stats.garbage > 0, "what was refused is counted"


def test_forged_huge_acks_do_not_hide_a_peer_that_never_acknowledges() -> None:
    session, transport, _ = running()
    sync = session.machine.sync
    assert sync is not None
    for tick in range(1, MAX_ACK_LAG + 50):  # one forged ack of everything, then never an acknowledgement
        acks = (2**31 - 1, 2**31 - 1) if tick == 1 else (0, 0)
        transport.deliver(ONE, inputs(1, tick, acks, (Run(1, tick, tick),)))
        session.poll()
        session.advance(())
        if session.ended is not None:
            break
    assert session.ended is not None and "player 1 (127.0.0.1:5001) fell" in session.ended, session.ended


def test_the_last_tick_of_a_session_is_compared_like_a_check_tick() -> None:
    session, transport, _ = running()
    sync = session.machine.sync
    assert sync is not None
    session.machine.target = sync.final_tick = 10  # what ``run_ticks(10)`` sets; 10 is no desync-interval tick
    for tick in range(1, 11):
        transport.deliver(ONE, inputs(1, tick, tuple(sync.known), (Run(1, tick, tick),)))
        session.poll()
        session.advance(())
    assert sync.emitted == 10 and session.machine.desync is None
    theirs = encode_inputs(Inputs(session=session.machine.session_id, sender=1, tick=10, acks=tuple(sync.known),
                                  checked=(10, "0" * 16)))
    transport.deliver(ONE, theirs)
    session.poll()
    assert session.machine.desync is not None and session.machine.desync.tick == 10, "a hash differing at the last tick is a desync"


def test_a_checked_tick_no_peer_checks_is_not_kept() -> None:
    session, transport, _ = running()
    for tick in (7, 120):  # 7 is no check tick; 120 is one (every 60), still to come
        transport.deliver(ONE, encode_inputs(Inputs(session=session.machine.session_id, sender=1, tick=0, acks=(0, 0),
                                                    checked=(tick, "0" * 16))))
    session.poll()
    assert list(session.machine._their_checks) == [(1, 120)]


def test_snapshots_are_kept_by_tick_age_not_a_count_of_check_ticks() -> None:
    with World(seed=3, players=2) as world:
        LOADED.build(world)
        sync = Sync(world, players=2, local=0, input_delay=2, max_prediction=8, desync_interval=1)
        for _ in range(8):
            sync.add_local(())
            sync.advance()
        assert sorted(sync.snapshots)[0] == 1, "tick 1's snapshot is kept while a peer's hash of it may come"
        for _ in range(400):
            sync.add_remote(1, sync.known[1] + 1, sync.known[1] + 1, {})
            sync.add_local(())
            sync.advance()
        assert len(sync.snapshots) <= sync.window + 1, "bounded"


def _big_snapshot() -> dict[str, Any]:
    rnd = random.Random(1)  # random floats barely compress: more than MAX_CHUNKS pieces
    return {"entities": [{"id": i, "class": "m.Mover", "state": {"x": rnd.random(), "y": rnd.random(),
                                                                   "vx": rnd.random()}, "signals": {}}
                         for i in range(50_000)]}


def test_a_snapshot_too_large_to_exchange_is_reported_by_tick_and_hashes_in_one_line() -> None:
    big = _big_snapshot()
    assert len(pack_snapshot(big)) > MAX_CHUNKS
    here: list[bytes] = []
    there: list[bytes] = []
    mine = DesyncExchange(here.append, 1, SESSION, 60, big, who="player 1", timeout_s=5, now=0.0,
                          hashes=("a" * 16, "b" * 16))
    theirs = DesyncExchange(there.append, 1, SESSION, 60, big, who="the host", timeout_s=5, now=0.0)
    for step in range(1, 6):
        for exchange, sent, other in ((mine, here, theirs), (theirs, there, mine)):
            exchange.step(step * 0.1)
            for data in sent:
                other.take(decode(data))
            assert len(sent) <= CHUNKS_PER_STEP + 2, "paced, not a burst"
            sent.clear()
    report = mine.step(1.0)
    assert report == ("desync at tick 60: the state differs from player 1's (state hash here aaaaaaaaaaaaaaaa, "
                      f"player 1's bbbbbbbbbbbbbbbb; the snapshot was too large to exchange, more than {MAX_CHUNKS} "
                      "datagrams)")
    assert "too large to exchange" in (theirs.step(1.0) or "")


def test_snapshot_chunks_are_paced_and_every_one_is_sent_in_turn() -> None:
    sent: list[bytes] = []
    snapshot = {"entities": [{"id": i, "class": "m.Mover", "state": {"x": random.Random(i).random()}, "signals": {}}
                             for i in range(12_000)]}
    exchange = DesyncExchange(sent.append, 1, SESSION, 60, snapshot, who="player 1", timeout_s=60, now=0.0)
    total = len(exchange.pieces)
    assert total > CHUNKS_PER_STEP
    indices: set[int] = set()
    for step in range(1, total // CHUNKS_PER_STEP + 2):
        exchange.step(step * 0.1)
        chunks = [packet for data in sent for packet in [decode(data)] if isinstance(packet, Chunk)]
        assert len(chunks) <= CHUNKS_PER_STEP
        indices.update(chunk.index for chunk in chunks)
        sent.clear()
    assert indices == set(range(total))
