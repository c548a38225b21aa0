"""Collisions: the grids that answer which entities overlap a box, or stand near a point.

``world.overlapping(entity, kind=None)``, ``world.overlapping_at(x, y, size, kind=None)``,
``world.near(x, y, radius, kind=None)`` and ``world.overlapping_members(crowd, kind)``
read *committed* state, the state every entity sees during a tick, so their answers are
the same in every update order, and return entities sorted by id, so even the list is.
This module is the mechanism; which grid serves a query, and when it is built, is the
world's part ``engine.world.collisions``.

**A table per tick.** ``Boxes`` gathers, in one walk (``gather``), every entity's position,
id, look, hitbox and class, and turns them into numbers with numpy: a box per distinct
look and hitbox, not per entity. Crowds (``OwnBuffers``: their members are rows of arrays)
and screen-space entities (``Look(screen=True)``: a HUD lives in window coordinates) are
left out. What is left, sorted by id, is a ``Table``.

**A grid per kind, built when first asked.** ``Boxes.grid(kind)`` files the table's
entities of ``kind`` (a class and its subclasses) in cells, so a query for walkers never
looks at bullets. A grid has *levels*: the first has cells twice a typical box; a box too
big for them goes to a level of cells four times larger or more, and so on, so a range
ring or a 640 px bar sits in the few coarse cells it covers and is tested only by queries
near it, never by every query. Whatever no cell can hold (an infinite box, a position past
2**30 cells, NaN) is tested by every query (an infinite box overlaps every box, one at NaN
none). A level whose occupied cells span a small rectangle is dense (an array of cells),
else sparse (sorted keys). ``grid_levels`` computes the levels with numpy; the core's
``build`` computes the same levels in C (a test compares them byte for byte).

**The query in C.** The cell walk, the box test and the sort by id run in the compiled
``engine._spatial`` (``gather``, ``Table``, ``Grid``, ``build``), where it was built, unless
``TICKSWAP_PURE=1``; ``PyTable``, ``PyGrid`` and ``py_gather`` here are its pure-Python
twin, the same walk in the same order with the same float expressions, so the two give
the same answers (``tests/test_spatial_core.py`` compares them on random boxes, NaN,
infinite, huge, negative and zero sizes included). ``COMPILED`` says which runs.

An entity's box is its ``hitbox`` (``(width, height)``, centred on its position), by
default its look's size; boxes are axis-aligned (they don't turn with ``angle``). An
entity with neither (no look, a text look) has no box and overlaps nothing, though
``near`` still finds it by its position. Boxes that only touch do not overlap.
"""

from __future__ import annotations

import importlib
import math
import operator
import sys
from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from engine import compiled
from engine.buffering.own import OwnBuffers
from engine.look import Look, resolved

__all__ = ["COMPILED", "Boxes", "PyGrid", "PyTable", "SpatialIndex", "box_of", "build_grid", "gather", "grid_levels",
           "member_box", "pairs_near", "pairs_overlapping", "py_gather"]

if TYPE_CHECKING:
    import numpy as np

    Array = np.ndarray[Any, Any]

Column = Any
"""A table's column: a numpy array, or a list where numpy can't be imported (``lists_only``)."""

MAX_LEVELS = 4
"""Levels of a grid: each one's cells at least four times the last's; what none holds is tested every time."""
REACH = 0.5009765625
"""How far past a query's box its cells reach, in cells: half a cell (the most a member sticks out of its
own) and 1/1024 more, so rounding never loses a member at a cell's edge (the C core's ``REACH``)."""
NEAR_REACH = 0.0009765625
"""The same margin for ``near``, which goes by centres alone."""
CELL_BOUND = 1073741825.0
"""Cell numbers beyond this (2**30 + 1) hold nobody (nobody is filed past 2**30 cells): walks are clamped to it."""
FAR = 2.0 ** 30
"""A position further than this many cells from the origin is in no cell (``everywhere``)."""


_core = compiled.load(lambda: importlib.import_module("engine._spatial"))
COMPILED = _core is not None
"""Whether the compiled ``engine._spatial`` answers queries (False: the pure-Python twin, same answers)."""

_NUMPY: list[bool] = []
"""Whether numpy can be imported, asked once, on the first grid (``import engine`` never imports it)."""


def lists_only() -> bool:
    """Whether collisions run on Python lists alone: numpy can't be imported (a browser's Pyodide without it).

    Then the tables, the levels and the grids are the pure twin's, built from lists with the same
    float expressions in the same order, so every query gives the same answer as with numpy (and the
    compiled core, which reads numpy's buffers, is not used).
    """
    if not _NUMPY:
        try:
            import numpy  # noqa: F401
        except ImportError:
            _NUMPY.append(False)
        else:
            _NUMPY.append(True)
    return not _NUMPY[0]


def _as_list(values: Any, dtype: str) -> list[Any]:
    """``values`` as a list: a list as it is (the lists-only path), else through numpy as ``dtype``."""
    if isinstance(values, list):
        return values
    import numpy as np

    return np.asarray(values, dtype=dtype).tolist()  # type: ignore[no-any-return]


def box_of(entity: Any) -> tuple[float, float] | None:
    """``entity``'s (width, height) for collisions: its ``hitbox``, else its look's size, else ``None``."""
    hitbox = getattr(entity, "hitbox", None)
    if hitbox is not None:
        return _checked_hitbox(type(entity).__name__, hitbox)
    look = resolved(entity.look)
    return None if look is None else look.box


def _checked_hitbox(owner: str, hitbox: Any) -> tuple[float, float]:
    if (not isinstance(hitbox, tuple) or len(hitbox) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in hitbox)):
        raise TypeError(f"{owner}.hitbox must be (width, height), two numbers >= 0, got {hitbox!r}")
    return float(hitbox[0]), float(hitbox[1])


