"""Paths measured along their length, and followers walking them as state that saves and rolls back."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from loadedworlds import assert_goes_on_alike, loaded_beside
from mapfiles import tmj

from engine import Entity, Follower, Path, TileMap, World, buffered
from engine.testing import assert_order_independent, assert_rollback_deterministic

L_SHAPE = Path([(0, 0), (30, 0), (30, 40)])


def test_a_path_knows_its_length_and_the_point_and_heading_at_any_distance():
    assert L_SHAPE.length == 70.0
    assert [L_SHAPE.point_at(d) for d in (0, 15, 30, 50, 70)] == [(0.0, 0.0), (15.0, 0.0), (30.0, 0.0), (30.0, 20.0),
                                                                  (30.0, 40.0)]
    assert [L_SHAPE.angle_at(d) for d in (0, 29.9, 30, 70)] == [0.0, 0.0, 90.0, 90.0], "a corner takes the way out"
    assert (L_SHAPE.point_at(-5), L_SHAPE.point_at(500)) == ((0.0, 0.0), (30.0, 40.0)), "an open path holds its ends"


def test_a_closed_path_goes_round_and_back_to_its_first_point():
    square = Path([(0, 0), (10, 0), (10, 10), (0, 10)], closed=True)
    assert square.length == 40.0
    assert [square.point_at(d) for d in (35, 40, 45, -5)] == [(0.0, 5.0), (0.0, 0.0), (5.0, 0.0), (0.0, 5.0)]
    assert square.angle_at(35) == -90.0
    assert square.reversed().points == ((0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (10.0, 0.0))
    assert L_SHAPE.reversed() == Path([(30, 40), (30, 0), (0, 0)]) and hash(L_SHAPE) == hash(Path(L_SHAPE.points))


def test_repeated_points_add_no_length_and_borrow_a_heading():
    path = Path([(0, 0), (0, 0), (0, 10), (0, 10), (5, 10)])
    assert path.length == 15.0
    assert [path.angle_at(d) for d in (0, 5, 10, 12)] == [90.0, 90.0, 0.0, 0.0]
    assert Path([(3, 4), (3, 4)]).point_at(1.0) == (3.0, 4.0)


@pytest.mark.parametrize("points, message", [
    ([(0, 0)], "at least two points, got 1"),
    ([(0, 0), (1, math.nan)], "point 1 must be \\(x, y\\), two finite numbers"),
    ([(0, 0), (1, 2, 3)], "point 1 must be"),
    ([(0, 0), ("1", 2)], "point 1 must be"),
    ("abc", "a sequence of \\(x, y\\) points"),
])
def test_bad_paths_are_refused_by_name(points, message):
    with pytest.raises((TypeError, ValueError), match=message):
        Path(points)


def test_a_path_is_an_immutable_value():
    with pytest.raises(AttributeError, match="immutable"):
        L_SHAPE.length = 3.0
    with pytest.raises(ValueError, match="finite number"):
        L_SHAPE.point_at(math.inf)


ROUTE = {"id": 1, "name": "route", "type": "", "x": 4, "y": 10, "width": 0, "height": 0, "rotation": 0,
         "visible": True, "polyline": [{"x": 0, "y": 0}, {"x": 20, "y": 0}, {"x": 20, "y": 10}]}
RING = {"id": 2, "name": "ring", "type": "", "x": 2, "y": 4, "width": 0, "height": 0, "rotation": 0,
        "visible": True, "polygon": [{"x": 0, "y": 0}, {"x": 8, "y": 0}, {"x": 8, "y": 6}]}
DOOR = {"id": 3, "name": "door", "type": "", "x": 0, "y": 0, "width": 8, "height": 8, "rotation": 0, "visible": True}


def level_objects(tmp_path) -> dict[str, object]:
    """A real Tiled map (3 rows of 8 px: 24 px high) with a polyline, a polygon and a rectangle, by name."""
    level = TileMap.load(tmj(tmp_path, [[0, 0, 0, 0]] * 3, objects=[ROUTE, RING, DOOR]))
    return {thing.name: thing for thing in level.objects}


def test_a_path_is_made_from_a_tiled_polyline_or_polygon_and_refuses_an_object_without_points(tmp_path):
    objects = level_objects(tmp_path)
    route = Path.from_object(objects["route"])
    # Tiled's y points down from the map's top; the world's up from its bottom (24 px high).
    assert route.points == ((4.0, 14.0), (24.0, 14.0), (24.0, 4.0)) and not route.closed
    assert (route.length, route.angle_at(25.0)) == (30.0, -90.0)
    ring = Path.from_object(objects["ring"])
    assert (ring.length, ring.closed, ring.point_at(ring.length)) == (24.0, True, (2.0, 20.0))
    assert Path.from_object(objects["ring"], closed=False).length == 14.0
    with pytest.raises(ValueError, match="map object 'door' has no points: a path is a Tiled polyline or polygon"):
        Path.from_object(objects["door"])
    with pytest.raises(ValueError, match="map object 'bad': Path needs at least two points"):
        Path.from_object(SimpleNamespace(name="bad", points=((1.0, 1.0),), shape="polyline"))


def test_a_follower_walks_a_route_drawn_in_tiled_and_a_save_of_the_map_and_walker_goes_on(tmp_path):
    class Scout(Follower):
        saved = ("level",)

        def __init__(self, level: TileMap) -> None:
            super().__init__()
            self.level = level
            self.follow(Path.from_object(level.objects[0]), speed=3.0, turn=True, loop=True)

    with World() as straight:
        level = straight.spawn(TileMap.load(tmj(tmp_path, [[0, 0, 0, 0]] * 3, objects=[ROUTE, RING])))
        scout = straight.spawn(Scout(level))
        for _ in range(8):
            straight.tick()
        assert (scout.x, scout.y, scout.angle) == (24.0, 10.0, -90.0)
        assert_goes_on_alike(straight, tmp_path / "scout.json", ticks=30)


class Walker(Follower):
    """Walks the L at 4 units a tick, facing where it goes."""

    def __init__(self, start: float = 0.0, speed: float = 4.0, loop: bool = False) -> None:
        super().__init__()
        self.follow(L_SHAPE, speed, start=start, turn=True, loop=loop)


def test_a_follower_walks_at_its_speed_turns_at_corners_and_stops_at_the_end():
    with World() as world:
        walker = world.spawn(Walker())
        assert (walker.x, walker.y, walker.path_distance) == (0.0, 0.0, 0.0)
        places = []
        for _ in range(20):
            world.tick()
            places.append((walker.x, walker.y, walker.angle))
        assert places[6] == (28.0, 0.0, 0.0) and places[7] == (30.0, 2.0, 90.0)
        assert places[16] == (30.0, 38.0, 90.0) and places[17:] == [(30.0, 40.0, 90.0)] * 3
        assert walker.arrived and walker.path_distance == 70.0


def test_a_looping_follower_jumps_back_to_the_start_without_a_streak():
    with World() as world:
        walker = world.spawn(Walker(start=66.0, loop=True))
        world.tick()
        assert (walker.x, walker.y, walker.path_distance) == (0.0, 0.0, 0.0)
        assert walker.draw_position(0.5) == (0.0, 0.0), "snapped: previous = current after the jump"
        assert not walker.arrived


def test_a_follower_changes_speed_by_following_again_from_where_it_is():
    class Slowed(Follower):
        def update(self, world: World) -> None:
            if world.tick_count == 2:
                assert self.path is not None, "following since its spawn"
                self.follow(self.path, 1.0, start=self.path_distance)

    with World() as world:
        slowed = world.spawn(Slowed())
        slowed.follow(L_SHAPE, 10.0)
        xs = []
        for _ in range(5):
            world.tick()
            xs.append(slowed.x)
        assert xs == [10.0, 20.0, 30.0, 30.0, 30.0] and slowed.y == 2.0
        slowed.stop_following()
        assert (slowed.path, slowed.path_distance, slowed.arrived) == (None, 0.0, False)


def test_follow_refuses_what_is_not_a_path_or_a_speed():
    with pytest.raises(TypeError, match="Follower.follow takes a Path, got \\[\\(0, 0\\)\\]"):
        Follower().follow([(0, 0)], 1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="speed must be a finite number, got nan"):
        Follower().follow(L_SHAPE, math.nan)


def _id(entity: Entity) -> int:
    """A spawned entity's id."""
    assert entity.id is not None, f"{entity!r} has no id"
    return entity.id


