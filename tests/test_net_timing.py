"""A network session's summary and crash line: the summary times the session, not the lobby; a game's own KeyboardInterrupt is its crash.

A spectator is welcomed at once, then waits (in ``run_ticks``) until every player has
joined and the host starts. Its ``N ticks in M ms`` counts from the first confirmed tick.
No sockets and no real time: the session's ``run_ticks`` is played by the test on a
``VirtualClock`` standing in for the command's clock.
"""

from __future__ import annotations

import re
from dataclasses import replace
from types import SimpleNamespace

import pytest
from test_net_running import HOST, running

from engine.clock import VirtualClock
from engine.net.emulate import Emulation
from engine.tools.cli import net
from engine.tools.cli.options import PeerOptions, RoomOptions

WAIT_FOR_PLAYERS_MS = 60_000.0
TICKS = 10


def test_a_spectators_summary_counts_from_the_first_tick_not_the_wait_for_the_players(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    session, _, _ = running(host=False, player=None, peers=((HOST, 0),))
    session.machine.options = replace(session.machine.options, ticks=TICKS)
    clock = VirtualClock()
    monkeypatch.setattr(net, "time", SimpleNamespace(perf_counter=lambda: clock.now_ms() / 1000))

    def run_ticks(ticks: int) -> None:
        clock.advance(WAIT_FOR_PLAYERS_MS)  # the players join, the host starts: no tick confirmed yet
        assert session.machine.on_confirmed is not None
        for tick in range(1, ticks + 1):
            clock.advance(1.0)
            session.machine.on_confirmed(tick, ((), ()), None)

    monkeypatch.setattr(session, "run_ticks", run_ticks)
    peer = PeerOptions(command="join", emulation=Emulation(), room=RoomOptions())
    assert net._play(session, peer) == 0
    line = capsys.readouterr().out
    taken = re.search(r" ticks in ([0-9.]+) ms", line)
    assert taken is not None, line
    # From the first confirmed tick to the last: the wait before the start is not the session's.
    assert float(taken.group(1)) == (TICKS - 1) * 1.0


@pytest.mark.parametrize("raised", [KeyboardInterrupt, GeneratorExit], ids=["KeyboardInterrupt", "GeneratorExit"])
def test_a_networked_games_own_keyboardinterrupt_is_its_crash_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], raised: type[BaseException]) -> None:
    # Why tools/cli/net.py's _play catches BaseException: a game that raises KeyboardInterrupt itself (no
    # signal came: engine.interrupts) crashed; the peer says so in one line, tells the others and exits 1,
    # where an Exception-only catch let it out as a traceback.
    session, _, _ = running(host=False, player=None, peers=((HOST, 0),))
    session.machine.options = replace(session.machine.options, ticks=TICKS)

    def run_ticks(ticks: int) -> None:
        raise raised("the game's own, no signal came")

    monkeypatch.setattr(session, "run_ticks", run_ticks)
    peer = PeerOptions(command="join", emulation=Emulation(), room=RoomOptions())
    assert net._play(session, peer) == 1
    said = capsys.readouterr().err
    assert raised.__name__ in said and "the game's own, no signal came" in said, said
    assert session.machine.crash is not None and raised.__name__ in session.machine.crash
