"""Live reload: a running world's state carried from the game's old code into its new code, through the save format.

``carry_over(game, world)`` saves the world as a save's text (in memory: ``save_text``),
imports the game afresh (``reload_game``: new modules, new classes), runs the new
``build`` into a world thrown away (as ``tickswap run --load`` does: it reads the game's
maps, and shows a ``build`` that no longer runs), and loads the text into a new world of
the new classes, checked as any save is. Any step that fails raises ``ReloadError`` with
one line, and nothing has changed: the old world and the old code go on.

Classes are named by where their files lie (``engine.state.names``), so ``game:Ball`` of
the old code is ``game:Ball`` of the new, and every buffered field, signal, ``saved``
attribute, generator state and id comes across. A buffered field a class gained
(``hp = buffered(3)`` added while the game runs) takes its declared default in every
entity of that class, this tick and the tick before, and one it lost is dropped: a note
says each. A name taken out of ``saved`` is dropped too, and one put in is carried from
the running entities' plain attribute. A note names a running class whose ``__init__``
changed (its entities keep their state: ``__init__`` is not run again). What the new code
no longer fits otherwise (a class renamed or removed) is refused by name, as a save would
be. A tile map whose file changed is the new map (the state names a map by its
content, so the old content would otherwise be kept). The window's size, the step and
the players stay as the run began (a note says when ``WIDTH``, ``HEIGHT``,
``MS_PER_UPDATE`` or ``PLAYERS`` changed).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from engine.errors import located
from engine.files.game import Game, GameError
from engine.files.importer import reload_game
from engine.interrupts import Interrupted
from engine.state.names import class_name
from engine.state.values import NotSaveable, encode
from engine.tiles.tilemap import TileMap
from engine.world import World
from engine.world.save import SaveError, load_world_data, parse_save, save_text
from engine.world.save.check import classes_by_name

__all__ = ["ReloadError", "carry_into", "carry_over"]


class ReloadError(Exception):
    """The game could not be reloaded; the message is one line, and the old code goes on."""


@dataclass(frozen=True)
class _NewCode(Game):
    """The game's new code, as the state is loaded into it: only the classes it has just loaded are its.

    A ``Game`` also owns classes from other modules of its files (``import game`` in a
    test is the same game). Here those are the old code's classes, still alive in the
    running world's entities: an entity whose class the new code deleted or renamed would
    be loaded as an instance of the old class, running the old code.
    """

    def owns_class(self, kind: type) -> bool:
        """Whether ``kind`` comes from the very modules the new code loaded."""
        return self.loaded_class(kind)


def _new_code(game: Game) -> _NewCode:
    values: dict[str, Any] = {field.name: getattr(game, field.name) for field in fields(game)}
    return _NewCode(**values)


def _maps(world: World) -> dict[str, str]:
    """The digest of each tile map ``world`` holds, by its file's name."""
    return {entity.map: entity.digest for entity in world.entities_of(TileMap)
            if isinstance(entity.map, str) and isinstance(entity.digest, str)}


def _new_class(by_name: dict[str, list[type]], fresh: Game, name: Any, engine_too: bool = False) -> type | None:
    """The one class named ``name`` that the new code itself loaded (or, ``engine_too``, the engine's); else ``None``.

    A class the new code does not have is left for the loader to refuse by name.
    """
    kinds = [kind for kind in by_name.get(name, []) if fresh.loaded_class(kind)
             or (engine_too and kind.__module__.partition(".")[0] == "engine")]
    return kinds[0] if len(kinds) == 1 else None


