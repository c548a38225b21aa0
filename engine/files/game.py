"""Games and their settings: what a game is (``Game``), and the one owner of its settings and of the step.

A game is a module with a ``build(world)`` function (and optionally ``systems(world)``,
which adds its esper processors after ``build`` and again after a save is loaded), and
the settings ``WIDTH``, ``HEIGHT``, ``BACKGROUND``, ``MS_PER_UPDATE``, ``DESCRIPTION``,
``KEYS`` (the keys ``tickswap check``'s random input presses), ``PLAYERS`` and
``PLAYER_KEYS`` (the keyboard split between players on one machine,
``engine.input.local``), checked here when the game loads (``check_settings``).
``DEFAULT_MS_PER_UPDATE`` is the step of a game that names none, and of a ``World`` or a
loop that is given none.

How a game is found and imported (a registered sample by name, a game file by path)
is ``engine.files.importer``'s job. The name a module is imported under never reaches
a snapshot, a state hash or a save: there a class is named by where its file lies
(``engine.state.names.class_name``: ``game:Qualname`` for a game file's own classes), so
a game is the same game however it was loaded, and renaming a game file, moving it, or
editing a comment in it changes no hash, and a save of it still loads.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

# The limits are defined in the leaf engine.constants; this module keeps exporting them.
from engine.constants import DEFAULT_MS_PER_UPDATE as DEFAULT_MS_PER_UPDATE
from engine.constants import DEFAULT_VIEW_SIZE as DEFAULT_VIEW_SIZE
from engine.constants import MAX_KEYS as MAX_KEYS
from engine.constants import MAX_PLAYERS as MAX_PLAYERS
from engine.constants import MAX_WINDOW_SIDE as MAX_WINDOW_SIDE
from engine.constants import MS_PER_UPDATE_RANGE as MS_PER_UPDATE_RANGE
from engine.errors import GameError as GameError
from engine.input.keys import RESERVED
from engine.input.keys import name as key_name
from engine.input.local import PlayerKeys, check_player_keys
from engine.interrupts import Interrupted
from engine.messages import shown
from engine.state.names import class_file, class_namespace
from engine.world.view import checked_view_size as checked_view_size

if TYPE_CHECKING:
    from engine.world import World

__all__ = ["DEFAULT_MS_PER_UPDATE", "DEFAULT_VIEW_SIZE", "MAX_PLAYERS", "MS_PER_UPDATE_RANGE", "Game", "GameError",
           "check_keys", "check_players", "check_settings", "check_step", "checked_player_keys",
           "checked_view_size"]


@dataclass(frozen=True)
class Game:
    """A loaded game: its name, its module, and for game files the file and its content digest."""

    name: str
    """The sample game's name, or the game file's name (``comet.py``)."""
    module: ModuleType
    path: Path | None = None
    """The game file (or package directory), absolute; ``None`` for a sample game."""
    digest: str | None = None
    """SHA-256 of the game file's content (of every file of a package but its caches); ``None`` for samples."""
    module_name: str | None = None
    """Another import name the game's module is known by, if any (none since 0.4: classes are named by their
    file, so a game file running as ``__main__`` keeps its classes' module name)."""
    beside: tuple[ModuleType, ...] = ()
    """Modules the game file imported from its own directory (``import helpers``): the game's
    too, so a save of their entities loads with it. They keep their own names (``helpers``)."""

    @property
    def build(self) -> Callable[[Any], Any]:
        """The game's ``build(world)``."""
        build: Callable[[Any], Any] = self.module.build
        return build

    @property
    def view_size(self) -> tuple[int, int]:
        """The game's window size in pixels: ``(WIDTH, HEIGHT)``, by default ``DEFAULT_VIEW_SIZE``.

        Every world the engine builds for the game gets it as ``world.view_size`` before
        ``build`` (``setup``, the commands, the checks, a network session), so the mouse maps
        through a camera as the game's window does (``world.mouse``)."""
        return checked_view_size((self.setting("WIDTH", DEFAULT_VIEW_SIZE[0]),
                                  self.setting("HEIGHT", DEFAULT_VIEW_SIZE[1])), self.name)

    def add_systems(self, world: Any) -> None:
        """Call the game's optional ``systems(world)``: after ``build`` on a fresh run, after loading a save.

        Systems are code, not data, so a save can't hold them: a game that adds its
        systems here gets them back when a save is loaded.
        """
        systems = getattr(self.module, "systems", None)
        if systems is None:
            return
        returned = systems(world)
        if returned is not None:
            # ``return [Gravity()]`` looks like it adds systems, and would silently add none.
            raise GameError(f"{self.name}: systems(world) returned {shown(returned)}; it adds each system itself "
                            "with world.add_processor(system, priority) and returns nothing")

    def add_systems_again(self, world: World, failed: Callable[[BaseException], Exception]) -> World:
        """``world`` (loaded from a save, or rebuilt by a reload) with ``systems(world)`` added again.

        If the systems fail, the world is closed and ``failed(error)`` is raised in place of the
        error: whatever the game raises is its failure, its own ``KeyboardInterrupt`` or
        ``GeneratorExit`` included (``engine.interrupts``: only a signal is a Ctrl-C), which
        ``tests/test_game_mistakes.py`` holds; a real Ctrl-C (``Interrupted``) passes through.
        """
        try:
            self.add_systems(world)
        except Interrupted:
            world.close()
            raise
        except BaseException as error:
            world.close()
            raise failed(error) from None
        return world

    def played_by(self) -> str:
        """How many players the game takes, as messages say it: ``2 players``, ``1 to 4 players``, ``1 player``."""
        taken, most = self.players, self.players.stop - 1
        span = f"{taken.start}" if len(taken) == 1 else f"{taken.start} to {most}"
        return f"{span} player{'s' if most != 1 else ''}"

    def setup(self, world: Any) -> None:
        """A fresh game: the game's window size (``world.view_size``), ``build(world)``, then ``systems(world)``."""
        world.view_size = self.view_size
        self.build(world)
        self.add_systems(world)

    @property
    def is_file(self) -> bool:
        """Whether this is a user's game file rather than a registered game."""
        return self.path is not None

    @property
    def description(self) -> str:
        """One line about the game: its ``DESCRIPTION``, or the first line of its docstring."""
        text = getattr(self.module, "DESCRIPTION", None) or (self.module.__doc__ or "").strip()
        return str(text).strip().splitlines()[0] if str(text).strip() else "(no description)"

    def setting(self, name: str, default: Any) -> Any:
        """A module-level setting of the game (``WIDTH``, ``MS_PER_UPDATE``...), or ``default``."""
        return getattr(self.module, name, default)

    @property
    def keys(self) -> tuple[int, ...] | None:
        """The game's ``KEYS`` (checked): the keys ``tickswap check``'s random input presses; ``None`` if unset."""
        keys = self.setting("KEYS", None)
        return None if keys is None else check_keys(keys, self.name)

    @property
    def player_keys(self) -> PlayerKeys | None:
        """The game's ``PLAYER_KEYS`` (checked): each local player's part of a split keyboard; ``None`` if unset."""
        value = self.setting("PLAYER_KEYS", None)
        return None if value is None else checked_player_keys(value, self.players, self.name)

    @property
    def players(self) -> range:
        """How many players the game takes: its ``PLAYERS`` (checked) as a range; ``range(1, 2)`` if unset."""
        return check_players(self.setting("PLAYERS", 1), self.name)

    @property
    def ms_per_update(self) -> float:
        """The game's step: its ``MS_PER_UPDATE`` (checked), or ``DEFAULT_MS_PER_UPDATE``."""
        return check_step(self.setting("MS_PER_UPDATE", DEFAULT_MS_PER_UPDATE), self.name)

    def view(self) -> ModuleType:
        """The module that says how the game looks: ``<package>.view`` beside a sample's logic, else the game.

        A game in a single file is its own view: ``LOOKS`` and ``BACKGROUND`` sit beside
        ``build`` (or entities carry a ``look``). Importing a view may import pyglet.
        """
        package = self.module.__package__
        if self.path is None and package and self.module.__name__ != package:
            name = f"{package}.view"
            if importlib.util.find_spec(name) is not None:
                return importlib.import_module(name)
        return self.module

    @property
    def root(self) -> Path | None:
        """The directory the game's own files lie in: the game file's (or its package's); ``None`` without a file.

        A class whose module's file lies under it is the game's (``owns_class``), however
        the module was imported.
        """
        file = getattr(self.module, "__file__", None)
        return Path(file).resolve().parent if isinstance(file, str) else None

    def owns_class(self, kind: type) -> bool:
        """Whether ``kind`` is one of this game's classes: from a module the game loaded (``loaded_class``), or from
        any module whose file lies under the game's ``root``, however it was imported."""
        if self.loaded_class(kind):
            return True
        file = class_file(kind)
        root = self.root
        return file is not None and root is not None and Path(file).resolve().is_relative_to(root)

    def loaded_class(self, kind: type) -> bool:
        """Whether ``kind`` comes from the very modules this game loaded (not another copy of one of its files):
        its module, its package's modules, the modules it imported from beside itself.

        Told apart by the namespace the class was defined in, not by its module's name: a
        live reload imports a file again under the name its old module had."""
        namespace = class_namespace(kind)
        if namespace is None:
            return False
        if namespace is vars(self.module) or any(namespace is vars(beside) for beside in self.beside):
            return True
        own = self.module_name or self.module.__name__
        package = self.module.__package__ or ""
        inside = own if self.path is not None or not package else package
        name = namespace.get("__name__")
        if not isinstance(name, str) or not name.startswith(inside + "."):
            return False
        current = sys.modules.get(name)
        return current is not None and vars(current) is namespace




