"""Docs that match the code: README's example prints what README says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_prints_what_readme_shows():
    text = README.read_text()
    section = text.split("## Testing a game headless", 1)[1]
    code, expected = re.findall(r"```(?:python)?\n(.*?)```", section, flags=re.S)[:2]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README example", "exec"), {"__name__": "readme_example"})
    assert out.getvalue() == expected


def test_readme_names_a_test_command_that_ci_runs():
    text = README.read_text()
    assert "<!-- test-command" in text
    assert "pytest" in text.split("<!-- test-command", 1)[1].split("```", 3)[1]


def test_readme_tutorial_game_runs_as_the_readme_says(tmp_path, capsys, offscreen):
    text = README.read_text()
    section = text.split("## Your first game", 1)[1]
    code = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0]
    game = tmp_path / "comet.py"
    game.write_text(code)
    from engine.tools.cli import main

    assert main(["run", str(game), "--ticks", "1000"]) == 0
    assert "1000 ticks" in capsys.readouterr().out
    shot = tmp_path / "comet.png"
    assert main(["run", str(game), "--headless", "--frames", "120", "--screenshot", str(shot)]) == 0
    assert shot.stat().st_size > 0


def test_every_command_readme_lists_exists():
    from engine.tools.cli.options import build_parser

    commands = set(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    text = README.read_text()
    for command in ("list", "run", "lab", "bench"):
        assert f"tickswap {command}" in text
        assert command in commands


def test_readme_crowd_example_runs():
    from engine import World

    section = README.read_text().split("## Many entities: crowds", 1)[1]
    code = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0]
    with World(seed=1) as world:
        namespace = {"world": world}
        exec(compile(code, "README crowd example", "exec"), namespace)
        rain = namespace["rain"]
        before = rain.current("position")[:, 1].copy()
        world.tick()
        assert rain.count == 100_000
        assert (rain.current("position")[:, 1] == before - 3.0).all()


def test_readme_tutorial_game_scores_spins_collides_and_asks_for_its_chime(tmp_path):
    import importlib.util

    from engine import World

    section = README.read_text().split("## Your first game", 1)[1]
    code = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0]
    path = tmp_path / "comet.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location("readme_comet", path)
    assert spec is not None and spec.loader is not None
    game = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(game)
    with World() as world:
        game.build(world)
        sounds = []
        for _ in range(1000):
            world.tick()
            sounds.extend(world.take_sounds())
        comet, score = world.entities_of(game.Comet)[0], world.entities_of(game.Score)[0]
        assert comet.angle == 6000.0
        assert score.points >= 1 and score.look.text == f"Score {score.points}"
        assert len(sounds) == score.points and sounds[0].sound == str(tmp_path / "chime.wav")


def test_readme_camera_example_follows_a_player():
    from engine import Entity, World

    section = README.read_text().split("## Drawing", 1)[1].split("## Input", 1)[0]
    code = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0]
    code = "\n".join(line[2:] for line in code.splitlines())  # the block is indented in a list
    namespace: dict = {}
    exec(compile(code, "README camera example", "exec"), namespace)
    with World() as world:
        player = world.spawn(Entity(x=100, y=0))
        camera = world.spawn(namespace["Follow"](player))
        player.x = 200
        for _ in range(30):
            world.tick()
        assert 190 < camera.x < 200
