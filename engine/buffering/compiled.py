"""The compiled path of the Double Buffer: ``CompiledBuffers`` and the renderer's gather.

``CompiledBuffers`` runs the protocol of ``engine.buffering.buffers`` (see its module
docstring) with the compiled core doing the per-entity bookkeeping; ``gather_motion``
writes every entity's interpolated position and angle for the renderer, with the core
or with numpy, and ``gather_pair`` both ends of a tick (alpha 0 and 1) in one walk.
``Buffers`` is the class worlds use: this one where the core runs, else ``PureBuffers``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from engine.buffering.buffers import PureBuffers
from engine.buffering.fields import layout_of
from engine.buffering.kept import keep_compiled, put_back_compiled, restore_compiled
from engine.buffering.slots import ACCELERATED, BufferSlots, Host, _core
from engine.errors import EntityUpdateError

__all__ = ["Buffers", "CompiledBuffers", "gather_motion", "gather_pair"]


class CompiledBuffers(PureBuffers):
    """The same Double Buffer, with the write barrier and the tick's per-entity bookkeeping in the compiled core.

    The world still calls each ``update()`` from Python (``for entity in settler``), so the
    call stays a cheap Python-to-Python call; the settler's next step settles in C what the
    pure loop settles after the call. The barrier is the entities' base type's
    ``tp_setattro`` (``_core.Barrier``), reading the same ``TickState`` in C.
    """

    keep_entities = staticmethod(keep_compiled)  # type: ignore[assignment]
    put_back_entities = staticmethod(put_back_compiled)  # type: ignore[assignment]
    restore_classes = staticmethod(restore_compiled)  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self._new_pending()

    def _new_pending(self) -> None:
        # A signal sent goes through ``_core.SignalSink`` (``raise_signal`` in C), which appends to these lists.
        state = getattr(self, "state", None)  # None while SignalBuffers.__init__ makes the first lists
        if state is not None:
            state.signals = _core.SignalSink(state, self._to, self._names, self._from, self._values)

    def _canonical(self) -> range | list[int]:
        # SignalBuffers._canonical's test of the common case in C, where the senders are ints: no sort needed.
        senders = self._from
        in_order = _core.ascending(senders)
        if in_order is None:  # a sender that is not an int: compared in Python, as its own __le__ says
            return super()._canonical()
        return range(len(senders)) if in_order else sorted(range(len(senders)), key=senders.__getitem__)

    def _grouped(self, ranked: range | list[int]) -> dict[BufferSlots, dict[str, list[Any]]]:
        # SignalBuffers._grouped's loop, in C: a churning world groups ten thousand contributions a tick.
        return _core.group_signals(self._to, self._names, self._values,  # type: ignore[no-any-return]
                                   len(ranked) if isinstance(ranked, range) else ranked)

    def update(self, world: Host) -> None:
        """The Update Method system: every live entity's ``update()``, then commit."""
        settler = _core.Settler(self._order, self._moved, self._changed, self.state, self._shown)
        profile = self.profile
        try:
            if profile is None:
                for entity in settler:
                    entity.update(world)
            else:
                profile.run_updates(settler, world)
        except BaseException as error:
            failed: BufferSlots | None = settler.current
            self._failed = failed  # its writes were never settled: the abort puts them back
            settler.close()  # its current entity's writes are no longer its own update's
            if isinstance(error, EntityUpdateError) or not isinstance(error, Exception) or failed is None:
                raise
            raise EntityUpdateError(failed, world.tick_count + 1, error) from error
        self._commit()

    def _commit(self) -> None:
        # With no system after the Update Method system (the common case), the signals are combined
        # first (``_combine_early``: a combine function is the game's code and may fail the tick) and
        # the previous values are recorded in the same pass: nothing can change them before
        # ``finish``, and nothing can fail after this point. (Entities that systems wrote get their
        # previous values in ``finish``.)
        self._check_order()
        self._check_refused()
        self._combine_early()
        tick = self._tick if not self._late_systems else None
        _core.commit(self._moved, tick)
        self._commit_shown(_core.commit_shown)
        if self._changed:
            state = self.state
            state.ticking = False  # the buffers' own writes: at once, past the barrier
            try:
                for entity in self._changed:
                    layout_of(entity).set(entity, entity._nfull)
            finally:
                state.ticking = True

    def _record_moved(self, tick: int) -> None:
        _core.record_previous(self._moved, tick)


