"""The collision grid's two paths: the compiled ``engine._spatial`` and its pure twin give the same answers.

Every query is asked of both on the same table and levels, and of a brute-force loop over
the table: the cells must never lose a box, and both paths must agree to the entity, in
the same order, NaN, infinite, huge, negative and zero sizes included. Then hostile input
against the compiled entry points (bad buffers, wrong types, code that mutates what a call
holds while it runs): the core never crashes, and where the pure twin takes the same input
both give the same outcome. CI runs this file under ASAN/UBSAN and ``PYTHONMALLOC=debug``
(``.ci/sanitize``): keep it fast.
"""

from __future__ import annotations

import gc
import math
import os
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from engine import spatial
from engine.spatial import PyGrid, PyTable, grid_levels, py_gather

CORE: Any = spatial._core
needs_core = pytest.mark.skipif(CORE is None, reason="engine._spatial is not built here (or TICKSWAP_PURE is set)")


def test_the_core_is_built_where_ci_requires_it():
    if os.environ.get("TICKSWAP_REQUIRE_CORE", "") not in ("", "0"):
        assert CORE is not None, "TICKSWAP_REQUIRE_CORE is set but engine._spatial did not load"


class Thing:
    """What a table holds: anything with an id (the grid reads nothing else of it)."""

    def __init__(self, identity: int) -> None:
        self.id = identity

    def __repr__(self) -> str:
        return f"Thing({self.id})"


SPECIAL = [0.0, -0.0, 1e300, -1e300, math.inf, -math.inf, math.nan, 5e-324, 2.0**40, -(2.0**40)]


def _number(rng: random.Random, spread: float) -> float:
    roll = rng.random()
    if roll < 0.08:
        return rng.choice(SPECIAL)
    if roll < 0.15:
        return rng.uniform(-1e9, 1e9)
    return rng.uniform(-spread, spread)


def _size(rng: random.Random) -> float:
    roll = rng.random()
    if roll < 0.05:
        return rng.choice([0.0, math.inf, 1e300, 5e-324])
    if roll < 0.15:
        return rng.uniform(100.0, 700.0)  # the big boxes: range rings, bars
    return rng.choice([0.0, 2.0, 4.0, 8.0, 16.0, rng.uniform(0.0, 40.0)])


class Scene:
    """One random table, a grid of a random subset of it on every path, and a brute-force oracle."""

    def __init__(self, seed: int, count: int = 120, spread: float = 400.0) -> None:
        rng = random.Random(seed)
        self.rng, self.spread = rng, spread
        self.things = [Thing(n * 3 + 1) for n in range(count)]
        self.ids = np.array([thing.id for thing in self.things], dtype=np.int64)
        self.x = np.array([_number(rng, spread) for _ in range(count)])
        self.y = np.array([_number(rng, spread) for _ in range(count)])
        self.half_width = np.array([_size(rng) / 2 for _ in range(count)])
        self.half_height = np.array([_size(rng) / 2 for _ in range(count)])
        self.boxed = np.array([rng.random() < 0.85 for _ in range(count)], dtype=bool)
        self.slots = np.array(sorted(rng.sample(range(count), rng.randint(0, count))), dtype=np.int32)
        levels, everywhere = grid_levels(self.x, self.y, self.half_width, self.half_height, self.boxed, self.slots)
        self.levels, self.everywhere = levels, everywhere
        columns = (self.things, self.ids, self.x, self.y, self.half_width, self.half_height, self.boxed)
        self.grids: list[Any] = [PyGrid(PyTable(*columns), levels, everywhere)]
        if CORE is not None:
            self.grids.append(CORE.Grid(CORE.Table(*columns), levels, everywhere))
            # Unbuilt: every slot tested for the first five queries, then the cells built (mid-test).
            self.grids.append(CORE.build(CORE.Table(*columns), self.slots, spatial.MAX_LEVELS, 5 * len(self.slots)))

    def brute(self, x: float, y: float, half_width: float, half_height: float, skip: int = -1) -> list[Thing]:
        xs, ys, widths, heights = (values.tolist() for values in (self.x, self.y, self.half_width,
                                                                  self.half_height))
        return [self.things[s] for s in self.slots.tolist()
                if self.boxed[s] and s != skip and abs(xs[s] - x) < widths[s] + half_width
                and abs(ys[s] - y) < heights[s] + half_height]

    def brute_near(self, x: float, y: float, radius: float) -> list[Thing]:
        found = []
        for s in self.slots.tolist():
            dx, dy = float(self.x[s]) - x, float(self.y[s]) - y
            if abs(dx) <= radius and abs(dy) <= radius and math.hypot(dx, dy) <= radius:
                found.append(self.things[s])
        return found

    def box(self) -> tuple[float, float, float, float]:
        rng = self.rng
        return _number(rng, self.spread), _number(rng, self.spread), _size(rng) / 2, _size(rng) / 2


