"""What a checkpoint keeps of an entity's buffers, in memory, and how a rollback puts it back.

The buffers' half of ``World.checkpoint`` (``engine.world.checkpoints`` does the world's
half): the committed buffered values, the previous values the renderer interpolates
from, the committed signals and the entity's random generator. Taken between ticks only,
when nothing is pending. Values are kept by reference: buffered values are immutable
(a spawn refuses a mutable one), and signals dicts are replaced, never changed, by a tick.
The generator object itself is kept, so a rollback puts the same object back.
"""

from __future__ import annotations

import random
from typing import Any

from engine.buffering.fields import layout_of
from engine.buffering.slots import BufferSlots

__all__ = ["KeptBuffers", "keep_buffers", "put_back_buffers"]

KeptBuffers = tuple[Any, ...]
"""One entity's kept buffers (opaque outside this module)."""


def keep_buffers(entity: BufferSlots) -> KeptBuffers:
    """Everything the buffers hold for ``entity`` between ticks, to put back with ``put_back_buffers``."""
    generator: random.Random | None = entity._random
    return (layout_of(entity).get(entity), entity._px, entity._py, entity._pa, entity._prest, entity._prev_tick,
            entity._signals, generator, None if generator is None else generator.getstate())


def put_back_buffers(entity: BufferSlots, kept: KeptBuffers) -> None:
    """Make ``entity``'s buffers hold what ``keep_buffers`` returned (between ticks)."""
    values, px, py, pa, rest, previous_tick, signals, generator, state = kept
    layout_of(entity).set(entity, values)
    entity._bx, entity._by, entity._ba = entity.x, entity.y, entity.angle
    entity._px, entity._py, entity._pa, entity._prest = px, py, pa, rest
    entity._prev_tick = previous_tick
    entity._signals = signals
    entity._random = generator
    entity._random_mark = -1
    if generator is not None:
        generator.setstate(state)

