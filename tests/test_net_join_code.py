"""The join is authenticated by the join code (SPAKE2), in one process (``netsim``): issue 38, break 3.

Before, the joiner's key exchange was plain Diffie-Hellman: an attacker on the path at join
time answered the joiner's ``Hello`` in the host's place and played against it, and one
that also joined the host relayed and rewrote the game with neither side noticing. Now
both sides bind the exchange to the code they were given (the room code, or the code
``tickswap host`` prints): the host's ``Welcome`` carries a confirmation only the holder of
the same code can check, and the host refuses a joiner whose datagrams do not open under
the key agreed. Each exchange is one guess at the code, and the host answers at most
``GUESS_BURST`` at once and then one a second.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from netsim import CODE, GAME, HOST_PORT, Net, host_lobby
from test_net_session import tmp  # noqa: F401  (the session tests' fixture: a directory with game.py)

from engine.net.integrity import (
    REPLY_OVERHEAD,
    Link,
    Pake,
    confirmation,
    confirmation_holds,
    link_keys,
    open_reply,
    reply_key,
    seal_hello,
    seal_proven,
    seal_reply,
)
from engine.net.lobby import GUESSING, NOT_CONFIRMED, SessionError, SessionOptions
from engine.net.packets import Bye, Hello, Refuse, Retry, Welcome, decode, encode
from engine.net.refusals import GUESS_BURST, GUESS_EVERY_S
from engine.net.rendezvous import CODE_ALPHABET, CODE_LENGTH
from engine.state.names import __version__


def attacker_hello(pake: Pake, nonce: int) -> bytes:
    return seal_hello(encode(Hello(game=GAME.name, digest=GAME.digest or "", engine=__version__, spectate=False,
                                   nonce=nonce, key=pake.message_hex)))


def ask(net: Net, attacker, hello: bytes) -> object:
    """Send ``hello`` to the host as the attacker (proving its address when asked); the host's answer, decoded."""
    host = net.peers[0]

    def answers() -> list[object]:  # the host's replies to this Hello (the Welcomes it repeats to earlier ones aside)
        host.poll()
        return [decode(body) for data, _ in attacker.receive()
                for body in [open_reply(reply_key(hello), data)] if body is not None]
    attacker.send(hello, (net.network.host, HOST_PORT))
    [retry] = answers()
    assert isinstance(retry, Retry)
    attacker.send(seal_proven(hello, bytes.fromhex(retry.cookie)), (net.network.host, HOST_PORT))
    replies = answers()
    return replies[0] if replies else None


def test_a_man_in_the_middle_without_the_code_is_found_by_the_host_and_refused_in_one_line() -> None:
    net = Net()
    host = net.host(players=2, options=SessionOptions(disconnect_timeout=5.0))
    host.open_lobby(60.0)
    attacker = net.network.transport()
    guess = Pake("WRQNG2", host=False)  # it relays a joiner's Hello with its own key: a guess at the code
    hello = attacker_hello(guess, 1)
    welcome = ask(net, attacker, hello)
    assert isinstance(welcome, Welcome) and welcome.player == 1
    shared = guess.finish(welcome.key)
    assert shared is not None
    assert not confirmation_holds(shared, welcome.session, welcome.token, hello, welcome.key, welcome.confirm), \
        "its guess was wrong, and that is all it learns"
    # It plays on anyway, with the keys of its guess: the host can open none of its datagrams.
    link = Link.of_joiner(welcome.session, welcome.token, link_keys(shared, welcome.session, welcome.token, hello))
    for _ in range(3):
        attacker.send(link.seal(encode(Bye(session=welcome.session, reason="x"))), (net.network.host, HOST_PORT))
    host.poll()
    assert not host_lobby(host).joined, "the seat is free again"
    assert any(re.fullmatch(r"refused player 1 at 127\.0\.0\.1:\d+: its datagrams fail under the key agreed \(a wrong "
                            r"join code, or someone in the middle of the join\)", line) for line in net.said[0])


def test_a_man_in_the_middle_answering_the_joiner_is_found_by_the_joiner_which_stops_in_one_line() -> None:
    net = Net()
    net.host(players=2)
    proxy = net.network.transport()  # the joiner was routed to it (an attacker on the path at join time)
    joiner = net.join()
    joiner.machine.joining = (proxy.address, False, None)
    joiner.open_lobby(60.0)
    joiner.poll()
    [(hello, at)] = proxy.receive()
    forged = Pake("WRQNG2", host=True)  # it answers in the host's place, with its guess at the code
    body = decode(hello[REPLY_OVERHEAD:])
    assert isinstance(body, Hello)
    shared = forged.finish(body.key)
    assert shared is not None
    welcome = Welcome(session=5, nonce=body.nonce, player=1, players=2, seed=3, ms_per_update=GAME.ms_per_update,
                      game=GAME.name, digest=GAME.digest or "", token=9, key=forged.message_hex,
                      confirm=confirmation(shared, 5, 9, hello, forged.message_hex))
    proxy.send(seal_reply(reply_key(hello), encode(welcome)), at)
    with pytest.raises(SessionError, match=re.escape(NOT_CONFIRMED)) as stopped:
        joiner.poll()
    assert stopped.value.status == 2 and not joiner.ready


