"""The esper adapter: one private esper world per ``World``, and esper's id counter.

esper 3 keeps its worlds in module globals and works on whichever is *current*, so a
``World`` switches esper to its own context for every call that touches it and back
afterwards; that is what lets any number of worlds live in one process without seeing
each other. Since that current world is one for the whole process, the switch and the
block it covers (a whole tick) hold one process-wide lock: worlds ticked in several
threads at once take turns, a tick at a time, and each gets the hashes it gets alone.
Everything the engine needs from esper goes through this module, including the private
attributes it must use (the id counter, so a loaded world and a rolled-back tick hand out
the same ids as the original; the processor list, which ``tickswap check`` reorders within
a priority; the entity and component tables, which a tick's spawns and despawns change in
one pass each instead of two esper calls an entity): esper is pinned below 4 for them.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import esper

__all__ = ["EsperWorld", "current_components"]

_world_numbers = itertools.count(1)
_lock = threading.RLock()
"""Held while esper's current world is switched to a ``World``'s: one thread at a time."""
_held = threading.local()
"""How deep this thread is inside ``context()`` blocks (``depth``)."""


def _release(name: str) -> None:
    with _lock:
        if name in esper.list_worlds():
            if esper.current_world == name:
                esper.switch_world("default")
            esper.delete_world(name)


class EsperWorld:
    """A private esper world: create and delete entities, run processors, set the id counter.

    Released when ``close()`` is called or when the owner is collected (held weakly by
    a finalizer, so esper's module globals never keep a world alive).
    """

    def __init__(self, owner: object) -> None:
        self.name = f"tickswap-world-{next(_world_numbers)}"
        self._finalizer = weakref.finalize(owner, _release, self.name)
        self.closed = False

    def context(self) -> AbstractContextManager[None]:
        """Make this esper world current for the block (cheap when it already is)."""
        return _Context(self)

    def create(self, components: tuple[Any, ...], entity: Any, alias: type) -> int:
        """Create an esper entity holding ``components`` and ``entity`` (under type ``alias``)."""
        if getattr(_held, "depth", 0) and esper.current_world == self.name:  # mid-tick: skip the switch
            entity_id: int = esper.create_entity(*components)
            esper.add_component(entity_id, entity, type_alias=alias)
            return entity_id
        with self.context():
            entity_id = esper.create_entity(*components)
            esper.add_component(entity_id, entity, type_alias=alias)
            return entity_id

    def delete(self, entity_id: int) -> None:
        """Delete an esper entity at once, if it exists (call inside ``context()``)."""
        if esper.entity_exists(entity_id):
            esper.delete_entity(entity_id, immediate=True)

    def delete_all(self, entity_ids: Iterable[int]) -> None:
        """``delete`` for many entities at once, in order (call inside ``context()``): a tick's despawns.

        esper's tables change exactly as ``delete_entity(id, immediate=True)`` for each one
        that exists would change them, in one pass (a churning world deletes a thousand a
        tick, and two esper calls an entity were a tenth of its tick), and esper's query
        cache is cleared once.
        """
        if not _TABLES:
            exists = esper.entity_exists
            delete = esper.delete_entity
            for entity_id in entity_ids:
                if exists(entity_id):
                    delete(entity_id, immediate=True)
            return
        entities = esper._entities
        components = esper._components
        dead = esper._dead_entities
        deleted = False
        for entity_id in entity_ids:
            if entity_id in entities and entity_id not in dead:  # esper.entity_exists
                for component_type in entities.pop(entity_id):
                    members = components[component_type]
                    members.discard(entity_id)
                    if not members:
                        del components[component_type]
                deleted = True
        if deleted:
            esper.clear_cache()

    def create_all(self, joining: Iterable[tuple[tuple[Any, ...], Any]], alias: type) -> list[int]:
        """``create`` for many (components, entity) pairs at once, in order (call inside ``context()``):
        a tick's spawns. Returns their ids, in the same order.

        Where no entity brings components of its own (a tick's spawns, as a rule), esper's
        tables change exactly as ``create_entity()`` then ``add_component(id, entity,
        type_alias=alias)`` for each would change them (the same ids from esper's counter,
        the same dicts, the ids added to the alias's set in the same order), in one pass.
        """
        joining = list(joining)
        if not joining:
            return []
        if not _TABLES or any(components for components, _entity in joining):
            create = esper.create_entity
            add = esper.add_component
            ids: list[int] = []
            for components, entity in joining:
                entity_id: int = create(*components)
                add(entity_id, entity, type_alias=alias)
                ids.append(entity_id)
            return ids
        ids = list(itertools.islice(esper._entity_count, len(joining)))
        esper._entities.update(zip(ids, [{alias: entity} for _components, entity in joining]))
        members = esper._components.get(alias)
        if members is None:
            members = esper._components[alias] = set()
        members.update(ids)
        esper.clear_cache()
        return ids

    def components(self, entity_id: int) -> tuple[Any, ...]:
        """Every component of an esper entity."""
        with self.context():
            found: tuple[Any, ...] = esper.components_for_entity(entity_id)
            return found

    def add_processor(self, processor: esper.Processor, priority: int) -> None:
        """Add a processor; esper runs them by priority, higher first."""
        with self.context():
            esper.add_processor(processor, priority)

    def processors(self) -> list[esper.Processor]:
        """The processors in the order ``process()`` runs them (a copy: ``reorder`` changes the order)."""
        with self.context():
            return list(esper._processors)

    def reorder(self, processors: Sequence[esper.Processor]) -> None:
        """Run the same processors in another order that keeps them by priority, highest first."""
        with self.context():
            current = esper._processors
            same = sorted(map(id, processors)) == sorted(map(id, current))  # the same objects, each once
            if not same or any(a.priority < b.priority for a, b in itertools.pairwise(processors)):
                raise ValueError("reorder takes this world's processors, each once, highest priority first")
            current[:] = processors

    def process(self) -> None:
        """Run every processor once, in priority order."""
        with self.context():
            esper.process()

    def process_each(self, run: Callable[[esper.Processor], None]) -> None:
        """``process()``, with ``run(processor)`` calling each processor's ``process()`` (a profile times them)."""
        with self.context():
            esper.clear_dead_entities()
            for processor in esper._processors:  # as esper.process does: a processor added mid-tick too
                run(processor)

    def next_id(self, entity_id: int) -> None:
        """Make the next entity created get ``entity_id`` (a load, or a rolled-back tick)."""
        with self.context():
            esper._entity_count = itertools.count(entity_id)

    def close(self) -> None:
        """Release the esper world; safe to call twice."""
        if not self.closed:
            self._finalizer()
            self.closed = True


class _Context:
    """One ``EsperWorld.context()`` block: a plain class, not a generator, as spawns and despawns
    between ticks enter one each; it remembers the world current before it, to switch back to."""

    __slots__ = ("_previous", "_world")

    def __init__(self, world: EsperWorld) -> None:
        self._world = world
        self._previous = ""

    def __enter__(self) -> None:
        world = self._world
        if world.closed:
            raise RuntimeError("this World is closed")
        _lock.acquire()
        _held.depth = getattr(_held, "depth", 0) + 1
        try:
            previous = self._previous = esper.current_world
            if previous != world.name:
                esper.switch_world(world.name)
        except BaseException:
            _held.depth -= 1
            _lock.release()
            raise

    def __exit__(self, *exc: object) -> None:
        try:
            previous = self._previous
            if previous != self._world.name:
                esper.switch_world(previous if previous in esper.list_worlds() else "default")
        finally:
            _held.depth -= 1
            _lock.release()


def _has_tables() -> bool:
    """Whether this esper keeps its tables as the esper 3 releases do (``create_all`` and ``delete_all`` then
    change them in one pass; otherwise they call esper once an entity)."""
    return (isinstance(getattr(esper, "_entities", None), dict)
            and isinstance(getattr(esper, "_components", None), dict)
            and isinstance(getattr(esper, "_dead_entities", None), set)
            and isinstance(getattr(esper, "_entity_count", None), itertools.count)
            and callable(getattr(esper, "clear_cache", None)))


_TABLES = _has_tables()


def current_components(entity_id: int) -> tuple[Any, ...]:
    """Every component of an esper entity in the current esper world (inside a ``World.esper_context()`` block)."""
    found: tuple[Any, ...] = esper.components_for_entity(entity_id)
    return found
