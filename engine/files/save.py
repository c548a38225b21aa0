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

import base64
import binascii
import json
import os
import re
import sys
from typing import TYPE_CHECKING, Any

import esper

import engine
from engine.buffering.access import committed_values, saved_state
from engine.crowd import Crowd
from engine.entity import Entity
from engine.files.atomic import AtomicFile, OutputError
from engine.files.game import public_module_name
from engine.files.reading import NotAFile, read_bounded
from engine.files.schema import (
    FieldError,
    display_name,
    expect_keys,
    expect_number,
    expect_str,
    expect_whole,
    is_whole,
    parse_json,
    show_value,
    version_matches,
)
from engine.files.values import (
    MAX_ID,
    DeadReference,
    NotSaveable,
    check_like_default,
    check_value,
    decode,
    encode,
)
from engine.input import InputEvent
from engine.world import World

if TYPE_CHECKING:
    from engine.files.game import Game

__all__ = ["FORMAT", "VERSION", "SaveError", "load_world", "read_meta", "save_world"]

FORMAT = "tickswap-save"
"""The ``format`` field of every save file."""
VERSION = 2
"""The save format version this tickswap writes and reads (2: checked fields, non-finite floats tagged)."""
MAX_SAVE_BYTES = 512 * 1024 * 1024
"""A save larger than this is refused before it is read."""
MAX_ENTITIES = 1_000_000
MAX_TICKS = 2**63 - 1
MAX_CROWD_BYTES = 2 * 1024**3
"""The most memory a loaded crowd may ask for (capacity x columns x 3 buffers x 4 bytes)."""
_CLASS_NAME = re.compile(r"[A-Za-z_][\w.]{0,199}:[A-Za-z_][\w.<>]{0,199}")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w{0,99}")
_VERSION = re.compile(r"\d{1,6}(\.\d{1,6}){1,3}([.+-][A-Za-z0-9.+-]{1,40})?")


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
        "previous": {"tick": buffers["previous_tick"],
                     "values": encode(tuple(buffers["previous"]), f"{where} (previous values)")},
        "random": None if generator is None else [generator[0], generator[1], encode(generator[2], where)],
    }


_ENTITY_KEYS = ("crowd", "id", "class", "buffered", "saved", "signals", "previous", "random")


