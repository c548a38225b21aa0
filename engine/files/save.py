"""Save and load whole worlds: versioned JSON, written atomically, refused cleanly when damaged.

A save holds everything a world needs to continue exactly as the original would, hash for
hash: every entity's class, esper id, buffered values, committed signals, previous values
and declared ``saved`` attributes (references to other entities are stored as ids), each
crowd's capacity and committed member arrays, the tick count, the state of
``world.random``, the id counter and the input queue. (A loaded crowd's previous
positions equal its current ones: its first frame is drawn without interpolation.)

Writing goes to a temporary file beside the target, is flushed and synced to disk, then
renamed over the target: a crash mid-save leaves the previous save intact. Loading builds
a *new* world, so a damaged file (truncated, malformed, the wrong version, an unknown
entity class) raises ``SaveError`` naming the file and the problem and touches nothing.
"""

from __future__ import annotations

import importlib
import itertools
import json
import os
import random
from pathlib import Path
from typing import Any

import esper

import engine
from engine.buffering import restore_state, saved_state
from engine.crowd import Crowd
from engine.entity import Entity
from engine.input import InputEvent
from engine.world import World

__all__ = ["FORMAT", "VERSION", "SaveError", "load_world", "read_meta", "save_world"]

FORMAT = "tickswap-save"
"""The ``format`` field of every save file."""
VERSION = 1
"""The save format version this tickswap writes and reads."""


class SaveError(ValueError):
    """A world could not be saved or loaded; the message names the file and the problem."""


def _encode(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Entity):
        if value.id is None:
            raise SaveError(f"{where} refers to an entity that was never spawned")
        return {"$entity": value.id}
    if isinstance(value, tuple):
        return {"$tuple": [_encode(item, where) for item in value]}
    if isinstance(value, list):
        return [_encode(item, where) for item in value]
    if isinstance(value, (set, frozenset)):
        return {"$set": sorted((_encode(item, where) for item in value), key=repr)}
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {"$dict": {key: _encode(item, where) for key, item in value.items()}}
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _encode(value.item(), where)
    raise SaveError(f"{where} holds {value!r}, which a save cannot hold: use numbers, strings, tuples, lists, "
                    "dicts or entities, or rebuild it in on_load()")


def _decode(value: Any, entities: dict[int, Entity]) -> Any:
    if isinstance(value, list):
        return [_decode(item, entities) for item in value]
    if isinstance(value, dict):
        if "$entity" in value:
            return entities[value["$entity"]]
        if "$tuple" in value:
            return tuple(_decode(item, entities) for item in value["$tuple"])
        if "$set" in value:
            return frozenset(_decode(item, entities) for item in value["$set"])
        if "$dict" in value:
            return {key: _decode(item, entities) for key, item in value["$dict"].items()}
        raise ValueError(f"unknown value {value!r}")
    return value


def _world_data(world: World) -> dict[str, Any]:
    if world.ticking:
        raise SaveError("a world can only be saved between ticks")
    entities = []
    with world.esper_context():
        for entity in world.entities:
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
            crowd = ({"capacity": entity.capacity, **entity.arrays_for_save()}
                     if isinstance(entity, Crowd) else None)
            entities.append({
                "crowd": crowd,
                "id": entity.id,
                "class": f"{kind.__module__}:{kind.__qualname__}",
                "buffered": {name: _encode(value, f"{where}.{name}") for name, value in entity.buffered_state().items()},
                "saved": {name: _encode(getattr(entity, name), f"{where}.{name}") for name in kind.saved},
                "buffers": _encode(saved_state(entity), f"{where} (buffers)"),
            })
    events, held, mouse = world.input_queue.state()
    version, internal, gauss = world.random.getstate()
    return {
        "format": FORMAT,
        "version": VERSION,
        "engine": engine.__version__,
        "world": {
            "tick_count": world.tick_count,
            "seed": _encode(world.seed, "World.seed"),
            "random": [version, list(internal), gauss],
            "last_id": world._last_id,
            "input": {"events": [event.to_json() for event in events],
                      "held": _encode(held, "held keys"), "mouse": list(mouse)},
        },
        "entities": entities,
    }