def check_settings(module: ModuleType, where: str) -> None:
    """The game's settings, checked when it loads: a bad one is one line naming it, not an error deep in GL."""
    for name in ("WIDTH", "HEIGHT"):
        value = getattr(module, name, 1)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_WINDOW_SIDE:
            raise GameError(f"{where}: {name} must be a whole number of pixels from 1 to {MAX_WINDOW_SIDE}, "
                            f"got {shown(value)}" + (" (use // to divide)" if isinstance(value, float) else ""))
    check_step(getattr(module, "MS_PER_UPDATE", DEFAULT_MS_PER_UPDATE), where)
    background = getattr(module, "BACKGROUND", (0, 0, 0))
    if not (type(background) in (tuple, list) and len(background) in (3, 4) and all(
            type(part) is int and 0 <= part <= 255 for part in background)):
        raise GameError(f"{where}: BACKGROUND must be a colour (red, green, blue), each a whole number from 0 to "
                        f"255, got {shown(background)}")
    description = getattr(module, "DESCRIPTION", None)
    if description is not None and (not isinstance(description, str) or len(description) > 10_000):
        raise GameError(f"{where}: DESCRIPTION must be a string (a line or a few), got {shown(description)}")
    keys = getattr(module, "KEYS", None)
    if keys is not None:
        check_keys(keys, where)
    players = check_players(getattr(module, "PLAYERS", 1), where)
    player_keys = getattr(module, "PLAYER_KEYS", None)
    if player_keys is not None:
        checked_player_keys(player_keys, players, where)


