"""``tickswap host``/``join`` as a user meets them (issue 19's trial): how a session ends, its lines, its checks.

Real processes on 127.0.0.1, bounded by ``test_net_session``'s timeouts; none sleeps.
"""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from test_net_session import FRAMES, GAME, JOIN_CODE, SUMMARY, TIMEOUT, Peer, host, join, replays, script


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    shutil.copy(GAME, tmp_path / "game.py")
    return tmp_path


def test_a_peer_that_leaves_a_ticks_session_ends_the_other_with_0_and_its_recording_replays(tmp: Path) -> None:
    # Two players: with three or more the others would play on without it (test_net_survive_cli).
    first, port = host(tmp, "--ticks", "1000000", "--record", "h.jsonl")
    second = join(tmp, port, "--ticks", "1000000", "--record", "j.jsonl")
    first.wait_for("the session starts")
    second.wait_for("joined .* as player")
    second.process.send_signal(signal.SIGTERM)
    (status2, _, err2), (status1, out1, err1) = second.finish(), first.finish()
    assert status2 == 143 and "Traceback" not in err2, err2
    assert "tickswap: session:" in err2 and re.search(r"terminated at confirmed tick \d+; recorded j\.jsonl", err2), err2
    assert status1 == 0, err1
    assert "player 1 left: the peer closed the session" in err1
    assert re.search(r"the session ended early, at tick \d+; recorded h\.jsonl through tick \d+ \(it replays\)",
                     err1), err1
    assert SUMMARY.search(out1), out1
    for recording in ("h.jsonl", "j.jsonl"):  # the leaver's too: a stopped session keeps its recording
        replays(tmp, recording)


def test_a_host_stopped_in_the_lobby_says_that_nothing_was_recorded_and_why(tmp: Path) -> None:
    first, _ = host(tmp, "--ticks", "50", "--record", "h.jsonl")  # no one joins: it waits in its lobby
    first.process.send_signal(signal.SIGTERM)
    status, _, err = first.finish()
    assert status == 143 and "Traceback" not in err, err
    assert "tickswap: terminated in the lobby: the session had not started, nothing recorded to h.jsonl" in err, err
    assert not (tmp / "h.jsonl").exists()


