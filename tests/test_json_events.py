"""``--json``: every command's events as one JSON object a line on stdout, people's lines on stderr."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from test_net_session import GAME, JOIN_CODE, TIMEOUT, Peer

from engine.json_events import emit, json_output
from engine.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent


def events(out: str) -> list[dict]:
    """Every stdout line as JSON: a line that is not is a failure (nothing else may be on stdout)."""
    return [json.loads(line) for line in out.splitlines()]


def test_emit_says_nothing_unless_a_command_asked_for_json(capsys):
    emit("summary", ok=True)
    assert capsys.readouterr().out == ""
    with json_output(True):
        emit("summary", ok=True, state="ab")
        print("for people")
    captured = capsys.readouterr()
    assert events(captured.out) == [{"event": "summary", "ok": True, "state": "ab"}]
    assert captured.err == "for people\n"


def test_run_replay_and_check_say_their_summary_and_state_as_json(tmp_path, capsys):
    recording = tmp_path / "pong.jsonl"
    assert main(["run", "pong", "--ticks", "120", "--record", str(recording)]) == 0
    plain = capsys.readouterr().out
    assert main(["run", "pong", "--ticks", "120", "--json"]) == 0
    captured = capsys.readouterr()
    [summary] = events(captured.out)
    assert summary["event"] == "summary" and summary["command"] == "run" and summary["ok"] is True
    assert summary["ticks"] == 120 and re.fullmatch(r"[0-9a-f]{64}", summary["state"])
    assert f"state {summary['state'][:16]}" in plain and summary["text"] in captured.err
    assert main(["replay", str(recording), "--json"]) == 0
    [replayed] = events(capsys.readouterr().out)
    assert replayed | {"checked": 2} == {"event": "summary", "command": "replay", "game": "pong", "ok": True,
                                         "ticks": 120, "checked": 2, "first_mismatch": None,
                                         "state": summary["state"]}
    assert main(["check", "pong", "--ticks", "60", "--orders", "1", "--hash-seeds", "0", "--json"]) == 0
    checked = events(capsys.readouterr().out)
    assert [(line["event"], line.get("check"), line["ok"]) for line in checked] == [
        ("check", "orders", True), ("check", "saves", True), ("summary", None, True)]


def test_a_host_and_a_joiner_say_the_port_the_seat_and_the_same_final_state(tmp_path):
    shutil.copy(GAME, tmp_path / "game.py")
    host = Peer(tmp_path, "host", "game.py", "--players", "2", "--port", "0", "--code", JOIN_CODE, "--ticks", "120",
                "--json")
    port = int(host.wait_for(r"on 127\.0\.0\.1:(\d+)").group(1))
    joiner = Peer(tmp_path, "join", f"127.0.0.1:{port}", JOIN_CODE, "game.py", "--ticks", "120", "--json")
    (status1, out1, err1), (status2, out2, err2) = host.finish(), joiner.finish()
    assert (status1, status2) == (0, 0), err1 + err2
    hosted, joined = events(out1), events(out2)
    assert hosted[0] == {"event": "listening", "host": "127.0.0.1", "port": port, "game": "game.py", "players": 2,
                         "join_code": JOIN_CODE}
    assert joined[0]["event"] == "joined" and joined[0]["player"] == 1 and joined[0]["players"] == 2
    assert hosted[-1]["event"] == joined[-1]["event"] == "summary"
    assert hosted[-1]["state"] == joined[-1]["state"] and hosted[-1]["ticks"] == 120


def test_a_session_that_a_drop_ends_says_why_in_its_summary(tmp_path):
    shutil.copy(GAME, tmp_path / "game.py")
    host = Peer(tmp_path, "host", "game.py", "--players", "2", "--port", "0", "--code", JOIN_CODE, "--ticks",
                "1000000", "--disconnect-timeout", "1", "--json")
    port = int(host.wait_for(r"on 127\.0\.0\.1:(\d+)").group(1))
    joiner = Peer(tmp_path, "join", f"127.0.0.1:{port}", JOIN_CODE, "game.py", "--ticks", "1000000")
    host.wait_for("the session starts")
    joiner.wait_for("joined .* as player")
    joiner.process.send_signal(signal.SIGKILL)
    joiner.finish()
    status, out, err = host.finish()
    assert status == 1, err
    summary = events(out)[-1]
    assert summary["event"] == "summary" and summary["ok"] is False and summary["command"] == "host"
    assert "player 1" in summary["ended"] and re.fullmatch(r"[0-9a-f]{64}", summary["state"])


def test_a_dropped_player_and_its_return_are_events_at_the_ticks_every_peer_says(capsys):
    from netsim import Net
    from test_net_play import PLAYER_SCRIPTS, scripted

    from engine.net.lobby import SessionOptions

    options = SessionOptions(ticks=600, disconnect_timeout=0.5)
    with json_output(True):
        net = Net()
        net.host(players=3, options=options)
        _second, third = net.join(options=options), net.join(options=options)
        net.open()
        scripted(net)
        meddle, _back = net.rejoining(third, options, PLAYER_SCRIPTS[2])
        net.play_session(600, between=meddle)
    said = "\n".join(net.said[0])
    gone_line = re.search(r"player 2 is disconnected from tick (\d+)", said)
    back_line = re.search(r"player 2 is back from tick (\d+)", said)
    assert gone_line is not None and back_line is not None, said
    gone, returned = int(gone_line.group(1)), int(back_line.group(1))
    peers = [line for line in events(capsys.readouterr().out) if line["event"] == "peer"]
    assert {"event": "peer", "player": 2, "tick": gone, "connected": False} in peers
    assert {"event": "peer", "player": 2, "tick": returned, "connected": True} in peers
    assert all(line["player"] == 2 for line in peers)


def test_a_game_that_runs_itself_says_json_too(tmp_path):
    game = tmp_path / "dot.py"
    game.write_text("from engine import Entity, run\n\n\nclass Dot(Entity):\n    def update(self, world):\n"
                    "        self.x += 1\n\n\ndef build(world):\n    world.spawn(Dot())\n\n\n"
                    "if __name__ == '__main__':\n    run(build)\n")
    done = subprocess.run([sys.executable, str(game), "--ticks", "10", "--json"], capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [summary] = events(done.stdout)
    assert summary["event"] == "summary" and summary["ticks"] == 10 and summary["game"] == "dot.py"
