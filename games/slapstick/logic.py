"""Slapstick: actors in a ring, each slapping the one it faces when it is slapped.

The Double Buffer's own example from Game Programming Patterns. A slap given during a
tick is seen during the next, whoever updates first, so the slap travels one actor per
tick in every update order. Press R to shuffle the stage's update order: nothing
changes. Press B to switch the buffer off: each actor now reacts to a slap the moment
it lands, so the slap races round the ring within one tick, as far as the update order
lets it, and where it ends up depends on that order. Each slap leaves a mark, spawned
mid-tick, that fades after a few ticks.

    tickswap run slapstick --ticks 640
"""

from __future__ import annotations

import math

from engine import Entity, World, buffered, keys

DESCRIPTION = "actors slap the one they face: R shuffles the update order, B turns the buffer off"
WIDTH, HEIGHT = 480, 480
ACTORS = 7


class Actor(Entity):
    """Slaps the actor it faces when it was slapped."""

    slaps = buffered(0)
    saved = ("index", "director", "facing", "raw_slapped")

    def __init__(self, index: int, director: Director) -> None:
        angle = 2 * math.pi * index / ACTORS
        super().__init__(x=WIDTH / 2 + 170 * math.cos(angle), y=HEIGHT / 2 + 170 * math.sin(angle))
        self.index = index
        self.director = director
        self.facing: Actor | None = None
        self.raw_slapped = False  # the unbuffered flag, used only with the buffer off

    def update(self, world: World) -> None:
        assert self.facing is not None
        # Either flag counts in either mode, so the slap in flight survives a press of B.
        if not (self.was_slapped() or self.raw_slapped):
            return
        self.raw_slapped = False
        self.react(world)
        if self.director.buffering:
            self.facing.slap()
        else:
            # Without the buffer the next actor sees it at once, if it updates later this tick.
            self.facing.raw_slapped = True

    def react(self, world: World) -> None:
        self.slaps += 1
        world.spawn(SlapMark(self.x, self.y))


class SlapMark(Entity):
    """Where a slap landed: shown for a few ticks, then gone."""

    LIFE = 12
    saved = ("life",)

    def __init__(self, x: float, y: float) -> None:
        super().__init__(x=x, y=y)
        self.life = self.LIFE

    def update(self, world: World) -> None:
        self.life -= 1
        self.y += 2
        if self.life <= 0:
            world.despawn(self)


class Director(Entity):
    """Runs the stage: R shuffles the update order, B toggles the buffer for every actor (no look: unseen)."""

    saved = ("buffering",)

    def __init__(self) -> None:
        super().__init__()
        self.buffering = True

    def update(self, world: World) -> None:
        if world.input.just_pressed(keys.R):
            world.shuffle_order(world.random)
        if world.input.just_pressed(keys.B):
            self.buffering = not self.buffering


def build(world: World) -> None:
    """A director for the keys, a ring of actors each facing the next, and the first slap."""
    director = world.spawn(Director())
    actors = [world.spawn(Actor(i, director)) for i in range(ACTORS)]
    for actor, target in zip(actors, actors[1:] + actors[:1]):
        actor.facing = target
    actors[0].slap()
