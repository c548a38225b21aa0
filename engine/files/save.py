"""Save and load whole worlds: versioned JSON, written atomically, checked before anything is built.

A save holds everything a world needs to continue exactly as the original would, hash for
hash: every entity's class, esper id, buffered values, committed signals, previous values
and declared ``saved`` attributes (references to other entities are stored as ids, and
to despawned ones as ``$dead`` with their class: they load as despawned stubs), each
crowd's capacity and committed member arrays, the tick count, the state of
``world.random``, the id counter and the input queue, and ``meta``: which game it belongs
to (its name, and for a game file the digest of its content). (A loaded crowd's previous
positions equal its current ones: its first frame is drawn without interpolation.)

Writing goes through ``engine.files.atomic``: a temporary file beside the target, synced,
renamed over it; a crash mid-save leaves the previous save intact, and the target's mode
and symbolic links are kept. Anything that cannot be written *and read back* (an
object, a NaN is fine, a 100-digit integer is not) raises ``SaveError`` before the file
is touched.

A save may come from someone else, so loading is in three steps: the whole file is
checked against the format (``_check``: types, ranges, ids, sizes, nesting, the engine
version, ``last_id`` against the ids); each class name is resolved among classes that
already exist (the game's own and the engine's when a game is given; never by importing
a module, so a save naming ``antigravity:Entity`` runs nothing); only then is a *new*
world built. Any problem raises ``SaveError`` naming the file, the field and the problem,
and touches nothing else.

All reading and writing of an entity's engine-owned state is in two functions,
``_entity_record`` and ``_restore_entities``: the double buffer's owner can change how
that state is kept without touching the rest of this module.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import esper

from engine.buffering.access import committed_values, saved_state
from engine.crowd import Crowd
from engine.entity import Entity
from engine.files.atomic import AtomicFile, OutputError
from engine.files.reading import NotAFile, read_bounded
from engine.files.save_format import (
    FORMAT,
    MAX_SAVE_BYTES,
    VERSION,
    check_document,
    check_world,
    entity_classes,
)
from engine.files.schema import FieldError, is_whole, parse_json, version_matches
from engine.files.values import NotSaveable, decode, encode
from engine.input import InputEvent
from engine.messages import shown, shown_name
from engine.names import __version__, public_module_name
from engine.world import World

if TYPE_CHECKING:
    from engine.files.game import Game

__all__ = ["FORMAT", "VERSION", "SaveError", "load_world", "read_meta", "save_world"]

class SaveError(ValueError):
    """A world could not be saved or loaded; the message names the file and the problem."""


def _entity_record(world: World, entity: Entity) -> dict[str, Any]:
    """Everything a save keeps of ``entity``: class, id, buffered state, the buffers' own state, crowd."""
    kind = type(entity)
    where = f"{kind.__name__} (id {entity.id})"
    assert entity.id is not None
    components: tuple[Any, ...] = esper.components_for_entity(entity.id)
    extra = [type(component).__name__ for component in components if component is not entity]
    if extra:
        raise SaveError(f"{where} has esper components a save cannot hold: {', '.join(extra)}")
    missing = [name for name in kind.saved if not hasattr(entity, name)]
    if missing:
        raise SaveError(f"{where} declares saved attributes it does not have: {', '.join(missing)}")
    crowd = {"capacity": entity.capacity, **entity.arrays_for_save()} if isinstance(entity, Crowd) else None
    buffers = saved_state(entity)
    generator = buffers["random"]
    return {
        "crowd": crowd,
        "id": entity.id,
        "class": f"{public_module_name(kind.__module__)}:{kind.__qualname__}",
        "buffered": {name: encode(value, f"{where}.{name}") for name, value in committed_values(entity).items()},
        "saved": {name: encode(getattr(entity, name), f"{where}.{name}") for name in kind.saved},
        "signals": {name: encode(value, f"{where}.{name}") for name, value in sorted(buffers["signals"].items())},
        # Each previous value encoded on its own: they sit deepest in a save, and encode's depth limit is theirs.
        "previous": {"tick": buffers["previous_tick"],
                     "values": {"$tuple": [encode(value, f"{where} (previous values)")
                                           for value in buffers["previous"]]}},
        "random": None if generator is None else [generator[0], generator[1], encode(generator[2], where)],
    }


def _despawned_stubs(kinds: dict[int, type[Entity]]) -> dict[int, Entity]:
    """What a reference to a despawned entity loads as: an entity of its class, ``alive`` False, never spawned."""
    stubs: dict[int, Entity] = {}
    for entity_id, kind in kinds.items():
        stub = kind.__new__(kind)
        Entity.__init__(stub)
        stub.id = entity_id
        stubs[entity_id] = stub
    return stubs


