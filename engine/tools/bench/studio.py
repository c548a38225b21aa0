"""The studio family: what the rewind ring costs a running game, and what a scrub step and a reload's state cost.

A window run keeps a ring (``engine.studio``): a checkpoint every 8 ticks and each tick's
input. Measured for 1,000 and 10,000 patrolling entities, in one run: 8 live ticks with
the ring beside 8 plain ticks (the ring's share of a running game); one step back, which
rolls back to the checkpoint before and runs up to 7 ticks again, and one step forward,
beside a quarter of a 60 Hz frame (a held F6 scrubs a tick a frame); carrying the state
across a reload (the world as a save's text, then loaded into a new world), beside one
tick. The ring's own measure of its memory after 10 seconds (``Timeline.nbytes``) is said
beside the ring's row, in MB and MB per second of game time.
"""

from __future__ import annotations

from engine.files.game import Game
from engine.studio import Studio
from engine.tools.bench.base import Patroller, Rows, measure
from engine.world import World
from engine.world.save import load_world_text, save_text

__all__ = ["bench_studio"]

QUARTER_FRAME_MS = 1000 / 60 / 4
TICKS = 8


def bench_studio(counts: tuple[int, ...] = (1000, 10_000), rounds: int = 20) -> Rows:
    """Return rows of (case, ms, ratio, target) per entity count (see the module docstring)."""
    rows: Rows = []
    for count in counts:
        found, megabytes, seconds = _measured(count, rounds)
        scrub = "ok, within" if found["back"] * 1e3 <= QUARTER_FRAME_MS else "OVER"
        rows += [
            (f"{TICKS} plain ticks, {count} entities", found["plain"] * 1e3, 1.0, ""),
            (f"{TICKS} ticks kept in the ring, {count} entities", found["ring"] * 1e3, found["ring"] / found["plain"],
             f"the ring holds {megabytes:.1f} MB after {seconds:g} s ({megabytes / seconds:.2f} MB per second)"),
            (f"one tick back (F6), {count} entities", found["back"] * 1e3, found["back"] / found["plain"] * TICKS,
             f"{scrub} target {QUARTER_FRAME_MS:.2f} ms (a quarter of a 60 Hz frame); ratio in ticks"),
            (f"one tick forward (F7), {count} entities", found["forward"] * 1e3,
             found["forward"] / found["plain"] * TICKS, "ratio in ticks"),
            (f"a reload's state carried over, {count} entities", found["carry"] * 1e3,
             found["carry"] / found["plain"] * TICKS, "ratio in ticks"),
        ]
    return rows


def _built(world: World, count: int) -> None:
    for i in range(count):
        world.spawn(Patroller(i % 100))


def _measured(count: int, rounds: int) -> tuple[dict[str, float], float, float]:
    import types

    module = types.ModuleType("bench_patrol")
    module.build = lambda world: _built(world, count)  # type: ignore[attr-defined]
    game = Game("bench_patrol", module)
    plain = World()
    _built(plain, count)
    ringed = Studio(game)
    scrubbed = Studio(game)
    for _ in range(64 * 3):
        scrubbed.tick()
    scrubbed.back(64)  # the middle of the ring: forward and back both have somewhere to go

    def ticks() -> None:
        for _ in range(TICKS):
            plain.tick()

    def ring() -> None:
        for _ in range(TICKS):
            ringed.tick()

    def back() -> None:
        scrubbed.back(1)

    def forward() -> None:
        scrubbed.forward(1)

    def carry() -> None:
        load_world_text(save_text(plain), "the bench's state", world_class=World).close()

    try:
        found = measure({"plain": ticks, "ring": ring, "back": back, "forward": forward, "carry": carry}, rounds)
        full = Studio(game)
        seconds = full.timeline.seconds
        for _ in range(int(seconds * 64) + 8):
            full.tick()
        megabytes = full.timeline.nbytes / 1e6
        full.close()
    finally:
        plain.close()
        ringed.close()
        scrubbed.close()
    return found, megabytes, seconds
