"""A prototype of issue 32 item 1: the Double Buffer with every world's buffered state in columns.

Not part of the engine, and nothing in the engine imports it. ``build()`` compiles
``columns.c`` into a temporary directory; ``ColumnWorld`` is a world whose entities keep
their buffered fields in the columns of a ``Table`` (the compiled ``columns.Table``, or
``PureTable`` here, the same layout in Python), through one of four designs:

``getset``      x, y and angle are C getset descriptors of the entities' C base type;
``descriptor``  the same base type, with a C descriptor type (``columns.Column``) per field
                on the Python class;
``slots``       reads are CPython's own slot reads (specialised bytecode) of three object
                slots that show what the reader must see; writes go through the base
                type's ``tp_setattro``, which knows who is updating; the slots show the
                objects the entities wrote;
``arena``       the same, but the slots show float objects the table owns (one per row and
                field, in blocks that never move), whose value the commit and a rollback
                change in place where nobody else holds them: no entity is touched;
``pure``        no C: ``property`` objects over Python lists (the pure path of the same layout).

In every design an entity's own reads see its pending value and everyone else's the
committed one; a write to another entity during an update raises ``BufferedWriteError``
at the line that makes it, the first time it runs; the commit rotates three buffers and
copies current into next; a checkpoint copies the columns. The world's tick also runs the
tick of an empty ``engine.world.World`` (input, the world's random state, esper, signals,
sounds): what a migrated engine would still do around the buffers, so that the prototype
is not credited with skipping it. See README.md beside it for what it leaves out.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from engine.errors import BufferedWriteError
from engine.look import resolved
from engine.spatial import SpatialIndex, SpatialLayers
from engine.world import World

DESIGNS = ("getset", "descriptor", "slots", "arena", "pure")
SHOWN = ("slots", "arena")
"""The designs whose entities show x, y and angle in slots: the commit and a rollback update those."""
PREV, CUR, NEXT = 0, 1, 2


def build(where: Path) -> Any:
    """Compile columns.c in ``where`` (as the engine's core is built: -O2, no fused multiply-add) and import it."""
    source = Path(__file__).with_name("columns.c")
    shutil.copy(source, where / source.name)
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = where / f"columns{suffix}"
    compiler = sysconfig.get_config_var("CC") or "cc"
    include = sysconfig.get_paths()["include"]
    subprocess.run([*compiler.split(), "-shared", "-fPIC", "-O2", "-ffp-contract=off", f"-I{include}",
                    str(where / source.name), "-o", str(target)], check=True)
    spec = importlib.util.spec_from_file_location("columns", target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Buffered:
    """``buffered(default)`` in a prototype class body: read when the class is created."""

    def __init__(self, default: Any) -> None:
        self.default = default


def buffered(default: Any) -> Any:
    """Declare a buffered field of the class's own (numbers get a float64 column, the rest an object column)."""
    return _Buffered(default)


class Layout:
    """A class's own buffered fields: names, defaults, which are numbers, and their column numbers."""

    def __init__(self, fields: dict[str, Any]) -> None:
        self.names = tuple(fields)
        self.defaults = tuple(fields.values())
        self.numeric = tuple(isinstance(v, (int, float)) and not isinstance(v, bool) for v in self.defaults)
        self.numbers = sum(self.numeric)
        self.objects = len(self.names) - self.numbers
        self.columns: list[int] = []
        counts = [0, 0]
        for numeric in self.numeric:
            self.columns.append(counts[numeric])
            counts[numeric] += 1
        self.nursery: Any = None


def _declare(cls: type, make: Callable[[str, int, int, bool], Any], nursery: Callable[[Layout], Any],
             flat: bool) -> None:
    """Replace the class's ``buffered()`` markers with column descriptors over a per-layout table.

    ``flat``: one list of columns (the pure path), else numbers and objects numbered apart (the C table).
    """
    fields: dict[str, Any] = {}
    for base in reversed(cls.__mro__[1:]):
        layout = vars(base).get("_own")
        if isinstance(layout, Layout):
            fields.update(zip(layout.names, layout.defaults))
    for name, value in list(vars(cls).items()):
        if isinstance(value, _Buffered):
            fields[name] = value.default
    layout = Layout(fields)
    for index, (name, numeric, column) in enumerate(zip(layout.names, layout.numeric, layout.columns)):
        setattr(cls, name, make(name, 1, index if flat else column, not numeric))
    layout.nursery = nursery(layout) if layout.names else None
    cls._own = layout  # type: ignore[attr-defined]


def _shared_init(entity: Any, x: float, y: float) -> None:
    layout: Layout = type(entity)._own
    if layout.nursery is not None:
        layout.nursery().take(entity, True)
        for name, default in zip(layout.names, layout.defaults):
            setattr(entity, name, default)
    entity.x = x
    entity.y = y
    entity.id = None
    entity.alive = False


def base_class(design: str, core: Any) -> type:
    """The entity base class of a design (``core``: the compiled module, or None for ``pure``)."""
    if design == "pure":
        return PureBody
    body = core.SlotBody if design in SHOWN else core.GetsetBody

    def make(name: str, own: int, column: int, is_object: bool) -> Any:
        return core.Column(name, own, column, is_object)

    def nursery(layout: Layout) -> Callable[[], Any]:
        shared = core.Table(layout.numbers, layout.objects, True)  # one per layout: rows freed on spawn
        return lambda: shared

    namespace: dict[str, Any] = {
        "look": None, "hitbox": None, "static": False,
        "__init__": lambda self, x=0.0, y=0.0: _shared_init(self, x, y),
        "update": lambda self, world: None,
        "__init_subclass__": classmethod(lambda cls, **kw: _declare(cls, make, nursery, False)),
    }
    if design == "descriptor":
        namespace.update({name: core.Column(name, 0, column, False) for column, name in enumerate(("x", "y", "angle"))})
    base = type(f"{design.capitalize()}Entity", (body,), namespace)
    base._own = Layout({})  # type: ignore[attr-defined]
    return base


# -- the pure path: the same layout in Python -----------------------------------------------


class PureTable:
    """The pure path's table: per column, three Python lists (previous, current, next).

    ``cur`` and ``next`` are lists of columns that stay the same objects: an entity's
    ``_view`` is one of them (``next`` while its own update runs), so a read is one
    index into it. A commit rotates the columns inside them.
    """

    def __init__(self, numbers: int, objects: int, nursery: bool = False) -> None:
        width = numbers + objects
        self.numbers = numbers
        self.prev: list[list[Any]] = [[] for _ in range(width)]
        self.cur: list[list[Any]] = [[] for _ in range(width)]
        self.next: list[list[Any]] = [[] for _ in range(width)]
        self.updating: Any = None
        self.count = 0
        self.nursery = nursery

    def take(self, entity: Any, own: bool) -> int:
        """Give ``entity`` a row here with its current values (from its old table, if any)."""
        old, old_row = (entity._own_t, entity._own_row) if own else (entity._t, entity._row)
        row = self.count
        self.count += 1
        for column in range(len(self.cur)):
            value = old.cur[column][old_row] if old is not None else 0.0
            self.prev[column].append(value)
            self.cur[column].append(value)
            self.next[column].append(value)
        if own:
            entity._own_t, entity._own_row, entity._own_view = self, row, self.cur
        else:
            entity._t, entity._row, entity._view = self, row, self.cur
        return row

    def commit(self, entities: Any = None) -> None:
        """previous <- current <- next, and next becomes a copy of current."""
        prev, cur, nxt = self.prev, self.cur, self.next
        for column in range(len(cur)):
            spent = prev[column]
            prev[column] = cur[column]
            cur[column] = nxt[column]
            spent[:] = nxt[column]
            nxt[column] = spent

    def abort(self) -> None:
        """Drop the pending values."""
        for column in range(len(self.cur)):
            self.next[column][:] = self.cur[column]
        self.updating = None

    def keep(self) -> tuple[Any, ...]:
        """A checkpoint: copies of the current and previous columns."""
        return self.count, [c[:] for c in self.cur], [c[:] for c in self.prev]

    def put_back(self, kept: tuple[Any, ...], entities: Any = None) -> None:
        """Hold what ``keep`` returned again."""
        count, cur, prev = kept
        assert count == self.count, "a checkpoint of this table's rows"
        for column in range(len(self.cur)):
            self.cur[column][:] = cur[column]
            self.next[column][:] = cur[column]
            self.prev[column][:] = prev[column]

    def view(self, buffer: int, column: int) -> list[Any]:
        """One column of one buffer (0 previous, 1 current, 2 next)."""
        return (self.prev, self.cur, self.next)[buffer][column]


def _number(value: Any, field: str) -> float:
    if type(value) is float:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{field} takes a number (float or int), got {value!r}")
    return float(value)


def _refuse(writer: Any, entity: Any, field: str) -> None:
    caller = sys._getframe(2)
    raise _on_foreign(writer, entity, field, f"{caller.f_code.co_filename}:{caller.f_lineno}")


def _pure_field(name: str, own: int, column: int, is_object: bool) -> property:
    """A pure-path field: reads index the entity's view, writes check who is updating."""
    if own:
        def get(entity: Any) -> Any:
            return entity._own_view[column][entity._own_row]
    else:
        def get(entity: Any) -> Any:
            return entity._view[column][entity._row]

    def put(entity: Any, value: Any) -> None:
        if not is_object:
            value = _number(value, name)
        updating = entity._t.updating
        table = entity._own_t if own else entity._t
        row = entity._own_row if own else entity._row
        if updating is entity:
            table.next[column][row] = value
        elif updating is None:
            table.cur[column][row] = table.next[column][row] = value
            if table.nursery:
                table.prev[column][row] = value
        else:
            _refuse(updating, entity, name)

    return property(get, put)


class PureBody:
    """The pure path's entity base: a row of a ``PureTable``, fields as properties over it."""

    __slots__ = ("__dict__", "__weakref__", "_own_row", "_own_t", "_own_view", "_row", "_t", "_view")
    look: Any = None
    hitbox: Any = None
    static = False
    _own = Layout({})
    x = _pure_field("x", 0, 0, False)
    y = _pure_field("y", 0, 1, False)
    angle = _pure_field("angle", 0, 2, False)

    def __init__(self, x: float = 0.0, y: float = 0.0) -> None:
        self._t = self._own_t = None
        self._row = self._own_row = 0
        PureTable(3, 0, nursery=True).take(self, False)
        _shared_init(self, x, y)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _declare(cls, _pure_field, lambda layout: lambda: PureTable(len(layout.names), 0, nursery=True), True)

    def update(self, world: Any) -> None:
        """Nothing: override it."""


_on_foreign: Callable[[Any, Any, str, str], BaseException] = lambda *a: RuntimeError(a)  # noqa: E731


# -- the world ------------------------------------------------------------------------------


def _pure_runner(table: PureTable, entities: list[Any]) -> Iterator[Any]:
    cur, nxt = table.cur, table.next
    for entity in entities:
        table.updating = entity
        entity._view = nxt
        if entity._own_t is not None:
            entity._own_view = entity._own_t.next
        yield entity
        entity._view = cur
        if entity._own_t is not None:
            entity._own_view = entity._own_t.cur
    table.updating = None


class ColumnIndex(SpatialIndex):
    """``engine.spatial.SpatialIndex`` built from two position columns instead of a list of (x, y) pairs.

    The same code as its ``__init__`` (and the same queries), but the positions are
    slices of the committed columns: no walk over the entities to read them.
    """

    def __init__(self, entities: Sequence[Any], xs: Any, ys: Any) -> None:
        import numpy as np

        self.entities = list(entities)
        count = len(self.entities)
        self.slot_of = {entity.id: slot for slot, entity in enumerate(self.entities)}
        if count <= self.SMALL:
            self._small(list(zip(xs, ys)))
            return
        positions_array = np.empty((count, 2))
        positions_array[:, 0] = xs
        positions_array[:, 1] = ys
        boxes = np.zeros((count, 2))
        boxed = np.zeros(count, dtype=bool)
        for slot, entity in enumerate(self.entities):
            box = _box(entity)
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
        with np.errstate(invalid="ignore"):
            far = ~(np.abs(positions_array) < self.cell * 2.0**30).all(axis=1)
        big = (np.maximum(boxes[:, 0], boxes[:, 1]) > self.cell) | far
        self.big = np.flatnonzero(big).tolist()
        small = np.flatnonzero(~big)
        cells_x = np.floor(positions_array[small, 0] / self.cell).astype(np.int64)
        cells_y = np.floor(positions_array[small, 1] / self.cell).astype(np.int64)
        keys = cells_x * (1 << 32) + cells_y
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        unique, starts = np.unique(sorted_keys, return_index=True)
        ends = np.append(starts[1:], len(sorted_keys))
        self.members = small[order].tolist()
        self.cells = dict(zip(unique.tolist(), zip(starts.tolist(), ends.tolist())))


def _box(entity: Any) -> tuple[float, float] | None:
    # engine.spatial.box_of without its checks of the hitbox (the prototype's boxes are looks).
    hitbox = entity.hitbox
    if hitbox is not None:
        return float(hitbox[0]), float(hitbox[1])
    look = resolved(entity.look)
    return None if look is None else look.box


class ColumnWorld:
    """A world whose entities' buffered state lives in columns, in one of ``DESIGNS``."""

    def __init__(self, design: str, core: Any) -> None:
        global _on_foreign
        self.design = design
        self.pure = design == "pure"
        self.table: Any = PureTable(3, 0) if self.pure else core.Table(3, 0, arena=design == "arena")
        self._core = core
        self._own_tables: dict[Layout, Any] = {}
        self.entities: list[Any] = []
        self.tick_count = 0
        self._fixed = World()  # the tick's and the checkpoint's parts that are not the buffers
        self._index: SpatialLayers | None = None
        self._wants_index = False

        def on_foreign(writer: Any, entity: Any, field: str, where: str) -> BaseException:
            return BufferedWriteError(writer, entity, field, self.tick_count + 1, where)

        _on_foreign = on_foreign
        if core is not None:
            core.configure(on_foreign)

    def spawn(self, entity: Any) -> Any:
        """Join now (the prototype spawns between ticks only): a row in the motion table and the class's own."""
        self.table.take(entity, False)
        layout: Layout = type(entity)._own
        if layout.names:
            table = self._own_tables.get(layout)
            if table is None:
                table = self._own_tables[layout] = (PureTable(layout.numbers + layout.objects, 0) if self.pure
                                                    else self._core.Table(layout.numbers, layout.objects))
            table.take(entity, True)
        self.entities.append(entity)
        entity.id = len(self.entities)
        entity.alive = True
        entity.world = self
        return entity

    def entities_of(self, kind: type) -> list[Any]:
        """Live entities of ``kind``, in spawn order (as ``World.entities_of``)."""
        return [entity for entity in self.entities if entity.alive and isinstance(entity, kind)]

    def tick(self) -> None:
        """One tick: the engine's fixed part, every entity's update, the commit of every table."""
        self._fixed.tick()
        if self._wants_index:
            self._index = self._build_index()
        table = self.table
        if self.pure:
            runner: Any = _pure_runner(table, self.entities)
        else:
            runner = self._core.Runner(table, self.entities)
        try:
            for entity in runner:
                entity.update(self)
        except BaseException:
            if not self.pure:
                runner.close()
            table.abort()
            for own in self._own_tables.values():
                own.abort()
            raise
        table.commit(self.entities if self.design in SHOWN else None)
        for own in self._own_tables.values():
            own.commit(None)
        self._index = None  # built from this tick's committed columns when next asked
        self.tick_count += 1

    # -- checkpoints ------------------------------------------------------------------------

    def checkpoint(self) -> tuple[Any, ...]:
        """The columns copied, with the engine's fixed part of a checkpoint."""
        return (self.tick_count, self._fixed.checkpoint(), self.table.keep(),
                [(layout, own.keep()) for layout, own in self._own_tables.items()])

    def rollback(self, kept: tuple[Any, ...]) -> None:
        """Put the columns back (the prototype rolls back only while nobody came or went)."""
        tick, fixed, motion, own = kept
        self._fixed.rollback(fixed)
        self.table.put_back(motion, self.entities if self.design in SHOWN else None)
        for layout, columns in own:
            self._own_tables[layout].put_back(columns, None)
        self.tick_count = tick

    # -- what the renderer and collisions read ----------------------------------------------

    def columns(self, buffer: int) -> tuple[Any, Any, Any]:
        """The x, y and angle columns of ``buffer`` (0 previous, 1 current) as float64 arrays: slices, no walk."""
        import numpy as np

        if self.pure:
            return tuple(np.array(self.table.view(buffer, c), dtype=np.float64) for c in range(3))  # type: ignore[return-value]
        count = len(self.entities)
        return tuple(np.frombuffer(self.table.view(buffer, c), dtype=np.float64, count=count)  # type: ignore[return-value]
                     for c in range(3))

    def gather(self, previous: Any, current: Any) -> None:
        """The renderer's per-tick gather: previous and current (x, y, angle) rows into two float32 arrays."""
        count = len(self.entities)
        for out, buffer in ((previous, PREV), (current, CUR)):
            for column, values in enumerate(self.columns(buffer)):
                out[:count, column] = values

    def _build_index(self) -> SpatialLayers:
        xs, ys, _ = self.columns(CUR)
        return SpatialLayers(None, ColumnIndex(self.entities, xs, ys), [])

    def overlapping(self, entity: Any) -> list[Any]:
        """``World.overlapping`` from the committed columns: the entities whose boxes overlap ``entity``'s, by id."""
        self._wants_index = True
        index = self._index
        if index is None:
            index = self._index = self._build_index()
        where = index.box_of(entity)
        if not isinstance(where, tuple):
            return []
        return index.overlapping_box(*where, exclude=entity)