def _restore_entities(world: World, records: list[dict[str, Any]], kinds: list[type[Entity]], last_id: int,
                      dead: dict[int, Entity]) -> None:
    """Build every entity of a checked save into ``world``, with its old id, state, signals and previous values."""
    entities: dict[int, Entity] = {}
    for record, kind in zip(records, kinds):
        entity = kind.__new__(kind)
        # The engine's own attributes; the game's come from the save (and on_load).
        if isinstance(entity, Crowd):
            Crowd.__init__(entity, record["crowd"]["capacity"])
            entity.restore_arrays(record["crowd"])
        else:
            Entity.__init__(entity)
        entities[record["id"]] = entity
    for record in records:
        entity = entities[record["id"]]
        for name, value in record["buffered"].items():
            setattr(entity, name, decode(value, entities, dead))
        generator = record["random"]
        world.restore_entity(entity, record["id"], {
            "signals": {name: decode(value, entities, dead) for name, value in record["signals"].items()},
            "previous_tick": record["previous"]["tick"],
            "previous": list(decode(record["previous"]["values"], entities, dead)),
            "random": None if generator is None else [generator[0], generator[1], decode(generator[2], {})],
        })
    world.restore_last_id(last_id)
    for record in records:
        entity = entities[record["id"]]
        for name, value in record["saved"].items():
            setattr(entity, name, decode(value, entities, dead))


# -- writing -----------------------------------------------------------------------------


def _world_data(world: World) -> dict[str, Any]:
    if world.ticking:
        raise SaveError("a world can only be saved between ticks")
    with world.esper_context():
        entities = [_entity_record(world, entity) for entity in world.entities]
    events, held, mouse = world.input_queue.state()
    version, internal, gauss = world.random.getstate()
    return {
        "format": FORMAT,
        "version": VERSION,
        "engine": __version__,
        "world": {
            "tick_count": world.tick_count,
            "seed": encode(world.seed, "World.seed"),
            "random": [version, list(internal), encode(gauss, "world.random")],
            "last_id": world.last_id,
            "input": {"events": [encode(event.to_json(), "a queued input event") for event in events],
                      "held": encode(held, "held keys"), "mouse": encode(list(mouse), "the mouse position")},
        },
        "entities": entities,
    }


def save_world(world: World, path: str | os.PathLike[str], meta: dict[str, Any] | None = None) -> None:
    """Write ``world`` to ``path`` atomically (see the module docstring); any problem raises ``SaveError``.

    ``meta`` is stored as it is (the command line records the game's name and digest there).
    """
    try:
        data = _world_data(world)
        data["meta"] = encode(dict(meta or {}), "meta")["$dict"]
        _check_written(world, data)
        text = json.dumps(data, separators=(",", ":"), allow_nan=False)
        if len(text) > MAX_SAVE_BYTES:
            raise SaveError(f"the save would be {len(text):,} bytes, more than a save may be ({MAX_SAVE_BYTES:,})")
    except SaveError:
        raise
    except NotSaveable as error:
        raise SaveError(str(error)) from None
    except (TypeError, ValueError, RecursionError) as error:
        raise SaveError(f"cannot save the world to {shown_name(path)}: {type(error).__name__}: "
                        f"{error}") from None
    try:
        with AtomicFile(path) as output:
            output.open("w").write(text)
            output.commit()
    except OutputError as error:
        raise SaveError(f"cannot write the save: {error}") from None
    except OSError as error:
        raise SaveError(f"cannot write the save {shown_name(path)}: {error.strerror or error}") from None


def _check_written(world: World, data: dict[str, Any]) -> None:
    """Run the reader's own checks on what is about to be written: what it would refuse is refused now, by name.

    Classes resolve to the very classes of the world's entities (a game's classes are
    otherwise resolved against the game, which the writer is not given).
    """
    classes = entity_classes()
    for record, entity in zip(data["entities"], world.entities):
        classes[record["class"]] = type(entity)
    try:
        check_document(data)
        check_world(data, None, classes, writing=True)
    except FieldError as error:
        raise SaveError(f"cannot save the world: {error}; a save that could not be read back is not written") from None


# -- reading -----------------------------------------------------------------------------


