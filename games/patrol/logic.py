"""Patrol: skeletons patrol, statues fire lightning, and a player dodges.

The Update Method in its simplest form: each kind of thing is an ``Entity`` subclass with
its own ``update()``. Statues spawn bolts in the middle of a tick (they join after it),
bolts despawn themselves when they leave the arena or hit the player, and the player is
moved with the arrow keys from the tick's input and stunned for a moment when hit.

    tickswap run patrol --ticks 640
"""

from __future__ import annotations

from engine import Entity, World, buffered, keys, signal

DESCRIPTION = "skeletons patrol, statues fire lightning, arrow keys move the player"
WIDTH, HEIGHT = 640, 480


class Skeleton(Entity):
    """Walks between two x positions and back, one step per tick."""

    saved = ("left", "right", "speed", "patrolling_left")

    def __init__(self, x: float, y: float, left: float, right: float, speed: float = 1.0) -> None:
        super().__init__(x=x, y=y)
        self.left, self.right, self.speed = left, right, speed
        self.patrolling_left = False

    def update(self, world: World) -> None:
        self.x += -self.speed if self.patrolling_left else self.speed
        if self.x <= self.left:
            self.patrolling_left = False
        elif self.x >= self.right:
            self.patrolling_left = True


class Bolt(Entity):
    """Lightning: flies in a straight line; despawns itself off the arena or on a hit."""

    saved = ("dx", "dy")
    hitbox = (6.0, 6.0)  # the logic knows its size; the look (in view.py) only draws it

    def __init__(self, x: float, y: float, dx: float, dy: float) -> None:
        super().__init__(x=x, y=y)
        self.dx, self.dy = dx, dy

    def update(self, world: World) -> None:
        # Committed positions on both sides: the outcome doesn't depend on who updates first.
        for player in world.overlapping(self, Player):
            player.hit = True
            world.despawn(self)
            return
        self.x += self.dx
        self.y += self.dy
        if not (0 <= self.x <= WIDTH and 0 <= self.y <= HEIGHT):
            world.despawn(self)


class Statue(Entity):
    """Fires a bolt every ``delay`` ticks, in a direction picked by its own seeded random."""

    saved = ("delay", "frames")

    def __init__(self, x: float, y: float, delay: int) -> None:
        super().__init__(x=x, y=y)
        self.delay = delay
        self.frames = 0

    def update(self, world: World) -> None:
        self.frames += 1
        if self.frames >= self.delay:
            self.frames = 0
            dx, dy = self.random.choice(((3.0, 0.0), (-3.0, 0.0), (0.0, 3.0), (0.0, -3.0)))
            world.spawn(Bolt(self.x, self.y, dx, dy))


class Player(Entity):
    """Moves with the arrow keys; a bolt stuns it for ``STUN_TICKS`` ticks."""

    STUN_TICKS = 32
    hitbox = (14.0, 14.0)
    hit = signal()
    stunned = buffered(0)
    hits = buffered(0)

    def update(self, world: World) -> None:
        if self.hit:
            self.stunned = self.STUN_TICKS
            self.hits += 1
        if self.stunned:
            self.stunned -= 1
            return
        held = world.input.pressed
        self.x = min(WIDTH, max(0.0, self.x + 2 * (held(keys.RIGHT) - held(keys.LEFT))))
        self.y = min(HEIGHT, max(0.0, self.y + 2 * (held(keys.UP) - held(keys.DOWN))))


def build(world: World) -> None:
    """Spawn the starting scene: three skeletons, two statues and the player."""
    for row, (left, right) in enumerate(((40, 280), (360, 600), (120, 520))):
        world.spawn(Skeleton(left + 20 * row, 140 + 120 * row, left, right, speed=2 + row))
    world.spawn(Statue(80, 420, delay=24))
    world.spawn(Statue(560, 80, delay=40))
    world.spawn(Player(x=WIDTH / 2, y=HEIGHT / 2))
