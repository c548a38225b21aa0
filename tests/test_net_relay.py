"""The polled TURN client, sans-IO on a virtual clock against a scripted server: framing, refreshes, answers as data."""

from __future__ import annotations

import struct

from engine import VirtualClock
from engine.net import stun
from engine.net.relay import CHANNEL_REFRESH_S, IDLE_S, RETRY_S, TurnAllocation, TurnRelay, integrity_key

SERVER = ("127.0.0.1", 3478)
RELAYED = ("127.0.0.1", 49200)
PEER = ("127.0.0.1", 50000)
MOVED = ("127.0.0.1", 50001)  # the peer after its NAT rebound: same IP, another port
STRANGER = ("192.0.2.1", 9)
KEY = integrity_key("alice", "example.org", "secret")


def relay(clock: VirtualClock) -> TurnRelay:
    return TurnRelay(TurnAllocation(server=SERVER, relayed=RELAYED, username="alice", password="secret",
                                    realm="example.org", nonce=b"n1", channels={PEER: 0x4000}, next_channel=0x4001),
                     clock)


METHODS = {stun.REFRESH: "REFRESH", stun.CHANNEL_BIND: "CHANNEL_BIND", stun.CREATE_PERMISSION: "CREATE_PERMISSION",
           stun.SEND: "SEND", stun.DATA: "DATA"}
CLASSES = {stun.REQUEST: "REQUEST", stun.INDICATION: "INDICATION", stun.SUCCESS: "RESPONSE", stun.ERROR: "ERROR"}


def parsed(data: bytes) -> stun.Message:
    message = stun.parse(data)
    assert message is not None, data
    return message


def kinds(datagrams: list[bytes]) -> list[str]:
    """What the client sent: 'channel' for ChannelData, else the STUN method and class."""
    out = []
    for data in datagrams:
        if 0x40 <= data[0] <= 0x4F:
            out.append("channel")
        else:
            message = parsed(data)
            out.append(f"{METHODS[message.method]} {CLASSES[message.klass]}")
    return out


