"""Swarm: 100,000 particles chasing a wandering attractor, at 64 updates a second.

Far too many for one Python object each: the swarm is a single ``Crowd`` whose members
are rows of numpy arrays, updated with a few fused vectorized operations per tick,
double-buffered like everything else and drawn from one vertex buffer, interpolated.
Hold the left mouse button to pull the swarm to the pointer, and drag to lead it.

    tickswap run swarm --ticks 128
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from engine import World
from engine.crowd import Crowd

DESCRIPTION = "100,000 particles as one numpy Crowd, chasing an attractor (hold the mouse to pull)"
WIDTH, HEIGHT = 800, 600
PARTICLES = 100_000
PULL, DRAG = 0.0025, 0.985


class Swarm(Crowd):
    """Each particle accelerates toward the attractor (its own ``pull``) and around it (its ``swirl``)."""

    fields: ClassVar[dict[str, int]] = {"position": 2, "velocity": 2, "pull": 1, "swirl": 1}

    def __init__(self, capacity: int = PARTICLES) -> None:
        super().__init__(capacity)
        self.on_load(None)

    def on_load(self, world: World | None) -> None:
        """Scratch space, allocated once: the update writes into buffers, never makes new arrays."""
        self._scratch = np.zeros((self.capacity, 2), dtype=np.float32)
        self._around = np.zeros((self.capacity, 2), dtype=np.float32)

    def attractor(self, world: World) -> tuple[float, float]:
        """The mouse while its button is held (drags move it); otherwise a slow figure of eight."""
        if world.input.pressed(1):
            return world.input.mouse_x, world.input.mouse_y
        t = world.tick_count / 64
        return WIDTH / 2 + 280 * math.sin(0.7 * t), HEIGHT / 2 + 180 * math.sin(1.4 * t)

    def update(self, world: World) -> None:
        target = np.asarray(self.attractor(world), dtype=np.float32)
        position, velocity = self.current("position"), self.current("velocity")
        new_velocity = self.next("velocity")
        toward = self._scratch[: self.count]
        around = self._around[: self.count]
        np.subtract(target, position, out=toward)
        around[:, 0] = toward[:, 1]  # the perpendicular of the pull: particles orbit as they fall in
        np.negative(toward[:, 0], out=around[:, 1])
        around *= self.current("swirl")
        toward *= self.current("pull")
        np.multiply(velocity, np.float32(DRAG), out=new_velocity)
        new_velocity += toward
        new_velocity += around
        np.add(position, new_velocity, out=self.next("position"))


def build(world: World) -> None:
    """One swarm, scattered at random (seeded by the world's seed)."""
    rng = np.random.default_rng(world.seed)
    swarm = world.spawn(Swarm())
    swarm.spawn_members(
        position=rng.uniform((0, 0), (WIDTH, HEIGHT), (PARTICLES, 2)),
        velocity=rng.normal(0, 1, (PARTICLES, 2)),
        pull=rng.uniform(0.3, 1.0, (PARTICLES, 1)) * PULL,
        swirl=rng.normal(0.0, 1.0, (PARTICLES, 1)) * PULL,
    )
