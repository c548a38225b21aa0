"""One game in tests and on the command line: load_game, saves both ways, and modules beside the game file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from engine import World
from engine.testing import load_game, load_save, save_game
from engine.tools.cli import main

HELPERS = '''
from engine import Entity, buffered


class Crate(Entity):
    weight = buffered(1)

    def update(self, world):
        self.x = self.x + self.random.random()
'''

GAME = '''
import helpers
from engine import run


def build(world):
    for n in range(3):
        world.spawn(helpers.Crate(x=float(n)))


if __name__ == "__main__":
    run(build)
'''


def _game(directory: Path, helpers: str = HELPERS) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "helpers.py").write_text(helpers)
    # Each its own game file: a file with the same content is the same game (one module per digest).
    (directory / "game.py").write_text(f"# {directory.name}\n{GAME}")
    return directory / "game.py"


def _state(out: str) -> str:
    return out.split("state ", 1)[1][:16]


def test_tickswap_run_imports_a_module_beside_the_game_file_and_hashes_as_python_game_py(tmp_path, capsys):
    game = _game(tmp_path / "g")
    path_before = list(sys.path)
    assert main(["run", str(game), "--ticks", "20"]) == 0
    printed = _state(capsys.readouterr().out)
    assert sys.path == path_before and "helpers" not in sys.modules, "nothing leaks into this process"
    direct = subprocess.run([sys.executable, str(game), "--ticks", "20"], capture_output=True, text=True,
                            cwd=tmp_path, check=True)
    assert _state(direct.stdout) == printed


def test_tickswap_check_imports_a_module_beside_the_game_file(tmp_path, capsys):
    assert main(["check", str(_game(tmp_path / "g")), "--ticks", "20", "--orders", "2"]) == 0
    assert "order independent" in capsys.readouterr().out


def test_tickswap_replay_imports_beside_only_the_game_the_user_names(tmp_path, capsys):
    game = _game(tmp_path / "g")
    recording = tmp_path / "g" / "run.replay"
    assert main(["run", str(game), "--ticks", "15", "--record", str(recording)]) == 0
    capsys.readouterr()
    assert main(["replay", str(recording), "--game", str(game)]) == 0
    assert "all match" in capsys.readouterr().out
    assert main(["replay", str(recording)]) == 2, "the replay names the game; it never runs it by itself"
    assert "pass --game" in capsys.readouterr().err and "helpers" not in sys.modules


def test_two_games_in_one_process_each_import_their_own_helpers(tmp_path):
    first = load_game(str(_game(tmp_path / "one")))
    second = load_game(str(_game(tmp_path / "two", HELPERS.replace("weight = buffered(1)", "weight = buffered(2)"))))
    for game, weight in [(first, 1), (second, 2)]:
        with World(seed=0) as world:
            game.setup(world)
            assert [crate.weight for crate in cast("list[Any]", world.entities)] == [weight] * 3  # the game's class
    assert "helpers" not in sys.modules


def test_classes_from_beside_the_game_are_named_by_their_module_not_a_digest_or_a_path(tmp_path):
    game = load_game(str(_game(tmp_path / "g")))
    with World(seed=0) as world:
        game.setup(world)
        classes = {record["class"] for record in world.snapshot()["entities"]}
    assert classes == {"helpers.Crate"}, "the module's own name, as under python game.py"


def test_a_save_made_by_tickswap_run_loads_in_a_test_through_engine_testing(tmp_path, capsys):
    game_file = _game(tmp_path / "g")
    save = tmp_path / "at10.json"
    assert main(["run", str(game_file), "--ticks", "20", "--save-at", "10", str(save)]) == 0
    printed = _state(capsys.readouterr().out)
    game = load_game(str(game_file))
    with load_save(game, str(save)) as world:
        assert world.tick_count == 10
        for _ in range(10):
            world.tick()
        assert world.state_hash()[:16] == printed


def test_a_save_made_in_a_test_loads_on_the_command_line(tmp_path, capsys):
    game_file = _game(tmp_path / "g")
    assert main(["run", str(game_file), "--ticks", "20"]) == 0
    printed = _state(capsys.readouterr().out)
    game = load_game(str(game_file))
    save = tmp_path / "from-test.json"
    with World(seed=0) as world:
        game.setup(world)
        for _ in range(12):
            world.tick()
        save_game(world, game, str(save))
    assert main(["run", str(game_file), "--ticks", "8", "--load", str(save)]) == 0
    assert _state(capsys.readouterr().out) == printed


def test_a_save_of_a_sample_game_made_in_a_test_loads_on_the_command_line(tmp_path, capsys):
    game = load_game("patrol")
    save = tmp_path / "patrol.json"
    with World(seed=0) as world:
        game.setup(world)
        world.tick()
        save_game(world, game, str(save))
        world.tick()
        expected = world.state_hash()[:16]
    assert main(["run", "patrol", "--ticks", "1", "--load", str(save)]) == 0
    assert _state(capsys.readouterr().out) == expected


@pytest.mark.parametrize("name", ["patrol", "file"])
def test_load_game_is_the_command_lines_game_build_systems_and_class_names(tmp_path, name):
    from engine.files.importer import load_game as command_line_load

    target = name if name == "patrol" else str(_game(tmp_path / "g"))
    game, cli = load_game(target), command_line_load(target)
    assert game.module is cli.module and game.build is cli.build and game.digest == cli.digest
    if name == "file":
        assert game.module.__name__.startswith("tickswap_game_game_")
