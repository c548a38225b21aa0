"""Quest: talk to the elder, take the door, and clear the cave of slimes with your sword.

The game to copy for a small adventure, built from the engine's kit, with no rule hand-made:

- the two rooms are scenes of a ``Director`` (``Quest``): a door asks ``go("cave")``, and
  every ``Staged`` entity of the room left behind (walls, doors, slimes, the elder's words)
  leaves by itself; the hero, spawned with ``world.spawn``, walks on into the next room;
- the elder's words are a ``TextBox``: Space (or Enter, or pad A) shows the rest of a page,
  then turns it; the hero waits while the box is open;
- X swings the sword: the hero is a ``Striker``, and a slime (a ``Hurtable``) loses one
  heart a swing however long the blade touches it, then blinks; slimes strike back by
  touch, and the hero blinks, safe for a moment, after each heart it loses;
- the pictures and sounds are drawn by ``make_art.py`` with ``engine.art``.

Arrows move, X swings, Space talks. Lose every heart and you wake in the village again.

    tickswap run quest --ticks 640
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine import Director, Entity, Hurtable, Look, Staged, Striker, TextBox, World, buffered, keys

DESCRIPTION = "a tiny adventure: a talking elder, two rooms, a sword and slimes (arrows, X, Space)"
WIDTH, HEIGHT = 480, 320
KEYS = (keys.LEFT, keys.RIGHT, keys.UP, keys.DOWN, keys.X, keys.SPACE)  # what `tickswap check` presses

HERE = Path(__file__).parent
SWING, SQUISH, HURT, DOOR_SOUND, PAGE = (str(HERE / f"{name}.wav") for name in ("swing", "squish", "hurt", "door",
                                                                                 "page"))
WORDS = ["Welcome, traveller. Slimes have crept into the cave to the east.",
         "Take this old sword: X swings it. Each swing lands once, so time them well.",
         "Come back when the cave is quiet."]
REACH = 14  # how far in front of the hero the blade reaches
START = {"village": (60.0, 160.0), "cave": (40.0, 160.0)}


class Quest(Director):
    """The rooms: the village (the elder, a door east) and the cave (slimes, a door west)."""

    def update(self, world: World) -> None:
        hero = world.entities_of(Hero)[0]
        if hero.health <= 0:
            self.go("village")  # the hero wakes at home
            return
        for door in world.entities_of(Door):
            # A door of the room being left may still stand this tick: only this room's doors lead on.
            if door.part_of == self.serial and world.overlapping(door, kind=Hero):
                self.go(door.to)
                world.play(DOOR_SOUND)

    def enter(self, world: World, scene: str) -> None:
        for y in range(8, HEIGHT, 16):  # the west and east walls of every room, a gap for the door
            for x in (8, WIDTH - 8):
                if not (scene == "village" and x > WIDTH / 2 and 130 < y < 190) and \
                        not (scene == "cave" and x < WIDTH / 2 and 130 < y < 190):
                    self.spawn(world, Wall(x=x, y=y))
        if scene == "village":
            self.spawn(world, Elder(x=140, y=200))
            self.spawn(world, Words(WORDS, x=WIDTH / 2, y=50, size=(440.0, 80.0), lines=2, speed=2))
            self.spawn(world, Door("cave", x=WIDTH - 8, y=160))
        else:
            for n in range(3):
                self.spawn(world, Slime(x=220 + 70 * n, y=100 + 60 * n))
            self.spawn(world, Door("village", x=8, y=160))


class Wall(Staged):
    look = Look(image=HERE / "wall.png")


class Door(Staged):
    look = Look(image=HERE / "door.png")
    saved = ("to",)

    def __init__(self, to: str, x: float, y: float) -> None:
        super().__init__(x=x, y=y)
        self.to = to


class Elder(Staged):
    look = Look(image=HERE / "elder.png")


class Words(Staged, TextBox):
    """The elder's words: a text box that belongs to the village."""

    def update(self, world: World) -> None:
        page = self.page
        super().update(world)
        if self.page != page:
            world.play(PAGE)


class Slime(Staged, Striker, Hurtable):
    """Wanders; strikes the hero by touch, a new swing each second; three hearts."""

    look = Look(image=HERE / "slime.png")
    INVULNERABLE_TICKS = 24
    heading = buffered(0)

    def update(self, world: World) -> None:
        if self.health <= 0:
            world.despawn(self)
            return
        if world.tick_count % 64 == 0:
            self.start_swing()
            self.heading = self.random.randrange(4)
        dx, dy = ((1, 0), (-1, 0), (0, 1), (0, -1))[self.heading]
        if not world.overlapping_at(self.x + dx, self.y + dy, (16, 16), kind=Wall) and \
                40 < self.x + dx < WIDTH - 40 and 40 < self.y + dy < HEIGHT - 40:
            self.x += dx
            self.y += dy
        for hero in world.overlapping(self, kind=Hero):
            self.strike(hero)

    def on_hurt(self, world: Any, damage: int, striker: int) -> None:
        world.play(SQUISH)


class Hero(Striker, Hurtable):
    """Arrows move (not while the elder speaks), X swings the sword for 10 ticks; three hearts."""

    look = Look(image=HERE / "hero.png")
    INVULNERABLE_TICKS = 64
    facing = buffered(1)
    swinging = buffered(0)
    room = buffered(0)  # the quest's serial this hero last stood in

    def update(self, world: World) -> None:
        quest = world.entities_of(Quest)[0]
        if quest.serial != self.room:  # a new room: come in at its door
            self.room = quest.serial
            self.x, self.y = START[quest.scene]
            if self.health <= 0:
                self.health = 3
            self.snap()
            return
        pressed = world.input.pressed
        listening = any(words.visible for words in world.entities_of(Words))
        dx = 0 if listening else 2 * (pressed(keys.RIGHT) - pressed(keys.LEFT))
        dy = 0 if listening else 2 * (pressed(keys.UP) - pressed(keys.DOWN))
        if dx:
            self.facing = 1 if dx > 0 else -1
        if not world.overlapping_at(self.x + dx, self.y + dy, (16, 16), kind=Wall):
            self.x += dx
            self.y += dy
        if self.swinging:
            self.swinging -= 1
            for slime in world.overlapping_at(self.x + self.facing * REACH, self.y, (16, 16), kind=Slime):
                self.strike(slime)
        elif world.input.just_pressed(keys.X) and not listening:
            self.start_swing()
            self.swinging = 10
            world.play(SWING)

    def on_hurt(self, world: Any, damage: int, striker: int) -> None:
        world.play(HURT)


class Hearts(Entity):
    """The hearts left, fixed on the screen."""

    def update(self, world: World) -> None:
        hero = world.entities_of(Hero)[0]
        text = "hearts " + "*" * max(0, hero.health)
        if self.look is None or self.look.text != text:
            self.look = Look(text=text, size=12, screen=True, anchor_x="left", color=(255, 119, 168))


def build(world: World) -> None:
    world.spawn(Quest("village"))
    world.spawn(Hero(x=START["village"][0], y=START["village"][1]))
    world.spawn(Hearts(x=24, y=HEIGHT - 12))
