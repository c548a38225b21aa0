"""The rendezvous, sans-IO on a virtual clock: rooms, answers, expiry, limits, and every datagram checked as data."""

from __future__ import annotations

import struct

import pytest
from aioice import stun

from engine import VirtualClock
from engine.net.offer import MAX_CANDIDATES, Candidate, IceError, Offer, check_offer
from engine.net.rendezvous import (
    BUSY,
    CODE_ALPHABET,
    FULL,
    MAX_SOURCES,
    NO_ROOM,
    OK,
    PROVE,
    REQUEST_BYTES,
    ROOM_TTL_S,
    TAKEN,
    WAIT,
    Rendezvous,
    close_request,
    is_room_code,
    join_request,
    new_code,
    open_request,
    read_reply,
    room_code,
)

HOST = ("203.0.113.5", 40000)
JOINER = ("198.51.100.7", 50000)
SECRET = b"s" * 16


def offer(port: int) -> bytes:
    return Offer("abcd", "p" * 22, (Candidate("f1", 100, "10.0.0.2", port, "host"),
                                    Candidate("f2", 50, "203.0.113.5", port + 1, "srflx"))).encode()


def ask(rendezvous: Rendezvous, data: bytes, source: tuple[str, int]):
    """The rendezvous's answer to ``data`` from ``source``; an open it asks to prove is posted again with the cookie."""
    answers = rendezvous.receive(data, source)
    assert all(to == source for _, to in answers)  # answers go to the asker only
    assert all(len(answer) <= len(data) for answer, _ in answers)  # and are never larger than the question
    reply = read_reply(answers[0][0]) if answers else None
    if reply is not None and reply.status == PROVE:  # as engine.net.room's host does: the same post, with the cookie
        assert len(answers[0][0]) <= 47 and len(reply.blob) == 16
        return ask(rendezvous, data[:-16] + reply.blob, source)
    return reply


def test_spoofed_opens_from_many_addresses_open_no_room_and_get_47_bytes_each() -> None:
    # Issue 38: about 156 source addresses filled every room, as opening one needed no reply seen.
    rendezvous = Rendezvous(clock=VirtualClock(), max_rooms=4, rate=1000, burst=1000)
    for n in range(200):
        code = "".join(CODE_ALPHABET[(n * 7 + i) % len(CODE_ALPHABET)] for i in range(6))
        request = open_request(code, SECRET, 1, offer(1))
        [(answer, _)] = rendezvous.receive(request, (f"10.0.{n // 256}.{n % 256}", 9))
        reply = read_reply(answer)
        assert reply is not None and reply.status == PROVE and len(answer) == 47 < len(request)
    assert rendezvous.rooms == 0 and rendezvous.counters["unproven"] == 200
    wrong = open_request("ABCDEF", SECRET, 1, offer(1), cookie=b"k" * 16)  # a guessed cookie proves nothing
    cookie = rendezvous.cookies.cookie(JOINER, rendezvous.now())  # another address's cookie proves nothing either
    for request in (wrong, open_request("ABCDEF", SECRET, 1, offer(1), cookie)):
        reply = read_reply(rendezvous.receive(request, HOST)[0][0])
        assert reply is not None and reply.status == PROVE
    assert ask(rendezvous, open_request("ABCDEF", SECRET, 1, offer(1)), HOST).status == OK and rendezvous.rooms == 1


def test_a_host_and_a_joiner_swap_offers_under_a_code() -> None:
    rendezvous = Rendezvous(clock=VirtualClock())
    code = new_code()
    assert ask(rendezvous, open_request(code, SECRET, 0, b""), HOST).status == OK  # open, still gathering
    assert ask(rendezvous, join_request(code, 7, offer(2)), JOINER).status == WAIT
    assert ask(rendezvous, open_request(code, SECRET, 1, offer(1)), HOST).blob == b""  # the offer is up, no answer yet
    reply = ask(rendezvous, join_request(code, 7, offer(2)), JOINER)
    assert (reply.status, reply.nonce, reply.offer_id, reply.blob) == (OK, 7, 1, offer(1))
    assert ask(rendezvous, join_request(code, 7, offer(2)), JOINER).status == OK  # a repeat is answered the same
    assert ask(rendezvous, join_request(code, 8, offer(3)), ("192.0.2.9", 1)).status == BUSY  # another joiner waits
    reply = ask(rendezvous, open_request(code, SECRET, 1, offer(1)), HOST)
    assert (reply.status, reply.offer_id, reply.nonce, reply.blob) == (OK, 1, 7, offer(2))
    ask(rendezvous, open_request(code, SECRET, 2, offer(4)), HOST)  # the next offer: the other joiner's turn
    assert ask(rendezvous, join_request(code, 8, offer(3)), ("192.0.2.9", 1)).blob == offer(4)
    assert rendezvous.receive(close_request(code, SECRET), HOST) == []
    assert rendezvous.rooms == 0
    assert ask(rendezvous, join_request(code, 7, offer(2)), JOINER).status == NO_ROOM


