"""The ``tickswap bench`` command: the table of benchmark families, and printing their figures.

``BENCHMARKS`` names every family and how to run it at full size or ``--quick``; ``main``
parses the command line, runs the chosen families in order and prints one table each
(or JSON), every title naming the path that ran the tick and the Python version.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from engine.messages import shown
from engine.tools.bench.base import Rows, tick_path
from engine.tools.bench.bullets import bench_bullets
from engine.tools.bench.churn import bench_churn
from engine.tools.bench.collisions import bench_boids, bench_collisions, bench_shooter, bench_static
from engine.tools.bench.crowd import bench_crowd
from engine.tools.bench.frame import bench_frame
from engine.tools.bench.loop import bench_loop, bench_pacing
from engine.tools.bench.particles import bench_particles
from engine.tools.bench.render import bench_render, bench_render_turning
from engine.tools.bench.rollback import bench_rollback
from engine.tools.bench.studio import bench_studio
from engine.tools.bench.towers import bench_towers
from engine.tools.bench.world import bench_world

__all__ = ["BENCHMARKS", "main"]

DESCRIPTION = "Benchmarks: scripts that print figures, measured side by side in one run."
"""The first line of ``tickswap bench --help``."""


def _print_table(title: str, rows: Rows) -> None:
    print(title)
    width = max(len(row[0]) for row in rows)
    for name, ms, ratio, target in rows:
        if ms != ms:  # not measured (a peer not installed): said in words, not as "nan ms"
            print(f"  {name:<{width}}  {'not measured':>19}  {target}")
        else:
            print(f"  {name:<{width}}  {ms:8.3f} ms  {ratio:5.2f}x  {target}")


def main(argv: list[str] | None = None) -> int:
    """Run the named benchmarks and print their tables."""
    from engine.tools.cli.options import Parser  # its mistakes are one line, as every command's

    parser = Parser(prog="tickswap bench", description=DESCRIPTION)
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
        # A figure that was not measured (a peer not installed) is NaN in the table, null in JSON.
        figures = {name: [{"case": case, "ms": None if ms != ms else ms, "ratio": None if ratio != ratio else ratio,
                           "target": target, "path": path}
                          for case, ms, ratio, target in rows] for name, rows in results.items()}
        print(json.dumps(figures, indent=2))
    return 0


BENCHMARKS: dict[str, tuple[str, Callable[[bool], Rows]]] = {
    "world": ("Update Method and churn: World.tick() vs a bare loop, median of interleaved rounds",
              lambda quick: bench_world(1000, 3) if quick else bench_world(10_000, 50)),
    "render": ("Rendering, headless: interpolated entities per frame",
               lambda quick: bench_render(1000, 3) if quick else bench_render(10_000, 20)),
    "render-turning": ("Rendering, headless: plain squares vs turning squares and changing text, same renderer",
                       lambda quick: bench_render_turning(1000, 3, 10) if quick else bench_render_turning(10_000, 20)),
    "collisions": ("Collisions, in CPU time: the shooter (walkers on a route, bullets asking what they hit) beside "
                   "numpy and Arcade; every entity asks what it overlaps; walkers on static tiles; boids as entities "
                   "(world.near) and as a crowd (near_pairs)",
                   lambda quick: [*bench_shooter(33, 190, 2), *bench_collisions(300, 2, 300), *bench_static(100, 3, 3),
                                  *bench_boids((200,), 2)]
                   if quick else [*bench_shooter(), *bench_collisions(1000, 5, 1000), *bench_collisions(10_000, 5, 500),
                                  *bench_static(), *bench_boids()]),
    "towers": ("The towers sample's heavy wave, logic only, in CPU time: 330 enemies, about 2,000 shots, as entities "
               "and as a crowd (the collisions family puts the same kind of work beside Arcade)",
               lambda quick: bench_towers(3, 2, 1) if quick else bench_towers()),
    "churn": ("Churn, in CPU time: 10,000 entities, a tenth despawned and respawned a tick, each signalling one of "
              "100 hubs, beside pygame-ce sprite groups (in their own process: TICKSWAP_PYGAME_PYTHON)",
              lambda quick: bench_churn(1000, 5, 2) if quick else bench_churn()),
    "bullets": ("Bullet hell, in CPU time: about 4,000 (and 16,000) bullets in rings, spawned and despawned, a player "
                "and its shots asking what they touch, beside pygame-ce sprite groups (TICKSWAP_PYGAME_PYTHON)",
                lambda quick: bench_bullets(500, 3, 20) if quick
                else [*bench_bullets(), *bench_bullets(16_000, 30)]),
    "loop": ("Loop overhead: an empty frame",
             lambda quick: bench_loop(1000, 3) if quick else bench_loop(20_000, 15)),
    "crowd": ("Crowd: one tick of a vectorized crowd vs the same update fused in bare numpy (the floor)",
              lambda quick: bench_crowd(10_000, 3) if quick else bench_crowd(1_000_000, 30)),
    "particles": ("Particles: a fountain of fading, shrinking particles beside a plain crowd of as many, "
                  "frame and tick (headless)",
                  lambda quick: bench_particles(1000, 3) if quick else bench_particles(10_000, 30)),
    "frame": ("The full frame: World.tick() then an interpolated draw, every entity moving, beside the bare loop "
              "and the one-vertex-buffer floor (headless)",
              lambda quick: bench_frame((1000,), 3) if quick else bench_frame()),
    "rollback": ("Rollback: return to a checkpoint 8 ticks back and re-simulate (a checkpoint each tick), beside "
                 "8 plain ticks",
                 lambda quick: bench_rollback((1000,), 3) if quick else bench_rollback()),
    "studio": ("Studio: the rewind ring beside plain ticks, a scrub step back and forward, a reload's state "
               "carried over, the ring's memory after 10 s",
               lambda quick: bench_studio((1000,), 3) if quick else bench_studio()),
    "pacing": ("Frame pacing: a real-clock FixedStepLoop at 60 fps, error of each frame interval "
               "(the ms column is the error; the ratio is how many times smaller spinning makes it)",
               lambda quick: bench_pacing(0.3) if quick else bench_pacing(5.0)),
}
"""Benchmark name -> (title, run(quick) returning rows of (case, ms, ratio, target))."""
