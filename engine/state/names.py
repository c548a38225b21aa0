"""Names that every other module may need and that need nothing: the version, and entity classes' names.

An entity class is named in snapshots, state hashes, saves and recordings by where its
module's file lies, never by the name the module happened to be imported under, so a game
is one game however it is loaded: ``import game`` in a test (whatever ``sys.path`` holds,
``import mygame.logic`` too), ``engine.testing.load_game(path)``, ``tickswap run game.py``,
``tickswap run NAME`` (an installed game), ``python game.py``, from any directory.

The rule (``class_name``): a module's name is the dotted path of its file from the
outermost directory above it that is no package (has no ``__init__.py``), as Python names
it when that directory is on ``sys.path``: ``mygame/logic.py`` in a package is
``mygame.logic``, ``helpers.py`` alone is ``helpers``. A game file that is no package's
module and defines ``build`` is ``game`` whatever the file is called, so renaming or
moving it keeps its hashes. A module whose file is not on disk (frozen into a PyInstaller
bundle, whose ``__file__`` is ``_MEIPASS/mygame/logic.pyc``) is placed by its import name,
which is its path from the bundle's root, with the same rule for a game file. A module
without a file (typed at a prompt) keeps its import name. Two classes of one world that get
one name are refused by ``engine.state.snapshot``, naming both.

A leaf of the import graph: it imports nothing from the engine, so saves, replays and
snapshots can name the engine's version and a game's classes without importing the
package root or the module that loads games.
"""

from __future__ import annotations

import re
import sys
import weakref
from pathlib import Path
from types import ModuleType

__all__ = ["GAME_MODULE", "GAME_MODULE_PREFIX", "__version__", "class_file", "class_module", "class_name",
           "class_namespace", "class_origin", "module_of", "public_module_name",
           "remember_module"]

__version__ = "0.5.0"
"""This tickswap's version: saves and replays record it, and refuse another's."""
GAME_MODULE = "game"
"""How a game file's module is named in snapshots, hashes and saves, whatever the file is called."""
GAME_MODULE_PREFIX = "tickswap_game_"
"""The start of the module name a game file is imported under (``tickswap_game_<stem>_<digest>``)."""

_PLACES: dict[str, str | None] = {}
"""Each module file's dotted place (``_place``), by the file name a module gave: the file system is read once."""


def _identifier(part: str) -> str:
    """A directory or file name as a name part: what is no word character becomes ``_`` (``my-game``: ``my_game``)."""
    part = re.sub(r"\W", "_", part) or "_"
    return "_" + part if part[0].isdigit() else part


def _place(file: str) -> str | None:
    """The dotted name of the module in ``file``, from the outermost directory above it that is no package.

    ``None`` for a file that is not on disk (a module from a zip, or made up).
    """
    if file in _PLACES:
        return _PLACES[file]
    try:
        path = Path(file).resolve()
        found: str | None = None
        if path.is_file():
            stem = path.name.split(".", 1)[0]
            parts = [] if stem == "__init__" else [_identifier(stem)]
            directory = path.parent
            while (directory / "__init__.py").is_file() and directory.parent != directory:
                parts.insert(0, _identifier(directory.name))
                directory = directory.parent
            found = ".".join(parts) or None
    except (OSError, ValueError):
        found = None
    _PLACES[file] = found
    return found


_REMEMBERED: weakref.WeakKeyDictionary[type, weakref.ref[ModuleType]] = weakref.WeakKeyDictionary()
"""The module of each class whose module is no longer in ``sys.modules`` under its name (``remember_module``)."""


def remember_module(module: ModuleType) -> None:
    """Keep knowing where ``module``'s classes come from after it leaves ``sys.modules``.

    The loader takes the modules a game file imports from beside itself (``import
    helpers``) out of ``sys.modules``, so a second game's ``helpers.py`` is its own; their
    classes are still named by their file.
    """
    pending = [value for value in vars(module).values() if isinstance(value, type)]
    while pending:
        kind = pending.pop()
        if kind.__module__ != module.__name__ or kind in _REMEMBERED:
            continue
        _REMEMBERED[kind] = weakref.ref(module)
        pending.extend(value for value in vars(kind).values() if isinstance(value, type))


