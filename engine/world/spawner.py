"""The Spawner: when an entity joins or leaves a world, which id it gets, and the update order.

Outside a tick an entity joins (or leaves) at once. During a tick, a spawn or a despawn
is deferred: the entity is ``alive`` (or not) at once, but joins the update order and
the esper world, or leaves them, only after the tick, when ``settle`` hands out ids in
a canonical order (their spawners' ids, then the order each spawner spawned them), so
ids, and everything seeded from them, never depend on the update order. A tick that
fails drops what it deferred (``drop_deferred``).

``World`` is composed of one ``Spawner``: its ``spawn``, ``despawn``, ``entities`` and
``shuffle_order`` delegate here, and its schedule calls ``settle`` and ``drop_deferred``.
The loader (``engine.world.save``) and the renderer reach a world's spawner through
``spawner_of(world)``, for what is theirs and no user's: restoring saved entities under
their ids, and ``structure_version``. This module never imports ``World`` (the loader,
which ``World.load`` delegates to, imports it).
"""

from __future__ import annotations

import random
import weakref
from bisect import bisect_left
from collections.abc import Callable
from itertools import chain
from operator import attrgetter, itemgetter
from typing import Any, TypeVar

from engine.buffering import Host, PureBuffers, restore_state
from engine.buffering.access import has_buffers
from engine.buffering.fields import layout_of
from engine.buffering.own import OwnBuffers
from engine.ecs import EsperWorld
from engine.entity import Entity, attach, detach

__all__ = ["Spawner", "spawner_of"]

E = TypeVar("E", bound=Entity)
_SPAWNER = itemgetter(0)


