"""``tickswap replay FILE --split DIR``: one session recording becomes each peer's input script."""

from __future__ import annotations

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