Buffers: type[PureBuffers] = CompiledBuffers if ACCELERATED else PureBuffers
"""The Double Buffer class worlds use: ``CompiledBuffers`` where the core runs, else ``PureBuffers``."""


def gather_motion(
    entities: Sequence[BufferSlots], tick: int, alpha: float, out: Any, extrapolate: bool = False
) -> None:
    """The renderer's gather: every entity's ``(x, y, angle)`` drawn ``alpha`` into the next tick.

    Writes ``len(entities)`` rows of three float32 values into ``out`` (a writable float32
    buffer, e.g. a ``numpy`` array of shape ``(n, 3)`` or a view of a vertex buffer):
    ``previous + (current - previous) * alpha`` for the position (``current + (current -
    previous) * alpha`` when extrapolating), and the angle turned the short way round, as
    ``Entity.draw_position`` and ``Entity.draw_angle`` do, computed in double precision
    and rounded once to float32. ``tick`` is the world's ``tick_count``. The compiled core
    and the numpy fallback give the same bits.
    """
    if _core is not None:
        _core.gather_motion(entities, tick, alpha, out, extrapolate)
    else:
        _gather_motion_numpy(entities, tick, alpha, out, extrapolate)


def gather_pair(entities: Sequence[BufferSlots], tick: int, previous: Any, current: Any) -> None:
    """The renderer's per-tick gather in one walk: ``gather_motion`` at alpha 0 and at alpha 1.

    Writes into ``previous`` exactly what ``gather_motion(entities, tick, 0.0, previous)``
    writes and into ``current`` what ``gather_motion(entities, tick, 1.0, current)`` writes,
    same bits and same refusals, but reads every entity once instead of twice: the
    renderer gathers both every tick, and the second walk over 10,000 entities was most
    of the gather's cost.
    """
    if _core is not None:
        _core.gather_pair(entities, tick, previous, current)
    else:
        _gather_pair_numpy(entities, tick, previous, current)


_OUT = ("gather_motion: out must be a writable, contiguous, native float32 buffer of at least "
        "len(entities) * 3 values")
_PAIR_OUT = ("gather_motion: previous and current must each be a writable, contiguous, native float32 buffer of "
             "at least len(entities) * 3 values")
_FLOAT32 = frozenset(("f", "@f", "=f", "<f" if sys.byteorder == "little" else ">f"))
_FIELDS = ("x", "y", "angle", "previous x", "previous y", "previous angle")
_PLAIN = frozenset((float, int, bool))


def _float32_view(out: Any, message: str) -> memoryview:
    """``out`` as a writable, contiguous, native float32 buffer, or ``message`` as a TypeError (as the core)."""
    try:
        view = memoryview(out)
    except TypeError:
        raise TypeError(message) from None
    if view.readonly or not view.c_contiguous or view.format not in _FLOAT32:
        raise TypeError(message)
    return view


def _check_tick(tick: Any) -> None:
    if type(tick) is not int:
        raise TypeError(f"gather_motion: tick must be an int, got {type(tick).__name__}")


def _gather_motion_numpy(entities: Sequence[BufferSlots], tick: int, alpha: float, out: Any, extrapolate: bool) -> None:
    """The numpy gather: the compiled core's rules, refusals and bits, without it."""
    _check_tick(tick)
    view = _float32_view(out, _OUT)
    if view.nbytes // 12 < len(entities):
        raise TypeError(_OUT)
    _gather_numpy(entities, tick, [(view, alpha)], extrapolate)


def _gather_pair_numpy(entities: Sequence[BufferSlots], tick: int, previous: Any, current: Any) -> None:
    """The numpy ``gather_pair``: the compiled core's rules, refusals and bits, without it."""
    _check_tick(tick)
    views = _float32_view(previous, _PAIR_OUT), _float32_view(current, _PAIR_OUT)
    if min(view.nbytes for view in views) // 12 < len(entities):
        raise TypeError(_PAIR_OUT)
    _gather_numpy(entities, tick, [(views[0], 0.0), (views[1], 1.0)], False)


