"""One game everywhere: however a game is loaded, from whatever directory, it has one hash, and saves cross.

The five ways: ``import comet`` in a test (a plain import, a namespace package's, a package's
``import mygame.logic``), ``engine.testing.load_game(path)``, ``tickswap run FILE``,
``tickswap run NAME`` (an installed game: a distribution with a ``tickswap.games`` entry
point on ``sys.path``), ``python comet.py`` (``python -m mygame.logic`` for a package). Each
runs in a fresh process, from two working directories.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import World
from engine.state.names import class_name
from engine.state.snapshot import ClassNameClash
from engine.tools.cli import main
from engine.world.save import SaveError

TICKS = 40

HELPERS = '''
from engine import Entity, buffered


class Crate(Entity):
    """Drifts by its own random steps: a class from beside the game file."""

    weight = buffered(1)

    def update(self, world):
        self.x += self.random.random()
        self.weight += 1
'''

GAME = '''
"""A game file with a helper module beside it."""

import helpers
from engine import Entity, buffered, run


class Ball(Entity):
    spin = buffered(0.0)

    def update(self, world):
        self.spin += self.random.random()
        self.y += 1


def build(world):
    world.spawn(Ball())
    for n in range(3):
        world.spawn(helpers.Crate(x=float(n)))


if __name__ == "__main__":
    run(build)
'''

PACKAGE_INIT = '''"""A game in a package."""

from mygame.logic import build
'''

PACKAGE_PARTS = '''
from engine import Entity, buffered


class Crate(Entity):
    weight = buffered(1)

    def update(self, world):
        self.x += self.random.random()
        self.weight += 2
'''

PACKAGE_LOGIC = '''
"""The package game's logic: build lives here, parts beside it."""

from engine import Entity, buffered, run
from mygame.parts import Crate


class Ball(Entity):
    spin = buffered(0.0)

    def update(self, world):
        self.spin += self.random.random()


def build(world):
    world.spawn(Ball())
    world.spawn(Crate(x=2.0))


if __name__ == "__main__":
    run(build)
'''

IMPORTED = '''
import importlib, sys
from engine import World
module = importlib.import_module(sys.argv[1])
with World(seed=0) as world:
    module.build(world)
    for _ in range({ticks}):
        world.tick()
    print("state", world.state_hash())
'''

LOADED = '''
import sys
from engine import World
from engine.testing import load_game
game = load_game(sys.argv[1])
with World(seed=0) as world:
    game.setup(world)
    for _ in range({ticks}):
        world.tick()
    print("state", world.state_hash())