def test_only_the_host_with_the_secret_posts_or_closes_its_room() -> None:
    rendezvous = Rendezvous(clock=VirtualClock())
    ask(rendezvous, open_request("ABCDEF", SECRET, 1, offer(1)), HOST)
    assert ask(rendezvous, open_request("ABCDEF", b"x" * 16, 5, offer(9)), JOINER).status == TAKEN
    rendezvous.receive(close_request("ABCDEF", b"x" * 16), JOINER)
    assert rendezvous.rooms == 1
    assert ask(rendezvous, join_request("ABCDEF", 3, offer(2)), JOINER).blob == offer(1)


def test_a_room_is_forgotten_when_its_host_stops_posting() -> None:
    clock = VirtualClock()
    rendezvous = Rendezvous(clock=clock)
    ask(rendezvous, open_request("ABCDEF", SECRET, 1, offer(1)), HOST)
    clock.advance((ROOM_TTL_S - 1) * 1000)
    ask(rendezvous, open_request("ABCDEF", SECRET, 1, offer(1)), HOST)  # a post keeps it
    clock.advance((ROOM_TTL_S - 1) * 1000)
    assert rendezvous.rooms == 1
    clock.advance(2000)
    assert rendezvous.rooms == 0 and rendezvous.counters["expired"] == 1


def test_rooms_and_sources_are_bounded() -> None:
    clock = VirtualClock()
    rendezvous = Rendezvous(clock=clock, max_rooms=2, rate=1000, burst=1000)
    for code in ("AAAAAA", "BBBBBB"):
        assert ask(rendezvous, open_request(code, SECRET, 1, offer(1)), HOST).status == OK
    assert ask(rendezvous, open_request("CCCCCC", SECRET, 1, offer(1)), HOST).status == FULL
    for n in range(MAX_SOURCES + 50):  # a flood from many addresses: the table of sources stays bounded
        rendezvous.receive(b"x", (f"10.{n // 65536}.{n // 256 % 256}.{n % 256}", 1))
    assert rendezvous.sources == MAX_SOURCES


def test_a_source_past_its_rate_is_dropped_until_its_tokens_come_back() -> None:
    clock = VirtualClock()
    rendezvous = Rendezvous(clock=clock, rate=10, burst=20)
    request = join_request("ABCDEF", 1, offer(1))
    answered = sum(bool(rendezvous.receive(request, JOINER)) for _ in range(100))
    assert answered == 20 and rendezvous.counters["rate_limited"] == 80
    assert rendezvous.receive(request, HOST)  # another address has its own bucket
    clock.advance(500)  # 5 tokens back
    assert sum(bool(rendezvous.receive(request, JOINER)) for _ in range(10)) == 5


def _damaged() -> list[bytes]:
    good = open_request("ABCDEF", SECRET, 1, offer(1))
    length = struct.unpack_from(">H", good, 12 + 16 + 8)[0]
    end = 12 + 16 + 8 + 2 + length
    return [
        good[:-1],  # a byte short
        good + b"\0",  # a byte long
        b"XXXX" + good[4:],  # another magic (and no STUN either)
        good[:4] + b"\x02" + good[5:],  # another version
        good[:5] + b"Q" + good[6:],  # another kind
        good[:6] + b"ABCDE0" + good[12:],  # a code with a 0
        good[:end] + b"\x01" + good[end + 1:],  # padding that is not zeros
        good[:36] + struct.pack(">H", 2000) + good[38:],  # a length past the end
        open_request("ABCDEF", SECRET, 1, b"tickswap-ice 1 abcd " + b"p" * 22 + b"\nnot a candidate"),
        open_request("ABCDEF", SECRET, 0, offer(1)),  # an offer under id 0 ("none yet")
        join_request("ABCDEF", 0, offer(1)),  # a join with no nonce
        bytes(REQUEST_BYTES),
        b"",
    ]