def member_box(crowd: Any) -> tuple[float, float] | None:
    """The box of each member of ``crowd`` (an ``OwnBuffers``): the crowd's ``hitbox``, else its look's size.

    ``None`` when its look is in screen space (window coordinates are in no world collision).
    """
    hitbox = getattr(crowd, "hitbox", None)
    look = resolved(crowd.look)
    if look is not None and look.screen:
        return None
    if hitbox is not None:
        return _checked_hitbox(type(crowd).__name__, hitbox)
    box = None if look is None else look.box
    if box is None:
        raise ValueError(f"{type(crowd).__name__}'s members have no box: give the crowd a look with a size "
                         f"(Look('square', 4)) or hitbox = (width, height)")
    return box


# -- the pure-Python twin of engine._spatial ---------------------------------------------------------


def _position(entity: Any, value: Any, field: str) -> float:
    """A position as the core reads it: a float (or subclass) as its value, an int as float(int),
    never through an overridden ``__float__``."""
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, int):
        return int.__float__(value)
    raise TypeError(f"{type(entity).__name__}'s {field} is a {type(value).__name__}, not a number "
                    "(collisions read x and y as numbers)")


def py_gather(entities: Sequence[Any], names: tuple[str, str, str, str], x: Array, y: Array, ids: Array,
              looks: Array, hitboxes: Array, kinds: Array) -> tuple[list[Any], list[Any], list[type]]:
    """``engine._spatial.gather`` in Python: the same walk, reads, refusals and results."""
    import numpy as np

    entities = tuple(entities)
    count = len(entities)
    for name, array, dtype in (("x", x, np.float64), ("y", y, np.float64), ("ids", ids, np.int64),
                               ("looks", looks, np.int32), ("hitboxes", hitboxes, np.int32),
                               ("kinds", kinds, np.int32)):
        if (not isinstance(array, np.ndarray) or array.dtype != dtype or not array.flags.c_contiguous
                or not array.flags.writeable or array.size < count):
            raise TypeError(f"gather: {name} must be a writable contiguous buffer of at least {count} "
                            f"{dtype.__name__}")
    columns, found = _walk(entities, names)
    for array, column in zip((x, y, ids, looks, hitboxes, kinds), columns):
        array.reshape(-1)[:count] = column
    return found


def _walk(entities: Sequence[Any], names: tuple[str, str, str, str]
         ) -> tuple[tuple[list[Any], ...], tuple[list[Any], list[Any], list[type]]]:
    """``gather``'s walk as lists: the columns (x, y, ids, look index, hitbox index, kind index) and the
    distinct looks, hitboxes and classes, with its refusals; ``py_gather`` and the lists-only path share it."""
    x_name, y_name, look_name, hitbox_name = names
    columns: tuple[list[Any], ...] = ([], [], [], [], [], [])
    xs, ys, identities, look_of, hitbox_of, kind_of = columns
    found: tuple[list[Any], list[Any], list[type]] = ([], [], [])
    # Per attribute, id() of an object held in ``found`` -> its index: identity, never in any hash.
    looks_seen: dict[int, int] = {}
    hitboxes_seen: dict[int, int] = {}
    kinds_seen: dict[int, int] = {}
    # The common cases (a plain float, an object seen before) written inline: this walk runs
    # over every entity every tick a game asks for collisions, on the pure path.
    for entity in entities:
        value = getattr(entity, x_name)
        xs.append(value if type(value) is float else _position(entity, value, "x"))
        value = getattr(entity, y_name)
        ys.append(value if type(value) is float else _position(entity, value, "y"))
        identity = entity.id
        if not isinstance(identity, int):
            raise TypeError(f"{type(entity).__name__}'s id is a {type(identity).__name__}, not an int "
                            "(only spawned entities collide)")
        identities.append(identity)
        value = getattr(entity, look_name)
        index = looks_seen.get(id(value))
        look_of.append(_index(value, looks_seen, found[0]) if index is None else index)
        value = getattr(entity, hitbox_name)
        index = hitboxes_seen.get(id(value))
        hitbox_of.append(_index(value, hitboxes_seen, found[1]) if index is None else index)
        value = type(entity)
        index = kinds_seen.get(id(value))
        kind_of.append(_index(value, kinds_seen, found[2]) if index is None else index)
    return columns, found


def _index(value: Any, seen: dict[int, int], found: list[Any]) -> int:
    """``value``'s index among the distinct objects in ``found`` (by identity), added if new."""
    index = seen.get(id(value))
    if index is None:
        index = seen[id(value)] = len(found)
        found.append(value)
    return index


class PyTable:
    """``engine._spatial.Table`` in Python: one tick's boxes, sorted by id."""

    def __init__(self, entities: Sequence[Any], ids: Column, x: Column, y: Column, half_width: Column,
                 half_height: Column, boxed: Column) -> None:
        self.entities = tuple(entities)
        self.ids: list[int] = _as_list(ids, "int64")
        if any(later <= earlier for earlier, later in zip(self.ids, self.ids[1:])):
            raise ValueError("Table: ids must be sorted and distinct")
        self.x: list[float] = _as_list(x, "float64")
        self.y: list[float] = _as_list(y, "float64")
        self.half_width: list[float] = _as_list(half_width, "float64")
        self.half_height: list[float] = _as_list(half_height, "float64")
        self.boxed: list[bool] = _as_list(boxed, "bool")
        self._slot = {identity: slot for slot, identity in enumerate(self.ids)}

    def __len__(self) -> int:
        return len(self.entities)

    def find(self, entity: Any) -> int:
        """The slot holding ``entity`` (by id, then identity), or -1."""
        identity = getattr(entity, "id", None)
        if not isinstance(identity, int):
            return -1
        slot = self._slot.get(identity, -1)
        return slot if slot >= 0 and self.entities[slot] is entity else -1

    def box(self, entity: Any) -> tuple[float, float, float, float] | bool | None:
        """(x, y, half width, half height) of ``entity`` here; ``None`` if it has no box; ``False`` if not here."""
        slot = self.find(entity)
        if slot < 0:
            return False
        if not self.boxed[slot]:
            return None
        return self.x[slot], self.y[slot], self.half_width[slot], self.half_height[slot]


