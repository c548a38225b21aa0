"""No amplifier: an address that has not proven it receives there gets at most 3x the bytes it sent (issue 38, break 1).

A spoofing attacker sends with a victim's source address; whatever the host or the
rendezvous answers goes to the victim. Before the address proofs, one spectator ``Hello``
made a host send its victim a ``Welcome`` every 20 ms until the lobby's timeout (hundreds
of times the bytes sent), and a running session sent a spoofed late spectator its whole
catch-up for seconds. Here every kind of datagram an attacker can send is sent once, as
the victim, to a host's lobby, to a running session and to a rendezvous; the victim's
bytes over the next two seconds are counted and printed per byte sent, and must be at
most ``AMPLIFICATION`` (3, QUIC's bound). Run with ``-s`` to see the table.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from netsim import Net, host_lobby, inbox
from test_net_rendezvous import SECRET, offer

from engine.clock import VirtualClock
from engine.net.cookies import AMPLIFICATION
from engine.net.emulate import Emulation
from engine.net.integrity import Link, Pake, rejoin_proof, seal_hello, seal_proven
from engine.net.lobby import SessionOptions
from engine.net.packets import Hello, encode
from engine.net.rendezvous import Rendezvous, close_request, join_request, open_request
from engine.net.session import Session
from engine.state.names import __version__

KEY = Pake("TESTCD", host=False).message_hex


def hello(*, spectate: bool = False, game: str | None = None, engine: str = __version__, key: bool = True,
          rejoin: int | None = None, nonce: int = 7) -> bytes:
    from netsim import GAME

    proof = rejoin_proof(b"s" * 16, rejoin, nonce, KEY) if rejoin is not None else ""
    return seal_hello(encode(Hello(game=GAME.name if game is None else game, digest=GAME.digest or "", engine=engine,
                                   spectate=spectate, nonce=nonce, key=KEY if key else "",
                                   rejoin=rejoin, proof=proof)))


def forged_session_datagram() -> bytes:
    return Link(1, 2, os.urandom(32), os.urandom(32)).seal(b'{"k":"bye","session":1,"reason":"x"}')


ATTACKS: dict[str, Callable[[], bytes]] = {
    "player Hello": lambda: hello(),
    "spectator Hello": lambda: hello(spectate=True),
    "Hello of another game": lambda: hello(game="other.py"),
    "Hello of another engine": lambda: hello(engine="0.0.1"),
    "Hello with no key (smallest)": lambda: hello(key=False),
    "rejoin Hello": lambda: hello(rejoin=5),
    "Hello with a guessed cookie": lambda: seal_proven(hello(spectate=True), b"g" * 16),
    "damaged Hello": lambda: hello()[:-1],
    "forged session datagram": forged_session_datagram,
    "garbage": lambda: b"TSW2Sxxxxxxxxx",
}
TABLE: list[tuple[str, str, int, int]] = []


def measure(net: Net, host: Session, data: bytes, *, rounds: int = 200, play: bool = False) -> int:
    """Bytes the victim receives in ``rounds`` rounds (10 ms each, 2 s) after ``data`` came from it once."""
    victim = net.network.transport()
    before = victim.counters["bytes_received"]
    inbox(host).append((data, victim.address))  # the attacker's datagram, with the victim's address
    for _ in range(rounds):
        if play:
            net.play_frames(1)
        else:
            host.poll()
            net.step(False)
    got = victim.counters["bytes_received"] - before
    victim.close()
    return got


def record(where: str, attack: str, sent: int, got: int) -> None:
    TABLE.append((where, attack, sent, got))
    print(f"{where:>16} | {attack:<30} | {sent:5d} B in | {got:5d} B out | {got / sent:5.2f}x")


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_host_lobby_answers_an_unproven_address_with_at_most_3x(attack: str) -> None:
    net = Net()
    host = net.host(players=3)
    host.open_lobby(60.0)
    data = ATTACKS[attack]()
    got = measure(net, host, data)
    record("host lobby", attack, len(data), got)
    assert got <= AMPLIFICATION * len(data), f"{attack}: {got} bytes for {len(data)}"
    assert not host_lobby(host).joined, "nobody was welcomed"


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_running_session_answers_an_unproven_address_with_at_most_3x(attack: str) -> None:
    net = Net()
    host = net.host(players=2)
    net.join()
    net.open()
    net.play_frames(50)
    data = ATTACKS[attack]()
    got = measure(net, host, data, play=True)
    record("running session", attack, len(data), got)
    assert got <= AMPLIFICATION * len(data), f"{attack}: {got} bytes for {len(data)}"
    assert len(host.machine.peers) == 1, "no late joiner was taken"


def test_a_proven_spectator_is_welcomed_and_a_welcome_is_never_sent_unasked() -> None:
    # The same spectator Hello, proven (the cookie the victim would have had to receive): welcomed once.
    net = Net()
    host = net.host(players=3)
    host.open_lobby(60.0)
    victim = net.network.transport()
    inbox(host).append((hello(spectate=True), victim.address))
    host.poll()
    [(retry, _)] = victim.receive()
    assert len(retry) < len(hello(spectate=True))
    proven = seal_proven(hello(spectate=True), host.machine.cookies.cookie(victim.address, host.machine.now()))
    inbox(host).append((proven, victim.address))
    host.poll()
    assert [peer.player for peer in host_lobby(host).joined.values()] == [None]


RENDEZVOUS: dict[str, Callable[[], bytes]] = {
    "open a new room": lambda: open_request("ABCDEF", SECRET, 1, offer(1)),
    "open a taken room": lambda: open_request("HHHHHH", b"x" * 16, 1, offer(1)),
    "join a room": lambda: join_request("HHHHHH", 9, offer(2)),
    "join no room": lambda: join_request("ZZZZZZ", 9, offer(2)),
    "close": lambda: close_request("HHHHHH", b"x" * 16),
    "STUN binding request": lambda: bytes.fromhex("000100002112a442") + os.urandom(12),
}


@pytest.mark.parametrize("attack", sorted(RENDEZVOUS))
def test_a_rendezvous_answers_an_unproven_address_with_at_most_3x_and_opens_nothing_for_it(attack: str) -> None:
    rendezvous = Rendezvous(clock=VirtualClock())
    host = ("203.0.113.5", 40000)
    room = open_request("HHHHHH", SECRET, 1, offer(1))
    cookie = rendezvous.receive(room, host)[0][0][-16:]
    rendezvous.receive(room[:-16] + cookie, host)
    assert rendezvous.rooms == 1
    data = RENDEZVOUS[attack]()
    got = sum(len(answer) for answer, _ in rendezvous.receive(data, ("198.51.100.7", 1)))
    record("rendezvous", attack, len(data), got)
    assert got <= AMPLIFICATION * len(data)
    assert rendezvous.rooms == 1, "no room opened for an unproven address"


def test_the_address_proof_adds_one_round_trip_to_a_join() -> None:
    # 50 ms each way: the Hello, its Retry, the proven Hello, the Welcome: two round trips, 200 ms (one before).
    options = SessionOptions(emulation=Emulation(delay_ms=50.0))
    net = Net()
    host = net.host(players=2, options=options)
    joiner = net.join(options=options)
    host.open_lobby(60.0)
    started = net.clock.now_ns() / 1e9
    joiner.open_lobby(60.0)
    while not joiner.ready:
        for peer in (host, joiner):
            peer.poll()
        net.step(False)
    took = net.clock.now_ns() / 1e9 - started
    print(f"a join by address over a 100 ms round trip: welcomed after {took * 1000:.0f} ms")
    assert 0.2 <= took < 0.25, took  # the rest: the lobby polling every 10 ms