def _is_number(value: Any) -> bool:
    """A saved number: an int or float (not a bool), or a tagged non-finite float."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) or (
        isinstance(value, dict) and "$float" in value)


def _check_random_state(state: Any, where: str) -> None:
    """A ``random.Random.getstate()`` as JSON: [3, 625 words, gauss or null]."""
    if not (isinstance(state, list) and len(state) == 3 and state[0] == 3 and isinstance(state[1], list)
            and len(state[1]) == 625):
        raise FieldError(f"{where} is not the state of a Python random generator")
    for word in state[1][:624]:
        expect_whole(word, where, 0, 2**32 - 1)
    expect_whole(state[1][624], where, 1, 624)
    if state[2] is not None:
        expect_number(state[2], f"{where} (gauss)", -1e308, 1e308)


def _check_entity_record(record: Any, where: str, kind: type[Entity], ids: set[int], tick_count: int,
                         dead: list[DeadReference]) -> None:
    """Check one entity record against its class (called once the class is resolved)."""
    expect_keys(record, where, _ENTITY_KEYS)
    defaults = kind.buffered_fields()
    names = tuple(defaults)
    buffered = expect_keys(record["buffered"], f"{where}.buffered", names)
    for name, value in buffered.items():
        check_value(value, f"{where}.{name}", ids, dead)
        check_like_default(value, defaults[name], f"{where}.{name}")
    saved = expect_keys(record["saved"], f"{where}.saved", kind.saved)
    for name, value in saved.items():
        check_value(value, f"{where}.{name}", ids, dead)
    signals = record["signals"]
    declared = kind._layout.signals
    if not isinstance(signals, dict):
        raise FieldError(f"{where}.signals must be an object of signal name -> value")
    for name, value in signals.items():
        if name not in declared:
            raise FieldError(f"{where}.signals names {str(name)[:40]!r}, which {kind.__name__} does not declare")
        check_value(value, f"{where}.signals.{name}", ids, dead)
        combine = declared[name].combine
        if combine is None and value is not True:
            raise FieldError(f"{where}.signals.{name} is a flag: it can only be true, got {value!r:.40}")
        # A valued signal declares no type; its combined value is checked where the combine says what it makes.
        if combine is sum and not _is_number(value):
            raise FieldError(f"{where}.signals.{name} is signal(sum): its value must be a number, got {value!r:.40}")
        if combine is tuple and not (isinstance(value, dict) and "$tuple" in value):
            raise FieldError(f"{where}.signals.{name} is signal(tuple): its value must be a $tuple, got {value!r:.40}")
    previous = expect_keys(record["previous"], f"{where}.previous", ("tick", "values"))
    expect_whole(previous["tick"], f"{where}.previous.tick", -1, tick_count)
    values = previous["values"]
    listed = values.get("$tuple") if isinstance(values, dict) else None
    if not (isinstance(listed, list) and len(listed) == len(names)):
        raise FieldError(f"{where}.previous.values must be a $tuple of the {len(names)} buffered values")
    for name, value in zip(names, values["$tuple"]):
        check_value(value, f"{where}.previous.{name}", ids, dead)
        check_like_default(value, defaults[name], f"{where}.previous.{name}")
    if record["random"] is not None:
        _check_random_state(record["random"], f"{where}.random")
    crowd = record["crowd"]
    if not issubclass(kind, Crowd):
        if crowd is not None:
            raise FieldError(f"{where}.crowd must be null: {kind.__name__} is not a Crowd")
        return
    crowd = expect_keys(crowd, f"{where}.crowd", ("capacity", "count", "fields"))
    columns = sum(kind.fields.values())
    limit = max(1, MAX_CROWD_BYTES // (12 * max(1, columns)))
    capacity = expect_whole(crowd["capacity"], f"{where}.crowd.capacity", 1, limit)
    count = expect_whole(crowd["count"], f"{where}.crowd.count", 0, capacity)
    fields = expect_keys(crowd["fields"], f"{where}.crowd.fields", tuple(kind.fields))
    for name, encoded in fields.items():
        expect_str(encoded, f"{where}.crowd.fields.{name}", MAX_SAVE_BYTES)
        try:
            size = len(base64.b64decode(encoded, validate=True))
        except (binascii.Error, ValueError):
            raise FieldError(f"{where}.crowd.fields.{name} is not base64") from None
        if size != count * kind.fields[name] * 4:
            raise FieldError(f"{where}.crowd.fields.{name} holds {size} bytes; {count} members need "
                             f"{count * kind.fields[name] * 4}")


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
        "engine": engine.__version__,
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
        text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    except SaveError:
        raise
    except NotSaveable as error:
        raise SaveError(str(error)) from None
    except (TypeError, ValueError, RecursionError) as error:
        raise SaveError(f"cannot save the world to {os.fspath(path) or repr('')}: {type(error).__name__}: "
                        f"{error}") from None
    try:
        with AtomicFile(path) as output:
            output.open("w").write(text)
            output.commit()
    except OutputError as error:
        raise SaveError(f"cannot write the save: {error}") from None
    except OSError as error:
        raise SaveError(f"cannot write the save {os.fspath(path)}: {error.strerror or error}") from None


# -- reading -----------------------------------------------------------------------------


def _read(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The file parsed with bounds, with the right format, version and engine version, and a valid ``meta``."""
    if not os.fspath(path):
        raise SaveError("the save file name is empty")
    where = display_name(path)
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
        raise SaveError(f"{where} is save format version {show_value(data.get('version'))}; "
                        f"this tickswap reads version {VERSION}")
    try:
        expect_keys(data, "the save", ("format", "version", "engine", "world", "entities", "meta"))
        written = expect_str(data["engine"], "engine", 64, _VERSION)
        meta = data["meta"]
        if not isinstance(meta, dict):
            raise FieldError("meta must be an object")
        for key, value in meta.items():
            check_value(value, f"meta.{key:.40}", set())
        if "game" in meta:
            expect_str(meta["game"], "meta.game", 255)
        if meta.get("game_digest") is not None:
            expect_str(meta["game_digest"], "meta.game_digest", 64, re.compile(r"[0-9a-f]{64}"))
    except FieldError as error:
        raise SaveError(f"{where} is damaged: {error}") from None
    if not version_matches(written, engine.__version__):
        raise SaveError(f"{where} was saved by tickswap {written}; this is tickswap {engine.__version__}")
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


def _entity_classes() -> dict[str, type[Entity] | None]:
    """Every Entity class that exists in this process, by ``module:qualname`` (imports nothing).

    A name that two loaded game files share (``game:Ball`` of two files) maps to ``None``:
    which one a save means is then for the caller to say, by passing the game.
    """
    found: dict[str, type[Entity] | None] = {}
    stack: list[type[Entity]] = [Entity]
    seen: set[type[Entity]] = set()
    while stack:
        kind = stack.pop()
        if kind in seen:
            continue
        seen.add(kind)
        name = f"{public_module_name(kind.__module__)}:{kind.__qualname__}"
        found[name] = kind if found.get(name, kind) is kind else None
        stack.extend(kind.__subclasses__())
    return found