class _PyLevel:
    """One level of a ``PyGrid``: the same numbers as the core's, as lists and a dict."""

    def __init__(self, spec: tuple[Any, ...]) -> None:
        cell, dense, x0, y0, columns, rows, keys, starts, members = spec
        self.cell, self.dense = float(cell), bool(dense)
        self.x0, self.y0, self.columns, self.rows = int(x0), int(y0), int(columns), int(rows)
        self.starts: list[int] = _as_list(starts, "int64")
        self.members: list[int] = _as_list(members, "int64")
        key_list: list[int] = _as_list(keys, "int64")
        self.cells = self.columns * self.rows if self.dense else len(key_list)
        self.spans = {key: (self.starts[n], self.starts[n + 1]) for n, key in enumerate(key_list)}


class PyGrid:
    """``engine._spatial.Grid`` in Python: one kind's cells over a table, the same walk and answers."""

    def __init__(self, table: PyTable, levels: Sequence[tuple[Any, ...]], everywhere: Column) -> None:
        self.table = table
        self.levels = [_PyLevel(spec) for spec in levels]
        self.everywhere: list[int] = _as_list(everywhere, "int64")
        self.size = sum(len(level.members) for level in self.levels) + len(self.everywhere)

    def __len__(self) -> int:
        return self.size

    def _candidates(self, x0: float, x1: float, y0: float, y1: float, near: bool) -> list[int]:
        """The core's ``candidates``: the members of the cells the range covers, level by level, then everywhere."""
        # Written out rather than with generators and min/max calls: a towers tick asks this
        # hundreds of times, and the pure path is what users without a compiler run.
        found: list[int] = []
        bound = CELL_BOUND
        factor = NEAR_REACH if near else REACH
        floor = math.floor
        for level in self.levels:
            if not level.members:
                continue
            cell = level.cell
            reach = cell * factor
            left, right = (x0 - reach) / cell, (x1 + reach) / cell
            bottom, top = (y0 - reach) / cell, (y1 + reach) / cell
            if left != left or right != right or bottom != bottom or top != top:
                continue  # a box at NaN is nowhere
            # Clamped, then floored: the same as the core's floor, then clamp, since the bounds are whole.
            low_x = floor(-bound if left < -bound else bound if left > bound else left)
            high_x = floor(-bound if right < -bound else bound if right > bound else right)
            low_y = floor(-bound if bottom < -bound else bound if bottom > bound else bottom)
            high_y = floor(-bound if top < -bound else bound if top > bound else top)
            if level.dense:
                if low_x < level.x0:
                    low_x = level.x0
                if low_y < level.y0:
                    low_y = level.y0
                if high_x > level.x0 + level.columns - 1:
                    high_x = level.x0 + level.columns - 1
                if high_y > level.y0 + level.rows - 1:
                    high_y = level.y0 + level.rows - 1
                if low_x > high_x or low_y > high_y:
                    continue
                starts, members, rows = level.starts, level.members, level.rows
                for x in range(low_x, high_x + 1):
                    base = (x - level.x0) * rows - level.y0
                    found.extend(members[starts[base + low_y]:starts[base + high_y + 1]])
            else:
                if low_x > high_x or low_y > high_y:
                    continue
                if float(high_x - low_x + 1) * float(high_y - low_y + 1) > level.cells:
                    found.extend(level.members)
                    continue
                spans, members = level.spans, level.members
                for x in range(low_x, high_x + 1):
                    base = x * (1 << 32)
                    for y in range(low_y, high_y + 1):
                        span = spans.get(base + y)
                        if span is not None:
                            found.extend(members[span[0]:span[1]])
        found.extend(self.everywhere)
        return found

    def _overlapping_slots(self, x: float, y: float, half_width: float, half_height: float, skip: int) -> list[int]:
        table = self.table
        xs, ys, widths, heights, boxed = table.x, table.y, table.half_width, table.half_height, table.boxed
        hits = [slot for slot in self._candidates(x - half_width, x + half_width, y - half_height, y + half_height,
                                                  False)
                if boxed[slot] and slot != skip and abs(xs[slot] - x) < widths[slot] + half_width
                and abs(ys[slot] - y) < heights[slot] + half_height]
        hits.sort()
        return hits

    def overlapping(self, entity: Any) -> list[Any] | None:
        """The entities whose boxes overlap ``entity``'s box in the table, by id; ``None`` if it is not there."""
        table = self.table
        slot = table.find(entity)
        if slot < 0:
            return None
        if not table.boxed[slot]:
            return []
        entities = table.entities
        return [entities[hit] for hit in self._overlapping_slots(
            table.x[slot], table.y[slot], table.half_width[slot], table.half_height[slot], slot)]

    def overlapping_box(self, x: float, y: float, half_width: float, half_height: float,
                        exclude: Any = None) -> list[Any]:
        """The entities (but ``exclude``) whose boxes overlap the box centred on (x, y), by id."""
        if not all(type(value) is float for value in (x, y, half_width, half_height)):
            raise TypeError("overlapping_box: x, y, half_width and half_height must be floats")
        skip = -1 if exclude is None else self.table.find(exclude)
        entities = self.table.entities
        return [entities[hit] for hit in self._overlapping_slots(x, y, half_width, half_height, skip)]

    def near(self, x: float, y: float, radius: float, exclude: Any = None) -> list[Any]:
        """The entities (but ``exclude``) whose position is within ``radius`` of (x, y), by id."""
        if not all(type(value) is float for value in (x, y, radius)):
            raise TypeError("near(x, y, radius, exclude=None) takes three floats")
        skip = -1 if exclude is None else self.table.find(exclude)
        xs, ys = self.table.x, self.table.y
        # The core's test: hypot is never below either side, so the call is spared where one side is past radius.
        hits = []
        for slot in self._candidates(x - radius, x + radius, y - radius, y + radius, True):
            if slot == skip:
                continue  # the asker: never its own neighbour
            dx, dy = xs[slot] - x, ys[slot] - y
            if abs(dx) <= radius and abs(dy) <= radius and math.hypot(dx, dy) <= radius:
                hits.append(slot)
        hits.sort()
        entities = self.table.entities
        return [entities[hit] for hit in hits]

    def members(self, positions: Any, count: int, half_width: float, half_height: float) -> tuple[bytes, list[Any]]:
        """Every member box (float32 rows of ``positions``) against the grid: (member indices as int64 bytes,
        entities), by member, then id."""
        import numpy as np

        if type(half_width) is not float or type(half_height) is not float:
            raise TypeError("members(positions, count, half_width, half_height): positions a float32 buffer, "
                            "count an int, the half sizes floats")
        if not isinstance(count, int):
            raise TypeError(f"members: count must be an int, got {type(count).__name__}")
        if count < 0:
            raise ValueError("members: count must be 0 or more")
        values: list[float] = _float32_rows(positions, 2 * count, "members: positions").astype(np.float64).tolist()
        owners: list[int] = []
        hits: list[int] = []
        for member in range(count):
            found = self._overlapping_slots(values[2 * member], values[2 * member + 1], half_width, half_height, -1)
            owners.extend([member] * len(found))
            hits.extend(found)
        entities = self.table.entities
        return np.array(owners, dtype=np.int64).tobytes(), [entities[hit] for hit in hits]


