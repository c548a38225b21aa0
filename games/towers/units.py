"""The towers sample's units: enemies that walk the route, the towers that shoot them, and the shots.

Every unit talks to the others only through what the engine makes order-independent:
collision queries (``world.near``, ``world.overlapping``) read the positions the tick
began with, and hits are signals (``damage = signal(sum)``), seen the tick after. So the
game is the same in every update order (``tickswap check towers``).

Shots are entities (``Shot``), or, in the game's second mode, members of one ``Crowd``
(``Shots``) that asks once a tick which of them hit an enemy
(``world.overlapping_members``): the same rules, a fraction of the cost.
"""

from __future__ import annotations

import math
from pathlib import Path as FilePath
from typing import Any, ClassVar

import numpy as np

from engine import Crowd, Entity, Follower, Look, Part, Particles, Path, World, buffered, signal
from engine.portable import DEGREES, RADIANS, atan2, sin_cos

HERE = FilePath(__file__).parent
SHOOT, POP, LEAK = (str(HERE / name) for name in ("shoot.wav", "pop.wav", "leak.wav"))
SHOT = Look(image=str(HERE / "shot.png"), layer=3)
SHOT_SIZE = (6.0, 6.0)
"""A shot's box, in pixels."""


def health_bars() -> tuple[tuple[Part, ...], ...]:
    """The bar over an enemy at each tenth of its health (0 to 10), made once and shared by every enemy."""
    backing = Part(Look("square", (22, 4), (26, 28, 44), layer=4), offset=(0, 17), turns=False)
    bars = [(backing,)]
    for tenths in range(1, 11):
        width = 2 * tenths
        color = (56, 183, 100) if tenths > 5 else (255, 205, 117) if tenths > 2 else (177, 62, 83)
        bars.append((backing, Part(Look("square", (width, 2), color, layer=5), offset=((width - 20) / 2, 17),
                                   turns=False)))
    return tuple(bars)


BARS = health_bars()


class Enemy(Follower):
    """Walks the route (a ``Follower``); shots hurt it; dead, it pays its reward and puffs; at the end, a life is lost.

    Its kind (a subclass) says its look, speed and reward; a wave says its health.
    """

    hitbox = (20.0, 20.0)
    speed: ClassVar[float] = 1.5
    reward: ClassVar[int] = 2
    hp = buffered(1)
    damage = signal(sum)  # sent by the shots that hit it
    saved = ("game", "max_hp")

    def __init__(self, game: Any, route: Path, hp: int, speed: float | None = None) -> None:
        super().__init__()
        self.game = game
        self.hp = self.max_hp = hp
        self.follow(route, self.speed if speed is None else speed)

    def update(self, world: World) -> None:  # the Follower has taken its step along the route already
        if self.damage:
            self.hp -= self.damage.value
            if self.hp <= 0:
                self.game.earned.send(self.reward)
                world.spawn(Particles.burst(self.x, self.y, 10, speed=(0.6, 2.0), lifetime=(10, 20),
                                            color=(255, 205, 117), size=5, shrink=True, layer=3))
                world.play(POP, volume=0.5, limit=4)
                world.despawn(self)
                return
            self.parts = BARS[math.ceil(10 * self.hp / self.max_hp)]
        if self.arrived:
            self.game.leaked.send(1)
            world.play(LEAK, limit=2)
            world.despawn(self)


class Grunt(Enemy):
    look = Look(image=str(HERE / "grunt.png"), layer=2)
    speed, reward = 1.5, 3


class Runner(Enemy):
    look = Look(image=str(HERE / "runner.png"), layer=2)
    speed, reward = 2.4, 3


class Brute(Enemy):
    look = Look(image=str(HERE / "brute.png"), layer=2)
    hitbox = (26.0, 26.0)
    speed, reward = 1.0, 10


