"""How the rest of the engine reads an entity's buffers: previous values, the renderer's
gather, committed positions for collisions, signals for snapshots, and what a save keeps.

The per-tick protocol is in ``engine.buffering.buffers``; this module only reads (and,
for a load, restores) the slots it keeps on entities, so that nothing outside the
package has to know their names.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from engine.buffering.fields import MOTION, layout_of
from engine.buffering.slots import BufferSlots

__all__ = ["NO_SIGNALS", "committed", "committed_state",
           "committed_values", "has_buffers", "motion", "previous", "random_of", "restore_state",
           "saved_state", "signals_of", "snap"]

NO_SIGNALS: dict[str, Any] = {}
"""The committed signals of an entity that has none (shared: never mutated)."""


def previous(entity: BufferSlots, name: str) -> Any:
    """The value of buffered field ``name`` committed at the end of the tick before the last."""
    world = entity.world
    if world is None or entity._prev_tick != world.tick_count:
        return getattr(entity, name)
    if name == "x":
        return entity._px
    if name == "y":
        return entity._py
    if name == "angle":
        return entity._pa
    layout = layout_of(entity)
    return entity._prest[layout.index(name) - len(MOTION)]


def snap(entity: BufferSlots) -> None:
    """previous = current for ``entity``; inside a tick, for the values that tick commits (``Entity.snap``)."""
    state = entity._wstate
    if state is None or entity.world is None:
        entity._prev_tick = -1
    else:
        state.buffers.snap(entity, state.ticking)


def random_of(entity: BufferSlots) -> random.Random | None:
    """A spawned entity's own random generator (see ``Entity.random``); ``None`` before it has an id."""
    generator = entity._random
    if generator is not None:  # the common case: made already, and saved for this tick already, or between ticks
        state = entity._wstate
        if state is not None and (not state.ticking or entity._random_mark is state.token):
            return generator
    world = entity.world
    if world is None or entity.id is None:
        return None
    return entity._wstate.buffers.random_for(entity, world.seed, world.ticking)  # type: ignore[no-any-return]


def motion(entities: Iterable[BufferSlots], tick: int) -> tuple[list[float], list[float]]:
    """The renderer's gather: ``[px, py, pa, ...]`` and ``[x, y, angle, ...]`` for ``entities``.

    Previous values are those committed at the end of the tick before the last, given the
    world's ``tick_count``; flat lists, so the caller makes one array of each.
    """
    previous: list[float] = []
    current: list[float] = []
    add_previous = previous.extend
    add_current = current.extend
    for entity in entities:
        now = (entity.x, entity.y, entity.angle)
        add_current(now)
        add_previous((entity._px, entity._py, entity._pa) if entity._prev_tick == tick else now)
    return previous, current


def committed(entity: BufferSlots, name: str) -> Any:
    """Buffered field ``name`` of ``entity`` as every *other* entity reads it now, whoever asks.

    Mid-update an entity reads its own pending value; this is the committed one (set aside
    when the tick began) even then: what a computation shared by several entities in one
    tick must read, so that its outcome does not depend on which of them asked first.
    """
    state = entity._wstate
    if state is None or state.updating is not entity:
        return getattr(entity, name)
    index = layout_of(entity).index(name)
    if index < len(MOTION):  # the baseline slots hold x, y and angle as committed
        return (entity._bx, entity._by, entity._ba)[index]
    return entity._bfull[index] if entity._wmark is state.token else getattr(entity, name)


def committed_state(entity: BufferSlots) -> dict[str, Any]:
    """Every buffered field of ``entity`` by name, as ``committed`` reads each (one pass, for a shared computation)."""
    layout = layout_of(entity)
    state = entity._wstate
    values = layout.get(entity)
    if state is not None and state.updating is entity:
        own = entity._bfull if not entity._motion_only and entity._wmark is state.token else values
        values = (entity._bx, entity._by, entity._ba, *own[len(MOTION):])
    return dict(zip(layout.names, values))


def committed_values(entity: BufferSlots) -> dict[str, Any]:
    """Every buffered field of ``entity`` by name, as committed (between ticks)."""
    layout = layout_of(entity)
    return dict(zip(layout.names, layout.get(entity)))


def has_buffers(entity: object) -> bool:
    """Whether ``Entity.__init__`` gave ``entity`` its buffers' slots (a subclass may forget ``super().__init__()``)."""
    return hasattr(entity, "_signals")


def signals_of(entity: BufferSlots) -> dict[str, Any]:
    """The signals an entity sees this tick (raised the tick before): name -> True or combined value."""
    return entity._signals


def saved_state(entity: BufferSlots) -> dict[str, Any]:
    """What a save must keep of an entity's buffers besides its committed values."""
    generator = entity._random
    rest = entity._prest
    if len(rest) != len(layout_of(entity).rest):  # never changed: previous == current for its own fields
        rest = layout_of(entity).get(entity)[len(MOTION):]
    return {
        "signals": dict(entity._signals),
        "previous_tick": entity._prev_tick,
        "previous": [entity._px, entity._py, entity._pa, *rest],
        "random": None if generator is None else _random_state(generator),
    }


def restore_state(entity: BufferSlots, state: dict[str, Any]) -> None:
    """Put back what ``saved_state`` returned (the committed values are set by the caller)."""
    entity._signals = dict(state["signals"]) or NO_SIGNALS
    entity._prev_tick = int(state["previous_tick"])
    values = list(state["previous"])
    entity._px, entity._py, entity._pa = values[0], values[1], values[2]
    entity._prest = tuple(values[3:])
    if state["random"] is not None:
        generator = random.Random()
        generator.setstate(_random_from_state(state["random"]))
        entity._random = generator


def _random_state(generator: random.Random) -> list[Any]:
    version, internal, gauss = generator.getstate()
    return [version, list(internal), gauss]


def _random_from_state(data: list[Any]) -> tuple[Any, ...]:
    version, internal, gauss = data
    return (version, tuple(internal), gauss)
