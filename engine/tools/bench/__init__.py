"""Benchmarks: scripts that print figures, measured side by side in one run.

``tickswap bench`` (or ``python -m engine.tools.bench``) runs them all: ``World.tick()`` on
10,000 patrolling entities against a bare Python loop calling the same ``update()`` on
plain objects; a tick with 100 spawns and 100 despawns against the steady tick; a
million-member crowd tick against the same update fused in numpy (and one ``numpy.copyto``); the renderer
against one pyglet shape per entity, and on turning squares and changing text against
plain squares; ``world.overlapping`` against the O(n*m) loop over ``entities_of``; an empty
loop frame against the same lag accumulator written inline; and frame pacing on the real clock, plain ``time.sleep``
against sleeping then spinning to the deadline; and the full frame (``frame``): a tick
then an interpolated draw with every entity moving, at 1,000, 10,000 and 100,000 entities,
against the floor frame: the bare loop, then one vertex buffer drawn from numpy; and the shooter
(``collisions``): 330 walkers and 1,900 bullets asking what they hit, as entities and as a crowd,
beside the same work in bare numpy and Arcade 3.3 where it is installed, and boids (2,000 and 8,000), as
entities asking ``world.near(..., exclude=self)`` and as one crowd asking ``near_pairs``; the towers
sample's heavy wave (``towers``: 330 enemies, about 2,000 shots), logic only, shots as entities and as a
crowd; and issue 37's two workloads beside pygame-ce sprite groups, run in pygame-ce's own Python (found
through ``TICKSWAP_PYGAME_PYTHON``, or this one if it has pygame; "not measured" otherwise): ``churn``
(10,000 entities, a tenth despawned and respawned a tick, each signalling one of 100 hubs) and ``bullets``
(about 4,000 bullets in rings, spawned and despawned, a player and its shots asking what they touch).
Every table names the path
that ran the tick (the compiled core or pure Python) and the Python version. Rounds are
interleaved (A, B, A, B, ...) and medians reported, so a noisy neighbour on a shared machine slows
both sides alike. These are figures to read, never assertions: timing tests are flaky.

One module per family (``world``, ``render``, ``frame``, ``collisions``, ``loop``,
``crowd``, ``towers``, ``churn``, ``bullets``, ``particles``: fading, shrinking particles beside a
plain crowd; ``studio``: the rewind ring, a scrub step and a reload's state), so a family's
setup reads in one place; ``base`` holds what they share (the
interleaved timer, the patrolling entity, the path line), ``suite`` the command, and
``arcade_peer`` and ``pygame_peer`` the peers that run in processes of their own.
"""

from engine.tools.bench.base import Patroller as Patroller
from engine.tools.bench.base import measure as measure
from engine.tools.bench.base import tick_path as tick_path
from engine.tools.bench.bullets import bench_bullets as bench_bullets
from engine.tools.bench.churn import bench_churn as bench_churn
from engine.tools.bench.collisions import bench_boids as bench_boids
from engine.tools.bench.collisions import bench_collisions as bench_collisions
from engine.tools.bench.collisions import bench_shooter as bench_shooter
from engine.tools.bench.collisions import bench_static as bench_static
from engine.tools.bench.crowd import bench_crowd as bench_crowd
from engine.tools.bench.frame import bench_frame as bench_frame
from engine.tools.bench.loop import bench_loop as bench_loop
from engine.tools.bench.loop import bench_pacing as bench_pacing
from engine.tools.bench.particles import bench_particles as bench_particles
from engine.tools.bench.render import bench_render as bench_render
from engine.tools.bench.render import bench_render_turning as bench_render_turning
from engine.tools.bench.studio import bench_studio as bench_studio
from engine.tools.bench.suite import BENCHMARKS as BENCHMARKS
from engine.tools.bench.suite import main as main
from engine.tools.bench.towers import bench_towers as bench_towers
from engine.tools.bench.world import bench_world as bench_world

__all__ = ["BENCHMARKS", "Patroller", "bench_boids", "bench_bullets", "bench_churn", "bench_collisions", "bench_crowd",
           "bench_frame", "bench_loop", "bench_pacing", "bench_particles", "bench_render", "bench_render_turning",
           "bench_shooter", "bench_static", "bench_studio", "bench_towers", "bench_world", "main", "measure",
           "tick_path"]