'''


def _install(site: Path, name: str, module: str) -> None:
    """An installed game: a distribution whose ``tickswap.games`` entry point names ``module`` (on sys.path)."""
    info = site / f"trial_{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: trial-{name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[tickswap.games]\n{name} = {module}\n")


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """Two games (a file with a helper, a package) and a site directory installing both."""
    files = tmp_path / "src"
    (files / "trial").mkdir(parents=True)
    (files / "trial" / "comet.py").write_text(GAME)  # named comet, named game in hashes
    (files / "trial" / "helpers.py").write_text(HELPERS)
    (files / "mygame").mkdir()
    (files / "mygame" / "__init__.py").write_text(PACKAGE_INIT)
    (files / "mygame" / "logic.py").write_text(PACKAGE_LOGIC)
    (files / "mygame" / "parts.py").write_text(PACKAGE_PARTS)
    _install(tmp_path / "site", "trialfile", "comet")
    _install(tmp_path / "site", "trialpackage", "mygame.logic")
    (tmp_path / "one").mkdir()
    (tmp_path / "two" / "deeper").mkdir(parents=True)
    return tmp_path


def _python(arguments: list[str], cwd: Path, path: list[Path]) -> str:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(str(entry) for entry in path)}
    done = subprocess.run([sys.executable, *arguments], cwd=cwd, env=environment, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _state(out: str) -> str:
    return out.split("state ", 1)[1][:16]


def _hashes(place: Path, cwd: Path, kind: str) -> dict[str, str]:
    """The state hash after ``TICKS`` ticks of the file game or the package game, loaded every way, run from ``cwd``."""
    src, site = place / "src", place / "site"
    tickswap = ["-m", "engine.tools.cli"]
    imported, loaded = IMPORTED.format(ticks=TICKS), LOADED.format(ticks=TICKS)
    if kind == "file":
        game, directory = src / "trial" / "comet.py", src / "trial"
        ways = {
            "import comet": (["-c", imported, "comet"], [directory]),
            "import trial.comet (a namespace package)": (["-c", imported, "trial.comet"], [src, directory]),
            "load_game(path)": (["-c", loaded, str(game)], []),
            "tickswap run comet.py": ([*tickswap, "run", str(game), "--ticks", str(TICKS)], []),
            "tickswap run NAME": ([*tickswap, "run", "trialfile", "--ticks", str(TICKS)], [site, directory]),
            "python comet.py": ([str(game), "--ticks", str(TICKS)], []),
        }
    else:
        package = src / "mygame"
        ways = {
            "import mygame.logic": (["-c", imported, "mygame.logic"], [src]),
            "load_game(package)": (["-c", loaded, str(package)], [src]),
            "tickswap run mygame/": ([*tickswap, "run", str(package), "--ticks", str(TICKS)], [src]),
            "tickswap run NAME": ([*tickswap, "run", "trialpackage", "--ticks", str(TICKS)], [site, src]),
            "python -m mygame.logic": (["-m", "mygame.logic", "--ticks", str(TICKS)], [src]),
        }
    return {way: _state(_python(arguments, cwd, path)) for way, (arguments, path) in ways.items()}


@pytest.mark.parametrize("kind", ["file", "package"])
def test_one_game_loaded_every_way_from_two_directories_has_one_hash(place, kind):
    found = {**{f"{way}, from one/": state for way, state in _hashes(place, place / "one", kind).items()},
             **{f"{way}, from two/deeper/": state for way, state in _hashes(place, place / "two" / "deeper",
                                                                             kind).items()}}
    assert len(set(found.values())) == 1, found


SAVE_IN_A_TEST = '''
import sys
from engine import World
sys.path.insert(0, sys.argv[1])
import comet
with World(seed=0) as world:
    comet.build(world)
    for _ in range(10):
        world.tick()
    world.save(sys.argv[2])                       # world.save alone: the save names no game
'''

LOAD_IN_A_TEST = '''
import sys
from engine import World
sys.path.insert(0, sys.argv[1])
import comet
with World.load(sys.argv[2]) as world:            # classes resolved among those loaded: the game's
    for _ in range({more}):
        world.tick()
    print("state", world.state_hash())
'''

SAVE_WITH_LOAD_GAME = '''
import sys
from engine import World
from engine.testing import load_game, save_game
game = load_game(sys.argv[1])
with World(seed=0) as world:
    game.setup(world)
    for _ in range(10):
        world.tick()
    save_game(world, game, sys.argv[2])
'''

LOAD_WITH_LOAD_GAME = '''
import sys
from engine.testing import load_game, load_save
game = load_game(sys.argv[1])
with load_save(game, sys.argv[2]) as world:
    for _ in range({more}):
        world.tick()
    print("state", world.state_hash())
