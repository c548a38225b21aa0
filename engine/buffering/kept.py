"""What a checkpoint keeps of an entity's buffers, in memory, and how a rollback puts it back.

The buffers' half of ``World.checkpoint`` (``engine.world.checkpoints`` does the world's
half): the committed buffered values, the previous values the renderer interpolates
from, what the entity shows of its own (``engine.buffering.shown``), the committed
signals and the entity's random generator. Taken between ticks only,
when nothing is pending. Values are kept by reference: buffered values are immutable
(a spawn refuses a mutable one), and signals dicts are replaced, never changed, by a tick.
The generator object itself is kept, so a rollback puts the same object back.

Two ways, with the same results: the pure path keeps a tuple per entity (``keep_buffers``),
the compiled core copies every entity's slots into one tuple in one pass over the list and
puts them back in another (``keep_compiled``, at the cost of copying references: a session
checkpoints every tick), leaving to Python only the entities that hold more (fields of
their own, a random generator).

The entity's class is kept too: a game may swap it (``entity.__class__ = Other``, which
Python allows between classes of one memory layout), and its buffers are put back by the
class's fields. A rollback first makes each entity its kept class again (``restore_*``),
before anything else is put back, or refuses naming the entity, with nothing changed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from itertools import compress, repeat
from operator import attrgetter, is_not, itemgetter
from typing import Any

from engine.buffering.access import NO_SIGNALS
from engine.buffering.fields import Layout
from engine.buffering.shown import bump
from engine.buffering.slots import _BASELINE, BufferSlots, _core, _set, compile_stores

__all__ = ["KeptBuffers", "keep_buffers", "keep_compiled", "put_back_buffers", "put_back_compiled",
           "random_restore", "random_snapshot", "restore_buffers", "restore_classes", "restore_compiled"]


def _copies_generators() -> bool:
    """Whether the core copies a generator's state (checked by a round trip, on a generator of our own)."""
    if _core is None:
        return False
    try:
        generator = random.Random("tickswap: a round trip")
        kept = _core.random_snapshot(generator)
        drawn = [generator.random() for _ in range(700)]  # past a regeneration of the whole state
        _core.random_restore(generator, kept)
        return [generator.random() for _ in range(700)] == drawn
    except (AttributeError, RuntimeError, TypeError, ValueError):  # a core built without them, or another layout
        return False


_COPIES = _copies_generators()


def random_snapshot(generator: random.Random) -> Any:
    """The state of an entity's generator, to put back with ``random_restore``: a copy of the core's (about
    0.1 µs) where it runs, else ``getstate()`` (about 18 µs: a tick saves it for every generator drawn from)."""
    if _COPIES:
        return (_core.random_snapshot(generator), generator.gauss_next)  # type: ignore[attr-defined]
    return generator.getstate()


def random_restore(generator: random.Random, kept: Any) -> None:
    """Make ``generator`` hold what ``random_snapshot`` kept again."""
    if type(kept[0]) is bytes:
        _core.random_restore(generator, kept[0])
        generator.gauss_next = kept[1]  # type: ignore[attr-defined]
    else:
        generator.setstate(kept)

_EXTRAS = 5
"""How many slots the core keeps of each odd entity: ``_prest``, ``_signals``, ``_random``, ``_look``, ``_parts``."""

KeptBuffers = Any
"""Every entity's kept buffers (opaque outside this module)."""

# Read after the buffered fields, in this order; the generator's state follows them.
_SLOTS = ("_px", "_py", "_pa", "_prest", "_prev_tick", "_look", "_parts", "_signals", "_random")


