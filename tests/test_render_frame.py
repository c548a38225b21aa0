"""The frame's cost in memory: what EntityRenderer allocates to draw a tick's new positions."""

from __future__ import annotations

import tracemalloc

import pytest

from engine import Entity, Look, World
from engine.buffering import ACCELERATED

pytestmark = pytest.mark.usefixtures("offscreen")


class Walker(Entity):
    look = Look("square", 2, (255, 255, 255))

    def update(self, world: World) -> None:
        self.x += 1.0


@pytest.mark.skipif(not ACCELERATED, reason="the pure path gathers through Python lists of floats")
def test_drawing_a_new_tick_of_10000_entities_allocates_no_copies_of_their_motion():
    from engine.render import create_window
    from engine.render.entities import EntityRenderer

    window = create_window(64, 64, headless=True)
    count = 10_000
    with World() as world:
        for i in range(count):
            world.spawn(Walker(x=float(i % 64), y=float(i % 61)))
        renderer = EntityRenderer(world)
        for _ in range(3):
            world.tick()
            renderer.draw(0.5)
        world.tick()
        tracemalloc.start()
        try:
            renderer.draw(0.5)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        drawn = renderer.entity_count
        renderer.delete()
    window.close()
    assert drawn == count
    # One list of looks (8 bytes an entity) and one float64 column of turns (8 more) are
    # what a frame needs; a copy of the gathered motion (24 or 48 bytes an entity) is not.
    assert peak < 40 * count, f"drawing a tick of {count} entities allocated {peak} bytes at its peak"


class Turner(Entity):
    look = Look("square", 2, (255, 255, 255))

    def update(self, world: World) -> None:
        self.x += 0.1
        self.angle = (self.angle + 170.0) % 360.0  # across 0 degrees every other tick


@pytest.mark.skipif(not ACCELERATED, reason="the pure path gathers float64 lists, not the core's float32 rows")
def test_the_renderers_one_walk_gather_is_the_bits_of_two_gathers_at_alpha_0_and_1():
    import numpy as np

    from engine.buffering import gather_motion as interpolated
    from engine.render.entities import gather_motion

    with World() as world:
        for i in range(50):
            world.spawn(Turner(x=float(i) / 3.0, y=-float(i)))
        world.spawn(Entity(x=5.0))  # never moves: its previous values are its current ones
        for _ in range(3):
            world.tick()
        entities = world.entities
        previous, current = gather_motion(entities, world.tick_count)
        expected = np.empty((len(entities), 3), dtype=np.float32), np.empty((len(entities), 3), dtype=np.float32)
        interpolated(entities, world.tick_count, 0.0, expected[0])
        interpolated(entities, world.tick_count, 1.0, expected[1])
    assert previous.tobytes() == expected[0].tobytes()
    assert current.tobytes() == expected[1].tobytes()
    assert (previous != current).any()
