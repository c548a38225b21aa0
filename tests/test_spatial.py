"""Collisions: world.overlapping and world.near (exclude= too), from committed positions, one index per tick."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Entity, Look, World, buffered, signal
from engine.testing import assert_order_independent


class Box(Entity):
    look = Look("square", 10)


class Big(Entity):
    look = Look("square", (300, 20))


class Ghost(Entity):
    """No look: no box, but a position."""


def brute_overlapping(world: World, entity: Entity, kind=None) -> list[Entity]:
    def box(e):
        hitbox = getattr(e, "hitbox", None)
        if hitbox is not None:
            return hitbox
        return None if type(e).look is Entity.look or e.look is None else e.look.size

    mine = box(entity)
    if mine is None:
        return []
    found = []
    for other in world.entities:
        theirs = box(other)
        if other is entity or theirs is None or (kind is not None and not isinstance(other, kind)):
            continue
        if abs(other.x - entity.x) * 2 < mine[0] + theirs[0] and abs(other.y - entity.y) * 2 < mine[1] + theirs[1]:
            found.append(other)
    return found


def test_overlapping_finds_boxes_that_overlap_and_not_those_that_touch(world):
    a = world.spawn(Box(x=0, y=0))
    b = world.spawn(Box(x=9, y=0))
    world.spawn(Box(x=10, y=0))  # touches a: not overlapping
    ghost = world.spawn(Ghost(x=0, y=0))
    assert world.overlapping(a) == [b]
    assert world.overlapping(ghost) == [], "no look, no box"
    assert world.near(0, 0, 9.5) == [a, b, ghost], "near goes by position, in update order"
    assert world.near(0, 0, 9.5, kind=Ghost) == [ghost]


def test_near_leaves_out_the_entity_it_is_told_to_exclude_as_overlapping_leaves_out_the_asker(world):
    class Rock(Box):
        static = True

    a = world.spawn(Box(x=0, y=0))
    b = world.spawn(Box(x=3, y=0))
    rock = world.spawn(Rock(x=0, y=3))  # the static table: a second grid, skipped there too
    elsewhere = World()
    stranger = elsewhere.spawn(Box(x=0, y=0))
    assert world.near(0, 0, 5) == [a, b, rock]
    assert world.near(0, 0, 5, exclude=a) == [b, rock] == world.near(a.x, a.y, 5, Entity, exclude=a)
    assert world.near(0, 0, 5, exclude=rock) == [a, b]
    assert world.near(0, 0, 5, Box, exclude=b) == [a, rock]
    assert world.near(0, 0, 5, exclude=stranger) == [a, b, rock], "one not in the answer changes nothing"
    assert world.near(0, 0, 5, exclude=None) == [a, b, rock]
    assert a not in world.overlapping(a), "overlapping never returns the asker: near with exclude=self agrees"
    elsewhere.close()


def test_near_refuses_an_exclude_that_is_not_an_entity_by_its_value(world):
    world.spawn(Box(x=0, y=0))
    for wrong in ("me", 3, Box):
        with pytest.raises(TypeError, match=r"world\.near: exclude must be an Entity.*" + repr(wrong)[:4]):
            world.near(0, 0, 5, exclude=wrong)


def test_a_hitbox_overrides_the_looks_size(world):
    class Wide(Box):
        hitbox = (100.0, 2.0)

    wide = world.spawn(Wide(x=0, y=0))
    far = world.spawn(Box(x=45, y=0))
    assert world.overlapping(wide) == [far]
    Wide.hitbox = "big"  # type: ignore[assignment]
    with pytest.raises(TypeError, match=r"Wide.hitbox must be \(width, height\)"):
        world.overlapping(wide)


scenes = st.lists(
    st.tuples(st.sampled_from([Box, Big, Ghost]), st.floats(-200, 200), st.floats(-200, 200)),
    min_size=1, max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(scenes)
def test_overlapping_equals_a_brute_force_check_on_random_scenes(scene):
    with World() as world:
        entities = [world.spawn(kind(x=x, y=y)) for kind, x, y in scene]
        for entity in entities:
            assert world.overlapping(entity) == brute_overlapping(world, entity)
            assert world.overlapping(entity, Box) == brute_overlapping(world, entity, Box)
        for entity in entities[:5]:
            expected = [e for e in world.entities if (e.x - entity.x) ** 2 + (e.y - entity.y) ** 2 <= 30 ** 2]
            assert world.near(entity.x, entity.y, 30) == expected
            assert world.near(entity.x, entity.y, 30, exclude=entity) == [e for e in expected if e is not entity]


def _id(entity: Entity) -> int:
    """A spawned entity's id."""
    assert entity.id is not None, f"{entity!r} has no id"
    return entity.id


