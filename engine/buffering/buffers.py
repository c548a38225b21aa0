"""Buffers: the Double Buffer of one world, the one owner of every entity's buffered state.

Game Programming Patterns' Double Buffer keeps two copies of the state: *current*, which
everyone reads, and *next*, which this tick writes; after the tick they swap. Here every
buffered value is a plain slot or instance attribute, so reading ``self.x`` costs what it
costs on any Python object, and the buffers make it mean the right thing for each reader
by watching the *writes*:

* **The write barrier** (``engine.buffering.slots.barrier``). Every write to a buffered
  field during a tick is checked where it is made. The updating entity's own writes are its
  pending values: the *baseline* slots ``_bx``, ``_by``, ``_ba`` always hold the committed
  ``x``, ``y`` and ``angle`` (``_blook`` and ``_bparts`` its look and parts, whose
  descriptors apply the same rule: ``engine.buffering.shown``), so moving itself sets
  nothing aside; an entity with buffered fields of its own sets its committed tuple aside
  at its first write (and is marked with the tick's token). A write to *another* entity's
  buffered field from an update is refused at that line (``BufferedWriteError``), the
  first time it runs: nothing to compare later, no tick to run again. A system's write
  (nobody updating) is committed at once, its values at the tick's start kept aside.
* **Settle.** When an entity's update returns, if it wrote (a slot holds another object than
  its baseline, or the mark), what it wrote is kept aside as pending and its committed values
  put back, so every later entity reads what was committed. Entities that wrote nothing cost
  a few identity tests.
* **Commit.** After the last update, the pending values become committed, so systems
  that run after the Update Method system see them.
* **Finish** (after every system): the baseline becomes the *previous* values that
  rendering interpolates from, signals swap, and hooks of entities with buffers of their
  own (a ``Crowd``) run.
* **Abort** (the tick failed): the baselines, and the values systems wrote over, are put
  back, pending signals and hooks are dropped, and per-entity random generators are
  rewound: nothing the tick did remains.

Nothing outside this package reads or writes the attributes it keeps on entities
(their names start with ``_b``, ``_n``, ``_p``, ``_w``): the world, the renderer and saves
call the functions here.

**Two paths, one protocol.** ``PureBuffers`` (here) runs the protocol above in Python, its
barrier ``BufferSlots.__setattr__``. ``CompiledBuffers`` (in ``compiled``) runs the same
steps in the compiled core (``_core.c``): the barrier is the entities' base type's
``tp_setattro``, so a plain attribute's write pays one C test; the world still calls each
``update()`` from Python, ``for entity in settler: entity.update(world)``, so the call stays
a cheap Python-to-Python call, and the settler's next step settles the entity in C. Both
give the same results bit for bit (``tests/test_core.py`` runs random worlds on both).
``Buffers`` is the one that runs: the compiled core where it was built, unless
``TICKSWAP_PURE=1``; ``ACCELERATED`` says which.

Where no system runs after the Update Method system (the common case), the tick's signals
are combined just before the commit (``_combine_early``: no signal can be raised after the
updates, and a combine that fails finds nothing committed), and the commit also records the
previous values, in the same pass: nothing can change them or fail before ``finish``. The
core commits by moving references between slots (pending to committed, committed to
previous, the spent previous to pending) rather than copying.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

from engine.buffering.access import NO_SIGNALS
from engine.buffering.fields import Layout, layout_of
from engine.buffering.kept import keep_buffers, put_back_buffers, random_restore, random_snapshot, restore_buffers
from engine.buffering.own import OwnBuffers
from engine.buffering.shown import bump, commit_shown, settle_shown, undo_shown
from engine.buffering.signals import SignalBuffers
from engine.buffering.slots import ACCELERATED, BufferSlots, Host, TickState, _core, mutable_in
from engine.errors import BufferedWriteError, EntityUpdateError

__all__ = ["ACCELERATED", "BufferSlots", "PureBuffers", "UpdateTimer", "fill_missing", "init_entity"]


class UpdateTimer(Protocol):
    """What times a tick's updates while a world is profiled (``engine.world.TickProfile``)."""

    def run_updates(self, settler: Iterable[BufferSlots], world: Any) -> None:
        """Call ``update(world)`` on each entity ``settler`` hands out, timing them."""

    def timed(self, part: str, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)``, timed as one of the engine's parts."""


