"""``tickswap package``: what a bundle holds, how it starts, and that it is the same game as ``tickswap run``.

Most tests here run without PyInstaller: the staged tree a bundle is built from is started
by the bundle's own entry (``engine.tools.ship.boot``) in a fresh process, and must give
``tickswap run``'s hashes. The tests marked ``ship`` need PyInstaller (the ``ship`` extra, not
the ``test`` one): CI runs them in its own step, ``.ci/ship``, which sets
``TICKSWAP_SHIP_BUNDLE=1`` for the last test: it builds one real bundle (a minute or two) and
runs it with an empty environment, so the suite's other runs never build it again.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

import pytest

from engine.files.game import GameError
from engine.files.importer import load_game
from engine.state.names import class_name
from engine.tools.cli import main
from engine.tools.ship.boot import read_manifest
from engine.tools.ship.tree import MANIFEST, GameTree, game_tree, imports_of, stage

Test = TypeVar("Test", bound=Callable[..., object])


def _frozen_module(name: str, file: str, source: str) -> types.ModuleType:
    """A module as PyInstaller's frozen importer makes it: a ``__file__`` under the bundle that is no file on disk."""
    module = types.ModuleType(name)
    module.__file__ = file
    sys.modules[name] = module
    exec(compile(source, file, "exec"), module.__dict__)
    return module


GAME_SOURCE = "from engine import Entity\nclass Ball(Entity):\n    pass\ndef build(world):\n    pass\n"


def test_a_frozen_game_module_is_named_as_its_file_is_on_disk(tmp_path):
    """In a PyInstaller bundle a module's ``__file__`` is ``_MEIPASS/name.pyc``, which is not on disk: the class is
    still named as ``tickswap run game.py`` names it (``game:`` for a game file, its package path in a package)."""
    bundle = tmp_path / "_MEI123"  # never created: frozen modules have no file
    try:
        lone = _frozen_module("mygame_frozen", str(bundle / "mygame_frozen.pyc"), GAME_SOURCE)
        inner = _frozen_module("mypkg_frozen.logic", str(bundle / "mypkg_frozen" / "logic.pyc"), GAME_SOURCE)
        helper = _frozen_module("helper_frozen", str(bundle / "helper_frozen.pyc"),
                                "from engine import Entity\nclass Tile(Entity):\n    pass\n")
        assert class_name(lone.Ball) == "game:Ball", "a frozen game file is the game, as on disk"
        assert class_name(inner.Ball) == "mypkg_frozen.logic:Ball"
        assert class_name(helper.Tile) == "helper_frozen:Tile"
    finally:
        for name in ("mygame_frozen", "mypkg_frozen.logic", "helper_frozen"):
            sys.modules.pop(name, None)


# -- the game's tree, staged as a bundle holds it, started by the bundle's entry (no PyInstaller) -----------------

ROOT = Path(__file__).resolve().parent.parent
STATE = re.compile(r", state ([0-9a-f]{16})")

CATCHER = '''"""Catcher: stars fall from beside the game, a chime plays when one lands."""
from pathlib import Path

from engine import Entity, Look, World

from helpers import Star

CHIME = str(Path(__file__).parent / "sounds" / "chime.wav")


class Basket(Entity):
    look = Look("square", (40, 10), (120, 220, 255))
    saved = ("caught",)

    def __init__(self):
        super().__init__(x=160, y=20)
        self.caught = 0

    def update(self, world):
        self.x += 3 if world.tick_count % 40 < 20 else -3
        for star in world.entities_of(Star):
            if star.y < 30:
                world.despawn(star)
                self.caught += 1
                world.play(CHIME)


def build(world: World):
    world.spawn(Basket())
    for i in range(6):
        world.spawn(Star(20 + 40 * i, 200 + 7 * i, 1 + i % 3))
'''

HELPERS = '''import json
from pathlib import Path

from engine import Entity, Look

HERE = Path(__file__).parent
STAR = Look(image=HERE / "star.png")
SPEEDS = json.loads((HERE / "speeds.json").read_text())


class Star(Entity):
    look = STAR
    saved = ("speed",)

    def __init__(self, x, y, speed):
        super().__init__(x=x, y=y)
        self.speed = SPEEDS[speed - 1]

    def update(self, world):
        self.y -= self.speed
'''


