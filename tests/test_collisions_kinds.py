"""Collisions by kind and crowds that collide: per-kind grids, world.overlapping_members, both paths alike."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Entity, Look, World, signal
from engine.crowd import Crowd
from engine.testing import assert_order_independent


class Marked:
    """A mixin: a kind that is not an Entity class."""


class Walker(Entity):
    look = Look("square", 16)
    damage = signal(sum)


class Runner(Walker):
    look = Look("square", 10)


class Tower(Entity, Marked):
    look = Look("square", 24)


class Ring(Entity):
    """A big box: a tower's range."""

    look = Look("circle", 300)


class Ghost(Entity, Marked):
    """No look: no box, but a position."""


KINDS = [Walker, Runner, Tower, Ring, Ghost]
QUERIED = [None, Entity, Walker, Runner, Tower, Ring, Ghost, Marked]

scenes = st.lists(st.tuples(st.sampled_from(KINDS), st.floats(-300, 300), st.floats(-300, 300)), min_size=1,
                  max_size=50)


@settings(max_examples=60, deadline=None)
@given(scenes, st.integers(0, 3))
def test_a_kinds_answer_is_the_all_kinds_answer_filtered_by_kind(scene, shuffle):
    with World() as world:
        entities = [world.spawn(kind(x=x, y=y)) for kind, x, y in scene]
        if shuffle:
            world.shuffle_order(random.Random(shuffle))
        world.tick()
        for entity in entities[:12]:
            everything = world.overlapping(entity)
            nearby = world.near(entity.x, entity.y, 40.0)
            at = world.overlapping_at(entity.x, entity.y, (20.0, 6.0))
            for kind in QUERIED:
                assert world.overlapping(entity, kind) == [e for e in everything if kind is None or isinstance(e, kind)]
                assert world.near(entity.x, entity.y, 40.0, kind) == [
                    e for e in nearby if kind is None or isinstance(e, kind)]
                assert world.overlapping_at(entity.x, entity.y, (20.0, 6.0), kind) == [
                    e for e in at if kind is None or isinstance(e, kind)]


class Bullets(Crowd):
    """Shots as one crowd: every member hit sends one damage, then the crowd moves."""

    look = Look("square", 4)

    def update(self, world: World) -> None:
        members, hit = world.overlapping_members(self, Walker)
        for walker in hit:
            walker.damage.send(1.0)
        np.add(self.current("position"), self.current("velocity"), out=self.next("position"))


class Taker(Walker):
    """Walks right, adds up the damage it took."""

    taken = 0.0

    def update(self, world: World) -> None:
        self.taken += self.damage.value
        self.x += 1.5


def shooter(world: World, seed: int = 3, walkers: int = 12, shots: int = 60) -> Bullets:
    rng = np.random.default_rng(seed)
    for n in range(walkers):
        world.spawn(Taker(x=float(n * 9 % 80), y=float(n * 7 % 60)))
    bullets = world.spawn(Bullets(shots))
    bullets.spawn_members(position=rng.uniform(-10, 90, (shots, 2)), velocity=rng.uniform(-2, 2, (shots, 2)))
    return bullets


def test_overlapping_members_equals_brute_force_sorted_by_member_then_id(world):
    bullets = shooter(world, walkers=30, shots=200)
    for _ in range(3):
        world.tick()
        members, hit = world.overlapping_members(bullets, Walker)
        positions = bullets.current("position").astype(np.float64)
        walkers = world.entities_of(Walker)
        expected = [(m, w) for m, (x, y) in enumerate(positions.tolist()) for w in walkers
                    if abs(w.x - x) < 8.0 + 2.0 and abs(w.y - y) < 8.0 + 2.0]
        assert list(zip(members.tolist(), hit)) == expected
        assert len(expected) > 0, "the scene has hits"
        assert members.dtype == np.int64 and members.flags.writeable


def test_overlapping_members_reads_committed_state_in_every_update_order():
    assert_order_independent(shooter, ticks=30, orders=4, inputs=None)


def test_a_crowds_members_see_the_committed_walkers_and_their_own_committed_positions(world):
    class Late(Crowd):
        look = Look("square", 2)

        def update(self, world: World) -> None:
            self.next("position")[:] = 1000.0  # moved away: not seen before the tick ends
            self.found = world.overlapping_members(self, Walker)

    walker = world.spawn(Taker(x=0.0, y=0.0))
    late = world.spawn(Late(1))
    late.spawn_members(position=[[1.0, 1.0]])
    world.tick()
    members, hit = late.found
    assert members.tolist() == [0] and hit == [walker], "the walker moved by 1.5 after being asked about"


def test_a_walker_despawned_mid_tick_is_still_hit_in_that_tick(world):
    walker = world.spawn(Walker(x=0.0, y=0.0))

    class Killer(Entity):
        def update(self, world: World) -> None:
            world.despawn(walker)

    world.spawn(Killer())
    bullets = world.spawn(Bullets(2))
    bullets.spawn_members(position=[[0.0, 0.0], [50.0, 50.0]])
    seen = []
    original = Bullets.update

    def spying(self: Bullets, world: World) -> None:
        seen.append(world.overlapping_members(self, Walker))
        original(self, world)

    Bullets.update = spying  # type: ignore[method-assign]
    try:
        world.tick()
    finally:
        Bullets.update = original  # type: ignore[method-assign]
    assert seen[0][0].tolist() == [0] and seen[0][1] == [walker]


