"""Hostile user code against the Double Buffer: the compiled core never crashes, and both paths agree.

Every case here once crashed the compiled core (a use-after-free, a NULL in a live list, a
negative ``memmove``) or made the two paths disagree. Each test runs its case on every
path this build has (the pure path always, the compiled core where it is built) and asserts
one outcome: the same hashes and values, or the same exception type and message. CI runs
this file under ASAN/UBSAN and under ``python -X dev`` with ``PYTHONMALLOC=debug``
(``.ci/sanitize``), where a use-after-free is a crash, not a silent misread: keep it fast.
"""

from __future__ import annotations

import functools
import gc
import sys
import threading
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any, cast

import esper
import numpy as np
import pytest

import engine.world.world
from engine import BufferedWriteError, Entity, EntityUpdateError, Look, Part, World, buffered, signal
from engine.buffering import ACCELERATED, CompiledBuffers, PureBuffers, compiled

PATHS: list[type] = [PureBuffers, *([CompiledBuffers] if ACCELERATED else [])]
needs_core = pytest.mark.skipif(not ACCELERATED, reason="the compiled core is not built here (or TICKSWAP_PURE is set)")


def _gather_core(entities: list[Entity], tick: int, alpha: float, out: Any, extrapolate: bool = False) -> None:
    compiled._core.gather_motion(entities, tick, alpha, out, extrapolate)


GATHERS: list[Callable[..., None]] = [compiled._gather_motion_numpy, *([_gather_core] if ACCELERATED else [])]


def _pair_core(entities: list[Entity], tick: int, previous: Any, current: Any) -> None:
    compiled._core.gather_pair(entities, tick, previous, current)


PAIRS: list[Callable[..., None]] = [compiled._gather_pair_numpy, *([_pair_core] if ACCELERATED else [])]


def _outcome(call: Callable[[], Any]) -> tuple[Any, ...]:
    try:
        return ("ok", call())
    except Exception as error:
        return ("error", type(error).__name__, str(error))


def _on_every_path(scenario: Callable[[], Any]) -> Any:
    """Run ``scenario`` once with each path's buffers; assert one outcome, and return it."""
    outcomes = []
    with pytest.MonkeyPatch.context() as monkeypatch:
        for kind in PATHS:
            monkeypatch.setattr(engine.world.world, "Buffers", kind)
            outcomes.append(_outcome(scenario))
    for other in outcomes[1:]:
        assert other == outcomes[0]
    return outcomes[0]


def _every_gather(make: Callable[[], tuple[list[Entity], Any]], tick: int = 1) -> tuple[Any, ...]:
    """Gather with each path; assert one outcome (rows or error) and return it."""
    outcomes = []
    for gather in GATHERS:
        entities, out = make()

        def run(entities: list[Entity] = entities, out: Any = out, gather: Callable[..., None] = gather) -> bytes:
            gather(entities, tick, 0.25, out, False)
            return bytes(memoryview(out).cast("B"))

        outcomes.append(_outcome(run))
    for other in outcomes[1:]:
        assert other == outcomes[0]
    return outcomes[0]


def _every_pair(make: Callable[[], tuple[list[Entity], Any, Any]], tick: int = 1) -> tuple[Any, ...]:
    """The one-walk gather with each path; assert one outcome and the same bytes left in both buffers.

    Returns the outcome and then what ``previous`` and ``current`` hold after it (a refusal
    leaves the rows before the refused entity written, on both paths alike).
    """
    outcomes = []
    for pair in PAIRS:
        entities, previous, current = make()
        outcome = _outcome(lambda: pair(entities, tick, previous, current))
        outcomes.append((*outcome, bytes(memoryview(previous).cast("B")), bytes(memoryview(current).cast("B"))))
    for other in outcomes[1:]:
        assert other == outcomes[0]
    return outcomes[0]


@pytest.fixture(autouse=True)
def _no_leftover_gc_hooks() -> Iterator[None]:
    callbacks = list(gc.callbacks)
    threshold = gc.get_threshold()
    yield
    gc.callbacks[:] = callbacks
    gc.set_threshold(*threshold)


class Walker(Entity):
    """Only x, y and angle: moves every tick."""

    def update(self, world: World) -> None:
        self.x += 1.0


class Keeper(Entity):
    """A buffered field of its own: the tuple path."""

    hp = buffered(10)

    def update(self, world: World) -> None:
        self.hp = 10 if type(self.hp) is not int else self.hp + 1


def _walk_every_list() -> int:
    """What a memory profiler's hook does: visit every item of every list the collector tracks."""
    seen = 0
    for found in gc.get_objects():
        if type(found) is list:
            for item in found:
                seen += item is None
    return seen


# -- the renderer's gather ------------------------------------------------------------------------


class _Sneaky:
    """A number that, when asked for its float, empties the list being gathered and frees y."""

    calls = 0

    def __init__(self, entities: list[Entity], entity: Entity) -> None:
        self.entities, self.entity = entities, entity

    def __float__(self) -> float:
        _Sneaky.calls += 1
        self.entities.clear()
        self.entity.y = 0.0
        return 1.0


def test_a_position_whose_float_empties_the_list_is_refused_by_name_and_never_called():
    def make() -> tuple[list[Entity], Any]:
        entity = Entity()
        entities = [entity, Entity()]
        entity.y = float(sum(range(1000)))  # a float of its own: freed if the slot lets go of it
        entity.x = _Sneaky(entities, entity)  # type: ignore[assignment]  # a hostile value, on purpose
        return entities, np.zeros((2, 3), dtype=np.float32)

    _Sneaky.calls = 0
    found = _every_gather(make)
    assert found[:2] == ("error", "TypeError")
    assert "Entity None's x is a _Sneaky" in found[2]
    assert _Sneaky.calls == 0


class _Tick:
    """A previous tick whose comparison frees x (``_prev_tick`` is only ever an int the buffers set)."""

    compared = 0

    def __init__(self, entity: Entity) -> None:
        self.entity = entity

    def __eq__(self, other: object) -> bool:
        _Tick.compared += 1
        self.entity.x = 0.0
        return True

    __hash__ = None  # type: ignore[assignment]


def test_a_previous_tick_that_is_not_an_int_is_not_compared_and_gathers_the_current_values():
    def make() -> tuple[list[Entity], Any]:
        entity = Entity(x=float(sum(range(100))), y=2.0)
        entity._prev_tick = _Tick(entity)  # type: ignore[assignment]  # a hostile value, on purpose
        return [entity], np.zeros((1, 3), dtype=np.float32)

    _Tick.compared = 0
    found = _every_gather(make)
    assert found[0] == "ok"
    assert np.frombuffer(found[1], dtype=np.float32).tolist() == [4950.0, 2.0, 0.0]
    assert _Tick.compared == 0


@pytest.mark.parametrize("value", ["1.5", None, Decimal("1.5"), np.float32(1.5), 1j])
def test_an_x_that_is_not_a_float_or_an_int_is_refused_the_same_way_on_both_paths(value):
    def make() -> tuple[list[Entity], Any]:
        entities = [Entity(x=1.0), Entity(x=2.0)]
        entities[1].x = value
        return entities, np.full((2, 3), 7.0, dtype=np.float32)

    found = _every_gather(make)
    assert found[:2] == ("error", "TypeError")
    assert f"Entity None's x is a {type(value).__name__}, not a number" in found[2]


class _Int(int):
    """An int subclass: read as the int it is."""


# Ints on both sides of one digit (2**30, where the core's inline conversion stops) and past a double's 53 bits.
_INTS = [0, -1, 2**30 - 1, 2**30, -(2**30 - 1), -(2**30), 2**53 + 1, -(2**62) - 3, _Int(-7)]



@pytest.mark.parametrize("value", [True, 3, 10**20, float("nan"), float("-inf"), *_INTS])
def test_ints_bools_and_every_float_gather_to_the_same_bits(value):
    def make() -> tuple[list[Entity], Any]:
        return [Entity(x=value, y=-1.0)], np.zeros((1, 3), dtype=np.float32)

    assert _every_gather(make)[0] == "ok"


def test_an_int_too_large_for_a_float_is_the_same_overflow_on_both_paths():
    def make() -> tuple[list[Entity], Any]:
        return [Entity(x=10**400)], np.zeros((1, 3), dtype=np.float32)

    assert _every_gather(make)[:2] == ("error", "OverflowError")


@pytest.mark.parametrize("out", [
    np.zeros((2, 3), dtype=np.int32),
    np.zeros((2, 3), dtype=np.uint32),
    np.zeros((2, 3), dtype=">f4"),
    np.zeros((2, 3), dtype="U1"),
    np.zeros((2, 3), dtype=np.float64),
    np.zeros((2, 6), dtype=np.float32)[:, ::2],
    np.zeros((1, 3), dtype=np.float32),
    bytearray(24),
    b"\0" * 24,
], ids=["int32", "uint32", "big-endian", "string", "float64", "strided", "short", "bytes", "read-only bytes"])
def test_gather_refuses_every_buffer_that_is_not_writable_native_float32_in_one_message(out):
    def make() -> tuple[list[Entity], Any]:
        return [Entity(), Entity()], out

    found = _every_gather(make)
    assert found == ("error", "TypeError", "gather_motion: out must be a writable, contiguous, native float32 "
                                           "buffer of at least len(entities) * 3 values")


def test_a_read_only_array_is_the_same_type_error_on_both_paths():
    out = np.zeros((1, 3), dtype=np.float32)
    out.setflags(write=False)
    found = _every_gather(lambda: ([Entity()], out))
    assert found[:2] == ("error", "TypeError")
    assert not out.any()


def test_something_that_is_not_an_entity_is_refused_after_the_rows_before_it():
    def make() -> tuple[list[Entity], Any]:
        return [Entity(x=5.0), object()], np.zeros((2, 3), dtype=np.float32)  # type: ignore[list-item]

    found = _every_gather(make)
    assert found == ("error", "TypeError", "gather_motion: expected an Entity, got object")


