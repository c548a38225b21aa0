"""A tiny game for up to three players, for the network session tests (loaded as a game file)."""

from __future__ import annotations

from engine import Entity, World, keys

PLAYERS = range(1, 4)
DESCRIPTION = "each player's mover goes right on RIGHT, left on LEFT, and drifts with world.random"
KEYS = (keys.LEFT, keys.RIGHT)
SPEED = 1.5


class Mover(Entity):
    """Player ``player``'s mover."""

    saved = ("player",)

    def __init__(self, player: int) -> None:
        super().__init__(x=100.0 * player, y=0.0)
        self.player = player

    def update(self, world: World) -> None:
        held = world.input_of(self.player)
        if held.pressed(keys.RIGHT):
            self.x += SPEED
        if held.pressed(keys.LEFT):
            self.x -= 1.0
        self.y += self.random.random()


def build(world: World) -> None:
    for player in range(world.players):
        world.spawn(Mover(player))
