"""Finding and importing games: a sample by name, a game file by path, always under one stable module name.

Two kinds of game exist:

- **Sample games** (and third-party ones) are registered as entry points in the
  ``tickswap.games`` group (``patrol = "games.patrol.logic"``) and imported by their
  module name. The engine itself imports no game: it asks the installed metadata.
- **Game files**: a ``.py`` file, or a directory with an ``__init__.py``, named by path.

A game file is imported under a module name that is the same in every process:
``tickswap_game_<stem>_<digest>``, where the digest is a SHA-256 of the file's content (so
two versions of a file never share a module), unless this process already imported the
file itself (``import game`` in a test): then that module is the game, never a second copy.
No import name reaches a snapshot, a hash or a save: classes are named by where their
file lies (``engine.state.names.class_name``), so every way of loading a game names its
classes alike. Replays and saves still record the digest, to say "the game file changed"
when that explains a difference.

When a game file runs itself (``if __name__ == "__main__": run(build)``), its module is
``__main__``. ``adopt_main`` registers that very module under the stable name, so the
runner uses the classes the user's code already holds (never a second copy of the file).
Every game that loads has its settings checked (``engine.files.game.check_settings``).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import io
import os
import re
import stat
import sys
import tokenize
import warnings
from importlib import metadata
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

from engine.deprecation import REMOVED_IN
from engine.disk.reading import NotAFile, file_kind, read_bounded
from engine.errors import where
from engine.files.beside import BESIDE, SourceOnlyLoader, from_source, importable_beside, is_beside
from engine.files.game import Game, GameError, check_settings
from engine.interrupts import Interrupted
from engine.messages import capped, shown, shown_name
from engine.state.names import GAME_MODULE_PREFIX, remember_module

__all__ = ["ENTRY_POINT_GROUP", "adopt_main", "check_updates", "file_digest", "game_of_module", "is_game_path",
           "load_game", "reload_game", "sample_games"]

ENTRY_POINT_GROUP = "tickswap.games"
"""The entry-point group that registers games: ``name = "package.module"``."""
MAX_GAME_FILE_BYTES = 16 * 1024 * 1024
"""A game file larger than this is refused before it is read."""


def sample_games() -> dict[str, metadata.EntryPoint]:
    """The registered games, by name (``tickswap list``), from the ``tickswap.games`` entry points."""
    return {entry.name: entry for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def is_game_path(name: str) -> bool:
    """Whether ``name`` is the path of a game file or package rather than a registered game's name."""
    return name.endswith(".py") or "/" in name or "\\" in name or (Path(name).is_dir() and name not in sample_games())


MAX_PACKAGE_FILES = 10_000
"""The most files a game package may hold (each one is read for its digest)."""


def _package_files(directory: Path) -> list[tuple[str, Path]]:
    """Every file under a game package that an import could read, by relative name in a stable order.

    Not only ``.py``: a sourceless ``.pyc``, an extension module (``.so``) or a data file
    the game opens can change what runs as well. ``__pycache__`` is left out, because the
    package is loaded with ``SourceOnlyLoader``, which never reads a bytecode cache (the
    interpreter writes those caches itself, so counting them would make a game "change"
    by being run). A FIFO, a device or a link to a directory is refused: it can't be digested.
    """
    found: list[tuple[str, Path]] = []
    for root, directories, files in os.walk(directory):
        directories[:] = sorted(name for name in directories if name != "__pycache__")
        for name in directories:
            if (Path(root) / name).is_symlink():
                raise GameError(f"{shown_name(Path(root) / name)}: a link to a directory in a game package "
                                "(its digest can't cover it)")
        for name in files:
            path = Path(root) / name
            mode = path.stat().st_mode
            if not stat.S_ISREG(mode):
                raise GameError(f"{shown_name(path)} in the game package is {file_kind(mode)}, not a file")
            found.append((path.relative_to(directory).as_posix(), path))
            if len(found) > MAX_PACKAGE_FILES:
                raise GameError(f"{shown_name(directory)} holds more than {MAX_PACKAGE_FILES} files: not a game")
    return sorted(found)


