"""The STUN codec the polled peer speaks: what it builds another implementation reads, and it reads only whole messages."""

from __future__ import annotations

import struct

import pytest
from aioice import stun as aioice_stun

from engine.net import stun

KEY = b"k" * 16
PEER = ("203.0.113.9", 40001)


def request() -> bytes:
    return stun.build(stun.CHANNEL_BIND, stun.REQUEST,
                      [(stun.CHANNEL_NUMBER, struct.pack(">HH", 0x4001, 0)),
                       (stun.XOR_PEER_ADDRESS, stun.xor_address(PEER)), (stun.USERNAME, b"alice"),
                       (stun.REALM, b"example.org"), (stun.NONCE, b"n0nce")], key=KEY, fingerprint=True)


def test_what_is_built_is_read_back_and_by_aioice_too() -> None:
    data = request()
    message = stun.parse(data)
    assert message is not None and (message.method, message.klass) == (stun.CHANNEL_BIND, stun.REQUEST)
    assert message.address() == PEER and message.text(stun.USERNAME) == "alice" and message.integrity_ok(KEY)
    assert not message.integrity_ok(b"another key")
    theirs = aioice_stun.parse_message(data)  # another implementation: it checks the fingerprint as it parses
    assert theirs.attributes["XOR-PEER-ADDRESS"] == PEER and theirs.attributes["USERNAME"] == "alice"
    assert theirs.attributes["CHANNEL-NUMBER"] == 0x4001 and theirs.transaction_id == message.transaction
    if hasattr(theirs, "check_message_integrity"):  # aioice 0.11 on
        assert theirs.check_message_integrity(KEY)


def test_what_aioice_builds_is_read() -> None:
    theirs = aioice_stun.Message(message_method=aioice_stun.Method.BINDING,
                                 message_class=aioice_stun.Class.RESPONSE)
    theirs.attributes["XOR-MAPPED-ADDRESS"] = PEER
    theirs.add_message_integrity(KEY)
    message = stun.parse(bytes(theirs))
    assert message is not None and message.klass == stun.SUCCESS
    assert message.address(stun.XOR_MAPPED_ADDRESS) == PEER and message.integrity_ok(KEY)


def test_an_error_answer_says_its_code() -> None:
    data = stun.build(stun.REFRESH, stun.ERROR, [(stun.ERROR_CODE, struct.pack(">HBB", 0, 4, 38) + b"Stale Nonce")])
    message = stun.parse(data)
    assert message is not None and message.error_code == 438


def _damaged() -> list[bytes]:
    good = request()
    return [good[:-1], good + b"\0\0\0\0", good[:2] + struct.pack(">H", 400) + good[4:],  # cut, longer, a lie
            good[:4] + b"\0\0\0\0" + good[8:],  # no magic cookie
            bytes([good[0] | 0x80]) + good[1:],  # not two zero bits first
            good[:20] + struct.pack(">HH", stun.USERNAME, 500) + good[24:],  # an attribute past the end
            good[:-1] + bytes([good[-1] ^ 1]),  # the fingerprint fails
            b"", b"TSW2 not stun"]


@pytest.mark.parametrize("data", _damaged())
def test_a_damaged_message_is_no_message(data: bytes) -> None:
    assert stun.parse(data) is None


def test_a_flipped_bit_under_the_integrity_is_caught() -> None:
    data = stun.build(stun.BINDING, stun.REQUEST, [(stun.USERNAME, b"ours:them")], key=KEY)
    flipped = data[:25] + bytes([data[25] ^ 4]) + data[26:]
    message = stun.parse(flipped)
    assert message is not None and not message.integrity_ok(KEY)
