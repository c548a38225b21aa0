"""Buffers: the Double Buffer of one world, the one owner of every entity's buffered state.

Game Programming Patterns' Double Buffer keeps two copies of the state: *current*, which
everyone reads, and *next*, which this tick writes; after the tick they swap. Here every
buffered value is a plain instance attribute, so ``self.x += 1`` costs what it costs on any
Python object, and the buffers make the attribute mean the right thing for each reader:

* **Stash.** When the Update Method system starts, every entity's committed values are
  set aside (the *baseline*).
* **Update.** Each entity updates in turn. While it runs, its attributes are its own
  pending values; when it returns, the pending values are kept aside and the committed
  ones put back, so every later entity reads what was committed.
* **Commit.** After the last update, every entity's attributes are compared with the
  baseline: an entity may write only its own buffered state, so any difference is a
  write from another entity's update, and the tick is refused (``BufferedWriteError``)
  in every update order alike. Then the pending values become committed, so systems
  that run after the Update Method system see them.
* **Finish** (after every system): the baseline becomes the *previous* values that
  rendering interpolates from, signals swap, and hooks of entities with buffers of their
  own (a ``Crowd``) run.
* **Abort** (the tick failed): the baseline is put back, pending signals and hooks are
  dropped, and per-entity random generators are rewound: nothing the tick did remains.

Only an entity that changed pays for the swap. Finding *which* entity wrote another's
state needs more than a comparison, so it is done only when the tick is already being
refused: the world rolls the tick back and runs it once more with a trap on the field
that was written (``trap_writes``), which names the writer and the file and line.

Nothing outside this package reads or writes the attributes it keeps on entities
(their names start with ``_b``, ``_n``, ``_p``): the world, the renderer and saves call
the functions here.

**Two paths, one protocol.** ``PureBuffers`` (here) runs the protocol above in Python.
``CompiledBuffers`` (in ``compiled``) runs the same steps in the compiled core (``_core.c``): the world
still calls each ``update()`` from Python, ``for entity in settler: entity.update(world)``,
so the call stays a cheap Python-to-Python call, and the settler's next step does the
bookkeeping around it in C (set the committed values aside, skip despawned entities,
keep what changed pending, put the committed values back); the stash, the check for
foreign writes and the commit are C loops. Both read the same slots of ``BufferSlots``
(``slots``), ``Entity``'s base class, and give the same results bit for bit (``tests/test_core.py``
runs random worlds on both). ``Buffers`` is the one that runs: the compiled core where
it was built, unless ``TICKSWAP_PURE=1``; ``ACCELERATED`` says which.

Where no system runs before or after the Update Method system (the common case), the
commit also records the previous values, in the same pass: nothing can change them or
fail before ``finish``. The core commits by moving references between slots (pending
to committed, committed to previous, the spent previous to pending, released after the
entity's next update, where the allocator takes it straight back) rather than copying.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from engine.buffering.access import NO_SIGNALS
from engine.buffering.fields import MUTABLE_TYPES, Layout, layout_of
from engine.buffering.kept import keep_buffers, put_back_buffers, restore_buffers
from engine.buffering.own import OwnBuffers
from engine.buffering.shown import UNCHANGED, ShownBuffers
from engine.buffering.signals import SignalBuffers
from engine.buffering.slots import ACCELERATED, BufferSlots, Host
from engine.buffering.traps import trap_writes
from engine.errors import EntityUpdateError

__all__ = ["ACCELERATED", "BufferSlots", "ForeignWrites", "PureBuffers", "UpdateTimer", "init_entity"]


class UpdateTimer(Protocol):
    """What times a tick's updates while a world is profiled (``engine.world.TickProfile``)."""

    def run_updates(self, settler: Iterable[BufferSlots], world: Any) -> None:
        """Call ``update(world)`` on each entity ``settler`` hands out, timing them."""

    def timed(self, part: str, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)``, timed as one of the engine's parts."""


class ForeignWrites(Exception):
    """Raised by ``commit`` when entities' buffered state was written by other entities.

    Carries ``(entity, field)`` pairs in update order; the world turns it into a
    ``BufferedWriteError`` that names the writer.
    """

    def __init__(self, written: list[tuple[BufferSlots, str]]) -> None:
        super().__init__(written)
        self.written = written