def file_digest(path: str | Path) -> str:
    """The content digest of a game file, or of every file under a game package (names and contents)."""
    file = Path(path)
    if file.is_dir():
        digest = hashlib.sha256()
        for name, part in _package_files(file):
            digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
            try:
                digest.update(hashlib.sha256(read_bounded(part, MAX_GAME_FILE_BYTES, "the game's file")).digest())
            except NotAFile as error:
                raise GameError(str(error)) from None
        return digest.hexdigest()
    try:
        return hashlib.sha256(read_bounded(file, MAX_GAME_FILE_BYTES, "the game")).hexdigest()
    except NotAFile as error:
        raise GameError(str(error)) from None


class _GamePackageFinder(importlib.abc.MetaPathFinder):
    """Finds the submodules of one loaded game package: sources through ``SourceOnlyLoader``."""

    def __init__(self, package: str) -> None:
        self.package = package

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if not fullname.startswith(self.package + ".") or path is None:
            return None
        loaders = [(SourceOnlyLoader, importlib.machinery.SOURCE_SUFFIXES),
                   (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES),
                   (importlib.machinery.SourcelessFileLoader, importlib.machinery.BYTECODE_SUFFIXES)]
        for entry in path:
            spec = importlib.machinery.FileFinder(str(entry), *loaders).find_spec(fullname)
            if spec is not None and spec.loader is not None:
                return spec
        return None  # a namespace portion: the default finders build it, and find its modules here again


def _module_name(path: Path, digest: str) -> str:
    stem = re.sub(r"\W", "_", path.stem if path.suffix == ".py" else path.name)[:40] or "game"
    return f"{GAME_MODULE_PREFIX}{stem}_{digest[:16]}"


def _name_for(path: Path, source_file: Path, digest: str) -> str:
    """The module name of the game at ``path``: ``_module_name``, unless a game of the same content elsewhere has it.

    Two copies of one file in two directories each import the modules beside them (their own
    ``rules.py``), so they are two modules: the second copy takes the name with ``_2`` (and
    so on). A module's name never reaches a hash or a save, so which copy came first changes
    nothing a game computes.
    """
    base = name = _module_name(path, digest)
    number = 1
    while True:
        taken = sys.modules.get(name)
        file = getattr(taken, "__file__", None)
        if taken is None or (file is not None and Path(file).resolve() == source_file.resolve()):
            return name
        number += 1
        name = f"{base}_{number}"


def _where(error: BaseException) -> str:
    return f" (at {where(error)})" if error.__traceback__ is not None else ""


def load_game(name: str | os.PathLike[str], *, expect_digest: str | None = None) -> Game:
    """Load a registered game by name, or a game file or package by path.

    An unknown name, a missing file, a syntax error, an import that fails or a missing
    ``build(world)`` raises ``GameError`` with one line naming the file and line. With
    ``expect_digest``, a game file whose content differs is refused *before* it is run.
    """
    if isinstance(name, os.PathLike):
        name = os.fspath(name)  # a Path is a path, even one that looks like a sample's name
        if not is_game_path(name):
            raise GameError(f"{name!r} is not a game file: a game is a .py file or a package directory")
    if not isinstance(name, str) or not name:
        raise GameError("no game given: name a sample game (tickswap list) or a game's .py file")
    if is_game_path(name):
        return _load_path(name, expect_digest)
    samples = sample_games()
    if name not in samples:
        known = ", ".join(sorted(samples)) or "none installed"
        raise GameError(f"unknown game {name!r}; known games: {known} (or a path to a .py file)")
    try:
        module = samples[name].load()
    except Exception as error:
        raise GameError(f"game {name!r} failed to import: {type(error).__name__}: {error}{_where(error)}") from error
    if not isinstance(module, ModuleType):
        raise GameError(f"game {name!r} is registered as {samples[name].value!r}, which is not a module")
    _check_build(module, name)
    return Game(name, module)