class Tower(Entity):
    """Aims at whichever walker is furthest along: reads the others' committed distances."""

    target: int = buffered(0)

    def update(self, world: World) -> None:
        walkers = [entity for entity in world.entities if isinstance(entity, Walker)]
        best = max(walkers, key=lambda walker: (walker.path_distance, -_id(walker)))
        self.target = _id(best)


class Spawner(Entity):
    """Sends a walker every fifth tick, each a little faster: a wave."""

    def update(self, world: World) -> None:
        if world.tick_count % 5 == 0:
            world.spawn(Walker(speed=1.0 + world.tick_count / 50, loop=world.tick_count % 10 == 0))


def build_wave(world: World) -> None:
    world.spawn(Walker())
    world.spawn(Spawner())
    world.spawn(Tower())


def test_walking_is_the_same_in_every_update_order():
    assert_order_independent(build_wave, ticks=60, orders=4, inputs=None)


def test_walking_rolls_back_and_resimulates_exactly():
    assert_rollback_deterministic(build_wave, ticks=40, distance=6, inputs=None)


def test_a_save_made_mid_path_loads_and_walks_on_as_the_straight_run(tmp_path):
    with World(seed=5) as straight:
        build_wave(straight)
        for _ in range(13):
            straight.tick()
        with loaded_beside(straight, tmp_path / "mid.json", ticks=40) as loaded:
            assert [w.path_distance for w in loaded.entities if isinstance(w, Walker)] == \
                   [w.path_distance for w in straight.entities if isinstance(w, Walker)]


@pytest.mark.parametrize("route, message", [
    ([[[0.0, 0.0]], False, 0.0, 1.0, False, False], "Path needs at least two points, got 1"),
    ([[[0.0, 0.0], ["a", 1.0]], False, 0.0, 1.0, False, False], "Path point 1 must be"),
    ([[[0.0, 0.0], [1.0, 1.0]], False, "far", 1.0, False, False], "distance 'far'"),
    ([1, 2], "is not a walk \\(6 values\\)"),
])
def test_a_save_holding_a_walk_no_follow_makes_is_refused_at_load_naming_it(tmp_path, route, message):
    import json

    from engine import SaveError

    def tagged(value):
        return {"$tuple": [tagged(item) for item in value]} if isinstance(value, list) else value

    with World() as world:
        world.spawn(Walker())
        world.save(tmp_path / "walk.json")
    data = json.loads((tmp_path / "walk.json").read_text())
    data["entities"][0]["buffered"]["route"] = tagged(route)
    (tmp_path / "walk.json").write_text(json.dumps(data))
    with pytest.raises(SaveError, match=f"walk.json cannot be loaded: ValueError: Walker \\(id 1\\).route: .*{message}"):
        World.load(tmp_path / "walk.json")
