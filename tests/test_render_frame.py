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
