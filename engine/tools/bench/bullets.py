"""The bullet-hell family: rings of bullets spawned and despawned, a player and its shots asking what they touch.

Issue 37's second workload, as a tickswap user writes it: eight ``Emitter``s round the
middle of the field fire rings of ``Bullet`` entities in turn (spawned mid-tick), which fly
outward and despawn themselves off the field or after ``BULLET_LIFETIME`` ticks, keeping
about 4,000 alive; a ``Player`` weaving among them asks ``world.overlapping(self, Bullet)``
every tick, and fires a fan of ``Shot``s, each asking the same of itself and, on a touch,
signalling the player and despawning. Beside it, pygame-ce running the same schedule as a
pygame-ce user writes it (``pygame.sprite.spritecollide`` for each ask, in its own
process: ``engine.tools.bench.pygame_peer``), and tickswap's world with nobody asking, to
say what the asks cost.
"""

from __future__ import annotations

from typing import Any

from engine.entity import Entity, buffered, signal
from engine.look import Look
from engine.tools.bench.base import Rows, verdict
from engine.tools.bench.pygame_peer import (
    BULLET_LIFETIME,
    BULLET_SIZE,
    EMITTERS,
    PLAYER_SIZE,
    SHOT_PERIOD,
    SHOT_SIZE,
    Against,
    Peer,
    bullet_plan,
    emitter_place,
    interleave,
    off_field,
    player_at,
    ring,
    shot_velocities,
)
from engine.world import World

__all__ = ["bench_bullets", "bullets_world", "live_bullets"]


def bullets_world(bullets: int = 4000, asks: bool = True, seed: int = 0) -> World:
    """A world of emitters and a player, before its first tick: about ``bullets`` bullets once the rings are out.

    ``asks=False`` is the same world with nobody asking what it touches (the player and
    its shots only move): the asks' cost is the difference. The benchmark ticks both; a
    test ticks one twice from scratch and compares the state hashes.
    """
    ring_size, period = bullet_plan(bullets)

    class Bullet(Entity):
        """Flies straight out of its ring; despawns off the field or when its time is up."""

        look = Look("circle", BULLET_SIZE)

        def __init__(self, x: float, y: float, vx: float, vy: float) -> None:
            super().__init__(x, y)
            self.vx, self.vy, self.age = vx, vy, 0

        def update(self, world: Any) -> None:
            x, y = self.x + self.vx, self.y + self.vy
            self.x, self.y = x, y
            self.age += 1
            if self.age >= BULLET_LIFETIME or off_field(x, y):
                world.despawn(self)

    class Emitter(Entity):
        """Fires a ring of bullets every ``period`` ticks, the emitters in turn."""

        def __init__(self, n: int) -> None:
            super().__init__(*emitter_place(n))
            self.n, self.timer, self.fired = n, n % period, 0

        def update(self, world: Any) -> None:
            if self.timer:
                self.timer -= 1
                return
            self.timer = period - 1
            for vx, vy in ring(self.n, self.fired, ring_size):
                world.spawn(Bullet(self.x, self.y, vx, vy))
            self.fired += 1

    class Player(Entity):
        """Weaves among the rings, counting the bullets it grazes and those its shots touched."""

        look = Look("square", PLAYER_SIZE)
        grazes = buffered(0)
        hits = buffered(0)
        shot_hits = signal(sum)

        def __init__(self) -> None:
            super().__init__(*player_at(0))
            self.t = 0

        def update(self, world: Any) -> None:
            self.hits += self.shot_hits.value
            if asks:
                self.grazes += len(world.overlapping(self, Bullet))
            self.t += 1
            self.x, self.y = player_at(self.t)
            if self.t % SHOT_PERIOD == 0:
                for vx, vy in shot_velocities():
                    world.spawn(Shot(self.x, self.y, vx, vy, self))

    class Shot(Entity):
        """Flies until it touches a bullet (then tells the player how many, and is spent) or leaves the field."""

        look = Look("square", SHOT_SIZE)

        def __init__(self, x: float, y: float, vx: float, vy: float, player: Player) -> None:
            super().__init__(x, y)
            self.vx, self.vy, self.player = vx, vy, player

        def update(self, world: Any) -> None:
            if asks:
                touched = world.overlapping(self, Bullet)
                if touched:
                    self.player.shot_hits.send(len(touched))
                    world.despawn(self)
                    return
            x, y = self.x + self.vx, self.y + self.vy
            self.x, self.y = x, y
            if off_field(x, y):
                world.despawn(self)

    world = World(seed=seed)
    world.spawn(Player())
    for n in range(EMITTERS):
        world.spawn(Emitter(n))
    return world


def live_bullets(world: World) -> int:
    """How many bullets a ``bullets_world`` holds now (its class is local to the world's builder: found by name)."""
    return sum(1 for entity in world.entities if type(entity).__name__ == "Bullet")


def bench_bullets(bullets: int = 4000, ticks: int = 60, warm: int = BULLET_LIFETIME) -> Rows:
    """The bullet hell, tickswap beside pygame-ce: ``warm`` rounds untimed (the rings fill the field), then ``ticks``.

    One tick of each side a round, each timed whole in CPU time. Rows: pygame-ce (or "not
    measured" and why), then tickswap's bullet hell and the same with nobody asking; the
    ratio column is tickswap's ticks a second over pygame-ce's (over the bullet hell's
    where pygame-ce is not there), and the target column how many bullets were alive.
    """
    worlds = {"asks": bullets_world(bullets), "quiet": bullets_world(bullets, asks=False)}
    peer = Peer("bullets", bullets)
    try:
        medians, figures = interleave({name: world.tick for name, world in worlds.items()}, peer, warm, ticks)
    finally:
        peer.close()
    live = live_bullets(worlds["asks"])
    player: Any = worlds["asks"].entities[0]  # spawned first
    touches = int(player.grazes + player.hits)
    for world in worlds.values():
        world.close()
    ms = {name: seconds * 1e3 for name, seconds in medians.items()}
    against = Against(ms, "asks", "the bullet hell's")
    what = f"about {bullets:,} bullets in rings, a player and its shots asking"
    peer_said = (f"; {figures[-1][0]:,} bullets alive at the end, {figures[-1][1]:,} touches found"
                 if against.peer_ran else "")
    return [
        against.peer_row(peer, f"{what}, Sprites in Groups, spritecollide per ask", peer_said, "bullets"),
        against.row(f"tickswap: {what}, world.overlapping(self, Bullet) per ask", "asks",
                    f"; {live:,} bullets alive at the end, {touches:,} touches found"
                    + (f"; {verdict(against.reference / ms['asks'], 1.0, at_least=True, words='pygame-ce')} "
                       "(0.4: 0.73x at 4,000, 0.67x at 16,000)" if against.peer_ran else "")),
        against.row(f"tickswap: the same {bullets:,}, nobody asks (the asks' share)", "quiet"),
    ]
