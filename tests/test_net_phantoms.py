"""Phantom spectators, in one process (``netsim``): their places expire and their lines are rate-limited (issue 38).

Anyone with an address may join as a spectator and vanish. Before, a spectator welcomed in
the host's lobby kept its place until the start however silent it went (8 phantoms filled
every place), and in a running session each phantom that came and went cost the host two
lines, with no limit over a long game.
"""

from __future__ import annotations

import re

from netsim import Net, host_lobby

from engine.net.lobby import SessionOptions
from engine.net.refusals import LINE_EVERY_S, LINES_AT_ONCE, LineBudget
from engine.net.session import Session


def test_a_silent_spectators_place_in_the_lobby_expires() -> None:
    options = SessionOptions(disconnect_timeout=0.5)
    net = Net()
    host = net.host(players=3, options=options)
    phantom = net.join(spectate=True, options=options)
    host.open_lobby(60.0)
    phantom.open_lobby(60.0)
    for _ in range(50):
        for peer in (host, phantom):
            peer.poll()
        net.step(False)
    assert phantom.ready and [peer.player for peer in host_lobby(host).joined.values()] == [None]
    net.kill(phantom)
    for _ in range(100):  # a second: twice its --disconnect-timeout
        host.poll()
        net.step(False)
    assert not host_lobby(host).joined, "its place is free again"
    assert any(re.fullmatch(r"the spectator at 127\.0\.0\.1:\d+ sent nothing for 0\.5 s: its place is free", line)
               for line in net.said[0]), net.said[0]


def test_a_live_spectator_keeps_its_place_until_the_start() -> None:
    options = SessionOptions(disconnect_timeout=0.5, ticks=100)
    net = Net()
    host = net.host(players=2, options=options)
    watcher = net.join(spectate=True, options=options)
    host.open_lobby(60.0)
    watcher.open_lobby(60.0)
    for _ in range(300):  # 3 s of lobby: it keeps talking (its early play), so it stays
        for peer in (host, watcher):
            peer.poll()
        net.step(False)
    assert [peer.player for peer in host_lobby(host).joined.values()] == [None]
    net.join(options=options)
    net.open()
    net.play_ticks(100)
    assert watcher.machine.finished and watcher.world is not None and host.world is not None
    assert watcher.world.state_hash() == host.world.state_hash()


def test_phantom_spectators_coming_and_going_all_game_cost_a_few_lines() -> None:
    options = SessionOptions(ticks=100_000, disconnect_timeout=0.3)
    net = Net()
    host = net.host(options=options)
    net.join(options=options)
    net.open()
    phantoms: list[Session] = []

    def meddle(round_: int) -> None:
        # A phantom every 100 rounds, killed once it is in: 30 of them over the game.
        if round_ % 100 == 0 and len(phantoms) < 30:
            phantoms.append(net.join(spectate=True, options=options))
        for phantom in phantoms:
            if phantom.ready and not phantom._closed:
                net.kill(phantom)
        spectators = [peer for peer in host.machine.peers.values() if peer.player is None]
        if len(phantoms) == 30 and all(phantom._closed for phantom in phantoms) and not spectators:
            for peer in net.peers[:2]:  # every phantom came and was dropped: the game ends here
                net.kill(peer)
    net.play_session(100_000, between=meddle, rounds=200_000)
    lines = [line for line in net.said[0] if "spectator" in line]
    seconds = host.machine.now()
    joined = sum(1 for phantom in phantoms if phantom.ready)
    assert joined == 30, joined
    # 60 spectator lines happened (a join and a drop each); said: the burst, one per LINE_EVERY_S, summaries.
    assert len(lines) <= LINES_AT_ONCE + seconds / LINE_EVERY_S + 1, (len(lines), seconds, lines)
    held = sum(int(m.group(1)) for line in lines for m in [re.match(r"(\d+) more spectator lines? ", line)] if m)
    said_one_by_one = len([line for line in lines if not re.match(r"\d+ more spectator", line)])
    assert said_one_by_one + held + host.machine.spectator_lines.held == 60


def test_the_line_budget_says_a_burst_then_one_line_per_period_with_the_count() -> None:
    said: list[str] = []
    budget = LineBudget(said.append, 0.0)
    for n in range(20):
        budget.say(f"line {n}", 0.0)
    assert said == [f"line {n}" for n in range(LINES_AT_ONCE)] and budget.held == 20 - LINES_AT_ONCE
    budget.tick(LINE_EVERY_S / 2)
    assert len(said) == LINES_AT_ONCE
    budget.tick(LINE_EVERY_S)
    assert said[-1] == f"{20 - LINES_AT_ONCE} more spectator lines (joined, left, dropped) not said one by one"
    budget.say("later", 3 * LINE_EVERY_S)
    assert said[-1] == "later"
