"""A world's collision queries: ``overlapping``, ``overlapping_at``, ``near`` and ``overlapping_members``.

A part ``World`` is composed of (the grids themselves, and the rules of what overlaps,
are in ``engine.spatial``). The schedule forgets the tick's tables when a tick starts; a
world that has asked once gets them gathered as each later tick starts, before any update
can change a look, and the first query of a kind in a tick builds that kind's grid, which
every later query of the tick reuses. The first query a world ever makes, mid-tick,
gathers the tables then, from the positions committed when the tick began (the buffers'
baseline). The static table (entities whose class says ``static = True``) outlives the
tick while it is still exact, and so do its grids.

The cost of a query is about what it returns: a query for walkers walks only the walkers'
grid (a class and its subclasses), a few cells of it, in C where the core is built.
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING, Any, TypeVar

from engine.buffering.own import OwnBuffers, member_positions
from engine.entity import Entity
from engine.look import resolved
from engine.spatial import Boxes, SpatialIndex, box_of, member_box
from engine.world.spawner import Spawner

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Collisions", "OldIndex"]

E = TypeVar("E")

_STATIC_KEY = operator.attrgetter("x", "y", "look", "hitbox")
"""What must be unchanged, besides the entity itself, for a static entity's place in the static table to hold."""


def _id(entity: Any) -> int:
    return entity.id if entity.id is not None else -1


def _is_static(kind: type) -> bool:
    return getattr(kind, "static", False) is True


class _Kind:
    """The grids one tick has for one ``kind`` (static first, then moving), and the tile grids it reads."""

    __slots__ = ("grids", "only", "tile_kind", "tiles")

    def __init__(self, grids: list[Any], tiles: list[SpatialIndex], tile_kind: type | None) -> None:
        self.grids = grids
        self.tiles = tiles
        self.tile_kind = tile_kind
        self.only = grids[0] if len(grids) == 1 and not tiles else None
        """The one grid that answers alone (no static grid, no tiles): the fast path."""

    def overlapping_box(self, x: float, y: float, half_width: float, half_height: float,
                        exclude: Any) -> list[Any]:
        """Entities by id, then tiles (map by map, each in its own order)."""
        grids = self.grids
        if len(grids) == 1:
            found: list[Any] = grids[0].overlapping_box(x, y, half_width, half_height, exclude)
        elif grids:
            found = sorted([*grids[0].overlapping_box(x, y, half_width, half_height, exclude),
                            *grids[1].overlapping_box(x, y, half_width, half_height, exclude)], key=_id)
        else:
            found = []
        for tiles in self.tiles:
            hits = tiles.overlapping_box(x, y, half_width, half_height)
            kind = self.tile_kind
            found.extend(hits if kind is None else [tile for tile in hits if isinstance(tile, kind)])
        return found


