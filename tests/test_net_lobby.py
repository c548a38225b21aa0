"""Joining and agreeing: a session's terms are the host's, and every join that can't be taken is answered at once.

The lobbies themselves play in one process (``test_net_play``); here, what needs a real
process: the OS saying that nothing listens on a port, and the command line refusing a
host's script before it opens its port. The packets and the script reader in process.
No test sleeps: each waits on a process's lines or its end, with the processes' timeouts.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from test_net_session import Peer, join, script

from engine.files.replay import ReplayError
from engine.input.scripts import read_script_lines
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


# -- nothing hosted ----------------------------------------------------------------

def test_a_closed_port_ends_the_wait_before_the_lobby_timeout(tmp: Path) -> None:
    # Linux answers a datagram to a closed loopback port with "port unreachable": after a few
    # tries (a host may be starting) the joiner stops, long before an hour's --lobby-timeout.
    port = free_port()
    peer = join(tmp, port, "--ticks", "10", "--lobby-timeout", "3600")
    status, _, err = peer.finish()
    assert status == 1, err
    assert f"no host answered at 127.0.0.1:{port}: nothing listens on that port" in err, err
    assert "Traceback" not in err


# -- the host's script and the host's word on another game -------------------------------------

def test_a_host_script_naming_another_player_is_refused_before_the_socket_opens(tmp: Path) -> None:
    script(tmp / "both.jsonl", {0: [(3, "key_press", "LEFT")], 1: [(5, "key_press", "RIGHT")]}, named=True)
    peer = Peer(tmp, "host", "game.py", "--players", "2", "--port", "0", "--ticks", "10", "--input", "both.jsonl")
    status, _, err = peer.finish()
    assert status == 2, err
    assert "both.jsonl:2: player 1, but this peer is player 0" in err, err
    assert "`tickswap replay REC --split DIR` writes each peer's script" in err, "the way to make one"
    assert "hosting" not in err, "refused before listening"


def test_the_script_reader_refuses_a_line_naming_another_player_with_its_line(tmp_path: Path) -> None:
    path = script(tmp_path / "two.jsonl", {2: [(1, "key_press", "LEFT")], 0: [(2, "key_press", "RIGHT")]}, named=True)
    with pytest.raises(ReplayError, match=r"two\.jsonl:2: player 0, but this peer is player 2"):
        read_script_lines(path, only=2)
    with pytest.raises(ReplayError, match=r"two\.jsonl:1: player 2, but this peer is player 0"):
        read_script_lines(path, only=0)
    assert set(read_script_lines(path)) == {0, 2}, "without only, every player's lines are read"


# -- the packets carry the terms ------------------------------------------------------------------

def test_welcome_and_hello_carry_the_terms_and_refuse_bad_ones() -> None:
    welcome = Welcome(7, 1, 1, 2, 0, 20.0, "patrol", "", ticks=300, desync_interval=30, token=5, key="41" * 33,
                      confirm="cd" * 32)
    assert decode(encode(welcome)) == welcome
    hello = Hello("patrol", "", "0.1.0", False, 3, ticks=300)
    assert decode(encode(hello)) == hello
    for bad in ({"ticks": 0}, {"desync_interval": 0}, {"desync_interval": 10**6}, {"ticks": "300"}):
        with pytest.raises(PacketError):
            Welcome(7, 1, 1, 2, 0, 20.0, "patrol", "", **bad)
    with pytest.raises(PacketError, match="hello ticks"):
        Hello("patrol", "", "0.1.0", False, 3, ticks=-1)


def test_a_game_mismatch_refusal_says_how_to_play_anyway_and_who_must_allow_it() -> None:
    from engine.net.lobby import SessionOptions
    from engine.net.lobby import refusal as _refusal
    from engine.state.names import __version__

    differs = Hello("game.py", "aaaa", __version__, False, 3)
    said = _refusal(differs, "game.py", "bbbb", SessionOptions())
    assert said.startswith("the joiner's game file 'game.py' is not the host's game file 'game.py' (their contents "
                           "differ)")
    assert "--allow-game-mismatch on both sides plays anyway" in said
    asks = Hello("game.py", "aaaa", __version__, False, 3, allow_mismatch=True)
    assert _refusal(asks, "game.py", "bbbb", SessionOptions()).endswith(
        "; --allow-game-mismatch must be given to the host too")
    assert _refusal(asks, "game.py", "bbbb", SessionOptions(allow_game_mismatch=True)) == ""


def test_a_renamed_copy_of_the_hosts_game_file_plays_and_another_file_of_its_name_does_not() -> None:
    # A newcomer's trial: a friend's download of arena.py saved as "myarena.py", byte for byte the
    # same, was refused as "not the host's game file" (the docs compare the digest).
    from engine.net.lobby import SessionOptions
    from engine.net.lobby import refusal as _refusal
    from engine.state.names import __version__

    assert _refusal(Hello("myarena.py", "aaaa", __version__, False, 3), "arena.py", "aaaa", SessionOptions()) == ""
    assert _refusal(Hello("myarena.py", "aaaa", __version__, False, 3), "arena.py", "bbbb",
                    SessionOptions()).startswith("the joiner's game file 'myarena.py' is not the host's game file "
                                                 "'arena.py' (their contents differ);")
    assert _refusal(Hello("pong", "", __version__, False, 3), "patrol", "", SessionOptions()).startswith(
        "the joiner's game 'pong' is not the host's game 'patrol';")


def test_a_sample_game_is_called_a_game_and_a_game_file_a_game_file_in_a_mismatch() -> None:
    # Issue 30's sixth finding: a joiner naming the sample pong was told "the joiner's game file 'pong'".
    from engine.net.lobby import SessionOptions
    from engine.net.lobby import refusal as _refusal
    from engine.state.names import __version__

    sample = Hello("pong", "", __version__, False, 3)
    assert _refusal(sample, "game.py", "bbbb", SessionOptions()).startswith(
        "the joiner's game 'pong' is not the host's game file 'game.py';")
    file = Hello("game.py", "aaaa", __version__, False, 3)
    assert _refusal(file, "pong", "", SessionOptions()).startswith(
        "the joiner's game file 'game.py' is not the host's game 'pong';")
