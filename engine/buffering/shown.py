"""What an entity shows (its ``look`` and its ``parts``): a class's default, or the instance's own, as state.

A class says how its entities look (``look = Look(...)`` in its body); one entity may
show something else for a while (``self.look = HURT`` in its update, a frame of an
animation, a damage tint). What one instance sets is state like ``x``:

* **buffered** by the Double Buffer's one rule (``engine.buffering.buffers``): during a
  tick the entity reads what it set itself, everyone else (and the collision index) reads
  what was committed when the tick began; the tick's end commits it, and a failed tick
  forgets it. Setting another entity's look during an update is refused at that line
  (``BufferedWriteError``). Systems, and code outside a tick, set it at once (a failed
  tick still takes a system's write back);
* **kept**: checkpoints, saves and snapshots (so the state hash) hold it, and a rollback
  or a load puts it back;
* **unset** means the class's: an instance that never set its own shows its class's
  current look, so ``Skeleton.look = BONES`` changes every skeleton that follows its
  class, and ``del entity.look`` makes one follow its class again.

Each field is a descriptor on ``Entity`` (``Shown``) over two slots the buffers keep on
every entity, as ``x`` is over ``x`` and ``_bx``: the value everyone reads (``_look``,
the updating entity's own pending one during its update) and the committed one
(``_blook``, always). A read is one slot read: ``None`` there follows the class (whose
default is the class attribute ``_class_look``, or ``_class_parts``, which ``Entity`` and
its metaclass keep); ``HIDDEN`` is an own look of ``None``. The entity's own write stores
the pending value; when its update returns, the settle finds it by identity (``_look is
not _blook``), keeps it aside in ``_blook`` and puts the committed one back, and the
commit makes it committed.

Where the compiled core is built, the descriptor's common cases run in C (``Shown``'s base
class, ``_core.ShownField``): every read of an entity, and the updating entity's write of
its own; the settle and the commit are the core's too. Every other case runs the Python
code here, on both paths.

The renderer reads every entity's look each frame, so it asks ``version()`` first, which
moves whenever anything shown may have changed (an own value committed, rolled back or
loaded, a class's value set): a frame where it did not move reads nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from itertools import repeat
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any

from engine.buffering.slots import BufferSlots, _core, _set, compile_stores

__all__ = ["FOLLOW", "HIDDEN", "LookShown", "PartsShown", "Shown", "bump", "class_value", "commit_shown",
           "kept_value", "put_own", "settle_shown", "shown_values", "undo_shown", "version"]


class _Marker:
    """A value a slot can hold that no game value is (compared by identity)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