def checked_player_keys(value: Any, players: range, where: str) -> PlayerKeys:
    """A game's ``PLAYER_KEYS`` (``engine.input.local.check_player_keys``), or ``GameError`` naming the game."""
    try:
        return check_player_keys(value, players.stop - 1)
    except ValueError as error:
        raise GameError(f"{where}: {error}") from None


def check_players(players: Any, where: str) -> range:
    """A game's ``PLAYERS``, checked: a whole number from 1 to ``MAX_PLAYERS``, or a ``range`` of them (step 1).

    Returned as a range either way: ``PLAYERS = 2`` is ``range(2, 3)``; ``PLAYERS = range(1, 3)``
    is a game played alone or by two.
    """
    if type(players) is int and 1 <= players <= MAX_PLAYERS:
        return range(players, players + 1)
    if type(players) is range and players.step == 1 and len(players) and players.start >= 1 and \
            players.stop - 1 <= MAX_PLAYERS:
        return players
    raise GameError(f"{where}: PLAYERS must be a whole number from 1 to {MAX_PLAYERS} or a range of them such as "
                    f"range(1, 3), got {shown(players)}")


def check_keys(keys: Any, where: str) -> tuple[int, ...]:
    """A game's ``KEYS``, checked: a tuple or list of 1 to ``MAX_KEYS`` key codes from ``engine.keys``.

    ``GameError`` otherwise, naming ``where`` and the bad value. Esc and F1 to F9 are the
    engine's, never the game's, so a game can't list them.
    """
    if type(keys) not in (tuple, list) or not 1 <= len(keys) <= MAX_KEYS:
        raise GameError(f"{where}: KEYS must be a tuple of 1 to {MAX_KEYS} keys such as (keys.P, keys.R), "
                        f"got {shown(keys)}")
    for key in keys:
        if type(key) is not int or not 0 <= key < 2**63:
            raise GameError(f"{where}: KEYS must hold key codes such as keys.P (from engine import keys), "
                            f"got {shown(key)}")
        if key in RESERVED:
            raise GameError(f"{where}: KEYS lists {key_name(key)}, which the engine keeps (Esc quits, F1 to F9 "
                            "drive the HUD, pause, rewind, inspect and reload): leave it out")
    return tuple(keys)


def check_step(step: Any, where: str) -> float:
    """A game's ``MS_PER_UPDATE``, checked: a number of milliseconds in ``MS_PER_UPDATE_RANGE``.

    ``GameError`` otherwise, naming ``where`` (the game) and the value. The range is the
    one a replay's step may have, so every run can be recorded and replayed.
    """
    low, high = MS_PER_UPDATE_RANGE
    # NaN and inf fail the range check.
    if isinstance(step, bool) or not isinstance(step, (int, float)) or not low <= step <= high:
        raise GameError(f"{where}: MS_PER_UPDATE must be a number of milliseconds from {low:g} to {high:g}, "
                        f"got {shown(step)}")
    return float(step)