# -- the renderer's gather in one walk (previous and current) ----------------------------------------

_PAIR_OUT = ("gather_motion: previous and current must each be a writable, contiguous, native float32 buffer of "
             "at least len(entities) * 3 values")


def _rows(count: int) -> Any:
    return np.full((count, 3), 7.0, dtype=np.float32)


def test_the_pair_refuses_a_position_whose_float_empties_the_list_and_never_calls_it():
    def make() -> tuple[list[Entity], Any, Any]:
        entity = Entity()
        entities = [Entity(x=3.0), entity, Entity()]
        entity.y = float(sum(range(1000)))  # a float of its own: freed if the slot lets go of it
        entity.x = _Sneaky(entities, entity)  # type: ignore[assignment]  # a hostile value, on purpose
        return entities, _rows(3), _rows(3)

    _Sneaky.calls = 0
    found = _every_pair(make)
    assert found[:2] == ("error", "TypeError")
    assert "Entity None's x is a _Sneaky" in found[2]
    assert _Sneaky.calls == 0
    # The row before the refused entity is written in both buffers, the others untouched.
    for written in found[3:]:
        assert np.frombuffer(written, dtype=np.float32).tolist() == [3.0, 0.0, 0.0] + [7.0] * 6


@pytest.mark.parametrize("tick", [0, 3, 300, 2**30 - 1, 2**30, 2**62 + 1, -5, -(2**30 - 1)], ids=str)
@pytest.mark.parametrize("angles", [(350.0, 10.0), (10.0, 10.0), (-0.0, 0.0), (float("inf"), float("inf")),
                                    (float("nan"), float("nan")), (720.0, 720.0)], ids=str)
def test_the_pair_reads_a_tick_equal_in_another_int_and_an_unturned_angle_to_the_same_bits(tick, angles):
    """The core compares one-digit ticks and skips the turn of an unturned angle inline: same bits as numpy."""
    def make() -> tuple[list[Entity], Any, Any]:
        moved, still, later = Entity(x=1.0, y=2.0), Entity(x=5, y=-6), Entity(x=9.5)
        for entity, mark in ((moved, tick), (still, tick), (later, tick + 1)):
            entity._px, entity._py, entity._pa = 0.5, 4, angles[0]
            entity.angle = angles[1]
            entity._prev_tick = int(str(mark))  # equal, but another object than the tick passed
        return [moved, still, later], _rows(3), _rows(3)

    found = _every_pair(make, tick=tick)
    assert found[0] == "ok"


def test_the_pair_does_not_compare_a_previous_tick_that_is_not_an_int():
    def make() -> tuple[list[Entity], Any, Any]:
        entity = Entity(x=float(sum(range(100))), y=2.0)
        entity._prev_tick = _Tick(entity)  # type: ignore[assignment]  # a hostile value, on purpose
        return [entity], _rows(1), _rows(1)

    _Tick.compared = 0
    found = _every_pair(make)
    assert found[0] == "ok"
    assert np.frombuffer(found[2], dtype=np.float32).tolist() == [4950.0, 2.0, 0.0]
    assert found[2] == found[3]
    assert _Tick.compared == 0


@pytest.mark.parametrize("value", ["1.5", None, Decimal("1.5"), np.float32(1.5), 1j, 10**400])
def test_the_pair_refuses_what_is_not_a_number_the_same_way_on_both_paths(value):
    def make() -> tuple[list[Entity], Any, Any]:
        entities = [Entity(x=1.0), Entity(x=2.0)]
        entities[1].angle = value
        return entities, _rows(2), _rows(2)

    found = _every_pair(make)
    assert found[0] == "error"
    assert found[1] == ("OverflowError" if isinstance(value, int) else "TypeError")


@pytest.mark.parametrize("value", [True, 3, 10**20, float("nan"), float("-inf"), -0.0, *_INTS])
def test_the_pair_gathers_ints_bools_and_every_float_to_the_bits_of_two_gathers(value):
    def make() -> tuple[list[Entity], Any, Any]:
        return [Entity(x=value, y=-1.0)], _rows(1), _rows(1)

    found = _every_pair(make)
    assert found[0] == "ok"
    for gather in GATHERS:
        for alpha, written in ((0.0, found[2]), (1.0, found[3])):
            single = _rows(1)
            gather(make()[0], 1, alpha, single, False)
            assert single.tobytes() == written


_BAD_OUTS = [
    np.zeros((2, 3), dtype=np.int32),
    np.zeros((2, 3), dtype=">f4"),
    np.zeros((2, 3), dtype=np.float64),
    np.zeros((2, 6), dtype=np.float32)[:, ::2],
    np.zeros((1, 3), dtype=np.float32),
    np.zeros(5, dtype=np.float32),
    bytearray(24),
    b"\0" * 24,
    object(),
    None,
]
_BAD_IDS = ["int32", "big-endian", "float64", "strided", "short", "a row short", "bytes", "read-only bytes",
            "object", "None"]


@pytest.mark.parametrize("bad", _BAD_OUTS, ids=_BAD_IDS)
@pytest.mark.parametrize("which", ["previous", "current"])
def test_the_pair_refuses_either_buffer_in_one_message_and_writes_nothing(bad, which):
    good = np.full((2, 3), 7.0, dtype=np.float32)
    for pair in PAIRS:
        good[:] = 7.0
        outs = (bad, good) if which == "previous" else (good, bad)
        found = _outcome(lambda: pair([Entity(), Entity()], 1, *outs))
        assert found == ("error", "TypeError", _PAIR_OUT)
        assert (good == 7.0).all()


def test_the_pair_refuses_a_read_only_array_and_a_tick_that_is_not_an_int():
    frozen = np.zeros((1, 3), dtype=np.float32)
    frozen.setflags(write=False)
    for pair in PAIRS:
        assert _outcome(lambda: pair([Entity()], 1, frozen, _rows(1))) == ("error", "TypeError", _PAIR_OUT)
        found = _outcome(lambda: pair([Entity()], 1.0, _rows(1), _rows(1)))
        assert found == ("error", "TypeError", "gather_motion: tick must be an int, got float")
    assert not frozen.any()


def test_the_pair_refuses_something_that_is_not_an_entity_after_the_rows_before_it():
    def make() -> tuple[list[Entity], Any, Any]:
        return [Entity(x=5.0), object(), Entity(x=6.0)], _rows(3), _rows(3)  # type: ignore[list-item]

    found = _every_pair(make)
    assert found[:3] == ("error", "TypeError", "gather_motion: expected an Entity, got object")
    for written in found[3:]:
        assert np.frombuffer(written, dtype=np.float32).tolist() == [5.0, 0.0, 0.0] + [7.0] * 6


@needs_core
@pytest.mark.parametrize("args", [(), ([],), ([], 1, _rows(1)), ([], 1, _rows(1), _rows(1), _rows(1)),
                                  ((Entity(),), 1, _rows(1), _rows(1))], ids=["none", "one", "three", "five", "tuple"])
def test_the_cores_pair_refuses_wrong_arguments_without_crashing(args):
    with pytest.raises(TypeError):
        compiled._core.gather_pair(*args)


@needs_core
def test_the_pair_writes_both_rows_into_one_buffer_passed_twice():
    entities = [Entity(x=1.0, y=2.0)]
    entities[0].angle = 3.0
    out = _rows(1)
    compiled._core.gather_pair(entities, 1, out, out)
    assert out.tolist() == [[1.0, 2.0, 3.0]]


@pytest.mark.skipif(sys.version_info < (3, 12), reason="a class exports a buffer from Python code from 3.12 on")
@pytest.mark.parametrize("which", ["previous", "current"])
def test_a_buffer_whose_export_frees_every_entity_gathers_none_of_them(which):
    class Freeing:
        """A buffer whose export empties the list being gathered, freeing its entities."""

        def __init__(self, entities: list[Entity], rows: Any) -> None:
            self.entities, self.rows = entities, rows

        def __buffer__(self, flags: int) -> memoryview:
            self.entities.clear()
            gc.collect()
            return memoryview(self.rows)

    def make() -> tuple[list[Entity], Any, Any]:
        entities = [Entity(x=float(sum(range(i)))) for i in range(50)]
        freeing = Freeing(entities, _rows(50))
        return (entities, freeing, _rows(50)) if which == "previous" else (entities, _rows(50), freeing)

    for pair in PAIRS:
        entities, previous, current = make()
        assert _outcome(lambda: pair(entities, 1, previous, current)) == ("ok", None)
        assert entities == []
        for out in (previous, current):
            assert (np.asarray(memoryview(out)) == 7.0).all()


# -- the write barrier -------------------------------------------------------------------------


class _Equal:
    """A value equal to ``target``, whose ``==``, hash and release would run ``action`` (nothing may call them)."""

    def __init__(self, target: Any, action: Callable[[], Any]) -> None:
        self.target, self.action = target, action

    def __eq__(self, other: object) -> bool:
        self.action()
        return other == self.target

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.target)


class _Writer(Entity):
    """Writes a hostile value into another entity's field in tick 2: refused at the write."""

    def __init__(self, target: Keeper, action: Callable[[], Any]) -> None:
        super().__init__()
        self.target, self.action = target, action

    def update(self, world: World) -> None:
        self.x += 1.0
        if world.tick_count == 1:
            self.target.hp = _Equal(self.target.hp, self.action)  # type: ignore[assignment]  # a hostile value, on purpose


def _scene(action: Callable[[World], Callable[[], Any]], late_system: bool = False) -> Callable[[], Any]:
    def scenario() -> Any:
        world = World(seed=3)
        try:
            walkers = [world.spawn(Walker(x=float(i))) for i in range(5)]
            keeper = world.spawn(Keeper())
            world.spawn(_Writer(keeper, action(world)))
            walkers += [world.spawn(Walker(x=10.0 + i)) for i in range(5)]
            if late_system:
                world.add_processor(_Nothing(), priority=-1)
            hashes = []
            for _ in range(4):
                hashes.append(_outcome(world.tick))
                hashes.append(_outcome(world.state_hash))
            return hashes, [(w.x, w.prev_x) for w in walkers], keeper.hp
        finally:
            world.close()

    return scenario