class _Keeper:
    """One class's way to keep and put back its entities' buffers: one C call and one compiled assignment.

    A session takes a checkpoint every tick: per entity, one ``attrgetter`` call reads every
    buffered value and slot into a flat tuple, and one unpacking assignment puts them back (on the
    pure path, where that assignment would be a call of the barrier, ``BufferSlots.__setattr__``,
    a slot, one store past it a slot, x, y and angle into their baseline slots too, as the
    barrier between ticks does).
    """

    __slots__ = ("get", "put", "width")

    def __init__(self, names: tuple[str, ...]) -> None:
        self.get: Callable[[Any], tuple[Any, ...]] = attrgetter(*names, *_SLOTS)
        self.width = len(names)
        namespace: dict[str, Any] = {"put": _set}
        # The names come from a Layout, whose fields are identifiers (fields.py refuses others).
        if _core is None:
            every = (*names, *_SLOTS)
            changed, stores = [], []
            # A slot that holds the kept object already is left as it is (a read costs less than a store);
            # where one is missing (a game deleted it), every one is stored, as the assignment did.
            for index, name in enumerate(every):
                for slot in (_BASELINE[name], name) if name in _BASELINE else (name,):
                    changed.append(f"        if entity.{slot} is not v{index}:\n"
                                   f"            put(entity, {slot!r}, v{index})\n")
                    stores.append(f"        put(entity, {slot!r}, v{index})\n")
            unpacked = "".join(f"v{index}, " for index in range(len(every)))
            compile_stores(f"def put_back(entity, values):\n    {unpacked}= values\n    try:\n{''.join(changed)}"
                           f"    except AttributeError:\n{''.join(stores)}"
                           "    put(entity, '_random_mark', -1)\n    put(entity, '_blook', entity._look)\n"
                           "    put(entity, '_bparts', entity._parts)\n", namespace)
        else:
            targets = ", ".join(f"entity.{name}" for name in (*names, *_SLOTS))
            exec(f"def put_back(entity, values):\n    {targets}, = values\n    entity._random_mark = -1\n"
                 "    entity._blook = entity._look\n    entity._bparts = entity._parts\n", namespace)
        self.put: Callable[[Any, tuple[Any, ...]], None] = namespace["put_back"]


_keepers: dict[Layout, _Keeper] = {}


def _keeper(kind: type) -> _Keeper:
    layout: Layout = kind._layout  # type: ignore[attr-defined]
    keeper = _keepers.get(layout)
    if keeper is None:
        keeper = _keepers[layout] = _Keeper(layout.names)
    return keeper


def keep_buffers(entities: Iterable[BufferSlots]) -> tuple[KeptBuffers, list[type[Any]]]:
    """Everything the buffers hold for each of ``entities`` between ticks, to put back with ``put_back_buffers``,
    and the entities' classes (each once, in the order first met).

    Passes mapped in C over every entity, not a call per entity: a session checkpoints every tick.
    Only the entities with a generator of their own get its state appended, one by one.
    """
    entities = entities if isinstance(entities, list) else list(entities)
    kinds: list[type] = list(map(type, entities))
    classes = list(dict.fromkeys(kinds))
    if len(classes) == 1:
        kept: list[KeptBuffers] = list(map(_keeper(classes[0]).get, entities))
    else:
        getters = {kind: _keeper(kind).get for kind in classes}
        kept = [getters[kind](entity) for entity, kind in zip(entities, kinds)]
    drawn = list(map(is_not, map(itemgetter(-1), kept), repeat(None)))
    if any(drawn):
        for index in compress(range(len(kept)), drawn):
            values = kept[index]
            kept[index] = (*values, random_snapshot(values[-1]))
    return (kinds, kept), classes


def restore_classes(entities: Sequence[BufferSlots], changed: Iterable[int], kinds: Iterable[type]) -> None:
    """Make each entity at the indices ``changed`` an instance of its class in ``kinds`` again, all or none.

    Called before anything else of a rollback: a class swapped since the checkpoint would
    otherwise have its own fields read from another class's kept values. An entity that
    can't be swapped back is refused (``TypeError`` naming it and both classes) after the
    entities already swapped back are swapped again, so nothing changed.
    """
    swapped: list[tuple[BufferSlots, type]] = []
    for index, kind in zip(changed, kinds, strict=True):
        entity = entities[index]
        now = type(entity)
        try:
            entity.__class__ = kind  # an Entity class has no __setattr__ of its own (entity.py refuses one)
        except TypeError as error:
            for undone, was in reversed(swapped):
                undone.__class__ = was
            raise TypeError(f"World.rollback(): {now.__name__} (id {getattr(entity, 'id', None)}) was a "
                            f"{kind.__name__} at the checkpoint and can't be made one again ({error}); "
                            "nothing was rolled back") from None
        swapped.append((entity, now))
    bump()  # a class swapped back shows its class's look


