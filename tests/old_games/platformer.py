"""Platformer: a hero runs and jumps over blocks, collecting coins (written from tickswap 0.2's README).

One of "the old platformer and Pong": games and tests written from the README of tickswap
0.2, two versions back, with 0.2's API (``world.take_sounds()``, the ``world`` fixture,
``World.load``, ``tickswap run platformer.py``). They stay here unchanged, so that a game
and its tests written then keep passing (warnings allowed). Four of their eleven tests
(a test's hash against the command line's, saves between them) failed in 0.2 and 0.3
too, as issue 31 found: a class's name then depended on how its module was loaded.
Run it: ``python platformer.py`` (or ``--ticks 600``).
"""

from pathlib import Path

from engine import Camera, Entity, Look, World, buffered, keys, run, signal

WIDTH, HEIGHT = 480, 320
GRAVITY = 0.5
JUMP = str(Path(__file__).with_name("jump.wav"))
COIN = str(Path(__file__).with_name("coin.wav"))


class Block(Entity):
    """A piece of ground."""

    look = Look("square", 32, (90, 160, 60))


class Coin(Entity):
    """Taken when the hero touches it."""

    look = Look("circle", 12, (250, 210, 60))

    def __init__(self, x, y, director):
        super().__init__(x=x, y=y)
        self.director = director

    saved = ("director",)

    def update(self, world):
        if world.overlapping(self, Hero):
            self.director.collected = True
            world.play(COIN)
            world.despawn(self)


class Director(Entity):
    """Keeps the score: a text look that changes when a coin is collected."""

    look = Look(text="Coins 0", size=14, layer=1)
    collected = signal()
    saved = ("coins",)

    def __init__(self):
        super().__init__(x=60, y=HEIGHT - 20)
        self.coins = 0

    def update(self, world):
        if self.collected:
            self.coins += 1
            self.look = Look(text=f"Coins {self.coins}", size=14, layer=1)

    def on_load(self, world):
        self.look = Look(text=f"Coins {self.coins}", size=14, layer=1)


class Hero(Entity):
    """Runs with the arrows, jumps with Space, falls onto blocks."""

    look = Look("square", (20, 28), (220, 80, 80))
    vy = buffered(0.0)
    saved = ("on_ground",)

    def __init__(self):
        super().__init__(x=40, y=120)
        self.on_ground = False

    def update(self, world):
        held = world.input.pressed
        self.x += 3 * (held(keys.RIGHT) - held(keys.LEFT))
        if self.on_ground and world.input.just_pressed(keys.SPACE):
            self.vy = 8.0
            world.play(JUMP)
        self.vy -= GRAVITY
        self.y += self.vy
        self.on_ground = False
        if self.y <= 46:                      # the ground's top (blocks at y 16, 32 high) plus half a hero
            self.y = 46
            self.vy = 0.0
            self.on_ground = True


class Follow(Camera):
    """Follows the hero smoothly."""

    saved = ("hero",)

    def __init__(self, hero):
        super().__init__(hero.x, HEIGHT / 2)
        self.hero = hero

    def update(self, world):
        self.x += (self.hero.x - self.x) * 0.1


def build(world: World):
    for n in range(40):
        world.spawn(Block(x=16 + 32 * n, y=16))
    director = world.spawn(Director())
    for n in range(5):
        world.spawn(Coin(x=120 + 90 * n, y=46, director=director))
    hero = world.spawn(Hero())
    world.spawn(Follow(hero))


if __name__ == "__main__":
    run(build)