def init_entity(entity: BufferSlots, layout: Layout) -> None:
    """Give a new entity the buffer slots, every one, so all instances share one layout.

    CPython keeps attributes of instances with the same attribute order in a shared key table with
    inline values, which keeps ``self.x`` fast; creating them all here in one order keeps every entity so.
    """
    x, y, angle = entity.x, entity.y, entity.angle
    entity._motion_only = not layout.rest
    entity._bx = entity._px = entity._nx = x
    entity._by = entity._py = entity._ny = y
    entity._ba = entity._pa = entity._na = angle
    entity._bfull = entity._nfull = ()
    entity._prest = ()
    entity._prev_tick = -1
    entity._signals = NO_SIGNALS
    entity._random = None
    entity._random_mark = -1
    # What it shows: its class's (None), unless its own __init__ set its own before calling Entity's
    # (which marks _blook, the baseline slot: one test, not two failed reads, on every entity made).
    if hasattr(entity, "_blook"):
        entity._look = getattr(entity, "_look", None)
        entity._parts = getattr(entity, "_parts", None)
    else:
        entity._look = entity._parts = None
    entity._blook = entity._bparts = UNCHANGED


class PureBuffers(SignalBuffers, ShownBuffers):
    """The Double Buffer of one world, in pure Python (see the module docstring for the protocol).

    ``CompiledBuffers`` does the same with the compiled core; ``Buffers`` is whichever
    of the two runs (``ACCELERATED``).
    """

    keep_entities = staticmethod(keep_buffers)  # a checkpoint's share of the buffers (engine.buffering.kept)
    put_back_entities = staticmethod(put_back_buffers)
    restore_classes = staticmethod(restore_buffers)

    def __init__(self) -> None:
        super().__init__()
        self.init_shown()
        self.sender = None
        self.serial = 0
        """Goes up at every tick attempt: marks which entities' generators were saved this tick."""
        self._order: Sequence[BufferSlots] = []
        self._size = 0
        self._moved: list[BufferSlots] = []
        self._changed: list[BufferSlots] = []
        self._snapped: list[BufferSlots] = []
        self._randoms: list[tuple[BufferSlots, Any]] = []
        self._system_written: list[tuple[BufferSlots, tuple[Any, ...]]] = []
        self._early = False
        self._stashed = False
        self._hooked: list[OwnBuffers] = []
        self._tick = 0
        self._late_systems = True
        self.diagnosing = False
        """Set while the world re-runs a refused tick to find the writer: never commit then."""
        self.profile: UpdateTimer | None = None
        """What times the updates (a world's ``TickProfile``), or ``None``: the plain loop runs."""

    # -- entities with buffers of their own ------------------------------------------------

    def hook(self, entity: OwnBuffers) -> None:
        """Commit an entity's own buffers after each tick, and abort them when a tick fails."""
        self._hooked.append(entity)

    def unhook(self, *entities: object) -> None:
        """Stop calling these entities' buffer hooks (they left the world): one pass, none if nobody is hooked."""
        if self._hooked:
            gone = {id(entity) for entity in entities}  # identity, never in any hash
            self._hooked = [other for other in self._hooked if id(other) not in gone]

    # -- the tick ------------------------------------------------------------------------

    def begin(self, order: Sequence[BufferSlots], early_systems: bool, late_systems: bool = True,
              tick: int = 0) -> None:
        """Tick ``tick`` starts: set every entity's committed values aside (the baseline: what
        a failed tick goes back to) and remember where pending signals end."""
        self.serial += 1
        self._tick = tick
        self._early = early_systems
        self._late_systems = late_systems
        self._order = order
        self._size = len(order)
        self._pending_mark = len(self._pending)
        self._stash(order)
        self._stashed = True

    def _stash(self, order: Sequence[BufferSlots]) -> None:
        for each in order:
            each._bx = each.x
            each._by = each.y
            each._ba = each.angle
            if not each._motion_only:
                each._bfull = layout_of(each).get(each)

    def late_system_added(self) -> None:
        """A system after the Update Method system was added during this tick: it may run in it."""
        self._late_systems = True

    def update(self, world: Host) -> None:
        """The Update Method system: stash, every live entity's ``update()``, commit.

        The hot path of the engine, so it is written out inline: no call or allocation
        per entity beyond what the entity's own update makes, except for entities with
        buffered fields of their own (a tuple per tick each).
        """
        order = self._order
        if self._early:
            self._absorb_system_writes()
        if self.profile is not None:
            self._update_profiled(world, self.profile)
            return
        moved_append = self._moved.append
        changed_append = self._changed.append
        entity: BufferSlots | None = None
        try:
            for entity in order:
                if not entity.alive:
                    continue
                self.sender = entity
                if entity._motion_only:
                    before_x = entity.x
                    before_y = entity.y
                    before_angle = entity.angle
                    entity.update(world)
                    after_x = entity.x
                    after_y = entity.y
                    after_angle = entity.angle
                    # Identity, not equality: an unchanged attribute is the same object, and
                    # a new object with an equal value merely costs a harmless swap.
                    if after_x is not before_x or after_y is not before_y or after_angle is not before_angle:
                        entity._nx = after_x
                        entity._ny = after_y
                        entity._na = after_angle
                        moved_append(entity)
                        entity.x = before_x
                        entity.y = before_y
                        entity.angle = before_angle
                else:
                    get = layout_of(entity).get
                    before = get(entity)
                    entity.update(world)
                    after = get(entity)
                    if after != before:
                        if not MUTABLE_TYPES.isdisjoint(map(type, after)):
                            layout_of(entity).refuse_mutable(entity, after)
                        entity._nfull = after
                        changed_append(entity)
                        layout_of(entity).set(entity, before)
        except BaseException as error:
            self.sender = None
            if isinstance(error, EntityUpdateError) or not isinstance(error, Exception) or entity is None:
                raise
            raise EntityUpdateError(entity, world.tick_count + 1, error) from error
        self.sender = None
        self._commit()

    def _update_profiled(self, world: Host, profile: UpdateTimer) -> None:
        """``update`` with each entity's ``update()`` timed: the same bookkeeping, as a generator the timer walks."""
        try:
            profile.run_updates(self._settled(self._order), world)
        except BaseException as error:
            entity = self.sender
            self.sender = None
            if isinstance(error, EntityUpdateError) or not isinstance(error, Exception) or entity is None:
                raise
            raise EntityUpdateError(entity, world.tick_count + 1, error) from error
        self.sender = None
        self._commit()

    def _settled(self, order: Sequence[BufferSlots]) -> Iterator[BufferSlots]:
        """The live entities in turn, each settled after its update as ``update``'s loop settles it."""
        for entity in order:
            if not entity.alive:
                continue
            self.sender = entity
            if entity._motion_only:
                before_x = entity.x
                before_y = entity.y
                before_angle = entity.angle
                yield entity
                after_x = entity.x
                after_y = entity.y
                after_angle = entity.angle
                if after_x is not before_x or after_y is not before_y or after_angle is not before_angle:
                    entity._nx = after_x
                    entity._ny = after_y
                    entity._na = after_angle
                    self._moved.append(entity)
                    entity.x = before_x
                    entity.y = before_y
                    entity.angle = before_angle
            else:
                get = layout_of(entity).get
                before = get(entity)
                yield entity
                after = get(entity)
                if after != before:
                    if not MUTABLE_TYPES.isdisjoint(map(type, after)):
                        layout_of(entity).refuse_mutable(entity, after)
                    entity._nfull = after
                    self._changed.append(entity)
                    layout_of(entity).set(entity, before)

    def _check_order(self) -> None:
        # The list is the engine's own (Spawner.ticking_order); only code reaching into
        # private attributes can change it, and then both paths refuse the tick alike.
        if len(self._order) != self._size:
            raise RuntimeError(f"the update order was changed during tick {self._tick}: "
                               f"{self._size} entities became {len(self._order)}")

    def _commit(self) -> None:
        self._check_order()
        written: list[tuple[BufferSlots, str]] = []
        for entity in self._order:
            if entity._motion_only:
                if entity.x is not entity._bx or entity.y is not entity._by or entity.angle is not entity._ba:
                    written.extend(_differences(entity, (entity._bx, entity._by, entity._ba)))
            elif layout_of(entity).get(entity) != entity._bfull:
                written.extend(_differences(entity, entity._bfull))
        if written or self.diagnosing:
            raise ForeignWrites(written)
        self.commit_shown(self._late_systems or bool(self._pending))
        moved = self._moved
        if not self._late_systems and not self._pending:
            # No later system and no signal to combine (a combine is game code that may fail
            # after this): record the previous values in the same pass, as nothing can change
            # them or fail before ``finish``. (Those systems before it wrote get theirs there.)
            tick = self._tick
            for entity in moved:
                entity._px = entity._bx
                entity._py = entity._by
                entity._pa = entity._ba
                entity._prev_tick = tick
                entity.x = entity._nx
                entity.y = entity._ny
                entity.angle = entity._na
            moved.clear()
        else:
            for entity in moved:
                entity.x = entity._nx
                entity.y = entity._ny
                entity.angle = entity._na
        for entity in self._changed:
            layout_of(entity).set(entity, entity._nfull)

    def _absorb_system_writes(self) -> None:
        """Systems that ran before this one may have written entities: what they wrote is
        committed state the entities read as their own, so it becomes the baseline the
        commit checks against; the tick-start values are kept aside for previous values and
        for a rollback. Only entities a system wrote pay for this, beyond one pass."""
        written = self._system_written
        for entity in self._order:
            if entity._motion_only:
                if entity.x is entity._bx and entity.y is entity._by and entity.angle is entity._ba:
                    continue
                written.append((entity, (entity._bx, entity._by, entity._ba)))
                entity._bx, entity._by, entity._ba = entity.x, entity.y, entity.angle
            else:
                now = layout_of(entity).get(entity)
                if now != entity._bfull:
                    written.append((entity, entity._bfull))
                    entity._bfull = now

    def finish(self, tick: int, late_systems: bool) -> None:
        """After every system: previous values, snaps, signals swap, entities' own buffers.

        Previous values are the baseline of every entity that changed in this tick. With
        systems after the Update Method system any entity may have changed, so all are
        compared (one pass, no allocation for entities with only x, y and angle).
        """
        if late_systems and self._stashed:
            for entity in self._order:
                if entity._motion_only:
                    if entity.x is not entity._bx or entity.y is not entity._by or entity.angle is not entity._ba:
                        entity._px = entity._bx
                        entity._py = entity._by
                        entity._pa = entity._ba
                        entity._prev_tick = tick
                elif layout_of(entity).get(entity) != entity._bfull:
                    _previous_from(entity, entity._bfull, tick)
        else:
            self._record_moved(tick)
            for entity in self._changed:
                _previous_from(entity, entity._bfull, tick)
        for entity, before in self._system_written:
            _previous_from(entity, before + entity._bfull[len(before):], tick)
        self._system_written.clear()
        self.forget_shown()
        self._moved.clear()
        self._changed.clear()
        for entity in self._snapped:
            entity._prev_tick = -1
        self._snapped.clear()
        self._randoms.clear()
        if self.profile is None:
            self._swap_signals()
        else:  # the signals' share of the finish, said apart from the Double Buffer's
            self.profile.timed("signals", self._swap_signals)
        for own in self._hooked:
            own._commit_own(tick)
        self._stashed = False
        self._order = []

    def _record_moved(self, tick: int) -> None:
        for entity in self._moved:
            entity._px = entity._bx
            entity._py = entity._by
            entity._pa = entity._ba
            entity._prev_tick = tick

    def abort(self) -> None:
        """The tick failed: put back everything the buffers own as it was when it began."""
        self.sender = None
        if self._stashed:
            for entity in self._order:
                if entity._motion_only:
                    entity.x = entity._bx
                    entity.y = entity._by
                    entity.angle = entity._ba
                else:
                    layout_of(entity).set(entity, entity._bfull)
        for entity, before in reversed(self._system_written):
            if entity._motion_only:
                entity.x, entity.y, entity.angle = before
            else:
                layout_of(entity).set(entity, before)
        self._system_written.clear()
        self.abort_shown()
        self._moved.clear()
        self._changed.clear()
        self._snapped.clear()
        self._drop_signals()
        for entity, state in reversed(self._randoms):
            if state is None:
                entity._random = None
            else:
                entity._random.setstate(state)
        self._randoms.clear()
        for own in self._hooked:
            own._abort_own()
        self._stashed = False
        self._order = []

    # -- per-entity odds and ends ---------------------------------------------------------------

    def snap(self, entity: BufferSlots, ticking: bool) -> None:
        """previous = current; inside a tick, for the values that tick commits."""
        if ticking:
            self._snapped.append(entity)
        else:
            entity._prev_tick = -1

    def random_for(self, entity: BufferSlots, seed: Any, ticking: bool) -> random.Random:
        """The entity's generator, made on first use from the world's seed and the entity's id.

        Seeded from a string, which ``random`` hashes with SHA-512, never with ``hash()``:
        the same in every process. Inside a tick its state is saved once, on first use, so
        a failed tick rewinds it.
        """
        generator: random.Random | None = entity._random
        if ticking and entity._random_mark != self.serial:
            entity._random_mark = self.serial
            self._randoms.append((entity, None if generator is None else generator.getstate()))
        if generator is None:
            generator = random.Random(f"tickswap:{seed!r}:{entity.id}")
            entity._random = generator
        return generator

    def trap_writes(self, written: list[tuple[BufferSlots, str]],
                    on_write: Callable[[BufferSlots, BufferSlots, str, str], None]) -> AbstractContextManager[None]:
        """Report writes to the ``written`` fields from other entities' updates (see ``engine.buffering.traps``)."""
        return trap_writes(self, written, on_write)


def _previous_from(entity: BufferSlots, base: tuple[Any, ...], tick: int) -> None:
    entity._px, entity._py, entity._pa = base[0], base[1], base[2]
    entity._prest = base[3:]
    entity._prev_tick = tick


def _differences(entity: BufferSlots, base: tuple[Any, ...]) -> list[tuple[BufferSlots, str]]:
    layout = layout_of(entity)
    return [(entity, name) for name, now, was in zip(layout.names, layout.get(entity), base) if now is not was]
