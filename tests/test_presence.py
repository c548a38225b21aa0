"""A player's presence: the "disconnect" and "connect" events, ``TickInput.connected``, kept wherever input is kept.

A network session puts them in a dropped player's input at the tick every peer agrees on;
offline, a script may hold them (to play a session's drop again). Checkpoints, saves and
recordings keep them; a recording may start from a save (``--load`` with ``--record``, a
late joiner's) and replays from it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Entity, World, keys
from engine.files.replay import ReplayError, read_replay, read_start
from engine.input.events import InputEvent, InputQueue
from engine.input.scripts import read_input_scripts
from engine.tools.cli import main
from engine.world.save import SaveError, load_world_text, save_text

DISCONNECT, CONNECT = InputEvent("disconnect"), InputEvent("connect")

GAME = '''
from engine import Entity, buffered, keys

PLAYERS = range(1, 3)


class Runner(Entity):
    saved = ("player",)
    gone = buffered(0)

    def __init__(self, player=0):
        super().__init__(x=0.0)
        self.player = player

    def update(self, world):
        held = world.input_of(self.player)
        if not held.connected:
            self.gone += 1
        if held.pressed(keys.RIGHT):
            self.x += 1.0


def build(world):
    for player in range(world.players):
        world.spawn(Runner(player))
'''


def test_a_disconnect_lets_go_of_every_key_and_a_connect_brings_the_player_back_empty() -> None:
    queue = InputQueue()
    queue.press(keys.RIGHT)
    queue.stick(0, 0.5, -0.5)
    assert queue.take().pressed(keys.RIGHT) and queue.connected
    queue.push(DISCONNECT)
    gone = queue.take()
    assert not gone.connected and not gone.pressed(keys.RIGHT) and gone.just_released(keys.RIGHT)
    assert gone.stick(0) == (0.0, 0.0) and not queue.connected
    assert not queue.take().connected, "it stays disconnected from tick to tick"
    queue.push(CONNECT)
    back = queue.take()
    assert back.connected and not back.held
    assert "connected=False" in repr(gone) and "connected" not in repr(back)


def test_a_presence_event_carries_nothing_but_its_type() -> None:
    with pytest.raises(ValueError, match="carries nothing but its type"):
        InputEvent("disconnect", keys.A)
    with pytest.raises(ValueError, match="carries nothing but its type"):
        InputEvent("connect", None, 3.0, 0.0)
    assert InputEvent.from_json(["disconnect", None, 0, 0]) == DISCONNECT
    with pytest.raises(ValueError, match="has no key"):
        InputEvent.from_json(["connect", 65, 0, 0])


def test_a_checkpoint_and_a_save_keep_a_players_presence(tmp_path: Path) -> None:
    class Still(Entity):
        pass

    with World(players=2) as world:
        world.spawn(Still())
        checkpoint = world.checkpoint()
        world.input_queue_of(1).push(DISCONNECT)
        world.tick()
        assert not world.input_of(1).connected
        text = save_text(world, {"game": "test"})
        assert json.loads(text)["world"]["inputs"][0]["connected"] is False
        world.rollback(checkpoint)
        world.tick()
        assert world.input_of(1).connected, "back before the disconnect: connected"
        with load_world_text(text, "the test's save", world_class=World) as loaded:
            loaded.tick()
            assert not loaded.input_of(1).connected
    damaged = text.replace('"connected":false', '"connected":true')
    with pytest.raises(SaveError, match=r"the test's save is damaged: world\.inputs\[0\] \(player 1\)\.connected is "
                                        r"written only as false \(a player dropped from a session\), got True"):
        load_world_text(damaged, "the test's save", world_class=World)


def test_a_script_plays_a_sessions_drop_offline_and_a_recording_keeps_it(tmp_path: Path, capsys) -> None:
    (tmp_path / "runner.py").write_text(GAME)
    script = tmp_path / "in.jsonl"
    script.write_text('{"tick": 2, "player": 1, "input": [["key_press", "RIGHT", 0, 0]]}\n'
                      '{"tick": 10, "player": 1, "input": [["disconnect", null, 0, 0]]}\n'
                      '{"tick": 20, "player": 1, "input": [["connect", null, 0, 0]]}\n')
    assert read_input_scripts(script)[1][10] == [DISCONNECT]
    game, record = str(tmp_path / "runner.py"), str(tmp_path / "r.jsonl")
    assert main(["run", game, "--players", "2", "--ticks", "30", "--input", str(script), "--record", record]) == 0
    assert main(["replay", record, "--game", game]) == 0
    assert "all match" in capsys.readouterr().out
    assert '"input":[["disconnect",null,0.0,0.0]]' in Path(record).read_text()


def test_a_run_from_a_save_records_from_it_and_the_recording_replays(tmp_path: Path, capsys) -> None:
    (tmp_path / "runner.py").write_text(GAME)
    game, save = str(tmp_path / "runner.py"), str(tmp_path / "s.json")
    script = tmp_path / "in.jsonl"
    script.write_text('{"tick": 2, "player": 1, "input": [["key_press", "RIGHT", 0, 0]]}\n'
                      '{"tick": 50, "player": 1, "input": [["disconnect", null, 0, 0]]}\n'
                      '{"tick": 90, "player": 1, "input": [["key_press", "RIGHT", 0, 0]]}\n')
    assert main(["run", game, "--players", "2", "--ticks", "130", "--input", str(script), "--save-at", "70", save]) == 0
    whole = capsys.readouterr().out.split("state ")[1][:16]
    # Issue 30's fifth finding: --record with --load, and --load with the save's own --players, were refused.
    record = str(tmp_path / "from70.jsonl")
    assert main(["run", game, "--load", save, "--players", "2", "--ticks", "60", "--input", str(script),
                 "--record", record]) == 0
    assert capsys.readouterr().out.split("state ")[1][:16] == whole
    replay = read_replay(record)
    assert (replay.start, replay.end, replay.hash_count) == (70, 130, 1)  # hashes at 120, and the end's
    assert read_start(replay)["world"]["tick_count"] == 70
    assert main(["replay", record, "--game", game]) == 0
    assert "from70.jsonl: 60 ticks of runner.py (from tick 70, its save), 2 hashes checked, all match" in \
        capsys.readouterr().out
    assert main(["run", game, "--load", save, "--players", "1", "--ticks", "3"]) == 2
    assert "s.json is a save of 2 players, and a loaded world keeps its players (give --players 2, or " \
           "none)" in capsys.readouterr().err


def test_a_recording_whose_save_line_is_damaged_is_refused_by_line_before_anything_runs(tmp_path: Path) -> None:
    (tmp_path / "runner.py").write_text(GAME)
    game, save, record = str(tmp_path / "runner.py"), str(tmp_path / "s.json"), tmp_path / "r.jsonl"
    assert main(["run", game, "--ticks", "10", "--save-at", "10", save]) == 0
    assert main(["run", game, "--load", save, "--ticks", "5", "--record", str(record)]) == 0
    header, line, *rest = record.read_text().splitlines()
    cases = {
        "no save": [header, *rest],
        "another tick": [header, line.replace('"tick_count":10', '"tick_count":11'), *rest],
        "not a save": [header, '{"save": {"format": "nope"}}', *rest],
    }
    for name, text in cases.items():
        record.write_text("\n".join(text) + "\n")
        with pytest.raises(ReplayError, match=r"r\.jsonl:2: ") as refused:
            read_replay(record)
        assert "\n" not in str(refused.value), name