def test_a_joiner_interrupted_while_waiting_for_its_host_says_so_in_one_line(tmp: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:  # a port that never answers nor refuses
        silent.bind(("127.0.0.1", 0))
        joiner = join(tmp, silent.getsockname()[1], "--ticks", "50")
        joiner.wait_for("waiting for the host")
        joiner.process.send_signal(signal.SIGINT)
        status, _, err = joiner.finish()
    assert status == 130 and "Traceback" not in err, err
    assert err.splitlines()[-1] == "tickswap: interrupted in the lobby: the session had not started", err


CRASH = """

import os as _os

_update = Mover.update


def update(self, world):
    if _os.environ.get("CRASH_AT") and world.tick_count >= int(_os.environ["CRASH_AT"]):
        raise RuntimeError("planted")
    _update(self, world)


Mover.update = update
"""


def test_a_crash_is_one_line_and_the_others_are_told_it_crashed(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = tmp / "game.py"
    game.write_text(game.read_text() + CRASH)
    first, port = host(tmp, "--ticks", "1000000")
    monkeypatch.setenv("CRASH_AT", "30")  # the joiner's game only
    second = join(tmp, port, "--ticks", "1000000", "--record", "j.jsonl")
    (status2, _, err2), (status1, _, err1) = second.finish(), first.finish()
    assert (status1, status2) == (1, 1), err1 + err2
    assert "Traceback" not in err1 + err2, err2
    assert re.search(r"game\.py (stopped|failed).*planted", err2), err2
    assert re.search(r"player 1's game crashed: game\.py (stopped|failed).*planted", err1), err1


TERM = """

import os as _os
import signal as _signal

_update = Mover.update
_sent = []


def update(self, world):
    _update(self, world)
    if _os.environ.get("TERM_AT") and world.tick_count + 1 == int(_os.environ["TERM_AT"]) and not _sent:
        _sent.append(True)
        _os.kill(_os.getpid(), _signal.SIGTERM)  # a real SIGTERM, landing inside a tick whose state is hashed


Mover.update = update
"""


def test_a_sigterm_inside_a_hashed_tick_says_the_session_line_and_records_through_the_last_confirmed_tick(
        tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = tmp / "game.py"
    game.write_text(game.read_text() + TERM)
    lockstep = ("--max-prediction", "0")  # tick 120 runs confirmed: where the signal lands is known
    first, port = host(tmp, "--ticks", "1000000", *lockstep)
    monkeypatch.setenv("TERM_AT", "120")  # the joiner's game only
    second = join(tmp, port, "--ticks", "1000000", "--record", "j.jsonl", *lockstep)
    (status2, _, err2), (status1, _, err1) = second.finish(), first.finish()
    assert (status2, status1) == (143, 0), err2 + err1
    assert "Traceback" not in err2 and re.search(r"^tickswap: session: \d+ rollbacks?", err2, re.M), err2
    stopped = re.search(r"game\.py terminated at confirmed tick (\d+); recorded j\.jsonl through tick (\d+)", err2)
    assert stopped and stopped.group(1) == stopped.group(2), err2
    assert stopped.group(2) == "120", "the recording goes through the last confirmed tick, not back to its last hash"
    monkeypatch.delenv("TERM_AT")  # the replay must not be stopped by the game again
    done = subprocess.run([sys.executable, "-m", "engine.tools.cli", "replay", "j.jsonl", "--game", "game.py"],
                          cwd=tmp, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0 and f"{stopped.group(2)} ticks" in done.stdout and "all match" in done.stdout, (
        done.stdout + done.stderr)


def test_a_frames_peer_stopped_by_sigterm_writes_its_screenshot_and_names_it_in_its_stop_line(
        tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = tmp / "game.py"
    game.write_text(game.read_text() + TERM)
    lockstep = ("--max-prediction", "0")
    monkeypatch.setenv("TERM_AT", "120")  # the host's game only: it stops itself after tick 120
    first, port = host(tmp, "--headless", "--frames", "100000", "--screenshot", "h.png", "--record", "h.jsonl",
                       *lockstep)
    monkeypatch.delenv("TERM_AT")
    second = join(tmp, port, "--headless", "--frames", "100000", *lockstep)
    (status1, _, err1), (status2, _, err2) = first.finish(), second.finish()
    assert (status1, status2) == (143, 0), err1 + err2
    assert "Traceback" not in err1 and re.search(
        r"game\.py terminated at confirmed tick \d+; recorded h\.jsonl through tick \d+; "
        r"screenshot h\.png of the last frame$", err1, re.M), err1
    assert (tmp / "h.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_frames_run_stopped_by_sigterm_writes_its_screenshot_and_names_it_in_its_stop_line(
        tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = tmp / "game.py"
    game.write_text(game.read_text() + TERM)
    monkeypatch.setenv("TERM_AT", "120")
    done = subprocess.run([sys.executable, "-m", "engine.tools.cli", "run", "game.py", "--headless", "--frames",
                           "100000", "--screenshot", "r.png"], cwd=tmp, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 143 and "Traceback" not in done.stderr, done.stderr
    assert "game.py terminated at tick 120; screenshot r.png of the last frame\n" in done.stderr, done.stderr
    assert (tmp / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_joiner_whose_script_names_another_seat_leaves_before_the_start_and_the_host_waits_on(tmp: Path) -> None:
    script(tmp / "for2.jsonl", {2: [(5, "key_press", "LEFT")]}, named=True)
    first, port = host(tmp, "--ticks", "50", players=2)
    wrong = join(tmp, port, "--ticks", "50", "--input", "for2.jsonl")
    status, _, err = wrong.finish()
    assert status == 2 and "scripts player 2, but the host gave this peer player 1" in err, err
    first.wait_for("player 1 left the lobby before the start")
    right = join(tmp, port, "--ticks", "50")
    (status1, out1, err1), (status2, out2, err2) = first.finish(), right.finish()
    assert (status1, status2) == (0, 0), err1 + err2
    assert SUMMARY.search(out1) and SUMMARY.search(out2)


def test_a_script_naming_two_players_is_refused_before_joining(tmp: Path) -> None:
    script(tmp / "both.jsonl", {1: [(5, "key_press", "LEFT")], 2: [(6, "key_press", "LEFT")]}, named=True)
    status, _, err = join(tmp, 9, "--ticks", "5", "--input", "both.jsonl").finish()
    assert status == 2 and "scripts players 1, 2: a peer scripts only its own player" in err, err


@pytest.mark.parametrize(("player", "said"), [
    (0, "player 0, but player 0 is the host: a joiner is player 1 or more"),
    (8, "player must be from 0 to 7, got 8"),
])
def test_a_joiners_script_naming_a_player_no_joiner_can_be_is_refused_before_asking_anyone(
        tmp: Path, player: int, said: str) -> None:
    path = script(tmp / "s.jsonl", {1: [(3, "key_press", "LEFT")], player: [(5, "key_press", "LEFT")]}, named=True)
    path.write_text(path.read_text().replace('"player": 1, ', ""))  # line 1 names no player, line 2 the bad one
    status, _, err = join(tmp, 9, "--ticks", "5", "--input", "s.jsonl").finish()
    assert status == 2 and err == f"tickswap: s.jsonl:2: {said}\n", err


@pytest.mark.parametrize(("address", "said"), [
    ("127.0.0.1:70000", "the port '70000' is out of range: expected 1 to 65535"),
    ("[::1]:7777", "only IPv4 is supported"),
    ("::1", "only IPv4 is supported"),
    ("127.0.0.1:x", "expected HOST:PORT (or HOST, port 7777)"),
])
def test_a_bad_join_address_is_one_line_and_exit_2(tmp: Path, address: str, said: str) -> None:
    status, _, err = Peer(tmp, "join", address, "game.py", "--ticks", "5").finish()
    assert status == 2 and said in err and "Traceback" not in err, err


def test_a_join_address_without_a_port_asks_port_7777(tmp: Path) -> None:
    status, _, err = Peer(tmp, "join", "127.0.0.1", JOIN_CODE, "game.py", "--ticks", "5", "--lobby-timeout", "0.5").finish()
    assert status == 1 and "127.0.0.1:7777" in err, err


def test_players_are_counted_from_1_to_8_and_default_to_the_games_fewest(tmp: Path) -> None:
    status, _, err = Peer(tmp, "host", "game.py", "--players", "0", "--port", "0").finish()
    assert status == 2 and "expected a number from 1 to 8, got 0" in err, err
    first = Peer(tmp, "host", "game.py", "--port", "0", "--ticks", "20")
    port = int(first.wait_for(r"for 2 players on 127\.0\.0\.1:(\d+)").group(1))
    # No --code: the host draws one and prints it, with the command that joins.
    code = first.wait_for(rf"join code ([A-Z2-9]{{6}}): give it to the players, who join with (tickswap join "
                          rf"127\.0\.0\.1:{port} ([A-Z2-9]{{6}})(.*))")
    assert code.group(1) == code.group(3)
    # The command as printed works as it is: a game file is named (a joiner that names none is refused).
    words = code.group(2).split()
    assert words[4:] == ["game.py"], words
    second = Peer(tmp, *words[1:], "--ticks", "20")
    (status1, _, err1), (status2, _, err2) = first.finish(), second.finish()
    assert (status1, status2) == (0, 0), err1 + err2


def test_frames_sessions_take_a_screenshot_and_say_their_session_line(tmp: Path) -> None:
    first, port = host(tmp, "--headless", "--frames", "100000", "--screenshot", "h.png")
    second = join(tmp, port, "--headless", "--frames", "120", "--screenshot", "j.png")
    (status2, out2, err2), (status1, out1, err1) = second.finish(), first.finish()
    assert (status1, status2) == (0, 0), err1 + err2
    for out, err, png in ((out1, err1, "h.png"), (out2, err2, "j.png")):
        assert FRAMES.search(out) and f"screenshot {png}" in out, out
        assert "session:" in err, err
        assert (tmp / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_screenshot_is_refused_with_ticks(tmp: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "engine.tools.cli", "host", "game.py", "--ticks", "5", "--screenshot",
                           "a.png"], cwd=tmp, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 2 and "can't be combined with --frames, --headless, --no-hud or --screenshot" in done.stderr


def test_a_packet_error_reaching_the_command_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.net.checks import PacketError
    from engine.tools.cli import guarded_command

    def work() -> int:
        raise PacketError("hello game: too long")

    assert guarded_command(work) == 2
    err = capsys.readouterr().err
    assert err == "tickswap: hello game: too long\n", err


def test_a_stop_with_no_frame_drawn_or_a_tick_stopped_by_force_says_why_no_screenshot_was_written(tmp: Path) -> None:
    from types import SimpleNamespace

    from engine.interrupts import Terminated
    from engine.tools.cli.outputs import screenshot_at_stop

    drawn = SimpleNamespace(loop=SimpleNamespace(frames=5))
    assert screenshot_at_stop(None, str(tmp / "a.png"), Terminated()).endswith("not written: no frame was drawn yet")
    said = screenshot_at_stop(drawn, str(tmp / "a.png"), Terminated(inside_tick=True))
    assert said.endswith("not written: the tick it would show was stopped half done")
    assert not (tmp / "a.png").exists()
