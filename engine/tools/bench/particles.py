"""The particles family: what fading and shrinking cost, beside a plain crowd of as many members.

A fountain of ``Particles`` (``rate`` chosen so ``count`` are alive at once: each tick as
many are emitted as die, every one aged, moved, pulled down, faded and shrunk) against a
plain drifting ``Crowd`` of ``count`` members with the same look. Three figures each: the
frame (the interpolated positions, and for the particles their sizes and opacities,
written into the vertex buffer, then one draw: on software GL the drawing dominates), the
vertex buffer written alone (the CPU's share of the frame), and the tick. Headless (EGL).
"""

from __future__ import annotations

from typing import Any

from engine.tools.bench.base import Rows, measure
from engine.world import World

__all__ = ["bench_particles"]


def bench_particles(count: int = 10_000, rounds: int = 30) -> Rows:
    """Headless: a frame and a tick of ``count`` fading, shrinking particles vs a plain crowd of as many."""
    import numpy as np

    from engine.render import use_headless

    use_headless(True)
    import pyglet

    from engine.crowd import Crowd
    from engine.look import Look
    from engine.particles import Particles
    from engine.render.context import create_window
    from engine.render.crowds import CrowdLayer
    from engine.render.entities import EntityRenderer

    lifetime = 100
    look = Look("circle", 4, (255, 200, 80))

    class Drift(Crowd):
        def update(self, world: Any) -> None:
            np.add(self.current("position"), self.current("velocity"), out=self.next("position"))

    plain, fountain = World(seed=1), World(seed=1)
    drift = plain.spawn(Drift(count, look))
    rng = np.random.default_rng(0)
    drift.spawn_members(position=rng.uniform(0, 640, (count, 2)), velocity=rng.uniform(-1, 1, (count, 2)))
    emitter = fountain.spawn(Particles(320, 100, rate=count / lifetime, lifetime=lifetime, speed=(1, 4),
                                       direction=90, spread=70, gravity=0.05, fade=True, shrink=True,
                                       shape="circle", size=4, color=(255, 200, 80)))
    for _ in range(lifetime + 2):  # the fountain full: as many born as die each tick
        fountain.tick()
    plain.tick()
    alive = emitter.count
    window = create_window(640, 480, headless=True)
    renderers = {"plain": EntityRenderer(plain), "particles": EntityRenderer(fountain)}
    alphas = iter([i / 7 % 1 for i in range(8 * rounds + 8)])

    def frame(name: str) -> Any:
        def run() -> None:
            window.clear()
            renderers[name].draw(next(alphas))
            pyglet.gl.glFinish()
        return run

    frame("plain")()
    frame("particles")()
    frames = measure({"plain": frame("plain"), "particles": frame("particles")}, rounds)
    # The CPU's share alone: filling the vertex buffer (positions; sizes and opacities too).
    layers = {"plain": CrowdLayer(drift, look), "particles": CrowdLayer(emitter, look)}

    def write(layer: CrowdLayer) -> Any:
        return lambda: layer.write(next(alphas), False)

    writes = measure({name: write(layer) for name, layer in layers.items()}, rounds)
    for layer in layers.values():
        layer.delete()
    ticks = measure({"plain": plain.tick, "particles": fountain.tick}, rounds)
    gl = pyglet.gl.gl_info.get_renderer()
    for renderer in renderers.values():
        renderer.delete()
    window.close()
    plain.close()
    fountain.close()
    return [
        (f"plain crowd, {count:,} members, frame", frames["plain"] * 1e3, 1.0, f"GL: {gl}"),
        (f"particles, {alive:,} fading and shrinking, frame", frames["particles"] * 1e3,
         frames["particles"] / frames["plain"], "vs the plain crowd: sizes and opacities written too"),
        (f"plain crowd, {count:,} members, vertex buffer written", writes["plain"] * 1e3, 1.0,
         "interpolated positions"),
        (f"particles, {alive:,}, vertex buffer written", writes["particles"] * 1e3,
         writes["particles"] / writes["plain"], "positions, sizes and opacities"),
        (f"plain crowd, {count:,} members, tick", ticks["plain"] * 1e3, 1.0, "one fused add"),
        (f"particles, {alive:,}, tick (age, move, gravity, fade, shrink, {count // lifetime} born and dead)",
         ticks["particles"] * 1e3, ticks["particles"] / ticks["plain"], "vs the plain crowd's tick"),
    ]