class Tower(Entity):
    """Every ``every`` ticks, when an enemy is within ``reach``, it fires (its kind says how)."""

    cost: ClassVar[int]
    reach: ClassVar[float]
    every: ClassVar[int]
    cooldown = buffered(0)
    saved = ("game", "shots")

    def __init__(self, x: float, y: float, game: Any, shots: Shots) -> None:
        super().__init__(x=x, y=y)
        self.game, self.shots = game, shots

    def update(self, world: World) -> None:
        if self.cooldown:
            self.cooldown -= 1
            return
        targets = world.near(self.x, self.y, self.reach, Enemy)
        if targets:
            self.fire(world, targets)
            self.cooldown = self.every - 1

    def fire(self, world: World, targets: list[Enemy]) -> None:
        raise NotImplementedError

    def shoot(self, world: World, headings: list[float], speed: float, life: int) -> None:
        """A shot from the tower's centre at each heading (degrees): entities, or, in crowd mode, rows of the
        crowd of shots, all in one ``spawn_members`` (one call for a volley: a crowd's cost is per call)."""
        velocities = []
        for degrees in headings:
            sine, cosine = sin_cos(degrees * RADIANS)  # engine.portable: the same bits on every machine
            velocities.append((speed * cosine, speed * sine))
        if self.game.crowd_shots:
            count = len(velocities)
            self.shots.spawn_members(position=[(self.x, self.y)] * count, velocity=velocities, life=[(life,)] * count)
        else:
            for dx, dy in velocities:
                world.spawn(Shot(self.x, self.y, dx, dy, life))


class Gun(Tower):
    """Aims at the enemy furthest along the route within reach: one fast shot; its barrel turns to it."""

    look = Look(image=str(HERE / "gun.png"), layer=1)
    parts = (Part(Look(image=str(HERE / "barrel.png"), layer=2), offset=(6, 0)),)  # turns with the tower
    cost, reach, every = 25, 120.0, 10

    def fire(self, world: World, targets: list[Enemy]) -> None:
        target = max(targets, key=lambda enemy: enemy.path_distance)  # ties: the first, by id
        self.angle = atan2(target.y - self.y, target.x - self.x) * DEGREES
        self.shoot(world, [self.angle], 7.0, 24)
        world.play(SHOOT, volume=0.3, limit=3)


class Tack(Tower):
    """Eight slow shots every way at once: most miss, and fly on until they die out."""

    look = Look(image=str(HERE / "tack.png"), layer=1)
    parts = (Part(Look(image=str(HERE / "spikes.png"), layer=2)),)
    cost, reach, every = 60, 80.0, 4

    def fire(self, world: World, targets: list[Enemy]) -> None:
        self.angle = (self.angle + 22.5) % 360.0  # every other volley between the last one's spokes
        self.shoot(world, [self.angle + spoke * 45.0 for spoke in range(8)], 4.0, 48)


class Shot(Entity):
    """Flies straight; the first enemy it touches takes a point of damage, and the shot is spent."""

    look = SHOT
    hitbox = SHOT_SIZE
    saved = ("dx", "dy", "life")

    def __init__(self, x: float, y: float, dx: float, dy: float, life: int) -> None:
        super().__init__(x=x, y=y)
        self.dx, self.dy, self.life = dx, dy, life

    def update(self, world: World) -> None:
        hit = world.overlapping(self, Enemy)  # where the shot and the enemies were as the tick began
        if hit:
            hit[0].damage.send(1)
            world.despawn(self)
            return
        self.life -= 1
        if self.life == 0:
            world.despawn(self)
            return
        self.x += self.dx
        self.y += self.dy


class Shots(Crowd):
    """Every shot as one crowd: the same rules as ``Shot``, in a few numpy calls a tick."""

    fields: ClassVar[dict[str, int]] = {"position": 2, "velocity": 2, "life": 1}
    look = SHOT
    hitbox = SHOT_SIZE

    def update(self, world: World) -> None:
        members, hit = world.overlapping_members(self, Enemy)  # pairs, by member, then enemy id
        first = np.unique(members, return_index=True)[1]  # a shot hits the first enemy it touches only
        for index in first:
            hit[index].damage.send(1)
        life = np.subtract(self.current("life"), 1.0, out=self.next("life"))
        spent = life[:, 0] <= 0.0
        spent[members] = True
        self.despawn_members(spent)
        np.add(self.current("position"), self.current("velocity"), out=self.next("position"))