def init_entity(entity: BufferSlots, layout: Layout) -> None:
    """Give a new entity the buffer slots, every one, so all instances share one layout.

    CPython keeps attributes of instances with the same attribute order in a shared key table with
    inline values, which keeps ``self.x`` fast; creating them all here in one order keeps every entity so.
    """
    if _core is not None:  # the same stores in one C call (through the barrier, each was a call of its own)
        own_shown = _core.init_entity(entity, not layout.rest, NO_SIGNALS)
    else:
        own_shown = hasattr(entity, "_blook")
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
        entity._wstate = entity._wmark = entity._smark = None  # its world's, from its spawn on (see ``attach``)
        entity._inboxes = None  # its valued signals' inboxes, made on first read (``engine.buffering.fields``)
    # What it shows: its class's (None), unless its own __init__ set its own before calling Entity's
    # (which marks _blook: one test, not two failed reads, on every entity made; the core answers it).
    if own_shown:
        entity._look = entity._blook = getattr(entity, "_look", None)
        entity._parts = entity._bparts = getattr(entity, "_parts", None)
    else:
        entity._look = entity._parts = entity._blook = entity._bparts = None


def fill_missing(entity: BufferSlots, pairs: tuple[tuple[str, Any], ...]) -> None:
    """``setattr(entity, name, default)`` for each ``(name, default)`` that ``hasattr`` says ``entity`` lacks, in order.

    ``Entity.__init__``'s buffered defaults (a subclass may have set its own values before calling it). With
    the compiled core, one C call that makes no ``AttributeError`` for each missing name (a new entity lacks
    them all, and each cost more than the store).
    """
    if _core is not None:
        _core.fill_missing(entity, pairs)
        return
    for name, default in pairs:
        if not hasattr(entity, name):
            setattr(entity, name, default)


_HERE = __file__.rsplit("buffering", 1)[0]  # the engine's own frames are skipped when naming the writer's line


def _writers_line() -> str | None:
    """The file and line of the first frame outside the engine: the game's line that wrote."""
    frame: Any = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_HERE):
        frame = frame.f_back
    return None if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"