class _Nothing(esper.Processor):
    def process(self) -> None:
        pass


def _never(world: World) -> Callable[[], Any]:
    def called() -> None:
        raise AssertionError("the barrier touched the value it refused")

    return called


@pytest.mark.parametrize("late_system", [False, True])
def test_a_foreign_write_of_a_hostile_value_is_refused_alike_without_touching_it(late_system):
    outcome = _on_every_path(_scene(_never, late_system))
    assert outcome[0] == "ok"
    hashes, _walkers, hp = outcome[1]
    assert hashes[2][:2] == ("error", "BufferedWriteError") and hashes[4][:2] == ("error", "BufferedWriteError")
    assert hashes[1] == hashes[3] == hashes[5] == hashes[7] and hp == 11  # tick 2 refused each time, nothing kept


class _Doomed:
    """A value whose finalizer writes its entity's ``field`` (run when a slot lets go of it)."""

    def __init__(self, entity: Entity, field: str, value: Any) -> None:
        self.entity, self.field, self.value = entity, field, value

    def __del__(self) -> None:
        setattr(self.entity, self.field, self.value)


@pytest.mark.parametrize("slot", ["_bx", "_bfull", "_wmark"])
def test_a_finalizer_run_by_the_barriers_first_write_writing_the_entity_gives_the_same_world(slot):
    # The first write of an update lets go of the last tick's baseline and mark: a finalizer
    # that writes the entity then must find it marked (its own write), on both paths alike.
    def scenario() -> Any:
        world = World()
        try:
            entity = world.spawn(Keeper(x=1.0, y=float(sum(range(77)))))
            setattr(entity, slot, _Doomed(entity, "y", 1.5) if slot != "_bfull" else (_Doomed(entity, "hp", 7),))
            world.tick()
            world.tick()
            return entity.x, entity.y, entity.hp, entity.prev_y, world.state_hash()
        finally:
            world.close()

    assert _on_every_path(scenario)[0] == "ok"


class _Systematic(esper.Processor):
    """A system that writes every entity (at once; its tick-start values kept for an abort)."""

    def __init__(self, world: World, fail: bool) -> None:
        self.world, self.fail = world, fail

    def process(self) -> None:
        for entity in self.world.entities:
            entity.x = entity.x + 0.25
            if isinstance(entity, Keeper):
                entity.hp = entity.hp * 2
        if self.fail and self.world.tick_count == 2:
            raise RuntimeError("a system fails after writing")


@pytest.mark.parametrize("priority", [1, -1])
@pytest.mark.parametrize("fail", [False, True])
def test_systems_writing_before_and_after_the_updates_give_the_same_world_and_previous_values(priority, fail):
    def scenario() -> Any:
        world = World()
        try:
            entities = [world.spawn((Keeper if i % 3 == 0 else Walker)(x=float(i))) for i in range(9)]
            world.add_processor(_Systematic(world, fail), priority=priority)
            seen: list[Any] = []
            for _ in range(4):
                seen.append(_outcome(world.tick))
                seen.append([(e.x, e.prev_x, getattr(e, "hp", None), e.previous("x")) for e in entities])
                seen.append(world.state_hash())
            return seen
        finally:
            world.close()

    outcome = _on_every_path(scenario)
    assert outcome[0] == "ok"
    assert (outcome[1][6][:2] == ("error", "RuntimeError")) is fail


def test_a_gc_hook_that_walks_every_list_during_ticks_never_sees_a_hole():
    def scenario() -> Any:
        world = World(seed=1)
        try:
            for i in range(30):
                world.spawn((Keeper if i % 3 == 0 else Walker)(x=float(i)))
            gc.callbacks.append(lambda phase, info: _walk_every_list() if phase == "start" else None)
            gc.set_threshold(5)
            try:
                for _ in range(4):
                    world.tick()
            finally:
                gc.callbacks.pop()
                gc.set_threshold(700)
            return world.state_hash()
        finally:
            world.close()

    assert _on_every_path(scenario)[0] == "ok"


class _Trespasser(Entity):
    """Moves, and on tick 2 writes another entity's x: the tick is refused and rolled back."""

    def __init__(self, victim: Entity) -> None:
        super().__init__()
        self.victim = victim

    def update(self, world: World) -> None:
        self.x += 1.0
        if world.tick_count == 1:
            self.victim.x = 99.0


@pytest.mark.parametrize("late_system", [False, True])
def test_a_foreign_write_after_committed_movers_rolls_back_exactly(late_system):
    def scenario() -> Any:
        world = World(seed=2)
        try:
            movers = [world.spawn(Walker(x=float(i))) for i in range(8)]
            victim = world.spawn(Walker(x=50.0))
            world.spawn(_Trespasser(victim))
            if late_system:
                world.add_processor(_Nothing(), priority=-1)
            world.tick()
            before = world.state_hash()
            try:
                world.tick()
            except Exception as error:
                refused = (type(error).__name__, str(error))
            after = world.state_hash()
            return refused, before == after, [(m.x, m.prev_x) for m in movers], victim.x
        finally:
            world.close()

    found = _on_every_path(scenario)
    assert found[0] == "ok"
    refused, unchanged, _movers, victim_x = found[1]
    assert refused[0] == "BufferedWriteError"
    assert unchanged and victim_x == 51.0


class _Eraser(Entity):
    """Empties the list the tick walks from its update (reaching into the engine's private attributes)."""

    def update(self, world: World) -> None:
        self.x += 1.0
        world._buffers._order.clear()  # type: ignore[attr-defined]  # the list behind the Sequence, emptied on purpose


def test_an_update_that_empties_the_update_list_is_refused_alike_and_the_world_kept():
    def scenario() -> Any:
        world = World()
        try:
            first = world.spawn(Walker())
            world.spawn(_Eraser())
            last = world.spawn(Walker())
            before = world.state_hash()
            seen: list[object] = []
            for _ in range(2):
                try:
                    world.tick()
                except RuntimeError as refused:
                    seen.append(str(refused))
                seen.append((world.tick_count, first.x, last.x, world.state_hash() == before))
            return seen
        finally:
            world.close()

    found = _on_every_path(scenario)
    assert found[0] == "ok"
    refusal = "the update order was changed during tick 1: 3 entities became 0"
    assert found[1] == [refusal, (0, 0.0, 0.0, True)] * 2


def test_a_game_cannot_reach_the_list_a_tick_walks():
    world = World()
    try:
        world.spawn(_Eraser())
        handed = engine.world.spawner_of(world).update_order()
        handed.clear()  # a copy: the tick still walks everyone
        with pytest.raises(RuntimeError, match="update order was changed"):
            world.tick()  # the eraser reaches past the engine, and is refused
    finally:
        world.close()


class _Reentrant(Entity):
    """Ticks its own world from its update: refused, and the tick leaves nothing behind."""

    def update(self, world: World) -> None:
        self.x += 1.0
        world.tick()


def test_a_reentrant_tick_is_refused_the_same_way_and_leaves_nothing_behind():
    def scenario() -> Any:
        world = World()
        try:
            world.spawn(Walker())
            world.spawn(_Reentrant())
            before = world.state_hash()
            try:
                world.tick()
            except Exception as error:
                return type(error).__name__, str(error), world.state_hash() == before, world.tick_count
            return None
        finally:
            world.close()

    found = _on_every_path(scenario)
    assert found[1][0] == "EntityUpdateError" and found[1][2:] == (True, 0)


class _Nested(Entity):
    """Ticks another world from its update: a commit inside a commit."""

    def __init__(self, inner: World) -> None:
        super().__init__()
        self.inner = inner

    def update(self, world: World) -> None:
        self.x += 1.0
        self.inner.tick()


def test_a_world_ticked_inside_another_worlds_update_gives_the_same_hashes():
    def scenario() -> Any:
        outer, inner = World(), World()
        try:
            for i in range(4):
                inner.spawn(Walker(x=float(i)))
                outer.spawn(Walker(x=float(-i)))
            outer.spawn(_Nested(inner))
            for _ in range(3):
                outer.tick()
            return outer.state_hash(), inner.state_hash()
        finally:
            inner.close()
            outer.close()

    assert _on_every_path(scenario)[0] == "ok"


# -- dunder overrides, refused by name ----------------------------------------------------------


@pytest.mark.parametrize("name", ["__getattribute__", "__getattr__", "__setattr__", "__delattr__"])
def test_an_entity_class_overriding_attribute_access_is_refused_by_name(name):
    with pytest.raises(TypeError, match=f"Odd overrides {name}: the double buffer reads and writes"):
        type("Odd", (Entity,), {name: lambda self, *args: None})


@pytest.mark.parametrize("name", ["alive", "_bx", "_prev_tick", "_signals"])
def test_an_entity_class_shadowing_the_buffers_own_attributes_is_refused_by_name(name):
    with pytest.raises(TypeError, match=f"Odd.{name} replaces the engine's own attribute {name!r}"):
        type("Odd", (Entity,), {name: property(lambda self: True)})


# -- the compiled core's own objects ---------------------------------------------------------------


class _Other:
    """Another class with the slot names, at other offsets."""

    # In this order on purpose: two slots first, so every slot name sits at another offset.
    __slots__ = ("pad0", "pad1", "x", "y", "angle", "alive", "_motion_only", "_bx", "_by", "_ba",  # noqa: RUF023
                 "_nx", "_ny", "_na", "_px", "_py", "_pa", "_prev_tick", "_bfull", "_nfull", "_prest", "_signals",
                 "_random", "_random_mark", "_look", "_parts", "_blook", "_bparts", "_wstate", "_wmark", "_smark")