def test_a_crowds_box_is_its_hitbox_else_its_looks_size(world):
    target = world.spawn(Walker(x=0.0, y=0.0))
    bullets = world.spawn(Bullets(1))
    bullets.spawn_members(position=[[11.0, 0.0]])
    assert world.overlapping_members(bullets, Walker)[1] == [], "4 px shots: 11 - 2 is past the walker's 8"
    bullets.hitbox = (8.0, 8.0)
    assert world.overlapping_members(bullets, Walker)[1] == [target]


def test_what_overlapping_members_cannot_answer_is_refused_by_name(world):
    walker = world.spawn(Walker())
    with pytest.raises(TypeError, match="takes a Crowd, got <Walker"):
        world.overlapping_members(walker, Walker)

    class Shapeless(Crowd):
        pass

    shapeless = world.spawn(Shapeless(1))
    with pytest.raises(ValueError, match="Shapeless's members have no box: give the crowd a look with a size"):
        world.overlapping_members(shapeless, Walker)
    with pytest.raises(TypeError, match="kind must be a class, got 'Walker'"):
        world.overlapping_members(world.spawn(Bullets(1)), "Walker")


def test_a_screen_space_crowd_collides_with_nothing(world):
    class Sparks(Crowd):
        look = Look("square", 50, screen=True)

    world.spawn(Walker(x=0.0, y=0.0))
    sparks = world.spawn(Sparks(2))
    sparks.spawn_members(position=[[0.0, 0.0], [1.0, 1.0]])
    members, hit = world.overlapping_members(sparks, Walker)
    assert members.tolist() == [] and hit == []


def test_overlapping_members_of_every_kind_and_with_static_walkers_is_one_sorted_answer(world):
    class Wall(Walker):
        static = True

    for n in range(6):
        world.spawn((Wall if n % 2 else Walker)(x=float(n), y=0.0))
    bullets = world.spawn(Bullets(3))
    bullets.spawn_members(position=[[0.0, 0.0], [3.0, 0.0], [100.0, 0.0]])
    world.tick()
    members, hit = world.overlapping_members(bullets, None)
    assert members.tolist() == sorted(members.tolist())
    ids = [entity.id for entity in hit]
    for member in set(members.tolist()):
        mine = [i for m, i in zip(members.tolist(), ids) if m == member]
        assert mine == sorted(mine)
    assert set(members.tolist()) == {0, 1}


_PATHS_GAME = """
import json, sys
import numpy as np
sys.path.insert(0, {tests!r})
from test_collisions_kinds import Walker, shooter
from engine import World
from engine.spatial import COMPILED
world = World(seed=2)
bullets = shooter(world, walkers=40, shots=300)
answers = []
for _ in range(20):
    world.tick()
    members, hit = world.overlapping_members(bullets, Walker)
    answers.append([members.tolist(), [entity.id for entity in hit]])
    answers.append([entity.id for entity in world.overlapping_at(40.0, 30.0, (30.0, 30.0))])
    answers.append([entity.id for entity in world.near(40.0, 30.0, 25.0, Walker)])
print(json.dumps({{"compiled": COMPILED, "hash": world.state_hash(), "answers": answers}}))
"""


def test_the_compiled_and_the_pure_path_give_the_same_answers_and_hashes():
    runs = []
    for pure in ("1", "0"):
        environment = {**os.environ, "TICKSWAP_PURE": pure}
        done = subprocess.run([sys.executable, "-c", _PATHS_GAME.format(tests=os.path.dirname(__file__))],
                              capture_output=True, text=True, timeout=120, env=environment)
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout))
    pure_run, compiled_run = runs
    assert pure_run["compiled"] is False
    assert compiled_run["answers"] == pure_run["answers"] and compiled_run["hash"] == pure_run["hash"]
    assert any(answer[0] for answer in pure_run["answers"][::3]), "the crowd hits something"


_EMPTY_CROWD_GAME = """
import json
from engine import Entity, Look, World
from engine.crowd import Crowd

class Walker(Entity):
    look = Look("square", 16)

class Shots(Crowd):
    fields = {"position": 2}
    hitbox = (4.0, 4.0)
    found = None

    def update(self, world):
        members, hit = world.overlapping_members(self, Walker)
        self.found = (members.tolist(), [walker.id for walker in hit])

with World() as world:
    world.spawn(Walker(x=0.0, y=0.0))
    shots = world.spawn(Shots(8))
    world.tick()
    empty = shots.found
    shots.spawn_members(position=[(1.0, 1.0)])
    world.tick()
    print(json.dumps([empty, shots.found]))
"""


@pytest.mark.parametrize("pure", ["1", "0"])
def test_a_crowd_with_no_members_overlaps_nothing_on_both_paths(pure):
    # The pure grid read an empty crowd's (0, 2) positions through memoryview.cast, which
    # refuses a view with a zero in its shape: a TypeError the tick failed with, where the core answers none.
    done = subprocess.run([sys.executable, "-c", _EMPTY_CROWD_GAME], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TICKSWAP_PURE": pure})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [[[], []], [[0], [1]]]