def _wrong_code_refused(disconnect_timeout: float) -> tuple[Net, SessionOptions, Any, Any]:
    """A two-player host and a joiner with the wrong code, polled until the joiner stops: (net, options, host, joiner)."""
    options = SessionOptions(disconnect_timeout=disconnect_timeout)
    net = Net()
    host = net.host(players=2, options=options)
    joiner = net.join(options=replace(options, code="WRQNG2"))
    host.open_lobby(60.0)
    joiner.open_lobby(60.0)
    with pytest.raises(SessionError, match=re.escape(NOT_CONFIRMED)):
        for _ in range(100):
            for peer in (host, joiner):
                peer.poll()
            net.step(False)
    return net, options, host, joiner


def test_a_joiner_with_the_wrong_code_stops_saying_so_and_the_host_frees_the_seat() -> None:
    net, _, host, _ = _wrong_code_refused(0.5)
    for _ in range(100):
        host.poll()
        net.step(False)
    assert not host_lobby(host).joined
    assert any(re.fullmatch(r"player 1 at 127\.0\.0\.1:\d+ never proved the join code within 0\.5 s \(a wrong code, "
                            r"or someone in the middle of the join\): refused, its place is free", line)
               for line in net.said[0]), net.said[0]


def test_the_right_code_joins_and_gives_its_guess_back() -> None:
    net = Net()
    host = net.host(players=3)
    net.join()
    net.open([net.peers[1]], timeout_s=60.0)
    for _ in range(10):
        host.poll()
        net.peers[1].poll()
        net.step(False)
    assert all(joined.confirmed for joined in host_lobby(host).joined.values())
    assert host.machine.guesses.take(host.machine.now()) and host.machine.guesses.refused == 0


def test_online_guesses_are_rate_limited_to_one_a_second_after_a_burst() -> None:
    net = Net()
    host = net.host(players=8, options=SessionOptions(disconnect_timeout=0.3))  # unproven seats free again soon
    host.open_lobby(3600.0)
    attacker = net.network.transport()
    welcomed = refused = 0
    started = host.machine.now()
    for nonce in range(1, 61):  # 60 guesses, 10 a second of the host's clock
        answer = ask(net, attacker, attacker_hello(Pake("ABCDEF", host=False), nonce))
        if isinstance(answer, Welcome):
            welcomed += 1
        else:
            assert isinstance(answer, Refuse) and answer.reason == GUESSING, answer
            refused += 1
        net.clock.advance(100)
    seconds = host.machine.now() - started
    print(f"{welcomed} exchanges answered in {seconds:.1f} s, {refused} refused")
    assert welcomed <= GUESS_BURST + seconds / GUESS_EVERY_S + 1 and refused >= 60 - GUESS_BURST - seconds - 1
    codes = len(CODE_ALPHABET) ** CODE_LENGTH
    years = codes / 2 * GUESS_EVERY_S / (365.25 * 24 * 3600)
    print(f"half of {codes:,} codes at one guess a second: {years:.0f} years")
    assert years > 10
    assert CODE not in ("ABCDEF",)


def test_a_joiner_that_finds_its_code_wrong_frees_the_seat_at_once_for_the_right_code() -> None:
    # The newcomer's trial: a wrong code, then the right one at once, was refused "the session is full"
    # for the 5 s the host held the seat of a joiner that would never prove the code.
    net, options, host, wrong = _wrong_code_refused(5.0)
    wrong.close()  # as tickswap join does on its way out: its goodbyes go
    started = host.machine.now()
    right = net.join(options=options)
    net.open([right], timeout_s=60.0)
    assert host.machine.now() - started < 1.0, "joined at once, not after the wrong one's 5 s"
    assert any(re.fullmatch(r"refused player 1 at 127\.0\.0\.1:\d+: its datagrams fail under the key agreed \(a wrong "
                            r"join code, or someone in the middle of the join\)", line) for line in net.said[0])
    assert [line for line in net.said[0] if "never proved" in line] == []


def test_a_join_while_a_seat_is_held_by_one_still_proving_the_code_says_so_and_when_to_retry() -> None:
    options = SessionOptions(disconnect_timeout=5.0)
    net = Net()
    host = net.host(players=2, options=options)
    host.open_lobby(60.0)
    holder = net.network.transport()  # welcomed, and then silent: it never proves the code
    welcome = ask(net, holder, attacker_hello(Pake("WRQNG2", host=False), 1))
    assert isinstance(welcome, Welcome) and welcome.player == 1
    net.clock.advance(1500)
    refused = ask(net, net.network.transport(), attacker_hello(Pake(CODE, host=False), 2))
    assert isinstance(refused, Refuse)
    assert refused.reason == ("no seat is free now: player 1 is held by a joiner still proving the join code, "
                              "freed within 4 s if it can't: try again then")
    assert "full" not in refused.reason


def test_tickswap_join_with_a_wrong_code_then_the_right_one_at_once_joins(tmp) -> None:  # noqa: F811
    # The trial's commands, as real processes on 127.0.0.1 (each bounded by the session tests' timeout).
    from test_net_session import JOIN_CODE, Peer, host

    first, port = host(tmp, "--ticks", "200")
    wrong = Peer(tmp, "join", f"127.0.0.1:{port}", "ABCDEF" if JOIN_CODE != "ABCDEF" else "ABCDEG", "game.py")
    status, _, err = wrong.finish()
    assert status == 2 and NOT_CONFIRMED in err, err
    first.wait_for(r"refused player 1 at 127\.0\.0\.1:\d+: its datagrams fail under the key agreed")
    right = Peer(tmp, "join", f"127.0.0.1:{port}", JOIN_CODE, "game.py")
    (status1, _, err1), (status2, _, err2) = first.finish(), right.finish()
    assert (status1, status2) == (0, 0), err1 + err2
    assert "session is full" not in err2 and "never proved" not in err1