@needs_core
def test_configure_forgets_the_classes_it_had_checked():
    core = compiled._core
    entity = Walker()
    core.commit([entity], None)  # Walker is now the class that passed last
    try:
        core.configure(_Other)
        with pytest.raises(TypeError, match="expected an Entity, got Walker"):
            core.commit([entity], None)
    finally:
        core.configure(engine.buffering.slots.BufferSlots)
    core.commit([entity], None)


def _core_state() -> Any:
    """A world's barrier state of the core's, ticking, as the buffers make it."""
    state = compiled._core.TickState(lambda writer, entity, field: RuntimeError(field))
    state.ticking = True
    return state


@needs_core
@pytest.mark.parametrize("field", ["x", "hp"])
def test_a_settler_that_failed_is_spent_and_names_the_entity(field):
    entity = Keeper() if field == "hp" else Walker()
    entity.alive = True
    state = _core_state()
    settler = compiled._core.Settler([entity, Walker()], [], [], state, [])
    assert next(settler) is entity and state.updating is entity
    entity._wstate = state
    setattr(entity, field, 5)  # its own write: marked, its committed values set aside
    saved = getattr(entity, field)
    delattr(entity, field)  # settling it now fails
    with pytest.raises(AttributeError):
        next(settler)
    assert settler.current is entity and state.updating is None
    setattr(entity, field, saved)
    with pytest.raises(StopIteration):
        next(settler)
    assert getattr(entity, field) == saved


@needs_core
def test_the_barrier_refuses_a_write_from_anothers_update_with_the_states_error_and_writes_nothing():
    state = _core_state()
    writer, written = Walker(), Keeper()
    for each in writer, written:
        each._wstate, each.alive, each.id = state, True, 1
    state.updating = writer
    with pytest.raises(RuntimeError, match="hp"):
        written.hp = 3
    assert written.hp == 10 and isinstance(state.refused, RuntimeError)
    written.plain = 3  # a plain attribute is nobody's concern
    written.id = None  # spawned in this tick: not joined yet, written at once
    written.hp = 4
    assert (written.hp, written.plain) == (4, 3)  # type: ignore[attr-defined]
    state.refuse = lambda *args: "not an exception"
    written.id = 2
    with pytest.raises(TypeError, match="must return an exception"):
        written.x = 1.0
    state.ticking = False  # between ticks: at once
    written.x = 2.0
    assert written.x == 2.0


class _Mortal(Walker):
    """Records, when freed, how long the lists in ``lists`` still are."""

    lists: list[list[Walker]] = []
    seen: list[int] = []

    def __del__(self) -> None:
        _Mortal.seen.extend(len(found) for found in _Mortal.lists)


def _movers(count: int, kind: type[Walker] = Walker) -> list[Walker]:
    """Entities as the settler leaves them: baseline set (a new entity's is its values), a pending x one further on."""
    entities = [kind(x=float(i)) for i in range(count)]
    for entity in entities:
        entity._nx = entity.x + 1.0
    return entities


@needs_core
def test_a_commit_holding_the_only_references_frees_its_entities_only_once_done():
    # The commit empties moved; the last reference to each entity must not go mid-pass.
    entities = _movers(40, _Mortal)
    _Mortal.lists[:] = [entities]
    _Mortal.seen.clear()
    try:
        assert compiled._core.commit(entities, 1) is None
    finally:
        _Mortal.lists.clear()
    assert entities == [] and _Mortal.seen == [0] * 40


@needs_core
def test_a_commit_whose_moved_entity_lost_a_slot_refuses_it_by_name_and_commits_nothing():
    entities = _movers(40)
    del entities[17]._nx
    moved = list(entities)
    # In Python's own words: from 3.13 on they name the class with its module.
    with pytest.raises(AttributeError, match=r"'(test_core_adversarial\.)?Walker' object has no attribute '_nx'"):
        compiled._core.commit(moved, 1)
    assert [entity.x for entity in entities] == [float(i) for i in range(40)] and moved == entities


@needs_core
@pytest.mark.parametrize("shape", ["in order", "reversed"])
def test_a_commit_commits_every_moved_entity_whatever_the_order_of_its_list(shape):
    entities = _movers(40)
    moved = list(entities)
    if shape == "reversed":
        moved.reverse()
    assert compiled._core.commit(moved, 7) is None
    assert moved == []
    assert [(e.x, e._px, e._prev_tick) for e in entities] == [(i + 1.0, float(i), 7) for i in range(40)]


@needs_core
def test_a_commit_listing_an_entity_twice_with_a_tick_that_is_not_an_int_keeps_every_reference():
    entity = _movers(1)[0]
    tick = ("tick", entity.id)  # not a constant; released by the second commit of the entity: room must be kept for it
    moved = [entity, entity]
    count = sys.getrefcount(tick)
    compiled._core.commit(moved, tick)
    held = sys.getrefcount(tick) - count  # the entity's _prev_tick, and nothing else
    assert held == 1 and entity._prev_tick is tick and moved == []  # type: ignore[comparison-overlap]  # a tuple tick


# -- threads ---------------------------------------------------------------------------------------


def _ticked_hashes(ticks: int, seed: int) -> list[str]:
    world = World(seed=seed)
    try:
        for i in range(20):
            world.spawn((Keeper if i % 4 == 0 else Walker)(x=float(i + seed)))
        hashes = []
        for _ in range(ticks):
            world.tick()
            hashes.append(world.state_hash())
        return hashes
    finally:
        world.close()