def wobble(entity: Entity, world: World, salt: int) -> float:
    """A step from -6 to 6 that depends on the entity and the tick only, never on update order."""
    assert entity.id is not None, "a spawned entity's"
    return float((entity.id * 7 + world.tick_count * 13 + salt * 5) % 13 - 6)


class Wanderer(Box):
    """Asks what it touches, remembers it, then moves: results must not depend on update order."""

    def __init__(self, x: float, y: float) -> None:
        super().__init__(x=x, y=y)
        self.seen: list[list[int]] = []

    def update(self, world: World) -> None:
        self.seen.append(sorted(e.id for e in world.overlapping(self)))
        self.seen.append(sorted(_id(e) for e in world.near(self.x, self.y, 25)))
        self.x += wobble(self, world, 1)
        self.y += wobble(self, world, 2)


class Flocker(Wanderer):
    """A boid's question: the others near it, itself left out."""

    def update(self, world: World) -> None:
        others = world.near(self.x, self.y, 25, Box, exclude=self)
        assert self not in others
        self.seen.append([_id(e) for e in others])
        self.x += wobble(self, world, 1) + (len(others) % 3 - 1)
        self.y += wobble(self, world, 2)


class MovesThenAsks(Wanderer):
    def update(self, world: World) -> None:
        self.x += wobble(self, world, 1)
        self.seen.append(sorted(e.id for e in world.overlapping(self)))


def run_in_order(kind, seed: int | None, ticks: int = 12) -> list[list[list[int]]]:
    with World(seed=1) as world:
        placer = random.Random(7)
        entities = [world.spawn(kind(placer.uniform(0, 80), placer.uniform(0, 80))) for _ in range(40)]
        if seed is not None:
            world.shuffle_order(random.Random(seed))
        for _ in range(ticks):
            world.tick()
        return [entity.seen for entity in entities]


def test_the_answers_are_the_same_in_every_update_order():
    expected = run_in_order(Wanderer, None)
    assert any(len(ids) > 0 for seen in expected for ids in seen), "the scene has collisions"
    for seed in range(5):
        assert run_in_order(Wanderer, seed) == expected


def test_near_with_the_asker_excluded_is_the_same_in_every_update_order():
    expected = run_in_order(Flocker, None)
    assert any(len(ids) > 0 for seen in expected for ids in seen), "the flock has neighbours"
    for seed in range(5):
        assert run_in_order(Flocker, seed) == expected


def test_an_entity_that_moves_before_it_first_asks_sees_committed_positions_in_every_order():
    expected = run_in_order(MovesThenAsks, None, ticks=1)
    for seed in range(5):
        assert run_in_order(MovesThenAsks, seed, ticks=1) == expected


def test_moving_before_asking_is_order_independent_once_the_world_has_asked(world):
    # After the first query, the index is built at the start of every tick.
    expected = None
    for seed in [None, *range(4)]:
        with World(seed=1) as fresh:
            placer = random.Random(7)
            entities = [fresh.spawn(MovesThenAsks(placer.uniform(0, 80), placer.uniform(0, 80))) for _ in range(40)]
            fresh.overlapping(entities[0])  # asked once, between ticks
            if seed is not None:
                fresh.shuffle_order(random.Random(seed))
            for _ in range(5):
                fresh.tick()
            seen = [entity.seen for entity in entities]
        expected = expected or seen
        assert seen == expected