_NATIVE_FLOAT32 = frozenset(("f", "@f", "=f", "<f" if sys.byteorder == "little" else ">f"))


def _float32_rows(values: Any, count: int, what: str) -> Array:
    """The first ``count`` float32 of ``values``'s buffer, refused as the core's ``get_buffer`` refuses it."""
    import numpy as np

    try:
        view = memoryview(values)
    except TypeError:
        raise TypeError(f"{what} must be a contiguous buffer of native f, got {type(values).__name__}") from None
    if not view.c_contiguous:
        raise TypeError(f"{what} must be a contiguous buffer of native f, got {type(values).__name__}")
    if view.format not in _NATIVE_FLOAT32 or view.nbytes // 4 < count:
        raise TypeError(f"{what} must be a contiguous buffer of at least {count} native f, got format "
                        f"{view.format} with {view.nbytes} bytes")
    if view.nbytes == 0:
        return np.zeros(0, dtype=np.float32)  # an empty crowd's (0, 2): memoryview.cast refuses a zero in a shape
    return np.frombuffer(view.cast("B"), dtype=np.float32)[:count].copy()


if _core is not None:
    Table: Any = _core.Table
    Grid: Any = _core.Grid
    gather: Any = _core.gather
else:
    Table, Grid, gather = PyTable, PyGrid, py_gather


# -- building: the same numbers on both paths ------------------------------------------------------------


_GRIDS_BUILT = [0]
"""How many grids were built in this process (tests count them: one per kind and tick, at most)."""


TICK_SCANS = 8
"""How many queries' worth of tests of every slot a tick's grid in the core answers before it builds its
cells: a few queries a tick (a player and its shots among 4,000 bullets) cost less as tests of each
slot in C than the cells would to build (about 20 such tests), and many queries get the cells."""


def build_grid(table: Any, x: Column, y: Column, half_width: Column, half_height: Column, boxed: Column,
               slots: Column, scans: int = 0) -> Any:
    """A grid (``Grid``: the core's, or the pure twin) of the table's ``slots``, in ``grid_levels``'s levels.

    Where numpy can't be imported (``lists_only``), the columns and ``slots`` are lists and the grid
    is the pure twin's, of ``list_levels``. ``scans``: with the core, the grid first tests every
    slot for each query, and builds its levels once its queries have tested ``scans`` times as many
    slots as it holds (the answers are the same either way; only the time differs).
    """
    _GRIDS_BUILT[0] += 1
    if isinstance(slots, list):
        return PyGrid(table, *list_levels(x, y, half_width, half_height, boxed, slots))
    import numpy as np

    if _core is not None:  # the same levels, computed in C (tests/test_spatial_core.py compares them)
        slots = np.asarray(slots, dtype=np.int32)
        return _core.build(table, slots, MAX_LEVELS, scans * len(slots))
    levels, everywhere = grid_levels(x, y, half_width, half_height, boxed, slots)
    return Grid(table, levels, everywhere)


def grid_levels(x: Array, y: Array, half_width: Array, half_height: Array, boxed: Array,
                slots: Array) -> tuple[list[tuple[Any, ...]], Array]:
    """The levels of a grid of ``slots`` (ascending rows of the arrays), filed by the size of their boxes,
    and the slots no level holds (``everywhere``).

    Level 0's cells are twice a typical box (the 75th percentile, by rank), at least 8 px; a
    box wider than a level's cell goes up to a level of cells at least four times larger; a
    position past ``FAR`` cells (or NaN), or a box no level takes, goes to ``everywhere``.
    """
    import numpy as np

    slots = np.asarray(slots, dtype=np.int32)
    if not len(slots):
        return [], slots
    extent = 2.0 * np.maximum(half_width[slots], half_height[slots])
    extent[~boxed[slots]] = 0.0
    px, py = x[slots], y[slots]
    distance = np.maximum(np.abs(px), np.abs(py))  # NaN where either is: compares as nowhere
    levels: list[tuple[Any, ...]] = []
    remaining: Array | None = None  # None: every slot (the usual grid has one level and no copy)
    cell = 0.0
    for _ in range(MAX_LEVELS):
        sizes = extent if remaining is None else extent[remaining]
        far = distance if remaining is None else distance[remaining]
        placeable = (sizes < math.inf) & (far < math.inf)
        sized = sizes[placeable & (sizes > 0.0)]
        if not len(sized) and not placeable.any():
            break  # nobody left a cell could hold: infinite boxes, positions at infinity or NaN
        rank = (len(sized) - 1) * 3 // 4
        typical = float(np.partition(sized, rank)[rank]) if len(sized) else 0.0
        cell = max(8.0, 2.0 * typical) if cell == 0.0 else max(4.0 * cell, 2.0 * typical)
        if not math.isfinite(cell):
            break
        fits = placeable & (sizes <= cell) & (far < cell * FAR)
        if remaining is None and fits.all():
            levels.append(_level(slots, px, py, cell))
            return levels, slots[:0]
        chosen = np.flatnonzero(fits) if remaining is None else remaining[fits]
        if len(chosen):
            levels.append(_level(slots[chosen], px[chosen], py[chosen], cell))
        remaining = np.flatnonzero(~fits) if remaining is None else remaining[~fits]
        if not len(remaining):
            return levels, slots[:0]
    return levels, slots if remaining is None else slots[remaining]