class Collisions:
    """The tick's tables and grids of one world's entities, and the queries ``World`` delegates to them."""

    def __init__(self, spawner: Spawner) -> None:
        self._spawner = spawner
        self._tick = -1  # the tick whose tables these are (between ticks: none, every query gathers afresh)
        self._wanted = False
        self._static: Boxes | None = None
        self._moving: Boxes | None = None
        self._fixed: list[SpatialIndex] = []
        self._kinds: dict[Any, _Kind] = {}
        self._split: tuple[list[Entity], list[Entity], list[Entity]] | None = None  # (entities, static, moving)
        self._static_key: list[tuple[Any, ...]] | None = None
        self.quick: dict[Any, Any] = {}
        """This tick's kinds that one grid answers alone, and that grid: ``World.overlapping``'s fast path (read
        only while a tick runs; emptied in place whenever the tables are gathered)."""

    # -- the tables ------------------------------------------------------------------------

    def _gather(self, entities: list[Entity], baseline: bool) -> None:
        """This tick's tables: the static one kept (with its grids) while it is exactly the same.

        Whether it is the same is asked of every static entity (the same object) and its x, y,
        look and hitbox, by identity first (what a tile that never moves keeps): cheaper than gathering them.
        """
        split = self._split
        if split is None or split[0] != entities:  # entities compare by identity first: C speed
            statics = self._spawner.of_classes(_is_static)  # by id: found by class, not by a walk over everyone
            if len(statics) * 8 <= len(entities):
                # A few statics among many (a map among a wave of shots): the moving table is gathered from
                # everyone, and its gather leaves the statics out by class (no walk here at all).
                movers = entities
            else:
                movers = [entity for entity in entities if type(entity).static is not True]
            kept = list(entities)  # a copy: the spawner's list changes in place after the tick
            split = self._split = (kept, statics, kept if movers is entities else list(movers))
        _, statics, movers = split
        if not statics:
            self._static, self._static_key, self._fixed = None, None, []
        else:
            # Each entity with its place: two maps at (0, 0) are not one map (a room changed in one tick,
            # or a rollback across that change, keeps every place and changes who stands there).
            key = None if baseline else list(zip(statics, map(_STATIC_KEY, statics)))
            if self._static is None or key is None or key != self._static_key:
                # Rebuilt from the committed positions, whichever way they are read (mid-tick: the baseline).
                self._static = Boxes.gather(statics, baseline)[0]
                self._static_key = key
                # Tile maps' solid tiles: grids their maps built once, taken as they are (by map id).
                self._fixed = [index for entity in self._static.entities
                               if isinstance(index := getattr(entity, "solid_index", None), SpatialIndex)]
        self._moving = Boxes.gather(movers, baseline)[1]  # statics among them are in the static part, left out
        self._kinds = {}
        self.quick.clear()

    def _ready(self, ticking: bool, tick_count: int) -> None:
        """The tables every query of this moment reads: the tick's (built at most once a tick), or fresh ones."""
        self._wanted = True
        if not ticking:
            self._gather(self._spawner.live(), False)
            self._tick = -1
        elif self._tick != tick_count:
            # The first query this world ever makes: everyone live when the tick began, at the
            # positions committed then. (Looks are read now: from the next tick on, the tables
            # are gathered before any update can change one.)
            self._gather(self._spawner.ticking_order(), True)
            self._tick = tick_count

    def tick_started(self, tick_count: int) -> None:
        """The world calls this as a tick begins: a world that asks for collisions gets its tables
        gathered now, from committed positions and the looks every entity has before any update
        runs, so no update can change what a later query sees. Grids are built when first asked."""
        self._tick = -1
        self._moving = None
        self._kinds = {}
        self.quick.clear()
        if self._wanted:
            self._gather(self._spawner.ticking_order(), False)
            self._tick = tick_count

    def _kind(self, kind: Any) -> _Kind:
        """The grids of ``kind`` for the tables of this moment, built now if this is their first query."""
        if kind is not None and not isinstance(kind, type):
            raise TypeError(f"a collision query's kind must be a class (or None for every kind), got {kind!r}")
        grids = [tables.grid(kind) for tables in (self._static, self._moving)
                 if tables is not None and tables.has(kind)]
        grids = [grid for grid in grids if len(grid)]
        tiles = self._fixed if kind is None or not issubclass(kind, Entity) else []
        found = _Kind(grids, tiles, kind)
        if self._tick >= 0:
            self._kinds[kind] = found
            if found.only is not None:
                self.quick[kind] = found.only
        return found

    def _for(self, kind: Any, ticking: bool, tick_count: int) -> _Kind:
        if ticking and self._tick == tick_count:
            try:
                return self._kinds[kind]
            except KeyError:
                return self._kind(kind)
            except TypeError:  # unhashable: not a class
                return self._kind(kind)
        self._ready(ticking, tick_count)
        return self._kind(kind)

    def _box(self, entity: Entity) -> tuple[float, float, float, float] | None:
        """Where ``entity`` is for this moment's queries: its row in a table, or, if it is in none (spawned
        in this tick, or in another world), its own position and box. ``None``: it overlaps nothing."""
        for tables in (self._moving, self._static):
            if tables is not None:
                where = tables.table.box(entity)
                if where is not False:
                    return where  # type: ignore[no-any-return]
        if isinstance(entity, OwnBuffers):
            return None  # a crowd's own position means nothing: its members collide (overlapping_members)
        look = resolved(entity.look)
        if look is not None and look.screen:
            return None  # window coordinates: in no world collision
        box = box_of(entity)
        if box is None:
            return None
        return float(entity.x), float(entity.y), box[0] / 2, box[1] / 2

    # -- the queries ---------------------------------------------------------------------------

    def overlapping(self, entity: Entity, kind: type[E] | None, ticking: bool, tick_count: int) -> list[E]:
        """``World.overlapping``: the entities whose boxes overlap ``entity``'s (see there)."""
        # The fast path, which a shooter takes a thousand times a tick: the kind's one grid, asked
        # about an entity in its table (found by id and identity, so surely an Entity).
        if ticking and tick_count == self._tick:
            try:
                only = self._kinds[kind].only
            except (KeyError, TypeError):
                only = None
            if only is not None:
                found: list[E] | None = only.overlapping(entity)
                if found is not None:
                    return found
        if not isinstance(entity, Entity):
            raise TypeError(f"world.overlapping takes an Entity, got {entity!r}")
        query = self._for(kind, ticking, tick_count)
        if query.only is not None:
            found = query.only.overlapping(entity)
            if found is not None:
                return found
        elif not query.grids and not query.tiles:
            return []
        where = self._box(entity)
        if where is None:
            return []
        return query.overlapping_box(*where, entity)

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
        query = self._for(kind, ticking, tick_count)
        return query.overlapping_box(x, y, size[0] / 2, size[1] / 2, None)

    def near(self, x: float, y: float, radius: float, kind: type[E] | None, ticking: bool,
             tick_count: int, exclude: Entity | None = None) -> list[E]:
        """``World.near``: the entities (but ``exclude``) within ``radius`` of (x, y) (see there)."""
        if isinstance(radius, bool) or not isinstance(radius, (int, float)) or not radius >= 0:
            raise ValueError(f"world.near: radius must be a number >= 0, got {radius!r}")
        if exclude is not None and not isinstance(exclude, Entity):
            raise TypeError(f"world.near: exclude must be an Entity (or None), got {exclude!r}")
        query = self._for(kind, ticking, tick_count)
        grids = query.grids
        x, y, radius = float(x), float(y), float(radius)
        # The grid skips ``exclude``'s slot as it walks (found by id and identity, as ``overlapping`` skips
        # the asker's): no second pass over the answer, and nothing at all when it is None.
        if len(grids) == 1:
            return grids[0].near(x, y, radius, exclude)  # type: ignore[no-any-return]
        return sorted([entity for grid in grids for entity in grid.near(x, y, radius, exclude)], key=_id)

    def overlapping_members(self, crowd: Any, kind: type[E] | None, ticking: bool,
                            tick_count: int) -> tuple[np.ndarray[Any, Any], list[E]]:
        """``World.overlapping_members``: which members of ``crowd`` overlap which entities (see there)."""
        if not isinstance(crowd, OwnBuffers) or not isinstance(crowd, Entity):
            raise TypeError(f"world.overlapping_members takes a Crowd, got {crowd!r}")
        if kind is not None and not isinstance(kind, type):
            raise TypeError(f"world.overlapping_members: kind must be a class, got {kind!r}")
        import numpy as np  # loaded only by a world whose crowds collide: import engine stays light

        box = member_box(crowd)
        query = self._for(kind, ticking, tick_count)
        if box is None or not query.grids:
            return np.zeros(0, dtype=np.int64), []
        positions = member_positions(crowd)
        count, half_width, half_height = len(positions), box[0] / 2, box[1] / 2
        answers = [grid.members(positions, count, half_width, half_height) for grid in query.grids]
        if len(answers) == 1:
            return np.frombuffer(answers[0][0], dtype=np.int64).copy(), answers[0][1]
        members = np.concatenate([np.frombuffer(which, dtype=np.int64) for which, _found in answers])
        found = [entity for _which, hit in answers for entity in hit]
        ids = np.array([_id(entity) for entity in found], dtype=np.int64)
        order = np.lexsort((ids, members))
        return members[order], [found[n] for n in order.tolist()]


class OldIndex:
    """What the deprecated ``World.spatial_index()`` returns: 0.2's two look-ups, over this tick's grids.

    0.2's index answered in slots of its own; this one answers in entities (sorted by id), as
    every query does now. Goes with the alias in 0.5.
    """

    def __init__(self, collisions: Collisions, ticking: bool, tick_count: int) -> None:
        self._collisions, self._ticking, self._tick_count = collisions, ticking, tick_count

    def overlapping_box(self, x: float, y: float, half_width: float, half_height: float) -> list[Entity]:
        """The entities whose boxes overlap the box centred on (x, y) with these half sizes, by id."""
        return self._collisions.overlapping_at(x, y, (2 * half_width, 2 * half_height), Entity, self._ticking,
                                               self._tick_count)

    def near(self, x: float, y: float, radius: float) -> list[Entity]:
        """The entities whose position is within ``radius`` of (x, y), by id."""
        return self._collisions.near(x, y, radius, None, self._ticking, self._tick_count)


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"world.overlapping_at: {name} must be a finite number, got {value!r}")
    return float(value)
