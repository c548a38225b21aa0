"""The churn family: 10,000 entities, a tenth despawned and respawned every tick, each signalling a hub.

Issue 37's first workload, as a tickswap user writes it: ``Churner`` entities that drift,
send a valued signal to one of 100 ``Hub``s (``hub.pings.send(1)``; a hub reads the pings
of the tick before, summed, into a buffered count), and, once their ``CHURN_LIFETIME``
ticks are up, despawn themselves and spawn their successor, mid-tick. The first churners'
lifetimes are staggered, so a tenth of them go (and as many come) every tick from the
first. Beside it, pygame-ce running the same schedule as a pygame-ce user writes it
(``engine.tools.bench.pygame_peer``, in its own process), and, to say where tickswap's
time goes, the same world with nobody churning and the same with no signal sent.
"""

from __future__ import annotations

from typing import Any

from engine.entity import Entity, buffered, signal
from engine.tools.bench.base import Rows, verdict
from engine.tools.bench.pygame_peer import (
    CHURN_LIFETIME,
    HUBS,
    Against,
    Peer,
    churner_lifetime,
    churner_start,
    interleave,
)
from engine.world import World

__all__ = ["bench_churn", "churn_world"]


def churn_world(count: int = 10_000, churn: bool = True, pings: bool = True, seed: int = 0) -> World:
    """A world of ``HUBS`` hubs and ``count`` churners, before its first tick.

    ``churn=False`` keeps every churner alive for ever (the same drift and pings, no
    despawn nor spawn); ``pings=False`` sends no signal (the same churn). The benchmark
    ticks all three; a test ticks one twice from scratch and compares the state hashes.
    """
    hubs: list[Any] = []

    class Hub(Entity):
        """Reads the pings its churners sent the tick before, summed, into a buffered count."""

        pings = signal(sum)
        heard = buffered(0)

        def update(self, world: Any) -> None:
            self.heard += self.pings.value

    class Churner(Entity):
        """Drifts, pings its hub, and when its time is up despawns itself and spawns its successor."""

        def __init__(self, serial: int, left: int) -> None:
            x, y, vx, vy = churner_start(serial)
            super().__init__(x, y)
            self.serial, self.left, self.vx, self.vy = serial, left, vx, vy
            self.hub = hubs[serial % HUBS]

        def update(self, world: Any) -> None:
            self.x += self.vx
            self.y += self.vy
            self.hub.pings.send(1)
            self.left -= 1
            if not self.left:
                world.despawn(self)
                world.spawn(Churner(self.serial + count, CHURN_LIFETIME))

    class Keeper(Churner):
        """The same drift and ping, never despawned: the churn's cost is the difference."""

        def update(self, world: Any) -> None:
            self.x += self.vx
            self.y += self.vy
            self.hub.pings.send(1)

    class Silent(Churner):
        """The same drift and churn, no signal sent: the pings' cost is the difference."""

        def update(self, world: Any) -> None:
            self.x += self.vx
            self.y += self.vy
            self.left -= 1
            if not self.left:
                world.despawn(self)
                world.spawn(Silent(self.serial + count, CHURN_LIFETIME))

    kind = Churner if churn and pings else Keeper if pings else Silent
    world = World(seed=seed)
    hubs.extend(world.spawn(Hub(x=n * 8.0)) for n in range(HUBS))
    for serial in range(count):
        world.spawn(kind(serial, churner_lifetime(serial)))
    return world


def bench_churn(count: int = 10_000, ticks: int = 100, warm: int = 10) -> Rows:
    """Churn, tickswap beside pygame-ce: ``warm`` rounds untimed, then ``ticks`` rounds, one tick of each side a round.

    Rows: pygame-ce (or "not measured" and why), then tickswap's churn, nobody churning and
    no signal; the ratio column is tickswap's ticks a second over pygame-ce's (over the
    churn world's where pygame-ce is not there). Each tick is timed in CPU time, whole.
    """
    worlds = {"churn": churn_world(count), "no churn": churn_world(count, churn=False),
              "no pings": churn_world(count, pings=False)}
    peer = Peer("churn", count)
    try:
        medians, figures = interleave({name: world.tick for name, world in worlds.items()}, peer, warm, ticks)
    finally:
        peer.close()
    alive = len(worlds["churn"].entities) - HUBS
    hubs: list[Any] = worlds["churn"].entities[:HUBS]  # spawned first
    heard = sum(hub.heard for hub in hubs)
    for world in worlds.values():
        world.close()
    ms = {name: seconds * 1e3 for name, seconds in medians.items()}
    same = ""
    if figures:
        # The same schedule on both sides: as many churners alive, as many pings heard.
        same = ("; same work on both sides" if figures[-1] == (alive, heard)
                else f"; NOT the same work: pygame-ce has {figures[-1]}, tickswap {(alive, heard)} (alive, heard)")
    against = Against(ms, "churn", "the churn world's")
    what = f"{count:,} churners, a tenth replaced a tick, {HUBS} hubs"
    return [
        against.peer_row(peer, f"{what}, Sprites in a Group, kill() and a new Sprite", same, "churn"),
        against.row(f"tickswap: {what}, despawn and spawn mid-tick, hub.pings.send(1)", "churn",
                    f"; {verdict(against.reference / ms['churn'], 1.0, at_least=True, words='pygame-ce')} (0.4: 0.35x)"
                    if against.peer_ran else ""),
        against.row(f"tickswap: the same {count:,}, nobody despawned (the churn's share)", "no churn"),
        against.row("tickswap: the same churn, no signal sent (the pings' share)", "no pings"),
    ]
