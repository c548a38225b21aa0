"""Joining and agreeing: a session's terms are the host's, and every join that can't be taken is answered at once.

Real ``tickswap host``/``join`` processes on 127.0.0.1 (the helpers of ``test_net_session``)
where the behaviour is the command line's; the packets and the script reader in process.
No test sleeps: each waits on a process's lines or its end, with the processes' timeouts.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from test_net_session import Peer, hash_of, host, join, plain_run, script

from engine.files.replay import ReplayError
from engine.input.scripts import read_input_scripts
from engine.net.packets import Hello, PacketError, Welcome, decode, encode


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    from test_net_session import GAME, SCRIPTS

    (tmp_path / "game.py").write_text(GAME.read_text())
    for player in SCRIPTS:
        script(tmp_path / f"p{player}.jsonl", {player: SCRIPTS[player]}, named=False)
    return tmp_path


def free_port() -> int:
    """A port nothing listens on (bound a moment, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- the session's length and desync interval are the host's ---------------------------------

def test_a_joiner_without_ticks_plays_the_hosts_and_takes_its_desync_interval(tmp: Path) -> None:
    first, port = host(tmp, "--ticks", "300", "--input", "p0.jsonl", "--desync-interval", "30")
    second = join(tmp, port, "--input", "p1.jsonl", "--desync-interval", "45")
    (status1, out1, err1), (status2, out2, err2) = first.finish(), second.finish()
    assert (status1, status2) == (0, 0), err1 + err2
    assert "the host plays --ticks 300: so does this peer" in err2, err2
    assert "compares state hashes every 30 ticks (the host's --desync-interval), not 45" in err2, err2
    assert hash_of(out1) == hash_of(out2) == plain_run(tmp, 300, 2)


def test_a_joiner_asking_for_other_ticks_is_refused_on_both_sides_and_the_host_waits_on(tmp: Path) -> None:
    first, port = host(tmp, "--ticks", "200")
    second = join(tmp, port, "--ticks", "100")
    status2, _, err2 = second.finish()
    assert status2 == 2, err2
    assert "the host refused: the joiner asks for --ticks 100, the host plays --ticks 200" in err2, err2
    first.wait_for(r"refused a join from 127\.0\.0\.1:\d+: the joiner asks for --ticks 100")
    third = join(tmp, port, "--ticks", "200")
    (status1, out1, err1), (status3, out3, err3) = first.finish(), third.finish()
    assert (status1, status3) == (0, 0), err1 + err3
    assert hash_of(out1) == hash_of(out3)
    assert "Traceback" not in err1 + err2 + err3


def test_a_joiner_with_ticks_is_refused_by_a_host_that_plays_frames(tmp: Path) -> None:
    first, port = host(tmp, "--headless", "--frames", "100000", "--lobby-timeout", "30")
    second = join(tmp, port, "--ticks", "100")
    status2, _, err2 = second.finish()
    first.process.kill()
    first.finish()
    assert status2 == 2 and "the host plays frames (no --ticks)" in err2, err2


# -- nothing hosted, or too late ----------------------------------------------------------------

def test_joining_where_nothing_is_hosted_says_it_waits_then_that_no_host_answered(tmp: Path) -> None:
    port = free_port()
    peer = join(tmp, port, "--ticks", "10", "--lobby-timeout", "0.5")
    peer.wait_for(rf"^tickswap: waiting for the host at 127\.0\.0\.1:{port} \(up to 0\.5 s\)$")
    status, _, err = peer.finish()
    assert status == 1, err
    assert err.splitlines()[-1] == f"tickswap: no host answered at 127.0.0.1:{port} within 0.5 s", err


def test_a_closed_port_ends_the_wait_before_the_lobby_timeout(tmp: Path) -> None:
    # Linux answers a datagram to a closed loopback port with "port unreachable": after a few
    # tries (a host may be starting) the joiner stops, long before an hour's --lobby-timeout.
    port = free_port()
    peer = join(tmp, port, "--ticks", "10", "--lobby-timeout", "3600")
    status, _, err = peer.finish()
    assert status == 1, err
    assert f"no host answered at 127.0.0.1:{port}: nothing listens on that port" in err, err
    assert "Traceback" not in err


def test_a_joiner_or_spectator_after_the_start_is_refused_at_once(tmp: Path) -> None:
    first, port = host(tmp, "--ticks", "1000000", "--disconnect-timeout", "30")
    second = join(tmp, port, "--ticks", "1000000", "--disconnect-timeout", "30")
    second.wait_for("joined .* as player 1")
    first.wait_for("the session starts")  # before it, in the start's grace, a joiner hears "the session is full"
    for extra in (("--ticks", "1000000"), ("--spectate",)):
        # A lobby timeout of an hour: only the host's refusal can end these joiners.
        late = join(tmp, port, *extra, "--lobby-timeout", "3600")
        status, _, err = late.finish()
        assert status == 2, err
        assert "the host refused: the session has started" in err, err
        assert "Traceback" not in err
    for peer in (first, second):
        peer.process.kill()
        peer.finish()


def test_a_welcomed_player_waiting_for_the_others_is_kept_in_touch_by_the_host(tmp: Path) -> None:
    # Player 1 drops a host silent 0.3 s; player 2 is started only once player 1 is in, and
    # starting a Python process takes longer than that: the host must keep player 1 in touch.
    first, port = host(tmp, "--ticks", "200", "--disconnect-timeout", "0.3", players=3)
    second = join(tmp, port, "--ticks", "200", "--disconnect-timeout", "0.3")
    second.wait_for("joined .* as player 1")
    third = join(tmp, port, "--ticks", "200")
    results = [peer.finish() for peer in (first, second, third)]
    assert [status for status, _, _ in results] == [0, 0, 0], "".join(err for _, _, err in results)
    assert len({hash_of(out) for _, out, _ in results}) == 1


# -- the host's script and the host's word on another game -------------------------------------

def test_a_host_script_naming_another_player_is_refused_before_the_socket_opens(tmp: Path) -> None:
    script(tmp / "both.jsonl", {0: [(3, "key_press", "LEFT")], 1: [(5, "key_press", "RIGHT")]}, named=True)
    peer = Peer(tmp, "host", "game.py", "--players", "2", "--port", "0", "--ticks", "10", "--input", "both.jsonl")
    status, _, err = peer.finish()
    assert status == 2, err
    assert "both.jsonl:2: player 1, but this peer is player 0" in err, err
    assert "hosting" not in err, "refused before listening"


def test_the_script_reader_refuses_a_line_naming_another_player_with_its_line(tmp_path: Path) -> None:
    path = script(tmp_path / "two.jsonl", {2: [(1, "key_press", "LEFT")], 0: [(2, "key_press", "RIGHT")]}, named=True)
    with pytest.raises(ReplayError, match=r"two\.jsonl:2: player 0, but this peer is player 2"):
        read_input_scripts(path, only=2)
    with pytest.raises(ReplayError, match=r"two\.jsonl:1: player 2, but this peer is player 0"):
        read_input_scripts(path, only=0)
    assert set(read_input_scripts(path)) == {0, 2}, "without only, every player's lines are read"


def test_a_game_mismatch_allowed_by_the_joiner_alone_is_refused_by_the_host(tmp: Path) -> None:
    (tmp / "other.py").write_text((tmp / "game.py").read_text() + "\n# another game\n")
    first, port = host(tmp, "--ticks", "100")
    second = join(tmp, port, "--ticks", "100", "--allow-game-mismatch", game="other.py")
    status2, _, err2 = second.finish()
    assert status2 == 2, err2
    assert "--allow-game-mismatch must be given to the host too" in err2, err2
    first.wait_for("refused a join .*--allow-game-mismatch must be given to the host too")
    first.process.kill()
    first.finish()


# -- the packets carry the terms ------------------------------------------------------------------

def test_welcome_and_hello_carry_the_terms_and_refuse_bad_ones() -> None:
    welcome = Welcome(7, 1, 1, 2, 0, 20.0, "patrol", "", ticks=300, desync_interval=30)
    assert decode(encode(welcome)) == welcome
    hello = Hello("patrol", "", "0.1.0", False, 3, ticks=300)
    assert decode(encode(hello)) == hello
    for bad in ({"ticks": 0}, {"desync_interval": 0}, {"desync_interval": 10**6}, {"ticks": "300"}):
        with pytest.raises(PacketError):
            Welcome(7, 1, 1, 2, 0, 20.0, "patrol", "", **bad)  # type: ignore[arg-type]
    with pytest.raises(PacketError, match="hello ticks"):
        Hello("patrol", "", "0.1.0", False, 3, ticks=-1)


def test_a_game_mismatch_refusal_says_how_to_play_anyway_and_who_must_allow_it() -> None:
    from engine.net.lobby import SessionOptions, _refusal
    from engine.state.names import __version__

    differs = Hello("game.py", "aaaa", __version__, False, 3)
    said = _refusal(differs, "game.py", "bbbb", SessionOptions())
    assert said.startswith("the joiner's game file 'game.py' is not the host's 'game.py' (their contents differ)")
    assert "--allow-game-mismatch on both sides plays anyway" in said
    asks = Hello("game.py", "aaaa", __version__, False, 3, allow_mismatch=True)
    assert _refusal(asks, "game.py", "bbbb", SessionOptions()).endswith(
        "; --allow-game-mismatch must be given to the host too")
    assert _refusal(asks, "game.py", "bbbb", SessionOptions(allow_game_mismatch=True)) == ""