def module_of(cls: type) -> ModuleType | None:
    """The module that defined ``cls`` (even one the loader took out of ``sys.modules``), or ``None``."""
    remembered = _REMEMBERED.get(cls)
    module = remembered() if remembered is not None else None
    return module if module is not None else sys.modules.get(cls.__module__)


def _namespace_of(cls: type) -> dict[str, object] | None:
    """The global namespace ``cls``'s code ran in: its methods' own (exact, whatever ``sys.modules`` holds now), else
    its module's.

    ``sys.modules`` may hold another module under the class's module name by now (a test
    imported a file as ``my_game`` and let it go, or put another module there), so the
    class's own functions, which keep the namespace they were compiled in, are asked first.
    """
    for value in vars(cls).values():
        function = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
        namespace = getattr(function, "__globals__", None)
        if isinstance(namespace, dict) and namespace.get("__name__") == cls.__module__:
            return namespace
    module = module_of(cls)
    return vars(module) if module is not None else None


def class_namespace(cls: type) -> dict[str, object] | None:
    """The global namespace ``cls`` was defined in: exact even when another module has taken its module's name in
    ``sys.modules`` since (a live reload of the same file), for a class with methods; ``None`` if unknown."""
    return _namespace_of(cls)


def _defines_build(namespace: dict[str, object]) -> bool:
    """Whether the module ``namespace`` is defines (not imports) a ``build``: what makes a file a game file."""
    build = namespace.get("build")
    return callable(build) and getattr(build, "__module__", None) == namespace.get("__name__")


def class_module(cls: type) -> str:
    """The module part of ``cls``'s public name: where its file lies, never its import name (see the module)."""
    namespace = _namespace_of(cls)
    file = namespace.get("__file__") if namespace is not None else None
    place = _place(file) if isinstance(file, str) else None
    if namespace is None or not isinstance(file, str):
        return public_module_name(cls.__module__)
    if place is None:
        # A file that is not on disk: a module frozen into a PyInstaller bundle (``__file__`` is
        # ``_MEIPASS/game.pyc``), or read from a zip. Its import name is its path from the bundle's
        # root, so it is its place, and a game file frozen there is ``game`` as it is on disk.
        place = public_module_name(cls.__module__)
    if "." not in place and _defines_build(namespace):
        return GAME_MODULE
    return place


def class_name(cls: type) -> str:
    """``cls``'s name in saves and recordings: ``module:Qualname`` (``game:Ball``, ``mygame.logic:Hero``).

    Snapshots and state hashes write it ``module.Qualname``.
    """
    return f"{class_module(cls)}:{cls.__qualname__}"


def class_file(cls: type) -> str | None:
    """The file ``cls``'s module was loaded from, or ``None`` (a module made at a prompt)."""
    namespace = _namespace_of(cls)
    file = namespace.get("__file__") if namespace is not None else None
    return file if isinstance(file, str) else None


def class_origin(cls: type) -> str:
    """Where ``cls`` comes from, for a message: its file and the name its module was imported under."""
    return f"{cls.__qualname__} of {class_file(cls) or 'no file'} (imported as {cls.__module__})"


def public_module_name(module: str) -> str:
    """The public name of a module known only by its import name: ``game`` (``game.sub``) for a game file's modules.

    A game file's import name carries its content digest; recording that would make a
    renamed or re-commented file a different game. ``class_module`` uses this only for a
    module with no file on disk; other modules keep their own names.
    """
    head, dot, rest = module.partition(".")
    return GAME_MODULE + dot + rest if head.startswith(GAME_MODULE_PREFIX) else module
