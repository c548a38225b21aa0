"""Spawning and despawning: when an entity joins or leaves a world, and which id it gets.

Outside a tick an entity joins (or leaves) at once. During a tick, a spawn or a despawn
is deferred: the entity is ``alive`` (or not) at once, but joins the update order and
the esper world, or leaves them, only after the tick, when ``_settle`` hands out ids in
a canonical order (their spawners' ids, then the order each spawner spawned them), so
ids, and everything seeded from them, never depend on the update order. A tick that
fails drops what it deferred (``_drop_deferred``). ``World`` inherits this.
"""

from __future__ import annotations

import weakref
from operator import itemgetter
from typing import Any, TypeVar

from engine.buffering import PureBuffers, layout_of, restore_state
from engine.buffering.own import OwnBuffers
from engine.ecs import EsperWorld
from engine.entity import Entity, _no_world

__all__ = ["Spawning"]

E = TypeVar("E", bound=Entity)
_SPAWNER = itemgetter(0)


class Spawning:
    """The spawning side of ``World``: ``spawn``, ``despawn``, the id counter and a load's hooks."""

    _ecs: EsperWorld
    _buffers: PureBuffers
    _ticking: bool
    _order: dict[int, Entity]
    _update_list: list[Entity] | None
    _spawns: list[tuple[int, Entity, tuple[Any, ...]]]
    _despawns: list[Entity]
    _last_id: int
    structure_version: int
    _restoring = False
    """Set while a save's entities are spawned: they hold what the save held, unchecked."""

    def spawn(self, entity: E, *components: Any) -> E:
        """Add ``entity`` (with optional esper components) and return it.

        Outside a tick the entity is live at once and gets its ``id`` (its esper entity
        id). Spawned during a tick it is ``alive`` at once but not updated in that tick:
        it joins after the tick, with previous = committed = its initial state, and gets
        its id then. Ids of the entities spawned in one tick are handed out in a canonical
        order (their spawners' ids, then the order each spawner spawned them), so ids, and
        everything seeded from them, never depend on the update order.
        """
        if not isinstance(entity, Entity):
            raise TypeError(f"World.spawn takes an Entity, got {entity!r}")
        if not hasattr(entity, "_signals"):
            raise TypeError(
                f"{type(entity).__name__} was not initialised as an Entity: call super().__init__() in its __init__"
            )
        if entity.world is not None:
            if entity.world is self and entity.alive:
                raise ValueError(f"{entity!r} is already spawned in this world")
            if entity.world is self:
                raise ValueError(f"{entity!r} was despawned; an entity lives once: spawn a new one")
            raise ValueError(f"{entity!r} belongs to another world; spawn a new entity instead")
        if entity.id is not None:
            raise ValueError(f"{entity!r} was despawned; an entity lives once: spawn a new one")
        if not self._restoring:  # a save restores what it held; a new entity's __init__ may set a list
            layout_of(entity).check_immutable(entity)
        entity._world = weakref.ref(self)
        entity.alive = True
        self._buffers.snap(entity, False)  # previous = current: nothing to interpolate from yet
        if self._ticking:
            sender = self._buffers.sender
            self._spawns.append((-1 if sender is None else sender.id, entity, components))  # type: ignore[arg-type]
        else:
            self._join(entity, components)
            self._update_list = None
            self.structure_version += 1
        return entity

    def _join(self, entity: Entity, components: tuple[Any, ...]) -> None:
        entity_id = self._ecs.create(components, entity, Entity)
        entity.id = entity_id
        self._last_id = entity_id
        self._order[entity_id] = entity
        if isinstance(entity, OwnBuffers):
            self._buffers.hook(entity)

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
            if entity.id is not None:  # one spawned in this tick simply never joins
                self._despawns.append(entity)
        else:
            with self._ecs.context():
                self._remove(entity)

    def _remove(self, entity: Entity) -> None:
        assert entity.id is not None
        self._buffers.unhook(entity)
        if self._order.pop(entity.id, None) is not None:
            self._update_list = None
            self.structure_version += 1
        self._ecs.delete(entity.id)

    def _restore_entity(self, entity: Entity, entity_id: int, buffers: dict[str, Any]) -> None:
        """Spawn a loaded entity under its saved id, with its buffers' saved state (for ``World.load``).

        ``buffers`` is what ``engine.buffering.saved_state`` returned when it was saved:
        committed signals, previous values, its random generator. Between ticks only.
        """
        if self._ticking:
            raise RuntimeError("entities are restored between ticks")
        self._ecs.next_id(entity_id)
        self._restoring = True
        try:
            self.spawn(entity)
        finally:
            self._restoring = False
        if entity.id != entity_id:
            raise ValueError(f"entity id {entity_id} is taken in this world")
        restore_state(entity, buffers)
        self._buffers.committed_signals(entity, buffers["signals"])

    def _restore_last_id(self, last_id: int) -> None:
        """Make the next spawned entity get ``last_id + 1`` (a loaded save's id counter)."""
        self._ecs.next_id(last_id + 1)
        self._last_id = last_id

    @property
    def last_id(self) -> int:
        """The highest id handed out so far: the next spawn gets a higher one."""
        return self._last_id

    def _settle(self) -> None:
        """After a tick: despawned entities leave, and spawned ones join in the canonical order."""
        if not (self._spawns or self._despawns):
            return
        with self._ecs.context():
            for entity in self._despawns:
                if entity.id is not None:
                    self._remove(entity)
            # A stable sort by spawner id: the canonical order ids are handed out in.
            self._spawns.sort(key=_SPAWNER)
            for _spawner, entity, components in self._spawns:
                if entity.alive:
                    self._join(entity, components)
        self._spawns = []
        self._despawns = []
        self._update_list = None
        self.structure_version += 1

    def _drop_deferred(self) -> None:
        """The tick failed: its despawned entities are alive again, and its spawned ones never were."""
        for entity in self._despawns:
            entity.alive = True
        self._despawns = []
        for _spawner, entity, _components in self._spawns:
            entity.alive = False
            entity._world = _no_world
        self._spawns = []
