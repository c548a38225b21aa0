"""The shooter workload of the collisions family: walkers on a route, a swarm of bullets, every hit a signal.

The heaviest wave of a tower-defense game, as issue 29 measured it: ``WALKERS`` enemies
walk a closed route round the field while ``BULLETS`` bullets fly straight across it
(wrapping at the edges), and every bullet asks, every tick, which walkers it overlaps and
sends each one a hit. Run four ways, interleaved round by round:

* bullets as entities, each asking ``world.overlapping(self, Walker)`` in its update;
* bullets as one ``Crowd`` asking ``world.overlapping_members(self, Walker)`` once a tick;
* the floor: the same work in bare vectorized numpy (move, bin the walkers in a grid, test
  each bullet against the walkers of its neighbouring cells, add up the hits), no engine;
* Arcade 3.3 where it is installed (never a dependency): a spatial-hashed ``SpriteList`` of
  walkers, ``arcade.check_for_collision_with_list`` per bullet, every sprite moved per tick.
  It runs in a child process (``engine.tools.bench.arcade_peer``) driven round by round
  over a pipe, so its rounds interleave with ours: importing arcade needs a pyglet that is
  not headless, and a process that has rendered off-screen has one that is.

Every version starts from the same positions and speeds (one seeded generator) and counts
the hits of each tick; the float64 versions (entities and the floor) find the same hits,
which the bench checks, so all of them do the same work.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

__all__ = ["BULLETS", "FIELD", "WALKERS", "bullets_start", "route", "walkers_start"]

WALKERS = 330
"""Enemies on the route in the issue's heaviest wave."""
BULLETS = 1900
"""Shots in flight in the issue's heaviest wave."""
FIELD = (800.0, 600.0)
"""Width and height of the field: bullets wrap round at its edges."""
WALKER_SIZE = 16.0
"""A walker's square box, in pixels."""
BULLET_SIZE = 4.0
"""A bullet's square box, in pixels."""
_CORNERS = ((40.0, 40.0), (760.0, 40.0), (760.0, 560.0), (40.0, 560.0))
_LENGTH = 2.0 * (720.0 + 520.0)


def route(distance: float) -> tuple[float, float]:
    """The point ``distance`` along the route: a rectangle 40 px inside the field, walked anticlockwise."""
    d = distance % _LENGTH
    if d < 720.0:
        return 40.0 + d, 40.0
    d -= 720.0
    if d < 520.0:
        return 760.0, 40.0 + d
    d -= 520.0
    if d < 720.0:
        return 760.0 - d, 560.0
    return 40.0, 560.0 - (d - 720.0)


def route_array(distance: Any) -> tuple[Any, Any]:
    """``route`` for an array of distances, in numpy: the same floats as ``route``, element by element."""
    import numpy as np

    d = np.mod(distance, _LENGTH)
    x, y = np.empty_like(d), np.empty_like(d)
    first = d < 720.0
    x[first], y[first] = 40.0 + d[first], 40.0
    d2 = d - 720.0
    second = ~first & (d2 < 520.0)
    x[second], y[second] = 760.0, 40.0 + d2[second]
    d3 = d2 - 520.0
    third = ~first & ~second & (d3 < 720.0)
    x[third], y[third] = 760.0 - d3[third], 560.0
    fourth = ~first & ~second & ~third
    x[fourth], y[fourth] = 40.0, 560.0 - (d3[fourth] - 720.0)
    return x, y


def walkers_start(count: int = WALKERS) -> list[tuple[float, float]]:
    """(distance along the route, speed) of each walker: spread evenly, at seven speeds."""
    return [(n * _LENGTH / count, 0.5 + (n % 7) * 0.25) for n in range(count)]


def bullets_start(count: int = BULLETS) -> list[tuple[float, float, float, float]]:
    """(x, y, vx, vy) of each bullet, from one seeded generator: anywhere, any heading, 3 to 6 px a tick."""
    rng = random.Random(29)
    width, height = FIELD
    found = []
    for _ in range(count):
        x, y = rng.uniform(0.0, width), rng.uniform(0.0, height)
        heading, speed = rng.uniform(0.0, 2.0 * math.pi), rng.uniform(3.0, 6.0)
        found.append((x, y, speed * math.cos(heading), speed * math.sin(heading)))
    return found


def wrap(value: float, size: float) -> float:
    """Back into [0, size) after one step past an edge."""
    if value < 0.0:
        return value + size
    if value >= size:
        return value - size
    return value


