"""Collisions: which entities overlap one, or a box, or stand near a point, from one grid per tick.

``world.overlapping(entity, kind=None)``, ``world.overlapping_at(x, y, size, kind=None)`` and
``world.near(x, y, radius, kind=None)`` read *committed* positions, the ones every entity
sees during a tick, so their answers are the same in every update order, and return
entities sorted by id, so even the list is. Committed positions do not change during a
tick, so one index (uniform grids) is built per tick and serves every query of it: a game
whose 1,000 entities each ask "what do I touch?" pays for one grid and 1,000 short
look-ups instead of a million box tests. Entities whose class says ``static = True``
(tiles) have a grid of their own, kept from tick to tick while it is exact
(``SpatialLayers``): a level of 900 tiles is not re-gridded every tick. A static entity
may also carry ``solid_index``, a grid of boxes that are not entities (a ``TileMap``'s
solid tiles), built once by it: queries read those grids as they are.

An entity's box is its ``hitbox`` (``(width, height)``, centred on its position), by
default its look's size; boxes are axis-aligned (they don't turn with ``angle``). An
entity with neither (no look, a text look) has no box and overlaps nothing, though
``near`` still finds it by its position. Boxes that only touch do not overlap. During a
tick, every entity live when the tick began is found (one despawned earlier in the tick
still collides, so both sides see the hit in every update order); crowds (entities with
buffers of their own, ``OwnBuffers``) are left out (their members are rows of numpy
arrays: query those with numpy).

This module is the mechanism (the grid, its static layer and its look-ups); which index
serves a query, and when it is built, is the world's part ``engine.world.collisions``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from engine.buffering.own import OwnBuffers
from engine.entity import Entity
from engine.look import resolved

__all__ = ["SpatialIndex", "SpatialLayers", "box_of"]


def box_of(entity: Entity) -> tuple[float, float] | None:
    """``entity``'s (width, height) for collisions: its ``hitbox``, else its look's size, else ``None``."""
    hitbox = getattr(entity, "hitbox", None)
    if hitbox is not None:
        if (not isinstance(hitbox, tuple) or len(hitbox) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in hitbox)):
            raise TypeError(f"{type(entity).__name__}.hitbox must be (width, height), two numbers >= 0, "
                            f"got {hitbox!r}")
        return float(hitbox[0]), float(hitbox[1])
    look = resolved(entity.look)
    return None if look is None else look.box


class SpatialIndex:
    """A uniform grid of entities' positions and boxes, built once from committed state.

    Each entity is filed in the cell of its centre; the cell is twice the size of a
    typical box, so a box can only reach into the neighbouring cells. The few entities
    much larger than that are checked against every query.
    """

    SMALL = 32
    """Up to this many entities, no grid: each query checks them all (numpy's set-up costs more)."""

    def __init__(self, entities: Sequence[Entity], positions: Sequence[tuple[float, float]] | None = None) -> None:
        # A crowd's members are rows of arrays, not entities: its own position means nothing here.
        kept = [slot for slot, entity in enumerate(entities) if not isinstance(entity, OwnBuffers)]
        self.entities = [entities[slot] for slot in kept]
        """The entities indexed, in update order (crowds left out)."""
        count = len(self.entities)
        self.slot_of = {entity.id: slot for slot, entity in enumerate(self.entities)}
        where = [(e.x, e.y) for e in self.entities] if positions is None else [positions[slot] for slot in kept]
        if count <= self.SMALL:
            self._small(where)
            return
        # numpy loads only when a game asks for collisions: import engine stays light.
        import numpy as np

        positions_array = np.array(where, dtype=np.float64).reshape(count, 2)
        boxes = np.zeros((count, 2))
        boxed = np.zeros(count, dtype=bool)
        for slot, entity in enumerate(self.entities):
            box = box_of(entity)
            if box is not None:
                boxes[slot] = box
                boxed[slot] = True
        self.x, self.y = positions_array[:, 0].tolist(), positions_array[:, 1].tolist()
        halves = boxes / 2.0
        self.half_width, self.half_height = halves[:, 0].tolist(), halves[:, 1].tolist()
        self.boxed = boxed.tolist()
        extents = np.maximum(boxes[:, 0], boxes[:, 1])[boxed]
        typical = float(np.percentile(extents, 75)) if len(extents) else 0.0
        self.cell = max(8.0, 2.0 * typical)
        # Anything wider than a cell could reach past the neighbours: checked every time. So
        # is anything at a position no cell number can hold (NaN, infinite, astronomically far).
        with np.errstate(invalid="ignore"):
            far = ~(np.abs(positions_array) < self.cell * 2.0**30).all(axis=1)
        big = (np.maximum(boxes[:, 0], boxes[:, 1]) > self.cell) | far
        self.big: list[int] = np.flatnonzero(big).tolist()
        small = np.flatnonzero(~big)
        cells_x = np.floor(positions_array[small, 0] / self.cell).astype(np.int64)
        cells_y = np.floor(positions_array[small, 1] / self.cell).astype(np.int64)
        keys = cells_x * (1 << 32) + cells_y
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        unique, starts = np.unique(sorted_keys, return_index=True)
        ends = np.append(starts[1:], len(sorted_keys))
        self.members: list[int] = small[order].tolist()
        self.cells: dict[int, tuple[int, int]] = dict(zip(unique.tolist(), zip(starts.tolist(), ends.tolist())))

    def _small(self, where: list[tuple[float, float]]) -> None:
        """A few entities: every one is a candidate for every query (the same answers as the grid's)."""
        self.x = [float(x) for x, _ in where]
        self.y = [float(y) for _, y in where]
        boxes = [box_of(entity) for entity in self.entities]
        self.boxed = [box is not None for box in boxes]
        self.half_width = [box[0] / 2.0 if box is not None else 0.0 for box in boxes]
        self.half_height = [box[1] / 2.0 if box is not None else 0.0 for box in boxes]
        self.cell = 8.0
        self.big = list(range(len(self.entities)))
        self.members = []
        self.cells = {}

    def _around(self, x0: float, y0: float, x1: float, y1: float) -> list[int]:
        """Slots of every entity whose centre is in a cell touching [x0, x1] x [y0, y1] (plus the big ones)."""
        cell = self.cell
        found = list(self.big)
        cells, members = self.cells, self.members
        bounds = (x0 / cell, x1 / cell, y0 / cell, y1 / cell)
        if any(math.isnan(bound) for bound in bounds):
            return found  # a NaN box is nowhere
        if not all(math.isfinite(bound) for bound in bounds):
            return found + members
        columns = math.floor(bounds[1]) - math.floor(bounds[0]) + 1
        rows = math.floor(bounds[3]) - math.floor(bounds[2]) + 1
        if columns * rows > len(cells):
            return found + members  # a query wider than the occupied cells: everyone is a candidate
        for cell_x in range(math.floor(x0 / cell), math.floor(x1 / cell) + 1):
            base = cell_x * (1 << 32)
            for cell_y in range(math.floor(y0 / cell), math.floor(y1 / cell) + 1):
                span = cells.get(base + cell_y)
                if span is not None:
                    found.extend(members[span[0]:span[1]])
        return found

    def overlapping_box(self, x: float, y: float, half_width: float, half_height: float,
                        exclude: int = -1) -> list[int]:
        """Slots (in update order) of the boxed entities overlapping the box centred on (x, y)."""
        reach = self.cell / 2.0
        xs, ys, widths, heights, boxed = self.x, self.y, self.half_width, self.half_height, self.boxed
        hits = [slot for slot in self._around(x - half_width - reach, y - half_height - reach,
                                              x + half_width + reach, y + half_height + reach)
                if boxed[slot] and slot != exclude
                and abs(xs[slot] - x) < widths[slot] + half_width and abs(ys[slot] - y) < heights[slot] + half_height]
        hits.sort()
        return hits

    def near(self, x: float, y: float, radius: float) -> list[int]:
        """Slots (in update order) of the entities whose position is within ``radius`` of (x, y)."""
        xs, ys = self.x, self.y
        # hypot, not squares: a position of 1e200 must not overflow.
        hits = [slot for slot in self._around(x - radius, y - radius, x + radius, y + radius)
                if math.hypot(xs[slot] - x, ys[slot] - y) <= radius]
        hits.sort()
        return hits


def _entity_id(entity: Entity) -> int:
    return entity.id if entity.id is not None else -1


class SpatialLayers:
    """One tick's index in two layers: the static entities and everyone else.

    The static layer (entities whose class says ``static = True``) is kept from tick to
    tick while it is exactly right: the same entities, each at the same position with the
    same look and hitbox. Anything else (a tile that moved, one despawned or spawned, a
    changed look) rebuilds it, so ``static`` is a promise for speed, never for correctness.
    The other layer is built every tick. Every query reads both and returns entities
    sorted by id, so the list (not only the set) is the same in every update order.
    """

    def __init__(self, static: SpatialIndex | None, moving: SpatialIndex,
                 fixed: Sequence[SpatialIndex] = ()) -> None:
        self.layers = [layer for layer in (static, moving) if layer is not None and layer.entities]
        self.fixed = [layer for layer in fixed if layer.entities]
        """Grids of boxes that are not entities (a tile map's solid tiles), built once by their owner."""

    def box_of(self, entity: Entity) -> tuple[float, float, float, float] | bool | None:
        """Where ``entity`` is indexed: (x, y, half width, half height); ``None`` if it has no box there;
        ``False`` if it is not indexed at all (spawned in this tick)."""
        if entity.id is None:
            return False
        for layer in self.layers:
            slot = layer.slot_of.get(entity.id, -1)
            if slot >= 0 and layer.entities[slot] is entity:
                if not layer.boxed[slot]:
                    return None
                return layer.x[slot], layer.y[slot], layer.half_width[slot], layer.half_height[slot]
        return False

    def overlapping_box(self, x: float, y: float, half_width: float, half_height: float,
                        exclude: Entity | None = None) -> list[Entity]:
        """The indexed entities with a box overlapping the box centred on (x, y), but ``exclude``; by id."""
        found: list[Entity] = []
        for layer in self.layers:
            skip = -1
            if exclude is not None and exclude.id is not None:
                skip = layer.slot_of.get(exclude.id, -1)
            entities = layer.entities
            found.extend(entities[slot] for slot in layer.overlapping_box(x, y, half_width, half_height, skip))
        found.sort(key=_entity_id)
        return found

    def fixed_overlapping_box(self, x: float, y: float, half_width: float, half_height: float) -> list[Any]:
        """The fixed boxes (tiles) overlapping the box centred on (x, y): grid by grid, each in its own order."""
        found: list[Any] = []
        for layer in self.fixed:
            entities = layer.entities
            found.extend(entities[slot] for slot in layer.overlapping_box(x, y, half_width, half_height))
        return found

    def near(self, x: float, y: float, radius: float) -> list[Entity]:
        """The indexed entities whose position is within ``radius`` of (x, y), by id."""
        found: list[Entity] = []
        for layer in self.layers:
            entities = layer.entities
            found.extend(entities[slot] for slot in layer.near(x, y, radius))
        found.sort(key=_entity_id)
        return found

