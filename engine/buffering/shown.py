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
every entity: the committed value and the pending one. A slot holding ``None`` follows
the class (whose default is the class attribute ``_class_look``, or ``_class_parts``,
which ``Entity`` and its metaclass keep); ``HIDDEN`` is an own look of ``None``.

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
from typing import Any

from engine.buffering.slots import BufferSlots
from engine.errors import BufferedWriteError

__all__ = ["HIDDEN", "UNCHANGED", "Shown", "ShownBuffers", "bump", "class_value", "committed", "kept_value",
           "own_values", "put_own", "shown_values", "version"]


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
"""In a pending slot: nothing set during this tick."""

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


class Shown:
    """The descriptor of one shown field (``Entity.look``, ``Entity.parts``): see the module docstring.

    ``check(entity_class, value)`` returns what the slot holds for a value set on an
    instance (and refuses a bad one, by name); ``empty`` is what reading gives for an own
    value of ``HIDDEN``.
    """

    def __init__(self, name: str, check: Callable[[type, Any], Any], empty: Any = None) -> None:
        self.name = name
        self.slot = f"_{name}"
        self.pending = f"_n{name}"
        self.class_attribute = f"_class_{name}"
        self.check = check
        self.empty = empty
        self.get_committed: Callable[[Any], Any] = attrgetter(self.slot)
        self.get_pending: Callable[[Any], Any] = attrgetter(self.pending)

    def __repr__(self) -> str:
        return f"<shown field {self.name!r}>"

    def __get__(self, entity: BufferSlots | None, owner: type | None = None) -> Any:
        if entity is None:
            return getattr(owner, self.class_attribute)
        value = self.get_committed(entity)
        if self.get_pending(entity) is not UNCHANGED and _updating(entity):
            value = self.get_pending(entity)
        if value is None:
            return getattr(type(entity), self.class_attribute)
        return self.empty if value is HIDDEN else value

    def __set__(self, entity: BufferSlots, value: Any) -> None:
        self.write(entity, self.check(type(entity), value))

    def __delete__(self, entity: BufferSlots) -> None:
        self.write(entity, None)  # follow the class again

    def write(self, entity: BufferSlots, raw: Any) -> None:
        """Make ``raw`` (a checked slot value) the entity's own, as the tick's rules say (see the module docstring)."""
        try:
            world = entity.world
        except AttributeError:  # set in __init__ before Entity.__init__ ran: nothing to buffer yet
            world = None
        if world is None or not world.ticking:
            setattr(entity, self.slot, raw)
            _version[0] += 1
            return
        world._buffers.write_shown(entity, self, raw)  # type: ignore[attr-defined]

    def refuse(self, writer: BufferSlots, entity: BufferSlots, tick: int) -> BufferedWriteError:
        """The error for ``writer`` setting ``entity``'s field during its update, at the game's line."""
        frame: Any = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith(_HERE):
            frame = frame.f_back
        where = None if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"
        return BufferedWriteError(writer, entity, self.name, tick, where)


_HERE = __file__.rsplit("buffering", 1)[0]  # the engine's own frames are skipped when naming the writer's line


def _updating(entity: BufferSlots) -> bool:
    """Whether ``entity``'s own ``update()`` is running now (so it reads what it set itself)."""
    world = entity.world
    return world is not None and world._buffers.sender is entity


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
    setattr(entity, field.pending, UNCHANGED)
    _version[0] += 1


def own_values(field: Shown, entities: Sequence[BufferSlots]) -> list[Any]:
    """Every entity's committed slot of ``field``, as it is (``None``: the class's): one C-speed pass."""
    return list(map(field.get_committed, entities))


def shown_values(field: Shown, entities: Sequence[BufferSlots]) -> list[Any]:
    """What each of ``entities`` shows of ``field``, committed (the renderer's read, between ticks)."""
    values = list(map(field.get_committed, entities))
    # Identity tests mapped in C: ``None in values`` would call a Look's __eq__ per entity.
    if any(map(is_, values, repeat(None))):
        attribute = field.class_attribute
        by_class: dict[type, Any] = {}
        for index, value in enumerate(values):
            if value is None:
                kind = type(entities[index])
                found = by_class.get(kind, HIDDEN)
                if found is HIDDEN:
                    found = by_class[kind] = getattr(kind, attribute)
                values[index] = found
    if any(map(is_, values, repeat(HIDDEN))):
        empty = field.empty
        values = [empty if value is HIDDEN else value for value in values]
    return values


class ShownBuffers:
    """The buffers' share of shown state (``PureBuffers`` is one): what entities set during a tick.

    ``sender`` is the entity whose update runs and ``_tick`` the tick's number, both the
    buffers' own; ``write_shown`` is called by ``Shown.write`` during a tick,
    ``commit_shown`` by the commit that ends the Update Method system, ``abort_shown`` by
    a failed tick's abort and ``forget_shown`` by a finished tick.
    """

    sender: BufferSlots | None
    _tick: int

    def init_shown(self) -> None:
        """Start with nothing pending (called by the buffers' constructor)."""
        self._shown_pending: list[tuple[BufferSlots, Shown]] = []
        """Entities that set their own look or parts in their update this tick (committed at its end)."""
        self._shown_written: list[tuple[BufferSlots, Shown, Any]] = []
        """(entity, field, the value before) of every shown value this tick committed: what an abort puts back."""

    def write_shown(self, entity: BufferSlots, field: Shown, raw: Any) -> None:
        """An entity's look or parts set during a tick: pending for the entity's own update, at once
        for a system or an entity spawned in this tick, refused from another entity's update."""
        sender = self.sender
        if sender is entity:
            if field.get_pending(entity) is UNCHANGED:
                self._shown_pending.append((entity, field))
            setattr(entity, field.pending, raw)
            return
        if sender is not None and entity.id is not None:
            raise field.refuse(sender, entity, self._tick)
        # A system's write (or one to an entity spawned this tick): committed now, taken back if the tick fails.
        self._shown_written.append((entity, field, field.get_committed(entity)))
        setattr(entity, field.slot, raw)
        _version[0] += 1

    def commit_shown(self) -> None:
        """What entities set of their own in their updates becomes what everyone reads (the Update Method
        system's commit): systems after it see it, and an abort still takes it back."""
        pending = self._shown_pending
        if pending:
            written = self._shown_written
            for entity, field in pending:
                written.append((entity, field, field.get_committed(entity)))
                setattr(entity, field.slot, field.get_pending(entity))
                setattr(entity, field.pending, UNCHANGED)
            pending.clear()
            _version[0] += 1

    def abort_shown(self) -> None:
        """The tick failed: nothing it set of anyone's look or parts remains."""
        for entity, field in self._shown_pending:
            setattr(entity, field.pending, UNCHANGED)
        self._shown_pending.clear()
        if self._shown_written:
            for entity, field, before in reversed(self._shown_written):
                setattr(entity, field.slot, before)
            self._shown_written.clear()
            _version[0] += 1

    def forget_shown(self) -> None:
        """The tick finished: what it committed stays."""
        self._shown_written.clear()