def reload_game(game: Game) -> Game:
    """``game`` imported afresh from its files as they are now: new modules, new classes, whatever this process
    imported before (a game file, the modules it imports from beside it, a registered game's package).

    What a live reload runs (``engine.studio``). A game that fails to import raises
    ``GameError`` (one line naming the file and line), and ``game`` goes on as it was: the
    modules it runs stay where they were. On success the old modules leave ``sys.modules``
    (their classes live on in the objects that still hold them), so reloading a hundred
    times keeps one copy of the game there.
    """
    # Its classes keep knowing their own modules once new modules take their names in sys.modules (a package's
    # modules, or a file whose content is back to what it was): a save names the new classes only.
    own = game.module.__package__ or game.module.__name__ if game.path is None else game.module.__name__
    for name, module in list(sys.modules.items()):
        if isinstance(module, ModuleType) and (module is game.module or name.startswith(own + ".")):
            remember_module(module)
    for module in game.beside:
        remember_module(module)
    if game.path is None:
        return _reload_registered(game)
    fresh = _load_path(str(game.path), None, fresh=True)
    old = game.module
    for key in [key for key, module in list(sys.modules.items()) if module is old and key != "__main__"
                and key.startswith(GAME_MODULE_PREFIX) and key != fresh.module.__name__]:
        _forget(key)
    return fresh


def _reload_registered(game: Game) -> Game:
    """``reload_game`` of a registered game (``tickswap run patrol``): its package's modules imported again."""
    module = game.module
    package = module.__package__ or module.__name__
    stashed = {key: sys.modules.pop(key) for key in list(sys.modules)
               if key == package or key.startswith(package + ".")}
    try:
        # From the sources as they are now: a cache of the same size and second would bring the old code back.
        with from_source(lambda name, _file: name == package or name.startswith(package + ".")):
            fresh = importlib.import_module(module.__name__)
        _check_build(fresh, game.name)
    except BaseException as error:
        for key in [key for key in sys.modules if key == package or key.startswith(package + ".")]:
            del sys.modules[key]
        sys.modules.update(stashed)
        if isinstance(error, (GameError, Interrupted)):
            raise
        if isinstance(error, SyntaxError):
            raise GameError(f"{shown_name(error.filename or game.name)}:{error.lineno}: syntax error: "
                            f"{capped(error.msg, 200)}") from None
        raise GameError(f"game {game.name!r} failed to import: {type(error).__name__}: {capped(str(error), 200)}"
                        f"{_where(error)}") from None
    return Game(game.name, fresh)


def _check_build(module: ModuleType, where: str, own: str | None = None) -> None:
    where = shown_name(where)
    if not callable(getattr(module, "build", None)):
        raise GameError(f"{where} has no build(world) function to set up the game")
    systems = getattr(module, "systems", None)
    if systems is not None and not callable(systems):
        raise GameError(f"{where}: systems must be a function systems(world) that adds them with "
                        f"world.add_processor(...), got {shown(systems)}")
    check_settings(module, where)
    check_updates(own or module.__name__, where)


