"""Snapshots and state hashes: a world's buffered state as plain data, and a stable digest of it.

The hash must be the same for the same history in every process and on every machine,
so the snapshot holds only values that print the same everywhere: numbers (floats by
their shortest round-trip repr), strings, lists, and class names by where their module's
file lies (``engine.state.names.class_name``: never the name a module was imported under,
and a game file's module is ``game``). Nothing derived from ``hash()``, ``id()``, set order,
import names or absolute paths reaches it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from engine.buffering import Host
from engine.buffering.access import signals_of
from engine.buffering.shown import HIDDEN, Shown, class_value, kept_value
from engine.entity import LOOK, PARTS, Entity, entities_of_host
from engine.messages import shown
from engine.state.looks import look_data, parts_data, picture_root
from engine.state.names import class_file, class_module, class_origin

__all__ = ["ClassNameClash", "UnhashableState", "class_names", "jsonable", "snapshot", "state_hash"]


class UnhashableState(TypeError):
    """A value in an entity's state that no snapshot can hold, so no hash, save or replay can.

    Raised by ``snapshot``, ``state_hash`` and saves; the message names the entity, the
    attribute and the value. It is the game's mistake (an ``object()`` kept in a ``saved``
    attribute, say), not the engine's, so the command line reports it as such, in one line.
    """


def jsonable(value: Any, where: str) -> Any:
    """``value`` as JSON data (tuples become lists, numpy scalars numbers); ``TypeError`` naming ``where``."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return [jsonable(item, where) for item in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return jsonable(value.item(), where)
    if hasattr(value, "id") and hasattr(value, "alive") and hasattr(value, "update"):  # an entity
        return {"entity": value.id}
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {"dict": {key: jsonable(item, where) for key, item in value.items()}}
    if isinstance(value, (set, frozenset)):
        # Sorted by their JSON text: set order is per process (string hashing), never a hash's.
        items = [jsonable(item, where) for item in value]
        return {"set": sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}
    raise UnhashableState(f"{where} holds {shown(value)}, which a snapshot cannot hold (a buffered field or a saved "
                          "attribute holds numbers, strings, tuples, lists, dicts with string keys, sets and entities)")


class ClassNameClash(UnhashableState):
    """Two entity classes of one world would get one name in its snapshot, hash and save.

    Their state could not be told apart, so neither is hashed nor saved; the message names
    both classes, their files and the names they were imported under. Usually one game
    file imported twice under two names (``python game.py`` running, and a helper that
    does ``import game``): import the game one way.
    """


def class_names(kinds: Sequence[type]) -> dict[type, str]:
    """Each class's module part of its public name (``class_module``); ``ClassNameClash`` if two share a name."""
    names: dict[type, str] = {}
    owners: dict[str, type] = {}
    for kind in kinds:
        if kind in names:
            continue
        module = class_module(kind)
        name = f"{module}:{kind.__qualname__}"
        other = owners.setdefault(name, kind)
        if other is not kind:
            same_file = class_file(other) is not None and class_file(other) == class_file(kind)
            advice = ("the same file imported twice under two names: import it one way (import it, or load it "
                      "with load_game, not both)" if same_file else "rename one of them")
            raise ClassNameClash(f"two entity classes would both be named {name} in hashes and saves: "
                                 f"{class_origin(other)} and {class_origin(kind)}; {advice}")
        names[kind] = module
    return names


_MISSING = "<not set>"


def _entity_id(entity: Any) -> int:
    return entity.id  # type: ignore[no-any-return]


def snapshot(world: Host) -> dict[str, Any]:
    """All buffered state, the ``saved`` attributes, and the tick count (see ``World.snapshot``)."""
    entities = []
    live = sorted(entities_of_host(world), key=_entity_id)
    modules = class_names([type(entity) for entity in live])
    # By id, not update order: shuffling the update order must not change the hash.
    for entity in live:
        kind = type(entity)
        where = f"{kind.__name__} (id {entity.id})"
        record: dict[str, Any] = {
            "id": entity.id,
            "class": f"{modules[kind]}.{kind.__qualname__}",
            "state": {name: jsonable(value, f"{where}.{name}") for name, value in entity.buffered_state().items()},
            "signals": {name: jsonable(value, f"{where}.{name}") for name, value in sorted(signals_of(entity).items())},
            # What a save keeps besides buffered state is state too: a replay or a check that
            # ignored it would miss a run that diverged there.
            "saved": {name: jsonable(getattr(entity, name, _MISSING), f"{where}.{name}") for name in kind.saved},
        }
        shown_state(entity, record)
        entities.append(record)
    return {"tick": world.tick_count, "entities": entities}


def shown_state(entity: Entity, record: dict[str, Any]) -> None:
    """Add what ``entity`` shows of its own (``look``, ``parts``) to its snapshot ``record``: nothing when
    it shows what its class shows, so games that never set one on an instance hash as they always did,
    and an own look equal to its class's (an ``on_load`` that sets the look the class already has)
    hashes as the class's.

    Pictures are named relative to the entity's class's module (else by file name): the
    hash never holds where the game lives (``engine.look.picture_root``).
    """
    look = _own_unless_class(LOOK, entity)
    parts = _own_unless_class(PARTS, entity)
    if look is None and parts is None:
        return
    root = picture_root(type(entity))
    if look is not None:
        record["look"] = look_data(None if look is HIDDEN else look, root, portable=True)
    if parts is not None:
        record["parts"] = parts_data(parts, root, portable=True)


def _own_unless_class(field: Shown, entity: Entity) -> Any:
    """The entity's own value of ``field`` as a save keeps it, or ``None`` where it shows what its class shows."""
    own = kept_value(field, entity)
    if own is None:
        return None
    shows = field.empty if own is HIDDEN else own
    of_class = class_value(type(entity), field)
    return None if shows == (field.empty if of_class is None else of_class) else own


def state_hash(world: Host) -> str:
    """SHA-256 of the snapshot written canonically (sorted keys, no spaces)."""
    text = json.dumps(snapshot(world), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
