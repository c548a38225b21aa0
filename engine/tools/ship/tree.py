"""What a bundle holds of the game: its own files, copied as they lie, and the modules its code imports.

The game's tree is copied, not frozen, so that in the bundle the game is loaded from files
exactly as ``tickswap run`` loads it (``engine.files.importer``) and its classes are named
by where their files lie (``engine.state.names``): the same hashes, saves and recordings.
Which files (``game_tree``):

- **a game file** (``mygame.py``): every file of its directory, the modules beside it and
  its pictures, sounds, maps and fonts, less hidden files and directories, ``__pycache__``
  and ``*.pyc``, virtual environments, ``*.egg-info``, tests (``tests/``, ``test/``,
  ``test_*.py``, ``*_test.py``, ``conftest.py``) and, at the top, ``build/``, ``dist/``,
  ``*.spec`` and any earlier bundle. A file inside a package brings its outermost package;
- **a game package** (a directory with ``__init__.py``): all of it but ``__pycache__``, as its
  digest counts it, so the bundle's copy is the same game to a recording;
- **an installed game** (``tickswap run NAME``): the top-level package its entry point's
  module lies in, and a manifest registering the name, so the bundle finds it by name.

The whole directory, rather than what a short run happened to open: a level loaded at tick
5,000, or a sound only the boss plays, must be there too. A directory that is plainly not a
game's own (the home directory, the temporary directory, the root) is refused, and so is one
of more than ``MAX_FILES`` files or ``MAX_BYTES`` bytes: the game belongs in a directory of its own.

The modules the game's code imports (``imports_of``) are read from its source, without
running it, so PyInstaller freezes them too (a game's ``import json`` or third-party module).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from engine.files.game import Game, GameError
from engine.files.importer import file_digest, sample_games
from engine.messages import shown, shown_name
from engine.state.names import __version__

__all__ = ["GAME_DIR", "MANIFEST", "MAX_BYTES", "MAX_FILES", "GameTree", "game_tree", "imports_of", "stage"]

GAME_DIR = "tickswap-game"
"""The directory of the bundle the game's tree is copied into (a name no ``import`` can reach)."""
MANIFEST = "tickswap-game.json"
"""The bundle's manifest, at its root: which game, loaded how (``engine.tools.ship.boot`` reads it)."""
MAX_FILES = 10_000
"""The most files a game's tree may hold."""
MAX_BYTES = 2 * 1024**3
"""The most bytes a game's tree may hold."""
KINDS = ("file", "package", "installed")
"""How a bundle's game is loaded: ``load_game`` of a file, of a package directory, or of a registered name."""

_TEST_FILE = re.compile(r"(test_.*|.*_test|conftest)\.py$")
_TOP_ONLY = {"build", "dist"}


@dataclass(frozen=True)
class GameTree:
    """The game's files as the bundle holds them, and how the bundle loads the game."""

    kind: str
    """``file``, ``package`` or ``installed`` (``KINDS``)."""
    game: str
    """What the bundle gives ``load_game``: the game's path under ``GAME_DIR`` (``/``-separated), or its name."""
    default_name: str
    """The program's name when none is given: the file's stem, the package's or the installed game's name."""
    files: tuple[tuple[str, Path], ...]
    """Each file to copy: its path under ``GAME_DIR`` (``/``-separated), and where it is now."""
    local: frozenset[str]
    """The top-level module names the tree holds (``helpers``, ``games``): the game's own, never frozen."""
    entry: str | None = None
    """An installed game's module (``games.patrol.logic``), registered under ``game`` in the bundle."""

    @property
    def size(self) -> int:
        """The bytes of the game's files."""
        return sum(path.stat().st_size for _, path in self.files)


def _program_name(text: str) -> str:
    """``text`` as a program's file name: letters, digits, ``.``, ``_`` and ``-`` (others become ``-``)."""
    name = re.sub(r"[^A-Za-z0-9._-]", "-", text).strip(".-")
    return name[:64] or "game"


def _is_package(directory: Path) -> bool:
    return (directory / "__init__.py").is_file()


