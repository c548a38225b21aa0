"""The rendering family, headless: ``EntityRenderer`` against pyglet shapes, and on harder looks.

``render``: one pyglet shape per entity against the renderer, both interpolating.
``render-turning``: the same renderer on plain squares against turning squares plus
changing text labels, with and without the tick and gather.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.entity import Entity
from engine.tools.bench.base import Rows, measure
from engine.world import World

__all__ = ["bench_render", "bench_render_turning"]


def bench_render(count: int = 10_000, rounds: int = 20) -> Rows:
    """Headless: ``EntityRenderer`` vs one pyglet shape per entity, both interpolating."""
    from engine.render import use_headless

    use_headless(True)
    import pyglet
    import pyglet.shapes

    from engine.look import Look
    from engine.render.context import create_window
    from engine.render.entities import EntityRenderer

    class Dot(Entity):
        look = Look("square", 4, (200, 200, 255))

        def update(self, world: Any) -> None:
            self.x = (self.x + 1) % 640

    world = World()
    for i in range(count):
        world.spawn(Dot(x=i % 640, y=(i * 7) % 480))
    world.tick()
    window = create_window(640, 480, headless=True)
    renderer = EntityRenderer(world)
    batch = pyglet.graphics.Batch()
    entities = world.entities
    shapes = [pyglet.shapes.Rectangle(e.x - 2, e.y - 2, 4, 4, color=(200, 200, 255), batch=batch) for e in entities]
    alphas = iter([i / 7 % 1 for i in range(10 * rounds + 10)])

    def ours() -> None:
        window.clear()
        renderer.draw(next(alphas))
        pyglet.gl.glFinish()

    def per_shape() -> None:
        window.clear()
        alpha = next(alphas)
        for shape, entity in zip(shapes, entities):
            x, y = entity.draw_position(alpha)
            shape.position = (x - 2, y - 2)
        batch.draw()
        pyglet.gl.glFinish()

    renderer_name = pyglet.gl.gl_info.get_renderer()
    times = measure({"shapes": per_shape, "ours": ours}, rounds)
    renderer.delete()
    window.close()
    world.close()
    return [
        (f"one pyglet shape per entity, {count}", times["shapes"] * 1e3, 1.0, ""),
        (f"EntityRenderer, {count}", times["ours"] * 1e3, times["shapes"] / times["ours"],
         f">= 5x faster (GL: {renderer_name})"),
    ]


def bench_render_turning(count: int = 10_000, rounds: int = 20,
                         texts: int = 100) -> Rows:
    """Headless: the renderer on plain squares vs turning squares plus changing text labels."""
    from engine.render import use_headless

    use_headless(True)
    import pyglet

    from engine.look import Look
    from engine.render.context import create_window
    from engine.render.entities import EntityRenderer

    class Dot(Entity):
        look = Look("square", 4, (200, 200, 255))

        def update(self, world: Any) -> None:
            self.x = (self.x + 1) % 640

    class Spinner(Dot):
        look = Look("square", (6, 3), (255, 200, 120))

        def update(self, world: Any) -> None:
            self.x = (self.x + 1) % 640
            self.angle = (self.angle + 7.0) % 360.0

    class Counter(Entity):
        def update(self, world: Any) -> None:
            self.look = Look(text=f"{world.tick_count % 100}", size=10, color=(255, 255, 255))

    plain, turning = World(), World()
    for i in range(count):
        plain.spawn(Dot(x=i % 640, y=(i * 7) % 480))
        turning.spawn(Spinner(x=i % 640, y=(i * 7) % 480))
    for i in range(texts):
        turning.spawn(Counter(x=(i * 37) % 640, y=(i * 53) % 480))
    window = create_window(640, 480, headless=True)
    renderers = {"plain": EntityRenderer(plain), "turning": EntityRenderer(turning)}
    worlds = {"plain": plain, "turning": turning}
    alphas = iter([i / 7 % 1 for i in range(20 * rounds + 20)])

    def frame(name: str, tick: bool) -> Callable[[], None]:
        def run() -> None:
            if tick:
                worlds[name].tick()
            window.clear()
            renderers[name].draw(next(alphas))
            pyglet.gl.glFinish()
        return run

    for name, world in worlds.items():
        world.tick()
        frame(name, False)()
    times = measure({"plain": frame("plain", False), "turning": frame("turning", False)}, rounds)
    ticked = measure({"plain": frame("plain", True), "turning": frame("turning", True)}, max(3, rounds // 2))
    for renderer in renderers.values():
        renderer.delete()
    window.close()
    for world in worlds.values():
        world.close()
    return [
        (f"plain squares, {count}, frame", times["plain"] * 1e3, 1.0, ""),
        (f"turning + {texts} texts, {count}, frame", times["turning"] * 1e3, times["plain"] / times["turning"],
         "turned sprites cover their diagonal"),
        (f"plain squares, {count}, tick + gather + frame", ticked["plain"] * 1e3, 1.0, ""),
        (f"turning + {texts} changing texts, tick + gather + frame", ticked["turning"] * 1e3,
         ticked["plain"] / ticked["turning"], ""),
    ]
