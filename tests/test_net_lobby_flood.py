"""The host's lobby under a flood: few lines, garbage counted, no answer larger than its question.

In process, no sockets: the ``FakeTransport`` of ``test_net_running`` hands the lobby a
forged flood at once; the lobby ends after its start's grace (a quarter second of the
session's ``VirtualClock``, which the transport's waits move).
"""

from __future__ import annotations

import os
from typing import Any, cast

import pytest
from test_net_running import GAME, FakeTransport, proven, running

from engine.clock import VirtualClock
from engine.net.integrity import REPLY_OVERHEAD, Link, Pake, frame_kind, link_keys, open_reply, reply_key, seal_hello
from engine.net.lobby import LATE, build_plain
from engine.net.packets import Hello, Inputs, Refuse, Welcome, decode, encode, encode_inputs, fit_refuse
from engine.net.refusals import SAID_IN_FULL, LobbyTally
from engine.net.session import Session, SessionOptions
from engine.state.names import __version__

FLOODER, JOINER, STRANGER = ("127.0.0.1", 6000), ("127.0.0.1", 6001), ("127.0.0.1", 6002)
KEY = Pake("TESTCD", host=False).message_hex  # a joiner's SPAKE2 message (the host answers each Hello afresh)


def hello(nonce: int, *, ticks: int | None = None) -> bytes:
    return seal_hello(encode(Hello(game=GAME.name, digest=GAME.digest or "", engine=__version__, spectate=False,
                                   nonce=nonce, ticks=ticks, key=KEY)))


class Joining(FakeTransport):
    """A fake transport on which player 1 (at ``JOINER``) answers the host's ``Welcome`` as a joiner with the code does.

    Its first datagram on the new link, sealed with the key its ``Pake`` agreed, proves it
    had the join code: the host starts only with such joiners.
    """

    def __init__(self, clock: VirtualClock, pake: Pake, hello: bytes) -> None:
        super().__init__(clock)
        self.pake, self.hello = pake, hello

    def send(self, data: bytes, to: Any) -> bool:
        body = open_reply(reply_key(self.hello), data) if to == JOINER and frame_kind(data) == b"R" else None
        welcome = decode(body) if body is not None else None
        if isinstance(welcome, Welcome):
            shared = self.pake.finish(welcome.key)
            if shared is not None:  # the first Welcome only: a side finishes once
                keys = link_keys(shared, welcome.session, welcome.token, self.hello)
                link = Link.of_joiner(welcome.session, welcome.token, keys)
                play = encode_inputs(Inputs(session=77, sender=1, tick=0, acks=(0, 0), runs=(), ping=1.0, echo=0.0))
                self.inbox.append((link.seal(play), JOINER))
        return super().send(data, to)


def hosted(inbox: list[tuple[bytes, Any]]) -> tuple[Session, FakeTransport, list[str]]:
    """A two-player host whose lobby receives ``inbox`` and then player 1's good Hello (and its first play)."""
    clock = VirtualClock()
    said = cast("list[str]", [])
    session = Session(FakeTransport(clock), GAME, SessionOptions(code="TESTCD"), is_host=True, say=said.append,
                      build=build_plain, clock=clock)
    pake = Pake("TESTCD", host=False)
    good = seal_hello(encode(Hello(game=GAME.name, digest=GAME.digest or "", engine=__version__, spectate=False,
                                   nonce=1, key=pake.message_hex)))
    transport = session.transport = Joining(clock, pake, good)
    session.machine.players, session.machine.seed, session.machine.player, session.machine.session_id = 2, 0, 0, 77
    # Every Hello comes from an address that proved it receives there (test_net_amplification: those that do not).
    transport.inbox.extend([(proven(data, address, session) if frame_kind(data) == b"H" else data, address)
                            for data, address in [*inbox, (good, JOINER)]])
    session.wait_ready(5.0)
    return session, transport, said


def refusals_to(transport: FakeTransport, address: Any) -> list[bytes]:
    """The refusals sent to ``address`` (read past their envelope, whose tag ``test_net_integrity`` checks)."""
    return [data for data, to in transport.sent
            if to == address and frame_kind(data) == b"R" and isinstance(decode(data[REPLY_OVERHEAD:]), Refuse)]


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
    assert open_reply(reply_key(flood[0][0]), answers[0]) is not None, "each tagged for the Hello it answers"
    assert [peer.player for peer in session.machine.peers.values()] == [1]