def engine_worlds(walkers: int, bullets: int) -> dict[str, tuple[Any, Callable[[], int]]]:
    """The two tickswap worlds: bullets as entities and bullets as a crowd, each with a hit counter."""
    import numpy as np

    from engine.crowd import Crowd
    from engine.entity import Entity, signal
    from engine.look import Look
    from engine.world import World

    width, height = FIELD
    field = np.array(FIELD, dtype=np.float32)

    class Walker(Entity):
        look = Look("square", WALKER_SIZE)
        damage = signal(sum)

        def __init__(self, distance: float, speed: float) -> None:
            super().__init__(*route(distance))
            self.distance = distance
            self.speed = speed
            self.taken = 0.0

        def update(self, world: Any) -> None:
            self.taken += self.damage.value
            self.distance += self.speed
            self.x, self.y = route(self.distance)

    class Bullet(Entity):
        look = Look("square", BULLET_SIZE)

        def __init__(self, x: float, y: float, vx: float, vy: float) -> None:
            super().__init__(x, y)
            self.vx, self.vy = vx, vy

        def update(self, world: Any) -> None:
            for walker in world.overlapping(self, Walker):
                walker.damage.send(1.0)
            self.x = wrap(self.x + self.vx, width)
            self.y = wrap(self.y + self.vy, height)

    class Bullets(Crowd):
        look = Look("square", BULLET_SIZE)

        def update(self, world: Any) -> None:
            _members, hit = world.overlapping_members(self, Walker)
            for walker in hit:
                walker.damage.send(1.0)
            position = np.add(self.current("position"), self.current("velocity"), out=self.next("position"))
            low, high = position < 0.0, position >= field
            np.add(position, field, out=position, where=low)
            np.subtract(position, field, out=position, where=high)

    as_entities, as_crowd = World(), World()
    for distance, speed in walkers_start(walkers):
        as_entities.spawn(Walker(distance, speed))
        as_crowd.spawn(Walker(distance, speed))
    shots = bullets_start(bullets)
    for x, y, vx, vy in shots:
        as_entities.spawn(Bullet(x, y, vx, vy))
    crowd = as_crowd.spawn(Bullets(bullets))
    crowd.spawn_members(position=[(x, y) for x, y, _, _ in shots], velocity=[(vx, vy) for _, _, vx, vy in shots])

    def hits(world: Any) -> Callable[[], int]:
        return lambda: int(sum(walker.taken for walker in world.entities_of(Walker)))

    return {"entities": (as_entities, hits(as_entities)), "crowd": (as_crowd, hits(as_crowd))}



class NumpyFloor:
    """The same workload in bare vectorized numpy, no engine: the floor a collision engine is measured against.

    Each tick: the hits of the tick before are taken (as a signal is seen a tick later),
    the walkers are binned in a grid of 32 px cells (a counting sort), every bullet is
    tested against the walkers of its cell and the eight around it with one vectorized
    box test, the hits are added up per walker, then everyone moves. Positions and tests
    are the engine's, float for float, so it finds exactly the hits the entities find.
    """

    CELL = 32.0

    def __init__(self, walkers: int = WALKERS, bullets: int = BULLETS) -> None:
        import numpy as np

        starts = np.array(walkers_start(walkers), dtype=np.float64).reshape(-1, 2)
        self.distance, self.speed = starts[:, 0].copy(), starts[:, 1].copy()
        self.walker_x, self.walker_y = route_array(self.distance)
        shots = np.array(bullets_start(bullets), dtype=np.float64).reshape(-1, 4)
        self.x, self.y, self.vx, self.vy = (shots[:, n].copy() for n in range(4))
        self.pending = np.zeros(len(self.distance))
        self.taken = np.zeros(len(self.distance))
        # A margin of one cell all round: a bullet's neighbours never fall off the grid.
        self.columns = int(FIELD[0] // self.CELL) + 3
        self.rows = int(FIELD[1] // self.CELL) + 3
        self.reach = (WALKER_SIZE + BULLET_SIZE) / 2.0

    def tick(self) -> None:
        """One tick: take last tick's hits, bin, test, count, move."""
        import numpy as np

        self.taken += self.pending
        cell, rows = self.CELL, self.rows
        key = (np.floor(self.walker_x / cell).astype(np.int64) + 1) * rows + np.floor(self.walker_y / cell).astype(
            np.int64) + 1
        order = np.argsort(key, kind="stable")
        counts = np.bincount(key, minlength=self.columns * rows)
        firsts = np.cumsum(counts) - counts
        bullet_x = np.floor(self.x / cell).astype(np.int64) + 1
        bullet_y = np.floor(self.y / cell).astype(np.int64) + 1
        shooters, targets = [], []
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                near = (bullet_x + dx) * rows + bullet_y + dy
                many = counts[near]
                total = int(many.sum())
                if not total:
                    continue
                shooter = np.repeat(np.arange(len(near)), many)
                ramp = np.arange(total) - np.repeat(np.cumsum(many) - many, many)
                shooters.append(shooter)
                targets.append(order[firsts[near][shooter] + ramp])
        if shooters:
            shooter, target = np.concatenate(shooters), np.concatenate(targets)
            hit = ((np.abs(self.walker_x[target] - self.x[shooter]) < self.reach)
                   & (np.abs(self.walker_y[target] - self.y[shooter]) < self.reach))
            self.pending = np.bincount(target[hit], minlength=len(self.distance)).astype(np.float64)
        else:
            self.pending = np.zeros(len(self.distance))
        self.distance += self.speed
        self.walker_x, self.walker_y = route_array(self.distance)
        self.x = _wrapped(self.x + self.vx, FIELD[0])
        self.y = _wrapped(self.y + self.vy, FIELD[1])

    def hits(self) -> int:
        """Hits taken so far (those of the last tick are taken in the next, as in the engine)."""
        return int(self.taken.sum())


def _wrapped(values: Any, size: float) -> Any:
    """``wrap`` for an array: the same floats, element by element."""
    import numpy as np

    return np.where(values < 0.0, values + size, np.where(values >= size, values - size, values))
