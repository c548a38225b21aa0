"""``tickswap rendezvous``, ``host --room`` and ``join CODE`` as a user meets them: real processes on 127.0.0.1.

Each peer puts itself behind an emulated router (``--emulate-nat``) and gathers on
127.0.0.1 only; the TURN case starts the system's coturn (skipped with a message where it
is not installed). Bounded by ``test_net_session``'s timeouts; none sleeps.
"""

from __future__ import annotations

import re
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from icesim import Coturn
from test_net_session import GAME, SCRIPTS, Peer, hash_of, plain_run, replays, script

from engine.tools.cli import main

TICKS = 300


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    """The game and each player's script, in a fresh directory."""
    shutil.copy(GAME, tmp_path / "game.py")
    for player in (0, 1):
        script(tmp_path / f"p{player}.jsonl", {player: SCRIPTS[player]}, named=False)
    return tmp_path


@pytest.fixture
def rendezvous(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Peer, int]]:
    """A ``tickswap rendezvous`` on a free port of 127.0.0.1; stopped (SIGTERM) at the end, which it says."""
    for name in ("TICKSWAP_RENDEZVOUS", "TICKSWAP_TURN_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    server = Peer(tmp, "rendezvous", "--port", "0", "--bind", "127.0.0.1")
    port = int(server.wait_for(r"rendezvous on 127\.0\.0\.1:(\d+)").group(1))
    yield server, port
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
    status, _, err = server.finish()
    assert status == 143 and "Traceback" not in err, err
    assert re.search(r"rendezvous terminated: \d+ posts, \d+ joins, \d+ STUN answers, 0 malformed", err), err


def meet(tmp: Path, port: int, kinds: tuple[str, str], *turn: str) -> tuple[str, str, str, str]:
    """Host with --room behind a ``kinds[0]`` router, a joiner by the code behind a ``kinds[1]`` one; both end well."""
    where = f"127.0.0.1:{port}"
    host = Peer(tmp, "host", "game.py", "--room", "--rendezvous", where, "--emulate-nat", kinds[0], *turn,
                "--ticks", str(TICKS), "--input", "p0.jsonl", "--record", "h.jsonl")
    code = host.wait_for(r"room ([A-Z2-9]{6}) is open: the other players join with "
                         rf"`tickswap join \1 game\.py --rendezvous {re.escape(where)}`").group(1)
    joiner = Peer(tmp, "join", code.lower(), "game.py", "--rendezvous", where, "--emulate-nat", kinds[1], *turn,
                  "--input", "p1.jsonl", "--record", "j.jsonl")
    (status1, out1, err1), (status2, out2, err2) = host.finish(), joiner.finish()
    assert (status1, status2) == (0, 0), err1 + err2
    assert f"joined room {code} as player 1 of 2" in err2, err2
    return out1, out2, err1, err2


def test_two_peers_behind_routers_meet_by_room_code_and_end_on_a_plain_runs_hash(
        tmp: Path, rendezvous: tuple[Peer, int]) -> None:
    out1, out2, err1, err2 = meet(tmp, rendezvous[1], ("full-cone", "port-restricted"))
    assert hash_of(out1) == hash_of(out2) == plain_run(tmp, TICKS, 2)
    assert re.search(r"a path to the host of room \w{6}: host 127\.0\.0\.1:\d+ to (srflx|prflx) 127\.0\.0\.1:\d+ "
                     r"\(directly\)", err2), err2
    for recording in ("h.jsonl", "j.jsonl"):
        replays(tmp, recording)


def test_two_peers_behind_symmetric_routers_meet_through_coturn(tmp: Path, rendezvous: tuple[Peer, int],
                                                                coturn: Coturn,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TICKSWAP_TURN_PASSWORD", coturn.turn.password)  # USER@HOST:PORT takes it from there
    turn = ("--turn", f"{coturn.turn.username}@127.0.0.1:{coturn.turn.address[1]}")
    out1, out2, err1, err2 = meet(tmp, rendezvous[1], ("symmetric", "symmetric"), *turn)
    assert hash_of(out1) == hash_of(out2) == plain_run(tmp, TICKS, 2)
    assert "(through a TURN relay)" in err1 and "(through a TURN relay)" in err2, err1 + err2


def test_room_mistakes_are_one_line_each(tmp: Path, rendezvous: tuple[Peer, int], monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    where = f"127.0.0.1:{rendezvous[1]}"
    cases = [
        (("host", "game.py", "--room"), 2, "a room needs a rendezvous: give --rendezvous HOST:PORT (or set "
                                           "TICKSWAP_RENDEZVOUS); tickswap has no public one"),
        (("host", "game.py", "--room", "--port", "7000", "--rendezvous", where), 2,
         "--port and --bind are for a host that joiners reach at its address"),
        (("host", "game.py", "--room", "K7QX2O", "--rendezvous", where), 2,
         "--room: room code 'K7QX2O' has 'O': codes have only letters and digits, and never 0, O, 1, I or L"),
        (("join", "K7QX2O", "game.py", "--rendezvous", where), 2,
         "join: room code 'K7QX2O' has 'O': codes have only letters and digits, and never 0, O, 1, I or L"),
        (("host", "game.py", "--rendezvous", where), 2, "--rendezvous: for a room (host --room, join CODE)"),
        (("join", "127.0.0.1:7777", "game.py", "--turn", "u:p@127.0.0.1:3478"), 2, "--turn: for a room"),
        (("join", "ABCDEF", "game.py", "--rendezvous", where, "--turn", "nobody@127.0.0.1:3478"), 2,
         "--turn: TURN server 'nobody@127.0.0.1:3478' has no password"),
        (("join", "ABCDEF", "game.py", "--rendezvous", where, "--ice-host", "localhost"), 2,
         "--ice-host 'localhost' is not an IPv4 address"),
        (("join", "ABCDEF", "game.py", "--rendezvous", where, "--ice-host", "127.0.0.1"), 1,
         f"the rendezvous at {where} has no room ABCDEF: check the code"),
    ]
    monkeypatch.chdir(tmp)
    for args, status, line in cases:  # in this process: the command line's own code, without a start-up each
        assert main(list(args)) == status, args
        err = capsys.readouterr().err
        assert line in err.strip().splitlines()[-1] and "Traceback" not in err, (args, err)


def test_a_room_without_aioice_is_one_line_naming_the_extra(tmp: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    # aioice is the internet extra: a machine without it plays by address, and a room says what to install.
    import sys

    monkeypatch.setitem(sys.modules, "aioice", None)  # as if not installed: importing it raises ImportError
    for module in ("aioice.ice", "engine.net.ice", "engine.net.room"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.chdir(tmp)
    for args in (("join", "ABCDEF", "game.py", "--rendezvous", "127.0.0.1:9"),
                 ("host", "game.py", "--room", "--rendezvous", "127.0.0.1:9")):
        assert main(list(args)) == 2, args
        err = capsys.readouterr().err
        assert err.strip().splitlines()[-1] == ("tickswap: a room code (ICE through home routers) needs aioice: "
                                                "pip install 'tickswap[internet]'") and "Traceback" not in err, err


def test_playing_by_address_never_imports_aioice() -> None:
    import subprocess
    import sys

    code = ("import sys, engine.tools.cli, engine.tools.cli.net, engine.tools.cli.rooms, engine.net.session, "
            "engine.net; engine.net.Session; print('aioice' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]


def test_a_mistyped_code_that_no_host_is_named_after_is_said_to_be_no_code(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from engine.tools.cli.net import _host_or_code
    from engine.tools.errors import UsageError

    def unknown(*args: object, **kwargs: object) -> None:  # no lookup leaves the machine in a test
        raise socket.gaierror(-2, "Name or service not known")
    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    with pytest.raises(UsageError, match=r"join 'K7QX2O': no host has that name, and it is no room code \(codes have "
                                         r"only letters and digits, never 0, O, 1, I or L\)"):
        _host_or_code("K7QX2O")
    with pytest.raises(UsageError, match="join: can't find the host 'nohost.invalid'"):
        _host_or_code("nohost.invalid:7777")


def test_a_room_host_with_two_players_on_its_keyboard_and_a_joiner_by_code_end_on_a_plain_runs_hash(
        tmp: Path, rendezvous: tuple[Peer, int]) -> None:
    """``host --room --local 2 --players 3``: the code brings the third player; the two at the host play 0 and 1."""
    where = f"127.0.0.1:{rendezvous[1]}"
    script(tmp / "here.jsonl", {0: SCRIPTS[0], 1: SCRIPTS[1]}, named=True)
    script(tmp / "p2.jsonl", {2: SCRIPTS[2]}, named=False)
    host = Peer(tmp, "host", "game.py", "--room", "--rendezvous", where, "--players", "3", "--local", "2",
                "--emulate-nat", "full-cone", "--ticks", str(TICKS), "--input", "here.jsonl", "--record", "h.jsonl")
    code = host.wait_for(r"room ([A-Z2-9]{6}) is open: the other players join with").group(1)
    joiner = Peer(tmp, "join", code, "game.py", "--rendezvous", where, "--emulate-nat", "port-restricted",
                  "--input", "p2.jsonl", "--record", "j.jsonl")
    (status1, out1, err1), (status2, out2, err2) = host.finish(), joiner.finish()
    assert (status1, status2) == (0, 0), err1 + err2
    assert f"joined room {code} as player 2 of 3" in err2, err2
    assert f"hosting game.py for 3 players (players 0 and 1 here) in room {code}" in err1, err1
    assert hash_of(out1) == hash_of(out2) == plain_run(tmp, TICKS, 3)
    for recording in ("h.jsonl", "j.jsonl"):
        replays(tmp, recording)


def test_a_joiner_by_room_code_plays_two_seats_with_local_2(tmp: Path, rendezvous: tuple[Peer, int]) -> None:
    """``join CODE --local 2`` (issue 39): a room's joiner takes players 1 and 2, and both play to a plain run's hash."""
    where = f"127.0.0.1:{rendezvous[1]}"
    script(tmp / "both.jsonl", {1: SCRIPTS[1], 2: SCRIPTS[2]}, named=True)
    host = Peer(tmp, "host", "game.py", "--room", "--rendezvous", where, "--players", "3", "--ice-host", "127.0.0.1",
                "--emulate-nat", "full-cone", "--ticks", str(TICKS), "--input", "p0.jsonl")
    peers = [host]
    try:
        code = host.wait_for(r"room ([A-Z2-9]{6}) is open: the other players join with").group(1)
        joiner = Peer(tmp, "join", code, "game.py", "--rendezvous", where, "--ice-host", "127.0.0.1", "--local", "2",
                      "--emulate-nat", "port-restricted", "--input", "both.jsonl")
        peers.append(joiner)
        (status1, out1, err1), (status2, out2, err2) = host.finish(), joiner.finish()
    finally:
        for peer in peers:  # stopped by their own process ids, whatever failed
            if peer.process.poll() is None:
                peer.process.kill()
    assert (status1, status2) == (0, 0), err1 + err2
    assert f"joined room {code} as players 1 and 2 of 3" in err2, err2
    assert hash_of(out1) == hash_of(out2) == plain_run(tmp, TICKS, 3)