def restore_buffers(entities: Sequence[BufferSlots], kept: KeptBuffers) -> None:
    """``restore_classes`` for what ``keep_buffers`` kept: every entity its kept class again."""
    kinds: list[type] = kept[0]
    if len(kinds) != len(entities):
        raise ValueError(f"restore_buffers: {len(entities)} entities for {len(kinds)} kept")
    changed = [index for index, (entity, kind) in enumerate(zip(entities, kinds)) if type(entity) is not kind]
    if changed:
        restore_classes(entities, changed, [kinds[index] for index in changed])


def put_back_buffers(entities: Iterable[BufferSlots], kept: KeptBuffers) -> list[BufferSlots] | None:
    """Make each of ``entities`` hold what ``keep_buffers`` returned for it (between ticks).

    Returns ``None``: ``put_back_signals`` finds the entities with committed signals itself.
    """
    keepers: dict[type, _Keeper] = {}
    kinds, values_of = kept
    for entity, kind, values in zip(entities, kinds, values_of, strict=True):
        if type(entity) is not kind:  # restore_buffers first: a slip here would mix two classes' fields
            raise RuntimeError(f"put_back_buffers: {type(entity).__name__} (id {getattr(entity, 'id', None)}) "
                               f"is not its kept class {kind.__name__}")
        keeper = keepers.get(kind)
        if keeper is None:
            keeper = keepers[kind] = _keeper(kind)
        if len(values) == keeper.width + len(_SLOTS):
            keeper.put(entity, values)
        else:  # the generator's state follows: the same object comes back, at that state
            keeper.put(entity, values[:-1])
            random_restore(values[-2], values[-1])
    bump()  # looks and parts may be others now
    return None


def keep_compiled(entities: list[BufferSlots]) -> tuple[KeptBuffers, list[type[Any]]]:
    """``keep_buffers`` through the compiled core: the same values kept, in one pass over ``entities``.

    The core keeps every entity's slots, and the signals, ``_prest`` and generator of those
    that hold more than a motion-only entity's defaults (``odd``); this keeps their own
    fields and their generators' states.
    """
    assert _core is not None
    rows, odd, extras, kinds = _core.keep(entities, NO_SIGNALS)
    more = []  # (index, layout and its values or None, generator and its state or None)
    for at, index in enumerate(odd):
        entity: BufferSlots = entities[index]
        layout: Layout = type(entity)._layout
        generator: random.Random | None = extras[_EXTRAS * at + 2]
        if layout.rest or generator is not None:
            more.append((index, layout if layout.rest else None, layout.get(entity) if layout.rest else None,
                         generator, None if generator is None else random_snapshot(generator)))
    return (rows, odd, extras, more), list({*map(type, entities)}) if kinds is None else kinds


def restore_compiled(entities: list[BufferSlots], kept: KeptBuffers) -> None:
    """``restore_classes`` for what ``keep_compiled`` kept: every entity its kept class again."""
    assert _core is not None
    rows = kept[0]
    changed = _core.changed_classes(entities, rows)
    if changed:
        width = len(rows) // len(entities)  # the class ends each row
        restore_classes(entities, changed, [rows[index * width + width - 1] for index in changed])


def put_back_compiled(entities: list[BufferSlots], kept: KeptBuffers) -> list[BufferSlots] | None:
    """``put_back_buffers`` through the compiled core, for what ``keep_compiled`` kept.

    Returns the entities with committed signals, found in the same pass, for ``put_back_signals``.
    """
    assert _core is not None
    rows, odd, extras, more = kept
    signalled: list[BufferSlots] = _core.put_back(entities, rows, odd, extras, NO_SIGNALS)
    for index, layout, values, generator, state in more:
        if layout is not None:
            layout.set(entities[index], values)
        if generator is not None:
            random_restore(generator, state)
    bump()  # looks and parts may be others now
    return signalled
