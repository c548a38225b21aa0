"""Changing rooms (one TileMap despawned, another spawned in the same tick): collisions follow the state.

Issue 39's defects 8 and 9: the collision tables kept the old map's solid tiles when the new
map stood where it stood (every map lies at (0, 0)), and a rollback to before the change got
the new map's tiles back with the old map.
"""

from __future__ import annotations

from pathlib import Path

from mapfiles import tmj

from engine import Entity, Tile, TileMap, World, buffered
from engine.tools.cli import main

# Room one is solid along its left column, room two along its right one: a box at the
# left edge touches room one's wall only.
ROOM_ONE = [[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]
ROOM_TWO = [[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1]]


class Feeler(Entity):
    """Asks every tick whether the left wall is there, and counts the ticks it was."""

    touched = buffered(0)

    def update(self, world: World) -> None:
        if world.overlapping_at(4.0, 12.0, (2.0, 2.0), kind=Tile):
            self.touched += 1


class Door(Entity):
    """At tick ``at``, despawns every map and spawns ``room``: a room change in one tick."""

    ticks = buffered(0)

    def __init__(self, room: Path, at: int) -> None:
        super().__init__()
        self.room, self.at = room, at

    def update(self, world: World) -> None:
        self.ticks += 1
        if self.ticks == self.at:
            for level in world.entities_of(TileMap):
                world.despawn(level)
            world.spawn(TileMap.load(self.room))


def rooms(tmp_path: Path) -> tuple[Path, Path]:
    return tmj(tmp_path, ROOM_ONE, name="one.tmj"), tmj(tmp_path, ROOM_TWO, name="two.tmj")


def test_a_map_despawned_as_another_spawns_collides_no_more(tmp_path):
    one, two = rooms(tmp_path)
    with World() as world:
        world.spawn(TileMap.load(one))
        feeler = world.spawn(Feeler())
        world.spawn(Door(two, at=3))
        for _ in range(3):
            world.tick()
        assert feeler.touched == 3  # room one's wall, ticks 1 to 3 (the door's change lands after tick 3)
        for _ in range(5):
            world.tick()
        assert [level.map for level in world.entities_of(TileMap)] == ["two.tmj"]
        assert feeler.touched == 3, "room one's wall still answered after room one was despawned"
        assert world.overlapping_at(4.0, 12.0, (2.0, 2.0), kind=Tile) == []
        assert [tile.column for tile in world.overlapping_at(28.0, 12.0, (2.0, 2.0), kind=Tile)] == [3]


class LateFeeler(Feeler):
    """A feeler that first asks at its tick ``start``: the world's first collision query comes after the change."""

    ticks = buffered(0)

    def __init__(self, start: int) -> None:
        super().__init__()
        self.start = start

    def update(self, world: World) -> None:
        self.ticks += 1
        if self.ticks >= self.start:
            super().update(world)


def test_a_rollback_to_before_the_change_brings_back_the_old_maps_collisions(tmp_path):
    one, two = rooms(tmp_path)
    with World() as world:
        world.spawn(TileMap.load(one))
        feeler = world.spawn(LateFeeler(start=5))
        world.spawn(Door(two, at=3))
        world.tick()
        checkpoint = world.checkpoint()
        for _ in range(5):
            world.tick()
        assert feeler.touched == 0  # room two has no left wall
        after = world.state_hash()
        world.rollback(checkpoint)
        assert [level.map for level in world.entities_of(TileMap)] == ["one.tmj"]
        assert [tile.column for tile in world.overlapping_at(4.0, 12.0, (2.0, 2.0), kind=Tile)] == [0], \
            "after the rollback, room two's tiles answered for room one"
        world.tick()
        assert [tile.column for tile in world.overlapping_at(4.0, 12.0, (2.0, 2.0), kind=Tile)] == [0]
        for _ in range(4):
            world.tick()
        assert world.state_hash() == after


TWO_ROOMS = '''
"""Two rooms joined by a door: the walker crosses, the map changes in one tick."""
from pathlib import Path

from engine import Entity, Tile, TileMap, buffered

HERE = Path(__file__).parent


class Walker(Entity):
    hitbox = (6.0, 6.0)
    bumps = buffered(0)
    room = buffered(1)

    def update(self, world):
        self.x = self.x + 1.0
        if world.overlapping_at(self.x, self.y, (6.0, 6.0), kind=Tile):
            self.bumps += 1
        if self.x >= 20.0:  # the door: the other room, back at the left
            for level in world.entities_of(TileMap):
                world.despawn(level)
            self.room = 3 - self.room
            world.spawn(TileMap.load(HERE / ("one.tmj" if self.room == 1 else "two.tmj")))
            self.x = 0.0


def build(world):
    world.spawn(TileMap.load(HERE / "one.tmj"))
    world.spawn(Walker(0.0, 12.0))
'''


def test_tickswap_check_and_check_rollback_pass_a_two_room_game(tmp_path, capsys):
    rooms(tmp_path)
    game = tmp_path / "rooms.py"
    game.write_text(TWO_ROOMS)
    assert main(["check", str(game), "--ticks", "120"]) == 0, capsys.readouterr()
    assert main(["check", str(game), "--rollback", "8", "--ticks", "120"]) == 0, capsys.readouterr()
