"""engine.stage: a Director's scenes, rounds and levels, whose Staged entities leave with them.

Each test fails without the piece it names: the director entering scenes, parts leaving by
themselves before they act, a level's map changing in one operation; and the whole is held
to the engine's checkers (order independence, rollback, save and load, the command line's).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from mapfiles import tmj

from engine import Entity, World
from engine.stage import Director, Staged
from engine.testing import assert_order_independent, assert_rollback_deterministic, assert_same_after_load, load_game
from engine.tools.cli import main
from engine.world import take_sounds

LEVELS = '''
"""Levels: a walker crosses two rooms, each a Tiled map with its coins; R restarts the room."""

from pathlib import Path

from engine import Entity, Look, Tile, TileMap, World, buffered, keys
from engine.stage import Director, Staged

HERE = Path(__file__).parent
KEYS = (keys.R,)
COINS = {"room1": 3, "room2": 5}


class Game(Director):
    def update(self, world):
        walker = world.entities_of(Walker)[0]
        if walker.x < walker.prev_x:                 # it wrapped round: the next room
            self.go("room2" if self.scene == "room1" else "room1")
        elif world.input.just_pressed(keys.R):
            self.go(self.scene)                      # the same room again: a new round

    def enter(self, world, scene):
        self.spawn(world, Room.load(HERE / f"{scene}.tmj"))
        for n in range(COINS[scene]):
            self.spawn(world, Coin(x=20 + 24 * n, y=4))


class Room(Staged, TileMap):
    """A map that is part of a level: it leaves with it."""


class Coin(Staged):
    look = Look("circle", 4, (255, 220, 0))
    taken = buffered(0)

    def update(self, world):
        if world.overlapping(self, kind=Walker):
            world.play(HERE / "coin.wav")
            world.despawn(self)


class Walker(Entity):
    look = Look("square", 4, (90, 200, 255))
    bumps = buffered(0)

    def update(self, world):
        self.x += 2
        if self.x > 150:
            self.x = 2
        self.bumps += len(world.overlapping_at(self.x, self.y, (4, 4), kind=Tile))


def build(world: World):
    world.spawn(Game("room1"))
    world.spawn(Walker(x=2, y=4))
'''

# room1's solid column is at x 40-48, room2's at 80-88 (tiles of 8 px, one row, y 0-8).
ROOM1 = [[0] * 5 + [1] + [0] * 14]
ROOM2 = [[0] * 10 + [1] + [0] * 9]


@pytest.fixture
def levels(tmp_path: Path) -> Path:
    tmj(tmp_path, ROOM1, name="room1.tmj")
    tmj(tmp_path, ROOM2, name="room2.tmj")
    game = tmp_path / "levels.py"
    game.write_text(LEVELS)
    return game


def _names(world: World) -> list[str]:
    return sorted(type(entity).__name__ for entity in world.entities)


def test_a_scene_change_is_one_go_its_parts_leave_and_the_next_scenes_join_a_tick_later(levels):
    game = load_game(str(levels))
    with World(seed=0) as world:
        game.setup(world)
        director = world.entities_of(Director)[0]
        world.tick()
        assert _names(world) == ["Coin"] * 3 + ["Game", "Room", "Walker"]
        rooms, seen = [], []
        for _ in range(100):
            world.tick()
            room = [entity for entity in world.entities if type(entity).__name__ == "Room"]
            rooms.append((director.scene, len(room)))
            seen.append(_names(world).count("Coin"))
        assert director.scene == "room2" and director.serial == 2
        assert all(count == 1 for _, count in rooms), "never two maps, never none: the old leaves as the new joins"
        assert 5 in seen, "room2's five coins joined"


def test_the_old_levels_map_stops_colliding_and_the_new_ones_collides(levels):
    game = load_game(str(levels))
    with World(seed=0) as world:
        game.setup(world)
        walker: Any = next(entity for entity in world.entities if type(entity).__name__ == "Walker")
        laps: list[set[float]] = [set(), set()]
        lap = 0
        for _ in range(148):
            before, x_before = walker.bumps, walker.x
            world.tick()
            lap += walker.x < x_before
            if walker.bumps > before:
                laps[lap].add(walker.x)
        # The first lap in room1 bumps its wall at 40-48 only; the second, in room2, its wall at 80-88 only.
        assert laps[0] and all(36 <= x <= 48 for x in laps[0]), laps[0]
        assert laps[1] and all(76 <= x <= 88 for x in laps[1]), laps[1]


class Beeper(Staged):
    def update(self, world):
        world.play("beep.wav")


class Show(Director):
    def enter(self, world, scene):
        if scene == "one":
            self.spawn(world, Beeper())


def test_a_part_whose_scene_ended_leaves_before_it_acts_in_every_order():
    for order in range(4):
        with World(seed=order) as world:
            show = world.spawn(Show("one"))
            for _ in range(3):
                world.spawn(Entity())
            world.tick()
            world.tick()
            assert [request.path for request in take_sounds(world)] == ["beep.wav"]
            show.go("two")                # between ticks, as a test or build may
            world.shuffle_order(random.Random(order))
            world.tick()                  # the change is committed: the beeper leaves, silent
            assert take_sounds(world) == [] and world.entities_of(Beeper) == []


def test_go_with_the_scene_on_starts_a_new_round_with_new_parts():
    with World() as world:
        show = world.spawn(Show("one"))
        world.tick()
        first = world.entities_of(Beeper)
        show.go("one")
        world.tick()
        world.tick()
        second = world.entities_of(Beeper)
        assert len(first) == len(second) == 1 and first[0] is not second[0] and not first[0].alive


def test_a_director_spawns_only_staged_entities_and_a_scene_is_a_name():
    with World() as world:
        show = world.spawn(Show("one"))
        with pytest.raises(TypeError, match=r"Entity is not Staged.*class Entity\(Staged, \.\.\.\)"):
            show.spawn(world, Entity())
        with pytest.raises(ValueError, match="name of a scene"):
            show.go("")


def test_levels_are_order_independent_rolled_back_and_the_same_after_a_load(levels):
    game = load_game(str(levels))
    assert_order_independent(game, ticks=240, orders=3)
    assert_rollback_deterministic(game, ticks=240, distance=8)
    assert_same_after_load(game, ticks=240, saves=4)


def test_levels_pass_the_command_lines_checks_and_replay(levels, tmp_path, capsys):
    script = tmp_path / "keys.jsonl"
    script.write_text('{"tick": 30, "input": [["key_press", "R", 0, 0]]}\n')
    replay = tmp_path / "levels.jsonl"
    assert main(["run", str(levels), "--ticks", "240", "--input", str(script), "--record", str(replay)]) == 0
    assert main(["replay", str(replay), "--game", str(levels)]) == 0
    assert main(["check", str(levels), "--ticks", "240", "--orders", "3", "--input", str(script)]) == 0
    assert main(["check", str(levels), "--ticks", "240", "--rollback", "8", "--input", str(script)]) == 0
