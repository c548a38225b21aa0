"""Explorer: walk a world four times the window's size and pick up every gem.

The game to copy when yours needs a camera and sound: a ``Camera`` is an entity like
any other, so it follows the player in its own ``update`` (easing toward the player's
committed position), is interpolated between ticks, saved and replayed. Gems ask for a
sound with ``world.play`` when picked up; the sound is played after the tick, never
changes game state, and is silent headless. Arrow keys or WASD walk.

    tickswap run explorer --ticks 640
"""

from __future__ import annotations

from pathlib import Path

from engine import Camera, Entity, Look, World, keys

DESCRIPTION = "a camera follows the player through a world larger than the window; gems chime (arrows)"
WIDTH, HEIGHT = 640, 480
WORLD_WIDTH, WORLD_HEIGHT = 2560, 1920
PICKUP = str(Path(__file__).with_name("pickup.wav"))


class Player(Entity):
    """Walks with the arrow keys or WASD, inside the world's edges."""

    look = Look("circle", 20, (255, 210, 90), layer=1)

    def update(self, world: World) -> None:
        held = world.input.pressed
        right = held(keys.RIGHT) or held(keys.D)
        left = held(keys.LEFT) or held(keys.A)
        up = held(keys.UP) or held(keys.W)
        down = held(keys.DOWN) or held(keys.S)
        self.x = min(WORLD_WIDTH, max(0.0, self.x + 4 * (right - left)))
        self.y = min(WORLD_HEIGHT, max(0.0, self.y + 4 * (up - down)))


class Follow(Camera):
    """Eases a tenth of the way to the player each tick: smooth, and the same in every replay."""

    saved = ("player",)

    def __init__(self, player: Player) -> None:
        super().__init__(player.x, player.y)
        self.player = player

    def update(self, world: World) -> None:
        self.x += (self.player.x - self.x) * 0.1
        self.y += (self.player.y - self.y) * 0.1


class Gem(Entity):
    """Chimes and vanishes when the player touches it."""

    look = Look("diamond", 16, (90, 255, 200))

    def update(self, world: World) -> None:
        if world.overlapping(self, Player):
            world.play(PICKUP)
            world.despawn(self)


class Tree(Entity):
    """Scenery, to see the world scroll by."""

    look = Look("circle", 40, (40, 110, 60))


def build(world: World) -> None:
    """Trees and gems scattered by the world's random, the player in the middle, a camera on it."""
    for _ in range(120):
        world.spawn(Tree(world.random.uniform(0, WORLD_WIDTH), world.random.uniform(0, WORLD_HEIGHT)))
    for _ in range(40):
        world.spawn(Gem(world.random.uniform(0, WORLD_WIDTH), world.random.uniform(0, WORLD_HEIGHT)))
    player = world.spawn(Player(WORLD_WIDTH / 2, WORLD_HEIGHT / 2))
    world.spawn(Follow(player))