def test_held_back_refusals_are_said_once_a_second_in_one_line() -> None:
    said: list[str] = []
    tally, transport = LobbyTally(said.append, 0.0), FakeTransport()
    for at, address in enumerate([FLOODER] * 5 + [STRANGER] * 2):
        asking = hello(at, ticks=5)
        tally.refuse(transport.send, asking, reply_key(asking), at, "why", address)
        tally.tick(at / 10)  # 0.0 .. 0.6 s: no line yet
    assert said == ["refused a join from 127.0.0.1:6000: why"] * 3 + ["refused a join from 127.0.0.1:6002: why"] * 2
    tally.tick(1.0)
    tally.tick(1.5)
    assert said[5:] == ["2 more refused Hellos from 127.0.0.1:6000"]
    for address in (STRANGER, STRANGER, FLOODER, FLOODER):  # the stranger's third is said in full
        tally.refuse(transport.send, hello(9, ticks=5), reply_key(hello(9, ticks=5)), 9, "why", address)
    tally.tick(2.0)
    assert said[6:] == ["refused a join from 127.0.0.1:6002: why",
                        "3 more refused Hellos from several addresses (127.0.0.1:6000 most)"]


def test_the_lobbies_count_into_the_sessions_own_figures_as_they_drop() -> None:
    # One counter, one place (issue 40): what a lobby drops is the session's figure at once,
    # not a tally of its own added to it when play starts.
    clock = VirtualClock()
    host = Session(FakeTransport(clock), GAME, SessionOptions(code="TESTCD"), is_host=True, say=lambda line: None,
                   build=build_plain, clock=clock)
    host.machine.players, host.machine.seed, host.machine.player, host.machine.session_id = 2, 0, 0, 77
    host.open_lobby(5.0)
    flipped = bytearray(hello(2))
    flipped[-3] ^= 0x01
    for data in (b"junk", b"TSW2{", bytes(flipped)):
        host.machine.receive(data, STRANGER)
    assert host.machine.lobby is not None and host.machine.lobby.counts is host.machine.stats and not host.ready
    assert (host.machine.stats.garbage, host.machine.stats.damaged) == (2, 1)
    joiner = Session(FakeTransport(clock), GAME, SessionOptions(code="TESTCD"), is_host=False, say=lambda line: None,
                     build=build_plain, clock=clock)
    joiner.machine.joining = (JOINER, False, None)
    joiner.open_lobby(5.0)
    assert joiner.machine.lobby is not None and joiner.machine.lobby.counts is joiner.machine.stats

def test_garbage_and_damage_in_the_lobby_are_counted_in_the_sessions_figures() -> None:
    unsealed = encode_inputs(Inputs(session=77, sender=1, tick=1, acks=(0, 0), runs=(), ping=1.0, echo=0.0))
    garbage = [(b"junk", STRANGER), (b"TSW2{", STRANGER), (unsealed, STRANGER)]
    flipped = bytearray(hello(2))
    flipped[-3] ^= 0x01
    stranger = Link(77, 5, os.urandom(32), os.urandom(32))  # a token no one was given
    damaged = [(bytes(flipped), STRANGER), (hello(3)[:-1], STRANGER), (stranger.seal(unsealed), STRANGER)]
    probes = [(b"", JOINER)]  # a joiner's knock on the port (engine.net.session's probe): not garbage
    session, transport, said = hosted(garbage + damaged + probes)
    assert (session.machine.stats.garbage, session.machine.stats.damaged) == (len(garbage), len(damaged))
    assert not [to for _, to in transport.sent if to == STRANGER], "nothing damaged is answered"
    assert "3 damaged or forged dropped, 3 garbage dropped" in session.machine.summary({})


def test_a_late_refusal_is_never_larger_than_the_hello_it_answers() -> None:
    session, transport, _ = running()
    tiny = seal_hello(encode(Hello(game="", digest="", engine="1.0", spectate=False, nonce=5)))
    for data in (tiny, hello(6)):
        transport.sent.clear()
        transport.inbox.append((proven(data, STRANGER, session), STRANGER))
        session.poll()
        [answer] = [sent for sent, to in transport.sent if to == STRANGER]
        assert len(answer) <= len(data)
        body = open_reply(reply_key(data), answer)
        assert body is not None, "tagged for the Hello it answers"
        refusal = decode(body)
        assert isinstance(refusal, Refuse) and LATE.startswith(refusal.reason) and refusal.reason
    assert refusal == Refuse(nonce=6, reason=LATE), "a real joiner's Hello hears it all"
    assert session.machine.stats.late_joins == 2


def test_fit_refuse_cuts_the_reason_to_fit_or_answers_nothing() -> None:
    assert fit_refuse(1, "é" * 50, 60) is not None and len(fit_refuse(1, "é" * 50, 60) or b"") <= 60
    assert fit_refuse(1, "why", 10) is None
    assert fit_refuse(1, "why") == encode(Refuse(nonce=1, reason="why"))


def test_the_old_name_of_the_garbage_count_still_reads_it_warning() -> None:
    from engine.net.stats import SessionStats

    with pytest.warns(DeprecationWarning, match=r"SessionStats.dropped_packets is deprecated .* use SessionStats.garbage"):
        assert SessionStats(garbage=3).dropped_packets == 3
