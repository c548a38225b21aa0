"""Loading a save: the file checked whole, its classes resolved, and only then a new world built from it.

A save may come from someone else, so loading is in three steps: the whole file is
checked against the format (``engine.world.save.check``: types, ranges, ids, sizes,
nesting, the engine version, ``last_id`` against the ids); each class name is resolved
among classes that already exist (the game's own and the engine's when a game is given;
never by importing a module, so a save naming ``antigravity:Entity`` runs nothing); only
then is a *new* world built. Any problem raises ``SaveError`` naming the file, the field
and the problem, and touches nothing else. (A loaded crowd's previous positions equal
its current ones: its first frame is drawn without interpolation.)

The world is made by the class the caller passes (``World.load`` passes itself) and
filled through ``Host`` (``engine.buffering``: the one protocol of a world), its spawner
(``engine.world.spawner``, which sits below ``World``) and its players
(``engine.world.players``): this package never imports ``engine.world.world``, so that
``World.load`` can delegate here without an import circle. All restoring of an entity's
engine-owned state is in ``_restore_entities``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from engine.buffering import Host
from engine.buffering.own import OwnBuffers, restore_own
from engine.buffering.shown import put_own
from engine.entity import LOOK, PARTS, Entity, entities_of_host
from engine.errors import mark_restored, missing_after_load
from engine.input.events import STICKS, InputEvent
from engine.messages import shown_name
from engine.schema import FieldError
from engine.state.looks import own_shown
from engine.state.values import decode
from engine.world.music import music_of
from engine.world.players import players_of
from engine.world.save.check import SaveError, check_game, check_world, music_beside, parse_save, read_save
from engine.world.spawner import spawner_of

if TYPE_CHECKING:
    from engine.world.save.check import Game

__all__ = ["load_world", "load_world_data", "load_world_text", "read_meta"]


W = TypeVar("W", bound=Host)


def _despawned_stubs(kinds: dict[int, type[Entity]]) -> dict[int, Entity]:
    """What a reference to a despawned entity loads as: an entity of its class, ``alive`` False, never spawned."""
    stubs: dict[int, Entity] = {}
    for entity_id, kind in kinds.items():
        stub = kind.__new__(kind)
        Entity.__init__(stub)
        stub.id = entity_id
        stubs[entity_id] = stub
    return stubs


def _restore_entities(world: Host, records: list[dict[str, Any]], kinds: list[type[Entity]], last_id: int,
                      dead: dict[int, Entity]) -> None:
    """Build every entity of a checked save into ``world``, with its old id, state, signals and previous values."""
    spawner = spawner_of(world)
    entities: dict[int, Entity] = {}
    for record, kind in zip(records, kinds):
        entity = kind.__new__(kind)
        # The engine's own attributes; the game's come from the save (and on_load).
        if isinstance(entity, OwnBuffers):
            restore_own(entity, record["crowd"])
        else:
            Entity.__init__(entity)
        mark_restored(entity)
        entities[record["id"]] = entity
    for record in records:
        entity = entities[record["id"]]
        for name, value in record["buffered"].items():
            setattr(entity, name, decode(value, entities, dead))
        generator = record["random"]
        spawner.restore_entity(entity, record["id"], {
            "signals": {name: decode(value, entities, dead) for name, value in record["signals"].items()},
            "previous_tick": record["previous"]["tick"],
            "previous": list(decode(record["previous"]["values"], entities, dead)),
            "random": None if generator is None else [generator[0], generator[1], decode(generator[2], {})],
        })
        for name, value in own_shown(record, f"entities (id {record['id']})", type(entity)).items():
            put_own(LOOK if name == "look" else PARTS, entity, value)
    spawner.restore_last_id(last_id)
    for record in records:
        entity = entities[record["id"]]
        for name, value in record["saved"].items():
            setattr(entity, name, decode(value, entities, dead))


def read_meta(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``meta`` a save was written with (the file checked as ``load_world`` checks it first)."""
    meta: dict[str, Any] = decode({"$dict": read_save(path)["meta"]}, {})
    return meta


def _music_track(track: str | dict[str, str], game: Game | None, where: str) -> str:
    """The file a save's music names: one inside its game's directory (``{"beside": ...}``) found in the directory
    of the game it is loaded with, wherever that lies; an absolute one (a save of 0.4) checked to lie in it."""
    if isinstance(track, dict):
        root = None if game is None else game.root
        if root is None:
            raise SaveError(f"{where} names its music inside its game's directory: load it with its game "
                            "(tickswap run GAME --load SAVE, or engine.testing.load_save)")
        return os.path.join(root, *music_beside(track, "world.music").split("/"))
    if game is not None and game.path is not None:
        _check_music_place(track, game.path, where)
    return track


