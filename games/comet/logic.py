"""Comet: turn, thrust and shoot the rocks before they hit you.

A small Asteroids, and the game to copy when yours needs text, rotation and
collisions: the ship turns by its buffered ``angle`` (drawn interpolated), a bullet and a
rock that overlap both see it in the same tick through ``world.overlapping`` (committed
positions, so update order never matters), the score is an entity whose look is text,
and hits ask for sounds with ``world.play``. Left and Right turn, Up thrusts, Space fires.

    tickswap run comet --ticks 640
"""

from __future__ import annotations

import math
from pathlib import Path

from engine import Entity, Look, World, buffered, keys, signal

DESCRIPTION = "a ship shoots rocks: text score, rotation, collisions and sound (arrows, Space)"
WIDTH, HEIGHT = 640, 480
BANG = str(Path(__file__).with_name("bang.wav"))
SHOT = str(Path(__file__).with_name("shot.wav"))


def wrap(entity: Entity) -> None:
    """Leave one side of the screen, come back on the other."""
    entity.x %= WIDTH
    entity.y %= HEIGHT


class Ship(Entity):
    """Turns with Left/Right, thrusts with Up, fires with Space; loses a life on a rock."""

    look: Look | None = Look("diamond", (30, 16), (120, 220, 255))
    saved = ("dx", "dy", "cooldown", "safe")
    lives = buffered(3)  # buffered: the score reads it, in any update order

    def __init__(self) -> None:
        super().__init__(x=WIDTH / 2, y=HEIGHT / 2)
        self.angle = 90.0
        self.dx = self.dy = 0.0
        self.cooldown = 0
        self.safe = 60  # ticks of grace after a (re)spawn, so a rock at the centre can't kill twice

    def update(self, world: World) -> None:
        if self.lives == 0:
            return  # game over: the score says so
        held = world.input.pressed
        self.angle = (self.angle + 5.0 * (held(keys.LEFT) - held(keys.RIGHT))) % 360.0
        heading = math.radians(self.angle)
        if held(keys.UP):
            self.dx += 0.2 * math.cos(heading)
            self.dy += 0.2 * math.sin(heading)
        self.dx, self.dy = self.dx * 0.99, self.dy * 0.99
        self.x += self.dx
        self.y += self.dy
        wrap(self)
        self.cooldown = max(0, self.cooldown - 1)
        if held(keys.SPACE) and self.cooldown == 0:
            self.cooldown = 8
            nose = (self.x + 14 * math.cos(heading), self.y + 14 * math.sin(heading))
            world.spawn(Bullet(*nose, 7 * math.cos(heading), 7 * math.sin(heading)))
            world.play(SHOT, volume=0.4)
        if self.safe:
            self.safe -= 1
        elif world.overlapping(self, Rock):
            self.lives -= 1
            self.safe = 90
            world.play(BANG)
            self.x, self.y, self.dx, self.dy = WIDTH / 2, HEIGHT / 2, 0.0, 0.0
            self.snap()  # a teleport: don't draw it streaking across the screen
            if self.lives == 0:
                self.look = None  # hidden: a look set on one entity is state, saved and loaded with it


class Bullet(Entity):
    """Flies straight for a while; gone when it hits a rock."""

    look = Look("circle", 5, (255, 255, 160))
    saved = ("dx", "dy", "life")

    def __init__(self, x: float, y: float, dx: float, dy: float) -> None:
        super().__init__(x=x, y=y)
        self.dx, self.dy, self.life = dx, dy, 60

    def update(self, world: World) -> None:
        self.life -= 1
        if self.life <= 0 or world.overlapping(self, Rock):
            world.despawn(self)
            return
        self.x += self.dx
        self.y += self.dy
        wrap(self)


class Rock(Entity):
    """Drifts and tumbles; shot, it breaks with a bang."""

    look = Look("square", 34, (150, 140, 130))
    saved = ("dx", "dy", "spin")

    def __init__(self, x: float, y: float, dx: float, dy: float, spin: float) -> None:
        super().__init__(x=x, y=y)
        self.dx, self.dy, self.spin = dx, dy, spin

    def update(self, world: World) -> None:
        if world.overlapping(self, Bullet):
            world.despawn(self)
            world.play(BANG, volume=0.7)
            # Tell the score and the sky with signals: they read them next tick, whatever the order.
            for score in world.entities_of(Score):
                score.hits.send(1)
            for sky in world.entities_of(Sky):
                sky.lost.send(1)
            return
        self.x += self.dx
        self.y += self.dy
        self.angle = (self.angle + self.spin) % 360.0
        wrap(self)


class Score(Entity):
    """The score and lives, as text: its look changes whenever they do."""

    look = Look(text="Score 0", size=16, layer=1)
    saved = ("points", "ship")
    hits = signal(sum)

    def __init__(self, ship: Ship) -> None:
        super().__init__(x=WIDTH / 2, y=HEIGHT - 20)
        self.ship = ship
        self.points = 0

    def update(self, world: World) -> None:
        self.points += 10 * self.hits.value  # every rock shot last tick sent one

        lives = self.ship.lives
        text = f"Score {self.points}   Lives {lives}" if lives else f"Game over   Score {self.points}"
        if text != self.look.text:
            self.look = Look(text=text, size=16, layer=1)


class Sky(Entity):
    """No look: keeps five rocks in play, thrown in from the edges at random (its own generator)."""

    saved = ("rocks",)
    lost = signal(sum)

    def __init__(self) -> None:
        super().__init__()
        self.rocks = 0

    def update(self, world: World) -> None:
        # Counted from signals, not from world.entities_of(Rock): a rock shot earlier in this
        # tick is already gone from that list, which would make the count depend on update order.
        self.rocks -= self.lost.value
        while self.rocks < 5:
            self.rocks += 1
            side = self.random.random() * (WIDTH + HEIGHT)
            x, y = (side, 0.0) if side < WIDTH else (0.0, side - WIDTH)
            speed, turn = self.random.uniform(0.5, 2.0), self.random.uniform(0, 2 * math.pi)
            world.spawn(Rock(x, y, speed * math.cos(turn), speed * math.sin(turn), self.random.uniform(-3, 3)))


def build(world: World) -> None:
    """The ship, its score, and a sky that throws rocks."""
    ship = world.spawn(Ship())
    world.spawn(Score(ship))
    world.spawn(Sky())