def _read(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The file parsed with bounds, with the right format, version and engine version, and a valid ``meta``."""
    if not os.fspath(path):
        raise SaveError("the save file name is empty")
    where = shown_name(path)
    try:
        # Bounded by the bytes read, not st_size (/dev/zero has none); FIFOs and devices refused by name.
        text = read_bounded(path, MAX_SAVE_BYTES, "the save").decode("utf-8")
    except NotAFile as error:
        raise SaveError(str(error)) from None
    except UnicodeDecodeError:
        raise SaveError(f"cannot read the save {where}: it is not UTF-8 text") from None
    try:
        data = parse_json(text)
    except FieldError as error:
        raise SaveError(f"{where} is damaged: {error}") from None
    except json.JSONDecodeError as error:
        if _is_replay(text):
            raise SaveError(f"{where} is a replay (a recording made with --record), not a save: "
                            f"replay it with tickswap replay {where}") from None
        raise SaveError(f"{where} is damaged: not valid JSON at line {error.lineno}, column {error.colno} "
                        f"({error.msg}); truncated?") from None
    except ValueError as error:
        raise SaveError(f"{where} is damaged: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveError(f"{where} is not a tickswap save (no format {FORMAT!r})")
    if not (is_whole(data.get("version")) and data["version"] == VERSION):
        raise SaveError(f"{where} is save format version {shown(data.get('version'))}; "
                        f"this tickswap reads version {VERSION}")
    try:
        written = check_document(data)["engine"]
    except FieldError as error:
        raise SaveError(f"{where} is damaged: {error}") from None
    if not version_matches(written, __version__):
        raise SaveError(f"{where} was saved by tickswap {written}; this is tickswap {__version__}")
    return data


def _is_replay(text: str) -> bool:
    """Whether ``text`` starts with a tickswap replay's header line (so a save is not what it is)."""
    first = text.split("\n", 1)[0]
    try:
        header = json.loads(first) if len(first) < 4096 else None
    except ValueError:
        return False
    return isinstance(header, dict) and header.get("format") == "tickswap-replay"


def read_meta(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``meta`` a save was written with (the file checked as ``load_world`` checks it first)."""
    meta: dict[str, Any] = decode({"$dict": _read(path)["meta"]}, {})
    return meta


def load_world(path: str | os.PathLike[str], game: Game | None = None, notes: list[str] | None = None) -> World:
    """Read a save, check all of it, and build a new world from it; any problem raises ``SaveError``.

    With ``game``, the save must belong to it (``meta``) and its classes must be the
    game's or the engine's. Without, classes resolve among those already defined in
    this process. Nothing is ever imported. A save of a game file whose content changed
    since is loaded when everything in it fits; a line saying so is appended to ``notes``.
    """
    where = shown_name(path)
    data = _read(path)
    damaged, note = f"{where} is damaged", None
    try:
        if game is not None:
            damaged, note = _check_game(data["meta"], game, where)
        info, records, kinds, dead_kinds = check_world(data, game)
        queued = info["input"]
        events = [InputEvent.from_json(decode(event, {})) for event in queued["events"]]
        held = frozenset(decode(queued["held"], {}))
        mouse = tuple(decode(queued["mouse"], {}))
    except SaveError:
        raise
    except FieldError as error:
        raise SaveError(f"{damaged}: {error}") from None
    except (TypeError, ValueError) as error:
        raise SaveError(f"{damaged}: world.input: {error}") from None
    if note is not None and notes is not None:
        notes.append(note)
    world = World(seed=decode(info["seed"], {}))
    try:
        version, internal, gauss = info["random"]
        world.random.setstate((version, tuple(internal), gauss))
        world.tick_count = info["tick_count"]
        _restore_entities(world, records, kinds, info["last_id"], _despawned_stubs(dead_kinds))
        world.input_queue.set_state(events, held, (float(mouse[0]), float(mouse[1])))
        for entity in world.entities:
            entity.on_load(world)
    except BaseException as error:
        world.close()
        if isinstance(error, Exception):
            raise SaveError(f"{where} cannot be loaded: {type(error).__name__}: {error}") from error
        raise
    return world


def _check_game(meta: dict[str, Any], game: Game, where: str) -> tuple[str, str | None]:
    """Whether the save is ``game``'s: returns how to prefix a problem found later, and a note to print.

    A game file whose content (or name) changed since the save is not refused here: its
    classes and fields are checked like any save's, and only what does not fit is refused.
    """
    saved = meta.get("game")
    if saved is None:
        raise SaveError(f"{where}: meta names no game: this save was not written by tickswap run, so which game it "
                        "belongs to is unknown")
    digest = meta.get("game_digest")
    if not game.is_file:
        if digest is not None:
            raise SaveError(f"{where} is a save of the game file {shown(saved)}, not of the registered game "
                            f"{game.name!r}")
        if saved != game.name:
            raise SaveError(f"{where} is a save of another game, {shown(saved)}, not of {game.name!r}")
        return f"{where} is damaged", None
    if digest is None:
        raise SaveError(f"{where} is a save of another game, the registered game {saved!r}, not of the game file "
                        f"{game.name}")
    if digest == game.digest:
        return f"{where} is damaged", None
    if saved != game.name:
        return (f"{where} is a save of another game, {saved}, not of {game.name}",
                f"{where} was saved by {saved}; its classes and fields fit {game.name}, so it is loaded into it")
    changed = (f"the game file changed since it was saved (digest {digest[:12]}, now "
               f"{(game.digest or '')[:12]})")
    return f"{where}: {changed}, and the save no longer fits it", f"{where}: {changed}; every class and field fits"
