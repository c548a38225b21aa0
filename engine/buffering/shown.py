"""What an entity shows (its ``look`` and its ``parts``): a class's default, or the instance's own, as state.

A class says how its entities look (``look = Look(...)`` in its body); one entity may
show something else for a while (``self.look = HURT`` in its update, a frame of an
animation, a damage tint). What one instance sets is state like a buffered field:

* **buffered**: during a tick the entity reads what it set itself, everyone else (and
  the collision index) reads what was committed when the tick began; the tick's end
  commits it, and a failed tick forgets it. Setting another entity's look during an
  update is refused at that line (``BufferedWriteError``): it would be seen or lost
  depending on the update order. Systems, and code outside a tick, set it at once (a
  failed tick still takes a system's write back);
* **kept**: checkpoints, saves and snapshots (so the state hash) hold it, and a rollback
  or a load puts it back;
* **unset** means the class's: an instance that never set its own shows its class's
  current look, so ``Skeleton.look = BONES`` changes every skeleton that follows its
  class, and ``del entity.look`` makes one follow its class again.

Each field is a descriptor on ``Entity`` (``Shown``) over two slots the buffers keep on
every entity: the entity's own value (``_look``), and the *baseline* (``_blook``): the
value committed before the entity changed it during this tick, or ``UNCHANGED``. The
entity's own update writes straight through to the first slot, keeping the baseline the
first time, so it reads its own with one slot read, and a reader that is not the entity
gets the baseline while there is one; the commit only forgets the baselines. A slot
holding ``None`` follows the class (whose default is the class attribute
``_class_look``, or ``_class_parts``, which ``Entity`` and its metaclass keep);
``HIDDEN`` is an own look of ``None``.

Where the compiled core is built, the descriptor's common cases run in C (``Shown``'s base
class, ``_core.ShownField``): a read where nothing changed this tick, and the updating
entity's read or write of its own, which the core recognises because its settler handed
that entity out; the commit's pass over what changed is C too. Every other case runs the
Python code here, on both paths.

Nothing per tick is paid by an entity that does not set its look: the cost is in the
write itself. The renderer reads every entity's look each frame, so it asks ``version()``
first, which moves whenever anything shown may have changed (an own value committed,
rolled back or loaded, a class's value set): a frame where it did not move reads nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from itertools import repeat
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any

from engine.buffering.slots import BufferSlots, _core
from engine.errors import BufferedWriteError

__all__ = [
    "FOLLOW",
    "HIDDEN",
    "UNCHANGED",
    "LookShown",
    "PartsShown",
    "Shown",
    "ShownBuffers",
    "bump",
    "class_value",
    "committed",
    "kept_value",
    "own_values",
    "put_own",
    "shown_values",
    "version",
]


class _Marker:
    """A value a slot can hold that no game value is (compared by identity)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


HIDDEN: Any = _Marker("hidden")
"""In a look slot: the instance's own look is ``None`` (it shows nothing), as opposed to ``None``: its class's."""
UNCHANGED: Any = _Marker("unchanged")
"""In a baseline slot: nothing set during this tick."""

_version = [0]


def version() -> int:
    """A number that moves whenever what any entity shows may have changed (see the module docstring).

    Only the renderer reads it, to skip reading 10,000 looks in a frame where none changed;
    it is never state (no snapshot, save or hash holds it).
    """
    return _version[0]


def bump() -> None:
    """Say that what some entity shows may have changed (a rollback, a load, a class's new look)."""
    _version[0] += 1


if TYPE_CHECKING:
    _FieldBase = object
else:
    # Where the core is built, the descriptor's hot paths are C (``_core.ShownField``): see ``Shown``.
    _FieldBase = object if _core is None else _core.ShownField