@pytest.mark.parametrize("seed", range(40))
def test_every_path_and_brute_force_agree_on_random_boxes(seed):
    scene = Scene(seed)
    for _ in range(60):
        x, y, half_width, half_height = scene.box()
        expected = scene.brute(x, y, half_width, half_height)
        for grid in scene.grids:
            assert grid.overlapping_box(x, y, half_width, half_height) == expected, (type(grid), x, y)
        radius = abs(scene.box()[2])
        expected = scene.brute_near(x, y, radius)
        for grid in scene.grids:
            assert grid.near(x, y, radius) == expected, (type(grid), x, y, radius)
    for slot in scene.slots.tolist():
        thing = scene.things[slot]
        if scene.boxed[slot]:
            expected = scene.brute(float(scene.x[slot]), float(scene.y[slot]), float(scene.half_width[slot]),
                                   float(scene.half_height[slot]), slot)
        else:
            expected = []
        for grid in scene.grids:
            assert grid.overlapping(thing) == expected
            excluded = grid.overlapping_box(float(scene.x[slot]), float(scene.y[slot]), 1.0, 1.0, thing)
            assert thing not in excluded
        x, y = float(scene.x[slot]), float(scene.y[slot])
        expected = [found for found in scene.brute_near(x, y, 30.0) if found is not thing]
        for grid in scene.grids:
            assert grid.near(x, y, 30.0, thing) == expected, (type(grid), slot)
            assert grid.near(x, y, 30.0, None) == scene.brute_near(x, y, 30.0)


@pytest.mark.parametrize("seed", range(12))
def test_a_crowds_members_against_a_grid_are_the_same_pairs_on_every_path(seed):
    scene = Scene(seed, spread=200.0)
    rng = random.Random(seed)
    with np.errstate(over="ignore"):  # 1e300 as float32 is infinite, as a crowd would hold it
        positions = np.array([[_number(rng, 200.0), _number(rng, 200.0)] for _ in range(150)], dtype=np.float32)
    expected_members, expected_things = [], []
    for member, (x, y) in enumerate(positions.astype(np.float64).tolist()):
        hits = scene.brute(x, y, 2.0, 3.0)
        expected_members += [member] * len(hits)
        expected_things += hits
    for grid in scene.grids:
        members, things = grid.members(positions, len(positions), 2.0, 3.0)
        assert np.frombuffer(members, dtype=np.int64).tolist() == expected_members
        assert things == expected_things


def test_a_query_past_every_cell_or_at_nan_is_answered_and_the_same_everywhere():
    scene = Scene(3, count=200)
    for x, y, w, h in [(1e300, 0.0, 1.0, 1.0), (0.0, 0.0, math.inf, 1.0), (math.nan, 0.0, 1.0, 1.0),
                       (0.0, math.nan, 1.0, 1.0), (-math.inf, math.inf, 0.0, 0.0), (2.0**62, -(2.0**62), 1e20, 1e20),
                       (0.0, 0.0, 0.0, 0.0), (5e-324, -5e-324, 5e-324, 5e-324)]:
        answers = [grid.overlapping_box(x, y, w, h) for grid in scene.grids]
        assert all(answer == scene.brute(x, y, w, h) for answer in answers)
        answers = [grid.near(x, y, w) for grid in scene.grids]
        assert all(answer == scene.brute_near(x, y, w) for answer in answers)


@needs_core
@pytest.mark.parametrize("seed", range(6))
def test_an_unbuilt_grid_tests_every_slot_until_its_budget_is_spent_then_has_the_levels_build_gives(seed):
    scene = Scene(seed, count=200)
    table = CORE.Table(scene.things, scene.ids, scene.x, scene.y, scene.half_width, scene.half_height, scene.boxed)
    built = CORE.build(table, scene.slots, spatial.MAX_LEVELS)
    lazy = CORE.build(table, scene.slots, spatial.MAX_LEVELS, 2 * len(scene.slots))
    assert len(lazy) == len(built) == len(scene.slots)
    lazy_levels, lazy_everywhere = lazy.levels
    assert lazy_levels == [] and np.frombuffer(lazy_everywhere, dtype=np.int32).tolist() == scene.slots.tolist(), \
        "unbuilt: every slot everywhere"
    for _ in range(3):  # two queries spend the budget; the third builds the levels first
        x, y, half_width, half_height = scene.box()
        assert lazy.overlapping_box(x, y, half_width, half_height) == scene.brute(x, y, half_width, half_height)
    assert lazy.levels == built.levels, "the levels, byte for byte, that build gives without a budget"