def test_two_worlds_ticked_in_two_threads_give_the_hashes_they_give_alone():
    alone = [_ticked_hashes(60, seed) for seed in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython will
    try:
        results: dict[int, Any] = {}

        def run(seed: int) -> None:
            results[seed] = _outcome(lambda: _ticked_hashes(60, seed))

        threads = [threading.Thread(target=run, args=(seed,)) for seed in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        sys.setswitchinterval(interval)
    assert [results.get(seed) for seed in range(4)] == [("ok", hashes) for hashes in alone]


class Counter(Entity):
    hp = buffered(0)

    def update(self, world: World) -> None:
        self.x += 1
        self.hp += 1


def test_one_world_ticked_from_four_threads_ticks_one_tick_at_a_time():
    world = World()
    counters = [world.spawn(Counter()) for _ in range(50)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            for _ in range(100):
                world.tick()
        except BaseException as error:  # pragma: no cover - the assertion below names it
            errors.append(error)

    try:
        threads = [threading.Thread(target=run) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    assert world.tick_count == 400
    assert {(counter.x, counter.hp) for counter in counters} == {(400.0, 400)}
    world.tick()
    assert world.tick_count == 401
    world.close()


# -- checkpoints: the core's keep and put_back ------------------------------------------------------


class Strider(Walker):
    """A Walker's sibling with the same slots: what an entity's ``__class__`` may be changed to."""

    def update(self, world: World) -> None:
        self.x += 2.0


class Hoarder(Keeper):
    """A Keeper's sibling with the same buffered field."""


def _walkers_and_keepers(world: World) -> list[Entity]:
    entities: list[Entity] = [world.spawn(Walker()) for _ in range(3)]
    entities += [world.spawn(Keeper()) for _ in range(2)]
    entities[0].random.random()  # a generator of its own: kept beside the slots
    return entities


def _state(world: World) -> tuple[Any, ...]:
    return world.state_hash(), [(type(entity).__name__, entity.prev_x, entity.x) for entity in world.entities]


@pytest.mark.parametrize("slot", ["x", "angle", "_px", "_pa", "_prev_tick", "_prest", "_signals", "_random", "_bx",
                                  "_random_mark"])
def test_a_slot_deleted_between_checkpoint_and_rollback_is_put_back_alike(slot):
    def scenario() -> tuple[Any, ...]:
        with World(seed=5) as world:
            entities = _walkers_and_keepers(world)
            world.tick()
            checkpoint = world.checkpoint()
            before = _state(world)
            world.tick()
            for entity in (entities[1], entities[3]):
                delattr(entity, slot)
            world.rollback(checkpoint)
            after = _state(world)
            world.tick()
            return before == after, after, _state(world), [hasattr(entity, slot) for entity in entities]

    same, *_rest, present = _on_every_path(scenario)[1]
    assert same and all(present)


@pytest.mark.parametrize("slot", ["y", "_py", "_prest", "_prev_tick", "_signals", "_random"])
def test_a_checkpoint_of_an_entity_missing_a_slot_is_refused_alike_by_name(slot):
    def scenario() -> int:
        with World(seed=5) as world:
            entities = _walkers_and_keepers(world)
            world.tick()
            delattr(entities[2], slot)
            return world.checkpoint().tick

    outcome = _on_every_path(scenario)
    assert outcome[:2] == ("error", "AttributeError") and slot in outcome[2]


@pytest.mark.parametrize("when", ["after the checkpoint", "before it, and back after"])
def test_an_entity_whose_class_changed_rolls_back_alike(when):
    def scenario() -> tuple[Any, ...]:
        with World(seed=5) as world:
            entities = _walkers_and_keepers(world)
            world.tick()
            if when != "after the checkpoint":
                entities[1].__class__, entities[4].__class__ = Strider, Hoarder
            checkpoint = world.checkpoint()
            before = _state(world)
            world.tick()
            entities[1].__class__ = Walker if when != "after the checkpoint" else Strider
            entities[4].__class__ = Keeper if when != "after the checkpoint" else Hoarder
            world.rollback(checkpoint)
            after = _state(world)
            world.tick()
            world.rollback(checkpoint)
            # A checkpoint keeps values, not classes (the hash names the class): the values come back.
            return [row[1:] for row in before[1]] == [row[1:] for row in after[1]], after, _state(world)

    assert _on_every_path(scenario)[1][0]


class _Bomb(float):
    """An x whose release rolls the world back again, from inside the rollback that lets go of it."""

    armed: tuple[World, Any] | None = None
    went_off = 0

    def __del__(self) -> None:
        armed, _Bomb.armed = _Bomb.armed, None
        if armed is not None:
            world, checkpoint = armed
            world.rollback(checkpoint)
            _Bomb.went_off += 1


def test_a_value_whose_release_reenters_rollback_gives_the_same_world():
    def scenario() -> tuple[Any, ...]:
        _Bomb.went_off = 0
        with World(seed=5) as world:
            entities = _walkers_and_keepers(world)
            world.tick()
            checkpoint = world.checkpoint()
            before = _state(world)
            world.tick()
            entities[1].x = _Bomb(7.5)  # held by that slot only: the rollback lets go of the last reference
            entities[3]._signals = {"hit": _Bomb(1.0)}
            _Bomb.armed = (world, checkpoint)
            world.rollback(checkpoint)
            after = _state(world)
            world.tick()
            return before == after, _Bomb.went_off, _state(world)

    same, went_off, _after = _on_every_path(scenario)[1]
    assert same and went_off == 1


def test_a_gc_hook_that_walks_every_list_during_checkpoints_and_rollbacks_never_sees_a_hole():
    def scenario() -> list[Any]:
        with World(seed=5) as world:
            _walkers_and_keepers(world)
            for _ in range(30):
                world.spawn(Walker())
            seen = []
            walking = [False]  # only inside checkpoints and rollbacks: walking the ticks too takes long
            # What existed before is frozen out of the walk: a hole can only be in a list made since, and
            # walking the whole test session's heap at every allocation took half a minute.
            gc.freeze()
            gc.callbacks.append(lambda phase, info: walking[0] and _walk_every_list())
            gc.set_threshold(1)
            try:
                checkpoints = []
                for _ in range(3):
                    world.tick()
                    walking[0] = True
                    checkpoints.append(world.checkpoint())
                    walking[0] = False
                for checkpoint in reversed(checkpoints):
                    walking[0] = True
                    world.rollback(checkpoint)
                    walking[0] = False
                    seen.append(_state(world))
            finally:
                gc.callbacks.pop()
                gc.set_threshold(*threshold)
                gc.unfreeze()
            return seen

    threshold = gc.get_threshold()
    assert len(_on_every_path(scenario)[1]) == 3


@needs_core
def test_the_cores_keep_and_put_back_refuse_what_they_were_not_given_and_change_nothing():
    core = compiled._core
    with World(seed=5) as world:
        entities = _walkers_and_keepers(world)
        world.tick()
        no_signals = entities[1]._signals
        rows, odd, extras, _kinds = core.keep(entities, no_signals)
        with pytest.raises(TypeError, match="expected an Entity, got object"):
            core.keep([*entities, object()], no_signals)
        world.tick()
        moved = [entity.x for entity in entities]
        refusals = [
            ((entities[:-1], rows, odd, extras, no_signals), ValueError, "4 entities for 5 kept rows"),
            ((entities, rows, odd[::-1], extras[::-1], no_signals), ValueError, "increasing indices"),
            ((entities, rows, [*odd, "4"], (*extras, *[None] * 5), no_signals), ValueError, "increasing"),
            ((entities, rows, odd, extras[:-1], no_signals), ValueError, "kept rows"),
            (([*entities[:-1], object()], rows, odd, extras, no_signals), TypeError, "expected an Entity"),
            ((entities, list(rows), odd, extras, no_signals), TypeError, "tuples from keep"),
        ]
        for arguments, error, message in refusals:
            with pytest.raises(error, match=message):
                core.put_back(*arguments)
            assert [entity.x for entity in entities] == moved
        assert core.put_back(entities, rows, odd, extras, no_signals) == []
        assert [entity.x for entity in entities] != moved


@needs_core
def test_a_rollback_without_memory_is_refused_before_anything_changes_and_leaks_nothing():
    testcapi = pytest.importorskip("_testcapi")
    if not hasattr(testcapi, "set_nomemory"):
        pytest.skip("this Python's _testcapi cannot make allocations fail")
    core = compiled._core
    with World(seed=5) as world:
        entities = _walkers_and_keepers(world)
        world.tick()
        no_signals = entities[1]._signals
        rows, odd, extras, _kinds = core.keep(entities, no_signals)
        world.tick()
        # Held by their slots only: a rollback that changed them would have to note them as spent.
        for entity in entities:
            entity._signals = {"hit": object()}
        held = [entity._signals for entity in entities]
        counts = [sys.getrefcount(signals) for signals in held]
        before = [(entity.x, entity._signals) for entity in entities]
        testcapi.set_nomemory(0)
        try:
            core.put_back(entities, rows, odd, extras, no_signals)
        except MemoryError:
            failed = True
        else:
            failed = False
        finally:
            testcapi.remove_mem_hooks()
        assert failed
        assert [(entity.x, entity._signals) for entity in entities] == before
        del before
        assert [sys.getrefcount(signals) for signals in held] == counts
        assert core.put_back(entities, rows, odd, extras, no_signals) == []
        assert [entity._signals for entity in entities] == [no_signals] * len(entities)
        assert [sys.getrefcount(signals) for signals in held] == [count - 1 for count in counts]


# -- shown fields: an entity's own look and parts, set in C ------------------------------------------

_SMALL = Look("square", 4)
_BIG = Look("circle", 9)
_OTHER = Look("diamond", 5)


def _shown_state(*entities: Entity) -> list[Any]:
    """What each entity shows and holds of its own (slots, baselines), as comparable data."""
    return [(repr(entity.look), repr(entity.parts), repr(entity._look), repr(entity._blook), repr(entity._bparts))
            for entity in entities]


class _Blinker(Entity):
    """Sets its own look every tick, and reads it back."""

    look = _SMALL

    def update(self, world: World) -> None:
        self.look = _BIG if self.look is _SMALL else _SMALL
        assert self.look is not None


class _Raiser(Entity):
    """Sets its own look and parts, then fails its update."""

    look = _SMALL

    def update(self, world: World) -> None:
        self.look = _BIG
        self.parts = (Part(_OTHER),)
        raise RuntimeError("no")


def test_an_update_that_sets_its_own_look_and_raises_leaves_no_writer_behind():
    """After the failed tick, the failed entity is nobody's updating entity: a write from outside
    applies at once, and a write to it from another entity's update is refused (the settler closed)."""

    class Tinter(Entity):
        def update(self, world: World) -> None:
            world.entities_of(_Raiser)[0].look = _OTHER

    def scenario() -> Any:
        world = World()
        try:
            raiser = world.spawn(_Raiser())
            blinker = world.spawn(_Blinker())
            seen: list[Any] = []
            try:
                world.tick()
            except EntityUpdateError as error:  # (its traceback holds the tick's frames, the settler's too)
                seen.append(str(error))
                seen.append(_shown_state(raiser, blinker))
                raiser.look = _OTHER  # between ticks: at once
                seen.append(_shown_state(raiser))
            raiser.update = lambda world: None  # type: ignore[method-assign]
            world.spawn(Tinter())
            try:
                world.tick()
            except BufferedWriteError as error:
                seen.append(str(error).split(" at ")[0])
            seen.append((_shown_state(raiser, blinker), world.tick_count, world.state_hash()))
            return seen
        finally:
            world.close()

    found = _on_every_path(scenario)
    assert found[0] == "ok" and "wrote look of _Raiser" in found[1][3]


class _Painter(Entity):
    """Ticks an inner world of blinkers from its update, then sets its own look and reads both."""

    look = _SMALL

    def __init__(self, inner: World) -> None:
        super().__init__()
        self.inner = inner
        self.seen: list[Any] = []

    def update(self, world: World) -> None:
        self.look = _OTHER
        self.inner.tick()  # its settler runs inside ours, and leaves
        self.seen.append(repr(self.look))
        self.look = _BIG if self.inner.tick_count % 2 else _OTHER
        self.seen.append(repr(self.look))


class _Watcher(Entity):
    def update(self, world: World) -> None:
        painter = world.entities_of(_Painter)
        if painter:
            self.seen = repr(painter[0].look)


def test_a_world_ticked_inside_an_update_hands_the_look_writes_back_to_the_outer_entity():
    def scenario() -> Any:
        outer, inner = World(), World()
        try:
            blinkers = [inner.spawn(_Blinker()) for _ in range(3)]
            painter = outer.spawn(_Painter(inner))
            watcher = outer.spawn(_Watcher())
            found = []
            for _ in range(3):
                outer.tick()
                found.append((watcher.seen, _shown_state(painter, *blinkers)))
            return found, painter.seen, outer.state_hash(), inner.state_hash()
        finally:
            inner.close()
            outer.close()

    assert _on_every_path(scenario)[0] == "ok"


class _Parts(list[Any]):
    """Parts whose check (which iterates them) deletes the entity's baseline slot."""

    def __init__(self, entity: Entity, slot: str) -> None:
        super().__init__([Part(_OTHER)])
        self.entity, self.slot = entity, slot

    def __iter__(self) -> Iterator[Any]:
        if hasattr(self.entity, self.slot):
            delattr(self.entity, self.slot)
        return super().__iter__()


@pytest.mark.parametrize("slot", ["_bparts", "_parts"])
def test_a_check_that_deletes_the_entitys_slot_is_refused_alike_by_name(slot):
    class Ripper(Entity):
        def update(self, world: World) -> None:
            self.parts = _Parts(self, slot)  # type: ignore[assignment]  # a list that is no tuple of parts, on purpose

    def scenario() -> Any:
        world = World()
        try:
            world.spawn(Ripper())
            try:
                world.tick()
            except EntityUpdateError as error:
                return str(error), world.tick_count
            return None
        finally:
            world.close()

    found = _on_every_path(scenario)
    # The baseline deleted: the settle names it. The slot deleted: the write that follows the check makes it again.
    assert found[0] == "ok" and (slot in found[1][0] if slot == "_bparts" else found[1] is None)


class _Ghost(Look):
    """A look whose release sets its entity's look again (a finalizer run by the write that replaces it)."""

    entity: Any = None

    def __del__(self) -> None:
        entity = type(self).entity
        if entity is not None:
            type(self).entity = None
            entity.look = _OTHER


def test_a_look_whose_release_sets_the_look_again_gives_the_same_world():
    class Haunted(Entity):
        look = _SMALL

        def update(self, world: World) -> None:
            _Ghost.entity = self
            self.look = _Ghost("circle", 3)  # the first write: the committed look is the baseline
            self.look = _BIG  # frees the ghost, whose finalizer writes again
            self.look = _Ghost("square", 2)  # held only by the slot
            _Ghost.entity = self
            self.look = _BIG

    def scenario() -> Any:
        world = World()
        try:
            haunted = world.spawn(Haunted())
            world.tick()
            return _shown_state(haunted), world.state_hash()
        finally:
            _Ghost.entity = None
            world.close()

    found = _on_every_path(scenario)
    assert found[1][0][0][0] == repr(_OTHER)


class _Spent(Look):
    """A committed look whose release clears the list the commit walks."""

    lists: list[list[Any]] = []

    def __del__(self) -> None:
        for each in type(self).lists:
            each.clear()


def _commit_cases() -> list[Callable[..., None]]:
    from engine.buffering.shown import commit_shown

    return [commit_shown, *([compiled._core.commit_shown] if ACCELERATED else [])]


def _settled(count: int) -> list[Entity]:
    """Entities as the settle leaves those whose update set a look: the committed one in ``_look``, the pending
    one in ``_blook``."""
    entities = [Entity() for _ in range(count)]
    for entity in entities:
        entity._blook = _BIG
    return entities


@pytest.mark.parametrize("undoable", [False, True])
def test_a_look_whose_release_empties_the_commits_list_gives_the_same_entities(undoable):
    outcomes = []
    for commit in _commit_cases():
        entities = _settled(4)
        for index, entity in enumerate(entities):
            entity._look = _Spent("square", index + 1)  # only the slot holds it
        settled = list(entities)
        written: list[Any] | None = [] if undoable else None
        _Spent.lists = [settled]
        try:
            outcome = _outcome(lambda: commit(settled, written))
        finally:
            _Spent.lists = []
        outcomes.append((outcome, [repr(entity._look) for entity in entities], len(settled),
                         None if written is None else [(row[0] is entities[i], repr(row[1]))
                                                       for i, row in enumerate(written)]))
    for other in outcomes[1:]:
        assert other == outcomes[0]


def test_a_gc_hook_that_rewrites_pending_looks_during_the_commit_gives_the_same_entities():
    outcomes = []
    for commit in _commit_cases():
        entities = _settled(50)
        for index, entity in enumerate(entities):
            entity._blook = Look("square", index + 1)

        def hook(phase: str, info: dict[str, Any], entities: list[Entity] = entities) -> None:
            for entity in entities:  # a pending look the commit has not reached yet changes, a committed one goes
                if entity._look is None:
                    entity._blook = _SMALL if len(gc.callbacks) % 2 else _OTHER
                    entity._parts = (Part(Look("square", len(entities))),)  # the one before is freed

        written: list[Any] = []
        gc.callbacks.append(hook)
        gc.set_threshold(1, 1, 1)
        try:
            outcome = _outcome(lambda: commit(list(entities), written))
        finally:
            gc.callbacks.remove(hook)
            gc.set_threshold(*_THRESHOLD)
        outcomes.append((outcome, [repr(entity._look) for entity in entities],
                         [(repr(look), repr(parts)) for _, look, parts in written]))
    for other in outcomes[1:]:
        assert other[1:] == outcomes[0][1:]


_THRESHOLD = gc.get_threshold()


@needs_core
def test_the_cores_commit_shown_refuses_what_it_was_not_given_and_frees_nothing_twice():
    core = compiled._core
    entity = Entity()
    entity._blook = _BIG
    refusals = [
        (((entity,), None), TypeError, "settled must be a list"),
        (([entity], ()), TypeError, "written must be a list"),
        (([object()], None), TypeError, "expected an Entity, got object"),
        (([entity], None, None), TypeError, "takes 2 arguments"),
    ]
    for arguments, error, message in refusals:
        with pytest.raises(error, match=message):
            core.commit_shown(*arguments)
        assert entity._blook is _BIG and entity._look is None
    other = Entity()
    other._bparts = (Part(_SMALL),)
    written: list[Any] = []
    core.commit_shown([entity, other], written)
    assert written == [(entity, None, None), (other, None, None)]
    assert (entity._look, entity._parts, other._look, other._parts) == (_BIG, None, None, (Part(_SMALL),))
    del entity._blook
    with pytest.raises(AttributeError, match="_blook"):
        core.commit_shown([entity], [])
    with pytest.raises(AttributeError, match="_blook"):
        core.commit_shown([entity], None)
    assert entity._look is _BIG


@needs_core
def test_a_shown_field_of_the_core_unbound_or_misbound_is_refused_and_never_reads_a_slot():
    core = compiled._core
    field = core.ShownField()
    entity = Entity()
    with pytest.raises(AttributeError, match="read"):
        field.__get__(entity, Entity)
    with pytest.raises(RuntimeError, match="set before bind"):
        field.__set__(entity, _BIG)
    from engine.buffering.shown import FOLLOW, HIDDEN

    good = ("_look", "_class_look", lambda kind, value: value, Look, None, HIDDEN, FOLLOW)
    for bad, error in [(("_blook",), ValueError), (("x",), ValueError), ((1,), ValueError),
                       (("_look", 3), TypeError), (("_look", "_c", None), TypeError),
                       (("_look", "_c", len, 5), TypeError)]:
        with pytest.raises(error):
            field.bind(*bad, *good[len(bad):])
        with pytest.raises(RuntimeError, match="set before bind"):
            field.__set__(entity, _BIG)
    with pytest.raises(TypeError, match="7 arguments"):
        field.bind(*good[:6])
    field.bind(*good)
    field.bind(*good)  # again: the references change hands
    assert field.__get__(entity, Entity) is None  # Entity shows no look of its own
    with pytest.raises(AttributeError, match="store"):
        field.__set__(entity, _BIG)  # never spawned: the Python store, which a bare core field lacks
    assert entity._look is None


@needs_core
def test_a_look_set_by_the_entity_a_settler_handed_out_is_pending_until_it_is_settled():
    state = _core_state()
    with World() as world:
        blinker = world.spawn(_Blinker())
        blinker._wstate = state  # the bare state's: its own update's write, as long as it names the blinker
        shown: list[Any] = []
        settler = compiled._core.Settler([blinker], [], [], state, shown)
        assert next(settler) is blinker
        blinker.look = _OTHER  # its own write: pending, in the slot it reads
        assert (blinker.look, blinker._blook, shown) == (_OTHER, None, [])
        with pytest.raises(StopIteration):
            next(settler)  # settled: the committed look back where everyone reads it, the pending one aside
        assert (blinker.look, blinker._blook, shown) == (_SMALL, _OTHER, [blinker])
        compiled._core.commit_shown(shown, None)
        assert (blinker.look, blinker._look, blinker._blook) == (_OTHER, _OTHER, _OTHER)
        closed = compiled._core.Settler([blinker], [], [], state, [])
        assert next(closed) is blinker
        closed.close()
        assert closed.current is blinker and state.updating is None
        with pytest.raises(StopIteration):
            next(closed)
        state.ticking = False
        blinker.look = _SMALL  # between ticks: committed at once
        assert (blinker._look, blinker._blook) == (_SMALL, _SMALL)


# -- entity generators: their state saved in one copy ------------------------------------------------


class _Gambler(Entity):
    """Draws past a regeneration of its generator's whole state (624 words), then fails in tick 3."""

    def update(self, world: World) -> None:
        self.x = sum(self.random.random() for _ in range(700))
        if world.tick_count == 2:
            raise RuntimeError("after the draws")


def test_a_failed_tick_rewinds_a_generator_drawn_past_a_regeneration_alike():
    def scenario() -> Any:
        with World(seed=9) as world:
            gamblers = [world.spawn(_Gambler()) for _ in range(3)]
            seen: list[Any] = []
            for _ in range(4):
                seen.append(_outcome(world.tick))
                seen.append([gambler.random.getstate() for gambler in gamblers])
            return seen, world.state_hash()

    seen, _hash = _on_every_path(scenario)[1]
    assert seen[4][:2] == ("error", "EntityUpdateError") and seen[5] == seen[3]  # tick 3 taken back, draws too


@needs_core
def test_the_cores_generator_copy_round_trips_and_refuses_what_it_did_not_make():
    import random

    core = compiled._core
    generator = random.Random(5)
    kept = core.random_snapshot(generator)
    drawn = [generator.random() for _ in range(1300)]
    core.random_restore(generator, kept)
    assert [generator.random() for _ in range(1300)] == drawn
    with pytest.raises(TypeError, match="expected a random.Random"):
        core.random_snapshot(object())
    before = generator.getstate()
    for bad in (b"", kept[:-1], kept + b"\0", bytearray(kept), b"\xff\xff\xff\x7f" + kept[4:]):
        with pytest.raises(ValueError, match="not a snapshot"):
            core.random_restore(generator, bad)
    assert generator.getstate() == before  # a refusal writes nothing


class _Pinged(Entity):
    """Receives valued signals: summed."""

    from engine import signal as _signal

    pings = _signal(sum)


class _OddId(Entity):
    """Sends a signal while its ``id`` (a class's own property) raises: the send must fail whole."""

    def __init__(self, target: Any) -> None:
        self.broken = False
        super().__init__()
        self.target = target

    @property
    def id(self) -> Any:
        if self.broken:
            raise LookupError("no id today")
        return self.__dict__.get("_odd_id")

    @id.setter
    def id(self, value: Any) -> None:
        self.__dict__["_odd_id"] = value

    def update(self, world: Any) -> None:
        self.target.pings.send(2.5)


def test_a_send_whose_senders_id_raises_fails_the_tick_and_leaves_no_half_contribution():
    def scenario() -> Any:
        with World() as world:
            target = world.spawn(_Pinged())
            sender = world.spawn(_OddId(target))
            world.tick()
            sender.broken = True
            failed = _outcome(world.tick)
            sender.broken = False
            world.tick()
            return failed, target.pings.value, world.state_hash()

    failed, value, _hash = _on_every_path(scenario)[1]
    assert failed[0] == "error" and "no id today" in failed[2]  # the same error on both paths
    assert value == 2.5  # the failed tick's send was dropped, whole; the next tick's arrived


def test_signals_sent_after_a_rollback_and_after_a_swap_are_delivered():
    """The buffers replace the next buffer's lists at each swap and rollback: a send must reach the new ones."""

    def scenario() -> Any:
        with World() as world:
            target = world.spawn(_Pinged())
            kept = world.checkpoint()
            target.pings.send(1)  # between ticks: delivered by the next tick's swap
            world.tick()
            world.rollback(kept)
            target.pings.send(2)
            world.tick()  # its swap delivers what was sent before it
            after_rollback = target.pings.value
            target.pings.send(3)
            world.tick()
            return after_rollback, target.pings.value, world.state_hash()

    after_rollback, after_swap, _hash = _on_every_path(scenario)[1]
    assert (after_rollback, after_swap) == (2, 3)


@needs_core
def test_the_cores_signal_sink_refuses_what_is_not_its_lists_and_its_calls():
    core = compiled._core
    state = core.TickState(lambda *args: None)
    lists: list[list[Any]] = [[], [], [], []]
    with pytest.raises(TypeError):
        core.SignalSink(object(), *lists)
    with pytest.raises(TypeError):
        core.SignalSink(state, [], (), [], [])
    with pytest.raises(TypeError, match="must be lists"):
        core.SignalSink(state, [], [], type("L", (list,), {})(), [])
    sink = core.SignalSink(state, *lists)
    for bad in ((), (1, 2), (1, 2, 3, 4)):
        with pytest.raises(TypeError, match="takes 3 positional arguments"):
            sink(*bad)
    with pytest.raises(TypeError, match="takes 3 positional arguments"):
        sink(1, 2, value=3)
    sink("receiver", "name", 7)  # nobody updating: the sender is -1
    assert lists == [["receiver"], ["name"], [-1], [7]]
    del state, lists
    gc.collect()
    sink("r", "n", 8)  # it holds what it appends to


class _Fielded(Entity):
    """Buffered fields of its own: not motion-only."""

    hp = buffered(3)


@needs_core
@pytest.mark.parametrize("kind", [Entity, _Fielded])
def test_the_cores_init_entity_leaves_every_slot_as_the_pure_twin_does(kind, monkeypatch):
    import engine.buffering.buffers as buffers
    from engine.buffering.slots import SLOT_NAMES

    def slots(entity: Entity) -> list[Any]:
        return [(name, repr(getattr(entity, name, "<missing>"))) for name in SLOT_NAMES if not name.startswith("__")]

    compiled_made = kind(1.5, -2, 30.0)
    monkeypatch.setattr(buffers, "_core", None)
    pure_made = kind(1.5, -2, 30.0)
    assert slots(compiled_made) == slots(pure_made)
    assert compiled_made._signals is pure_made._signals and compiled_made._bx is compiled_made.x


@needs_core
def test_the_cores_init_entity_refuses_what_is_not_an_entity_and_releases_what_it_replaces():
    core = compiled._core
    from engine.buffering.access import NO_SIGNALS

    with pytest.raises(TypeError, match="expected an Entity"):
        core.init_entity(object(), True, NO_SIGNALS)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        core.init_entity(Entity())
    with pytest.raises(TypeError, match="motion_only must be a bool"):
        core.init_entity(Entity(), 1, NO_SIGNALS)
    bare = Entity.__new__(Entity)  # no x yet: refused as reading it in Python would be
    with pytest.raises(AttributeError, match="x"):
        core.init_entity(bare, True, NO_SIGNALS)

    released: list[str] = []

    class _Noisy:
        def __del__(self) -> None:
            released.append("old")

    entity = Entity()
    cast(Any, entity)._random = _Noisy()
    core.init_entity(entity, True, NO_SIGNALS)
    assert released == ["old"] and entity._random is None and entity._prev_tick == -1


class _Odd:
    """Not an entity: ``fill_missing`` reads and writes through the attribute protocol only."""

    @property
    def broken(self) -> Any:
        raise ValueError("not today")

    @property
    def absent(self) -> Any:
        raise AttributeError("absent")


@pytest.mark.parametrize("before", [{}, {"angle": -0.0}, {"angle": 7, "y": 2}])
def test_fill_missing_on_an_entitys_own_slots_is_hasattr_then_setattr_on_both_paths(before, monkeypatch):
    import engine.buffering.buffers as buffers
    from engine.buffering.slots import SLOT_NAMES

    pairs = (("angle", 0.0), ("x", 1.5), ("y", 3), ("_random", "r"), ("hp", 4))
    made = []
    for core in ([compiled._core] if ACCELERATED else []) + [None]:
        monkeypatch.setattr(buffers, "_core", core)
        entity = _Fielded.__new__(_Fielded)  # no Entity.__init__: its slots empty, as a new entity's
        for name, value in before.items():
            setattr(entity, name, value)
        buffers.fill_missing(entity, pairs)
        made.append([(name, repr(getattr(entity, name, "<missing>"))) for name in (*SLOT_NAMES[:-2], "hp")])
    assert all(each == made[0] for each in made)
    assert dict(made[0])["angle"] == repr(before.get("angle", 0.0)) and dict(made[0])["_random"] == "'r'"


@pytest.mark.parametrize("pairs", [(("a", 1), ("b", [2])), (("absent", 3),), (("a", 1), ("broken", 4), ("c", 5))],
                         ids=["plain", "an AttributeError is missing", "another error stops it"])
def test_fill_missing_is_hasattr_then_setattr_on_both_paths(pairs, monkeypatch):
    import engine.buffering.buffers as buffers

    outcomes = []
    for core in ([compiled._core] if ACCELERATED else []) + [None]:
        monkeypatch.setattr(buffers, "_core", core)
        target = _Odd()
        cast(Any, target).b = "kept"  # set before: stands
        outcome = _outcome(functools.partial(buffers.fill_missing, cast(Any, target), pairs))
        outcomes.append((outcome, dict(vars(target))))
    assert all(other == outcomes[0] for other in outcomes)
    assert outcomes[0][1]["b"] == "kept"


@needs_core
@pytest.mark.parametrize("pairs", [[("a", 1)], (("a", 1, 2),), ((1, 2),), ("ab",)])
def test_the_cores_fill_missing_refuses_pairs_that_are_not_name_default_tuples(pairs):
    target = _Odd()
    with pytest.raises(TypeError, match="fill_missing: "):
        compiled._core.fill_missing(target, pairs)


def test_a_subclass_value_set_before_entitys_init_stands_and_the_rest_get_their_defaults():
    class Hero(Entity):
        hp = buffered(10)
        mana = buffered(5)

        def __init__(self) -> None:
            self.mana = 99
            self.angle = 45.0
            super().__init__(1.0, 2.0)

    def scenario() -> Any:
        with World() as world:
            hero = world.spawn(Hero())
            world.tick()
            return hero.hp, hero.mana, hero.angle, world.state_hash()

    assert _on_every_path(scenario)[1][:3] == (10, 99, 45.0)


class _Twin(Entity):
    """Receivers equal by a key of their own: a dict groups their contributions together, on both paths."""

    from engine import signal as _signal

    pings = _signal(tuple)

    def __init__(self, key: int) -> None:
        super().__init__()
        self.key = key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Twin) and other.key == self.key

    def __hash__(self) -> int:
        return self.key


class _Pinger(Entity):
    """Sends its number to each receiver, from its update: contributions in the canonical order."""

    def __init__(self, number: int, receivers: list[Any]) -> None:
        super().__init__()
        self.number, self.receivers = number, receivers

    def update(self, world: Any) -> None:
        for receiver in self.receivers:
            receiver.pings.send(self.number)


def test_grouping_the_contributions_gives_the_same_on_both_paths_with_receivers_equal_and_shuffled():
    def scenario() -> Any:
        import random

        with World() as world:
            receivers = [world.spawn(_Twin(key % 2)) for key in range(3)]
            for number in range(6):
                world.spawn(_Pinger(number, receivers[number % 3:]))
            world.shuffle_order(random.Random(4))  # the contributions come out of order: sorted by sender
            world.tick()
            return [receiver.pings.value for receiver in receivers], world.state_hash()

    values, _hash = _on_every_path(scenario)[1]
    assert values[2] == ()  # equal to receivers[0]: its contributions were grouped under the first
    assert values[0] and values[1]


@needs_core
def test_the_cores_grouping_refuses_what_is_not_its_lists_and_indices():
    core = compiled._core
    target = Entity()
    target.alive = True
    lists = ([target], ["pings"], [1])
    assert core.group_signals(*lists, 1) == {target: {"pings": [1]}}
    assert core.group_signals(*lists, [0, 0]) == {target: {"pings": [1, 1]}}
    assert core.group_signals(*lists, 0) == {}
    for ranked, error in [(-1, ValueError), ([1], IndexError), ([-1], IndexError), (2, IndexError),
                          (["0"], TypeError), ((0,), TypeError), (None, TypeError), ([True], TypeError)]:
        with pytest.raises(error):
            core.group_signals(*lists, ranked)
    with pytest.raises(TypeError, match="must be a list"):
        core.group_signals((target,), ["pings"], [1], 1)
    with pytest.raises(IndexError):
        core.group_signals([target], [], [1], 1)
    with pytest.raises(IndexError):
        core.group_signals([target], ["pings"], [], 1)


class _Fickle:
    """A receiver (not an entity: an entity's ``alive`` is the engine's) whose ``alive`` empties the lists."""

    lists: list[list[Any]] = []

    @property
    def alive(self) -> bool:
        for each in _Fickle.lists:
            each.clear()
        return True


@needs_core
def test_the_cores_grouping_survives_an_alive_that_empties_the_lists():
    core = compiled._core
    target = _Fickle()
    receivers, names, values = [target, target], ["a", "a"], [1, 2]
    _Fickle.lists = [receivers, names, values]
    try:
        with pytest.raises(IndexError):
            core.group_signals(receivers, names, values, 2)
    finally:
        _Fickle.lists = []


class _Mover(Entity):
    """Moves, and sends a signal its receiver combines (or fails to, when ``bad``)."""

    from engine import signal as _signal

    total = _signal(sum)

    def __init__(self) -> None:
        super().__init__()
        self.to: _Mover | None = None
        self.bad = False

    def update(self, world: Any) -> None:
        self.x += 1.0
        if self.to is not None:
            self.to.total.send("a string" if self.bad else 1.5)


@pytest.mark.parametrize("late", [False, True], ids=["no system after the updates", "a system after them"])
def test_a_tick_with_signals_commits_and_records_alike_and_a_failing_combine_leaves_nothing(late):
    """The signals are combined before the commit when no system runs after the updates (the commit then records
    the previous values in its pass): previous values, hashes and a failed combine's refusal as before."""

    def scenario() -> Any:
        with World() as world:
            first, second = world.spawn(_Mover()), world.spawn(_Mover())
            first.to = second
            if late:
                world.add_processor(type("Late", (esper.Processor,), {"process": lambda self: None})(), priority=-1)
            seen: list[Any] = []
            for _ in range(3):
                world.tick()
                seen.append([(e.x, e.prev_x, e._prev_tick, e.total.value) for e in (first, second)])
            first.bad = True
            seen.append(_outcome(world.tick))
            seen.append([(e.x, e.prev_x, e._prev_tick, e.total.value) for e in (first, second)])
            first.bad = False
            world.tick()
            seen.append([(e.x, e.prev_x, e._prev_tick, e.total.value) for e in (first, second)])
            return seen, world.state_hash()

    seen, _hash = _on_every_path(scenario)[1]
    assert seen[2] == [(3.0, 2.0, 3, 0), (3.0, 2.0, 3, 1.5)]
    assert seen[3][:2] == ("error", "EntityUpdateError") and seen[4] == seen[2]  # nothing committed, nothing recorded
    assert seen[5] == [(4.0, 3.0, 4, 0), (4.0, 3.0, 4, 1.5)]


class _Shower(_Mover):
    """Moves, shows a new look each tick and sends a signal: a failing combine must take the look back too."""

    def update(self, world: Any) -> None:
        self.look = Look("square", 2.0 + self.x)
        super().update(world)


def test_a_failing_combine_takes_back_a_look_set_in_the_same_tick_on_both_paths():
    def scenario() -> Any:
        with World() as world:
            first, second = world.spawn(_Shower()), world.spawn(_Shower())
            first.to = second
            world.tick()
            before = [(e.x, repr(e.look)) for e in (first, second)]
            first.bad = True
            failed = _outcome(world.tick)
            after = [(e.x, repr(e.look)) for e in (first, second)]
            return before, failed[:2], after, world.state_hash()

    before, failed, after, _hash = _on_every_path(scenario)[1]
    assert failed == ("error", "EntityUpdateError") and after == before


class _Signalled(Entity):
    """A valued signal and a flag, read and sent through both paths' code."""

    pings = signal(sum)
    hit = signal()


class _Flaky:
    """An ``alive`` whose truth raises, or drops the inbox's name on the way."""

    def __init__(self, inbox: Any = None) -> None:
        self.inbox = inbox

    def __bool__(self) -> bool:
        if self.inbox is None:
            raise ValueError("not sure")
        del self.inbox._name
        return True


def _signal_cases() -> dict[str, Callable[[Callable[..., Any], Callable[..., Any]], Any]]:
    """Scenarios, each given a ``read(entity, name)`` and a ``send(inbox, value)``: one path's code for both."""

    def spawned(read: Callable[..., Any], send: Callable[..., Any]) -> Any:
        with World() as world:
            target = world.spawn(_Signalled())
            inbox = read(target, "pings")
            send(inbox, 2)
            send(inbox, 3.5)
            world.tick()
            return read(target, "pings") is inbox, inbox.value, read(target, "hit"), world.state_hash()

    def unspawned(read: Callable[..., Any], send: Callable[..., Any]) -> Any:
        target = _Signalled()
        inbox = read(target, "pings")
        return send(inbox, 1), inbox.value, read(target, "hit"), read(target, "pings") is inbox

    def despawned(read: Callable[..., Any], send: Callable[..., Any]) -> Any:
        with World() as world:
            target = world.spawn(_Signalled())
            inbox = read(target, "pings")
            world.despawn(target)
            send(inbox, 1)
            return world.state_hash(), inbox.value

    def alive_raises(read: Callable[..., Any], send: Callable[..., Any]) -> Any:
        with World() as world:
            target = world.spawn(_Signalled())
            inbox = read(target, "pings")
            cast(Any, target).alive = _Flaky()
            return send(inbox, 1)

    def alive_drops_the_name(read: Callable[..., Any], send: Callable[..., Any]) -> Any:
        with World() as world:
            target = world.spawn(_Signalled())
            inbox = read(target, "pings")
            cast(Any, target).alive = _Flaky(inbox)
            return send(inbox, 1)

    def state_without_a_sink(read: Callable[..., Any], send: Callable[..., Any]) -> Any:
        target = _Signalled()
        inbox = read(target, "pings")
        cast(Any, target).alive = True
        cast(Any, target)._wstate = type("State", (), {"signals": None})()
        return send(inbox, 1)

    def state_of_ones_own(read: Callable[..., Any], send: Callable[..., Any]) -> Any:
        got: list[Any] = []
        target = _Signalled()
        inbox = read(target, "pings")
        cast(Any, target)._wstate = type("State", (), {"signals": staticmethod(lambda *args: got.append(args))})()
        for alive, value in ((1, 5), (0, 6), (False, 7), ((), 8), ("yes", 9)):
            cast(Any, target).alive = alive
            send(inbox, value)
        return [(receiver is target, name, value) for receiver, name, value in got]

    def odd_inboxes_and_signals(read: Callable[..., Any], send: Callable[..., Any]) -> Any:
        target = _Signalled()
        cast(Any, target)._signals = ["hit"]  # a list: ``in`` as Python asks it
        cast(Any, target)._inboxes = type("Inboxes", (dict,), {})()  # not a dict exactly: made the slow way
        inbox = read(target, "pings")
        return read(target, "hit"), type(inbox).__name__, read(target, "pings") is inbox

    def no_slots_yet(read: Callable[..., Any], send: Callable[..., Any]) -> Any:
        bare = _Signalled.__new__(_Signalled)  # its __init__ never ran: no _signals, no _inboxes
        outcomes = [_outcome(lambda: read(bare, "hit")), _outcome(lambda: read(bare, "pings"))]
        kind: Any = type(read(_Signalled(), "pings"))
        empty = kind.__new__(kind)
        outcomes.append(_outcome(lambda: send(empty, 1)))
        return outcomes

    return {name: case for name, case in locals().items() if callable(case)}


@needs_core
@pytest.mark.parametrize("case", sorted(_signal_cases()))
def test_the_cores_signal_read_and_send_are_their_pure_twins(case: str) -> None:
    from engine.buffering import fields

    scenario = _signal_cases()[case]

    def compiled_read(entity: Any, name: str) -> Any:
        return getattr(entity, name)

    def pure_read(entity: Any, name: str) -> Any:
        return fields._PureSignalField.__get__(vars(_Signalled)[name], entity, _Signalled)

    compiled_outcome = _outcome(lambda: scenario(compiled_read, fields.SignalInbox.send))
    pure_outcome = _outcome(lambda: scenario(pure_read, fields._PureInbox.send))
    assert compiled_outcome == pure_outcome
    gc.collect()


@needs_core
def test_reading_and_sending_a_signal_runs_in_the_core() -> None:
    from engine.buffering import fields

    assert isinstance(vars(_Signalled)["pings"], compiled._core.SignalField)
    assert fields.SignalInbox.send is compiled._core.SignalInboxBase.send
    assert type(vars(compiled._core.SignalField)["__get__"]).__name__ == "wrapper_descriptor"  # C, not a function


class _Id(int):
    """A sender id that is an int of a class of its own: its comparisons are Python's to make, and are counted."""

    asked: list[str] = []

    def __le__(self, other: object) -> bool:
        _Id.asked.append("le")
        return int(self) <= cast(int, other)

    def __lt__(self, other: object) -> bool:
        _Id.asked.append("lt")
        return int(self) < cast(int, other)


@needs_core
@pytest.mark.parametrize("senders", [[], [4], [-1, -1, 2, 2, 7], [3, 1, 2], [1, 2**70, 2**70 + 1, -2], [2**70, 5],
                                     [1, 2, _Id(3), 4], [2, 1, _Id(0)], [1, _Id(5), 3], [1, 2, "x"]],
                         ids=repr)
def test_the_compiled_canonical_order_is_the_pure_ones_and_asks_the_same_comparisons(senders):
    outcomes = []
    for kind in PATHS:
        buffers = kind()
        buffers._from = list(senders)
        _Id.asked = []
        outcome = _outcome(lambda: list(buffers._canonical()))
        outcomes.append((outcome, _Id.asked))
    assert all(each == outcomes[0] for each in outcomes)