def _check_music_place(track: str, game_path: Path, where: str) -> None:
    """A save of a known game resumes only music inside the game's own directory: a save is data,
    and must not make the engine stream whatever file it names."""
    root = (game_path if game_path.is_dir() else game_path.parent).resolve()
    place = Path(os.path.abspath(track)).resolve()
    if place != root and root not in place.parents:
        raise SaveError(f"{where}: world.music names {shown_name(track)}, outside its game's directory "
                        f"{shown_name(str(root))}: a save resumes only its own game's music")


_QueueState = tuple[list[InputEvent], frozenset[int], tuple[float, float], tuple[tuple[float, float], ...], bool]


def _queue_state(queued: dict[str, Any]) -> _QueueState:
    """One player's checked saved queue as ``InputQueue.set_state`` takes it."""
    events = [InputEvent.from_json(decode(event, {})) for event in queued["events"]]
    held = frozenset(decode(queued["held"], {}))
    mouse = tuple(decode(queued["mouse"], {}))
    sticks = tuple((float(x), float(y)) for x, y in queued.get("sticks", [[0.0, 0.0]] * STICKS))
    return events, held, (float(mouse[0]), float(mouse[1])), sticks, queued.get("connected", True)


def load_world(path: str | os.PathLike[str], game: Game | None = None, notes: list[str] | None = None, *,
               world_class: Callable[..., W]) -> W:
    """Read a save, check all of it, and build a new world from it; any problem raises ``SaveError``.

    With ``game``, the save must belong to it (``meta``) and its classes must be the
    game's or the engine's. Without, classes resolve among those already defined in
    this process. Nothing is ever imported. A save of a game file whose content changed
    since is loaded when everything in it fits; a line saying so is appended to ``notes``.
    ``world_class`` makes the new world from its seed and players (``World``: ``World.load``
    passes itself); the world has the saved players, each with their saved queue.
    """
    return load_world_data(read_save(path), shown_name(path), game, notes, world_class=world_class,
                           near=os.path.dirname(os.path.abspath(path)))


def load_world_text(text: str, where: str, game: Game | None = None, notes: list[str] | None = None, *,
                    world_class: Callable[..., W]) -> W:
    """As ``load_world``, from a save's text (a network session's late joiner, a recording that starts from a save).

    ``where`` names where the text came from in every message.
    """
    return load_world_data(parse_save(text, where), where, game, notes, world_class=world_class)


def load_world_data(data: dict[str, Any], where: str, game: Game | None = None, notes: list[str] | None = None, *,
                    world_class: Callable[..., W], near: str | None = None) -> W:
    """As ``load_world``, from a save document ``read_save`` or ``parse_save`` returned (checked whole first).

    ``near`` is the directory the save was read from, if any: without a game, a class name
    several loaded classes share may resolve to the one imported from there.
    """
    damaged, note = f"{where} is damaged", None
    try:
        if game is not None:
            damaged, note = check_game(data["meta"], game, where)
        info, records, kinds, dead_kinds = check_world(data, game, near=near)
        queues = [_queue_state(queued) for queued in [info["input"], *info.get("inputs", [])]]
    except SaveError:
        raise
    except FieldError as error:
        raise SaveError(f"{damaged}: {error}") from None
    except (TypeError, ValueError) as error:
        raise SaveError(f"{damaged}: world.input: {error}") from None
    if note is not None and notes is not None:
        notes.append(note)
    music = None if "music" not in info else (_music_track(info["music"][0], game, where), *info["music"][1:])
    seed = decode(info["seed"], {})
    # A world class made before players (a test's own subclass) still loads a save of one.
    world = world_class(seed=seed) if len(queues) == 1 else world_class(seed=seed, players=len(queues))
    try:
        if game is not None:  # the window's size is the game's, not the save's: as its build gives it
            world.view_size = game.view_size
        version, internal, gauss = info["random"]
        world.random.setstate((version, tuple(internal), gauss))
        world.tick_count = info["tick_count"]
        _restore_entities(world, records, kinds, info["last_id"], _despawned_stubs(dead_kinds))
        for player, (events, held, mouse, sticks, connected) in enumerate(queues):
            players_of(world).queues[player].set_state(events, held, mouse, sticks, connected)
        if music is not None:  # an effect, asked for again: the runner resumes it after the load
            track, loop, volume = music
            music_of(world).resume(track, loop, volume, world.tick_count)
        for entity in entities_of_host(world):
            entity.on_load(world)
    except BaseException as error:
        world.close()
        if isinstance(error, Exception):
            missing = missing_after_load(error)  # on_load read an attribute the save did not keep
            said = f"{type(error).__name__}: {error}" if missing is None else missing
            raise SaveError(f"{where} cannot be loaded: {said}") from error
        raise
    return world
