"""The crowd path: arrays, double-buffered and swapped by reference, under the same tick rules; queries among its members."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Entity, EntityUpdateError, Look, World, buffered
from engine.crowd import Crowd


class Drift(Crowd):
    """Every member moves by its velocity each tick."""

    def update(self, world: World) -> None:
        np.add(self.current("position"), self.current("velocity"), out=self.next("position"))


class Watcher(Entity):
    """Reads the crowd's committed positions during its own update."""

    def __init__(self, crowd: Crowd) -> None:
        super().__init__()
        self.crowd = crowd
        self.seen: list[list[float]] = []

    def update(self, world: World) -> None:
        self.seen.append(self.crowd.current("position")[:, 0].tolist())


def drift_world(order: str) -> tuple[World, Drift, Watcher]:
    world = World()
    crowd = Drift(8)
    watcher = Watcher(crowd)
    for thing in (crowd, watcher) if order == "crowd first" else (watcher, crowd):
        world.spawn(thing)
    crowd.spawn_members(position=[[0, 0], [10, 0]], velocity=[[1, 0], [2, 0]])
    return world, crowd, watcher


@pytest.mark.parametrize("order", ["crowd first", "watcher first"])
def test_others_read_the_committed_members_in_either_update_order(order):
    world, crowd, watcher = drift_world(order)
    for _ in range(3):
        world.tick()
    assert watcher.seen == [[0, 10], [1, 12], [2, 14]]
    assert crowd.current("position")[:, 0].tolist() == [3, 16]
    world.close()


def test_buffers_are_rotated_by_reference_not_copied():
    world, crowd, _ = drift_world("crowd first")
    before = {name: [id(b) for b in buffers] for name, buffers in crowd._arrays.items()}
    world.tick()
    after = {name: [id(b) for b in buffers] for name, buffers in crowd._arrays.items()}
    assert after["position"] == [before["position"][1], before["position"][2], before["position"][0]]
    assert after["velocity"] == before["velocity"], "a field nobody wrote does not rotate"
    world.close()


def test_interpolation_and_previous_are_vectorized():
    world, crowd, _ = drift_world("crowd first")
    world.tick()
    out = np.zeros((8, 2), dtype=np.float32)
    assert crowd.draw_positions(0.5, out) == 2
    assert out[:2, 0].tolist() == [0.5, 11.0]
    crowd.draw_positions(0.5, out, extrapolate=True)
    assert out[:2, 0].tolist() == [1.5, 13.0]
    assert crowd.previous("velocity") is not None and crowd.previous("position")[:, 0].tolist() == [0, 10]
    world.close()


def test_members_spawned_or_despawned_mid_tick_join_or_leave_after_it():
    class Breeder(Drift):
        def update(self, world: World) -> None:
            super().update(world)
            if world.tick_count == 0:
                self.spawn_members(position=[[100, 0]], velocity=[[5, 0]])
                self.despawn_members(np.array([0]))
                assert self.count == 2, "nothing changes during the tick"

    with World() as world:
        crowd = world.spawn(Breeder(4))
        crowd.spawn_members(position=[[0, 0], [10, 0]], velocity=[[1, 0], [2, 0]])
        world.tick()
        assert crowd.current("position")[:, 0].tolist() == [12, 100]
        world.tick()
        assert crowd.current("position")[:, 0].tolist() == [14, 105]


def test_a_failing_tick_discards_what_the_crowd_wrote():
    class Fragile(Drift):
        def update(self, world: World) -> None:
            super().update(world)
            self.spawn_members(position=[[7, 7]])
            if world.tick_count == 1:
                raise RuntimeError("boom")

    with World() as world:
        crowd = world.spawn(Fragile(16))
        crowd.spawn_members(position=[[0, 0]], velocity=[[1, 1]])
        world.tick()
        before = (world.state_hash(), crowd.current("position").tolist(), crowd.count)
        with pytest.raises(EntityUpdateError):
            world.tick()
        assert (world.state_hash(), crowd.current("position").tolist(), crowd.count) == before