def _level(slots: Array, px: Array, py: Array, cell: float) -> tuple[Any, ...]:
    """One level's cells: (cell, dense, x0, y0, columns, rows, keys, starts, members), members by cell then slot."""
    import numpy as np

    cells_x = np.floor(px / cell).astype(np.int64)
    cells_y = np.floor(py / cell).astype(np.int64)
    x0, y0 = int(cells_x.min()), int(cells_y.min())
    columns, rows = int(cells_x.max()) - x0 + 1, int(cells_y.max()) - y0 + 1
    if columns * rows <= max(64, 4 * len(slots)):
        index = (cells_x - x0) * rows + (cells_y - y0)
        order = np.argsort(index, kind="stable")
        counts = np.bincount(index, minlength=columns * rows)
        starts = np.zeros(columns * rows + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        return (cell, True, x0, y0, columns, rows, np.zeros(0, dtype=np.int64), starts,
                slots[order].astype(np.int32))
    keys = cells_x * (1 << 32) + cells_y
    order = np.argsort(keys, kind="stable")
    unique, firsts = np.unique(keys[order], return_index=True)
    starts = np.append(firsts, len(keys)).astype(np.int64)
    return (cell, False, 0, 0, 1, 1, unique.astype(np.int64), starts, slots[order].astype(np.int32))


def _nan_max(a: float, b: float) -> float:
    """``numpy.maximum`` of two floats: NaN where either is."""
    if a != a or b != b:
        return math.nan
    return a if a >= b else b


def list_levels(x: list[float], y: list[float], half_width: list[float], half_height: list[float],
                boxed: list[bool], slots: list[int]) -> tuple[list[tuple[Any, ...]], list[int]]:
    """``grid_levels`` on lists, without numpy: the same levels, cell for cell and member for member
    (``tests/test_web_pure.py`` compares them), from the same float expressions in the same order."""
    if not slots:
        return [], []
    extent = [2.0 * _nan_max(half_width[s], half_height[s]) if boxed[s] else 0.0 for s in slots]
    distance = [_nan_max(abs(x[s]), abs(y[s])) for s in slots]
    inf = math.inf
    levels: list[tuple[Any, ...]] = []
    remaining: list[int] | None = None  # indices into slots; None: every one
    cell = 0.0
    for _ in range(MAX_LEVELS):
        rows = range(len(slots)) if remaining is None else remaining
        placeable = [extent[r] < inf and distance[r] < inf for r in rows]
        sized = [extent[r] for r, ok in zip(rows, placeable) if ok and extent[r] > 0.0]
        if not sized and not any(placeable):
            break
        rank = (len(sized) - 1) * 3 // 4
        typical = sorted(sized)[rank] if sized else 0.0
        cell = max(8.0, 2.0 * typical) if cell == 0.0 else max(4.0 * cell, 2.0 * typical)
        if not math.isfinite(cell):
            break
        fits = [ok and extent[r] <= cell and distance[r] < cell * FAR for r, ok in zip(rows, placeable)]
        if remaining is None and all(fits):
            levels.append(_list_level(list(slots), x, y, cell))
            return levels, []
        chosen = [slots[r] for r, fit in zip(rows, fits) if fit]
        if chosen:
            levels.append(_list_level(chosen, x, y, cell))
        remaining = [r for r, fit in zip(rows, fits) if not fit]
        if not remaining:
            return levels, []
    return levels, list(slots) if remaining is None else [slots[r] for r in remaining]


def _list_level(slots: list[int], x: list[float], y: list[float], cell: float) -> tuple[Any, ...]:
    """``_level`` on lists: (cell, dense, x0, y0, columns, rows, keys, starts, members)."""
    floor = math.floor
    cells_x = [floor(x[s] / cell) for s in slots]
    cells_y = [floor(y[s] / cell) for s in slots]
    x0, y0 = min(cells_x), min(cells_y)
    columns, rows = max(cells_x) - x0 + 1, max(cells_y) - y0 + 1
    if columns * rows <= max(64, 4 * len(slots)):
        index = [(cx - x0) * rows + (cy - y0) for cx, cy in zip(cells_x, cells_y)]
        order = sorted(range(len(slots)), key=index.__getitem__)  # sorted() is stable, as argsort's "stable"
        starts = [0] * (columns * rows + 1)
        for cell_index in index:
            starts[cell_index + 1] += 1
        for n in range(1, len(starts)):
            starts[n] += starts[n - 1]
        return cell, True, x0, y0, columns, rows, [], starts, [slots[n] for n in order]
    keys = [cx * (1 << 32) + cy for cx, cy in zip(cells_x, cells_y)]
    order = sorted(range(len(slots)), key=keys.__getitem__)
    unique: list[int] = []
    starts = []
    for position, n in enumerate(order):
        if not unique or keys[n] != unique[-1]:
            unique.append(keys[n])
            starts.append(position)
    starts.append(len(order))
    return cell, False, 0, 0, 1, 1, unique, starts, [slots[n] for n in order]


class Boxes:
    """One table of boxes (a tick's moving entities, or the static ones) and its grids, one per kind asked.

    Built from entities by ``Boxes.gather``: everything the queries read is read there,
    once. ``kinds`` are the distinct classes gathered, ``kind_of`` each row's index among them.
    """

    def __init__(self, entities: tuple[Any, ...], ids: Column, x: Column, y: Column, half_width: Column,
                 half_height: Column, boxed: Column, kinds: list[type], kind_of: Column) -> None:
        self.entities = entities
        self.ids, self.x, self.y = ids, x, y
        self.half_width, self.half_height, self.boxed = half_width, half_height, boxed
        self.kinds, self.kind_of = kinds, kind_of
        # Lists (numpy can't be imported) go to the pure twin: the core reads numpy's buffers.
        table = PyTable if isinstance(ids, list) else Table
        self.table: Any = table(entities, ids, x, y, half_width, half_height, boxed)
        self._grids: dict[Any, Any] = {}

    def __len__(self) -> int:
        return len(self.entities)

    def grid(self, kind: type | None) -> Any:
        """The grid of this table's entities of ``kind`` (``None``: all), built on first use."""
        grid = self._grids.get(kind)
        if grid is None and isinstance(self.ids, list):
            wanted_kinds = [kind is None or issubclass(cls, kind) for cls in self.kinds]
            rows = [row for row, of in enumerate(self.kind_of) if wanted_kinds[of]]
            grid = self._grids[kind] = build_grid(self.table, self.x, self.y, self.half_width, self.half_height,
                                                  self.boxed, rows)
        if grid is None:
            import numpy as np

            if kind is None:
                slots = np.arange(len(self.entities), dtype=np.int32)
            else:
                wanted = np.array([issubclass(cls, kind) for cls in self.kinds] or [False], dtype=bool)
                slots = (np.arange(len(self.entities), dtype=np.int32) if wanted.all()
                         else np.flatnonzero(wanted[self.kind_of]).astype(np.int32))
            grid = self._grids[kind] = build_grid(self.table, self.x, self.y, self.half_width, self.half_height,
                                                  self.boxed, slots, TICK_SCANS)
        return grid

    def has(self, kind: type | None) -> bool:
        """Whether any entity of this table is of ``kind``."""
        return len(self.entities) > 0 and (kind is None or any(issubclass(cls, kind) for cls in self.kinds))

    @staticmethod
    def gather(entities: Sequence[Any], baseline: bool) -> tuple[Boxes, Boxes]:
        """The (static, moving) tables of ``entities``: positions as committed (``baseline``: mid-tick, the
        values the tick began with), looks and hitboxes as they are now; crowds and screen-space entities out."""
        if lists_only():
            return Boxes._gather_lists(entities, baseline)
        import numpy as np

        entities = tuple(entities)  # the rows are these, whatever a look read in the walk does to the list given
        count = len(entities)
        x, y = np.empty(count), np.empty(count)
        ids = np.empty(count, dtype=np.int64)
        look_of, hitbox_of, kind_of = (np.empty(count, dtype=np.int32) for _ in range(3))
        names = ("_bx", "_by", "look", "hitbox") if baseline else ("x", "y", "look", "hitbox")
        looks, hitboxes, kinds = gather(entities, names, x, y, ids, look_of, hitbox_of, kind_of)
        left_out, static, look_half_width, look_half_height, look_boxed, screen = _per_class(kinds, looks)
        included: Array | None = None  # None: everyone
        if any(left_out) or any(screen):
            included = ~(np.array(left_out, dtype=bool)[kind_of] | np.array(screen, dtype=bool)[look_of])
        half_width = np.array(look_half_width)[look_of]
        half_height = np.array(look_half_height)[look_of]
        boxed = np.array(look_boxed, dtype=bool)[look_of]
        for n, hitbox in enumerate(hitboxes):
            if hitbox is None:
                continue
            users = hitbox_of == n
            if included is not None:
                users &= included
            try:
                width, height = _checked_hitbox("", hitbox)
            except TypeError:
                if users.any():  # refused by the name of the first entity (in update order) that has it
                    _checked_hitbox(type(entities[int(np.argmax(users))]).__name__, hitbox)
                continue
            half_width[users], half_height[users], boxed[users] = width * 0.5, height * 0.5, True
        order: Array | None = None if included is None else np.flatnonzero(included)
        chosen = ids if order is None else ids[order]
        if len(chosen) > 1 and not bool((chosen[1:] > chosen[:-1]).all()):
            sort = np.argsort(chosen, kind="stable")  # a shuffled update order: by id again
            order = sort if order is None else order[sort]

        def part(rows: Array | None) -> Boxes:
            if rows is None:  # everyone, in order: the usual tick, no copy
                return Boxes(entities, ids, x, y, half_width, half_height, boxed, kinds, kind_of)
            return Boxes(_picked(entities, rows), ids[rows], x[rows], y[rows],
                         half_width[rows], half_height[rows], boxed[rows], kinds, kind_of[rows])

        if not any(static):
            return part(np.zeros(0, dtype=np.intp)), part(order)
        every = np.arange(count) if order is None else order
        is_static = np.array(static, dtype=bool)[kind_of[every]]
        return part(every[is_static]), part(every[~is_static])


    @staticmethod
    def _gather_lists(entities: Sequence[Any], baseline: bool) -> tuple[Boxes, Boxes]:
        """``gather`` without numpy: the same tables, as lists, step for step."""
        names = ("_bx", "_by", "look", "hitbox") if baseline else ("x", "y", "look", "hitbox")
        entities = tuple(entities)  # the rows are these, whatever a look read in the walk does to the list given
        (x, y, ids, look_of, hitbox_of, kind_of), (looks, hitboxes, kinds) = _walk(entities, names)
        count = len(entities)
        left_out, static, look_half_width, look_half_height, look_boxed, screen = _per_class(kinds, looks)
        included: list[bool] | None = None  # None: everyone
        if any(left_out) or any(screen):
            included = [not (left_out[kind_of[r]] or screen[look_of[r]]) for r in range(count)]
        half_width = [look_half_width[n] for n in look_of]
        half_height = [look_half_height[n] for n in look_of]
        boxed = [look_boxed[n] for n in look_of]
        for n, hitbox in enumerate(hitboxes):
            if hitbox is None:
                continue
            users = [r for r in range(count) if hitbox_of[r] == n and (included is None or included[r])]
            try:
                width, height = _checked_hitbox("", hitbox)
            except TypeError:
                if users:  # refused by the name of the first entity (in update order) that has it
                    _checked_hitbox(type(entities[users[0]]).__name__, hitbox)
                continue
            for r in users:
                half_width[r], half_height[r], boxed[r] = width * 0.5, height * 0.5, True
        order: list[int] | None = None if included is None else [r for r in range(count) if included[r]]
        chosen = ids if order is None else [ids[r] for r in order]
        if any(later <= earlier for earlier, later in pairwise(chosen)):
            every = list(range(count)) if order is None else order
            order = sorted(every, key=ids.__getitem__)  # a shuffled update order: by id again (ids are distinct)

        def part(rows: list[int] | None) -> Boxes:
            if rows is None:
                return Boxes(entities, ids, x, y, half_width, half_height, boxed, kinds, kind_of)
            return Boxes(tuple(entities[r] for r in rows), [ids[r] for r in rows], [x[r] for r in rows],
                         [y[r] for r in rows], [half_width[r] for r in rows], [half_height[r] for r in rows],
                         [boxed[r] for r in rows], kinds, [kind_of[r] for r in rows])

        if not any(static):
            return part([]), part(order)
        every = list(range(count)) if order is None else order
        return (part([r for r in every if static[kind_of[r]]]), part([r for r in every if not static[kind_of[r]]]))


def _per_class(kinds: Sequence[type], looks: Sequence[Any]) -> tuple[list[bool], list[bool], list[float], list[float],
                                                                     list[bool], list[bool]]:
    """What ``Boxes.gather`` reads per distinct class and look, not per entity (a few Python steps whatever the
    count), on both of its paths: per class, whether it is left out (a crowd) and static; per look, its half
    width and height, whether it has a box, and whether it is drawn in screen space."""
    left_out = [issubclass(cls, OwnBuffers) for cls in kinds]
    static = [getattr(cls, "static", False) is True for cls in kinds]
    half_width, half_height = [0.0] * len(looks), [0.0] * len(looks)
    boxed, screen = [False] * len(looks), [False] * len(looks)
    for n, look in enumerate(looks):
        shown = resolved(look)
        if isinstance(shown, Look):
            screen[n] = shown.screen
            box = shown.box
            if box is not None:
                half_width[n], half_height[n] = float(box[0]) * 0.5, float(box[1]) * 0.5
                boxed[n] = True
    return left_out, static, half_width, half_height, boxed, screen


def _picked(entities: tuple[Any, ...], rows: Array) -> tuple[Any, ...]:
    """``entities`` at ``rows``, as a tuple (``itemgetter`` walks them in C)."""
    if len(rows) > 1:
        return operator.itemgetter(*rows.tolist())(entities)  # type: ignore[no-any-return]
    return tuple(entities[row] for row in rows.tolist())


# -- pairs among one crowd's members: numpy only, the same on both paths ---------------------------------


_PAIR_COLUMNS = 2.0 ** 24
"""The most cells a side of a pair grid has: cells grow past the query's reach where the members spread
further (a coarser grid is as exact, only slower), so cell numbers stay small and rounding stays far below
a cell."""
_PAIR_MARGIN = 1.0 + 2.0 ** -16
"""Pair cells are this much wider than the reach: two members within reach are never two cells apart,
however the division rounds."""
_PAIR_ROW = 1 << 26
"""A cell's key: column * ``_PAIR_ROW`` + row + 1 (rows past the last, or before the first, are nobody's)."""


def _cross(first_start: Array, first_count: Array, second_start: Array,
           second_count: Array) -> tuple[Array, Array, Array]:
    """Every (p, q) with p in ``[first_start, first_start + first_count)`` and q likewise, group by group,
    p-major (what a nested loop over two runs of sorted rows would give, in a few numpy passes), and the
    group of each."""
    import numpy as np

    sizes = first_count * second_count
    total = int(sizes.sum())
    group = np.repeat(np.arange(len(sizes)), sizes)
    local = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    across, along = np.divmod(local, second_count[group])
    across += first_start[group]
    along += second_start[group]
    return across, along, group


def _candidate_pairs(x: Array, y: Array, reach_x: float, reach_y: float) -> tuple[Array, Array]:
    """Each unordered pair of rows (once, as (p, q)) whose positions are within ``reach_x`` across and
    ``reach_y`` up and down of each other, and some more: the pairs in the same or neighbouring cells.

    Cells are at least the reach wide, so a pair within reach is in one cell or two neighbours;
    a cell is paired with itself (p before q) and with four of its eight neighbours (right-below,
    right, right-above, above), so every pair of neighbouring cells is met once. ``x`` and ``y``
    are finite float64.
    """
    import numpy as np

    count = len(x)
    empty = np.zeros(0, dtype=np.int64)
    if count < 2:
        return empty, empty
    cells = []
    for values, reach in ((x, reach_x), (y, reach_y)):
        low = float(values.min())
        cell = max(reach, (float(values.max()) - low) / _PAIR_COLUMNS) * _PAIR_MARGIN
        if cell == 0.0:
            cell = 1.0  # a reach of 0 and everyone at one place: any cell holds them all
        cells.append(np.floor((values - low) / cell).astype(np.int64))  # an infinite cell: every member in 0
    keys = cells[0] * _PAIR_ROW + cells[1] + 1
    order = np.argsort(keys, kind="stable")  # by cell, then row: the same grid whatever the platform
    ordered = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    counts = np.diff(np.append(starts, count))
    occupied = ordered[starts]
    # Groups of cells to pair: each cell with itself, then with each neighbour it has among the four.
    firsts, seconds = [np.arange(len(occupied))], [np.arange(len(occupied))]
    for offset in (_PAIR_ROW - 1, _PAIR_ROW, _PAIR_ROW + 1, 1):
        wanted = occupied + offset
        found = np.searchsorted(occupied, wanted)
        found[found == len(occupied)] = 0
        there = np.flatnonzero(occupied[found] == wanted)
        firsts.append(there)
        seconds.append(found[there])
    first, second = np.concatenate(firsts), np.concatenate(seconds)
    p, q, group = _cross(starts[first], counts[first], starts[second], counts[second])
    keep = (group >= len(occupied)) | (p < q)  # within one cell: each pair once, never a row with itself
    return order[p[keep]], order[q[keep]]


def _pairs(positions: Array, reach_x: float, reach_y: float, near: float | None,
           both_ways: bool) -> tuple[Array, Array]:
    """The pairs of rows of ``positions`` that ``pairs_near`` (``near``: the radius) or ``pairs_overlapping``
    (``near`` None: boxes of ``reach_x`` by ``reach_y``) find, sorted, as two int64 arrays."""
    import numpy as np

    values = np.asarray(positions, dtype=np.float64).reshape(-1, 2)
    rows = np.flatnonzero(np.isfinite(values).all(axis=1))  # at NaN or infinity: near nothing, overlapping nothing
    x, y = values[rows, 0], values[rows, 1]
    p, q = _candidate_pairs(x, y, reach_x, reach_y)
    dx, dy = x[p] - x[q], y[p] - y[q]
    inside = ((dx * dx + dy * dy <= near * near) if near is not None
              else (np.abs(dx) < reach_x) & (np.abs(dy) < reach_y))
    i, j = rows[p[inside]].astype(np.int64), rows[q[inside]].astype(np.int64)
    first, second = np.minimum(i, j), np.maximum(i, j)
    if both_ways:
        first, second = np.concatenate((first, second)), np.concatenate((second, first))
    # Sorted by first, then second, as one int64 key (rows are fewer than 2**31): a plain sort, no lexsort.
    span = max(len(values), 1)
    keys = first * span + second
    keys.sort()
    return keys // span, keys % span


def pairs_near(positions: Array, radius: float, both_ways: bool = False) -> tuple[Array, Array]:
    """The pairs of rows of ``positions`` (an (n, 2) array) within ``radius`` of each other: ``Crowd.near_pairs``.

    ``(i, j)``, two int64 arrays, each pair once with ``i < j`` (``both_ways``: as ``(i, j)`` and
    ``(j, i)``), sorted by ``i`` then ``j``. Within means ``dx * dx + dy * dy <= radius * radius``
    in float64; a row at NaN or infinity is near nothing. A grid of cells as wide as the radius,
    sorted with numpy: about n times the neighbours each row has, not n squared.
    """
    return _pairs(positions, radius, radius, radius, both_ways)


def pairs_overlapping(positions: Array, width: float, height: float, both_ways: bool = False) -> tuple[Array, Array]:
    """The pairs of rows of ``positions`` whose boxes (``width`` by ``height``, centred on each row) overlap:
    ``Crowd.overlapping_pairs``.

    Sorted and shaped as ``pairs_near``'s. Overlap is ``abs(dx) < width and abs(dy) < height``:
    boxes that only touch do not overlap, as in every collision query; a row at NaN or infinity
    overlaps nothing, and neither does a box without area.
    """
    import numpy as np

    if not (width > 0.0 and height > 0.0):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy()
    return _pairs(positions, width, height, None, both_ways)


class SpatialIndex:
    """A grid of boxes that are not entities (a ``TileMap``'s solid tiles), built once by their owner.

    ``items`` are anything with ``x``, ``y`` and a ``hitbox`` (or ``look``); queries return
    them in the order given (a map's: by layer, row, column), read from ``positions``.
    """

    def __init__(self, items: Sequence[Any], positions: Sequence[tuple[float, float]] | None = None) -> None:
        self.entities = list(items)
        """The items, in the order given: the order queries return them in."""
        count = len(self.entities)
        where = [(item.x, item.y) for item in self.entities] if positions is None else list(positions)
        if lists_only():
            xs, ys = [float(place[0]) for place in where], [float(place[1]) for place in where]
            boxes = [box_of(item) for item in self.entities]
            halves_x = [0.0 if box is None else box[0] / 2.0 for box in boxes]
            halves_y = [0.0 if box is None else box[1] / 2.0 for box in boxes]
            have = [box is not None for box in boxes]
            self.table = PyTable(self.entities, list(range(count)), xs, ys, halves_x, halves_y, have)
            self.grid = build_grid(self.table, xs, ys, halves_x, halves_y, have, list(range(count)))
            return
        import numpy as np

        xy = np.array(where, dtype=np.float64).reshape(count, 2)
        sizes = np.zeros((count, 2))
        boxed = np.zeros(count, dtype=bool)
        for slot, item in enumerate(self.entities):
            box = box_of(item)
            if box is not None:
                sizes[slot], boxed[slot] = box, True
        half = sizes / 2.0
        ids = np.arange(count, dtype=np.int64)
        x, y = xy[:, 0].copy(), xy[:, 1].copy()
        half_width, half_height = half[:, 0].copy(), half[:, 1].copy()
        self.table = Table(self.entities, ids, x, y, half_width, half_height, boxed)
        self.grid = build_grid(self.table, x, y, half_width, half_height, boxed, np.arange(count, dtype=np.int32))
        """The grid of every item (its ``levels``, and ``everywhere``)."""

    def __len__(self) -> int:
        return len(self.entities)

    def overlapping_box(self, x: float, y: float, half_width: float, half_height: float) -> list[Any]:
        """The items with a box overlapping the box centred on (x, y), in their order."""
        result: list[Any] = self.grid.overlapping_box(float(x), float(y), float(half_width), float(half_height))
        return result