class Shown(_FieldBase):
    """The descriptor of one shown field (``Entity.look``, ``Entity.parts``): see the module docstring.

    ``check(entity_class, value)`` returns what the slot holds for a value set on an
    instance (and refuses a bad one, by name); ``empty`` is what reading gives for an own
    value of ``HIDDEN``.

    ``read`` and ``store`` are the whole of reading and setting (after the check). On the
    pure path they are the descriptor's ``__get__`` and ``__set__``. Where the compiled
    core is built, the class derives from its ``ShownField``, whose ``__get__`` and
    ``__set__`` do the common cases in C (a read where nothing changed this tick, or the
    updating entity's read or write of its own: an animation costs a slot write, not a
    walk to the world's buffers) and call ``read`` and ``store`` for everything else, so
    both paths run this code wherever a world, a tick or a refusal is involved.
    """

    __slots__ = ("baseline", "check", "class_attribute", "empty", "get_baseline", "get_committed", "name", "plain",
                 "slot")

    def __init__(self, name: str, check: Callable[[type, Any], Any], empty: Any = None,
                 plain: type | None = None) -> None:
        self.name = name
        self.slot = f"_{name}"
        self.baseline = f"_b{name}"
        self.class_attribute = f"_class_{name}"
        self.check = check
        self.empty = empty
        self.plain = plain
        """A type whose instances are taken as they are, unchecked (``Look``): the common case, made cheap."""
        self.get_committed: Callable[[Any], Any] = attrgetter(self.slot)
        """The slot as it is: between ticks, the committed own value (``None``: the class's)."""
        self.get_baseline: Callable[[Any], Any] = attrgetter(self.baseline)
        if _core is not None:
            _core.ShownField.bind(self, self.slot, self.baseline, self.class_attribute, check, plain, empty,
                                  UNCHANGED, HIDDEN, FOLLOW)

    def __repr__(self) -> str:
        return f"<shown field {self.name!r}>"

    def read(self, entity: BufferSlots | None, owner: type | None = None) -> Any:
        """The field's value as ``entity`` shows it to whoever reads now (``owner``'s when ``entity`` is None)."""
        if entity is None:
            return getattr(owner, self.class_attribute)
        value = self.get_committed(entity)
        if self.get_baseline(entity) is not UNCHANGED:  # changed this tick: only its own update sees it yet
            state = entity._wstate
            if state is None or entity.world is None or state.updating is not entity:
                value = self.get_baseline(entity)
        if value is None:
            return getattr(type(entity), self.class_attribute)
        return self.empty if value is HIDDEN else value

    def put(self, entity: BufferSlots, value: Any) -> None:
        """Set the field on ``entity`` (checked): the descriptor's ``__set__`` on the pure path."""
        # The hot path of a game that animates its entities: a look set in an entity's own update.
        self.store(entity, value if type(value) is self.plain else self.check(type(entity), value))

    def store(self, entity: BufferSlots, raw: Any) -> None:
        """Set the field's slot on ``entity`` to ``raw`` (a checked value), by the rules of the module docstring."""
        try:
            world = entity.world
        except AttributeError:  # set in __init__ before Entity.__init__ ran, which keeps it (seeing _blook)
            setattr(entity, self.slot, raw)
            entity._blook = UNCHANGED
            return
        if world is not None:
            buffers = entity._wstate.buffers
            if buffers.sender is entity:  # its own update: write through, keeping the baseline the first time
                baseline = self.baseline
                if getattr(entity, baseline) is UNCHANGED:
                    setattr(entity, baseline, getattr(entity, self.slot))
                    buffers.shown_changed(entity, self)
                setattr(entity, self.slot, raw)
                return
            if world.ticking:
                buffers.write_shown(entity, self, raw)
                return
        setattr(entity, self.slot, raw)  # between ticks, or never spawned: at once
        _version[0] += 1

    def forget(self, entity: BufferSlots) -> None:
        """``del entity.look``: the entity follows its class again (the pure path's ``__delete__``)."""
        self.put(entity, FOLLOW)

    if _core is None:  # else ShownField's C slots are the descriptor, calling read and store
        __get__ = read
        __set__ = put
        __delete__ = forget

    def refuse(self, writer: BufferSlots, entity: BufferSlots, tick: int) -> BufferedWriteError:
        """The error for ``writer`` setting ``entity``'s field during its update, at the game's line."""
        frame: Any = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith(_HERE):
            frame = frame.f_back
        where = None if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"
        return BufferedWriteError(writer, entity, self.name, tick, where)