class Spawner:
    """One world's entities: the update order, the deferred spawns and despawns, the id counter."""

    def __init__(self, owner: Host, ecs: EsperWorld, buffers: PureBuffers) -> None:
        # Weakly: entities and esper's globals must never keep a world alive through its parts.
        self._owner = weakref.ref(owner)
        self._ecs = ecs
        self._buffers = buffers
        self._order: dict[int, Entity] = {}
        self._update_list: list[Entity] | None = None
        # Replaced whenever the order changes: a rollback to a checkpoint holding the same one
        # knows that nobody came or went since, without comparing the entities one by one.
        self._order_token = object()
        self._kept: tuple[object, dict[int, Entity], list[Entity]] | None = None  # kept()'s last copies, by token
        self._spawns: list[tuple[int, Entity, tuple[Any, ...]]] = []
        self._despawns: list[Entity] = []
        self.last_id = 0
        """The highest id handed out so far: the next spawn gets a higher one."""
        self.structure_version = 0
        """Goes up whenever the set of live entities changes (renderers re-sync on it)."""
        self._restoring = False  # set while a save's entities are spawned: they hold what the save held
        self._shuffled = False  # the update order was permuted: queries sort by id, as spawn order had them
        # The entities live when a tick began, by id, and per kind asked: entities_of during a tick.
        self._start: list[Entity] = []
        self._start_token: object | None = None
        self._start_of: dict[Any, list[Any]] = {}
        # The order's entities by class (exact class, then id), kept as they join and leave: entities_of(kind)
        # looks at the kind's classes only, not at every entity. None: made again from the order when next asked.
        self._by_class: dict[type, dict[int, Entity]] | None = {}

    # -- reading ------------------------------------------------------------------------

    def live(self) -> list[Entity]:
        """Live entities in spawn order (by id), whatever the update order; a new list.

        During a tick: everyone live when the tick began (``World.entities``), so the answer
        never depends on who updated first.
        """
        if self._during_tick():
            return list(self._tick_start())
        live = [entity for entity in self._order.values() if entity.alive]
        if self._shuffled:
            live.sort(key=_ID)
        return live

    def live_of(self, kind: type[E] | tuple[type[Any], ...]) -> list[E]:
        """Live entities that are instances of ``kind``, in spawn order (by id), whatever the update order.

        During a tick: those live when the tick began, like ``live``; kept for the tick, per kind.
        """
        if self._during_tick():
            if self._start_token is not self._order_token:
                self._tick_start()
            try:
                found = self._start_of[kind]
            except KeyError:
                found = self._start_of[kind] = self._of_kind(kind)  # the order holds the tick's start
            return list(found)
        return [entity for entity in self._of_kind(kind) if entity.alive]

    def _of_kind(self, kind: type | tuple[type, ...]) -> list[Any]:
        """The order's entities that are instances of ``kind``, by id: the kind's classes looked at, not everyone."""
        if not isinstance(kind, type):  # as isinstance says it (a tuple of classes, a non-class)
            return sorted((entity for entity in self._order.values() if isinstance(entity, kind)), key=_ID)
        return self.of_classes(lambda cls: issubclass(cls, kind))

    def of_classes(self, test: Callable[[type], bool]) -> list[Any]:
        """The entities of the order (during a tick: as it began) whose class passes ``test``, by id: each class
        tested once, whatever the count of its entities (the collision tables find the static entities so)."""
        by_class = self._by_class
        if by_class is None:
            by_class = self._by_class = {}
            for entity in self._order.values():
                self._index(entity)
        groups = [members.values() for cls, members in by_class.items() if members and test(cls)]
        if not groups:
            return []
        # By id: a class's entities mostly joined in the order of their ids, which sorts in one pass.
        return sorted(groups[0] if len(groups) == 1 else chain.from_iterable(groups), key=_ID)

    def _index(self, entity: Entity) -> None:
        by_class = self._by_class
        if by_class is not None:
            members = by_class.get(type(entity))
            if members is None:  # not setdefault(kind, {}): that makes a dict at every call (a tick's spawns)
                members = by_class[type(entity)] = {}
            members[entity.id] = entity  # type: ignore[index]

    def _unindex(self, entity: Entity) -> None:
        if self._by_class is not None:
            members = self._by_class.get(type(entity))
            entity_id = entity.id
            if members is not None and members.get(entity_id) is entity:  # type: ignore[arg-type]
                del members[entity_id]  # type: ignore[arg-type]

    def count(self) -> int:
        """How many entities are live (during a tick: were live when it began)."""
        if self._during_tick():
            return len(self._order)
        return sum(1 for entity in self._order.values() if entity.alive)

    def _during_tick(self) -> bool:
        owner = self._owner()
        return owner is not None and owner.ticking

    def _tick_start(self) -> list[Entity]:
        """During a tick: everyone live when it began, by id. The order holds exactly them until the tick's end
        (spawns and despawns wait for ``settle``), so its token says when the list must be made again."""
        if self._start_token is not self._order_token:
            start = list(self._order.values())
            if self._shuffled:
                start.sort(key=_ID)
            self._start, self._start_token, self._start_of = start, self._order_token, {}
        return self._start

    def update_order(self) -> list[Entity]:
        """Everyone in the update order, as a new list: live when the tick began.

        Despawns take effect at once, but a despawned entity leaves the update order only
        after the tick. A copy, so that no caller can change the list a tick walks.
        """
        return list(self.ticking_order())

    def ticking_order(self) -> list[Entity]:
        """The list the world's buffers walk in a tick: kept until the order changes, for the world only."""
        order = self._update_list
        if order is None:
            order = self._update_list = list(self._order.values())
        return order

    def shuffle(self, rng: random.Random) -> None:
        """Permute the update order of the live entities, from the next tick on (``World.shuffle_order``)."""
        entities = list(self._order.values())
        rng.shuffle(entities)
        self._order = {entity.id: entity for entity in entities if entity.id is not None}
        self._shuffled = True
        self._update_list = None
        self._order_token = object()

    # -- spawning and despawning ------------------------------------------------------------

    def spawn(self, entity: E, components: tuple[Any, ...], ticking: bool) -> E:
        """``World.spawn``: add ``entity`` at once, or, during a tick, after it (see ``World.spawn``)."""
        if not isinstance(entity, Entity):
            raise TypeError(f"World.spawn takes an Entity, got {entity!r}")
        if not has_buffers(entity):
            raise TypeError(
                f"{type(entity).__name__} was not initialised as an Entity: call super().__init__() in its __init__"
            )
        owner = self._owner()
        world = entity.world  # read once: a weakly held world, called each time it is read
        if world is not None:
            if world is owner and entity.alive:
                raise ValueError(f"{entity!r} is already spawned in this world")
            if world is owner:
                raise ValueError(f"{entity!r} was despawned; an entity lives once: spawn a new one")
            raise ValueError(f"{entity!r} belongs to another world; spawn a new entity instead")
        if entity.id is not None:
            raise ValueError(f"{entity!r} was despawned; an entity lives once: spawn a new one")
        if not self._restoring:  # a save restores what it held; a new entity's __init__ may set a list
            layout = layout_of(entity)
            if layout.rest:  # x, y and angle alone are never refused: spare the call (a tick's spawns)
                layout.check_immutable(entity)
        attach(entity, owner, self._buffers.state)
        entity.alive = True
        self._buffers.snap(entity, False)  # previous = current: nothing to interpolate from yet
        if ticking:
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
        self.last_id = entity_id
        self._order[entity_id] = entity
        self._index(entity)
        self._order_token = object()
        if isinstance(entity, OwnBuffers):
            self._buffers.hook(entity)

    def despawn(self, entity: Entity, ticking: bool) -> None:
        """``World.despawn``: ``alive`` is False at once; during a tick it leaves after the tick."""
        if not isinstance(entity, Entity):
            raise TypeError(f"World.despawn takes an Entity, got {entity!r}")
        world = entity.world
        if world is not self._owner():
            where = "was never spawned" if world is None else "belongs to another world"
            raise ValueError(f"cannot despawn {entity!r}: it {where}")
        if not entity.alive:
            return
        entity.alive = False
        if ticking:
            if entity.id is not None:  # one spawned in this tick simply never joins
                self._despawns.append(entity)
        else:
            with self._ecs.context():
                self._remove(entity)

    def _remove(self, entity: Entity) -> None:
        assert entity.id is not None
        self._buffers.unhook(entity)
        self._unindex(entity)
        if self._order.pop(entity.id, None) is not None:
            self._order_token = object()
            self._update_list = None
            self.structure_version += 1
        self._ecs.delete(entity.id)

    # -- the tick's end -----------------------------------------------------------------

    def settle(self) -> None:
        """After a tick: despawned entities leave, and spawned ones join in the canonical order."""
        if not (self._spawns or self._despawns):
            return
        # What _remove and _join do entity by entity, done for the whole tick at once: the
        # order, the hooks and esper change exactly as they would one by one.
        order = self._order
        ecs = self._ecs
        with ecs.context():
            leaving = [entity for entity in self._despawns if entity.id is not None]
            self._buffers.unhook(*leaving)
            gone: list[int] = []
            left: list[Entity] = []
            unindex = self._unindex
            for entity in leaving:
                entity_id: int = entity.id  # type: ignore[assignment]
                if order.pop(entity_id, None) is not None:
                    unindex(entity)
                    left.append(entity)
                gone.append(entity_id)
            self.structure_version += len(left)
            ecs.delete_all(gone)
            # A stable sort by spawner id: the canonical order ids are handed out in.
            self._spawns.sort(key=_SPAWNER)
            joining = [(components, entity) for _spawner, entity, components in self._spawns if entity.alive]
            ids = ecs.create_all(joining, Entity)
        listed = self._update_list
        if listed is not None and not _cut(listed, left):
            listed = None
        index = self._index
        for entity_id, (_components, entity) in zip(ids, joining, strict=True):
            entity.id = entity_id
            if entity_id in order:  # an id taken twice would keep its old place in the order
                listed = None
                self._unindex(order[entity_id])
            order[entity_id] = entity
            index(entity)
            if isinstance(entity, OwnBuffers):
                self._buffers.hook(entity)
        if ids:
            self.last_id = ids[-1]
        self._order_token = object()
        if listed is not None:
            # The order lost ``left`` and gained the joined at its end: the list follows it without
            # a rebuild (which touches every entity), as the order's own list would come out.
            listed.extend([entity for _components, entity in joining])
        self._update_list = listed
        self._spawns = []
        self._despawns = []
        self.structure_version += 1

    def drop_deferred(self) -> None:
        """The tick failed: its despawned entities are alive again, and its spawned ones never were."""
        for entity in self._despawns:
            entity.alive = True
        self._despawns = []
        for _spawner, entity, _components in self._spawns:
            entity.alive = False
            detach(entity)
        self._spawns = []
        self._update_list = None  # rebuilt: code reaching past the engine may have changed it

    # -- checkpoints (engine.world.checkpoints) ------------------------------------------------

    def kept(self) -> tuple[dict[int, Entity], list[Entity], int, object]:
        """For a checkpoint (between ticks): the update order (live entities by id, and as a list), the id counter
        and the order's token.

        The dict and the list are copies no one changes (a rollback copies them again): checkpoints
        taken while nobody came or went share them, so a session that checkpoints every tick copies
        them only when the order changes.
        """
        assert not (self._spawns or self._despawns), "a checkpoint is taken between ticks"
        kept = self._kept
        if kept is None or kept[0] is not self._order_token:
            kept = self._kept = (self._order_token, dict(self._order), list(self._order.values()))
        return kept[1], kept[2], self.last_id, self._order_token

    def put_back(self, order: dict[int, Entity], last_id: int, token: object) -> list[Entity]:
        """A rollback: exactly the entities of ``order`` are live again, in that order; ``last_id`` is the counter.

        An entity spawned since leaves the world as if never spawned (no world, no id); one
        despawned since comes back under its id, the same object. Returns those that came back.
        """
        if token is self._order_token:  # the usual rollback: nobody came or went
            self.restore_last_id(last_id)
            return []
        owner = self._owner()
        kept = {id(entity) for entity in order.values()}  # identity, never in any hash
        now = {id(entity) for entity in self._order.values()}
        back = [(entity_id, entity) for entity_id, entity in order.items() if id(entity) not in now]
        with self._ecs.context():
            for entity in list(self._order.values()):
                if id(entity) not in kept:
                    self._remove(entity)
                    entity.alive = False
                    entity.id = None
                    detach(entity)
            for entity_id, entity in back:  # by the checkpoint's ids: a later rollback may have taken the entity's
                entity.id = entity_id
                self._ecs.next_id(entity_id)
                self._ecs.create((), entity, Entity)
                attach(entity, owner, self._buffers.state)
                if isinstance(entity, OwnBuffers):
                    self._buffers.hook(entity)
        for entity in order.values():
            entity.alive = True
        self._order = dict(order)
        self._by_class = None  # made again from the order when next asked
        self._order_token = token  # the checkpoint's order again
        self._update_list = None
        self.structure_version += 1
        self.restore_last_id(last_id)
        return [entity for _id, entity in back]

    # -- loading ------------------------------------------------------------------------

    def restore_entity(self, entity: Entity, entity_id: int, buffers: dict[str, Any]) -> None:
        """Spawn a loaded entity under its saved id, with its buffers' saved state (for ``World.load``).

        ``buffers`` is what ``engine.buffering.saved_state`` returned when it was saved:
        committed signals, previous values, its random generator. Between ticks only.
        """
        owner = self._owner()
        if owner is not None and owner.ticking:
            raise RuntimeError("entities are restored between ticks")
        self._ecs.next_id(entity_id)
        self._restoring = True
        try:
            self.spawn(entity, (), False)
        finally:
            self._restoring = False
        if entity.id != entity_id:
            raise ValueError(f"entity id {entity_id} is taken in this world")
        restore_state(entity, buffers)
        self._buffers.committed_signals(entity, buffers["signals"])

    def restore_last_id(self, last_id: int) -> None:
        """Make the next spawned entity get ``last_id + 1`` (a loaded save's id counter)."""
        self._ecs.next_id(last_id + 1)
        self.last_id = last_id


