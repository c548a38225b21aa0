"""The crowd path: arrays, double-buffered and swapped by reference, under the same tick rules."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Entity, EntityUpdateError, World
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
