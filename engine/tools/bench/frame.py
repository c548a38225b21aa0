"""The full-frame family: a tick then an interpolated draw, every entity moving.

At 1,000, 10,000 and 100,000 entities, beside the bare loop of the same updates and
the floor of drawing (one vertex buffer whose positions are already in numpy arrays).
"""

from __future__ import annotations

from typing import Any

from engine.entity import Entity
from engine.tools.bench.base import PlainPatroller, Rows, measure, patrol
from engine.world import World

__all__ = ["bench_frame"]


def bench_frame(counts: tuple[int, ...] = (1_000, 10_000, 100_000),
                rounds: int = 20) -> Rows:
    """The honest full frame: ``World.tick()`` then an interpolated draw, every entity moving.

    Beside it, per count: the bare loop of the same updates, and the floor of drawing,
    one vertex buffer whose positions are already in numpy arrays (interpolated with
    numpy, written straight into the buffer, drawn). The frame draws the same buffer
    after gathering every entity's interpolated position with ``gather_motion`` (the
    compiled core, or its numpy fallback), and, for comparison, with today's
    ``EntityRenderer`` (whose per-tick gather reads every entity from Python).
    """
    from engine.render import use_headless

    use_headless(True)
    import pyglet

    from engine.look import Look
    from engine.render.context import create_window

    class Mover(Entity):
        look = Look("square", 2, (200, 200, 255))

        def __init__(self, x: float, y: float) -> None:
            super().__init__(x=x, y=y)
            self.patrolling_left = False

        update = patrol

    window = create_window(640, 480, headless=True)
    renderer_name = pyglet.gl.gl_info.get_renderer()
    rows: Rows = []
    for count in counts:
        rows += _frame_figures(count, rounds, Mover, window, renderer_name)
    window.close()
    return rows


def _frame_figures(count: int, rounds: int, kind: Any, window: Any,
                   renderer_name: str) -> Rows:
    """One count of ``bench_frame``: its five figures."""
    import numpy as np
    import pyglet
    from pyglet.gl import GL_POINTS

    from engine.buffering import gather_motion
    from engine.render.entities import EntityRenderer

    program = pyglet.graphics.get_default_shader()
    world = World()
    for i in range(count):
        world.spawn(kind(float(i % 100), float((i * 7) % 480)))
    world.tick()
    # Float positions on both sides, as the entities have: each step makes a new float.
    plain = [PlainPatroller(float(i % 100)) for i in range(count)]
    batch = pyglet.graphics.Batch()
    vertices = program.vertex_list(count, GL_POINTS, batch=batch, position=("f", [0.0] * (count * 3)),
                                   colors=("Bn", [200, 200, 255, 255] * count))
    buffer = vertices.domain.attrib_name_buffers["position"]
    start = vertices.start * 3
    view = np.ctypeslib.as_array(buffer.data)[start:start + count * 3].reshape(count, 3)
    gathered = np.zeros((count, 3), dtype=np.float32)
    previous = np.asarray(np.random.default_rng(0).uniform(0, 480, (count, 2)), dtype=np.float32)
    current = previous + 1.0
    renderer = EntityRenderer(world)
    entities = world.entities
    alphas = iter([i / 7 % 1 for i in range(20 * rounds + 20)])

    def draw() -> None:
        buffer.invalidate_region(vertices.start, count)
        window.clear()
        batch.draw()
        pyglet.gl.glFinish()

    def bare() -> None:
        for thing in plain:
            thing.update(None)

    def floor() -> None:
        drawn = view[:, :2]
        np.subtract(current, previous, out=drawn)
        drawn *= next(alphas)
        drawn += previous
        draw()

    def frame() -> None:
        world.tick()
        gather_motion(entities, world.tick_count, next(alphas), gathered)
        view[:, :2] = gathered[:, :2]
        draw()

    def frame_renderer() -> None:
        world.tick()
        window.clear()
        renderer.draw(next(alphas))
        pyglet.gl.glFinish()

    scaled = max(3, rounds * 10_000 // max(count, 10_000))
    times = measure({"bare": bare, "floor": floor, "tick": world.tick, "frame": frame,
                     "renderer": frame_renderer}, scaled)
    renderer.delete()
    vertices.delete()
    world.close()
    return [
        (f"{count:,}: bare loop of the updates", times["bare"] * 1e3, 1.0, ""),
        (f"{count:,}: World.tick(), every entity moving", times["tick"] * 1e3, times["tick"] / times["bare"],
         "vs bare"),
        (f"{count:,}: one vertex buffer, positions in numpy (floor)", times["floor"] * 1e3, 1.0, ""),
        (f"{count:,}: full frame, tick + gather_motion + draw", times["frame"] * 1e3,
         times["frame"] / times["floor"], f"vs floor; <= 1.5x at 10,000 (GL: {renderer_name})"),
        (f"{count:,}: full frame, tick + EntityRenderer.draw", times["renderer"] * 1e3,
         times["renderer"] / times["floor"], "vs floor (today's renderer)"),
    ]