def test_committed_members_are_read_only_and_the_hash_sees_every_bit():
    world, crowd, _ = drift_world("crowd first")
    with pytest.raises(ValueError):
        crowd.current("position")[0, 0] = 5
    before = world.state_hash()
    crowd._arrays["position"][1][1, 1] = np.nextafter(np.float32(0), np.float32(1))
    assert world.state_hash() != before
    world.close()


def test_crowd_mistakes_are_refused_by_name():
    with pytest.raises(ValueError, match="capacity.*0"):
        Drift(0)
    crowd = Drift(2)
    with pytest.raises(ValueError, match="full: capacity 2"):
        crowd.spawn_members(position=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="no fields.*'mass'"):
        crowd.spawn_members(mass=[1.0])
    with pytest.raises(TypeError, match="share names.*'x'"):
        class Clash(Crowd):
            fields = {"position": 2, "x": 1}


def test_the_swarm_saves_and_continues_hash_for_hash(tmp_path):
    from engine.files.importer import load_game

    game = load_game("swarm").module
    straight = World(seed=2)
    game.build(straight)
    for _ in range(40):
        straight.tick()
    straight.save(tmp_path / "swarm.json")
    loaded = World.load(tmp_path / "swarm.json")
    assert loaded.state_hash() == straight.state_hash()
    for _ in range(20):
        straight.tick()
        loaded.tick()
    assert loaded.state_hash() == straight.state_hash()
    straight.close()
    loaded.close()


def test_the_swarm_is_deterministic_and_order_independent():
    from engine.files.importer import load_game

    hashes = set()
    for shuffle in (False, True):
        with World(seed=9) as world:
            load_game("swarm").module.build(world)
            world.spawn(Entity(x=1))
            if shuffle:
                world.shuffle_order(world.random)
            for _ in range(30):
                world.tick()
            hashes.add(world.state_hash())
    assert len(hashes) == 1


class Sparks(Crowd):
    """Members spawned by other entities' updates."""


class Emitter(Entity):
    """Spawns one member into a shared crowd each tick, at its own place."""

    def __init__(self, crowd: Sparks, x: float) -> None:
        super().__init__(x=x)
        self.crowd = crowd

    saved = ("crowd",)

    def update(self, world: World) -> None:
        self.crowd.spawn_members(position=[[self.x, float(world.tick_count)]])


def test_members_spawned_by_several_entities_in_a_tick_join_in_the_same_order_in_every_update_order():
    from engine.testing import assert_order_independent

    def build(world: World) -> None:
        sparks = world.spawn(Sparks(500))
        for n in range(5):
            world.spawn(Emitter(sparks, float(n)))

    assert_order_independent(build, ticks=12, orders=4, inputs=None)


class Volley(Entity):
    """Spawns ``rows`` members into a shared crowd each tick; fails its update when ``fail`` is set."""

    saved = ("crowd", "rows", "fail")

    def __init__(self, crowd: Sparks, rows: int) -> None:
        super().__init__()
        self.crowd, self.rows, self.fail = crowd, rows, False

    def update(self, world: World) -> None:
        self.crowd.spawn_members(position=[[0.0, 0.0]] * self.rows)
        if self.fail:
            raise RuntimeError("this tick fails")


def test_members_waiting_to_join_count_against_capacity_within_a_tick_and_never_after_it():
    # The crowd counts what waits to join as it comes (not summed again at each call): the count
    # must start afresh after each tick, after a failed tick, and refuse the row past capacity.
    with World() as world:
        sparks = world.spawn(Sparks(10))
        volleys = [world.spawn(Volley(sparks, 3)) for _ in range(3)]
        world.tick()
        assert sparks.count == 9
        sparks.despawn_members(np.arange(9))  # between ticks: at once
        volleys[2].fail = True
        with pytest.raises(EntityUpdateError):
            world.tick()
        assert sparks.count == 0
        volleys[2].fail = False
        world.tick()  # 9 again: nothing of the failed tick still counts against the 10
        assert sparks.count == 9
        sparks.despawn_members(np.arange(9))
        world.spawn(Volley(sparks, 2))
        with pytest.raises(EntityUpdateError, match="full: capacity 10, 0 members and 9 waiting to join"):
            world.tick()  # 3 + 3 + 3 + 2 = 11 > 10: the last one is refused, saying why


