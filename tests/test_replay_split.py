"""``tickswap replay FILE --split DIR``: one session recording becomes each peer's input script."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_net_session import hash_of, host, join, tmp  # noqa: F401  (tmp: the session tests' fixture)

from engine.files.replay import ReplayError
from engine.files.replay.split import split_recording
from engine.input import read_input_scripts
from engine.tools.cli import main


def test_a_session_recording_splits_into_scripts_that_play_the_same_session_again(tmp: Path, capsys) -> None:  # noqa: F811
    first, port = host(tmp, "--ticks", "240", "--input", "p0.jsonl", "--record", "h.jsonl", "--input-delay", "3")
    second = join(tmp, port, "--ticks", "240", "--input", "p1.jsonl", "--input-delay", "3")
    (status1, out1, err1), (status2, _, err2) = first.finish(), second.finish()
    assert (status1, status2) == (0, 0), err1 + err2
    assert main(["replay", str(tmp / "h.jsonl"), "--split", str(tmp / "peers")]) == 0
    said = capsys.readouterr().out
    assert "player 0's input in" in said and "player 1's input in" in said
    for player in (0, 1):
        ours = read_input_scripts(tmp / "peers" / f"player-{player}.jsonl")
        theirs = read_input_scripts(tmp / f"p{player}.jsonl")
        played = {tick: events for tick, events in theirs.get(0, {}).items() if tick <= 240}
        assert ours.get(0) == played and played, f"player {player}'s script is the one the session played"
        assert '"player"' not in (tmp / "peers" / f"player-{player}.jsonl").read_text(), "a peer's lines name no one"
    again, port = host(tmp, "--ticks", "240", "--input", "peers/player-0.jsonl", "--input-delay", "3")
    other = join(tmp, port, "--ticks", "240", "--input", "peers/player-1.jsonl", "--input-delay", "3")
    (status3, out3, err3), (status4, _, err4) = again.finish(), other.finish()
    assert (status3, status4) == (0, 0), err3 + err4
    assert hash_of(out3) == hash_of(out1), "the split scripts play the recorded session again"


def test_a_damaged_recording_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "tickswap-replay"}\n')
    with pytest.raises(ReplayError, match="bad.jsonl"):
        split_recording(bad, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert main(["replay", str(bad), "--split", str(tmp_path / "out")]) == 2


def test_split_takes_no_replay_options(tmp_path: Path, capsys) -> None:
    assert main(["replay", str(tmp_path / "r.jsonl"), "--split", str(tmp_path), "--headless"]) == 2
    assert "--split writes the recording's input scripts without replaying it" in capsys.readouterr().err


def test_a_three_player_recording_splits_into_a_host_script_and_a_two_seat_joiners_script_that_play_it_again(
        tmp_path: Path, capsys) -> None:
    # The newcomer's trial: split files name no player, so a --local 2 joiner's script (which names both of its
    # players) had to be merged by hand. --peer 1,2 writes it.
    from netsim import GAME, Net
    from test_net_play import PLAYER_SCRIPTS

    from engine.files.replay import read_replay
    from engine.input.scripts import assign_unnamed, read_script_lines

    combined = tmp_path / "all.jsonl"
    combined.write_text("".join(json.dumps({"tick": tick, "player": player, "input": [e.to_json() for e in events]})
                                + "\n" for tick in range(1, 301) for player, script in enumerate(PLAYER_SCRIPTS)
                                for events in [script.get(tick)] if events))
    recording = tmp_path / "session.jsonl"
    assert main(["run", str(GAME.path), "--players", "3", "--ticks", "300", "--seed", "3", "--input", str(combined),
                 "--record", str(recording)]) == 0
    capsys.readouterr()
    assert main(["replay", str(recording), "--split", str(tmp_path / "peers"), "--peer", "1,2"]) == 0
    said = capsys.readouterr().out
    assert "player 0's input in" in said and "players 1 and 2's input in" in said, said
    assert sorted(path.name for path in (tmp_path / "peers").iterdir()) == ["player-0.jsonl", "players-1-2.jsonl"]
    host_file, joiner_file = tmp_path / "peers" / "player-0.jsonl", tmp_path / "peers" / "players-1-2.jsonl"
    assert '"player"' not in host_file.read_text()
    # Keys by name, as a script written by hand says them (read back to the same codes: the hash below holds it).
    assert re.search(r'\["key_(press|release)", "[A-Z]', joiner_file.read_text())
    assert not re.search(r'\["key_(press|release)", \d', host_file.read_text() + joiner_file.read_text())
    # Read as tickswap host and tickswap join --local 2 read their --input (engine.tools.cli.net).
    host_script = assign_unnamed(read_script_lines(host_file, 3, only=0), 0)
    joiner_named = read_script_lines(joiner_file, 3, joining=True)
    assert sorted(player for player in joiner_named if player is not None) == [1, 2] and None not in joiner_named
    net = Net()
    host = net.host(players=3)
    joiner = net.join(local=2)
    net.open()
    assert joiner.local_players == (1, 2)
    host.script = host_script.get(0, {})
    joiner.machine.scripts = assign_unnamed(joiner_named, 1)
    net.play_ticks(300)
    assert host.world is not None and joiner.world is not None
    recorded = read_replay(recording)
    assert recorded.end == 300
    assert host.world.state_hash() == joiner.world.state_hash() == recorded.end_hash, \
        "the host's and the two-seat joiner's scripts play the recording again"


def test_a_peer_naming_a_player_the_recording_lacks_or_one_twice_is_refused_before_writing(tmp: Path,  # noqa: F811
                                                                                           capsys) -> None:
    recording = tmp / "one.jsonl"
    assert main(["run", "pong", "--players", "2", "--ticks", "5", "--record", str(recording)]) == 0
    capsys.readouterr()
    assert main(["replay", str(recording), "--split", str(tmp / "out"), "--peer", "1,2"]) == 2
    assert f"tickswap: --peer: player 2, but {recording} has 2 players (0 to 1)" in capsys.readouterr().err
    assert main(["replay", str(recording), "--split", str(tmp / "out"), "--peer", "0,1", "--peer", "1"]) == 2
    assert "player 1 is named in two peers" in capsys.readouterr().err
    assert not (tmp / "out").exists()
    assert main(["replay", str(recording), "--peer", "0,1"]) == 2
    assert "--peer goes with --split" in capsys.readouterr().err
