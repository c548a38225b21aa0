"""The host's lobby under a flood: few lines, garbage counted, no answer larger than its question.

In process, no sockets: the ``FakeTransport`` of ``test_net_running`` hands the lobby a
forged flood at once; the lobby ends after its start's grace (a quarter second).
"""

from __future__ import annotations

from typing import Any

from test_net_running import GAME, FakeTransport

from engine.net.lobby import LATE, build_plain, refuse_late
from engine.net.packets import Hello, Inputs, Refuse, decode, encode, encode_inputs, fit_refuse
from engine.net.refusals import SAID_IN_FULL, LobbyTally
from engine.net.session import Session, SessionOptions
from engine.state.names import __version__

FLOODER, JOINER, STRANGER = ("127.0.0.1", 6000), ("127.0.0.1", 6001), ("127.0.0.1", 6002)


def hello(nonce: int, *, ticks: int | None = None) -> bytes:
    return encode(Hello(game=GAME.name, digest=GAME.digest or "", engine=__version__, spectate=False, nonce=nonce,
                        ticks=ticks))


def hosted(inbox: list[tuple[bytes, Any]]) -> tuple[Session, FakeTransport, list[str]]:
    """A two-player host whose lobby receives ``inbox`` and then player 1's good Hello."""
    transport, said = FakeTransport(), []
    session = Session(transport, GAME, SessionOptions(), is_host=True, say=said.append, build=build_plain)
    session.players, session.seed, session.player, session.session_id = 2, 0, 0, 77
    transport.inbox.extend([*inbox, (hello(1), JOINER)])
    session.wait_ready(5.0)
    return session, transport, said


def refusals_to(transport: FakeTransport, address: Any) -> list[bytes]:
    return [data for data, to in transport.sent if to == address and isinstance(decode(data), Refuse)]


def test_a_flood_of_bad_hellos_is_a_few_lines_and_never_answered_with_more_bytes() -> None:
    flood = [(hello(nonce, ticks=5), FLOODER) for nonce in range(2, 3002)]
    session, transport, said = hosted(flood)
    refused = [line for line in said if "refused" in line]
    assert refused[:SAID_IN_FULL] == ["refused a join from 127.0.0.1:6000: the joiner asks for --ticks 5, the host "
                                      "plays frames (no --ticks) (a joiner with no --ticks plays the host's)"] * 3
    assert refused[SAID_IN_FULL:] == ["2997 more refused Hellos from 127.0.0.1:6000"]
    assert said[-1] == "all 2 players are in: the session starts"
    answers = refusals_to(transport, FLOODER)
    # The first few three times each, in full (a joiner must hear why); then one each, no larger than the Hello.
    assert len(answers) == 3 * SAID_IN_FULL + len(flood) - SAID_IN_FULL
    assert all(len(answer) <= len(flood[0][0]) for answer in answers[3 * SAID_IN_FULL:])
    assert [peer.player for peer in session.peers] == [1]


def test_held_back_refusals_are_said_once_a_second_in_one_line() -> None:
    said: list[str] = []
    tally, transport = LobbyTally(said.append, 0.0), FakeTransport()
    for at, address in enumerate([FLOODER] * 5 + [STRANGER] * 2):
        tally.refuse(transport, hello(at, ticks=5), at, "why", address)
        tally.tick(at / 10)  # 0.0 .. 0.6 s: no line yet
    assert said == ["refused a join from 127.0.0.1:6000: why"] * 3 + ["refused a join from 127.0.0.1:6002: why"] * 2
    tally.tick(1.0)
    tally.tick(1.5)
    assert said[5:] == ["2 more refused Hellos from 127.0.0.1:6000"]
    for address in (STRANGER, STRANGER, FLOODER, FLOODER):  # the stranger's third is said in full
        tally.refuse(transport, hello(9, ticks=5), 9, "why", address)
    tally.tick(2.0)
    assert said[6:] == ["refused a join from 127.0.0.1:6002: why",
                        "3 more refused Hellos from several addresses (127.0.0.1:6000 most)"]


def test_garbage_in_the_lobby_is_counted_in_the_sessions_garbage_figure() -> None:
    stranger_inputs = encode_inputs(Inputs(session=77, sender=1, tick=1, acks=(0, 0), runs=(), ping=1.0, echo=0.0))
    garbage = [(b"junk", STRANGER), (b"TSW1{", STRANGER), (stranger_inputs, STRANGER)]
    probes = [(b"", JOINER)]  # a joiner's knock on the port (lobby._Probe): not garbage
    session, _, _ = hosted(garbage + probes)
    assert session.stats.dropped_packets == len(garbage)
    assert "3 garbage dropped" in session.stats.summary(0, 0, {})


def test_a_late_refusal_is_never_larger_than_the_hello_it_answers() -> None:
    transport = FakeTransport()
    tiny = encode(Hello(game="", digest="", engine="1.0", spectate=False, nonce=5))  # the fields must all be there
    for data in (tiny, hello(6)):
        transport.sent.clear()
        assert refuse_late(transport, data, STRANGER)
        [(answer, _)] = transport.sent
        assert len(answer) <= len(data)
        refusal = decode(answer)
        assert isinstance(refusal, Refuse) and LATE.startswith(refusal.reason) and refusal.reason
    assert decode(transport.sent[0][0]) == Refuse(nonce=6, reason=LATE)  # a real joiner's Hello hears it all


def test_fit_refuse_cuts_the_reason_to_fit_or_answers_nothing() -> None:
    assert fit_refuse(1, "é" * 50, 60) is not None and len(fit_refuse(1, "é" * 50, 60) or b"") <= 60
    assert fit_refuse(1, "why", 10) is None
    assert fit_refuse(1, "why") == encode(Refuse(nonce=1, reason="why"))
