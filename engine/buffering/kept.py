"""What a checkpoint keeps of an entity's buffers, in memory, and how a rollback puts it back.

The buffers' half of ``World.checkpoint`` (``engine.world.checkpoints`` does the world's
half): the committed buffered values, the previous values the renderer interpolates
from, the committed signals and the entity's random generator. Taken between ticks only,
when nothing is pending. Values are kept by reference: buffered values are immutable
(a spawn refuses a mutable one), and signals dicts are replaced, never changed, by a tick.
The generator object itself is kept, so a rollback puts the same object back.

The entity's class is kept too: a game may swap it (``entity.__class__ = Other``, which
Python allows between classes of one memory layout), and its buffers are read and put
back by the class's fields. ``restore_classes`` makes each entity its kept class again
before anything else is put back (Python allows the swap back whenever it allowed the
swap), or refuses naming the entity, with no entity changed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from typing import Any

from engine.buffering.fields import Layout
from engine.buffering.slots import BufferSlots

__all__ = ["KeptBuffers", "keep_buffers", "put_back_buffers", "restore_classes"]

KeptBuffers = tuple[list[type], list[tuple[Any, ...]]]
"""Some entities' kept buffers: each one's class, and what its buffers held (opaque outside this module)."""

# Read after the buffered fields, in this order; the generator's state follows them.
_SLOTS = ("_px", "_py", "_pa", "_prest", "_prev_tick", "_signals", "_random")


class _Keeper:
    """One class's way to keep and put back its entities' buffers: one C call and one compiled assignment.

    A session takes a checkpoint every tick: per entity, one ``attrgetter`` call reads every
    buffered value and slot into a flat tuple, and one unpacking assignment puts them back.
    """

    __slots__ = ("get", "put", "width")

    def __init__(self, names: tuple[str, ...]) -> None:
        self.get: Callable[[Any], tuple[Any, ...]] = attrgetter(*names, *_SLOTS)
        self.width = len(names)
        targets = ", ".join(f"entity.{name}" for name in (*names, *_SLOTS))
        namespace: dict[str, Any] = {}
        # The names come from a Layout, whose fields are identifiers (fields.py refuses others).
        exec(f"def put(entity, values):\n    {targets}, = values\n    entity._bx, entity._by, entity._ba = "
             "values[0], values[1], values[2]\n    entity._random_mark = -1\n", namespace)
        self.put: Callable[[Any, tuple[Any, ...]], None] = namespace["put"]


_keepers: dict[Layout, _Keeper] = {}


def _keeper(kind: type) -> _Keeper:
    layout: Layout = kind._layout  # type: ignore[attr-defined]
    keeper = _keepers.get(layout)
    if keeper is None:
        keeper = _keepers[layout] = _Keeper(layout.names)
    return keeper


def keep_buffers(entities: Iterable[BufferSlots]) -> KeptBuffers:
    """Everything the buffers hold for each of ``entities`` between ticks, to put back with ``put_back_buffers``.

    One loop over every entity, not a call per entity: a session checkpoints every tick.
    """
    getters: dict[type, Callable[[Any], tuple[Any, ...]]] = {}
    kinds: list[type] = []
    kept: list[tuple[Any, ...]] = []
    append, append_kind = kept.append, kinds.append
    for entity in entities:
        kind = type(entity)
        get = getters.get(kind)
        if get is None:
            get = getters[kind] = _keeper(kind).get
        values = get(entity)
        generator: random.Random | None = values[-1]
        append_kind(kind)
        append(values if generator is None else (*values, generator.getstate()))
    return kinds, kept


def restore_classes(entities: Sequence[BufferSlots], kept: KeptBuffers) -> None:
    """Make each of ``entities`` an instance of the class it had when ``kept`` was taken, all or none.

    Called before anything else of a rollback: a class swapped since (``entity.__class__ =
    Other``) would otherwise have its own fields read from the kept values of another class.
    An entity that can't be swapped back is refused (``TypeError`` naming it and both
    classes) after the entities swapped back already are swapped again, so nothing changed.
    """
    kinds = kept[0]
    if len(kinds) != len(entities):
        raise ValueError(f"restore_classes: {len(entities)} entities for {len(kinds)} kept")
    swapped: list[tuple[BufferSlots, type]] = []
    for entity, kind in zip(entities, kinds):
        now = type(entity)
        if now is kind:
            continue
        try:
            # object's own setattr: a class's __setattr__ (a guard of its fields) has no say in it.
            object.__setattr__(entity, "__class__", kind)
        except TypeError as error:
            for undone, was in reversed(swapped):
                object.__setattr__(undone, "__class__", was)
            raise TypeError(f"World.rollback(): {now.__name__} (id {getattr(entity, 'id', None)}) was a "
                            f"{kind.__name__} at the checkpoint and can't be made one again ({error}); "
                            "nothing was rolled back") from None
        swapped.append((entity, now))


def put_back_buffers(entities: Iterable[BufferSlots], kept: KeptBuffers) -> None:
    """Make each of ``entities`` hold what ``keep_buffers`` returned for it (between ticks).

    Each entity is already of its kept class (``restore_classes``): the values are put back
    by that class's fields.
    """
    keepers: dict[type, _Keeper] = {}
    kinds, values_of = kept
    for entity, kind, values in zip(entities, kinds, values_of, strict=True):
        if type(entity) is not kind:  # restore_classes first; a slip here would mix two classes' fields
            raise RuntimeError(f"put_back_buffers: {type(entity).__name__} (id {getattr(entity, 'id', None)}) "
                               f"is not its kept class {kind.__name__}")
        keeper = keepers.get(kind)
        if keeper is None:
            keeper = keepers[kind] = _keeper(kind)
        if len(values) == keeper.width + len(_SLOTS):
            keeper.put(entity, values)
        else:  # the generator's state follows: the same object comes back, at that state
            keeper.put(entity, values[:-1])
            values[-2].setstate(values[-1])
