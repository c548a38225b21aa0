"""Benchmarks: scripts that print figures, measured side by side in one run.

``tickswap bench`` (or ``python -m engine.tools.bench``) runs them all: ``World.tick()`` on
10,000 patrolling entities against a bare Python loop calling the same ``update()`` on
plain objects; a tick with 100 spawns and 100 despawns against the steady tick; a
million-member crowd tick against one ``numpy.copyto`` of its state; the renderer
against one pyglet shape per entity, and on turning squares and changing text against
plain squares; ``world.overlapping`` against the O(n*m) loop over ``entities_of``; an empty
loop frame against the same lag accumulator written inline; and frame pacing on the real clock, plain ``time.sleep``
against sleeping then spinning to the deadline; and the full frame (``frame``): a tick
then an interpolated draw with every entity moving, at 1,000, 10,000 and 100,000 entities,
beside the bare loop and one vertex buffer drawn from numpy. Every table names the path
that ran the tick (the compiled core or pure Python) and the Python version. Rounds are
interleaved (A, B, A, B, ...) and medians reported, so a noisy neighbour on a shared machine slows
both sides alike. These are figures to read, never assertions: timing tests are flaky.
"""

from __future__ import annotations

import gc
import itertools
import json
import statistics
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from engine.entity import Entity
from engine.messages import shown
from engine.world import World

__all__ = ["BENCHMARKS", "Patroller", "bench_frame", "main", "measure", "tick_path"]


def _patrol(self: Any, world: Any) -> None:
    """Walk one step; turn round at 0 and 100 (the Skeleton of Game Programming Patterns)."""
    step = -1 if self.patrolling_left else 1
    self.x += step
    if self.x <= 0:
        self.patrolling_left = False
    elif self.x >= 100:
        self.patrolling_left = True


class Patroller(Entity):
    """The benchmark's Skeleton: walks between 0 and 100 and back."""

    def __init__(self, x: float = 0) -> None:
        super().__init__(x=x)
        self.patrolling_left = False

    update = _patrol


class _PlainPatroller:
    """The same update on a plain object: the floor the World is measured against."""

    def __init__(self, x: float = 0) -> None:
        self.x = x
        self.y = 0.0
        self.patrolling_left = False

    update = _patrol


