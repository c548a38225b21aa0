"""world.overlapping_at against brute force: moving and static entities, spawns, despawns, moves of tiles."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Entity, World


class Tile(Entity):
    static = True


class Mover(Entity):
    def __init__(self, x: float, y: float, hitbox: tuple[float, float], vx: float, vy: float) -> None:
        super().__init__(x=x, y=y)
        self.hitbox = hitbox
        self.vx, self.vy = vx, vy

    def update(self, world: World) -> None:
        self.x += self.vx
        self.y += self.vy


class Asker(Entity):
    """Asks during its update, after it has moved itself: the answer is still the tick's start."""

    def __init__(self) -> None:
        super().__init__()
        self.questions: list[tuple[float, float, tuple[float, float]]] = []
        self.answers: list[list[Entity]] = []

    def update(self, world: World) -> None:
        self.x += 1.0
        self.answers = [world.overlapping_at(x, y, size) for x, y, size in self.questions]


def _id(entity: Entity) -> int:
    """A spawned entity's id."""
    assert entity.id is not None, f"{entity!r} has no id"
    return entity.id


def brute(entities: list[Entity], x: float, y: float, size: tuple[float, float], kind: type | None = None) -> list[Entity]:
    found = []
    for entity in entities:
        box = entity.hitbox
        if box is None or (kind is not None and not isinstance(entity, kind)):
            continue
        if abs(entity.x - x) * 2 < box[0] + size[0] and abs(entity.y - y) * 2 < box[1] + size[1]:
            found.append(entity)
    return sorted(found, key=_id)


coordinate = st.integers(-60, 60).map(float)
extent = st.integers(0, 30).map(float)
thing = st.tuples(st.booleans(), coordinate, coordinate, extent, extent, st.integers(-3, 3), st.integers(-3, 3))
question = st.tuples(coordinate, coordinate, st.tuples(extent, extent))
step = st.one_of(
    st.tuples(st.just("tick"), st.lists(question, max_size=4)),
    st.tuples(st.just("spawn"), thing),
    st.tuples(st.just("despawn"), st.integers(0, 1000)),
    st.tuples(st.just("move tile"), st.integers(0, 1000), coordinate, coordinate),
    st.tuples(st.just("resize tile"), st.integers(0, 1000), extent, extent),
    st.tuples(st.just("shuffle"), st.integers(0, 100)),
)


def make(spec: tuple[bool, float, float, float, float, int, int]) -> Entity:
    static, x, y, width, height, vx, vy = spec
    if static:
        tile = Tile(x=x, y=y)
        tile.hitbox = (width, height)
        return tile
    return Mover(x, y, (width, height), float(vx), float(vy))


@settings(max_examples=150, deadline=None)
@given(st.lists(thing, max_size=25), st.lists(step, max_size=25), st.lists(question, min_size=1, max_size=4))
def test_overlapping_at_equals_brute_force_between_and_during_ticks(things, steps, between):
    with World(seed=0) as world:
        asker = world.spawn(Asker())
        for spec in things:
            world.spawn(make(spec))
        for action, *args in steps:
            others = [entity for entity in world.entities if entity is not asker]
            if action == "tick":
                asker.questions = args[0]
                expected = [brute(others, x, y, size) for x, y, size in args[0]]
                world.tick()
                assert asker.answers == expected
            elif action == "spawn":
                world.spawn(make(args[0]))
            elif action == "shuffle":
                world.shuffle_order(random.Random(args[0]))
            elif others:
                target = others[args[0] % len(others)]
                if action == "despawn":
                    world.despawn(target)
                elif action == "move tile":
                    target.x, target.y = args[1], args[2]  # between ticks: a "static" tile may still move
                else:
                    target.hitbox = (args[1], args[2])
            others = [entity for entity in world.entities if entity is not asker]
            for x, y, size in between:
                assert world.overlapping_at(x, y, size) == brute(others, x, y, size)
                assert world.overlapping_at(x, y, size, Tile) == brute(others, x, y, size, Tile)


def test_a_tile_that_moves_in_its_own_update_is_found_where_it_went(world):
    class Sliding(Tile):
        def update(self, world: World) -> None:
            self.x += 100.0

    tile = world.spawn(Sliding(x=0.0, y=0.0))
    tile.hitbox = (10.0, 10.0)
    assert world.overlapping_at(0, 0, (2, 2)) == [tile]
    world.tick()
    assert world.overlapping_at(0, 0, (2, 2)) == []
    assert world.overlapping_at(100, 0, (2, 2)) == [tile]


def test_the_static_grid_is_built_once_while_the_tiles_stay_put(world, grids_built):
    built = grids_built
    for n in range(30):
        tile = world.spawn(Tile(x=n * 10.0))
        tile.hitbox = (10.0, 10.0)
    walker = world.spawn(Mover(0.0, 0.0, (4.0, 4.0), 1.0, 0.0))
    for _ in range(5):
        world.overlapping_at(walker.x, walker.y, (4, 4))
        world.tick()
    assert built.count(30) == 1, "the 30 tiles were gridded once"
    assert built.count(1) == 5, "the walker is gridded for every query between ticks (none asks in a tick)"


def test_every_collision_query_returns_entities_sorted_by_id_whatever_the_update_order(world):
    boxes = []
    for n in range(12):
        entity = world.spawn(Tile(x=float(n % 3)) if n % 2 else Mover(float(n % 3), 0.0, (10.0, 10.0), 0.0, 0.0))
        entity.hitbox = (10.0, 10.0)
        boxes.append(entity)
    world.shuffle_order(random.Random(3))
    world.tick()
    ids = [entity.id for entity in world.overlapping_at(0, 0, (1, 1))]
    assert ids == sorted(ids) and len(ids) == 12
    assert [e.id for e in world.overlapping(boxes[5])] == sorted(e.id for e in boxes if e is not boxes[5])
    near = [entity.id for entity in world.near(0, 0, 5)]
    assert near == sorted(near) and len(near) == 12


@pytest.mark.parametrize("args, named", [
    ((float("nan"), 0, (1, 1)), "x must be a finite number, got nan"),
    ((0, "3", (1, 1)), "y must be a finite number, got '3'"),
    ((0, 0, (1, -1)), "size must be (width, height), two finite numbers >= 0, got (1, -1)"),
    ((0, 0, [1, 1]), "got [1, 1]"),
    ((0, 0, (1, 1, 1)), "got (1, 1, 1)"),
    ((True, 0, (1, 1)), "x must be a finite number, got True"),
])
def test_bad_arguments_are_refused_in_one_line_naming_the_value(world, args, named):
    with pytest.raises(ValueError) as refused:
        world.overlapping_at(*args)
    assert named in str(refused.value) and "\n" not in str(refused.value)


def test_a_kind_that_is_not_a_class_is_refused_by_name(world):
    with pytest.raises(TypeError, match="kind must be a class, got 'Tile'"):
        world.overlapping_at(0, 0, (1, 1), "Tile")