def answer(request: bytes, *, error: int | None = None, key: bytes = KEY, nonce: bytes | None = None,
           lifetime: int | None = None) -> bytes:
    """The server's answer to ``request``: a success or an error, signed with ``key`` as a server signs them."""
    asked = parsed(request)
    attributes = []
    if lifetime is not None:
        attributes.append((stun.LIFETIME, struct.pack(">I", lifetime)))
    if error:
        attributes.append((stun.ERROR_CODE, struct.pack(">HBB", 0, error // 100, error % 100) + b"error"))
    if nonce is not None:
        attributes.append((stun.NONCE, nonce))
    signed = error not in (401, 438)  # those two carry a new nonce or realm and are not signed (RFC 8489 9.2.5)
    return stun.build(asked.method, stun.ERROR if error else stun.SUCCESS, attributes, transaction=asked.transaction,
                      key=key if signed else None)


def data_indication(peer: tuple[str, int], payload: bytes) -> bytes:
    return stun.build(stun.DATA, stun.INDICATION, [(stun.XOR_PEER_ADDRESS, stun.xor_address(peer)),
                                                  (stun.DATA_ATTRIBUTE, payload)])


def test_the_allocation_is_refreshed_at_once_then_every_half_lifetime_and_its_channel_bound_again() -> None:
    clock = VirtualClock()
    client = relay(clock)
    first = client.poll()
    assert sorted(kinds(first)) == ["CHANNEL_BIND REQUEST", "REFRESH REQUEST"]
    for request in first:
        message = parsed(request)
        assert message.text(stun.USERNAME) == "alice" and message.attributes[stun.NONCE] == b"n1"
        assert message.integrity_ok(KEY)
        assert client.unwrap(answer(request, lifetime=300)) is None  # consumed
    assert client.lifetime_s == 300 and client.poll() == []
    clock.advance(149_000)
    assert client.poll() == []
    client.wrap(b"x", PEER)  # in use: its channel is kept
    clock.advance(1_000)  # half the lifetime
    assert kinds(client.poll()) == ["REFRESH REQUEST"]
    clock.advance((CHANNEL_REFRESH_S - 150) * 1000)
    assert "CHANNEL_BIND REQUEST" in kinds(client.poll())  # bound again before its permission's 300 s end


def test_datagrams_to_a_bound_peer_are_channel_data_and_a_moved_peer_gets_a_channel_of_its_own() -> None:
    clock = VirtualClock()
    client = relay(clock)
    (data,) = client.wrap(b"hello", PEER)
    assert data == struct.pack("!HH", 0x4000, 5) + b"hello"
    sent = client.wrap(b"hi", MOVED)  # a new port of the same IP: the permission covers it meanwhile
    assert kinds(sent) == ["CHANNEL_BIND REQUEST", "SEND INDICATION"]
    bind, indication = (parsed(d) for d in sent)
    assert bind.attributes[stun.CHANNEL_NUMBER] == struct.pack(">HH", 0x4001, 0) and bind.address() == MOVED
    assert indication.attributes[stun.DATA_ATTRIBUTE] == b"hi" and indication.address() == MOVED
    client.unwrap(answer(sent[0]))
    assert client.wrap(b"again", MOVED) == [struct.pack("!HH", 0x4001, 5) + b"again"]
    assert client.unwrap(struct.pack("!HH", 0x4001, 3) + b"abc") == (b"abc", MOVED)
    assert kinds(client.wrap(b"?", STRANGER)) == ["CHANNEL_BIND REQUEST"]  # no permission yet: held back
    assert client.counters["relay_held_back"] == 1


def test_a_stale_nonce_is_taken_and_the_request_sent_again_with_it() -> None:
    clock = VirtualClock()
    client = relay(clock)
    refresh = next(d for d in client.poll() if parsed(d).method == stun.REFRESH)
    assert client.unwrap(answer(refresh, error=438, nonce=b"n2")) is None
    (again,) = client.take_resends()
    message = parsed(again)
    assert message.method == stun.REFRESH and message.attributes[stun.NONCE] == b"n2"
    assert message.transaction != parsed(refresh).transaction and message.integrity_ok(KEY)
    client.unwrap(answer(again, lifetime=600))
    assert client.lost is None and client.lifetime_s == 600


def test_what_the_server_sends_is_data_checked_before_it_is_used() -> None:
    clock = VirtualClock()
    client = relay(clock)
    refresh = next(d for d in client.poll() if parsed(d).method == stun.REFRESH)
    client.unwrap(answer(refresh, key=b"forged", lifetime=5))  # signed with another key: not the server's
    assert client.lifetime_s == 600
    clock.advance(RETRY_S[0] * 1000)
    assert "REFRESH REQUEST" in kinds(client.poll())  # still open: sent again
    assert client.unwrap(struct.pack("!HH", 0x4999, 2) + b"hi") is None  # a channel never bound
    assert client.unwrap(struct.pack("!HH", 0x4000, 200) + b"short") is None  # a length past the end
    for peer, expected in ((STRANGER, None), (MOVED, (b"data", MOVED))):
        assert client.unwrap(data_indication(peer, b"data")) == expected  # only from an IP with a permission
    assert client.unwrap(b"\x00\x01 not stun at all") is None
    assert client.counters["relay_dropped"] == 5


def test_an_unanswered_request_is_sent_again_and_then_given_up() -> None:
    clock = VirtualClock()
    client = relay(clock)
    client.poll()
    sends = 0
    for wait in RETRY_S:
        clock.advance(wait * 1000)
        sends += kinds(client.poll()).count("REFRESH REQUEST")
    assert sends == len(RETRY_S) and client.counters["relay_retries"] >= len(RETRY_S)
    clock.advance(60_000)
    assert "REFRESH REQUEST" in kinds(client.poll())  # given up, then asked anew when its time came


def test_an_allocation_the_server_no_longer_has_is_lost_and_said_so() -> None:
    clock = VirtualClock()
    client = relay(clock)
    refresh = next(d for d in client.poll() if parsed(d).method == stun.REFRESH)
    client.unwrap(answer(refresh, error=437))
    assert client.lost is not None and "437 allocation mismatch" in client.lost
    assert client.wrap(b"x", PEER) == [] and client.poll() == []


def test_a_channel_not_used_for_long_is_left_to_lapse() -> None:
    clock = VirtualClock()
    client = relay(clock)
    for request in client.poll():
        client.unwrap(answer(request, lifetime=3600))
    clock.advance((IDLE_S + 1) * 1000)
    assert "CHANNEL_BIND REQUEST" not in kinds(client.poll())