def _entity_class(name: str, where: str, game: Game | None, classes: dict[str, type[Entity] | None]
                  ) -> type[Entity]:
    """The class a save names, among the game's own classes and the engine's (never by importing)."""
    public, _, qualname = name.partition(":")
    # A game file's classes are saved as game:Qualname, whatever the file is called now.
    module = game.real_module_name(public) if game is not None else public
    is_engine = module == "engine" or module.startswith("engine.")
    if game is not None and not (is_engine or game.owns_module(module)):
        raise FieldError(f"{where} names class {name!r}, which is not one of {game.name}'s classes or the engine's")
    if game is not None and not is_engine:
        # Looked up in the game's own module (never imported, never another copy of it).
        found: Any = game.module if module == (game.module_name or game.module.__name__) else sys.modules.get(module)
        for part in qualname.split("."):
            found = vars(found).get(part) if hasattr(found, "__dict__") else None
        if (isinstance(found, type) and issubclass(found, Entity) and found.__module__ == module
                and found.__qualname__ == qualname):
            return found
        raise FieldError(f"{where} names class {name!r}, which is no Entity class of {game.name}")
    if name in classes and classes[name] is None:
        raise FieldError(f"{where} names class {name!r}, which more than one loaded game file has: load the save "
                         "with its game (tickswap run GAME --load FILE)")
    kind = classes.get(name)
    if kind is None:
        owner = f"{game.name} has no such Entity class" if game is not None else "is no Entity class loaded here"
        raise FieldError(f"{where} names class {name!r}, which {owner}")
    return kind


def _check(data: dict[str, Any], game: Game | None
           ) -> tuple[dict[str, Any], list[dict[str, Any]], list[type[Entity]], dict[int, type[Entity]]]:
    """Check the world and every entity record; returns them with each record's class, and despawned ones'."""
    info = expect_keys(data["world"], "world", ("tick_count", "seed", "random", "last_id", "input"))
    tick_count = expect_whole(info["tick_count"], "world.tick_count", 0, MAX_TICKS)
    seed = info["seed"]
    if isinstance(seed, str):
        expect_str(seed, "world.seed", 1000)
    else:
        expect_whole(seed, "world.seed", -(2**64), 2**64)
    _check_random_state(info["random"], "world.random")
    last_id = expect_whole(info["last_id"], "world.last_id", 0, MAX_ID)
    records = data["entities"]
    if not isinstance(records, list) or len(records) > MAX_ENTITIES:
        raise FieldError(f"entities must be a list of at most {MAX_ENTITIES}")
    ids: set[int] = set()
    for index, record in enumerate(records):
        record = expect_keys(record, f"entities[{index}]", _ENTITY_KEYS)
        entity_id = expect_whole(record["id"], f"entities[{index}].id", 1, MAX_ID)
        if entity_id in ids:
            raise FieldError(f"entities[{index}].id {entity_id} is used twice")
        ids.add(entity_id)
    if ids and last_id < max(ids):
        raise FieldError(f"world.last_id is {last_id}, below entity id {max(ids)}: new entities would reuse ids")
    queued = expect_keys(info["input"], "world.input", ("events", "held", "mouse"))
    if not isinstance(queued["events"], list) or len(queued["events"]) > 100_000:
        raise FieldError("world.input.events must be a list")
    for value in (queued["events"], queued["held"], queued["mouse"]):
        check_value(value, "world.input", set())
    mouse = decode(queued["mouse"], {})
    if not (isinstance(mouse, list) and len(mouse) == 2):
        raise FieldError("world.input.mouse must be [x, y]")
    for value in mouse:
        expect_number(value, "world.input.mouse", -1e9, 1e9)
    if not isinstance(decode(queued["held"], {}), frozenset):
        raise FieldError("world.input.held must be a $set of keys")
    classes = _entity_classes()
    kinds = []
    dead: list[DeadReference] = []
    for index, record in enumerate(records):
        where = f"entities[{index}] (id {record['id']})"
        name = expect_str(record["class"], f"{where}.class", 401, _CLASS_NAME)
        kind = _entity_class(name, where, game, classes)
        _check_entity_record(record, where, kind, ids, tick_count, dead)
        kinds.append(kind)
    dead_kinds: dict[int, type[Entity]] = {}
    for dead_id, name, where in dead:
        if not _CLASS_NAME.fullmatch(name):
            raise FieldError(f"{where} names a despawned entity's class {name[:60]!r}, which is not a class name")
        if dead_id > last_id:
            raise FieldError(f"{where} refers to despawned entity {dead_id}, above world.last_id {last_id}")
        kind = _entity_class(name, where, game, classes)
        if dead_kinds.setdefault(dead_id, kind) is not kind:
            raise FieldError(f"{where} gives despawned entity {dead_id} two different classes")
    return info, records, kinds, dead_kinds


def load_world(path: str | os.PathLike[str], game: Game | None = None, notes: list[str] | None = None) -> World:
    """Read a save, check all of it, and build a new world from it; any problem raises ``SaveError``.

    With ``game``, the save must belong to it (``meta``) and its classes must be the
    game's or the engine's. Without, classes resolve among those already defined in
    this process. Nothing is ever imported. A save of a game file whose content changed
    since is loaded when everything in it fits; a line saying so is appended to ``notes``.
    """
    where = os.fspath(path)
    data = _read(path)
    damaged, note = f"{where} is damaged", None
    try:
        if game is not None:
            damaged, note = _check_game(data["meta"], game, where)
        info, records, kinds, dead_kinds = _check(data, game)
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
        if digest is not None or saved != game.name:
            raise SaveError(f"{where} is a save of another game, {saved!r}, not of {game.name!r}")
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
