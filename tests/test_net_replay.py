"""Replayed datagrams, in one process (``netsim``): each direction's numbers are taken once (issue 38, break 2).

A joiner is killed; an attacker who captured its datagrams sends them to the host again
from a new port, 20 a second. Each is a valid datagram of the dead peer's link: before the
replay window, each one reset the host's silence timer, and the host kept waiting for a
player that was gone. Now a datagram already taken (or too old) is dropped and counted,
and the player is dropped on time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from netsim import HOST_PORT, Net
from test_net_play import scripted

from engine.net.integrity import REPLAY_WINDOW, REPLAYED, Link, Pake, link_keys, seal_hello
from engine.net.lobby import SessionOptions

SESSION, TOKEN = 0x1234_5678_9ABC, 0x0FED_CBA9_8765


def a_link() -> tuple[Link, Link]:
    joiner, host = Pake("ABCDEF", host=False), Pake("ABCDEF", host=True)
    shared = joiner.finish(host.message_hex)
    assert shared is not None and shared == host.finish(joiner.message_hex)
    keys = link_keys(shared, SESSION, TOKEN, seal_hello(b"{}"))
    return Link.of_joiner(SESSION, TOKEN, keys), Link.of_host(SESSION, TOKEN, keys)


def test_each_number_is_taken_once_within_the_window_and_none_older() -> None:
    joiner, host = a_link()
    sent = [joiner.seal(f"d{n}".encode()) for n in range(REPLAY_WINDOW + 10)]
    assert host.open(sent[5]) == (b"d5", True)
    assert host.open(sent[5]) == REPLAYED, "a copy of one taken"
    assert host.open(sent[2]) == (b"d2", False), "reordered, never taken: used, moves nothing"
    assert host.open(sent[2]) == REPLAYED
    assert host.open(sent[REPLAY_WINDOW + 9]) == (f"d{REPLAY_WINDOW + 9}".encode(), True)
    assert host.open(sent[9]) == REPLAYED, "as old as the window: refused though never taken"
    assert host.open(sent[10]) == (b"d10", False), "just inside the window"
    assert host.open(sent[10]) == REPLAYED


def test_a_number_far_ahead_clears_the_window_without_a_huge_shift() -> None:
    joiner, host = a_link()
    joiner.sent = 2**62  # a peer's number is its word: a jump of 2**62 must cost nothing
    far = joiner.seal(b"far")
    assert host.open(far) == (b"far", True)
    assert host.open(far) == REPLAYED and host.seen.bit_length() <= REPLAY_WINDOW


def _captured(peer: Any, keep: Callable[[bytes], bool] = lambda data: True) -> list[bytes]:
    """Every datagram ``peer`` sends from now on that ``keep`` takes, copied as it goes (an eavesdropper's record)."""
    captured: list[bytes] = []
    send = peer.transport.send

    def capture(data: bytes, to: tuple[str, int]) -> bool:
        if keep(data):
            captured.append(data)
        return bool(send(data, to))
    peer.transport.send = capture
    return captured


def test_a_killed_joiners_replayed_datagrams_do_not_keep_it_alive_nor_move_it() -> None:
    options = SessionOptions(ticks=900, disconnect_timeout=0.5)
    net = Net()
    host = net.host(players=3, options=options)
    second, third = net.join(options=options), net.join(options=options)
    captured = _captured(third)
    net.open()
    scripted(net)
    attacker = net.network.transport()
    host_address = (net.network.host, HOST_PORT)
    killed_at: list[float] = []
    replays = 0

    def meddle(round_: int) -> None:
        nonlocal replays
        now = net.clock.now_ns() / 1e9
        if round_ == 150:
            net.kill(third)
            killed_at.append(now)
        if killed_at and 2 not in host.machine.dropped and now - killed_at[0] >= replays * 0.05:
            # 20 a second, from a port the peer never used, cycling through everything it sent.
            attacker.send(captured[replays % len(captured)], host_address)
            replays += 1
            assert now - killed_at[0] < 5.0, "the host still waits for the killed player 5 s on"
    net.play_session(900, between=meddle)
    seat = host.machine.dropped[2]
    assert seat.since - killed_at[0] < 0.5 + 0.1, "dropped on its --disconnect-timeout, replays or not"
    assert replays >= 8 and host.machine.stats.replayed >= replays - 2, (replays, host.machine.stats.replayed)
    assert f"{host.machine.stats.replayed} replayed dropped" in host.machine.summary({})
    assert host.machine.stats.moved == 0, "no replay moved the peer to the attacker's port"
    assert host.machine.finished and second.machine.finished and host.world is not None and second.world is not None
    assert host.world.state_hash() == second.world.state_hash()


def test_a_dead_hosts_replayed_welcome_does_not_keep_its_joiner_waiting() -> None:
    # A Welcome carries no number: once the host's datagrams come on the link, a Welcome is only ever a copy.
    options = SessionOptions(ticks=900, disconnect_timeout=0.5)
    net = Net()
    host = net.host(options=options)
    joiner = net.join(options=options)
    welcomes = _captured(host, lambda data: data[4:5] == b"R")
    net.open()
    scripted(net)
    attacker = net.network.transport()
    killed_at: list[float] = []

    def meddle(round_: int) -> None:
        now = net.clock.now_ns() / 1e9
        if round_ == 150:
            net.kill(host)
            killed_at.append(now)
        if killed_at and joiner.ended is None:
            attacker.send(welcomes[-1], joiner.address)
            assert now - killed_at[0] < 5.0, "the joiner still waits for the dead host 5 s on"
    net.play_session(900, between=meddle)
    assert joiner.ended is not None and "the host" in joiner.ended and "sent nothing for 0.5 s" in joiner.ended
    assert joiner.machine.stats.replayed > 0