def _gather_numpy(entities: Sequence[BufferSlots], tick: int, outs: list[tuple[memoryview, float]],
                  extrapolate: bool) -> None:
    """Every entity's numbers read once, written as rows at each ``(out, alpha)``.

    Like the core it calls no user code on the way: numbers are floats or ints, read as
    what they are (never through an overridden ``__float__``); a ``_prev_tick`` that is
    not an int has not moved. On a refusal, the rows before the refused entity are written,
    as the core writes them.
    """
    if len(entities) == 0:
        return
    import numpy as np  # only the renderer gathers: ``import engine`` stays free of numpy

    targets = [(np.frombuffer(view.cast("B"), dtype=np.float32), alpha) for view, alpha in outs]
    fast = all(issubclass(kind, BufferSlots) for kind in set(map(type, entities)))
    if fast:
        try:
            # One comprehension per column: numpy builds arrays from nested lists (and
            # attrgetter reads slotted attributes) several times more slowly.
            moved = [type(mark := entity._prev_tick) is int and mark == tick for entity in entities]
            columns = [[entity.x for entity in entities], [entity.y for entity in entities],
                       [entity.angle for entity in entities]]
            columns += [[entity._px if was else now for entity, now, was in zip(entities, columns[0], moved)],
                        [entity._py if was else now for entity, now, was in zip(entities, columns[1], moved)],
                        [entity._pa if was else now for entity, now, was in zip(entities, columns[2], moved)]]
        except AttributeError:
            fast = False
    if fast and set(map(type, [value for column in columns for value in column])) <= _PLAIN:
        try:
            numbers = np.array(columns, dtype=np.float64).T
        except OverflowError:  # an int too large for a float: refused below, in the core's words
            pass
        else:
            for target, alpha in targets:
                _write_rows(target, numbers, alpha, extrapolate)
            return
    rows: list[list[float]] = []
    try:
        for entity in entities:  # entity by entity, in the core's order, for the same refusal
            rows.append(_numbers(entity, tick))
    finally:
        if rows:
            for target, alpha in targets:
                _write_rows(target, np.array(rows, dtype=np.float64), alpha, extrapolate)


def _numbers(entity: Any, tick: int) -> list[float]:
    if not issubclass(type(entity), BufferSlots):
        raise TypeError(f"gather_motion: expected an Entity, got {type(entity).__name__}")
    now = (entity.x, entity.y, entity.angle)
    mark = entity._prev_tick
    values = now + ((entity._px, entity._py, entity._pa) if type(mark) is int and mark == tick else now)
    numbers = []
    for field, value in zip(_FIELDS, values):
        if issubclass(type(value), float):
            numbers.append(float.__float__(value))
        elif issubclass(type(value), int):
            numbers.append(int.__float__(value))
        else:
            raise TypeError(f"gather_motion: {type(entity).__name__} {getattr(entity, 'id', None)!r}'s {field} is a "
                            f"{type(value).__name__}, not a number: x, y and angle must be floats or ints")
    return numbers


def _write_rows(target: Any, numbers: Any, alpha: float, extrapolate: bool) -> None:
    """Rows of ``(x, y, angle)`` from columns x, y, angle, previous x, y, angle, as the core computes them."""
    import numpy as np

    now, before = numbers[:, :3], numbers[:, 3:]
    with np.errstate(all="ignore"):  # NaN and infinity go through as in C, silently
        turn = np.remainder(now[:, 2] - before[:, 2] + 180.0, 360.0) - 180.0
        rows = np.empty((len(numbers), 3), dtype=np.float64)
        if extrapolate:
            rows[:, :2] = now[:, :2] + (now[:, :2] - before[:, :2]) * alpha
            rows[:, 2] = now[:, 2] + turn * alpha
        else:
            rows[:, :2] = before[:, :2] + (now[:, :2] - before[:, :2]) * alpha
            rows[:, 2] = now[:, 2] - turn * (1.0 - alpha)
        rows[np.isnan(rows)] = np.nan  # one canonical NaN, as the core writes
        target[: rows.size] = rows.reshape(-1)