def _refuse_shared(directory: Path, what: str) -> None:
    """A directory that holds far more than one game: copying it whole would ship someone's home."""
    shared = {Path.home(), Path(tempfile.gettempdir()), Path(directory.anchor)}
    if any(directory == place.resolve() for place in shared):
        raise GameError(f"{what} lies in {shown_name(directory)}, which tickswap package would copy whole "
                        "(a game's directory is shipped with it): put the game in a directory of its own")


def _skip_directory(directory: Path, top: bool, whole: bool, outputs: set[Path]) -> bool:
    """Whether a directory of the tree is left out (see the module); nothing is left out of a ``whole`` package."""
    name = directory.name
    if name == "__pycache__":
        return True
    if whole:
        return False
    if name.startswith(".") or name.endswith(".egg-info") or name in ("tests", "test"):
        return True
    if top and name in _TOP_ONLY:
        return True
    if (directory / "pyvenv.cfg").is_file() or (directory / "_internal" / MANIFEST).is_file():
        return True  # a virtual environment, an earlier bundle
    return directory.resolve() in outputs


def _skip_file(name: str, top: bool, whole: bool) -> bool:
    if whole:
        return False
    return (name.startswith(".") or name.endswith((".pyc", ".pyo")) or bool(_TEST_FILE.fullmatch(name))
            or (top and name.endswith(".spec")))


def _walk(base: Path, start: Path, loose: bool, whole: Path | None, outputs: set[Path]) -> list[tuple[str, Path]]:
    """The files under ``start`` that the bundle takes, named relative to ``base``; all of ``whole`` but caches.

    ``loose``: ``start`` is a game file's directory, whose ``build/``, ``dist/`` and ``*.spec`` are left out too.
    """
    found: list[tuple[str, Path]] = []
    seen: set[Path] = set()
    size = 0
    for root, directories, files in os.walk(start, followlinks=True):
        here = Path(root)
        real = here.resolve()
        if real in seen:  # a link back up the tree: once is enough
            directories[:] = []
            continue
        seen.add(real)
        inside = whole is not None and (here == whole or whole in here.parents)
        top = loose and here == start
        directories[:] = sorted(name for name in directories
                                if not _skip_directory(here / name, top, inside or (here / name) == whole, outputs))
        for name in sorted(files):
            path = here / name
            if _skip_file(name, top, inside):
                continue
            try:
                mode = path.stat().st_mode
            except OSError:
                continue  # a dangling link: nothing to copy
            if not stat.S_ISREG(mode):
                if inside:
                    raise GameError(f"{shown_name(path)} in the game package is not a file")
                continue  # a socket or a FIFO beside the game: not the game's data
            found.append((path.relative_to(base).as_posix(), path))
            size += path.stat().st_size
            if len(found) > MAX_FILES or size > MAX_BYTES:
                raise GameError(f"{shown_name(start)} holds more than {MAX_FILES:,} files or {MAX_BYTES // 1024**3} "
                                "GiB to ship: put the game in a directory of its own (tickswap package copies "
                                "the game's directory)")
    return found


def _outermost_package(directory: Path) -> Path:
    """The outermost package ``directory`` lies in (``directory`` itself when its parent is no package)."""
    while _is_package(directory.parent) and directory.parent != directory.parent.parent:
        directory = directory.parent
    return directory


def game_tree(given: str, game: Game, outputs: Iterable[Path] = ()) -> GameTree:
    """The files a bundle of ``game`` (as the user named it, ``given``) holds; ``outputs`` are never among them.

    ``GameError`` for a tree that can't be shipped: a shared directory, too many files, an
    installed game whose package is spread over several directories or has no source.
    """
    leave_out = {Path(path).resolve() for path in outputs}
    if game.path is None:
        return _installed_tree(given, game, leave_out)
    path = game.path
    if path.is_dir() or _is_package(path.parent):  # a package, or a file of one: its outermost package
        top = _outermost_package(path if path.is_dir() else path.parent)
        base = top.parent
        files = _walk(base, top, False, path if path.is_dir() else None, leave_out)
        local = frozenset({top.name})
    else:  # a game file beside its modules and data
        base = path.parent
        _refuse_shared(base, game.name)
        files = _walk(base, base, True, None, leave_out)
        local = frozenset(_module_names(base))
    kind = "package" if path.is_dir() else "file"
    default = path.name if path.is_dir() else path.stem
    return GameTree(kind, path.relative_to(base).as_posix(), _program_name(default), tuple(files), local)


