"""A world's collision queries: ``overlapping``, ``overlapping_at`` and ``near``, from one index per tick.

A part ``World`` is composed of (the grid itself, its static layer and the rules of what
overlaps are in ``engine.spatial``). The schedule forgets the index when a tick starts;
the first query of the tick builds it from the committed positions, and every later query
of the tick reuses it. A world that has asked once gets its index built as each later
tick starts, before any update can change a look. The static layer (entities whose class
says ``static = True``) outlives the tick while it is still exact.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, TypeVar

from engine.buffering.access import committed_positions
from engine.entity import Entity
from engine.spatial import SpatialIndex, SpatialLayers, box_of
from engine.world.spawner import Spawner

__all__ = ["Collisions"]

E = TypeVar("E")

_STATIC_KEY = operator.attrgetter("x", "y", "look", "hitbox")
"""What must be unchanged for a static entity's place in the grid to still hold."""


class Collisions:
    """The per-tick index of one world's entities, and the queries ``World`` delegates to it."""

    def __init__(self, spawner: Spawner) -> None:
        self._spawner = spawner
        self._index: SpatialLayers | None = None
        self._index_tick = -1
        self._wanted = False
        self._static_layer: SpatialIndex | None = None
        self._static_key: list[tuple[Any, ...]] | None = None
        self._static_split: tuple[list[Entity], list[Entity], list[Entity]] | None = None
        self._fixed: list[SpatialIndex] = []

    def index(self, ticking: bool, tick_count: int) -> SpatialLayers:
        """The index of this tick (built on its first query, at most once); between ticks, a fresh one.

        Mid-tick it is built from the values committed when the tick began (the buffers'
        baseline), not from the attributes: the entity asking may have moved already.
        """
        self._wanted = True
        if not ticking:
            return self._build(self._spawner.live())
        index = self._index
        if index is None or self._index_tick != tick_count:
            # The first query this world ever makes: everyone live when the tick began, at
            # the positions committed then. (Looks are read now: from the next tick on, the
            # index is built before any update can change one.)
            entities = self._spawner.update_order()
            index = self._index = self._build(entities, committed_positions(entities))
            self._index_tick = tick_count
        return index

    def _build(self, entities: Sequence[Entity],
               positions: Sequence[tuple[float, float]] | None = None) -> SpatialLayers:
        """The two layers for ``entities`` (at ``positions``, else their attributes): the static one reused if exact."""
        moving_at: list[tuple[float, float]] | None = None
        if positions is None:
            split = self._static_split
            if split is None or split[0] != entities:  # entities compare by identity: C speed
                statics = [entity for entity in entities if entity.static]
                moving = [entity for entity in entities if not entity.static] if statics else list(entities)
                split = self._static_split = (list(entities), statics, moving)
            _, statics, moving = split
            key = list(map(_STATIC_KEY, statics))
        else:
            statics, moving, moving_at, key = [], [], [], []
            for entity, (x, y) in zip(entities, positions):
                if entity.static:
                    statics.append(entity)
                    key.append((x, y, entity.look, entity.hitbox))
                else:
                    moving.append(entity)
                    moving_at.append((x, y))
        if not statics:
            self._static_layer = self._static_key = None
            self._fixed = []
        elif self._static_layer is None or key != self._static_key or statics != self._static_layer.entities:
            # Rebuilt from the key's own positions: the committed ones, whichever way they were read.
            self._static_layer = SpatialIndex(statics, [(values[0], values[1]) for values in key])
            self._static_key = key
            # Tile maps' solid tiles: grids their maps built once, taken as they are (by map id).
            self._fixed = [index for entity in sorted(statics, key=_id)
                           if isinstance(index := getattr(entity, "solid_index", None), SpatialIndex)]
        return SpatialLayers(self._static_layer, SpatialIndex(moving, moving_at), self._fixed)

    def tick_started(self, tick_count: int) -> None:
        """The world calls this as a tick begins: a world that asks for collisions gets its
        index built now, from committed positions and the looks every entity has before
        any update runs, so no update can change what a later query sees."""
        self._index = None
        if self._wanted:
            self._index = self._build(self._spawner.live())
            self._index_tick = tick_count

    def overlapping(self, entity: Entity, kind: type[E] | None, ticking: bool, tick_count: int) -> list[E]:
        """``World.overlapping``: the entities whose boxes overlap ``entity``'s (see there)."""
        if not isinstance(entity, Entity):
            raise TypeError(f"world.overlapping takes an Entity, got {entity!r}")
        index = self.index(ticking, tick_count)
        where = index.box_of(entity)
        if where is None:
            return []
        if where is False:  # not live yet (spawned this tick): where it will start
            box = box_of(entity)
            if box is None:
                return []
            where = float(entity.x), float(entity.y), box[0] / 2, box[1] / 2
        assert isinstance(where, tuple)
        return _found(index, where, kind, entity)

    def overlapping_at(self, x: float, y: float, size: tuple[float, float], kind: type[E] | None,
                       ticking: bool, tick_count: int) -> list[E]:
        """``World.overlapping_at``: what a box of ``size`` centred at (x, y) would overlap (see there)."""
        x, y = _number("x", x), _number("y", y)
        if (not isinstance(size, tuple) or len(size) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
                           for v in size)):
            raise ValueError(f"world.overlapping_at: size must be (width, height), two finite numbers >= 0, "
                             f"got {size!r}")
        if kind is not None and not isinstance(kind, type):
            raise TypeError(f"world.overlapping_at: kind must be a class, got {kind!r}")
        return _found(self.index(ticking, tick_count), (x, y, size[0] / 2, size[1] / 2), kind, None)

    def near(self, x: float, y: float, radius: float, kind: type[E] | None, ticking: bool,
             tick_count: int) -> list[E]:
        """``World.near``: the entities within ``radius`` of (x, y) (see there)."""
        if isinstance(radius, bool) or not isinstance(radius, (int, float)) or not radius >= 0:
            raise ValueError(f"world.near: radius must be a number >= 0, got {radius!r}")
        return _pick(self.index(ticking, tick_count).near(float(x), float(y), float(radius)), kind)


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"world.overlapping_at: {name} must be a finite number, got {value!r}")
    return float(value)


def _id(entity: Entity) -> int:
    return entity.id if entity.id is not None else -1


def _found(index: SpatialLayers, box: tuple[float, float, float, float], kind: type[Any] | None,
           exclude: Entity | None) -> list[Any]:
    """What overlaps ``box``: the entities (by id), then the solid tiles (map by map, by layer, row, column).

    ``kind=None`` asks for both, an Entity class for entities only, any other class
    (``Tile``) for the tiles of that class only.
    """
    entities = kind is None or issubclass(kind, Entity)
    found = _pick(index.overlapping_box(*box, exclude=exclude), kind) if entities else []
    if (kind is None or not entities) and index.fixed:
        found.extend(_pick(index.fixed_overlapping_box(*box), kind))
    return found


def _pick(found: list[Entity], kind: type[Any] | None) -> list[Any]:
    # Everyone live when the tick began, even one despawned earlier in this tick: a
    # collision is seen by both sides in every update order.
    return [e for e in found if kind is None or isinstance(e, kind)]
