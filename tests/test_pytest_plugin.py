"""tickswap's pytest plugin: the world and clock fixtures only for projects that want them.

Each case is a small project of its own in a temporary directory, run by a fresh pytest
(the installed ``pytest11`` entry point loads the plugin there, as in any project).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

USES_WORLD = '''
from engine import Entity


def test_the_world_fixture_is_a_world(world):
    world.spawn(Entity())
    world.tick()
    assert world.tick_count == 1


def test_the_clock_fixture_is_a_virtual_clock(clock):
    clock.advance(5)
    assert clock.now_ms() == 5
'''


def _pytest(project: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-W", "default", "-q", "-rA",
                           *arguments], cwd=project, capture_output=True, text=True, timeout=300)


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    project = tmp_path / "project"
    project.mkdir(parents=True)
    (project / "pytest.ini").write_text("[pytest]\n")  # its own rootdir: tickswap's settings do not apply
    for name, text in files.items():
        (project / name).write_text(text)
    return project


def test_an_unrelated_project_gets_no_world_or_clock(tmp_path):
    project = _project(tmp_path, {"test_mine.py": "def test_needs_its_own(world):\n    pass\n"})
    done = _pytest(project)
    assert done.returncode == 1 and "fixture 'world' not found" in done.stdout, done.stdout
    listed = _pytest(project, "--fixtures")
    assert "A fresh ``World``" not in listed.stdout and "VirtualClock" not in listed.stdout, listed.stdout


def test_a_project_that_opts_in_gets_them_without_a_warning(tmp_path):
    for files in ({"pytest.ini": "[pytest]\ntickswap_fixtures = true\n"},
                  {"conftest.py": "pytest_plugins = ['engine.testing.fixtures']\n"}):
        project = _project(tmp_path / str(len(list(tmp_path.iterdir()))), {"test_game.py": USES_WORLD, **files})
        done = _pytest(project)
        assert done.returncode == 0, done.stdout
        assert "2 passed" in done.stdout and "DeprecationWarning" not in done.stdout, done.stdout


def test_a_test_written_before_0_4_still_gets_them_with_a_deprecation_warning(tmp_path):
    done = _pytest(_project(tmp_path, {"test_game.py": USES_WORLD}))
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout
    assert "DeprecationWarning: tickswap's world fixture" in done.stdout
    assert "pytest_plugins = ['engine.testing.fixtures']" in done.stdout


def test_a_projects_own_world_fixture_wins(tmp_path):
    conftest = "import pytest\n\n@pytest.fixture\ndef world():\n    return 'mine'\n"
    test = "import engine\n\ndef test_mine(world):\n    assert world == 'mine'\n"
    done = _pytest(_project(tmp_path, {"conftest.py": conftest, "test_mine.py": test}))
    assert done.returncode == 0 and "DeprecationWarning" not in done.stdout, done.stdout


def test_the_old_platformer_and_pong_pass_unchanged_in_a_project_of_their_own(tmp_path):
    project = tmp_path / "old"
    shutil.copytree(Path(__file__).parent / "old_games", project, ignore=shutil.ignore_patterns("__pycache__"))
    (project / "pytest.ini").write_text("[pytest]\n")
    done = _pytest(project)
    assert done.returncode == 0 and "11 passed" in done.stdout, done.stdout[-3000:]


def test_the_entry_point_plugin_loads_neither_the_fixtures_nor_the_files_and_checks():
    # Every pytest run of an environment with tickswap imports the plugin: it stays light.
    code = ("import sys, engine.testing.plugin; print(*[name in sys.modules for name in "
            "('engine.testing.fixtures', 'engine.world.save', 'engine.tools.check')])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False"] * 3
