"""Snapshots and state hashes: a world's buffered state as plain data, and a stable digest of it.

The hash must be the same for the same history in every process and on every machine,
so the snapshot holds only values that print the same everywhere: numbers (floats by
their shortest round-trip repr), strings, lists, and class names from the modules that
define them (a game file's module as ``game``: its name and content don't reach the hash).
Nothing derived from ``hash()``, ``id()``, set order or paths reaches it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Protocol

from engine.buffering.access import signals_of
from engine.buffering.shown import HIDDEN, kept_value
from engine.entity import LOOK, PARTS, Entity
from engine.messages import shown
from engine.state.looks import look_data, parts_data, picture_root
from engine.state.names import public_module_name

__all__ = ["Snapshotted", "UnhashableState", "jsonable", "snapshot", "state_hash"]


class Snapshotted(Protocol):
    """What a snapshot reads of a world (``World`` has it; ``World.snapshot`` delegates here)."""

    @property
    def tick_count(self) -> int:
        """Ticks completed so far."""

    @property
    def entities(self) -> Sequence[Entity]:
        """Live entities."""


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


_MISSING = "<not set>"


def _entity_id(entity: Any) -> int:
    return entity.id  # type: ignore[no-any-return]


def snapshot(world: Snapshotted) -> dict[str, Any]:
    """All buffered state, the ``saved`` attributes, and the tick count (see ``World.snapshot``)."""
    entities = []
    # By id, not update order: shuffling the update order must not change the hash.
    for entity in sorted(world.entities, key=_entity_id):
        kind = type(entity)
        where = f"{kind.__name__} (id {entity.id})"
        record: dict[str, Any] = {
            "id": entity.id,
            "class": f"{public_module_name(kind.__module__)}.{kind.__qualname__}",
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
    it shows its class's, so games that never set one on an instance hash as they always did.

    Pictures are named relative to the entity's class's module (else by file name): the
    hash never holds where the game lives (``engine.look.picture_root``).
    """
    look = kept_value(LOOK, entity)
    parts = kept_value(PARTS, entity)
    if look is None and parts is None:
        return
    root = picture_root(type(entity))
    if look is not None:
        record["look"] = look_data(None if look is HIDDEN else look, root, portable=True)
    if parts is not None:
        record["parts"] = parts_data(parts, root, portable=True)


def state_hash(world: Snapshotted) -> str:
    """SHA-256 of the snapshot written canonically (sorted keys, no spaces)."""
    text = json.dumps(snapshot(world), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