# -- queries among a crowd's own members: near_pairs, overlapping_pairs, members_near ----------------------


class Dots(Crowd):
    """Members that only stand where they are put, each a 6 by 4 box."""

    look = Look("square", 4)
    hitbox = (6.0, 4.0)


def dots(positions: Any) -> Dots:
    crowd = Dots(max(1, len(positions)))
    with np.errstate(over="ignore"):  # a float64 past float32's range is infinite, as a crowd holds it
        rows = np.asarray(positions, dtype=np.float32).reshape(-1, 2)
    if len(rows):
        crowd.spawn_members(position=rows)
    return crowd


def brute_pairs(positions: Any, within: Callable[[float, float], bool], both_ways: bool = False) -> list[tuple[int, int]]:
    """Every pair of members (i < j, or both ways, sorted) that ``within(dx, dy)`` holds for: O(n^2)."""
    values = np.asarray(positions, dtype=np.float64).reshape(-1, 2).tolist()
    found = []
    for i, (xi, yi) in enumerate(values):
        for j in range(i + 1, len(values)):
            xj, yj = values[j]
            if all(math.isfinite(v) for v in (xi, yi, xj, yj)) and within(xi - xj, yi - yj):
                found.append((i, j))
    if both_ways:
        found = sorted(found + [(j, i) for i, j in found])
    return found


def as_pairs(answer: tuple[Any, Any]) -> list[tuple[int, int]]:
    i, j = answer
    assert i.dtype == np.int64 and j.dtype == np.int64 and len(i) == len(j)
    return list(zip(i.tolist(), j.tolist()))


coordinates = st.one_of(st.floats(-120, 120, width=32), st.floats(-1e6, 1e6, width=32),
                        st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 3e38, -3e38, 1e-40]))
members = st.lists(st.tuples(coordinates, coordinates), max_size=70)


@settings(max_examples=120, deadline=None)
@given(members, st.one_of(st.floats(0, 80), st.sampled_from([0.0, 3.0, 1e-30, 1e30, math.inf])), st.booleans())
def test_near_pairs_are_every_pair_within_the_radius_as_a_brute_force_loop_finds_them(positions, radius, both_ways):
    crowd = dots(positions)
    expected = brute_pairs(positions, lambda dx, dy: dx * dx + dy * dy <= radius * radius, both_ways)
    assert as_pairs(crowd.near_pairs(radius, both_ways=both_ways)) == expected


@settings(max_examples=120, deadline=None)
@given(members, st.tuples(st.sampled_from([0.0, 1e-30, 2.0, 6.0, 50.0, 1e30, math.inf]),
                          st.sampled_from([0.0, 4.0, 9.5, math.inf])), st.booleans())
def test_overlapping_pairs_are_every_pair_of_overlapping_boxes_as_a_brute_force_loop_finds_them(positions, box,
                                                                                               both_ways):
    crowd = dots(positions)
    crowd.hitbox = box
    expected = brute_pairs(positions, lambda dx, dy: abs(dx) < box[0] and abs(dy) < box[1], both_ways)
    assert as_pairs(crowd.overlapping_pairs(both_ways=both_ways)) == expected


