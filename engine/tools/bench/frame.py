"""The full-frame family: a tick then an interpolated draw, every entity moving.

At 1,000, 10,000 and 100,000 entities, beside the bare loop of the same updates and
the floor of drawing (one vertex buffer whose positions are already in numpy arrays,
drawn as the renderer draws them).
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
    numpy, written straight into the buffer, drawn with the look's own fragment shader
    and point size at the entities' places: what ``EntityRenderer`` draws, without the
    entities; the renderer interpolates on the GPU instead, the floor as it did before).
    The frames tick before they draw, as a game does, so they are compared with the
    floor frame, which runs the bare loop before it draws: one frame draws the
    floor's buffer after gathering every entity's interpolated position with
    ``gather_motion`` (the compiled core, or its numpy fallback), the other is what a
    game runs, ``World.tick()`` then ``EntityRenderer.draw``.
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


class _FloorPoints:
    """The drawing floor: one vertex buffer of point sprites whose positions are written by numpy each frame.

    What the renderer drew before it interpolated on the GPU, kept as the floor so that
    the frame's ratio measures the same floor whatever the renderer does: ``previous``
    and ``current`` in numpy arrays, interpolated into the buffer's memory by one numpy
    expression, drawn with the look's point program (the one crowds draw with).
    """

    def __init__(self, look: Any, count: int) -> None:
        import numpy as np
        import pyglet
        from pyglet.gl import GL_POINTS

        from engine.render.shaders import PointGroup, shader_program
        from engine.render.sprites import array_view, look_size, program_kind

        self.count = count
        self.group = PointGroup(shader_program(program_kind(look)), look.color[3] < 255)
        self.batch = pyglet.graphics.Batch()
        self.vertex_list = self.group.program.vertex_list(
            count, GL_POINTS, batch=self.batch, group=self.group, position=("f", [0.0] * (count * 2)),
            colors=("Bn", list(look.color) * count), size=("f", list(look_size(look)) * count),
            angle=("f", [0.0] * count))
        self.buffer, self.positions = array_view(self.vertex_list, "position", count, 2)
        self.previous = np.zeros((count, 2), dtype=np.float32)
        self.current = np.zeros((count, 2), dtype=np.float32)

    def write(self, alpha: float) -> None:
        """Every position ``alpha`` into the tick, in one numpy expression into the buffer."""
        import numpy as np

        drawn = self.positions
        np.subtract(self.current, self.previous, out=drawn)
        drawn *= alpha
        drawn += self.previous
        self.changed()

    def changed(self) -> None:
        """The positions were written: upload them at the next draw."""
        self.buffer.invalidate_region(self.vertex_list.start, self.count)

    def draw(self) -> None:
        """Draw every point."""
        from engine.render.sprites import draw_points

        self.group.set_state()
        draw_points(self.vertex_list, self.count)
        self.group.unset_state()

    def delete(self) -> None:
        """Release the vertex buffer."""
        self.vertex_list.delete()


_TARGETS = {10_000: "; target: 1.2x on software GL, 1.3x on a GPU", 100_000: "; target: 1.3x"}


def _frame_figures(count: int, rounds: int, kind: Any, window: Any,
                   renderer_name: str) -> Rows:
    """One count of ``bench_frame``: its seven figures."""
    import numpy as np
    import pyglet

    from engine.buffering import gather_motion
    from engine.render.entities import EntityRenderer

    world = World()
    for i in range(count):
        world.spawn(kind(float(i % 100), float((i * 7) % 480)))
    world.tick()
    # Float positions on both sides, as the entities have: each step makes a new float.
    plain = [PlainPatroller(float(i % 100)) for i in range(count)]
    # The floor draws what the renderer draws (the same look: fragment shader, point size, colour,
    # and the same places: a GL's cost depends on where fragments fall) from one vertex
    # buffer whose positions are already in numpy.
    floor_points = _FloorPoints(kind.look, count)
    floor_points.previous[:] = [(entity.x, entity.y) for entity in world.entities]
    floor_points.current[:] = floor_points.previous + 1.0
    gathered = np.zeros((count, 3), dtype=np.float32)
    renderer = EntityRenderer(world)
    entities = world.entities
    alphas = iter([i / 7 % 1 for i in range(20 * rounds + 20)])

    def draw() -> None:
        window.clear()
        floor_points.draw()
        pyglet.gl.glFinish()

    def bare() -> None:
        for thing in plain:
            thing.update(None)

    def floor() -> None:
        floor_points.write(next(alphas))
        draw()

    def floor_frame() -> None:
        bare()
        floor()

    def frame() -> None:
        world.tick()
        gather_motion(entities, world.tick_count, next(alphas), gathered)
        floor_points.positions[:] = gathered[:, :2]
        floor_points.changed()
        draw()

    def frame_renderer() -> None:
        world.tick()
        window.clear()
        renderer.draw(next(alphas))
        pyglet.gl.glFinish()

    def between_ticks() -> None:
        # A frame with no tick before it (a display faster than the updates): only alpha moves.
        window.clear()
        renderer.draw(next(alphas))
        pyglet.gl.glFinish()

    # At least nine rounds: with three, a single slow round (a collection, another process)
    # moved the 100,000 row's median from 1.3x to 3.4x between two runs on an H200.
    scaled = max(9, rounds * 10_000 // max(count, 10_000))
    times = measure({"bare": bare, "floor": floor, "floor frame": floor_frame, "tick": world.tick, "frame": frame,
                     "renderer": frame_renderer, "between": between_ticks}, scaled)
    renderer.delete()
    floor_points.delete()
    world.close()
    floor_frame_ms = times["floor frame"]
    return [
        (f"{count:,}: bare loop of the updates", times["bare"] * 1e3, 1.0, ""),
        (f"{count:,}: World.tick(), every entity moving", times["tick"] * 1e3, times["tick"] / times["bare"],
         "vs bare"),
        (f"{count:,}: one vertex buffer, positions in numpy, drawn", times["floor"] * 1e3, 1.0,
         f"the drawing floor (GL: {renderer_name})"),
        (f"{count:,}: floor frame: bare loop + one vertex buffer", floor_frame_ms * 1e3, 1.0,
         "the frame's floor: updates, then a draw"),
        (f"{count:,}: full frame, tick + gather_motion + draw", times["frame"] * 1e3,
         times["frame"] / floor_frame_ms, "vs floor frame"),
        (f"{count:,}: full frame, tick + EntityRenderer.draw", times["renderer"] * 1e3,
         times["renderer"] / floor_frame_ms, f"vs floor frame{_TARGETS.get(count, '')}"),
        (f"{count:,}: frame between ticks, EntityRenderer.draw only", times["between"] * 1e3,
         times["between"] / times["floor"], "vs the drawing floor (which writes its positions every frame)"),
    ]