class LookShown(Shown):
    """``Shown`` for ``look``, its reads written out on its own slots: a collision grid or a naive loop
    reads every entity's look, so a read costs two slot reads where nothing changed this tick."""

    __slots__ = ()

    if _core is None:
        def __get__(self, entity: BufferSlots | None, owner: type | None = None) -> Any:
            if entity is None or entity._blook is not UNCHANGED:
                return Shown.read(self, entity, owner)
            value = entity._look
            if value is None:
                return type(entity)._class_look
            return None if value is HIDDEN else value


class PartsShown(Shown):
    """``Shown`` for ``parts``, its reads written out on its own slots (see ``LookShown``)."""

    __slots__ = ()

    if _core is None:
        def __get__(self, entity: BufferSlots | None, owner: type | None = None) -> Any:
            if entity is None or entity._bparts is not UNCHANGED:
                return Shown.read(self, entity, owner)
            value = entity._parts
            return type(entity)._class_parts if value is None else value


FOLLOW: Any = _Marker("follow the class")
"""What ``del entity.look`` sets: each field's ``check`` makes it ``None``, the slot's "its class's"."""


_HERE = __file__.rsplit("buffering", 1)[0]  # the engine's own frames are skipped when naming the writer's line


def committed(field: Shown, entity: BufferSlots) -> Any:
    """The value of ``field`` others read: the committed own value, else the class's (``None`` for hidden)."""
    value = field.get_committed(entity)
    if value is None:
        return getattr(type(entity), field.class_attribute)
    return field.empty if value is HIDDEN else value


def class_value(kind: type, field: Shown) -> Any:
    """What ``field`` is for an entity of class ``kind`` that set none of its own."""
    return getattr(kind, field.class_attribute)


def kept_value(field: Shown, entity: BufferSlots) -> Any:
    """The slot as a save keeps it: ``None`` (its class's), ``HIDDEN``, or the own value (between ticks)."""
    return field.get_committed(entity)


def put_own(field: Shown, entity: BufferSlots, raw: Any) -> None:
    """Put back a kept slot value (a load): ``None``, ``HIDDEN`` or a checked own value."""
    setattr(entity, field.slot, raw)
    setattr(entity, field.baseline, UNCHANGED)
    _version[0] += 1


def own_values(field: Shown, entities: Sequence[BufferSlots]) -> list[Any]:
    """Every entity's committed slot of ``field``, as it is (``None``: the class's): one C-speed pass."""
    return list(map(field.get_committed, entities))


def shown_values(field: Shown, entities: Sequence[BufferSlots]) -> list[Any]:
    """What each of ``entities`` shows of ``field``, committed (the renderer's read, between ticks).

    Read in passes mapped in C wherever it can be: the slots, then (where some follow their
    class) every entity's class's value through a dict of the few classes there are.
    """
    values = list(map(field.get_committed, entities))
    # Identity tests mapped in C: ``None in values`` would call a Look's __eq__ per entity.
    following = sum(map(is_, values, repeat(None)))
    if following:
        attribute = field.class_attribute
        of_class = {kind: getattr(kind, attribute) for kind in set(map(type, entities))}
        if following == len(values):  # everyone shows its class's: no loop in Python
            values = list(map(of_class.__getitem__, map(type, entities)))
        else:
            for index, value in enumerate(values):
                if value is None:
                    values[index] = of_class[type(entities[index])]
    if any(map(is_, values, repeat(HIDDEN))):
        empty = field.empty
        values = [empty if value is HIDDEN else value for value in values]
    return values