@pytest.mark.parametrize("data", _damaged())
def test_a_malformed_datagram_is_dropped_unanswered_and_counted(data: bytes) -> None:
    rendezvous = Rendezvous(clock=VirtualClock())
    assert rendezvous.receive(data, HOST) == []
    assert rendezvous.counters["malformed"] == 1 and rendezvous.rooms == 0


def test_stun_binding_requests_are_answered_with_the_source_address() -> None:
    rendezvous = Rendezvous(clock=VirtualClock())
    request = stun.Message(message_method=stun.Method.BINDING, message_class=stun.Class.REQUEST)
    (answer, to), = rendezvous.receive(bytes(request), JOINER)
    parsed = stun.parse_message(answer)
    assert to == JOINER and parsed.transaction_id == request.transaction_id
    assert parsed.message_class == stun.Class.RESPONSE and parsed.attributes["XOR-MAPPED-ADDRESS"] == JOINER
    indication = stun.Message(message_method=stun.Method.BINDING, message_class=stun.Class.INDICATION)
    assert rendezvous.receive(bytes(indication), JOINER) == []  # only a request is answered


def test_room_codes_are_typable_and_told_apart_from_addresses() -> None:
    code = new_code()
    assert len(code) == 6 and set(code) <= set(CODE_ALPHABET) and not set(code) & set("0O1IL")
    assert room_code(" k7q-x2m ") == "K7QX2M"
    with pytest.raises(ValueError, match=r"room code 'K7QX2O' has 'O': codes have only letters and digits, and never"):
        room_code("K7QX2O")
    with pytest.raises(ValueError, match="room code 'K7Q' is not 6 characters"):
        room_code("K7Q")
    assert is_room_code("k7qx2m") and not is_room_code("k7qx2m:7777") and not is_room_code("a.b.cd")
    assert not is_room_code("192.168.1.20") and not is_room_code("localhost")


@pytest.mark.parametrize("text, problem", [
    (b"tickswap-ice 2 abcd " + b"p" * 22 + b"\nf 1 1.2.3.4 5 host", "does not begin with 'tickswap-ice 1'"),
    (b"tickswap-ice 1 ab " + b"p" * 22 + b"\nf 1 1.2.3.4 5 host", "ufrag 'ab' is not 4 to 32 ICE characters"),
    (b"tickswap-ice 1 abcd short\nf 1 1.2.3.4 5 host", "password is not 22 to 64 ICE characters"),
    (b"tickswap-ice 1 abcd " + b"p" * 22, "the offer has 0 candidates"),
    (b"tickswap-ice 1 abcd " + b"p" * 22 + b"\nf 1 example.org 5 host", "candidate 1: host 'example.org' is not an IPv4"),
    (b"tickswap-ice 1 abcd " + b"p" * 22 + b"\nf 1 1.2.3.4 0 host", "candidate 1: port '0' is not a port"),
    (b"tickswap-ice 1 abcd " + b"p" * 22 + b"\nf 1 1.2.3.4 5 prflx", "candidate 1: kind 'prflx' is not one of"),
    (b"tickswap-ice 1 abcd " + b"p" * 22 + b"\nf 0 1.2.3.4 5 host", "candidate 1: priority '0' is not"),
    (b"tickswap-ice 1 abcd " + b"p" * 22 + b"\nf\xff 1 1.2.3.4 5 host", "the offer is not ASCII text"),
    (b"tickswap-ice 1 abcd " + b"p" * 22 + b"\nf 1 1.2.3.4 5 host x", "candidate 1: expected 5 fields"),
    (b"tickswap-ice 1 abcd " + b"p" * 22 + b"\nf 1 1.2.3.4 5 host" * (MAX_CANDIDATES + 1), "candidates: expected 1"),
])
def test_an_offer_is_checked_whole_and_the_first_wrong_field_named(text: bytes, problem: str) -> None:
    with pytest.raises(IceError, match=problem.replace("(", r"\(")):
        Offer.decode(text)
    assert check_offer(text) is not None
    assert check_offer(offer(1)) is None and Offer.decode(offer(1)).encode() == offer(1)
