"""A world's collision queries: ``overlapping`` and ``near``, from one ``SpatialIndex`` per tick.

A part ``World`` is composed of (the grid itself, and the rules of what overlaps, are in
``engine.spatial``). The schedule forgets the index when a tick starts; the first query
of the tick builds it from the committed positions, and every later query of the tick
reuses it. A world that has asked once gets its index built as each later tick starts,
before any update can change a look.
"""

from __future__ import annotations

from typing import Any, TypeVar

from engine.buffering.access import committed_positions
from engine.entity import Entity
from engine.spatial import SpatialIndex, box_of
from engine.world.spawner import Spawner

__all__ = ["Collisions"]

E = TypeVar("E", bound=Entity)


class Collisions:
    """The per-tick index of one world's entities, and the queries ``World`` delegates to it."""

    def __init__(self, spawner: Spawner) -> None:
        self._spawner = spawner
        self._index: SpatialIndex | None = None
        self._index_tick = -1
        self._wanted = False

    def index(self, ticking: bool, tick_count: int) -> SpatialIndex:
        """The index of this tick (built on its first query, at most once); between ticks, a fresh one.

        Mid-tick it is built from the values committed when the tick began (the buffers'
        baseline), not from the attributes: the entity asking may have moved already.
        """
        self._wanted = True
        if not ticking:
            return SpatialIndex(self._spawner.live())
        index = self._index
        if index is None or self._index_tick != tick_count:
            # The first query this world ever makes: everyone live when the tick began, at
            # the positions committed then. (Looks are read now: from the next tick on, the
            # index is built before any update can change one.)
            entities = list(self._spawner.update_order())
            index = self._index = SpatialIndex(entities, committed_positions(entities))
            self._index_tick = tick_count
        return index

    def tick_started(self, tick_count: int) -> None:
        """The world calls this as a tick begins: a world that asks for collisions gets its
        index built now, from committed positions and the looks every entity has before
        any update runs, so no update can change what a later query sees."""
        self._index = None
        if self._wanted:
            self._index = SpatialIndex(self._spawner.live())
            self._index_tick = tick_count

    def overlapping(self, entity: Entity, kind: type[E] | None, ticking: bool, tick_count: int) -> list[E]:
        """``World.overlapping``: the entities whose boxes overlap ``entity``'s (see there)."""
        if not isinstance(entity, Entity):
            raise TypeError(f"world.overlapping takes an Entity, got {entity!r}")
        index = self.index(ticking, tick_count)
        slot = index.slot_of.get(entity.id, -1) if entity.id is not None else -1
        if slot >= 0:
            if not index.boxed[slot]:
                return []
            x, y = index.x[slot], index.y[slot]
            half_width, half_height = index.half_width[slot], index.half_height[slot]
        else:  # not live yet (spawned this tick): where it will start
            box = box_of(entity)
            if box is None:
                return []
            x, y, half_width, half_height = float(entity.x), float(entity.y), box[0] / 2, box[1] / 2
        return _pick(index, index.overlapping_box(x, y, half_width, half_height, slot), kind)

    def near(self, x: float, y: float, radius: float, kind: type[E] | None, ticking: bool,
             tick_count: int) -> list[E]:
        """``World.near``: the entities within ``radius`` of (x, y) (see there)."""
        if isinstance(radius, bool) or not isinstance(radius, (int, float)) or not radius >= 0:
            raise ValueError(f"world.near: radius must be a number >= 0, got {radius!r}")
        index = self.index(ticking, tick_count)
        return _pick(index, index.near(float(x), float(y), float(radius)), kind)


def _pick(index: SpatialIndex, slots: list[int], kind: type[Any] | None) -> list[Any]:
    entities = index.entities
    found = [entities[slot] for slot in slots]
    # Everyone live when the tick began, even one despawned earlier in this tick: a
    # collision is seen by both sides in every update order.
    return [e for e in found if kind is None or isinstance(e, kind)]