@needs_core
@pytest.mark.parametrize("budget", [-1, "many", 2.0])
def test_the_cores_build_refuses_a_bad_budget(budget):
    scene = Scene(0, count=10)
    table = CORE.Table(scene.things, scene.ids, scene.x, scene.y, scene.half_width, scene.half_height, scene.boxed)
    with pytest.raises((TypeError, ValueError)):
        CORE.build(table, scene.slots, spatial.MAX_LEVELS, budget)


def test_big_boxes_go_to_coarser_levels_and_small_queries_never_test_them():
    # 300 small boxes and one 640 px bar far above them: the bar sits in a level of its own.
    count = 301
    x = np.array([float(n % 30) * 20.0 for n in range(300)] + [320.0])
    y = np.array([float(n // 30) * 20.0 for n in range(300)] + [5000.0])
    half = np.array([4.0] * 300 + [320.0])
    height = np.array([4.0] * 300 + [8.0])
    levels, everywhere = grid_levels(x, y, half, height, np.ones(count, dtype=bool), np.arange(count, dtype=np.int32))
    assert len(levels) == 2 and len(everywhere) == 0
    assert levels[0][-1].tolist().count(300) == 0 and levels[1][-1].tolist() == [300]
    grid = PyGrid(PyTable([Thing(n) for n in range(count)], np.arange(count), x, y, half, height,
                          np.ones(count, dtype=bool)), levels, everywhere)
    assert 300 not in grid._candidates(0.0, 4.0, 0.0, 4.0, False), "a small query far from the bar never sees it"
    assert 300 in grid._candidates(300.0, 304.0, 4996.0, 5000.0, False)
    assert len(grid._candidates(0.0, 4.0, 0.0, 4.0, False)) <= 4, "and only the few small boxes of its cells"


# -- the gather -------------------------------------------------------------------------------------------


GATHERS: list[Callable[..., Any]] = [py_gather, *([CORE.gather] if CORE is not None else [])]


class Mover:
    look: Any = "square"
    hitbox: Any = None

    def __init__(self, identity: Any, x: Any = 0.0, y: Any = 0.0) -> None:
        self.id, self.x, self.y = identity, x, y


def _gather(gather: Callable[..., Any], entities: Any, names: tuple[str, ...] = ("x", "y", "look", "hitbox"),
            count: int | None = None) -> tuple[Any, ...]:
    size = len(entities) if count is None else count
    xs, ys = np.zeros(size), np.zeros(size)
    ids = np.zeros(size, dtype=np.int64)
    looks, hitboxes, kinds = (np.zeros(size, dtype=np.int32) for _ in range(3))
    try:
        found = gather(entities, names, xs, ys, ids, looks, hitboxes, kinds)
    except Exception as error:
        return ("error", type(error).__name__, str(error))
    return ("ok", np.stack([xs, ys], axis=1).tolist(), ids.tolist(), looks.tolist(), hitboxes.tolist(), kinds.tolist(),
            [[id(value) for value in part] for part in found])


def _every_gather(make: Callable[[], Any], **options: Any) -> tuple[Any, ...]:
    outcomes = [_gather(gather, make(), **options) for gather in GATHERS]
    # Objects made by make() differ per call: compare what identity does not decide.
    shaped = [outcome if outcome[0] == "error" else outcome[:6] + (
        [len(part) for part in outcome[6]],) for outcome in outcomes]
    for other in shaped[1:]:
        assert other == shaped[0]
    return shaped[0]


def test_the_gather_reads_the_same_numbers_and_distinct_objects_on_every_path():
    shared_look, other_look = object(), object()

    class Other(Mover):
        look = other_look

    def make() -> list[Any]:
        movers: list[Any] = [Mover(n + 1, float(n), -n) for n in range(5)] + [Other(9, True, 2**60)]
        movers[1].look = shared_look
        movers[3].look = shared_look
        movers[2].hitbox = (3.0, 4.0)
        return movers

    outcome = _every_gather(make)
    assert outcome[0] == "ok"
    assert outcome[1][5] == [1.0, float(2**60)] and outcome[2] == [1, 2, 3, 4, 5, 9]
    assert outcome[3] == [0, 1, 0, 1, 0, 2], "looks by identity: the class's, the shared one, the other class's"
    assert outcome[4] == [0, 0, 1, 0, 0, 0] and outcome[5] == [0, 0, 0, 0, 0, 1]


@pytest.mark.parametrize("value", ["1.5", None, 1j, np.float32(1.5)])
def test_an_x_that_is_not_a_float_or_an_int_is_refused_alike(value):
    outcome = _every_gather(lambda: [Mover(1), Mover(2, value)])
    assert outcome[:2] == ("error", "TypeError") and "Mover's x is a" in outcome[2]


def test_an_overridden_float_is_never_called_and_the_value_is_read_as_it_is():
    class Sly(float):
        def __float__(self) -> float:
            raise AssertionError("never called")

    outcome = _every_gather(lambda: [Mover(1, Sly(2.5), 10**20)])
    assert outcome[0] == "ok" and outcome[1] == [[2.5, 1e20]]


def test_an_int_too_large_for_a_float_is_the_same_overflow_on_both_paths():
    assert _every_gather(lambda: [Mover(1, 10**400)])[:2] == ("error", "OverflowError")


def test_an_id_that_is_not_an_int_is_refused_alike():
    outcome = _every_gather(lambda: [Mover(None)])
    assert outcome[:2] == ("error", "TypeError") and "id is a NoneType" in outcome[2]


@pytest.mark.parametrize("bad", ["float32 x", "short ids", "read-only", "strided", "bytes"])
def test_the_gather_refuses_every_buffer_it_cannot_write_on_every_path(bad):
    movers = [Mover(1), Mover(2)]
    x, y, ids = np.zeros(2), np.zeros(2), np.zeros(2, dtype=np.int64)
    looks, hitboxes, kinds = (np.zeros(2, dtype=np.int32) for _ in range(3))
    if bad == "float32 x":
        x = np.zeros(2, dtype=np.float32)
    elif bad == "short ids":
        ids = np.zeros(1, dtype=np.int64)
    elif bad == "read-only":
        looks.flags.writeable = False
    elif bad == "strided":
        kinds = np.zeros(4, dtype=np.int32)[::2]
    else:
        hitboxes = bytes(8)  # type: ignore[assignment]
    for gather in GATHERS:
        with pytest.raises(TypeError, match="gather: "):
            gather(movers, ("x", "y", "look", "hitbox"), x, y, ids, looks, hitboxes, kinds)


def test_a_look_that_empties_the_list_being_gathered_gathers_every_entity_of_the_call():
    def make() -> list[Any]:
        movers: list[Any] = []

        class Emptying(Mover):
            @property
            def look(self) -> Any:
                movers.clear()
                gc.collect()
                return object()  # a new object each time: every entity its own, none freed under us

        movers.extend(Emptying(n + 1, float(n)) for n in range(6))
        return movers

    outcome = _every_gather(make)
    assert outcome[0] == "ok" and outcome[2] == [1, 2, 3, 4, 5, 6] and outcome[3] == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("lists", [False, True], ids=["numpy", "lists only"])
def test_the_tables_rows_are_the_entities_gathered_when_a_look_empties_the_list_given(lists, monkeypatch):
    if lists:
        monkeypatch.setattr(spatial, "_NUMPY", [False])
    movers: list[Any] = []

    class Emptying(Mover):
        @property
        def look(self) -> Any:
            movers.clear()
            return None

    movers.extend(Emptying(n + 1, float(n)) for n in range(4))
    gathered = list(movers)
    _static, moving = spatial.Boxes.gather(movers, False)
    assert moving.entities == tuple(gathered)
    assert all(moving.table.box(entity) is not False for entity in gathered), "each one found in the table"


def test_a_look_that_raises_is_the_error_of_the_call_on_every_path():
    class Broken(Mover):
        @property
        def look(self) -> Any:
            raise LookupError("no look here")

    assert _every_gather(lambda: [Mover(1), Broken(2)]) == ("error", "LookupError", "no look here")


# The core reads a class's slots at their offsets and calls its data descriptors' __get__ directly,
# found once per class and call (what getattr would do, without its walk): every way a class can
# make that differ from getattr, on both paths.


class Slotted:
    """Positions in slots, the look a property: what the core reads without getattr."""

    __slots__ = ("__dict__", "x", "y")
    hitbox: Any = None

    def __init__(self, identity: Any, x: Any = 0.0, y: Any = 0.0) -> None:
        self.id, self.x, self.y = identity, x, y

    @property
    def look(self) -> Any:
        return type(self).__name__


def test_slots_and_a_property_read_as_getattr_reads_them_with_an_own_hitbox_over_the_class():
    def make() -> list[Any]:
        things: list[Any] = [Slotted(n + 1, float(n), 2 * n) for n in range(4)] + [Mover(7, 1.5, -2.0)]
        things[2].hitbox = (1.0, 2.0)
        return things

    outcome = _every_gather(make)
    assert outcome[0] == "ok" and outcome[1][:2] == [[0.0, 0.0], [1.0, 2.0]] and outcome[2] == [1, 2, 3, 4, 7]
    assert outcome[4] == [0, 0, 1, 0, 0] and outcome[5] == [0, 0, 0, 0, 1]


def test_an_empty_slot_is_getattrs_own_error_on_both_paths():
    def make() -> list[Any]:
        things = [Slotted(1), Slotted(2)]
        del things[1].y
        return things

    outcome = _every_gather(make)
    assert outcome[:2] == ("error", "AttributeError") and "y" in outcome[2]


def test_a_slot_copied_into_an_unrelated_class_is_refused_by_its_descriptor_on_both_paths():
    class Borrower:
        x = Slotted.__dict__["x"]
        y, look, hitbox = 0.0, None, None

        def __init__(self, identity: int) -> None:
            self.id = identity

    outcome = _every_gather(lambda: [Slotted(1), Borrower(2)])
    assert outcome[:2] == ("error", "TypeError") and "doesn't apply" in outcome[2]


def test_a_class_with_its_own_getattr_is_asked_through_it():
    class Lazy(Slotted):
        __slots__ = ()

        def __getattribute__(self, name: str) -> Any:
            return 5.0 if name == "x" else object.__getattribute__(self, name)

    outcome = _every_gather(lambda: [Slotted(1, 1.0), Lazy(2, 1.0), Slotted(3, 1.0)])
    assert outcome[0] == "ok" and [row[0] for row in outcome[1]] == [1.0, 5.0, 1.0]


def test_a_class_changed_by_a_read_in_the_middle_of_the_walk_is_read_as_changed():
    def make() -> list[Any]:
        class Shifty(Slotted):
            __slots__ = ()
            calls = 0

            @property
            def look(self) -> Any:
                cls = type(self)
                cls.calls += 1
                if cls.calls == 2:  # the second entity's look: its hitbox, then everyone's x, change
                    cls.hitbox = (9.0, 9.0)
                    cls.x = property(lambda entity: -1.0)
                return "shifty"

        return [Shifty(n + 1, float(n)) for n in range(4)]

    outcome = _every_gather(make)
    assert outcome[0] == "ok" and [row[0] for row in outcome[1]] == [0.0, 1.0, -1.0, -1.0]
    assert outcome[4] == [0, 1, 1, 1], "the hitbox set by the second entity's look is its own hitbox already"


def test_an_entity_whose_class_changes_under_the_walk_is_read_by_its_new_class():
    class Other(Slotted):
        __slots__ = ()
        hitbox = (2.0, 2.0)

    def make() -> list[Any]:
        class Turning(Slotted):
            __slots__ = ()

            @property
            def look(self) -> Any:
                self.__class__ = Other  # type: ignore[assignment]  # its hitbox is now Other's
                return "turning"

        return [Turning(1), Turning(2), Slotted(3)]

    outcome = _every_gather(make)
    assert outcome[0] == "ok" and outcome[4] == [0, 0, 1] and outcome[5] == [0, 0, 1]


def test_spawned_entities_with_own_and_class_looks_and_hitboxes_gather_alike_mid_tick_and_between():
    from engine import Entity, Look, World

    square, dot = Look("square", 4), Look("circle", 2)

    class Plain(Entity):
        look = square

    class Boxed(Entity):
        hitbox = (6.0, 2.0)

    seen: list[tuple[Any, ...]] = []

    class Asker(Entity):
        def update(self, world: World) -> None:
            self.look = dot  # its own pending look: the baseline gather reads what the descriptor says
            self.x += 1  # its own pending x: the baseline gather reads _bx
            for names in (("x", "y", "look", "hitbox"), ("_bx", "_by", "look", "hitbox")):
                seen.append(_every_gather(lambda: list(world.entities), names=names))

    with World() as world:
        things: list[Any] = [world.spawn(Plain(float(n), 2 * n)) for n in range(3)]
        things += [world.spawn(Boxed(5, 5)), world.spawn(Asker(1.5, 2.5))]
        things[1].look = dot  # an own look, committed
        things[2].look = None  # hidden
        things[0].hitbox = (1.0, 1.0)  # an own hitbox over the class's
        seen.append(_every_gather(lambda: list(world.entities)))
        world.tick()
    assert all(outcome[0] == "ok" for outcome in seen)
    assert seen[0][3] == [0, 1, 2, 2, 2] and seen[0][4] == [0, 1, 1, 2, 1], "looks and hitboxes by identity"
    assert seen[1][1][4] == [2.5, 2.5] and seen[2][1][4] == [1.5, 2.5], "its own pending x, then the baseline"


def test_a_data_descriptor_is_called_once_per_entity_as_getattr_calls_it():
    for gather in GATHERS:
        calls: list[tuple[Any, Any]] = []

        class Counted:
            def __get__(self, entity: Any, owner: Any) -> Any:
                calls.append((entity.id, owner))
                return "counted"

            def __set__(self, entity: Any, value: Any) -> None:
                raise AttributeError("read only")

        class Watched(Slotted):
            __slots__ = ()
            look = Counted()

        assert _gather(gather, [Watched(1), Watched(2)])[0] == "ok"
        assert calls == [(1, Watched), (2, Watched)]


@needs_core
@pytest.mark.parametrize("args", [(), (1, 2, 3, 4, 5, 6), ([], "xy", None, None, None, None, None, None),
                                  ([], ("x", "y"), None, None, None, None, None, None),
                                  (5, ("x", "y", "look", "hitbox"), None, None, None, None, None, None)])
def test_the_cores_gather_refuses_wrong_arguments_without_crashing(args):
    with pytest.raises(TypeError):
        CORE.gather(*args)


# -- the table and the grid: hostile input ---------------------------------------------------------------


def _table(count: int = 3, **changes: Any) -> tuple[Any, ...]:
    columns: dict[str, Any] = {"entities": [Thing(n + 1) for n in range(count)],
                               "ids": np.arange(1, count + 1, dtype=np.int64),
                               "x": np.zeros(count), "y": np.zeros(count), "half_width": np.ones(count),
                               "half_height": np.ones(count), "boxed": np.ones(count, dtype=bool)}
    columns.update(changes)
    return tuple(columns.values())


def _levels(columns: tuple[Any, ...], slots: Any) -> tuple[list[tuple[Any, ...]], Any]:
    """``grid_levels`` of a table's columns (x, y, half sizes, boxed) and ``slots``."""
    x, y, half_width, half_height, boxed = columns[2:]
    return grid_levels(x, y, half_width, half_height, boxed, slots)


@needs_core
@pytest.mark.parametrize("change, error", [
    ({"ids": np.array([3, 2, 1], dtype=np.int64)}, ValueError),
    ({"ids": np.array([1, 1, 2], dtype=np.int64)}, ValueError),
    ({"ids": np.arange(3, dtype=np.int32)}, TypeError),
    ({"x": np.zeros(2)}, TypeError),
    ({"y": np.zeros(6)[::2]}, TypeError),
    ({"half_width": [1.0, 1.0, 1.0]}, TypeError),
    ({"boxed": np.ones(3, dtype=np.uint8)}, TypeError),
    ({"entities": 7}, TypeError),
])
def test_a_table_of_bad_columns_is_refused_by_the_core_without_crashing(change, error):
    with pytest.raises(error):
        CORE.Table(*_table(**change))


def test_a_table_copies_what_it_is_given_so_later_changes_to_the_arrays_or_list_change_nothing():
    columns = _table(4)
    tables = [PyTable(*columns), *([CORE.Table(*columns)] if CORE is not None else [])]
    grids = [kind(table, *_levels(columns, np.arange(4, dtype=np.int32)))
             for kind, table in zip([PyGrid, *([CORE.Grid] if CORE is not None else [])], tables)]
    columns[0].clear()
    columns[2][:] = 1e9
    for grid in grids:
        assert [thing.id for thing in grid.overlapping_box(0.0, 0.0, 1.0, 1.0)] == [1, 2, 3, 4]


@needs_core
@pytest.mark.parametrize("level", [
    "not a tuple",
    (8.0, True, 0, 0, 1, 1, np.zeros(0, dtype=np.int64), np.array([0, 1]), np.array([5], dtype=np.int32)),
    (8.0, True, 0, 0, 1, 1, np.zeros(0, dtype=np.int64), np.array([0, 2]), np.array([0], dtype=np.int32)),
    (8.0, True, 0, 0, 2, 1, np.zeros(0, dtype=np.int64), np.array([0, 1, 0]), np.array([0], dtype=np.int32)),
    (8.0, True, 0, 0, 0, 1, np.zeros(0, dtype=np.int64), np.array([0]), np.zeros(0, dtype=np.int32)),
    (8.0, True, 0, 0, 1 << 30, 1 << 30, np.zeros(0, dtype=np.int64), np.array([0]), np.zeros(0, dtype=np.int32)),
    (8.0, True, 1 << 40, 0, 1, 1, np.zeros(0, dtype=np.int64), np.array([0, 0]), np.zeros(0, dtype=np.int32)),
    (0.0, True, 0, 0, 1, 1, np.zeros(0, dtype=np.int64), np.array([0, 0]), np.zeros(0, dtype=np.int32)),
    (math.nan, False, 0, 0, 1, 1, np.zeros(0, dtype=np.int64), np.array([0]), np.zeros(0, dtype=np.int32)),
    (8.0, False, 0, 0, 1, 1, np.array([5, 2], dtype=np.int64), np.array([0, 0, 1]), np.array([0], dtype=np.int32)),
    (8.0, False, 0, 0, 1, 1, np.array([2], dtype=np.int64), np.array([0]), np.array([0], dtype=np.int32)),
    (8.0, False, 0, 0, 1, 1, np.array([2], dtype=np.int64), np.array([0, 1]), np.array([-1], dtype=np.int32)),
    (8.0, False, 0, 0, 1, 1, np.array([2], dtype=np.int64), np.array([0, 1]), np.array([0.0])),
], ids=["not-a-tuple", "slot-out-of-range", "starts-past-members", "starts-decrease", "no-columns",
        "too-many-cells", "origin-far", "zero-cell", "nan-cell", "keys-unsorted", "starts-short", "negative-slot",
        "float-members"])
def test_a_grid_of_bad_levels_is_refused_by_the_core_without_crashing(level):
    table = CORE.Table(*_table())
    with pytest.raises((TypeError, ValueError)):
        CORE.Grid(table, [level], np.zeros(0, dtype=np.int32))


@needs_core
def test_a_grid_refuses_too_many_levels_a_table_of_another_kind_and_everywhere_out_of_range():
    table = CORE.Table(*_table())
    with pytest.raises(ValueError, match="at most"):
        CORE.Grid(table, [("level",)] * 9, np.zeros(0, dtype=np.int32))
    with pytest.raises(TypeError):
        CORE.Grid(PyTable(*_table()), [], np.zeros(0, dtype=np.int32))
    with pytest.raises(ValueError, match="everywhere"):
        CORE.Grid(table, [], np.array([3], dtype=np.int32))


@needs_core
@pytest.mark.parametrize("args", [(), (1.0, 2.0, 3.0), (1, 2.0, 3.0, 4.0), (1.0, 2.0, 3.0, "4"),
                                  (1.0, 2.0, 3.0, 4.0, None, None)])
def test_the_cores_overlapping_box_refuses_wrong_arguments_without_crashing(args):
    grid = CORE.Grid(CORE.Table(*_table()), [], np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError):
        grid.overlapping_box(*args)


def _grids(count: int = 6) -> list[Any]:
    columns = _table(count, x=np.arange(count, dtype=np.float64))
    levels, everywhere = _levels(columns, np.arange(count, dtype=np.int32))
    grids: list[Any] = [PyGrid(PyTable(*columns), levels, everywhere)]
    if CORE is not None:
        grids.append(CORE.Grid(CORE.Table(*columns), levels, everywhere))
    return grids


def _outcome(call: Callable[[], Any]) -> tuple[Any, ...]:
    try:
        return ("ok", call())
    except Exception as error:
        return ("error", type(error).__name__)


@pytest.mark.parametrize("positions, count", [
    (np.zeros((3, 2), dtype=np.float64), 3),
    (np.zeros((6, 2), dtype=np.float32)[::2], 3),
    (np.zeros((1, 2), dtype=np.float32), 3),
    (np.zeros((3, 2), dtype=np.float32), -1),
    (np.zeros((3, 2), dtype=np.float32), 2.0),
    (b"\0" * 24, 3),
    (None, 0),
], ids=["float64", "strided", "short", "negative", "float-count", "bytes", "none"])
def test_members_refuses_bad_positions_and_counts_alike_on_every_path(positions, count):
    def members(grid: Any) -> Callable[[], Any]:
        return lambda: grid.members(positions, count, 1.0, 1.0)

    outcomes = [_outcome(members(grid)) for grid in _grids()]
    assert outcomes[0][0] == "error" and all(outcome == outcomes[0] for outcome in outcomes)


def test_members_reads_a_read_only_array_and_a_count_below_its_rows_alike():
    positions = np.array([[0.0, 0.0], [2.0, 0.0], [50.0, 0.0]], dtype=np.float32)
    positions.flags.writeable = False
    answers = [grid.members(positions, 2, 0.6, 0.6) for grid in _grids()]
    for members, things in answers:
        assert np.frombuffer(members, dtype=np.int64).tolist() == [0, 0, 1, 1, 1]
        assert [thing.id for thing in things] == [1, 2, 2, 3, 4], "the third row is past the count"


def test_an_id_that_runs_code_or_raises_is_safe_and_the_same_on_every_path():
    grids = _grids()

    class Haunted:
        @property
        def id(self) -> int:
            gc.collect()
            grids[-1].overlapping_box(0.0, 0.0, 100.0, 100.0)  # re-entering the grid mid-call
            return 2

    class Cursed:
        @property
        def id(self) -> int:
            raise KeyError("cursed")

    for grid in grids:
        assert grid.overlapping(Haunted()) is None, "an id the table holds, but not that object"
        assert grid.overlapping(Thing(10**30)) is None and grid.overlapping(Thing(-5)) is None
        assert [thing.id for thing in grid.overlapping_box(0.0, 0.0, 2.5, 1.0, Haunted())] == [1, 2, 3, 4]
        with pytest.raises(KeyError, match="cursed"):
            grid.overlapping(Cursed())
        assert grid.near(0.0, 0.0, 100.0, Haunted()) == grid.near(0.0, 0.0, 100.0), "not that object: none skipped"
        with pytest.raises(KeyError, match="cursed"):
            grid.near(0.0, 0.0, 1.0, Cursed())


@needs_core
def test_a_collector_that_writes_into_the_positions_mid_call_changes_nothing_the_core_answers():
    # The core copies the positions before anything can run; a collector started by its
    # allocations then scribbles over the array and re-enters the grid: the answer stands.
    pure, core = _grids(40)
    original = np.random.default_rng(1).uniform(-2, 42, (300, 2)).astype(np.float32)
    expected = pure.members(original.copy(), 300, 0.7, 0.7)
    positions = original.copy()

    def scribble(phase: str, info: dict[str, Any]) -> None:
        positions[:] = np.nan
        core.near(0.0, 0.0, 5.0)

    thresholds = gc.get_threshold()
    gc.callbacks.append(scribble)
    gc.set_threshold(1, 1, 1)
    try:
        answer = core.members(positions, 300, 0.7, 0.7)
    finally:
        gc.set_threshold(*thresholds)
        gc.callbacks.remove(scribble)
    assert answer[0] == expected[0] and answer[1] == expected[1]


@needs_core
@pytest.mark.parametrize("seed", range(40))
def test_the_cores_build_files_every_box_in_the_levels_and_cells_numpy_files_it_in(seed):
    scene = Scene(seed, count=random.Random(seed).choice([0, 1, 5, 120, 400]))
    table = CORE.Table(scene.things, scene.ids, scene.x, scene.y, scene.half_width, scene.half_height, scene.boxed)
    levels, everywhere = CORE.build(table, scene.slots, spatial.MAX_LEVELS).levels
    assert len(levels) == len(scene.levels)
    for built, expected in zip(levels, scene.levels):
        cell, dense, x0, y0, columns, rows, keys, starts, members = expected
        assert built[:6] == (cell, dense, x0, y0, columns, rows)
        assert built[6:] == (keys.astype(np.int64).tobytes(), starts.astype(np.int64).tobytes(),
                             members.astype(np.int32).tobytes())
    assert everywhere == scene.everywhere.astype(np.int32).tobytes()


@needs_core
@pytest.mark.parametrize("args", [(), (None, np.zeros(0, dtype=np.int32), 4), ("table", np.zeros(0, dtype=np.int32), 4),
                                  ("T", np.array([7], dtype=np.int32), 4), ("T", np.zeros(2), 4),
                                  ("T", np.zeros(0, dtype=np.int32), 99), ("T", np.zeros(0, dtype=np.int32), "4")])
def test_the_cores_build_refuses_wrong_arguments_without_crashing(args):
    table = CORE.Table(*_table())
    args = tuple(table if isinstance(arg, str) and arg == "T" else arg for arg in args)
    with pytest.raises((TypeError, ValueError)):
        CORE.build(*args)


def test_something_without_an_id_is_in_no_table_and_a_world_names_it():
    for grid in _grids():
        assert grid.overlapping("not an entity") is None
        assert grid.table.box(object()) is False
    from engine import Entity, World

    with World() as world:
        world.spawn(Entity())

        class Asker(Entity):
            def update(self, world: World) -> None:
                world.overlapping(self, Entity)  # the kind's grid exists from now on
                self.refused = None
                try:
                    world.overlapping("not an entity", Entity)  # type: ignore[call-overload]  # refused by name
                except TypeError as error:
                    self.refused = str(error)

        asker = world.spawn(Asker())
        world.tick()
        assert asker.refused == "world.overlapping takes an Entity, got 'not an entity'"


@needs_core
def test_a_finalizer_in_a_cycle_through_a_table_and_its_grid_queries_them_without_crashing():
    # A cycle through a table (an entity holding its world, the world its grids) is collected; a
    # finalizer of the cycle may still call the grid it holds (before the collector clears it, an
    # answer; after, a RuntimeError): never a crash.
    columns = _table(3)
    table = CORE.Table(*columns)
    grid = CORE.build(table, np.arange(3, dtype=np.int32), 4)
    found = []

    class Finalizer:
        def __init__(self, grid: Any, table: Any, thing: Any) -> None:
            self.grid, self.table, self.thing = grid, table, thing

        def __del__(self) -> None:
            grid, table = self.grid, self.table
            for call in (lambda: grid.overlapping(self.thing), lambda: grid.near(0.0, 0.0, 1.0),
                         lambda: grid.overlapping_box(0.0, 0.0, 1.0, 1.0), lambda: grid.table,
                         lambda: grid.members(np.zeros(2, dtype=np.float32), 1, 1.0, 1.0), lambda: table.box(1)):
                try:
                    found.append(("ok", call()))
                except Exception as error:
                    found.append(("error", type(error).__name__))

    holder = columns[0][0]
    holder.cycle = Finalizer(grid, table, holder)  # the table's entity -> the finalizer -> the table: a cycle
    del table, grid, holder, columns
    gc.collect()
    assert len(found) == 6 and all(outcome[0] == "ok" or outcome[1] == "RuntimeError" for outcome in found[:5])