def measure(cases: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    """Run each case once per round, interleaved, and return median seconds per case."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    gc.collect()
    for _ in range(rounds):
        for name, case in cases.items():
            start = time.perf_counter()
            case()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def bench_world(count: int = 10_000, rounds: int = 50, churn: int = 100) -> list[tuple[str, float, float, str]]:
    """Return rows of (case, ms, ratio, target) for the Update Method and churn figures."""
    world = World()
    for i in range(count):
        world.spawn(Patroller(i % 100))
    plain = [_PlainPatroller(i % 100) for i in range(count)]

    def bare() -> None:
        for thing in plain:
            thing.update(None)

    churn_world = World()
    oldest = deque(churn_world.spawn(Patroller(i % 100)) for i in range(count))

    def churn_tick() -> None:
        # Churn as games do it, from inside the tick: the oldest go, new ones join after it.
        for _ in range(churn):
            churn_world.despawn(oldest.popleft())
        for i in range(churn):
            oldest.append(churn_world.spawn(Patroller(i)))

    class Churner(Entity):
        def update(self, world: Any) -> None:
            churn_tick()

    churn_world.spawn(Churner())
    steady = measure({"bare": bare, "tick": world.tick}, rounds)
    churned = measure({"steady": world.tick, "churn": churn_world.tick}, rounds)
    world.close()
    churn_world.close()
    from engine.buffering import ACCELERATED

    return [
        (f"bare loop, {count} update() calls", steady["bare"] * 1e3, 1.0, ""),
        (f"World.tick(), {count} entities", steady["tick"] * 1e3, steady["tick"] / steady["bare"],
         "<= 1.3x bare (compiled core)" if ACCELERATED else "<= 2.2x bare (pure Python)"),
        ("World.tick(), steady (again)", churned["steady"] * 1e3, 1.0, ""),
        (f"World.tick(), {churn} spawns + {churn} despawns", churned["churn"] * 1e3,
         churned["churn"] / churned["steady"], "<= 1.3x steady"),
    ]


def bench_render(count: int = 10_000, rounds: int = 20) -> list[tuple[str, float, float, str]]:
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


def bench_loop(frames: int = 20_000, rounds: int = 15) -> list[tuple[str, float, float, str]]:
    """An empty ``FixedStepLoop.frame()`` against the same lag accumulator written inline."""
    from engine.clock import VirtualClock
    from engine.loops import FixedStepLoop

    clock = VirtualClock()
    loop = FixedStepLoop(_nothing, _nothing, clock=clock)
    step = 15_625_000

    def engine_loop() -> None:
        frame = loop.frame
        advance = clock.advance_ns
        for _ in range(frames):
            advance(4_000_000)
            frame()

    def inline_loop() -> None:
        lag = 0
        last = clock.now_ns()
        now_ns = clock.now_ns
        advance = clock.advance_ns
        for _ in range(frames):
            advance(4_000_000)
            now = now_ns()
            lag += now - last
            last = now
            updates = 0
            while lag >= step and updates < 5:
                _nothing()
                lag -= step
                updates += 1
            _nothing(lag / step)

    times = measure({"inline": inline_loop, "engine": engine_loop}, rounds)
    return [
        (f"inline lag-accumulator loop, {frames} frames", times["inline"] * 1e3, 1.0, ""),
        (f"FixedStepLoop.frame(), {frames} frames", times["engine"] * 1e3, times["engine"] / times["inline"],
         "<= 2x inline"),
    ]


def bench_crowd(count: int = 1_000_000, rounds: int = 30) -> list[tuple[str, float, float, str]]:
    """One crowd tick of ``count`` drifting members vs one ``numpy.copyto`` of the same state."""
    import numpy as np

    from engine.crowd import Crowd

    class Drift(Crowd):
        def update(self, world: Any) -> None:
            np.add(self.current("position"), self.current("velocity"), out=self.next("position"))

    class NaiveDrift(Crowd):
        """The same update written the obvious way: new arrays, copied into place."""

        def update(self, world: Any) -> None:
            position = np.array(self.current("position"))
            position = position + np.array(self.current("velocity"))
            self.next("position")[:] = position

    rng = np.random.default_rng(0)
    position, velocity = rng.uniform(0, 640, (count, 2)), rng.uniform(-1, 1, (count, 2))
    worlds = []
    for kind in (Drift, NaiveDrift):
        world = World()
        world.spawn(kind(count)).spawn_members(position=position, velocity=velocity)
        worlds.append(world)
    source = np.asarray(position, dtype=np.float32)
    target = np.empty_like(source)
    times = measure({"copyto": lambda: np.copyto(target, source), "crowd": worlds[0].tick,
                     "naive": worlds[1].tick}, rounds)
    for world in worlds:
        world.close()
    return [
        (f"numpy.copyto of {count:,} float32 pairs", times["copyto"] * 1e3, 1.0, "the memory-bandwidth floor"),
        (f"Crowd tick, {count:,} members (fused, buffers rotated)", times["crowd"] * 1e3,
         times["crowd"] / times["copyto"], "<= 3x copyto"),
        ("the same tick written naively", times["naive"] * 1e3, times["naive"] / times["copyto"], "for comparison"),
    ]


def bench_pacing(seconds: float = 5.0) -> list[tuple[str, float, float, str]]:
    """A real-clock FixedStepLoop presenting at 60 fps: frame interval error, plain sleep vs spin."""
    from engine.clock import RealClock
    from engine.loops import FixedStepLoop

    target_ms = 1000 / 60
    errors: dict[str, list[float]] = {"sleep": [], "spin": []}
    clocks = {"sleep": RealClock(spin_ms=0.0), "spin": RealClock(spin_ms=1.0)}
    # Alternate one-second runs, so both ways see the same machine load.
    for _ in range(max(1, round(seconds))):
        for name, clock in clocks.items():
            presented: list[int] = []

            def present(alpha: float, times: list[int] = presented) -> None:
                times.append(time.perf_counter_ns())

            loop = FixedStepLoop(_nothing, present, max_fps=60, clock=clock)
            loop.run(until=clock.now_ms() + min(1000.0, seconds * 1000))
            errors[name] += [abs((b - a) / 1e6 - target_ms) for a, b in itertools.pairwise(presented)]
    def percentile_99(values: list[float]) -> float:
        return sorted(values)[min(len(values) - 1, int(0.99 * len(values)))]

    rows = []
    picks: tuple[tuple[str, Callable[[list[float]], float]], ...] = (
        ("median", statistics.median), ("99th percentile", percentile_99))
    for statistic, pick in picks:
        plain, spin = pick(errors["sleep"]), pick(errors["spin"])
        rows.append((f"{statistic} |interval - 16.667 ms|, time.sleep only", plain, 1.0, ""))
        rows.append((f"{statistic} |interval - 16.667 ms|, sleep then spin", spin, plain / spin if spin else 0.0,
                     "median <= 0.1 ms" if statistic == "median" else "shared VM: the tail is the host's"))
    return rows


def bench_render_turning(count: int = 10_000, rounds: int = 20,
                         texts: int = 100) -> list[tuple[str, float, float, str]]:
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


def bench_collisions(count: int = 10_000, rounds: int = 5,
                     brute_askers: int = 500) -> list[tuple[str, float, float, str]]:
    """Every entity asks what it overlaps, once per tick: ``world.overlapping`` vs the O(n*m) loop.

    The loop over ``entities_of`` at 10,000 entities takes seconds per tick, so it is
    timed for ``brute_askers`` entities and scaled to all of them (it is linear in askers).
    """
    from engine.look import Look

    side = (count ** 0.5) * 24.0  # about one neighbour within reach of each box

    class Box(Entity):
        look = Look("square", 10)

        def __init__(self, x: float, y: float, asks: bool) -> None:
            super().__init__(x=x, y=y)
            self.asks = asks
            self.touching = 0

    class Indexed(Box):
        def update(self, world: Any) -> None:
            if self.asks:
                self.touching = len(world.overlapping(self))

    class Brute(Box):
        def update(self, world: Any) -> None:
            if self.asks:
                x, y, touching = self.x, self.y, 0
                for other in world.entities_of(Box):
                    if other is not self and abs(other.x - x) < 10 and abs(other.y - y) < 10:
                        touching += 1
                self.touching = touching

    import random

    placer = random.Random(1)
    spots = [(placer.uniform(0, side), placer.uniform(0, side)) for _ in range(count)]
    askers = min(brute_askers, count)
    indexed, brute = World(), World()
    for i, (x, y) in enumerate(spots):
        indexed.spawn(Indexed(x, y, True))
        brute.spawn(Brute(x, y, i < askers))
    times = measure({"indexed": indexed.tick, "brute": brute.tick}, rounds)
    touching = [getattr(e, "touching", None) for e in indexed.entities[:askers]]
    assert touching == [getattr(e, "touching", None) for e in brute.entities[:askers]], "both find the same"
    indexed.close()
    brute.close()
    brute_ms = times["brute"] * 1e3 * count / askers
    scaled = "" if askers == count else f" (timed for {askers}, scaled)"
    return [
        (f"O(n*m) loop over entities_of, {count} ask{scaled}", brute_ms, 1.0, ""),
        (f"world.overlapping, one grid per tick, {count} ask", times["indexed"] * 1e3,
         brute_ms / (times["indexed"] * 1e3), "the grid's build included"),
    ]


def bench_frame(counts: tuple[int, ...] = (1_000, 10_000, 100_000),
                rounds: int = 20) -> list[tuple[str, float, float, str]]:
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

        update = _patrol

    window = create_window(640, 480, headless=True)
    renderer_name = pyglet.gl.gl_info.get_renderer()
    rows: list[tuple[str, float, float, str]] = []
    for count in counts:
        rows += _frame_figures(count, rounds, Mover, window, renderer_name)
    window.close()
    return rows


def _frame_figures(count: int, rounds: int, kind: Any, window: Any,
                   renderer_name: str) -> list[tuple[str, float, float, str]]:
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
    plain = [_PlainPatroller(float(i % 100)) for i in range(count)]
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


def tick_path() -> str:
    """Which Double Buffer runs the tick: the compiled core or the pure-Python fallback."""
    import platform

    from engine.buffering import ACCELERATED

    path = "compiled core (engine.buffering._core)" if ACCELERATED else "pure Python (no core, or TICKSWAP_PURE=1)"
    return f"path: {path}, Python {platform.python_version()}"


def _nothing(*args: Any) -> None:
    """The empty update and render of the loop benchmark."""


def _print_table(title: str, rows: list[tuple[str, float, float, str]]) -> None:
    print(title)
    width = max(len(row[0]) for row in rows)
    for name, ms, ratio, target in rows:
        print(f"  {name:<{width}}  {ms:8.3f} ms  {ratio:5.2f}x  {target}")


def main(argv: list[str] | None = None) -> int:
    """Run the named benchmarks and print their tables."""
    from engine.tools.cli.options import Parser  # its mistakes are one line, as every command's

    parser = Parser(prog="tickswap bench", description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*", help=f"which benchmarks to run: {', '.join(BENCHMARKS)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="few rounds, small counts: checks that it runs")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of tables")
    args = parser.parse_args(argv)
    unknown = [name for name in args.which if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {shown(unknown[0])}; choose from {', '.join(BENCHMARKS)}")
    results = {}
    path = tick_path()
    for name in args.which or list(BENCHMARKS):
        title, run = BENCHMARKS[name]
        rows = run(args.quick)
        results[name] = rows
        if not args.json:
            quick = " (--quick: small and few, figures not meaningful)" if args.quick else ""
            _print_table(f"{title} [{path}]{quick}", rows)
            print()
    if args.json:
        figures = {name: [{"case": case, "ms": ms, "ratio": ratio, "target": target, "path": path}
                          for case, ms, ratio, target in rows] for name, rows in results.items()}
        print(json.dumps(figures, indent=2))
    return 0


BENCHMARKS: dict[str, tuple[str, Callable[[bool], list[tuple[str, float, float, str]]]]] = {
    "world": ("Update Method and churn: World.tick() vs a bare loop, median of interleaved rounds",
              lambda quick: bench_world(1000, 3) if quick else bench_world(10_000, 50)),
    "render": ("Rendering, headless: interpolated entities per frame",
               lambda quick: bench_render(1000, 3) if quick else bench_render(10_000, 20)),
    "render-turning": ("Rendering, headless: plain squares vs turning squares and changing text, same renderer",
                       lambda quick: bench_render_turning(1000, 3, 10) if quick else bench_render_turning(10_000, 20)),
    "collisions": ("Collisions: every entity asks what it overlaps, per tick",
                   lambda quick: bench_collisions(300, 2, 300) if quick
                   else [*bench_collisions(1000, 5, 1000), *bench_collisions(10_000, 5, 500)]),
    "loop": ("Loop overhead: an empty frame",
             lambda quick: bench_loop(1000, 3) if quick else bench_loop(20_000, 15)),
    "crowd": ("Crowd: one tick of a vectorized crowd vs the memory-bandwidth floor",
              lambda quick: bench_crowd(10_000, 3) if quick else bench_crowd(1_000_000, 30)),
    "frame": ("The full frame: World.tick() then an interpolated draw, every entity moving, beside the bare loop "
              "and the one-vertex-buffer floor (headless)",
              lambda quick: bench_frame((1000,), 3) if quick else bench_frame()),
    "pacing": ("Frame pacing: a real-clock FixedStepLoop at 60 fps, error of each frame interval "
               "(the ms column is the error; the ratio is how many times smaller spinning makes it)",
               lambda quick: bench_pacing(0.3) if quick else bench_pacing(5.0)),
}
"""Benchmark name -> (title, run(quick) returning rows of (case, ms, ratio, target))."""


if __name__ == "__main__":
    raise SystemExit(main())