def _load_path(name: str, expect_digest: str | None, fresh: bool = False) -> Game:
    path = Path(name).expanduser().resolve()
    package = path.is_dir()
    source_file = path / "__init__.py" if package else path
    if not source_file.is_file():
        what = "game package (a directory with __init__.py)" if package else "game file"
        raise GameError(f"no {what} at {name}")
    if not package and path.suffix != ".py":
        raise GameError(f"{name} is not a .py file")
    try:
        # Bounded by the bytes read (a FIFO or a device is refused by name, never opened to block).
        source = b"" if package else read_bounded(path, MAX_GAME_FILE_BYTES, "the game")
        digest = file_digest(path) if package else hashlib.sha256(source).hexdigest()
    except NotAFile as error:
        raise GameError(str(error)) from None
    except OSError as error:
        raise GameError(f"cannot read the game {shown_name(name)}: {error.strerror or error}") from None
    if expect_digest is not None and digest != expect_digest:
        raise GameError(f"{name} is not the game file that was recorded: its content changed "
                        f"(digest {digest[:12]}, recorded {expect_digest[:12]})")
    module_name = _name_for(path, source_file, digest)
    if fresh:
        # A reload: the module running now (of this content, if only a module beside it changed) is set aside,
        # and comes back if the new import fails.
        stashed = {key: sys.modules.pop(key) for key in list(sys.modules)
                   if key == module_name or key.startswith(module_name + ".")}
        try:
            return _import_path(name, path, source_file, source, digest, module_name)
        except BaseException:
            sys.modules.update(stashed)
            raise
    loaded = sys.modules.get(module_name)
    if loaded is not None:
        return Game(path.name, loaded, path, digest, beside=BESIDE.get(module_name, ()))
    imported = _imported_already(source_file)
    if imported is not None:
        _check_build(imported, name)
        return Game(path.name, imported, path, digest, beside=() if package else _beside_of(imported, path.parent))
    return _import_path(name, path, source_file, source, digest, _importable_as(path, source_file) or module_name)


def _importable_as(path: Path, source_file: Path) -> str | None:
    """The name ``import`` would give this very file from ``sys.path`` (a test beside its game), if any.

    Loaded under that name, a later ``import game`` finds it in ``sys.modules``: one module
    whichever comes first, as ``_imported_already`` makes it when the import came first. Under
    a name of its own, the import made a second copy of every class, and
    ``world.entities_of(Ship)`` found none of the loaded game's ships.
    """
    plain = path.name if path.is_dir() else path.stem
    if not plain.isidentifier() or plain in sys.modules:
        return None
    try:
        spec = importlib.machinery.PathFinder.find_spec(plain)
        found = None if spec is None or spec.origin is None else Path(spec.origin).resolve()
    except (ImportError, OSError, ValueError):
        return None
    return plain if found == source_file else None


def _import_path(name: str, path: Path, source_file: Path, source: bytes, digest: str, module_name: str) -> Game:
    """Import the game file (or package) at ``path`` as a new module ``module_name``; ``GameError`` if it fails."""
    package = path.is_dir()
    if package:
        spec = importlib.util.spec_from_file_location(module_name, source_file,
                                                      loader=SourceOnlyLoader(module_name, str(source_file)),
                                                      submodule_search_locations=[str(path)])
        if not any(isinstance(finder, _GamePackageFinder) and finder.package == module_name
                   for finder in sys.meta_path):
            sys.meta_path.insert(0, _GamePackageFinder(module_name))
    else:
        spec = importlib.util.spec_from_loader(module_name, loader=None, origin=str(path))
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__file__ = str(source_file)
    beside: list[ModuleType] = []
    sys.modules[module_name] = module  # dataclasses and pickling look modules up by name
    try:
        if package:
            assert spec.loader is not None
            spec.loader.exec_module(module)
        else:
            # Run exactly the bytes that were digested: the file can't change in between.
            code = compile(_source_text(source, name), str(path), "exec", dont_inherit=True)
            with importable_beside(path.parent, beside):
                exec(code, module.__dict__)
    except SyntaxError as error:
        _forget(module_name)
        file = shown_name(error.filename or name)
        raise GameError(f"{file}:{error.lineno}: syntax error: {capped(error.msg, 200)}") from None
    except GameError:
        _forget(module_name)
        raise
    except Interrupted:  # a real Ctrl-C while importing: not the game's error
        _forget(module_name)
        raise
    except BaseException as error:  # the game's own KeyboardInterrupt, GeneratorExit...: one line, like any
        _forget(module_name)
        raise GameError(f"{shown_name(name)} failed to import: {type(error).__name__}: {capped(str(error), 200)}"
                        f"{_where(error)}") from None
    try:
        _check_build(module, name)
    except GameError:
        _forget(module_name)
        raise
    BESIDE[module_name] = tuple(beside)
    return Game(path.name, module, path, digest, beside=tuple(beside))