'''


def test_a_save_made_any_way_loads_every_other_way(place):
    src, site = place / "src", place / "site"
    directory, game = src / "trial", src / "trial" / "comet.py"
    tickswap = ["-m", "engine.tools.cli", "run"]
    more = TICKS - 10
    straight = _state(_python([*tickswap, str(game), "--ticks", str(TICKS)], place / "one", []))
    saves = place / "saves"
    saves.mkdir()
    made = {
        "import comet; world.save": (["-c", SAVE_IN_A_TEST, str(directory)], []),
        "load_game; save_game": (["-c", SAVE_WITH_LOAD_GAME, str(game)], []),
        "tickswap run comet.py --save-at": ([*tickswap, str(game), "--ticks", "10", "--save-at", "10"], []),
        "tickswap run NAME --save-at": ([*tickswap, "trialfile", "--ticks", "10", "--save-at", "10"],
                                        [site, directory]),
        "python comet.py --save-at": ([str(game), "--ticks", "10", "--save-at", "10"], []),
    }
    loads = {
        "import comet; World.load": (["-c", LOAD_IN_A_TEST.format(more=more), str(directory)], []),
        "load_game; load_save": (["-c", LOAD_WITH_LOAD_GAME.format(more=more), str(game)], []),
        "tickswap run comet.py --load": ([*tickswap, str(game), "--ticks", str(more), "--load"], []),
        "tickswap run NAME --load": ([*tickswap, "trialfile", "--ticks", str(more), "--load"], [site, directory]),
        "python comet.py --load": ([str(game), "--ticks", str(more), "--load"], []),
    }
    for number, (way, (arguments, path)) in enumerate(made.items()):
        save = saves / f"{number}.json"
        _python([*arguments, str(save)], place / "two" / "deeper", path)
        assert save.is_file(), way
        # Each save loads two other ways, and each way loads two saves (all 25 pairs cost a minute).
        for loader in (list(loads)[(number + 1) % len(loads)], list(loads)[(number + 3) % len(loads)]):
            load_arguments, load_path = loads[loader]
            out = _python([*load_arguments, str(save)], place / "one", load_path)
            assert _state(out) == straight, f"saved by {way}, loaded by {loader}"


def test_a_world_save_made_in_a_test_loads_on_the_command_line_naming_the_game(place, capsys):
    directory = place / "src" / "trial"
    save = place / "from-test.json"
    _python(["-c", SAVE_IN_A_TEST, str(directory), str(save)], place / "one", [])
    assert main(["run", str(directory / "comet.py"), "--ticks", str(TICKS - 10), "--load", str(save)]) == 0
    loaded = _state(capsys.readouterr().out)
    assert main(["run", str(directory / "comet.py"), "--ticks", str(TICKS)]) == 0
    assert loaded == _state(capsys.readouterr().out)


def test_a_recording_of_an_installed_game_replays_with_its_file_and_the_other_way(place):
    src, site = place / "src", place / "site"
    game = src / "trial" / "comet.py"
    path = [site, src / "trial"]
    _python(["-m", "engine.tools.cli", "run", "trialfile", "--ticks", "30", "--record", "by-name.jsonl"],
            place / "one", path)
    out = _python(["-m", "engine.tools.cli", "replay", "by-name.jsonl", "--game", str(game)], place / "one", [])
    assert "all match" in out
    _python([str(game), "--ticks", "30", "--record", "by-file.jsonl"], place / "one", [])
    out = _python(["-m", "engine.tools.cli", "replay", "by-file.jsonl", "--game", "trialfile"], place / "one", path)
    assert "all match" in out


def _copy_of(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_two_classes_that_would_get_one_name_are_refused_naming_both(tmp_path):
    game = tmp_path / "game.py"
    game.write_text("from engine import Entity\n\nclass Ball(Entity):\n    pass\n\ndef build(world):\n"
                    "    world.spawn(Ball())\n")
    try:
        first, second = _copy_of(game, "game_once"), _copy_of(game, "game_twice")
        assert class_name(first.Ball) == class_name(second.Ball) == "game:Ball"
        with World() as world:
            world.spawn(first.Ball())
            world.spawn(second.Ball())
            with pytest.raises(ClassNameClash) as refused:
                world.state_hash()
            message = str(refused.value)
            assert "game:Ball" in message and "game_once" in message and "game_twice" in message
            assert "imported twice" in message
            with pytest.raises(SaveError, match="game_once.*game_twice|game_twice.*game_once"):
                world.save(tmp_path / "s.json")
        assert not (tmp_path / "s.json").exists()
    finally:
        sys.modules.pop("game_once", None)
        sys.modules.pop("game_twice", None)


def test_a_class_is_named_by_where_its_file_lies_not_its_import_name(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sub" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sub" / "things.py").write_text("from engine import Entity\nclass Thing(Entity):\n    pass\n")
    (tmp_path / "lone.py").write_text("from engine import Entity\nclass Lone(Entity):\n    pass\n"
                                      "def build(world):\n    pass\n")
    (tmp_path / "helper.py").write_text("from engine import Entity\nclass Helper(Entity):\n    pass\n")
    try:
        things = _copy_of(tmp_path / "pkg" / "sub" / "things.py", "anything_at_all")
        lone = _copy_of(tmp_path / "lone.py", "whatever_name")
        helper = _copy_of(tmp_path / "helper.py", "yet_another")
        assert class_name(things.Thing) == "pkg.sub.things:Thing"
        assert class_name(lone.Lone) == "game:Lone", "a game file that is no package's module is game"
        assert class_name(helper.Helper) == "helper:Helper"
        from engine import Camera

        assert class_name(Camera) == "engine.camera:Camera"
    finally:
        for name in ("anything_at_all", "whatever_name", "yet_another"):
            sys.modules.pop(name, None)


def test_world_load_without_a_game_takes_the_test_imported_copy_of_a_game_file_another_test_loaded(tmp_path):
    from engine.testing import load_game

    source = ("from engine import Entity\n\nclass Zeppelin(Entity):\n    pass\n\n"
              "def build(world):\n    world.spawn(Zeppelin())\n")
    for place in ("elsewhere", "mine"):
        (tmp_path / place).mkdir()
        (tmp_path / place / "airship.py").write_text(source)   # one game, copied (another test's, say)
    load_game(str(tmp_path / "elsewhere" / "airship.py"))
    mine = _copy_of(tmp_path / "mine" / "airship.py", "airship")
    try:
        with World() as world:
            mine.build(world)
            world.save(tmp_path / "s.json")
        with World.load(tmp_path / "s.json") as loaded:
            assert type(loaded.entities[0]) is mine.Zeppelin
    finally:
        sys.modules.pop("airship", None)


def test_world_load_without_a_game_resolves_a_shared_name_by_the_saves_other_classes(tmp_path):
    for place, extra in (("one", "Gondola"), ("two", "Blimp")):
        (tmp_path / place).mkdir()
        (tmp_path / place / "flight.py").write_text(
            f"from engine import Entity\n\nclass Balloon(Entity):\n    pass\n\nclass {extra}(Entity):\n    pass\n\n"
            f"def build(world):\n    world.spawn(Balloon())\n    world.spawn({extra}())\n")
    one, two = _copy_of(tmp_path / "one" / "flight.py", "flight_one"), _copy_of(tmp_path / "two" / "flight.py",
                                                                                 "flight_two")
    try:
        with World() as world:
            two.build(world)
            world.save(tmp_path / "s.json")
        with World.load(tmp_path / "s.json") as loaded:
            assert [type(entity) for entity in loaded.entities] == [two.Balloon, two.Blimp]
        with World() as world:
            world.spawn(two.Balloon())
            world.save(tmp_path / "alone.json")
        with pytest.raises(SaveError, match="more than one loaded class has") as refused:
            World.load(tmp_path / "alone.json")
        assert "one/flight.py" in str(refused.value) and "two/flight.py" in str(refused.value)
        assert one.Balloon is not two.Balloon
    finally:
        sys.modules.pop("flight_one", None)
        sys.modules.pop("flight_two", None)


def test_a_class_keeps_its_name_when_its_module_name_is_given_to_another_module(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "rocks.py").write_text("from engine import Entity\n\nclass Rock(Entity):\n"
                                               "    def update(self, world):\n        pass\n")
    (tmp_path / "other.py").write_text("x = 1\n")
    try:
        rocks = _copy_of(tmp_path / "pkg" / "rocks.py", "reused_name")
        _copy_of(tmp_path / "other.py", "reused_name")     # sys.modules now holds another file under that name
        assert class_name(rocks.Rock) == "pkg.rocks:Rock"
    finally:
        sys.modules.pop("reused_name", None)
