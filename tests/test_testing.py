"""engine.testing: a test sees the game the command line runs, and never needs pytest to import it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engine import World
from engine.testing import load_game
from engine.tools.cli import main

COUNTER = '''
from engine import Entity


class Walker(Entity):
    def update(self, world):
        self.x = self.x + world.random.random()


def build(world):
    for n in range(3):
        world.spawn(Walker(x=float(n)))
'''


def _printed_state(out: str) -> str:
    return out.split("state ", 1)[1][:16]


@pytest.mark.parametrize("kind", ["file", "sample"])
def test_a_game_loaded_in_a_test_hashes_as_tickswap_run_prints_it(tmp_path, capsys, kind):
    name = "patrol"
    if kind == "file":
        path = tmp_path / "walkers.py"
        path.write_text(COUNTER)
        name = str(path)
    assert main(["run", name, "--ticks", "25"]) == 0
    printed = _printed_state(capsys.readouterr().out)
    game = load_game(name)
    with World(seed=0) as world:
        game.setup(world)
        for _ in range(25):
            world.tick()
        assert world.state_hash()[:16] == printed


def test_a_game_file_loaded_in_a_test_is_the_command_lines_module_not_a_copy(tmp_path):
    from engine.files.importer import load_game as command_line_load

    path = tmp_path / "walkers.py"
    path.write_text(COUNTER)
    assert load_game(str(path)).module is command_line_load(str(path)).module


def test_engine_testing_imports_pytest_only_in_its_plugin():
    code = "import sys, engine.testing; print('pytest' in sys.modules, 'engine.testing.plugin' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


def test_the_pytest11_entry_point_is_the_testing_plugin():
    from importlib import metadata

    (entry,) = [entry for entry in metadata.entry_points(group="pytest11") if entry.name == "tickswap"]
    assert entry.value == "engine.testing.plugin"