HIDDEN: Any = _Marker("hidden")
"""In a look slot: the instance's own look is ``None`` (it shows nothing), as opposed to ``None``: its class's."""
FOLLOW: Any = _Marker("follow the class")
"""What ``del entity.look`` sets: each field's ``check`` makes it ``None``, the slot's "its class's"."""

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
    value of ``HIDDEN``; ``plain`` a type whose instances are taken unchecked (``Look``).

    ``read`` and ``store`` are the whole of reading and setting (after the check). On the
    pure path they are the descriptor's ``__get__`` and ``__set__``. Where the compiled
    core is built, the class derives from its ``ShownField``, whose ``__get__`` and
    ``__set__`` do the common cases in C and call ``read`` and ``store`` for the rest.
    """

    __slots__ = ("baseline", "check", "class_attribute", "empty", "get_committed", "name", "plain", "slot")

    def __init__(self, name: str, check: Callable[[type, Any], Any], empty: Any = None,
                 plain: type | None = None) -> None:
        self.name = name
        self.slot = f"_{name}"
        self.baseline = f"_b{name}"
        self.class_attribute = f"_class_{name}"
        self.check = check
        self.empty = empty
        self.plain = plain
        self.get_committed: Callable[[Any], Any] = attrgetter(self.slot)
        """The slot as it is: between ticks, the committed own value (``None``: the class's)."""
        if _core is not None:
            _core.ShownField.bind(self, self.slot, self.class_attribute, check, plain, empty, HIDDEN, FOLLOW)

    def __repr__(self) -> str:
        return f"<shown field {self.name!r}>"

    def read(self, entity: BufferSlots | None, owner: type | None = None) -> Any:
        """The field's value as ``entity`` shows it now (``owner``'s when ``entity`` is None)."""
        if entity is None:
            return getattr(owner, self.class_attribute)
        value = self.get_committed(entity)
        if value is None:
            return getattr(type(entity), self.class_attribute)
        return self.empty if value is HIDDEN else value

    def put(self, entity: BufferSlots, value: Any) -> None:
        """Set the field on ``entity`` (checked): the descriptor's ``__set__`` on the pure path."""
        self.store(entity, value if type(value) is self.plain else self.check(type(entity), value))

    def store(self, entity: BufferSlots, raw: Any) -> None:
        """Set the field on ``entity`` to ``raw`` (a checked value) by the Double Buffer's rule.

        Its own update: a pending write (the settle finds it). Another entity's update: refused,
        as a write to its ``x`` is. A system during a tick: at once, the values before kept for
        an abort. Otherwise at once.
        """
        # Its slots are written past the pure path's barrier (``_set``): they are no buffered field's.
        try:
            state = entity._wstate
        except AttributeError:  # set in __init__ before Entity.__init__ ran, which keeps it (seeing _blook)
            _set(entity, self.slot, raw)
            _set(entity, "_blook", None)
            return
        if state is not None and state.ticking:
            updating = state.updating
            if updating is entity:
                _set(entity, self.slot, raw)
                state.buffers.shown_own.append(entity)  # the update loop settles what it shows after it
                return
            if updating is not None and entity.id is not None:
                error = state.refuse(updating, entity, self.name)
                if state.refused is None:
                    state.refused = error
                raise error
            state.buffers.shown_written.append((entity, entity._look, entity._parts))
        _set(entity, self.slot, raw)
        _set(entity, self.baseline, raw)
        _version[0] += 1

    def forget(self, entity: BufferSlots) -> None:
        """``del entity.look``: the entity follows its class again (the pure path's ``__delete__``)."""
        self.put(entity, FOLLOW)

    if _core is None:  # else ShownField's C slots are the descriptor, calling read and store
        __get__ = read
        __set__ = put
        __delete__ = forget


class LookShown(Shown):
    """``Shown`` for ``look``, its read written out on its own slot (a collision grid or a naive loop
    reads every entity's look)."""

    __slots__ = ()

    if _core is None:
        def __get__(self, entity: BufferSlots | None, owner: type | None = None) -> Any:
            if entity is None:
                return owner._class_look  # type: ignore[union-attr]
            value = entity._look
            if value is None:
                return type(entity)._class_look
            return None if value is HIDDEN else value


class PartsShown(Shown):
    """``Shown`` for ``parts``, its read written out on its own slot (see ``LookShown``)."""

    __slots__ = ()

    if _core is None:
        def __get__(self, entity: BufferSlots | None, owner: type | None = None) -> Any:
            if entity is None:
                return owner._class_parts  # type: ignore[union-attr]
            value = entity._parts
            return type(entity)._class_parts if value is None else value


_PASSES = """
def settle_shown(entity):
    look, committed_look, parts, committed_parts = entity._look, entity._blook, entity._parts, entity._bparts
    put(entity, "_look", committed_look)
    put(entity, "_blook", look)
    put(entity, "_parts", committed_parts)
    put(entity, "_bparts", parts)


def commit_shown(settled, written):
    for entity in settled:
        if written is not None:
            written.append((entity, entity._look, entity._parts))
        put(entity, "_look", entity._blook)
        put(entity, "_parts", entity._bparts)
"""
"""The settle and the commit of what entities show, past the barrier (no buffered field's slots): one source,
compiled with each slot's own setter where the pure path keeps slots (``compile_stores``)."""
_passes = compile_stores(_PASSES, {})


settle_shown: Callable[[BufferSlots], None] = _passes["settle_shown"]
settle_shown.__doc__ = """The pure path's settle of an entity whose update set its look or parts (``_look is not
_blook``): the pending value kept aside in the committed one's slot, the committed one put back where everyone
reads it."""
commit_shown: Callable[[list[BufferSlots], list[tuple[Any, Any, Any]] | None], None] = _passes["commit_shown"]
commit_shown.__doc__ = """What the settled entities set becomes committed (the compiled core's ``commit_shown`` where it
runs), their values before kept in ``written`` as ``(entity, look, parts)`` unless it is None."""


def undo_shown(failed: BufferSlots | None, settled: list[BufferSlots], written: list[tuple[Any, Any, Any]]) -> None:
    """A failed tick: what the updates set of their own forgotten (``failed``'s never settled), and what was
    written at once put back, last first."""
    if failed is not None:
        with suppress(AttributeError):  # the game's code deleted one: the tick's error says so already
            failed._look, failed._parts = failed._blook, failed._bparts
    for entity in settled:  # committed or not, the committed values are in the slots everyone reads
        entity._blook, entity._bparts = entity._look, entity._parts
    for entity, look, parts in reversed(written):
        entity._look = entity._blook = look
        entity._parts = entity._bparts = parts
    if written:
        _version[0] += 1


def class_value(kind: type, field: Shown) -> Any:
    """What ``field`` is for an entity of class ``kind`` that set none of its own."""
    return getattr(kind, field.class_attribute)


def kept_value(field: Shown, entity: BufferSlots) -> Any:
    """The slot as a save keeps it: ``None`` (its class's), ``HIDDEN``, or the own value (between ticks)."""
    return field.get_committed(entity)


def put_own(field: Shown, entity: BufferSlots, raw: Any) -> None:
    """Put back a kept slot value (a load): ``None``, ``HIDDEN`` or a checked own value."""
    setattr(entity, field.slot, raw)
    setattr(entity, field.baseline, raw)
    _version[0] += 1


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