class PureBuffers(SignalBuffers):
    """The Double Buffer of one world, in pure Python (see the module docstring for the protocol).

    ``CompiledBuffers`` does the same with the compiled core; ``Buffers`` is whichever
    of the two runs (``ACCELERATED``).
    """

    keep_entities = staticmethod(keep_buffers)  # a checkpoint's share of the buffers (engine.buffering.kept)
    put_back_entities = staticmethod(put_back_buffers)
    restore_classes = staticmethod(restore_buffers)

    def __init__(self) -> None:
        super().__init__()
        self.state: Any = (TickState if _core is None else _core.TickState)(self._refuse)
        """What the write barrier reads (``TickState``): every entity of the world points to it."""
        self.state.signals = self.raise_signal
        self.state.buffers = self
        self._order: Sequence[BufferSlots] = []
        self._size = 0
        self._moved: list[BufferSlots] = []
        self._changed: list[BufferSlots] = []
        self._shown: list[BufferSlots] = []
        """Entities whose update set their look or parts: settled, to commit."""
        self.shown_written: list[tuple[BufferSlots, Any, Any]] = []
        """(entity, look, parts) as they were before each write committed at once during this tick (a system's,
        or the commit's): what an abort puts back, last first."""
        self._snapped: list[BufferSlots] = []
        self._randoms: list[tuple[BufferSlots, Any]] = []
        self._failed: BufferSlots | None = None
        self._hooked: list[OwnBuffers] = []
        self._tick = 0
        self._late_systems = True
        self.profile: UpdateTimer | None = None
        """What times the updates (a world's ``TickProfile``), or ``None``: the plain loop runs."""

    @property
    def sender(self) -> BufferSlots | None:
        """The entity whose ``update()`` is running, or ``None``: signals record their sender."""
        return self.state.updating  # type: ignore[no-any-return]

    def _refuse(self, writer: BufferSlots, entity: BufferSlots, field: str) -> BufferedWriteError:
        """The error for ``writer``'s update writing ``entity``'s buffered ``field`` (the barrier raises it)."""
        return BufferedWriteError(writer, entity, field, self._tick, _writers_line())

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

    def begin(self, order: Sequence[BufferSlots], late_systems: bool = True, tick: int = 0) -> None:
        """Tick ``tick`` starts: the barrier watches every write from now on (a new token), and
        where pending signals end is remembered."""
        self._tick = tick
        self._late_systems = late_systems
        self._order = order
        self._size = len(order)
        self._pending_mark = len(self._to)
        self._combined_early = False
        self._failed = None
        state = self.state
        state.token = object()
        state.members = order
        state.tick = tick
        state.refused = None
        state.ticking = True

    def late_system_added(self) -> None:
        """A system after the Update Method system was added during this tick: it may run in it."""
        self._late_systems = True

    def update(self, world: Host) -> None:
        """The Update Method system: every live entity's ``update()``, each settled after it, then commit.

        The hot path of the engine, so it is written out inline: an entity that wrote
        nothing costs three identity tests (or one) after its update.
        """
        if self.profile is not None:
            self._update_profiled(world, self.profile)
            return
        state = self.state
        token = state.token
        moved_append = self._moved.append
        shown_append = self._shown.append
        entity: BufferSlots | None = None
        try:
            for entity in self._order:
                if not entity.alive:
                    continue
                state.updating = entity
                entity.update(world)
                if entity._motion_only:
                    # It wrote if a slot holds another object than its baseline (the committed
                    # value): identity, as the core compares.
                    if entity.x is not entity._bx or entity.y is not entity._by or entity.angle is not entity._ba:
                        _settle_moved(entity)
                        moved_append(entity)
                elif entity._wmark is token:
                    self._settle_full(entity)
                if entity._look is not entity._blook or entity._parts is not entity._bparts:
                    settle_shown(entity)
                    shown_append(entity)
                state.updating = None
        except BaseException as error:
            self._failed = state.updating
            state.updating = None
            if isinstance(error, EntityUpdateError) or not isinstance(error, Exception) or entity is None:
                raise
            raise EntityUpdateError(entity, world.tick_count + 1, error) from error
        self._commit()

    def _commit_shown(self, commit: Callable[[list[BufferSlots], Any], None]) -> None:
        """What the updates set of their own looks and parts becomes committed (by ``commit``, this path's
        or the core's); kept for an abort where something after the commit may still fail the tick."""
        if self._shown:
            # Undoable only with a system after the updates: the signals were combined before the commit.
            commit(self._shown, self.shown_written if self._late_systems else None)
            self._shown.clear()
            bump()

    def _settle_full(self, entity: BufferSlots) -> None:
        """Settle an entity with fields of its own that wrote: pending kept aside, committed put back."""
        layout = layout_of(entity)
        after = layout.get(entity)
        if any(map(mutable_in, after)):
            layout.refuse_mutable(entity, after)
        entity._nfull = after
        layout.set(entity, entity._bfull)  # still its own update's write: at once
        self._changed.append(entity)

    def _update_profiled(self, world: Host, profile: UpdateTimer) -> None:
        """``update`` with each entity's ``update()`` timed: the same bookkeeping, as a generator the timer walks."""
        state = self.state
        try:
            profile.run_updates(self._settled(self._order), world)
        except BaseException as error:
            entity = state.updating
            self._failed = entity
            state.updating = None
            if isinstance(error, EntityUpdateError) or not isinstance(error, Exception) or entity is None:
                raise
            raise EntityUpdateError(entity, world.tick_count + 1, error) from error
        self._commit()

    def _settled(self, order: Sequence[BufferSlots]) -> Iterator[BufferSlots]:
        """The live entities in turn, each settled after its update as ``update``'s loop settles it."""
        state = self.state
        token = state.token
        for entity in order:
            if not entity.alive:
                continue
            state.updating = entity
            yield entity
            if entity._motion_only:
                if entity.x is not entity._bx or entity.y is not entity._by or entity.angle is not entity._ba:
                    _settle_moved(entity)
                    self._moved.append(entity)
            elif entity._wmark is token:
                self._settle_full(entity)
            if entity._look is not entity._blook or entity._parts is not entity._bparts:
                settle_shown(entity)
                self._shown.append(entity)
            state.updating = None

    def _check_order(self) -> None:
        # The list is the engine's own (Spawner.ticking_order); only code reaching into
        # private attributes can change it, and then both paths refuse the tick alike.
        if len(self._order) != self._size:
            raise RuntimeError(f"the update order was changed during tick {self._tick}: "
                               f"{self._size} entities became {len(self._order)}")

    def _check_refused(self) -> None:
        # A game that caught the BufferedWriteError of its foreign write still has its tick refused.
        refused = self.state.refused
        if refused is not None:
            raise BufferedWriteError(refused.writer, refused.written, refused.field, self._tick, refused.where,
                                     caught=True) from None

    def _combine_early(self) -> None:
        """With no system after the Update Method system, no signal can be raised after the updates: this tick's
        are combined before the commit (``combine_signals``, which the world calls after the systems, then has
        nothing left to do). A combine is game code that may fail the tick, and so it fails with nothing
        committed yet; after it nothing can fail, so the commit records the previous values in the same pass."""
        if self._late_systems or not self._to:
            return
        if self.profile is None:
            self.combine_signals(self._tick)
        else:  # the signals' share, said apart as when the world combines them
            self.profile.timed("signals", self.combine_signals, self._tick)
        self._combined_early = True

    def _commit(self) -> None:
        self._check_order()
        self._check_refused()
        self._combine_early()
        self._commit_shown(commit_shown)
        state = self.state
        state.ticking = False  # the buffers' own writes: at once, past the barrier
        try:
            moved = self._moved
            if not self._late_systems:
                # No later system, and signals combined already (``_combine_early``): record the previous
                # values in the same pass, as nothing can change them or fail before ``finish``. (Those
                # systems wrote get theirs there.)
                tick = self._tick
                put = _put
                for entity in moved:
                    put(entity, "_px", entity._bx)
                    put(entity, "_py", entity._by)
                    put(entity, "_pa", entity._ba)
                    put(entity, "_prev_tick", tick)
                    put(entity, "x", entity._nx)
                    put(entity, "y", entity._ny)
                    put(entity, "angle", entity._na)
                    put(entity, "_bx", entity._nx)  # the baseline slots hold the committed values
                    put(entity, "_by", entity._ny)
                    put(entity, "_ba", entity._na)
                moved.clear()
            else:
                put = _put
                for entity in moved:
                    # Committed, and the baseline slots keep the tick's start until ``finish``
                    # (what previous values and a system's first write read), as the core's commit.
                    start_x, start_y, start_angle = entity._bx, entity._by, entity._ba
                    put(entity, "x", entity._nx)
                    put(entity, "y", entity._ny)
                    put(entity, "angle", entity._na)
                    put(entity, "_bx", start_x)  # (a barrier's write outside a tick sets the baseline too)
                    put(entity, "_by", start_y)
                    put(entity, "_ba", start_angle)
            for entity in self._changed:
                layout_of(entity).set(entity, entity._nfull)
        finally:
            state.ticking = True

    def finish(self, tick: int) -> None:
        """After every system: previous values, snaps, signals swap, entities' own buffers.

        Previous values are the baselines of the entities that changed in this tick, and
        the tick-start values of those systems wrote (kept at their first write).
        """
        state = self.state
        state.ticking = False
        state.members = None
        self._record_moved(tick)
        for entity in self._changed:
            _previous_from(entity, entity._bfull, tick)
        written = state.written
        if written:
            for entity, before in written:
                _previous_from(entity, before, tick)
            written.clear()
        self.shown_written.clear()
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
        self._order = []

    def _record_moved(self, tick: int) -> None:
        put = _put
        for entity in self._moved:
            put(entity, "_px", entity._bx)
            put(entity, "_py", entity._by)
            put(entity, "_pa", entity._ba)
            put(entity, "_prev_tick", tick)
            put(entity, "_bx", entity.x)  # the baseline slots hold the committed values again
            put(entity, "_by", entity.y)
            put(entity, "_ba", entity.angle)

    def abort(self) -> None:
        """The tick failed: put back everything the buffers own as it was when it began."""
        state = self.state
        state.updating = None
        state.ticking = False
        state.members = None
        failed, self._failed = self._failed, None
        self._combined_early = False
        if failed is not None and (failed._motion_only or failed._wmark is state.token):
            _put_back_baseline(failed)  # its update raised, perhaps after writing: never settled
        for entity in self._moved:
            _put_back_baseline(entity)
        for entity in self._changed:
            _put_back_baseline(entity)
        for entity, before in reversed(state.written):
            layout_of(entity).set(entity, before)
        state.written.clear()
        state.refused = None
        undo_shown(failed, self._shown, self.shown_written)
        self._shown.clear()
        self._moved.clear()
        self._changed.clear()
        self._snapped.clear()
        self._drop_signals()
        for entity, generator_state in reversed(self._randoms):
            if generator_state is None:
                entity._random = None
            else:
                random_restore(entity._random, generator_state)
        self._randoms.clear()
        for own in self._hooked:
            own._abort_own()
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
        the same in every process. Inside a tick its state is saved once, on first use (marked
        with the tick's token), so a failed tick rewinds it; where the core runs the save is one
        copy of the generator's state (``kept.random_snapshot``).
        """
        generator: random.Random | None = entity._random
        token = self.state.token
        if ticking and entity._random_mark is not token:
            entity._random_mark = token
            self._randoms.append((entity, None if generator is None else random_snapshot(generator)))
        if generator is None:
            generator = random.Random(f"tickswap:{seed!r}:{entity.id}")
            entity._random = generator
        return generator


def _previous_from(entity: BufferSlots, base: tuple[Any, ...], tick: int) -> None:
    entity._px, entity._py, entity._pa = base[0], base[1], base[2]
    entity._prest = base[3:]
    entity._prev_tick = tick


_put: Callable[[Any, str, Any], None] = object.__setattr__ if _core is None else setattr
"""``PureBuffers``' own writes to an entity's slots. On the pure path, past ``BufferSlots.__setattr__``
(the user's barrier, a Python call at every write: the 13 of a moving entity's tick cost 6 µs of
its 7), so what the barrier would have done is written out where it matters (a commit sets the
baseline too). Where the core is loaded (a test runs these passes on its entities) an entity
refuses ``object.__setattr__`` (its base type's ``tp_setattro`` is the barrier): ``setattr``, whose
barrier does the same."""


def _settle_moved(entity: BufferSlots) -> None:
    """An entity of only x, y and angle moved in its update: what it wrote kept pending, the committed values
    (its baseline slots) back where everyone reads them. (Its own update's writes: the barrier would
    have written them at once, with no check, as this does.) The pure path's."""
    put = _put
    put(entity, "_nx", entity.x)
    put(entity, "_ny", entity.y)
    put(entity, "_na", entity.angle)
    put(entity, "x", entity._bx)
    put(entity, "y", entity._by)
    put(entity, "angle", entity._ba)


def _put_back_baseline(entity: BufferSlots) -> None:
    """An entity whose own update wrote: its committed values as the update began (an abort; past the barrier)."""
    if entity._motion_only:
        entity.x = entity._bx
        entity.y = entity._by
        entity.angle = entity._ba
    else:
        layout_of(entity).set(entity, entity._bfull)