def _catcher(directory: Path) -> Path:
    """A game file with a module, a picture, a sound and a data file beside it, and what is not the game's."""
    from engine.art import Canvas, Sfx, hex_color

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "catcher.py").write_text(CATCHER)
    (directory / "helpers.py").write_text(HELPERS)
    (directory / "speeds.json").write_text("[1.5, 2, 3.25]")
    Canvas(8, 8, hex_color("#ffc020")).save(directory / "star.png")
    (directory / "sounds").mkdir(exist_ok=True)
    Sfx(frequency=880, sustain=0.05, decay=0.0).save(directory / "sounds" / "chime.wav")
    for junk in (".git/HEAD", "__pycache__/helpers.cpython-311.pyc", "dist/catcher/catcher", "build/x.toc",
                 "tests/test_catcher.py", "venv/lib/site.py", "test_more.py", "conftest.py", "catcher.spec",
                 "sounds/.DS_Store"):
        (directory / junk).parent.mkdir(parents=True, exist_ok=True)
        (directory / junk).write_text("import pytest\n" if junk.endswith(".py") else "not the game's\n")
    (directory / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return directory / "catcher.py"


def _hash_in(out: str) -> str:
    """The state hash a summary line says."""
    found = STATE.search(out)
    assert found is not None, out
    return found.group(1)


def _state(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = STATE.search(done.stdout)
    assert found is not None, done.stdout
    return found.group(1)


def _tickswap_run(game: str, ticks: int, cwd: Path) -> str:
    return _state([sys.executable, "-m", "engine.tools.cli", "run", game, "--ticks", str(ticks)], cwd)


def _boot(staged: Path, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The bundle's entry on a staged tree, in a fresh process: what the packaged program runs."""
    code = ("import sys\nfrom pathlib import Path\nfrom engine.tools.ship.boot import main\n"
            f"sys.argv[0] = 'catcher'\nsys.exit(main(sys.argv[1:], root=Path({str(staged)!r})))\n")
    return subprocess.run([sys.executable, "-c", code, *argv], cwd=cwd, capture_output=True, text=True, timeout=300)


def _staged(given: str, into: Path) -> tuple[GameTree, Path]:
    game = load_game(given)
    tree = game_tree(given, game, [into])
    into.mkdir(parents=True)
    stage(tree, game, into)
    return tree, into


def test_a_game_files_bundle_holds_its_directory_less_what_is_not_the_games(tmp_path):
    game = _catcher(tmp_path / "catcher")
    tree = game_tree(str(game), load_game(str(game)))
    assert tree.kind == "file" and tree.game == "catcher.py" and tree.default_name == "catcher"
    assert sorted(name for name, _ in tree.files) == ["catcher.py", "helpers.py", "sounds/chime.wav", "speeds.json",
                                                      "star.png"]
    assert "helpers" in tree.local


def test_a_staged_game_file_runs_from_anywhere_with_tickswap_runs_hashes(tmp_path):
    game = _catcher(tmp_path / "catcher")
    tree, staged = _staged(str(game), tmp_path / "bundle")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    expected = _tickswap_run(str(game), 200, elsewhere)
    done = _boot(staged, ["--ticks", "200", "--save-at", "100", "s.json"], elsewhere)
    assert done.returncode == 0, done.stderr
    assert _hash_in(done.stdout) == expected
    assert done.stdout.startswith("catcher.py: 200 ticks")
    # A save the program made loads with the game file, and the other way: one game.
    assert _state([sys.executable, "-m", "engine.tools.cli", "run", str(game), "--load", "s.json", "--ticks", "100"],
                  elsewhere) == expected
    wrong = _boot(staged, ["--tick", "5"], elsewhere)
    assert wrong.returncode == 2 and wrong.stderr.startswith("catcher: unrecognized arguments: --tick 5")


def test_a_staged_installed_game_is_found_by_its_name_with_its_pictures_and_sounds(tmp_path):
    tree, staged = _staged("pong", tmp_path / "bundle")
    assert tree.kind == "installed" and tree.entry == "games.pong.logic"
    assert {"games/__init__.py", "games/pong/logic.py", "games/pong/ball.png", "games/pong/hit.wav"} <= \
        {name for name, _ in tree.files}
    expected = _tickswap_run("pong", 300, tmp_path)
    done = _boot(staged, ["--ticks", "300"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("pong: 300 ticks") and _hash_in(done.stdout) == expected


def test_a_staged_game_package_is_copied_whole_and_is_the_same_game(tmp_path):
    package = tmp_path / "work" / "mygame"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .parts import build\n")
    (package / "parts.py").write_text("from engine import Entity\nclass Mover(Entity):\n    def update(self, world):\n"
                                      "        self.x += 1.5\ndef build(world):\n    world.spawn(Mover(x=1, y=2))\n")
    (package / ".settings").write_text("kept: the package's digest counts it\n")
    (package / "tests").mkdir()
    (package / "tests" / "test_it.py").write_text("import pytest\n")
    (tmp_path / "work" / "dist").mkdir()  # beside the package, not in it
    tree, staged = _staged(str(package), tmp_path / "bundle")
    assert tree.kind == "package" and tree.game == "mygame"
    assert sorted(name for name, _ in tree.files) == ["mygame/.settings", "mygame/__init__.py", "mygame/parts.py",
                                                      "mygame/tests/test_it.py"]
    done = _boot(staged, ["--ticks", "50"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert _hash_in(done.stdout) == _tickswap_run(str(package), 50, tmp_path)


def test_the_modules_a_game_imports_are_read_from_its_code_without_its_own_or_its_tests(tmp_path):
    game = _catcher(tmp_path / "catcher")
    (tmp_path / "catcher" / "extra.py").write_text(
        "import xml.dom.minidom\nfrom email import message\nfrom engine import Entity\nfrom . import helpers\n"
        "def later():\n    import not_a_module_anywhere_4711\n    from sqlite3 import connect\n")
    (tmp_path / "catcher" / "xml").mkdir()  # a directory of data, named as a module is: no module of the game's
    (tmp_path / "catcher" / "xml" / "level.xml").write_text("<level/>")
    found, missing = imports_of(game_tree(str(game), load_game(str(game))))
    assert {"json", "pathlib", "engine", "xml.dom.minidom", "email", "email.message", "sqlite3"} <= set(found)
    assert "helpers" not in found and "pytest" not in found, "the game's own modules and its tests' are not frozen"
    assert "engine.Entity" not in found and "sqlite3.connect" not in found, "names, not modules"
    assert missing == ["not_a_module_anywhere_4711"]


def test_a_directory_that_is_no_games_own_is_refused(tmp_path, monkeypatch):
    import engine.tools.ship.tree as tree_module

    (tmp_path / "lone.py").write_text("def build(world):\n    pass\n")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(GameError, match=r"lone\.py lies in .*which tickswap package would copy whole"):
        game_tree(str(tmp_path / "lone.py"), load_game(str(tmp_path / "lone.py")))
    monkeypatch.setattr(tempfile, "tempdir", None)
    game = _catcher(tmp_path / "catcher")
    monkeypatch.setattr(tree_module, "MAX_FILES", 3)
    with pytest.raises(GameError, match="holds more than 3 files or 2 GiB to ship: put the game in a directory"):
        game_tree(str(game), load_game(str(game)))


@pytest.mark.parametrize(("text", "message"), [
    ("{", "not JSON"),
    ('{"format": 1, "kind": "file", "game": "g.py"}', "expected the keys engine, format, game and kind"),
    ('{"format": 2, "kind": "file", "game": "g.py", "engine": "0.1.0"}', "format 2 is not one this engine reads"),
    ('{"format": 1, "kind": "url", "game": "g.py", "engine": "0.1.0"}', "kind must be one of file, package, installed"),
    ('{"format": 1, "kind": "file", "game": "../../etc/g.py", "engine": "0.1.0"}', "a path inside the bundle"),
    ('{"format": 1, "kind": "file", "game": "/etc/g.py", "engine": "0.1.0"}', "a path inside the bundle"),
    ('{"format": 1, "kind": "package", "game": 7, "engine": "0.1.0"}', "game must be a name or a path, got 7"),
])
def test_a_damaged_manifest_is_refused_in_one_line(tmp_path, text, message):
    (tmp_path / MANIFEST).write_text(text)
    with pytest.raises(GameError, match=re.escape(message)):
        read_manifest(tmp_path)
    done = _boot(tmp_path, ["--ticks", "1"], tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr


def test_a_bundle_without_its_manifest_says_so(tmp_path):
    done = _boot(tmp_path, ["--ticks", "1"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("tickswap: this program is not a complete tickswap bundle: ")


# -- tickswap package's mistakes, refused before anything is built ----------------------------------------------

def test_package_without_pyinstaller_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    game = _catcher(tmp_path / "catcher")
    monkeypatch.setitem(sys.modules, "PyInstaller", None)  # as where it is not installed: import fails
    assert main(["package", str(game), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == ("tickswap: package needs PyInstaller, which is not installed: "
                                       "pip install 'tickswap[ship]'\n")
    assert not (tmp_path / "out").exists()


BUNDLE_VARIABLE = "TICKSWAP_SHIP_BUNDLE"
"""Set to 1 by ``.ci/ship``: only then is the real bundle built, once per CI run."""


def needs_pyinstaller(test: Test) -> Test:
    """Marked ``ship`` (``.ci/ship`` runs these) and skipped where PyInstaller is not installed, except under
    ``.ci/ship`` (``TICKSWAP_SHIP_BUNDLE=1``), where they fail instead: CI never passes a check it skipped."""
    skip = pytest.mark.skipif(importlib.util.find_spec("PyInstaller") is None and os.environ.get(BUNDLE_VARIABLE) != "1",
                              reason="PyInstaller is not installed: pip install 'tickswap[ship]' (.ci/ship does)")
    return pytest.mark.ship(skip(test))


@needs_pyinstaller
def test_package_refuses_an_output_that_is_not_a_bundle_of_its_own_and_leaves_it(tmp_path, capsys):
    game = _catcher(tmp_path / "catcher")
    (tmp_path / "out" / "catcher").mkdir(parents=True)
    (tmp_path / "out" / "catcher" / "mine.txt").write_text("precious")
    assert main(["package", str(game), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == (f"tickswap: {tmp_path / 'out' / 'catcher'} exists and is not a bundle "
                                       "tickswap package made: remove it, or give another --out or --name\n")
    assert (tmp_path / "out" / "catcher" / "mine.txt").read_text() == "precious"
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["catcher"]
    # A bundle of ours (its manifest inside) is one package may replace.
    (tmp_path / "out" / "catcher" / "_internal").mkdir()
    (tmp_path / "out" / "catcher" / "_internal" / MANIFEST).write_text("{}")
    from engine.tools.ship.build import _check_target

    _check_target(tmp_path / "out" / "catcher")


@needs_pyinstaller
@pytest.mark.parametrize(("argv", "message"), [
    (["broken.py"], "broken.py:1: syntax error: '(' was never closed"),
    (["no_such_game"], "unknown game 'no_such_game'"),
    (["catcher/catcher.py", "--name", "../up"], "--name: expected a file name of letters, digits"),
    (["catcher/catcher.py", "--add-binary", "nowhere.dll"], "--add-binary: no file nowhere.dll"),
    (["catcher/catcher.py", "--hidden-import", "a b"], "--hidden-import: expected a module name"),
    (["catcher/catcher.py", "--out", "catcher/speeds.json"], "--out catcher/speeds.json is a file, not a directory"),
    (["catcher/catcher.py", "--out", ""], "argument --out: expected a file name, got ''"),
    (["catcher/catcher.py", "--add-binary", ""], "argument --add-binary: expected a file name, got ''"),
])
def test_package_mistakes_are_one_line_and_build_nothing(tmp_path, monkeypatch, capsys, argv, message):
    _catcher(tmp_path / "catcher")
    (tmp_path / "broken.py").write_text("x = (\n")
    monkeypatch.chdir(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    try:
        status = main(["package", *argv])
    except SystemExit as exit_:  # argparse's own refusals
        status = int(exit_.code or 0)
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert sorted(tmp_path.rglob("*")) == before


def test_a_new_bundle_replaces_the_old_one_whole(tmp_path):
    from engine.tools.ship.build import _put_in_place

    old, made = tmp_path / "dist" / "catcher", tmp_path / "dist" / ".catcher.building-1" / "catcher"
    (old / "_internal").mkdir(parents=True)
    (old / "_internal" / "stale.py").write_text("old")
    (made / "_internal").mkdir(parents=True)
    (made / "_internal" / MANIFEST).write_text("{}")
    _put_in_place(made, old)
    assert sorted(path.name for path in (old / "_internal").iterdir()) == [MANIFEST]
    assert sorted(path.name for path in (tmp_path / "dist").iterdir()) == [".catcher.building-1", "catcher"]


def test_the_plan_points_pyinstaller_at_the_engine_and_installed_packages_never_the_standard_library():
    """An editable install's finder is invisible to PyInstaller, so the plan names where packages lie; the standard
    library's own directory is never one of them (PyInstaller finds it, and on its search path it would shadow)."""
    import sysconfig

    from engine.tools.ship.build import PackageOptions, _plan

    game = load_game("pong")
    plan = _plan(PackageOptions("pong"), game_tree("pong", game), "pong", Path("work"), ["json", "email.message",
                                                                                         "numpy", "esper"])
    paths = [Path(path) for path in cast(list[str], plan["paths"])]
    assert paths[0] == ROOT, "the engine's own directory first"
    numpy_spec = importlib.util.find_spec("numpy")
    assert numpy_spec is not None and numpy_spec.origin is not None
    assert Path(numpy_spec.origin).parent.parent in paths
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    assert stdlib not in paths and all(path.resolve() != stdlib for path in paths)


def test_pyinstallers_hook_names_the_engines_modules_and_the_compiled_cores_that_were_built():
    import runpy

    import engine

    hook = runpy.run_path(str(Path(engine.__file__).parent / "tools" / "ship" / "hooks" / "hook-engine.py"))
    hidden = set(hook["hiddenimports"])
    assert {"engine.crowd", "engine.tiles", "engine.world.save", "engine.tools.ship.boot", "engine.tools.cli.net"} \
        <= hidden, "the modules the engine imports by name, and the bundle's entry"
    for core in ("engine.buffering._core", "engine._spatial"):
        built = importlib.util.find_spec(core) is not None
        assert (core in hidden) == built, f"{core}: frozen where it was built, and only there"
    assert not any(name.startswith(("engine.testing", "engine.tools.ship.build")) for name in hidden)
    assert "pytest" in hook["excludedimports"]


# -- one real bundle: built, run with an empty environment, the same game -----------------------------------------

# What pyglet loads by name when first used, on each system: a window, GL, audio, codecs, fonts, pictures.
LAZY_BACK_ENDS = {
    "linux": ["pyglet.window.xlib", "pyglet.gl.lib_glx", "pyglet.libs.egl.egl", "pyglet.display.headless",
              "pyglet.media.drivers.pulse", "pyglet.media.drivers.openal", "pyglet.font.freetype"],
    "win32": ["pyglet.window.win32", "pyglet.gl.lib_wgl", "pyglet.media.drivers.xaudio2",
              "pyglet.media.drivers.directsound", "pyglet.font.win32", "pyglet.image.codecs.wic"],
    "darwin": ["pyglet.window.cocoa", "pyglet.gl.lib_agl", "pyglet.media.drivers.openal", "pyglet.font.quartz"],
}
EVERYWHERE = ["pyglet.media.drivers.silent", "pyglet.media.codecs.wave", "pyglet.media.codecs.ffmpeg",
              "pyglet.image.codecs.png", "engine.tools.ship.boot", "engine.crowd", "engine.tiles"]


def _holds_pyglets_lazy_back_ends_and_the_built_cores(program: Path, internal: Path) -> None:
    """No hook of ours names pyglet's back-ends: PyInstaller finds them in imports pyglet never runs. This holds it
    (a pyglet that imported them by string would leave a program that opens no window or plays no sound)."""
    from PyInstaller.archive.readers import CArchiveReader  # type: ignore[import-untyped]  # PyInstaller has no stubs

    frozen = set(CArchiveReader(str(program)).open_embedded_archive("PYZ.pyz").toc)
    platform = "linux" if sys.platform.startswith("linux") else sys.platform
    assert not set(LAZY_BACK_ENDS.get(platform, []) + EVERYWHERE) - frozen
    for core, where in (("engine.buffering._core", "engine/buffering"), ("engine._spatial", "engine")):
        spec = importlib.util.find_spec(core)
        if spec is not None and spec.origin is not None:  # built here, so in the bundle, beside its package's place
            assert (internal / where / Path(spec.origin).name).is_file(), f"{core} was built but is not in the bundle"


@needs_pyinstaller
@pytest.mark.skipif(os.environ.get(BUNDLE_VARIABLE) != "1",
                    reason=f"builds a real bundle (a minute or two): {BUNDLE_VARIABLE}=1, as .ci/ship sets")
def test_a_packaged_sample_runs_with_no_python_and_gives_tickswap_runs_hashes(tmp_path):
    """CI packages ``platformer`` (pictures, sounds, music, a Tiled map) and runs the program from another directory
    with nothing but ``PATH`` in its environment: the state hash of ``tickswap run``, on the compiled cores and on
    the pure-Python path (``TICKSWAP_PURE=1``, the same bundle), and the same screenshot."""
    out = tmp_path / "dist"
    done = subprocess.run([sys.executable, "-m", "engine.tools.cli", "package", "platformer", "--out", str(out)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    program = out / "platformer" / ("platformer.exe" if sys.platform == "win32" else "platformer")
    assert done.stdout.startswith(f"platformer: packaged as {Path('dist', 'platformer', program.name)} with ")
    assert ", as tickswap run's" in done.stdout
    assert (out / "platformer" / "_internal" / "tickswap-game" / "games" / "platformer" / "level1.tmj").is_file()
    _holds_pyglets_lazy_back_ends_and_the_built_cores(program, out / "platformer" / "_internal")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    bare = {"PATH": "/usr/bin:/bin"} if sys.platform != "win32" else {"PATH": os.environ["PATH"],
                                                                       "SYSTEMROOT": os.environ["SYSTEMROOT"]}
    expected = _tickswap_run("platformer", 300, elsewhere)
    assert _state([str(program), "--ticks", "300"], elsewhere, bare) == expected
    # The pure-Python path is in the bundle too, bit for bit the same game.
    assert _state([str(program), "--ticks", "300"], elsewhere, {**bare, "TICKSWAP_PURE": "1"}) == expected
    refused = subprocess.run([str(program), "--frame", "3"], cwd=elsewhere, env=bare, capture_output=True, text=True)
    assert refused.returncode == 2 and refused.stderr.startswith("platformer: unrecognized arguments: --frame 3")
    # Drawing in the bundle (EGL, its GL back-end and the game's pictures) draws what tickswap run draws.
    shot = [str(program), "--ticks", "90", "--headless", "--screenshot", "bundle.png"]
    drawn = subprocess.run(shot, cwd=elsewhere, env=bare, capture_output=True, text=True, timeout=300)
    reference = subprocess.run([sys.executable, "-m", "engine.tools.cli", "run", "platformer", "--ticks", "90",
                                "--headless", "--screenshot", "run.png"], cwd=elsewhere, capture_output=True,
                               text=True, timeout=300)
    if reference.returncode == 2 and "EGL" in reference.stderr:
        print(f"no screenshot compared: {reference.stderr.strip()}")  # no off-screen drawing on this machine
        return
    assert drawn.returncode == 0 and reference.returncode == 0, drawn.stderr + reference.stderr
    assert (elsewhere / "bundle.png").read_bytes() == (elsewhere / "run.png").read_bytes()