def save_world(world: World, path: str | os.PathLike[str], meta: dict[str, Any] | None = None) -> None:
    """Write ``world`` to ``path`` atomically (see the module docstring).

    ``meta`` is stored as it is (the command line records the game's name there).
    """
    target = Path(path)
    data = _world_data(world)
    data["meta"] = dict(meta or {})
    text = json.dumps(data, separators=(",", ":"))
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise SaveError(f"cannot write the save {target}: {error}") from error


def _entity_class(name: str) -> type[Entity]:
    module_name, _, qualname = name.partition(":")
    module = importlib.import_module(module_name)
    found: Any = module
    for part in qualname.split("."):
        found = getattr(found, part)
    if not (isinstance(found, type) and issubclass(found, Entity)):
        raise TypeError(f"{name} is not an Entity class")
    return found


def _read(path: str | os.PathLike[str]) -> dict[str, Any]:
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SaveError(f"cannot read the save {where}: {error}") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SaveError(f"{where} is damaged: not valid JSON at line {error.lineno}, column {error.colno} "
                        f"({error.msg}); truncated?") from error
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveError(f"{where} is not a tickswap save (no format {FORMAT!r})")
    if data.get("version") != VERSION:
        raise SaveError(f"{where} is save format version {data.get('version')!r}; "
                        f"this tickswap reads version {VERSION}")
    return data


def read_meta(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``meta`` a save was written with (checked the same way as ``load_world``)."""
    data = _read(path)
    meta = data.get("meta", {})
    return meta if isinstance(meta, dict) else {}


def load_world(path: str | os.PathLike[str]) -> World:
    """Read a save and build a new world from it; any problem raises ``SaveError``."""
    where = str(path)
    data = _read(path)
    world: World | None = None
    try:
        info = data["world"]
        world = World(seed=_decode(info["seed"], {}))
        version, internal, gauss = info["random"]
        world.random.setstate((version, tuple(internal), gauss))
        world.tick_count = int(info["tick_count"])
        records = data["entities"]
        entities: dict[int, Entity] = {}
        for record in records:
            kind = _entity_class(record["class"])
            entity = kind.__new__(kind)
            # The engine's own attributes; the game's come from the save (and on_load).
            if isinstance(entity, Crowd):
                Crowd.__init__(entity, int(record["crowd"]["capacity"]))
                entity.restore_arrays(record["crowd"])
            else:
                Entity.__init__(entity)
            entities[int(record["id"])] = entity
        with world.esper_context():
            for record in records:
                entity = entities[int(record["id"])]
                for name, value in record["buffered"].items():
                    setattr(entity, name, _decode(value, entities))
                # esper hands out ids from a counter; set it so each entity gets its old id.
                esper._entity_count = itertools.count(int(record["id"]))
                world.spawn(entity)
                state = _decode(record["buffers"], entities)
                restore_state(entity, state)
                world._buffers.committed_signals(entity, state["signals"])
            esper._entity_count = itertools.count(int(info["last_id"]) + 1)
        world._last_id = int(info["last_id"])
        for record in records:
            entity = entities[int(record["id"])]
            for name, value in record["saved"].items():
                setattr(entity, name, _decode(value, entities))
        queued = info["input"]
        world.input_queue.set_state([InputEvent.from_json(event) for event in queued["events"]],
                                    frozenset(_decode(queued["held"], entities)), tuple(queued["mouse"]))
        for entity in entities.values():
            entity.on_load(world)
    except SaveError:
        if world is not None:
            world.close()
        raise
    except (KeyError, TypeError, ValueError, AttributeError, ImportError) as error:
        if world is not None:
            world.close()
        raise SaveError(f"{where} cannot be loaded: {type(error).__name__}: {error}") from error
    return world
