"""The messages: every one round-trips through its body, every field is refused by name, and no bytes make decode
raise anything but PacketError. (The envelope around a body is ``test_net_integrity``'s.)"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.input.events import InputEvent
from engine.net.packets import (
    MAX_BODY,
    SPECTATOR,
    Bye,
    Catchup,
    Caught,
    Chunk,
    Desync,
    Got,
    Hello,
    Inputs,
    Message,
    PacketError,
    Refuse,
    Retry,
    Run,
    Start,
    Welcome,
    decode,
    encode,
    encode_inputs,
    fit_inputs,
)

PRESS = InputEvent("key_press", 65363)
MOVE = InputEvent("mouse_motion", None, 10.5, 20.0)
STICK = InputEvent("stick", 1, 0.5, -1.0)
SCROLL = InputEvent("mouse_scroll", None, 1.0, 2.0, 0, 0.0, -3.0)

MESSAGES: list[Message] = [
    Hello("patrol", "ab" * 32, "0.1.0", False, 12345, key="41" + "0f" * 32),
    Hello("my game.py", "", "1.2.3", True, 0),
    Welcome(7, 12345, 1, 3, 2**64 - 1, 16.5, "patrol", "ab" * 32, token=2**63 - 1, key="42" + "e0" * 32,
            confirm="c3" * 32),
    Welcome(7, 1, None, 2, 0, 20.0, "patrol", ""),
    Refuse(12345, "the session is full (2 players)"),
    Start(7, 4),
    Inputs(7, 0, 100, (99, 97), (Run(1, 98, 100, ((98, (PRESS, MOVE)), (100, (STICK, SCROLL)))),), 1234.5, 1200.25,
           (60, "0123456789abcdef"), -1.5),
    Inputs(7, SPECTATOR, 0, (-1,), (), 0.0, 0.0, None, 0.0),
    Inputs(7, 2, 5, (), (Run(2, 3, 5),)),
    Desync(7, 120),
    Chunk(7, 120, 0, 2048, bytes(range(256))),
    Chunk(7, 120, 3, 4, b""),
    Got(7, 120),
    Bye(7, "closed by the player"),
    Retry(12345, "5a" * 16),
]


# The bytes each message kind was written as when this list was made (issue 40): a change in
# how messages are declared must leave every datagram byte for byte as it was, or peers of two
# versions of the same protocol would stop understanding each other.
LATER_FIELDS: list[Message] = [
    Hello("patrol", "ab" * 32, "0.1.0", False, 7, ticks=600, allow_mismatch=True, key="41" + "0f" * 32, rejoin=2**62,
          proof="9c" * 16),
    Welcome(7, 1, 2, 3, 5, 16.5, "patrol", "ab" * 32, ticks=900, desync_interval=30, token=11, key="42" + "e0" * 32,
            catchup=480, confirm="c3" * 32),
    Inputs(7, 1, 700, (699,), (), 5.0, 4.0, None, 0.25, ((640, 4), (900, 0))),
    Catchup(7, 480, 1, 3, b"\x00\xffzlib"),
    Caught(7, 480, 3),
]
WIRE = [
    b'{"k":"hello","game":"patrol","digest":"abababababababababababababababababababababababababababababababab","engine":"0.1.0","spectate":false,"nonce":12345,"allow_mismatch":false,"ticks":null,"key":"410f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"}',
    b'{"k":"hello","game":"my game.py","digest":"","engine":"1.2.3","spectate":true,"nonce":0,"allow_mismatch":false,"ticks":null,"key":""}',
    b'{"k":"welcome","session":7,"nonce":12345,"player":1,"players":3,"seed":18446744073709551615,"ms_per_update":16.5,"game":"patrol","digest":"abababababababababababababababababababababababababababababababab","ticks":null,"desync_interval":60,"token":9223372036854775807,"key":"42e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0","confirm":"c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3"}',
    b'{"k":"welcome","session":7,"nonce":1,"player":null,"players":2,"seed":0,"ms_per_update":20.0,"game":"patrol","digest":"","ticks":null,"desync_interval":60,"token":0,"key":""}',
    b'{"k":"refuse","nonce":12345,"reason":"the session is full (2 players)"}',
    b'{"k":"start","session":7,"players":4}',
    b'{"k":"inputs","session":7,"sender":0,"tick":100,"acks":[99,97],"runs":[[1,98,100,[[98,[["key_press",65363,0.0,0.0],["mouse_motion",null,10.5,20.0]]],[100,[["stick",1,0.5,-1.0],["mouse_scroll",null,1.0,2.0,0,0.0,-3.0]]]]]],"ping":1234.5,"echo":1200.25,"checked":[60,"0123456789abcdef"],"ahead":-1.5}',
    b'{"k":"inputs","session":7,"sender":255,"tick":0,"acks":[-1],"runs":[],"ping":0.0,"echo":0.0,"checked":null,"ahead":0.0}',
    b'{"k":"inputs","session":7,"sender":2,"tick":5,"acks":[],"runs":[[2,3,5,[]]],"ping":0.0,"echo":0.0,"checked":null,"ahead":0.0}',
    b'{"k":"desync","session":7,"tick":120}',
    b'{"k":"chunk","session":7,"tick":120,"index":0,"total":2048,"data":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3Oz9DR0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w=="}',
    b'{"k":"chunk","session":7,"tick":120,"index":3,"total":4,"data":""}',
    b'{"k":"got","session":7,"tick":120}',
    b'{"k":"bye","session":7,"reason":"closed by the player"}',
    b'{"k":"retry","nonce":12345,"cookie":"5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"}',
    b'{"k":"hello","game":"patrol","digest":"abababababababababababababababababababababababababababababababab","engine":"0.1.0","spectate":false,"nonce":7,"allow_mismatch":true,"ticks":600,"key":"410f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f","rejoin":4611686018427387904,"proof":"9c9c9c9c9c9c9c9c9c9c9c9c9c9c9c9c"}',
    b'{"k":"welcome","session":7,"nonce":1,"player":2,"players":3,"seed":5,"ms_per_update":16.5,"game":"patrol","digest":"abababababababababababababababababababababababababababababababab","ticks":900,"desync_interval":30,"token":11,"key":"42e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0","catchup":480,"confirm":"c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3"}',
    b'{"k":"inputs","session":7,"sender":1,"tick":700,"acks":[699],"runs":[],"ping":5.0,"echo":4.0,"checked":null,"ahead":0.25,"delays":[[640,4],[900,0]]}',
    b'{"k":"catchup","session":7,"tick":480,"index":1,"total":3,"data":"AP96bGli"}',
    b'{"k":"caught","session":7,"tick":480,"have":3}',
]


@pytest.mark.parametrize(("message", "wire"), list(zip(MESSAGES + LATER_FIELDS, WIRE, strict=True)),
                         ids=lambda value: type(value).__name__ if not isinstance(value, bytes) else "")
def test_every_message_kind_is_written_byte_for_byte_as_before(message: Message, wire: bytes) -> None:
    assert encode(message) == wire
    assert decode(wire) == message
    assert {type(message).__name__ for message in MESSAGES + LATER_FIELDS} == {
        "Hello", "Welcome", "Refuse", "Retry", "Start", "Inputs", "Desync", "Chunk", "Got", "Catchup", "Caught",
        "Bye"}, "every kind"


@pytest.mark.parametrize("message", MESSAGES, ids=lambda message: type(message).__name__)
def test_every_message_kind_round_trips_through_its_datagram(message):
    data = encode(message)
    assert data.startswith(b'{"k":') and len(data) <= MAX_BODY
    assert decode(data) == message
    assert type(decode(data)) is type(message)


def test_a_number_written_whole_decodes_as_the_float_it_was_built_as():
    decoded = decode(b'{"k":"inputs","session":1,"sender":0,"tick":0,"acks":[],"runs":[],"ping":5,'
                     b'"echo":0,"checked":null,"ahead":0}')
    assert decoded == Inputs(1, 0, 0, ping=5.0) and isinstance(decoded.ping, float)


def _record(message):
    return json.loads(encode(message))


def _packet(record):
    return json.dumps(record, separators=(",", ":")).encode()


# (message, field, bad value, words the refusal names)
REFUSED_FIELDS = [
    (MESSAGES[0], "game", "two\nlines", "hello game"),
    (MESSAGES[0], "game", "x" * 301, "hello game"),
    (MESSAGES[0], "digest", "XYZ", "hello digest"),
    (MESSAGES[0], "engine", "latest", "hello engine"),
    (MESSAGES[0], "spectate", 1, "hello spectate"),
    (MESSAGES[0], "nonce", -1, "hello nonce"),
    (MESSAGES[0], "key", "0F" * 33, "hello key"),
    (MESSAGES[0], "key", "0f" * 32, "hello key"),
    (MESSAGES[0], "key", "0f" * 256, "hello key"),
    (MESSAGES[2], "confirm", "c3" * 31, "welcome confirm"),
    (MESSAGES[-1], "cookie", "zz" * 16, "retry cookie"),
    (MESSAGES[2], "session", "7", "welcome session"),
    (MESSAGES[2], "nonce", 1.5, "welcome nonce"),
    (MESSAGES[2], "player", 8, "welcome player"),
    (MESSAGES[2], "player", 3, "welcome player 3"),
    (MESSAGES[2], "players", 9, "welcome players"),
    (MESSAGES[2], "seed", 2**64, "welcome seed"),
    (MESSAGES[2], "ms_per_update", 0, "welcome ms_per_update"),
    (MESSAGES[2], "game", 5, "welcome game"),
    (MESSAGES[2], "digest", "g" * 64, "welcome digest"),
    (MESSAGES[2], "token", -1, "welcome token"),
    (MESSAGES[2], "key", 5, "welcome key"),
    # A key, a confirmation or a proof that is not sent is "" (left off the wire): a null or a
    # false one is refused, where a check written "if self.key:" let it through (issue 40).
    (MESSAGES[0], "key", None, "hello key"),
    (MESSAGES[1], "proof", None, "hello proof"),
    (MESSAGES[2], "key", False, "welcome key"),
    (MESSAGES[3], "confirm", None, "welcome confirm"),
    (MESSAGES[4], "nonce", None, "refuse nonce"),
    (MESSAGES[4], "reason", "r" * 301, "refuse reason"),
    (MESSAGES[5], "session", -1, "start session"),
    (MESSAGES[5], "players", 0, "start players"),
    (MESSAGES[6], "session", True, "inputs session"),
    (MESSAGES[6], "sender", 8, "inputs sender"),
    (MESSAGES[6], "tick", 2**31, "inputs tick"),
    (MESSAGES[6], "acks", [1] * 9, "inputs acks"),
    (MESSAGES[6], "acks", [-2], "inputs acks"),
    (MESSAGES[6], "acks", 3, "inputs acks"),
    (MESSAGES[6], "runs", {}, "inputs runs"),
    (MESSAGES[6], "runs", [[8, 0, 0, []]], "run player"),
    (MESSAGES[6], "runs", [[0, 5, 4, []]], "run last"),
    (MESSAGES[6], "runs", [[0, -1, 4, []]], "run first"),
    (MESSAGES[6], "runs", [[0, 0, 4, [[5, [["key_press", 1, 0, 0]]]]]], "run events tick 5"),
    (MESSAGES[6], "runs", [[0, 0, 4, [[2, [["key_press", 1, 0, 0]]], [2, [["key_press", 1, 0, 0]]]]]],
     "run events tick"),
    (MESSAGES[6], "runs", [[0, 0, 4, [[2, []]]]], "run events of tick 2"),
    (MESSAGES[6], "runs", [[0, 0, 4, [[2, [["teleport", 1, 0, 0]]]]]], "run events of tick 2[0]"),
    (MESSAGES[6], "runs", [[0, 0, 4, [[2, [["stick", 2, 0, 0]]]]]], "stick"),
    (MESSAGES[6], "runs", [[0, 0, 4]], "a run must be"),
    (MESSAGES[6], "ping", -1, "inputs ping"),
    (MESSAGES[6], "echo", "1", "inputs echo"),
    (MESSAGES[6], "checked", [1, "ABC"], "inputs checked hash"),
    (MESSAGES[6], "checked", [-1, "0123456789abcdef"], "inputs checked tick"),
    (MESSAGES[6], "checked", "x", "inputs checked"),
    (MESSAGES[6], "ahead", 1e7, "inputs ahead"),
    (MESSAGES[9], "tick", "1", "desync tick"),
    (MESSAGES[10], "total", 2049, "chunk total"),
    (MESSAGES[10], "index", 2048, "chunk index"),
    (MESSAGES[10], "data", "not base64!", "chunk data"),
    (MESSAGES[12], "tick", None, "got tick"),
    (MESSAGES[13], "reason", ["bye"], "bye reason"),
    (MESSAGES[13], "session", 2**64, "bye session"),
    (MESSAGES[12], "session", "7", "got session"),
    (MESSAGES[9], "session", None, "desync session"),
    (MESSAGES[-1], "nonce", -1, "retry nonce"),
    (LATER_FIELDS[3], "index", 3, "catchup index"),
    (LATER_FIELDS[3], "data", "not base64!", "catchup data"),
    (LATER_FIELDS[3], "tick", -1, "catchup tick"),
    (LATER_FIELDS[4], "have", 2049, "caught have"),
    (LATER_FIELDS[4], "tick", 1.5, "caught tick"),
]


@pytest.mark.parametrize("message, field, value, named", REFUSED_FIELDS)
def test_every_field_is_refused_by_name(message, field, value, named):
    record = _record(message)
    record[field] = value
    with pytest.raises(PacketError, match=named.replace("[", r"\[")):
        decode(_packet(record))


def test_a_message_built_wrong_is_refused_by_name_before_it_is_sent():
    with pytest.raises(PacketError, match="hello nonce"):
        Hello("patrol", "", "0.1.0", False, -5)
    with pytest.raises(PacketError, match="inputs acks"):
        Inputs(1, 0, 0, acks=[1, 2])  # type: ignore[arg-type]  # a list is not the tuple a message holds
    with pytest.raises(PacketError, match="run events tick"):
        Run(0, 0, 5, ((3, (PRESS,)), (3, (PRESS,))))
    with pytest.raises(PacketError, match="can't be sent"):
        encode(Inputs(1, 0, 0, runs=(Run(0, 0, 0, ((0, (InputEvent("key_press", "a"),)),)),)))
    with pytest.raises(PacketError, match="not a message"):
        encode("hello")  # type: ignore[arg-type]


@pytest.mark.parametrize("data, named", [
    (b"", "not a tickswap packet"),
    (b"TSW2{}", "not a tickswap packet"),
    (b"{" + b"x" * MAX_BODY, f"over {MAX_BODY}"),
    (b"{\xff\xfe", "malformed"),
    (b'{"k":"bye","session":1,"reason":"a","reason":"b"}', "twice"),
    (b'{"k":"inputs","session":1,"sender":0,"tick":0,"acks":[],"runs":[],"ping":NaN,"echo":0,'
     b'"checked":null,"ahead":0}', "NaN"),
    (b'{"k":"got","session":1,"tick":1e400}', "out of range"),
    (b'{"k":"got","session":' + b"9" * 50 + b',"tick":1}', "digits"),
    (b'{"a":' * 20 + b"1" + b"}" * 20, "nested deeper"),
    (b'{"k":"teleport"}', "unknown packet kind"),
    (b'{"k":"got","session":1}', "has no 'tick'"),
    (b'{"k":"got","session":1,"tick":1,"nonce":3}', "unknown field 'nonce'"),
    (b'{"k":"got","session":1,"tick":1,"zzz":3}', "unknown field 'zzz'"),
    (b"[1]", "not a tickswap packet"),
])
def test_malformed_datagrams_are_refused_by_name(data, named):
    with pytest.raises(PacketError, match=named):
        decode(data)


def test_encode_refuses_a_message_over_a_datagram():
    with pytest.raises(PacketError, match=f"over the {MAX_BODY} bytes"):
        encode(Chunk(1, 1, 0, 1, bytes(1000)))


def _runs(players, first, last, events_each):
    return tuple(Run(player, first, last, tuple((tick, (PRESS,) * events_each) for tick in range(first, last + 1)))
                 for player in range(players))


def test_fit_inputs_keeps_a_message_that_fits_as_it_is():
    message = Inputs(1, 0, 10, (10, 10), _runs(2, 8, 10, 1))
    assert fit_inputs(message) is message
    assert decode(encode_inputs(message)) == message


def test_fit_inputs_drops_the_latest_ticks_whole_until_the_datagram_fits():
    message = Inputs(1, 0, 200, (150,) * 3, _runs(3, 151, 200, 2))
    fitted = fit_inputs(message)
    data = encode(fitted)
    assert len(data) <= MAX_BODY and decode(data) == fitted
    cut = fitted.runs[0].last
    assert 151 <= cut < 200
    for run, whole in zip(fitted.runs, message.runs):
        # The earliest ticks are kept, each with all its events, and the run ends at the cut.
        assert (run.first, run.last) == (151, cut)
        assert run.events == tuple(item for item in whole.events if item[0] <= cut)
    # It is the latest cut that fits: one tick more would not.
    longer = Inputs(1, 0, 200, (150,) * 3, _runs(3, 151, cut + 1, 2))
    assert len(encode_inputs(longer)) == len(data) and fit_inputs(longer) != longer


def test_fit_inputs_drops_a_run_that_starts_after_the_cut_and_refuses_what_never_fits():
    late = Run(1, 500, 500, ((500, (PRESS,)),))
    message = Inputs(1, 0, 200, (), _runs(1, 100, 200, 3) + (late,))
    fitted = fit_inputs(message)
    assert [run.player for run in fitted.runs] == [0] and len(encode(fitted)) <= MAX_BODY
    huge = Inputs(1, 0, 0, (), (Run(0, 0, 0, ((0, (PRESS,) * 100),)),))
    assert fit_inputs(huge).runs == ()
    with pytest.raises(PacketError, match="limit"):
        fit_inputs(message, 5000)


FUZZ = settings(max_examples=400, deadline=None, derandomize=True)
VALID = [encode(message) for message in MESSAGES]


def _decodes_or_refuses(data: bytes) -> None:
    try:
        message = decode(data)
    except PacketError:
        return
    assert decode(encode(message)) == message  # whatever is accepted is a message that round-trips


@FUZZ
@given(st.binary(max_size=MAX_BODY + 10))
def test_random_bytes_raise_only_packet_error(data):
    _decodes_or_refuses(data)
    _decodes_or_refuses(b"{" + data)


@FUZZ
@given(st.sampled_from(VALID), st.integers(0, MAX_BODY), st.binary(min_size=1, max_size=8),
       st.integers(0, 2))
def test_mutated_and_truncated_packets_raise_only_packet_error(valid, at, patch, how):
    at %= len(valid) + 1
    if how == 0:
        data = valid[:at]
    elif how == 1:
        data = valid[:at] + patch + valid[at + len(patch):]
    else:
        data = valid[:at] + patch + valid[at:]
    _decodes_or_refuses(data)


@FUZZ
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(max_size=10),
                    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children,
                                                                                       max_size=4),
                    max_leaves=20),
       st.sampled_from(MESSAGES), st.data())
def test_any_json_value_in_any_field_raises_only_packet_error(value, message, data):
    record = _record(message)
    field = data.draw(st.sampled_from(sorted(record)))
    record[field] = value
    _decodes_or_refuses(_packet(record))