def _new_fields(data: dict[str, Any], fresh: Game, notes: list[str]) -> None:
    """Give each entity of the save ``data`` the buffered fields its class declares in the new code.

    A field the class gained takes its declared default (now and in the previous tick's
    values, so it does not interpolate from nothing); one it lost is dropped. Only classes
    the new code itself loaded (or the engine's) are looked at: a class the new code does
    not have is left for the loader to refuse by name. The state is this process's own,
    never a file's: a save file missing a field is still refused as damaged.
    """
    by_name = classes_by_name()
    changed: dict[str, tuple[list[str], list[str], int]] = {}
    for record in data["entities"]:
        name = record.get("class")
        kind = _new_class(by_name, fresh, name, engine_too=True)
        if kind is None:
            continue
        declared = kind.buffered_fields()  # type: ignore[attr-defined]
        had = list(record["buffered"])
        if had == list(declared):
            continue
        previous = dict(zip(had, record["previous"]["values"]["$tuple"]))
        try:
            defaults = {field: encode(value, f"{name}.{field}") for field, value in declared.items()
                        if field not in had}
        except NotSaveable:  # buffered() defaults are immutable values, always saveable; never guess otherwise
            continue
        record["buffered"] = {field: record["buffered"].get(field, defaults.get(field)) for field in declared}
        record["previous"]["values"]["$tuple"] = [previous.get(field, defaults.get(field)) for field in declared]
        gained, lost, count = changed.get(name, ([field for field in declared if field not in had],
                                                 [field for field in had if field not in declared], 0))
        changed[name] = (gained, lost, count + 1)
    for name, (gained, lost, count) in changed.items():
        shown = name.rpartition(":")[2]
        what = [f"{shown}.{field} is new: {count} {'entity takes' if count == 1 else 'entities take'} its default"
                for field in gained]
        what += [f"{shown}.{field} is gone from the code: dropped" for field in lost]
        notes.append("; ".join(what))


def _new_saved(data: dict[str, Any], fresh: Game, world: World, notes: list[str]) -> None:
    """Give each entity of the save ``data`` the ``saved`` attributes its class lists in the new code.

    A name taken out of ``saved`` is dropped (it is a plain attribute now, gone after a
    reload as after a load); a name put in is carried from the running entity, which has
    it as a plain attribute, when it has one and it can be saved (else the loader refuses
    it by name, as before). Only classes the new code itself loaded are looked at.
    """
    by_name = classes_by_name()
    running = {entity.id: entity for entity in world.entities}
    changed: dict[str, tuple[list[str], list[str], int]] = {}
    for record in data["entities"]:
        name = record.get("class")
        kind = _new_class(by_name, fresh, name)
        if kind is None or not isinstance(record.get("saved"), dict):
            continue
        declared = tuple(kind.saved)  # type: ignore[attr-defined]
        had = record["saved"]
        if set(had) == set(declared):
            continue
        values = {key: had[key] for key in declared if key in had}
        entity = running.get(record.get("id"))
        for key in declared:
            if key not in had and entity is not None and hasattr(entity, key):
                try:
                    values[key] = encode(getattr(entity, key), f"{name}.{key}")
                except NotSaveable:
                    continue  # left out: the loader refuses it by name
        record["saved"] = values
        gained, lost, count = changed.get(name, ([key for key in declared if key not in had],
                                                 [key for key in had if key not in declared], 0))
        changed[name] = (gained, lost, count + 1)
    for name, (gained, lost, count) in changed.items():
        shown = name.rpartition(":")[2]
        keep = "entity keeps its" if count == 1 else "entities keep their"
        what = [f"{shown}.{key} is saved now: {count} running {keep} value" for key in gained]
        what += [f"{shown}.{key} is no longer saved: dropped" for key in lost]
        notes.append("; ".join(what))


def _same_code(old: Any, new: Any) -> bool:
    """Whether two code objects do the same: their bytecode, names and constants (nested code too).

    Not ``==``, which also compares line numbers: an edit above ``__init__`` moves it
    without changing it.
    """
    if old.co_code != new.co_code or old.co_names != new.co_names or len(old.co_consts) != len(new.co_consts):
        return False
    return all(_same_code(a, b) if hasattr(a, "co_code") and hasattr(b, "co_code") else (type(a), a) == (type(b), b)
               for a, b in zip(old.co_consts, new.co_consts))


def _init_code(kind: type | None) -> Any:
    return getattr(getattr(kind, "__init__", None), "__code__", None)


