"""World: runs every entity once per tick, as one system of its own esper world.

The Update Method pattern gives each game object an ``update()``; the world calls them
all, once per tick, in a fixed order (spawn order), as one esper processor at
priority 0. Other systems are plain esper processors added with ``add_processor``.
Each ``World`` owns a private esper world (esper 3 keeps worlds in module globals, so
the world switches esper to its own context for the duration of every call that
touches it, and switches back after), which lets any number of worlds live in one
process, as they do in tests, without seeing each other.

esper is the place for components and queries. The update path never queries esper:
esper rebuilds its whole query cache after any structural change (tens of ms at
10,000 entities), and a game that spawns a bullet per tick must not pay that to run
its entities. The world keeps its own spawn-ordered table instead.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
import weakref
from contextlib import contextmanager
from typing import Any, Iterator, TypeVar

import esper

from engine.crowd import Crowd
from engine.entity import Entity, _no_world
from engine.input import InputQueue, TickInput
from engine.sound import SoundRequests
from engine.spatial import CollisionQueries

__all__ = ["EntityUpdateError", "World"]

E = TypeVar("E", bound=Entity)
_NO_SIGNALS: frozenset[str] = frozenset()
_world_numbers = itertools.count(1)


class EntityUpdateError(RuntimeError):
    """An entity's ``update()`` raised; the tick was abandoned and rolled back.

    Names the entity's class, its id and the tick number; the original exception is
    ``__cause__``. The world's committed state is exactly what it was before the tick,
    so the world can tick again.
    """

    def __init__(self, entity: Entity, tick: int, error: BaseException) -> None:
        self.entity = entity
        self.entity_class = type(entity).__name__
        self.entity_id = entity.id
        self.tick = tick
        super().__init__(
            f"{self.entity_class} (id {self.entity_id}) raised {type(error).__name__} in tick {tick}: {error}; "
            "the tick was rolled back"
        )


class _UpdateSystem(esper.Processor):
    """The esper processor that runs every entity's ``update()``.

    It holds its world weakly: esper's module-global context table would otherwise keep
    every world alive forever.
    """

    def __init__(self, world: World) -> None:
        self._world = weakref.ref(world)

    def process(self, *args: Any, **kwargs: Any) -> None:
        world = self._world()
        if world is not None:
            world._update_entities()


def _release_esper_world(name: str) -> None:
    if name in esper.list_worlds():
        if esper.current_world == name:
            esper.switch_world("default")
        esper.delete_world(name)


def _jsonable(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return [_jsonable(item, where) for item in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _jsonable(value.item(), where)
    raise TypeError(f"{where} holds {value!r}, which is not JSON-serialisable (use numbers, strings, tuples)")


class World(SoundRequests, CollisionQueries):
    """A game world: spawns and despawns entities and runs them, tick by tick.

    ``tick()`` is the whole of game logic for one fixed step; drive it from a loop
    (``FixedStepLoop(world.tick, render)``) or call it directly in tests. ``seed`` seeds
    ``world.random``, the random generator games should use so that runs replay exactly.
    """

    def __init__(self, seed: int = 0) -> None:
        self._esper_name = f"tickswap-world-{next(_world_numbers)}"
        self._finalizer = weakref.finalize(self, _release_esper_world, self._esper_name)
        self.seed = seed
        self.random = random.Random(seed)
        """The world's random generator: use it (not ``random``) so games replay exactly."""
        self.tick_count = 0
        """Ticks completed so far."""
        self.input_queue = InputQueue()
        """Where input events wait for the next tick (the window, tests and replays push here)."""
        self.input = TickInput()
        """The input of the tick in progress (or the last one): see ``TickInput``."""
        self._order: dict[int, Entity] = {}
        self._update_list: list[Entity] | None = None
        self.structure_version = 0
        """Goes up whenever the set of live entities changes (renderers re-sync on it)."""
        self._ticking = False
        self._closed = False
        self._spawns: list[Entity] = []
        self._despawns: list[Entity] = []
        self._raised: dict[int, tuple[Entity, set[str]]] = {}
        self._signalled: list[Entity] = []
        self._moved: list[Entity] = []
        self._changed: list[tuple[Entity, tuple[Any, ...], tuple[Any, ...]]] = []
        self._user_processors = 0
        self._last_id = 0
        self._crowds: list[Crowd] = []
        with self._esper():
            esper.add_processor(_UpdateSystem(self), priority=0)

    # -- esper context ----------------------------------------------------------------

    @contextmanager
    def _esper(self) -> Iterator[None]:
        if self._closed:
            raise RuntimeError("this World is closed")
        previous = esper.current_world
        if previous == self._esper_name:
            yield
            return
        esper.switch_world(self._esper_name)
        try:
            yield
        finally:
            esper.switch_world(previous if previous in esper.list_worlds() else "default")

    @contextmanager
    def esper_context(self) -> Iterator[None]:
        """Make this world's esper world current, for direct ``esper`` calls in a block.

        Processors don't need this: while a tick runs, esper already points at this world.
        """
        with self._esper():
            yield

    def close(self) -> None:
        """Release the esper world; the World can't be used afterwards. Safe to call twice."""
        if not self._closed:
            self._finalizer()
            self._closed = True

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- spawning ---------------------------------------------------------------------

    def spawn(self, entity: E, *components: Any) -> E:
        """Add ``entity`` (with optional esper components) and return it.

        Outside a tick the entity is live at once. Spawned during a tick it is not
        updated in that tick: it joins after the tick, with previous = committed = its
        initial state. ``id`` (its esper entity id) is set immediately.
        """
        if not isinstance(entity, Entity):
            raise TypeError(f"World.spawn takes an Entity, got {entity!r}")
        if not hasattr(entity, "_signals"):
            raise TypeError(
                f"{type(entity).__name__} was not initialised as an Entity: call super().__init__() in its __init__"
            )
        if entity.id is not None:
            if entity.world is self and entity.alive:
                raise ValueError(f"{entity!r} is already spawned in this world")
            if entity.world is self or entity.world is None:
                raise ValueError(f"{entity!r} was despawned; an entity lives once: spawn a new one")
            raise ValueError(f"{entity!r} belongs to another world; spawn a new entity instead")
        if esper.current_world == self._esper_name:  # mid-tick: skip the context switch
            entity_id = esper.create_entity(*components)
            esper.add_component(entity_id, entity, type_alias=Entity)
        else:
            with self._esper():
                entity_id = esper.create_entity(*components)
                esper.add_component(entity_id, entity, type_alias=Entity)
        entity.id = entity_id
        self._last_id = entity_id
        if isinstance(entity, Crowd):
            self._crowds.append(entity)
        entity._world = weakref.ref(self)
        entity.alive = True
        entity._prev_tick = -1
        if self._ticking:
            self._spawns.append(entity)
        else:
            self._order[entity_id] = entity
            self._update_list = None
            self.structure_version += 1
        return entity

    def despawn(self, entity: Entity) -> None:
        """Remove ``entity``: ``alive`` is False at once, and despawning twice is harmless.

        During a tick the entity is not updated after this point (nobody else is
        skipped or updated twice) and it leaves the esper world after the tick.
        """
        if not isinstance(entity, Entity):
            raise TypeError(f"World.despawn takes an Entity, got {entity!r}")
        if entity.world is not self:
            where = "was never spawned" if entity.world is None else "belongs to another world"
            raise ValueError(f"cannot despawn {entity!r}: it {where}")
        if not entity.alive:
            return
        entity.alive = False
        if self._ticking:
            self._despawns.append(entity)
        else:
            self._remove(entity)

    def _remove(self, entity: Entity) -> None:
        with self._esper():
            self._remove_in_context(entity)

    def _remove_in_context(self, entity: Entity) -> None:
        assert entity.id is not None
        self._crowds = [crowd for crowd in self._crowds if crowd is not entity]
        if self._order.pop(entity.id, None) is not None:
            self._update_list = None
            self.structure_version += 1
        if esper.entity_exists(entity.id):
            esper.delete_entity(entity.id, immediate=True)

    # -- reading ------------------------------------------------------------------------

    @property
    def entities(self) -> list[Entity]:
        """Live entities in update (spawn) order; a new list, safe to keep while spawning."""
        return [entity for entity in self._order.values() if entity.alive]

    def entities_of(self, kind: type[E]) -> list[E]:
        """Live entities that are instances of ``kind``, in update order."""
        return [entity for entity in self._order.values() if entity.alive and isinstance(entity, kind)]

    def __len__(self) -> int:
        return sum(1 for entity in self._order.values() if entity.alive)

    def shuffle_order(self, rng: random.Random) -> None:
        """Permute the update order of the live entities, from the next tick on.

        A tool for checking that a game does not depend on update order: with double
        buffered state, shuffling changes nothing a player can see. Pass ``world.random``
        to keep runs replayable. Entities spawned later still join at the end.
        """
        entities = list(self._order.values())
        rng.shuffle(entities)
        self._order = {entity.id: entity for entity in entities if entity.id is not None}
        self._update_list = None

    @property
    def ticking(self) -> bool:
        """Whether a tick is in progress (spawns and despawns are then deferred)."""
        return self._ticking

    def add_processor(self, processor: esper.Processor, priority: int = 0) -> None:
        """Add a plain esper processor to this world's esper world.

        Systems run in priority order, higher first, as esper does; updating the entities
        is the system at priority 0, and processors added at priority 0 run after it.
        ``processor.process()`` is called with no arguments, with esper pointing at this
        world, so its ``esper.get_components(...)`` queries see this world's components.
        Entity state a processor writes is written straight into the committed buffer
        (as from outside a tick) and rolled back if the tick fails.
        """
        if not callable(getattr(processor, "process", None)):
            raise TypeError(f"add_processor takes an object with a process() method, got {processor!r}")
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise TypeError(f"priority must be an int, got {priority!r}")
        with self._esper():
            esper.add_processor(processor, priority)
        self._user_processors += 1

    # -- the tick -----------------------------------------------------------------------

    def tick(self) -> None:
        """Run one tick of game logic.

        The order, always:

        1. The input queued since the previous tick becomes ``world.input``.
        2. Systems run in priority order, higher first; updating the entities is the
           system at priority 0.
        3. Entities update in spawn order. One spawned during the tick is not updated
           in it; one despawned during the tick is not updated after that point, and
           nobody else is skipped or updated twice because of it.
        4. After all systems: every buffer is swapped (pending values and signals
           become committed, last tick's signals are cleared), spawns join, despawned
           entities leave the esper world, and ``tick_count`` goes up by one.

        If anything raises, the tick is abandoned: committed buffered state is exactly
        what it was before, pending spawns, despawns and signals are dropped, the tick's
        input goes back to the queue, and the error is raised (an ``update()`` failure as
        ``EntityUpdateError``). The world can tick again afterwards.
        """
        if self._ticking:
            raise RuntimeError("World.tick() was called from inside a tick")
        self.input = self.input_queue.take()
        rollback = (
            [(entity, entity._buffered_get(entity)) for entity in self._order.values()]
            if self._user_processors
            else None
        )
        self._sounds_tick_started()  # render branch: see engine/sound.py
        self._spatial_tick_started()  # render branch: see engine/spatial.py
        self._ticking = True
        try:
            with self._esper():
                esper.process()
        except BaseException:
            self._ticking = False
            self._abandon_tick(rollback)
            raise
        self._ticking = False
        self._swap()

    def _update_entities(self) -> None:
        """The Update Method system: every live entity's ``update()``, in spawn order.

        This is the hot path, so it is written out inline. For each entity it keeps the
        committed values, lets ``update()`` write its pending ones into the plain
        attributes, then puts the committed values back for everyone else to read and
        queues the pending ones for the swap.
        """
        order = self._update_list
        if order is None:
            order = self._update_list = list(self._order.values())
        # Pending values wait in the entity's own _next_* attributes and the entity goes
        # on a list: no allocation per entity, so no garbage-collector passes mid-tick.
        moved_append = self._moved.append
        changed_append = self._changed.append
        world = self
        entity: Entity | None = None
        before_x: Any = None
        before_y: Any = None
        before: tuple[Any, ...] = ()
        try:
            for entity in order:
                if not entity.alive:
                    continue
                if entity._xy:
                    before_x = entity.x
                    before_y = entity.y
                    entity.update(world)
                    after_x = entity.x
                    after_y = entity.y
                    # Identity, not equality: an unchanged attribute is the same object, and
                    # a new object with an equal value merely costs a harmless swap.
                    if after_x is not before_x or after_y is not before_y:
                        entity._next_x = after_x
                        entity._next_y = after_y
                        moved_append(entity)
                        entity.x = before_x
                        entity.y = before_y
                else:
                    get = entity._buffered_get
                    before = get(entity)
                    entity.update(world)
                    after = get(entity)
                    if after != before:
                        changed_append((entity, after, before))
                        entity._buffered_set(entity, before)
        except BaseException as error:
            if entity is not None:
                if entity._xy:
                    entity.x = before_x
                    entity.y = before_y
                elif before:
                    entity._buffered_set(entity, before)
            if isinstance(error, Exception) and entity is not None:
                raise EntityUpdateError(entity, self.tick_count + 1, error) from error
            raise

    def _swap(self) -> None:
        tick = self.tick_count + 1
        for entity in self._moved:
            entity._prev_x = entity.x
            entity._prev_y = entity.y
            entity._prev_tick = tick
            entity.x = entity._next_x
            entity.y = entity._next_y
        for entity, after, before in self._changed:
            entity._buffered_set(entity, after)
            entity._prev_x, entity._prev_y = before[0], before[1]
            entity._prev_rest = before[2:]
            entity._prev_tick = tick
        self._moved.clear()
        self._changed.clear()
        for crowd in self._crowds:
            crowd._swap(tick)

        for entity in self._signalled:
            entity._signals = _NO_SIGNALS
        signalled = []
        for entity, names in self._raised.values():
            entity._signals = frozenset(names)
            signalled.append(entity)
        self._signalled = signalled
        self._raised = {}

        if self._spawns or self._despawns:
            with self._esper():
                for entity in self._spawns:
                    if entity.alive:
                        assert entity.id is not None
                        self._order[entity.id] = entity
                    else:
                        self._remove_in_context(entity)
                for entity in self._despawns:
                    self._remove_in_context(entity)
            self._spawns = []
            self._despawns = []
            self._update_list = None
            self.structure_version += 1
        self.tick_count = tick

    def _abandon_tick(self, rollback: list[tuple[Entity, tuple[Any, ...]]] | None) -> None:
        self._moved.clear()
        self._changed.clear()
        for crowd in self._crowds:
            crowd._abandon()
        self._raised = {}
        if rollback is not None:
            for entity, values in rollback:
                entity._buffered_set(entity, values)
        for entity in self._despawns:
            entity.alive = True
        self._despawns = []
        spawns, self._spawns = self._spawns, []
        for entity in spawns:
            self._remove(entity)
            entity.alive = False
            entity.id = None
            entity._world = _no_world
        self.input_queue.restore(self.input)
        self.input = TickInput()

    def _raise_signal(self, entity: Entity, name: str) -> None:
        if self._ticking:
            assert entity.id is not None
            entry = self._raised.get(entity.id)
            if entry is None:
                self._raised[entity.id] = (entity, {name})
            else:
                entry[1].add(name)
        else:
            if not entity._signals:
                self._signalled.append(entity)
            entity._signals = entity._signals | {name}

    # -- state ---------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Save the whole world to ``path``, atomically, in a versioned JSON format.

        Saves every entity's class, id, buffered values, signals and declared ``saved``
        attributes, the tick count, the random generator and the input state. Only
        between ticks. See ``engine.files.save``.
        """
        from engine.files.save import save_world

        save_world(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> World:
        """Load a world saved by ``save()``: a new World that continues exactly as the original.

        A damaged, truncated or wrong-version file raises ``SaveError`` naming the file
        and the problem; nothing else is touched.
        """
        from engine.files.save import load_world

        return load_world(path)

    def snapshot(self) -> dict[str, Any]:
        """Return all buffered state and the tick count as a plain, JSON-serialisable dict.

        Entities appear in update order with their id, class, committed buffered values
        and committed signals. Plain attributes are private to each entity and not included.
        """
        entities = []
        for entity in self._order.values():
            if not entity.alive:
                continue
            kind = type(entity)
            where = f"{kind.__name__} (id {entity.id})"
            entities.append({
                "id": entity.id,
                "class": f"{kind.__module__}.{kind.__qualname__}",
                "state": {
                    name: _jsonable(value, f"{where}.{name}")
                    for name, value in entity.buffered_state().items()
                },
                "signals": sorted(entity._signals),
            })
        return {"tick": self.tick_count, "entities": entities}

    def state_hash(self) -> str:
        """A stable hex digest of ``snapshot()``: same history, same hash, on any machine.

        Floats are written with Python's shortest round-trip repr, so the digest changes
        if and only if some value changes, by even one bit.
        """
        text = json.dumps(self.snapshot(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def __repr__(self) -> str:
        return f"<World tick={self.tick_count} entities={len(self)}>"