_ID = attrgetter("id")
_MOST_RUNS = 4  # past this many runs of removed entities, deleting them costs more than a rebuild


def _cut(listed: list[Entity], left: list[Entity]) -> bool:
    """Delete ``left`` (each in ``listed`` once) from ``listed`` in place, when they sit in a few runs.

    Found by id (``listed`` is in ascending ids unless shuffled, rolled back or loaded out of
    order) and every place checked by identity: returns False, ``listed`` untouched, whenever
    one is not where the search says, or they are scattered (then the caller rebuilds the list).
    """
    if not left:
        return True
    places: list[int] = []
    place = -2
    try:
        for entity in left:
            if not (0 <= place + 1 < len(listed) and listed[place + 1] is entity):  # the usual: the next one
                place = bisect_left(listed, entity.id, key=_ID)
                if place >= len(listed) or listed[place] is not entity:
                    return False
            else:
                place += 1
            places.append(place)
    except TypeError:  # an id that is not an int: no search by id
        return False
    places.sort()
    runs: list[tuple[int, int]] = []
    for place in places:
        if runs and runs[-1][1] == place:
            runs[-1] = (runs[-1][0], place + 1)
        elif runs and runs[-1][1] > place:
            return False  # the same place twice
        else:
            runs.append((place, place + 1))
            if len(runs) > _MOST_RUNS:
                return False
    for start, stop in reversed(runs):
        del listed[start:stop]
    return True


def spawner_of(world: object) -> Spawner:
    """The ``Spawner`` a ``World`` is composed of: for the engine's loader and renderer, not for games.

    Takes ``object`` because this module sits below ``World`` (see the module docstring).
    """
    spawner = getattr(world, "_spawner", None)
    if not isinstance(spawner, Spawner):
        raise TypeError(f"spawner_of takes a World, got {world!r}")
    return spawner