def _module_names(directory: Path) -> set[str]:
    """The top-level modules beside a game file in ``directory``: its ``.py`` files and the directories holding some.

    A directory of data (``json/`` of levels) is no module: ``import json`` is still the standard library's.
    """
    names = set()
    for entry in directory.iterdir():
        if entry.suffix == ".py" and entry.stem.isidentifier():
            names.add(entry.stem)
        elif entry.is_dir() and entry.name.isidentifier() and any(entry.glob("*.py")):
            names.add(entry.name)
    return names


def _installed_tree(given: str, game: Game, leave_out: set[Path]) -> GameTree:
    entry = sample_games().get(given)
    if entry is None:  # load_game found it by this name a moment ago
        raise GameError(f"{shown(given)} is no longer registered as a game")
    top = entry.value.partition(".")[0].partition(":")[0]
    spec = importlib.util.find_spec(top)
    if spec is None:
        raise GameError(f"game {shown(given)}: its module {shown(entry.value)} is not found")
    locations = list(spec.submodule_search_locations or ())
    if len(locations) > 1:
        raise GameError(f"game {shown(given)}: its package {top} is spread over {len(locations)} directories "
                        "(a namespace package); package its directory instead")
    if locations:
        package = Path(locations[0]).resolve()
        files = _walk(package.parent, package, False, None, leave_out)
    else:
        origin = Path(spec.origin or "")
        if origin.suffix != ".py" or not origin.is_file():
            raise GameError(f"game {shown(given)}: its module {top} has no source file to ship ({shown(str(origin))})")
        files = [(origin.name, origin)]
    return GameTree("installed", given, _program_name(given), tuple(files), frozenset({top}), entry.value)


def stage(tree: GameTree, game: Game, directory: Path) -> Path:
    """Copy the game's tree into ``directory / GAME_DIR`` and write the manifest beside it; its path.

    The copy of a game file or package is checked to be the game that was loaded (its
    digest), so what the bundle runs is what ``tickswap run`` ran.
    """
    games = directory / GAME_DIR
    for relative, source in tree.files:
        target = games / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copyfile(source, target)
        except OSError as error:
            raise GameError(f"cannot copy {shown_name(source)} into the bundle: {error.strerror or error}") from None
    if tree.kind != "installed" and file_digest(games / tree.game) != game.digest:
        raise GameError(f"{game.name} changed while it was copied into the bundle: run tickswap package again")
    if tree.entry is not None:
        # The bundle's own registration of the game, found by importlib.metadata on GAME_DIR.
        info = games / f"tickswap_bundled_game-{__version__}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: tickswap-bundled-game\n"
                                       f"Version: {__version__}\n", encoding="utf-8")
        (info / "entry_points.txt").write_text(f"[tickswap.games]\n{tree.game} = {tree.entry}\n", encoding="utf-8")
    manifest = {"format": 1, "kind": tree.kind, "game": tree.game, "engine": __version__}
    (directory / MANIFEST).write_text(json.dumps(manifest, sort_keys=True) + "\n", encoding="utf-8")
    return games


def imports_of(tree: GameTree) -> tuple[list[str], list[str]]:
    """The modules the game's code imports that are not its own: those found here, and those that are not.

    Read from the source (``import x``, ``from x import y``, at any depth), tests left out,
    never run. ``from pkg import sub`` counts ``pkg.sub`` where that is a module.
    """
    named: set[str] = set()
    maybe: set[str] = set()  # from pkg import name: a module only if there is one
    for relative, path in tree.files:
        if not relative.endswith(".py") or _TEST_FILE.fullmatch(relative.rpartition("/")[2]):
            continue
        try:
            module = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, OSError):
            continue  # a broken file the game never imports; one it does import failed to load already
        for node in ast.walk(module):
            if isinstance(node, ast.Import):
                named.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                named.add(node.module)
                maybe.update(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    found, missing = [], []
    for name in sorted(named | maybe):
        top = name.partition(".")[0]
        if top in tree.local or top == "__future__":
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None:
            found.append(name)
        elif name in named and "." not in name:
            missing.append(name)
    return found, missing