class ShownBuffers:
    """The buffers' share of shown state (``PureBuffers`` is one): what entities set during a tick.

    ``sender`` is the entity whose update runs and ``_tick`` the tick's number, both the
    buffers' own. ``Shown`` calls ``shown_changed`` the first time an entity's own update
    sets a field in a tick (the baseline is kept on the entity) and ``write_shown`` for any
    other write during a tick; the commit that ends the Update Method system calls
    ``commit_shown``, a failed tick's abort ``abort_shown``, a finished tick ``forget_shown``.
    """

    @property
    def sender(self) -> BufferSlots | None:
        """The entity whose ``update()`` is running, or ``None``: signals record their sender."""
        raise NotImplementedError  # the buffers' (PureBuffers.sender)

    _tick: int

    def init_shown(self) -> None:
        """Start with nothing changed (called by the buffers' constructor)."""
        self._shown_changed: list[BufferSlots] = []
        """Entities whose own update set a field this tick, each with its baseline kept (once per field)..."""
        self._shown_fields: list[Shown] = []
        """... and which field, beside them (two lists: no tuple to allocate per change)."""
        self._shown_written: list[tuple[BufferSlots, Shown, Any]] = []
        """(entity, field, the value before) of what this tick committed: what an abort puts back."""

    def shown_changed(self, entity: BufferSlots, field: Shown) -> None:
        """``entity``'s own update set ``field`` for the first time this tick (its baseline is kept)."""
        self._shown_changed.append(entity)
        self._shown_fields.append(field)

    def write_shown(self, entity: BufferSlots, field: Shown, raw: Any) -> None:
        """A write during a tick from outside the entity's own update: at once from a system or to an
        entity spawned in this tick (taken back if the tick fails), refused from another entity's update."""
        sender = self.sender
        if sender is not None and entity.id is not None:
            raise field.refuse(sender, entity, self._tick)
        before = field.get_committed(entity)
        if field.get_baseline(entity) is not UNCHANGED:  # set by its own update earlier this tick
            before = field.get_baseline(entity)
            setattr(entity, field.baseline, UNCHANGED)
        self._shown_written.append((entity, field, before))
        setattr(entity, field.slot, raw)
        _version[0] += 1

    def commit_shown(self, undoable: bool = True) -> None:
        """What entities set of their own in their updates becomes what everyone reads (the Update Method
        system's commit): systems after it see it. ``undoable``: something after the commit may still
        fail the tick (a later system, a signal's combine), so the baselines are kept for an abort."""
        changed = self._shown_changed
        if changed:
            self.settle_shown(changed, self._shown_fields, self._shown_written if undoable else None)
            changed.clear()
            self._shown_fields.clear()
            _version[0] += 1

    @staticmethod
    def settle_shown(changed: list[BufferSlots], fields: list[Shown],
                     written: list[tuple[BufferSlots, Shown, Any]] | None) -> None:
        """``commit_shown``'s pass (the compiled core's ``commit_shown`` where it runs): every baseline
        forgotten, and kept in ``written`` as ``(entity, field, before)`` unless it is None."""
        if written is not None:
            for entity, field in zip(changed, fields):
                before = field.get_baseline(entity)
                if before is not UNCHANGED:  # (a system may have written it since, keeping the baseline)
                    written.append((entity, field, before))
                    setattr(entity, field.baseline, UNCHANGED)
        else:
            for entity, field in zip(changed, fields):
                setattr(entity, field.baseline, UNCHANGED)

    def abort_shown(self) -> None:
        """The tick failed: nothing it set of anyone's look or parts remains."""
        for entity, field in zip(self._shown_changed, self._shown_fields):
            before = field.get_baseline(entity)
            if before is not UNCHANGED:
                setattr(entity, field.slot, before)
                setattr(entity, field.baseline, UNCHANGED)
        self._shown_changed.clear()
        self._shown_fields.clear()
        if self._shown_written:
            for entity, field, before in reversed(self._shown_written):
                setattr(entity, field.slot, before)
            self._shown_written.clear()
            _version[0] += 1

    def forget_shown(self) -> None:
        """The tick finished: what it committed stays."""
        self._shown_written.clear()
