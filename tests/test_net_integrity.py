"""The envelope: a tag on every datagram, checked before anything is read, and the keys agreed at join."""

from __future__ import annotations

import pytest

from engine.net.integrity import (
    CONFIRM_HEX,
    GROUP_GENERATOR,
    GROUP_PRIME,
    KEY_HEX,
    MAX_DATAGRAM,
    OVERHEAD,
    PAKE_HEX,
    REPLAYED,
    KeyPair,
    Link,
    Pake,
    confirmation,
    confirmation_holds,
    frame_kind,
    link_keys,
    open_hello,
    open_reply,
    read_header,
    reply_key,
    seal_hello,
    seal_reply,
)

SESSION, TOKEN = 0x1234_5678_9ABC, 0x0FED_CBA9_8765
HELLO = seal_hello(b'{"k":"hello"}')


def _pi_bits(bits: int) -> int:
    """floor(pi * 2**bits), from Machin's formula in integers."""
    one = 1 << (bits + 64)

    def arctan_inverse(x: int) -> int:
        total = term = one // x
        n, sign = 1, -1
        while term:
            term //= x * x
            n += 2
            total += sign * (term // n)
            sign = -sign
        return total

    return (4 * (4 * arctan_inverse(5) - arctan_inverse(239))) >> 64


def test_the_group_is_rfc_3526s_2048_bit_safe_prime_and_its_generator():
    # RFC 3526 defines the prime by this formula (and proves it a safe prime): a typo in the constant is found here.
    assert 2**2048 - 2**1984 - 1 + 2**64 * (_pi_bits(1918) + 124476) == GROUP_PRIME
    assert GROUP_GENERATOR == 2 and KEY_HEX == 2048 // 4


def a_link() -> tuple[Link, Link]:
    """The two ends of one link, its keys agreed the way a join agrees them: (joiner's, host's)."""
    joiner, host = Pake("ABCDEF", host=False), Pake("ABCDEF", host=True)
    shared = joiner.finish(host.message_hex)
    assert shared is not None and shared == host.finish(joiner.message_hex), "both sides compute the same secret"
    keys = link_keys(shared, SESSION, TOKEN, HELLO)
    return Link.of_joiner(SESSION, TOKEN, keys), Link.of_host(SESSION, TOKEN, keys)


def test_both_ends_agree_a_key_only_with_the_same_code_and_a_third_party_with_the_messages_alone_does_not():
    joiner, host = Pake("ABCDEF", host=False), Pake("ABCDEF", host=True)
    shared = joiner.finish(host.message_hex)
    assert shared is not None and shared == host.finish(joiner.message_hex) and len(joiner.message_hex) == PAKE_HEX
    wrong_joiner, host_again = Pake("ABCDEG", host=False), Pake("ABCDEF", host=True)
    assert wrong_joiner.finish(host_again.message_hex) != host_again.finish(wrong_joiner.message_hex), "another code"
    # An eavesdropper with both messages, even knowing the code, lacks both sides' secret scalars.
    assert Pake("ABCDEF", host=False).finish(host.message_hex) != shared
    assert joiner.finish(host.message_hex) is None, "a side finishes once"


def test_the_hosts_confirmation_holds_only_for_the_same_secret_and_join():
    joiner, host = Pake("ABCDEF", host=False), Pake("ABCDEF", host=True)
    mine, theirs = joiner.finish(host.message_hex), host.finish(joiner.message_hex)
    assert mine is not None and theirs is not None
    confirm = confirmation(theirs, SESSION, TOKEN, HELLO, host.message_hex)
    assert len(confirm) == CONFIRM_HEX and confirmation_holds(mine, SESSION, TOKEN, HELLO, host.message_hex, confirm)
    assert not confirmation_holds(mine, SESSION, TOKEN + 1, HELLO, host.message_hex, confirm), "another join"
    assert not confirmation_holds(bytes(32), SESSION, TOKEN, HELLO, host.message_hex, confirm), "another secret"
    assert not confirmation_holds(mine, SESSION, TOKEN, HELLO, host.message_hex, "é" * 64)


@pytest.mark.parametrize("value", ["0" * PAKE_HEX, "41" + "0" * 64, "42" + "f" * 64, "x" * PAKE_HEX, "", "41"])
def test_a_message_no_honest_side_sends_is_refused(value):
    # "42" is the host's side byte: a host's message sent back to a host (a reflection) is refused too.
    assert Pake("ABCDEF", host=True).finish(value) is None


def test_the_old_diffie_hellman_key_pair_warns_that_pake_replaces_it():
    with pytest.warns(DeprecationWarning, match="use engine.net.integrity.Pake"):
        pair = KeyPair.new()
    assert len(pair.public_hex) == KEY_HEX


def test_a_sealed_datagram_opens_with_the_other_end_and_says_whether_it_is_the_newest():
    joiner, host = a_link()
    first, second = joiner.seal(b"one"), joiner.seal(b"two")
    assert len(first) == OVERHEAD + 3 and frame_kind(first) == b"S"
    header = read_header(second)
    assert header is not None and (header.session, header.token, header.seq) == (SESSION, TOKEN, 2)
    assert host.open(second) == (b"two", True)
    assert host.open(first) == (b"one", False), "older than one already taken: used, but moves nothing"
    assert host.open(second) == REPLAYED, "a duplicate or a replay is not taken again (test_net_replay)"
    assert joiner.open(host.seal(b"back")) == (b"back", True)


def test_every_bit_flip_and_every_cut_of_a_sealed_datagram_is_refused():
    joiner, host = a_link()
    data = joiner.seal(b'{"k":"inputs","key":65362}')
    for bit in range(len(data) * 8):
        flipped = bytearray(data)
        flipped[bit // 8] ^= 1 << (bit % 8)
        assert host.open(bytes(flipped)) is None, f"bit {bit}"
    for length in range(len(data)):
        assert host.open(data[:length]) is None, f"cut to {length}"
    assert host.open(data) is not None


def test_a_datagram_is_refused_by_another_link_and_when_reflected_to_its_sender():
    joiner, host = a_link()
    other_joiner, other_host = a_link()
    data = joiner.seal(b"mine")
    assert other_host.open(data) is None, "another join's key"
    assert joiner.open(data) is None, "sent back to its sender: each way has its own key"
    assert host.open(host.seal(b"echo")) is None


def test_a_hello_check_catches_damage_and_a_reply_opens_only_for_its_own_hello():
    body = b'{"k":"hello","nonce":5}'
    hello = seal_hello(body)
    assert frame_kind(hello) == b"H" and open_hello(hello) == body
    for bit in range(len(hello) * 8):
        flipped = bytearray(hello)
        flipped[bit // 8] ^= 1 << (bit % 8)
        damaged = bytes(flipped)
        assert frame_kind(damaged) != b"H" or open_hello(damaged) is None, f"bit {bit}"
    assert open_hello(hello[:-1]) is None
    reply = seal_reply(reply_key(hello), b"welcome")
    assert open_reply(reply_key(hello), reply) == b"welcome"
    assert open_reply(reply_key(seal_hello(b'{"k":"hello","nonce":6}')), reply) is None, "another join's answer"
    assert open_reply(reply_key(hello), reply[:-1]) is None


@pytest.mark.parametrize("data", [b"", b"TSW2", b"TSW1Sxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", b"TSW2X" + bytes(50),
                                  b"TSW2S" + bytes(10)])
def test_bytes_that_are_no_envelope_are_told_at_once(data):
    assert frame_kind(data) in (None, b"S") and read_header(data) is None


def test_an_envelope_keeps_the_largest_datagram_under_the_limit():
    joiner, _ = a_link()
    assert len(joiner.seal(bytes(MAX_DATAGRAM - OVERHEAD))) == MAX_DATAGRAM