@settings(max_examples=60, deadline=None)
@given(members, coordinates, coordinates, st.one_of(st.floats(0, 80), st.just(math.inf)))
def test_members_near_a_point_are_those_a_brute_force_loop_finds(positions, x, y, radius):
    crowd = dots(positions)
    values = np.asarray(crowd.current("position"), dtype=np.float64).tolist()
    x, y = float(np.float32(x)), float(np.float32(y))
    expected = [k for k, (mx, my) in enumerate(values)
                if all(math.isfinite(v) for v in (mx, my, x, y)) and (mx - x) * (mx - x) + (my - y) * (my - y) <= radius * radius]
    assert crowd.members_near(x, y, radius).tolist() == expected


@pytest.mark.parametrize("seed", range(4))
def test_pairs_among_thousands_of_clustered_members_are_the_brute_force_pairs(seed):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-500, 500, (12, 2))
    positions = (centres[rng.integers(0, 12, 1500)] + rng.normal(0, 25, (1500, 2))).astype(np.float32)
    crowd = dots(positions)
    values = positions.astype(np.float64)
    dx = values[:, None, 0] - values[None, :, 0]
    dy = values[:, None, 1] - values[None, :, 1]
    upper = np.triu(np.ones((1500, 1500), dtype=bool), 1)
    for radius in (0.0, 1.5, 12.0, 40.0):
        expected = np.argwhere((dx * dx + dy * dy <= radius * radius) & upper)
        assert as_pairs(crowd.near_pairs(radius)) == [tuple(pair) for pair in expected.tolist()]
    expected = np.argwhere((np.abs(dx) < 6.0) & (np.abs(dy) < 4.0) & upper)
    assert as_pairs(crowd.overlapping_pairs()) == [tuple(pair) for pair in expected.tolist()]


def test_members_at_the_radius_are_near_boxes_that_touch_do_not_overlap_and_no_member_is_its_own_pair():
    crowd = dots([[0, 0], [3, 4], [6, 0], [0, 0], [12, 0]])
    assert as_pairs(crowd.near_pairs(5)) == [(0, 1), (0, 3), (1, 2), (1, 3)], "3-4-5: at the radius is within"
    assert as_pairs(crowd.near_pairs(5, both_ways=True)) == [(0, 1), (0, 3), (1, 0), (1, 2), (1, 3), (2, 1),
                                                            (3, 0), (3, 1)]
    assert as_pairs(crowd.overlapping_pairs()) == [(0, 3)], "6 by 4 boxes: 6 across or 4 up and down only touch"
    crowd.hitbox = (6.5, 4.5)
    assert as_pairs(crowd.overlapping_pairs()) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (2, 4)]
    assert crowd.members_near(0, 0, 5).tolist() == [0, 1, 3]
    empty = Dots(3)
    assert as_pairs(empty.near_pairs(10)) == [] and as_pairs(empty.overlapping_pairs()) == []
    assert empty.members_near(0, 0, 10).tolist() == []


class Boids(Crowd):
    """A flock that steers by its own members: towards its neighbours' centre, away from the ones it bumps."""

    look = Look("square", 4)

    def update(self, world: World) -> None:
        count = self.count
        position, velocity = self.current("position"), self.current("velocity")
        i, j = self.near_pairs(24.0, both_ways=True)
        neighbours = np.bincount(i, minlength=count)
        centre = np.stack([np.bincount(i, weights=position[j, axis], minlength=count) for axis in (0, 1)], axis=1)
        has = neighbours > 0
        centre[has] = centre[has] / neighbours[has, None]
        steer = np.where(has[:, None], (centre - position) * 0.01, 0.0)
        a, b = self.overlapping_pairs()
        push = np.zeros((count, 2))
        np.add.at(push, a, position[a] - position[b])
        np.add.at(push, b, position[b] - position[a])
        np.add(velocity, (steer + push * 0.05).astype(np.float32), out=self.next("velocity"))
        np.add(position, self.next("velocity"), out=self.next("position"))
        assert as_pairs(self.near_pairs(24.0, both_ways=True)) == as_pairs((i, j)), "still the committed members"