def _changed_inits(world: World, fresh: Game, notes: list[str]) -> None:
    """Say which running classes' ``__init__`` the new code changed: their entities keep the state they have.

    A reload carries the state over and never runs ``__init__`` again, so a value edited
    there (``self.speed = 3``, a ``saved`` attribute) shows only in entities made from
    now on. Said, so that an edit that seems to do nothing is no mystery.
    """
    by_name = classes_by_name()
    counts: dict[type, int] = {}
    for entity in world.entities:
        counts[type(entity)] = counts.get(type(entity), 0) + 1
    for old, count in counts.items():
        name = class_name(old)
        old_init, new_init = _init_code(old), _init_code(_new_class(by_name, fresh, name))
        if old_init is None or new_init is None or _same_code(old_init, new_init):
            continue
        notes.append(f"{name.rpartition(':')[2]}.__init__ changed: {count} running "
                     f"{'entity keeps its' if count == 1 else 'entities keep their'} state (new ones run it)")


def _new_maps(data: dict[str, Any], maps: dict[str, str]) -> None:
    """Make each tile map of the save ``data`` whose file the new ``build`` read with other content that content."""
    name = class_name(TileMap)
    for record in data["entities"]:
        saved = record.get("saved", {})
        if record.get("class") != name or not isinstance(saved.get("map"), str):
            continue
        fresh = maps.get(saved["map"])
        if fresh is not None and fresh != saved.get("digest"):
            saved["digest"] = fresh


_WHERE = "the running state"


def carry_over(game: Game, world: World) -> tuple[Game, World, list[str]]:
    """The game imported afresh and a new world of its classes holding ``world``'s state; and notes to say.

    ``world`` is untouched (the caller closes it once it has moved on). ``ReloadError``
    (one line) if the state can't be saved, the game can't be imported or built, or the
    state doesn't fit the new classes.
    """
    if world.ticking:
        raise RuntimeError("a world is reloaded between ticks, not during one")
    try:
        text = save_text(world, {"game": game.name}, where=_WHERE, root=game.root)
    except SaveError as error:
        raise ReloadError(f"the running state can't be carried over: {error}") from None
    try:
        fresh = reload_game(game)
    except GameError as error:
        raise ReloadError(str(error)) from None
    loaded, notes = carry_into(game, fresh, world, text)
    return fresh, loaded, notes


def carry_into(game: Game, fresh: Game, world: World, text: str | None = None) -> tuple[World, list[str]]:
    """A new world of ``fresh``'s classes (``game`` imported again) holding ``world``'s state; and notes to say.

    What ``carry_over`` does once the game is imported: also how the rewind ring's past is
    carried over (its oldest checkpoint, into the code already imported). ``text``: ``world``
    saved, if the caller has it. ``ReloadError`` (one line) as ``carry_over``.
    """
    if text is None:
        try:
            text = save_text(world, {"game": game.name}, where=_WHERE, root=game.root)
        except SaveError as error:
            raise ReloadError(f"the running state can't be carried over: {error}") from None
    try:
        with World(seed=world.seed, players=world.players) as built:
            built.view_size = world.view_size
            fresh.build(built)
            maps = _maps(built)
    except Interrupted:
        raise
    except BaseException as error:
        raise ReloadError(f"{game.name}: build(world) failed: {located(error)}") from None
    notes: list[str] = []
    try:
        # Parsed once; the new code's fields and maps are written into it, then it is checked and loaded.
        data = parse_save(text, _WHERE)
        _new_fields(data, fresh, notes)
        _new_saved(data, fresh, world, notes)
        _changed_inits(world, fresh, notes)
        _new_maps(data, maps)
        loaded = load_world_data(data, _WHERE, _new_code(fresh), notes, world_class=World)
    except SaveError as error:
        said = str(error).removeprefix(f"{_WHERE} is damaged: ")  # it is not damaged: the new code doesn't fit it
        raise ReloadError(f"the new code does not fit the running state: {said}") from None
    fresh.add_systems_again(loaded, lambda error: ReloadError(f"{game.name}: systems(world) failed: {located(error)}"))
    loaded.ms_per_update = world.ms_per_update
    loaded.view_size = world.view_size
    changed = [name for name in ("WIDTH", "HEIGHT", "MS_PER_UPDATE", "PLAYERS")
               if fresh.setting(name, None) != game.setting(name, None)]
    if changed:  # the window and the loop were made for the old ones
        notes.append(f"{', '.join(changed)} changed: {'it takes' if len(changed) == 1 else 'they take'} effect when "
                     "the game is run again")
    return loaded, notes
