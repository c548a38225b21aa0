"""A joiner that plays several local players (issue 39): its ``Hello`` asks for seats, the ``Welcome`` gives them.

In one process on a virtual clock (``netsim``), then with real ``tickswap host`` and
``tickswap join --local 2`` processes on 127.0.0.1 (bounded by their timeouts, killed by PID
when a test is done with them).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from netsim import Net, reference
from test_net_play import PLAYER_SCRIPTS

from engine.net import SessionOptions
from engine.net.lobby import SessionError
from engine.net.packets import Hello, PacketError, Welcome, decode, encode

KEY = "02" + "ab" * 32


# -- the packets: one seat is the datagram it always was ---------------------------------------


def test_a_hello_of_one_seat_is_the_old_datagram_and_several_seats_ride_as_a_field() -> None:
    one = Hello(game="g", digest="", engine="0.5.0", spectate=False, nonce=7, key=KEY)
    assert b"seats" not in encode(one)  # wire-compatible: an old host reads it as before
    two = Hello(game="g", digest="", engine="0.5.0", spectate=False, nonce=7, key=KEY, seats=2)
    assert b'"seats":2' in encode(two) and decode(encode(two)) == two
    read = decode(encode(one))
    assert isinstance(read, Hello) and read.seats == 1
    welcome = Welcome(session=1, nonce=7, player=1, players=3, seed=0, ms_per_update=16.0, game="g", digest="",
                      seats=2)
    assert decode(encode(welcome)) == welcome
    with pytest.raises(PacketError, match="welcome seats 3 from player 1 are not among the 3 players"):
        Welcome(session=1, nonce=7, player=1, players=3, seed=0, ms_per_update=16.0, game="g", digest="", seats=3)
    with pytest.raises(PacketError, match="hello seats 2: a spectator or a rejoin asks for no new seats"):
        Hello(game="g", digest="", engine="0.5.0", spectate=True, nonce=7, seats=2)
    with pytest.raises(PacketError, match="hello seats"):
        Hello(game="g", digest="", engine="0.5.0", spectate=False, nonce=7, seats=0)


# -- in one process ------------------------------------------------------------------------------------


def test_a_joiner_with_two_local_players_takes_two_seats_and_both_play_to_the_offline_hash() -> None:
    net = Net()
    host = net.host(players=3)
    joiner = net.join(local=2)
    net.open()
    assert joiner.player == 1 and joiner.local_players == (1, 2) and host.local_players == (0,)
    assert "players 1 and 2 joined from" in "\n".join(net.said[0]), net.said[0]
    assert joiner.rejoin_code is None  # a rejoin takes back one seat: none is offered to a joiner of two
    host.script = PLAYER_SCRIPTS[0]
    joiner.machine.scripts = {1: PLAYER_SCRIPTS[1], 2: PLAYER_SCRIPTS[2]}
    net.play_ticks(300)
    assert host.ended is None and joiner.ended is None, (host.ended, joiner.ended)
    assert host.world is not None and joiner.world is not None
    assert host.world.state_hash() == joiner.world.state_hash() == reference(300, PLAYER_SCRIPTS)
    assert reference(300, PLAYER_SCRIPTS) != reference(300, [PLAYER_SCRIPTS[0], PLAYER_SCRIPTS[1], {}]), \
        "player 2's input counts"


def test_a_joiner_asking_for_more_seats_than_are_left_is_refused_saying_how_many_are() -> None:
    net = Net()
    net.host(players=3, local=2)
    joiner = net.join(local=2)
    with pytest.raises(SessionError, match=r"the host refused: the joiner asks for 2 seats \(--local 2\), 1 is left "
                                           r"of the 3 players"):
        net.open([joiner])
    assert "joined" not in "\n".join(net.said[0])


def test_a_joiner_of_two_seats_dropped_takes_both_with_it() -> None:
    options = SessionOptions(ticks=600, disconnect_timeout=0.5)
    net = Net()
    host = net.host(players=3, options=options)
    joiner = net.join(options=options, local=2)
    net.open()
    net.play_session(600, between=lambda round_: net.kill(joiner) if round_ == 150 else None)
    said = "\n".join(net.said[0])
    assert host.ended is not None and "players 1 and 2 (127.0.0.1:" in host.ended, host.ended
    assert "and no other player is left" in host.ended
    assert sorted(host.machine.dropped) == [1, 2] and all(seat.closed for seat in host.machine.dropped.values()), said


# -- real processes on 127.0.0.1 -------------------------------------------------------------------------


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    from test_net_session import GAME, SCRIPTS, script

    shutil.copy(GAME, tmp_path / "game.py")
    script(tmp_path / "p0.jsonl", {0: SCRIPTS[0]}, named=False)
    script(tmp_path / "both.jsonl", {1: SCRIPTS[1], 2: SCRIPTS[2]}, named=True)
    return tmp_path


def test_tickswap_join_local_2_fills_two_seats_and_both_players_reach_the_game(tmp: Path) -> None:
    from test_net_session import hash_of, host, join, plain_run, replays

    first, port = host(tmp, "--ticks", "300", "--input", "p0.jsonl", "--record", "h.jsonl", players=3)
    try:
        second = join(tmp, port, "--local", "2", "--ticks", "300", "--input", "both.jsonl", "--record", "j.jsonl",
                      "--json")
        try:
            (status1, out1, err1), (status2, out2, err2) = first.finish(), second.finish()
        finally:
            if second.process.poll() is None:
                second.process.kill()
    finally:
        if first.process.poll() is None:
            first.process.kill()
    assert (status1, status2) == (0, 0), err1 + err2
    assert "players 1 and 2 joined from 127.0.0.1:" in err1, err1
    assert "as players 1 and 2 of 3" in err2 and "--rejoin" not in err2, err2
    said = [json.loads(line) for line in out2.splitlines()]
    assert said[0]["event"] == "joined" and said[0]["player"] == 1 and said[0]["here"] == [1, 2], said[0]
    assert said[-1]["event"] == "summary" and said[-1]["state"][:16] == hash_of(out1) == plain_run(tmp, 300, 3)
    recorded = [json.loads(line) for line in (tmp / "h.jsonl").read_text().splitlines()]
    players_with_input = {line.get("player", 0) for line in recorded if "input" in line}
    assert {1, 2} <= players_with_input, players_with_input
    replays(tmp, "j.jsonl")


def test_tickswap_join_local_2_is_refused_by_name_when_one_seat_is_left(tmp: Path) -> None:
    from test_net_session import host, join

    first, port = host(tmp, "--local", "2", "--ticks", "30", "--lobby-timeout", "60", players=3)
    try:
        status, out, err = join(tmp, port, "--local", "2", "--ticks", "30").finish()
    finally:
        first.process.kill()  # its lobby waits for a third player who never comes
        first.finish()
    assert status == 2, err
    assert "the host refused: the joiner asks for 2 seats (--local 2), 1 is left of the 3 players" in err, err


def test_a_joiners_window_splits_its_keyboard_between_its_two_seats(offscreen) -> None:
    """The window of a joiner of seats 1 and 2: W A S D play player 1, the arrows player 2, on every peer."""
    from netsim import GAME

    from engine import keys
    from engine.display import Display
    from engine.render.runner import GameRunner

    net = Net()
    host = net.host(players=3)
    joiner = net.join(local=2)
    net.open()
    assert joiner.world is not None
    runner = GameRunner(GAME, joiner, display=Display(headless=True))
    try:
        assert runner.local_players.players == (1, 2)
        runner.window.dispatch_event("on_key_press", keys.D, 0)     # player 1's right
        runner.window.dispatch_event("on_key_press", keys.LEFT, 0)  # player 2's left
        for _ in range(200):
            host.poll()
            host.advance(())
            runner.run(frames=1)
            net.step(True)
    finally:
        runner.close()
    for peer in (host, joiner):
        assert peer.machine.sync is not None and peer.world is not None and peer.machine.sync.emitted > 20
        everyone: list[Any] = list(peer.world.entities)
        movers = sorted(everyone, key=lambda mover: mover.player)
        assert movers[0].x == 0.0, "player 0 (the host) pressed nothing"
        assert movers[1].x > 100.0 and movers[2].x < 200.0, [mover.x for mover in movers]