def _imported_already(source_file: Path) -> ModuleType | None:
    """The module this process imported from ``source_file`` by itself (``import game``), if any.

    A test that imports the game and also loads it with ``load_game`` gets one module: the
    same classes, whatever is spawned from either. A module of ``load_game``'s own (a
    ``tickswap_game_`` name) is not taken here: those are found by their digest, so a file
    changed since is loaded again.
    """
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if (isinstance(module, ModuleType) and isinstance(file, str) and not name.startswith(GAME_MODULE_PREFIX)
                and module.__name__ == name and callable(getattr(module, "build", None))):
            try:
                if Path(file).resolve() == source_file:
                    return module
            except (OSError, ValueError):
                continue
    return None


def _beside_of(module: ModuleType, directory: Path) -> tuple[ModuleType, ...]:
    """The modules ``module``'s own import loaded from ``directory`` beside it (``import helpers``)."""
    return tuple(loaded for name, loaded in list(sys.modules.items())
                 if loaded is not module and name != "__main__" and isinstance(loaded, ModuleType)
                 and is_beside(loaded, directory))


def _source_text(source: bytes, name: str) -> str:
    """The game file's text, decoded as ``python game.py`` does: UTF-8, or the PEP 263 coding cookie's encoding.

    ``compile`` of bytes lets invalid UTF-8 through in comments, where ``python`` refuses
    the file: the game must not run here and fail there.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError as error:
        encoding = "utf-8"  # a line 1 or 2 that is not UTF-8 fails here: said below, with its byte
        cookie = capped(str(error), 200)
        try:
            source.decode(encoding)
        except UnicodeDecodeError:
            pass
        else:
            raise GameError(f"{shown_name(name)}: {cookie}") from None
    try:
        return source.decode(encoding)
    except UnicodeDecodeError as error:
        line = source[:error.start].count(b"\n") + 1
        raise GameError(f"{shown_name(name)}:{line}: not valid {encoding} text (byte {source[error.start]:#04x}); "
                        "save it as UTF-8, or declare its encoding (# -*- coding: latin-1 -*-), as python requires") \
            from None
    except LookupError:  # a cookie naming an unknown codec is caught by detect_encoding; kept for safety
        raise GameError(f"{shown_name(name)}: unknown encoding {shown(encoding)}") from None


def check_updates(own: str, where: str) -> None:
    """Refuse an entity class of the game whose ``update`` is a generator or ``async def``.

    Calling one returns a generator or a coroutine without running a line of it: the
    entity would silently never update.
    """
    from engine.entity import Entity

    pending = list(Entity.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__ != own and not cls.__module__.startswith(own + "."):
            continue
        update = cls.__dict__.get("update")
        if update is None:
            continue
        kind = ("a generator function (it has yield)" if inspect.isgeneratorfunction(update)
                else "an async def" if inspect.iscoroutinefunction(update) or inspect.isasyncgenfunction(update)
                else None)
        if kind is not None:
            code = getattr(update, "__code__", None)
            at = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
            raise GameError(f"{where}: {cls.__qualname__}.update is {kind}{at}: calling it would run none of it, "
                            "so the entity would never update; write a plain def update(self, world)")


def _forget(module_name: str) -> None:
    for loaded in [key for key in sys.modules if key == module_name or key.startswith(module_name + ".")]:
        del sys.modules[loaded]


def adopt_main(module: ModuleType) -> Game:
    """Make a game file that runs itself (module ``__main__``, or imported) the game, under its stable name.

    The module is registered in ``sys.modules`` under the same name ``load_game`` would
    give the file, so a later ``load_game`` of the file is this very module, never a second
    import. Its snapshots, hashes, recordings and saves are those of ``tickswap run FILE``
    because classes are named by where their file lies, not by their module's name.
    """
    file = getattr(module, "__file__", None)
    if file is None:
        raise GameError("run(build): the game has no file (an interactive session?); save it as a .py file")
    path = Path(file).resolve()
    path = path.parent if path.name == "__init__.py" else path
    try:
        digest = file_digest(path)
    except OSError as error:
        raise GameError(f"cannot read the game {path}: {error.strerror or error}") from None
    module_name = _module_name(path, digest)
    # The module running now is the game, even if the same file was loaded before under this name.
    sys.modules[module_name] = module
    _run_rest(module, path, Path(file).resolve())
    _check_build(module, path.name)
    # What python game.py imported from beside the file (import helpers) is the game's too.
    beside = () if path.is_dir() else _beside_of(module, path.parent)
    return Game(path.name, module, path, digest, beside=beside)


def _run_rest(module: ModuleType, path: Path, source_file: Path) -> None:
    """Deprecated until 0.6: run what a file running itself has below ``run(build)``, with a warning.

    ``run(build)`` is called last, at the end of the file (as ppb and Arcade have it): it
    never returns, so ``python game.py`` would never reach the lines below it, while
    ``tickswap run game.py`` imports the whole file first. For one version those lines still
    run before the game starts (so an old game sees what it defines there), and a
    ``DeprecationWarning`` names the line to move. Errors are reported as an import's are.
    """
    frame = _running_body(module)
    if frame is None:  # the module's body has finished (a game imported, then run(game.build))
        return
    try:
        text = _source_text(read_bounded(source_file, MAX_GAME_FILE_BYTES, "the game"), path.name)
        body = ast.parse(text, str(source_file)).body
        rest = next((body[index + 1:] for index, statement in enumerate(body)
                     if statement.lineno <= frame.f_lineno <= (statement.end_lineno or statement.lineno)), [])
        if not rest:
            return
        # Shown by default when the game is __main__ (python game.py); line numbers stay the
        # file's own, so a warning and a traceback point at the line to move or fix.
        warnings.warn_explicit(
            f"{path.name}: the code below run(build) (from line {rest[0].lineno}) runs before the game only until "
            f"tickswap {REMOVED_IN}: call run(build) last, at the end of the file, under "
            f"if __name__ == \"__main__\":", DeprecationWarning, str(source_file), rest[0].lineno,
            module=module.__name__)
        exec(compile(ast.Module(body=rest, type_ignores=[]), str(source_file), "exec", dont_inherit=True), vars(module))
    except (GameError, Interrupted):
        raise
    except OSError as error:
        raise GameError(f"cannot read the game {path}: {error.strerror or error}") from None
    except BaseException as error:
        raise GameError(f"{path.name} failed to import: {type(error).__name__}: {capped(str(error), 200)}"
                        f"{_where(error)}") from None


def _running_body(module: ModuleType) -> FrameType | None:
    """The innermost frame running ``module``'s top level, or None once it has finished."""
    frame: FrameType | None = sys._getframe(1)
    namespace = vars(module)
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals is namespace:
            return frame
        frame = frame.f_back
    return None


def game_of_module(module: ModuleType) -> Game:
    """The game whose ``build`` lives in ``module`` (``engine.run(build)``): a sample, a file, or ``__main__``."""
    if module.__name__ == "__main__":
        return adopt_main(module)
    for name, entry in sample_games().items():
        if entry.value == module.__name__:
            return Game(name, module)
    file = getattr(module, "__file__", None)
    if module.__name__.startswith(GAME_MODULE_PREFIX) and file:
        path = Path(file).resolve()
        path = path.parent if path.name == "__init__.py" else path
        return Game(path.name, module, path, file_digest(path))
    # A game file the user imported as a plain module (``import comet; run(comet.build)``):
    # adopted like __main__, so its hashes are those of ``tickswap run comet.py``.
    return adopt_main(module)