def test_one_grid_serves_every_query_of_a_kind_in_a_tick(world, grids_built):
    builds = grids_built
    for i in range(20):
        world.spawn(Wanderer(i * 3.0, 0.0))
    world.tick()
    assert builds == [20], "one grid for 40 queries"
    world.tick()
    assert builds == [20, 20]


def test_a_kind_gets_a_grid_of_its_own_built_when_first_asked_and_only_then(world, grids_built):
    builds = grids_built

    class Asking(Box):
        def update(self, world: World) -> None:
            self.seen = world.overlapping(self, Ghost)

    for i in range(5):
        world.spawn(Asking(i * 3.0, 0.0))
    for i in range(7):
        world.spawn(Ghost(i * 3.0, 0.0))
    world.tick()
    assert builds == [7], "the ghosts' grid, once: the five boxes are not in it"
    world.tick()
    assert builds == [7, 7]


def test_an_entity_despawned_mid_tick_collides_until_the_tick_ends_then_is_gone(world):
    a = world.spawn(Box(0, 0))
    b = world.spawn(Box(2, 0))

    class Killer(Entity):
        def update(self, world: World) -> None:
            if b.alive:
                world.despawn(b)
            self.found = world.overlapping(a)

    killer = world.spawn(Killer())
    world.tick()
    assert killer.found == [b], "live when the tick began: seen by every query of the tick"
    world.tick()
    assert killer.found == [] and world.overlapping(a) == []


def test_crowds_are_left_out_of_the_index(world):
    from engine.crowd import Crowd

    class Flock(Crowd):
        look = Look("square", 50)

    world.spawn(Flock(4))
    box = world.spawn(Box(0, 0))
    assert world.overlapping(box) == [] and world.near(0, 0, 10) == [box]


class Brittle(Entity):
    """README rule 2's brick: despawns itself mid-tick once its hp is gone."""

    look = Look("square", 20, (200, 80, 80))
    hp = buffered(3)
    damage = signal(sum)

    def update(self, world: World) -> None:
        self.hp -= self.damage.value
        if self.hp <= 0:
            world.despawn(self)


class Hitter(Entity):
    look = Look("circle", 10, (255, 255, 255))
    seen = buffered(0)

    def update(self, world: World) -> None:
        for brick in world.overlapping(self, Brittle):
            brick.damage.send(1)
            self.seen += 1


class Hider(Entity):
    look: Look | None = Look("square", 20, (200, 80, 80))

    def update(self, world: World) -> None:
        if world.tick_count == 3:
            self.look = None


class Counter(Entity):
    look = Look("circle", 10, (255, 255, 255))
    seen = buffered(0)

    def update(self, world: World) -> None:
        self.seen += len(world.overlapping(self, Hider))


@pytest.mark.parametrize("kinds", [(Brittle, Hitter), (Hider, Counter)], ids=["despawned-mid-tick", "look-changed"])
def test_an_entity_that_despawns_or_changes_its_look_mid_tick_still_collides_in_every_order(kinds):
    def build(world: World) -> None:
        for kind in kinds:
            world.spawn(kind(x=100, y=100))

    assert_order_independent(build, ticks=10, orders=4, inputs=None)


# -- screen-space entities are in no world collision (issue 29, defect 3) ------------------------------


class HudBar(Entity):
    look = Look("square", (640, 16), (40, 40, 40), screen=True)


def test_a_screen_space_entity_is_not_in_world_collisions(world):
    bar = world.spawn(HudBar(x=320, y=464))
    box = world.spawn(Box(x=320, y=464))
    assert world.overlapping_at(320, 464, (4, 4)) == [box]
    assert world.overlapping(box) == [] and world.overlapping(bar) == []
    assert world.near(320, 464, 10) == [box]
    world.tick()
    assert world.overlapping_at(320, 464, (4, 4)) == [box]


def test_a_screen_space_entity_asked_about_mid_tick_overlaps_nothing_and_is_never_found(world):
    class Asker(Box):
        def update(self, world: World) -> None:
            self.found = (world.overlapping(self), world.overlapping_at(320, 464, (4, 4), HudBar))

    world.spawn(HudBar(x=320, y=464))
    asker = world.spawn(Asker(x=320, y=464))
    world.tick()
    assert asker.found == ([], [])