class Counting(Entity):
    """Reads the flock's pairs in its own update: before or after the flock's, the same answer."""

    pairs = buffered(0)
    digest = buffered(0)
    saved = ("flock",)

    def __init__(self, flock: Boids) -> None:
        super().__init__()
        self.flock = flock

    def update(self, world: World) -> None:
        i, j = self.flock.near_pairs(24.0)
        k = self.flock.members_near(100.0, 100.0, 60.0)
        self.pairs = len(i)
        self.digest = int((i * 7919 + j * 31).sum()) + int(k.sum())


def build_flock(world: World) -> None:
    flock = world.spawn(Boids(300))
    world.spawn(Counting(flock))
    placer = np.random.default_rng(5)
    flock.spawn_members(position=placer.uniform(0, 200, (300, 2)), velocity=placer.uniform(-1, 1, (300, 2)))
    world.spawn(Counting(flock))


def test_a_flock_that_steers_by_its_own_pairs_is_the_same_in_every_update_order():
    from engine.testing import assert_order_independent

    result = assert_order_independent(build_flock, ticks=15, orders=4, inputs=None)
    assert result.ok


def test_the_same_members_give_the_same_pairs_bit_for_bit_every_time():
    positions = np.random.default_rng(3).uniform(-300, 300, (2000, 2))
    answers = {tuple(np.concatenate(dots(positions).near_pairs(9.0, both_ways=True)).tobytes()
                     for _ in range(1)) for _ in range(3)}
    assert len(answers) == 1
    with World(seed=4) as world:
        build_flock(world)
        for _ in range(10):
            world.tick()
        first = world.state_hash()
    with World(seed=4) as world:
        build_flock(world)
        for _ in range(10):
            world.tick()
        assert world.state_hash() == first


def test_member_queries_refuse_wrong_arguments_by_name():
    crowd = dots([[0, 0], [1, 1]])
    for radius in ("5", True, None):
        with pytest.raises(ValueError, match=r"Dots\.near_pairs: radius must be a number >= 0, got " + repr(radius)):
            crowd.near_pairs(radius)  # type: ignore[arg-type]
    for bad in (-1, math.nan):
        with pytest.raises(ValueError, match=r"Dots\.near_pairs: radius .* got -1|nan"):
            crowd.near_pairs(bad)
    with pytest.raises(TypeError, match=r"Dots\.near_pairs: both_ways must be True or False, got 'yes'"):
        crowd.near_pairs(3, both_ways="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Dots\.overlapping_pairs: both_ways must be True or False, got 1"):
        crowd.overlapping_pairs(both_ways=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Dots\.members_near: y must be a number, got '0'"):
        crowd.members_near(0, "0", 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"Dots\.members_near: radius must be a number >= 0, got -2"):
        crowd.members_near(0, 0, -2)

    class Boxless(Crowd):
        pass

    boxless = Boxless(2)
    with pytest.raises(ValueError, match="Boxless's members have no box"):
        boxless.overlapping_pairs()
    assert as_pairs(boxless.near_pairs(5)) == [], "near goes by position alone"


def test_the_deprecated_restore_arrays_puts_back_the_members_a_load_would():
    # Crowd.restore_arrays (0.2's name) and World.load's _restore_own write with one loop:
    # the alias must put back every field's values in both buffers, as the load does.
    world, crowd, _ = drift_world("crowd first")
    world.tick()
    with pytest.warns(DeprecationWarning):
        saved = crowd.arrays_for_save()
    world.tick()
    world.tick()
    with pytest.warns(DeprecationWarning, match="World.load"):
        crowd.restore_arrays(saved)
    assert crowd.count == 2
    assert crowd.current("position").tolist() == [[1, 0], [12, 0]]
    assert crowd.previous("position").tolist() == [[1, 0], [12, 0]]
    assert crowd.current("velocity").tolist() == [[1, 0], [2, 0]]
    loaded = Drift.__new__(Drift)
    loaded._restore_own(saved)
    assert loaded.current("position").tolist() == crowd.current("position").tolist()
    world.close()
