"""Arcade 3.3 running the shooter workload in a child process, one tick per request (``tickswap bench collisions``).

``python -m engine.tools.bench.arcade_peer WALKERS BULLETS`` builds the workload of
``engine.tools.bench.shooter`` with Arcade's own tools, as an Arcade user writes it: the
walkers in a ``SpriteList`` with a spatial hash, the bullets in a ``SpriteList``, every
sprite moved each tick, and ``arcade.check_for_collision_with_list(bullet, walkers)`` per
bullet, a hit adding to the walker's damage. It prints ``ready VERSION`` (or
``unavailable REASON`` and exits), then answers each line ``tick`` on its standard input
with ``SECONDS HITS``: the CPU time of that tick alone (``time.thread_time``, as the bench
times its own cases) and the hits found so far. A child
process, because arcade imports pyglet's window and input modules, which a process that
has already rendered headless (the bench's render families, the tests) cannot import.
Arcade is never a dependency: this module imports it only when run.
"""

from __future__ import annotations

import sys
from typing import Any

from engine.tools.bench.pygame_peer import serve_ticks
from engine.tools.bench.shooter import BULLET_SIZE, FIELD, WALKER_SIZE, bullets_start, route, walkers_start

__all__ = ["main"]


def main(argv: list[str]) -> int:
    """Set the workload up, say ``ready``, then run one tick per ``tick`` line until the input ends."""
    walkers, bullets = int(argv[0]), int(argv[1])
    try:
        import arcade
    except Exception as error:  # not installed, or no usable pyglet here: say so in one line
        print(f"unavailable {type(error).__name__}: {error}".replace("\n", " "), flush=True)
        return 0
    width, height = FIELD
    enemies: Any = arcade.SpriteList(use_spatial_hash=True, lazy=True)
    distances, speeds, damage = [], [], []
    for distance, speed in walkers_start(walkers):
        x, y = route(distance)
        enemies.append(arcade.SpriteSolidColor(int(WALKER_SIZE), int(WALKER_SIZE), x, y))
        distances.append(distance)
        speeds.append(speed)
        damage.append(0.0)
    index = {id(sprite): n for n, sprite in enumerate(enemies)}
    shots: Any = arcade.SpriteList(lazy=True)
    velocities = []
    for x, y, vx, vy in bullets_start(bullets):
        shots.append(arcade.SpriteSolidColor(int(BULLET_SIZE), int(BULLET_SIZE), x, y))
        velocities.append((vx, vy))
    collide = arcade.check_for_collision_with_list

    def tick() -> None:
        for n, sprite in enumerate(enemies):
            distances[n] += speeds[n]
            sprite.position = route(distances[n])
        for sprite, (vx, vy) in zip(shots, velocities):
            x, y = sprite.position
            x, y = x + vx, y + vy
            x = x + width if x < 0.0 else x - width if x >= width else x
            y = y + height if y < 0.0 else y - height if y >= height else y
            sprite.position = (x, y)
        for sprite in shots:
            for enemy in collide(sprite, enemies):
                damage[index[id(enemy)]] += 1.0

    print(f"ready {arcade.version.VERSION}", flush=True)
    serve_ticks(tick, lambda: str(int(sum(damage))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
