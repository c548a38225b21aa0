"""Scenes (docs/guides/scenes.md) and animated looks: games that change scenes or frames replay, save,
load and pass tickswap check, on the command line and in a test alike."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

from test_sheets import write_sheet

from engine import World
from engine.input import read_input_script
from engine.testing import load_game
from engine.tools.cli import main

PAGE = Path(__file__).resolve().parent.parent / "docs" / "guides" / "scenes.md"
SCRIPT = ('{"tick": 3, "input": [["key_press", "SPACE", 0, 0]]}\n'
          '{"tick": 200, "input": [["key_press", "R", 0, 0]]}\n')


def _dodge(directory: Path) -> Path:
    """The page's game, as a reader saves it."""
    code = re.search(r"<!-- file: dodge.py -->\n```python\n(.*?)^```", PAGE.read_text(), re.S | re.M)
    assert code is not None
    (directory / "keys.jsonl").write_text(SCRIPT)
    game = directory / "dodge.py"
    game.write_text(code[1])
    return game


def _state(out: str) -> str:
    return out.split("state ", 1)[1][:16]


def _ticked(game_file: Path, ticks: int, script: Path) -> tuple[str, list[str]]:
    """The state hash after ``ticks`` of the game loaded as in a test, and the scenes it went through."""
    game, events = load_game(str(game_file)), read_input_script(script)
    with World(seed=0) as world:
        game.setup(world)
        director = cast(Any, world.entities[0])  # the game file's Director
        scenes = [director.scene]
        for _ in range(ticks):
            for event in events.get(world.tick_count + 1, ()):
                world.input_queue.push(event)
            world.tick()
            if scenes[-1] != director.scene:
                scenes.append(director.scene)
        return world.state_hash()[:16], scenes


def test_title_play_over_restart_runs_replays_saves_and_checks_on_the_command_line(tmp_path, capsys):
    game, script = _dodge(tmp_path), tmp_path / "keys.jsonl"
    replay, save = tmp_path / "dodge.replay", tmp_path / "at60.json"
    assert main(["run", str(game), "--ticks", "260", "--input", str(script), "--record", str(replay),
                 "--save-at", "60", str(save)]) == 0
    full = _state(capsys.readouterr().out)
    hashed, scenes = _ticked(game, 260, script)
    assert scenes == ["title", "play", "over", "play"] and hashed == full, "a test sees the command line's game"
    assert main(["replay", str(replay), "--game", str(game)]) == 0
    assert "all match" in capsys.readouterr().out
    assert main(["run", str(game), "--ticks", "200", "--input", str(script), "--load", str(save)]) == 0
    assert _state(capsys.readouterr().out) == full, "a save made mid-play loads and plays on to the same state"
    assert main(["check", str(game), "--ticks", "260", "--orders", "3", "--input", str(script)]) == 0
    assert "order independent" in capsys.readouterr().out


ANIMATED = '''
from pathlib import Path

from engine import Entity, Look, buffered, run

WALK = Look.frames(str(Path(__file__).with_name("sheet.png")), (8, 8), size=16)


class Walker(Entity):
    steps = buffered(0)

    def update(self, world):
        self.x += 1 + self.random.random()
        self.steps += 1
        self.look = WALK[(world.tick_count // 6) % len(WALK)]


def build(world):
    for n in range(3):
        world.spawn(Walker(x=20.0 * n, y=30))


if __name__ == "__main__":
    run(build)
'''


def test_an_entity_animated_from_a_sheet_saves_loads_replays_and_checks(tmp_path, capsys):
    write_sheet(tmp_path / "sheet.png")
    game = tmp_path / "walk.py"
    game.write_text(ANIMATED)
    save, replay = tmp_path / "at7.json", tmp_path / "walk.replay"
    assert main(["run", str(game), "--ticks", "30", "--save-at", "7", str(save), "--record", str(replay)]) == 0
    full = _state(capsys.readouterr().out)
    assert main(["run", str(game), "--ticks", "23", "--load", str(save)]) == 0
    assert _state(capsys.readouterr().out) == full
    assert main(["replay", str(replay), "--game", str(game)]) == 0
    assert "all match" in capsys.readouterr().out
    assert main(["check", str(game), "--ticks", "30", "--orders", "2"]) == 0
    assert "order independent" in capsys.readouterr().out
    loaded = load_game(str(game))
    with World(seed=0) as world:
        loaded.setup(world)
        regions = []
        for _ in range(30):
            world.tick()
            look = world.entities[0].look
            assert look is not None
            regions.append(look.region)
        assert world.state_hash()[:16] == full
    # Tick n runs with tick_count n - 1: frames of 6 ticks each, left to right, top row first, round again.
    assert regions[::6] == [(0, 0, 8, 8), (8, 0, 8, 8), (0, 8, 8, 8), (8, 8, 8, 8), (0, 0, 8, 8)]
