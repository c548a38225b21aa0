"""TickProfile and `tickswap run --profile`: where a tick's time goes, read from a clock that changes nothing.

Issue 29 item 4: a game's author could not measure their own game (headless, the HUD shows
the virtual clock; summary lines had no timings).
"""

from __future__ import annotations

import re

import esper
import numpy as np
import pytest

from engine import Crowd, Entity, Look, World, signal
from engine.errors import EntityUpdateError
from engine.tools.cli import main
from engine.world import TickProfile

NOW = [0]
"""A fake clock in nanoseconds: it moves only when the game below says it worked (a reading costs nothing)."""


def fake_clock() -> int:
    return NOW[0]


class Stroller(Entity):  # not Walker: test_shown saves one, and every test module's classes are game:NAME
    look = Look("square", 16)
    hits = signal(sum)
    work_ns = 5_000

    def update(self, world):
        NOW[0] += self.work_ns
        self.x = (self.x + 3) % 200


class Bullet(Entity):
    look = Look("square", 4)
    work_ns = 1_000

    def update(self, world):
        NOW[0] += self.work_ns
        self.x = (self.x + 7) % 200
        for walker in world.overlapping(self, Stroller):
            walker.hits.send(1)
        if world.tick_count % 5 == 4:
            world.despawn(self)
            world.spawn(Bullet(x=self.x, y=self.y))


class Sparks(Crowd):
    look = Look("square", 2)

    def update(self, world):
        np.add(self.current("position"), 1.0, out=self.next("position"))


class Mover(esper.Processor):
    """A system (its own work: 2 microseconds a tick)."""

    def process(self):
        NOW[0] += 2_000


def build(world: World) -> None:
    for index in range(6):
        world.spawn(Stroller(x=index * 30, y=0))
        world.spawn(Bullet(x=index * 30 + 5, y=0))
        world.spawn(Bullet(x=index * 30 + 9, y=0))
    sparks = world.spawn(Sparks(capacity=10))
    sparks.spawn_members(position=[[0, 0], [1, 1]])
    world.add_processor(Mover(), 1)


def run(ticks: int, profile: bool, clock=fake_clock) -> tuple[str, TickProfile]:
    world = World(seed=3)
    build(world)
    profiler = TickProfile(world, clock=clock)
    if profile:
        profiler.start()
    for _ in range(ticks):
        world.tick()
    profiler.stop()
    state = world.state_hash()
    world.close()
    return state, profiler


def test_a_profiled_world_ticks_to_the_same_state_as_an_unprofiled_one():
    plain, _ = run(40, profile=False)
    profiled, profile = run(40, profile=True)
    assert profiled == plain
    assert profile.ticks == 40
    timed_real, _ = run(40, profile=True, clock=__import__("time").perf_counter_ns)  # the real clock changes nothing
    assert timed_real == plain


def test_updates_are_timed_by_class_and_counted_and_systems_by_name():
    _, profile = run(10, profile=True)
    figures = {kind.__name__: (spent, count) for kind, (spent, count) in profile.updates.items()}
    # The fake clock moves only in updates and the system: each class gets exactly its own work.
    assert figures["Stroller"] == (6 * 10 * 5_000, 60)
    assert figures["Bullet"] == (12 * 10 * 1_000, 120)
    assert figures["Sparks"] == (0, 10)
    assert profile.systems == {"Mover": 10 * 2_000}
    assert profile.read_ns == 0 and profile.tick_ns == 10 * (6 * 5_000 + 12 * 1_000 + 2_000)
    share = profile.shares()
    assert share["tick"] == pytest.approx(0.044) and share["updates"] == pytest.approx(0.042)
    assert share["systems"] == pytest.approx(0.002)
    assert share["other"] == 0 and share["collisions"] == 0 and share["double buffer"] == 0


def test_collision_queries_are_the_engines_share_not_the_askers():
    """On the real clock: queries count as collisions, and the bullets' own time excludes them."""
    world = World(seed=3)
    build(world)
    with TickProfile(world) as profile:
        for _ in range(30):
            world.tick()
    world.close()
    share = profile.shares()
    assert share["collisions"] > 0 and share["double buffer"] > 0 and share["signals"] > 0 and share["spawns"] > 0
    parts = share["updates"] + share["systems"] + sum(share[part] for part in
                                                      ("double buffer", "collisions", "signals", "spawns", "other"))
    assert parts == pytest.approx(share["tick"])
    assert profile.read_ns > 0 and profile.overhead_ms > 0
    lines = profile.lines()
    assert lines[0].startswith("profile: 30 ticks, ")
    # Classes come slowest first: which is slowest is the machine's to say (Sparks, a crowd, on the pure path).
    assert lines[1].startswith("  updates ") and re.search(r": .*Stroller x\d+ ", lines[1])
    assert re.search(r"Bullet x\d+ ", lines[1]) and "Sparks x1 " in lines[1]
    assert lines[2].startswith("  systems ") and "Mover" in lines[2]
    assert lines[3].startswith("  engine ") and "collisions" in lines[3] and "other" in lines[3]
    assert profile.summary().startswith("tick ")


class Faulty(Entity):
    def update(self, world):
        NOW[0] += 1_000
        if world.tick_count == 2:
            raise ValueError("boom")


def test_a_failed_tick_counts_nothing_and_is_named_as_ever():
    world = World()
    faulty = world.spawn(Faulty())
    with TickProfile(world, clock=fake_clock) as profile:
        world.tick()
        world.tick()
        with pytest.raises(EntityUpdateError) as failed:
            world.tick()
        assert failed.value.entity is faulty
        assert profile.ticks == 2 and profile.updates[Faulty] == [2_000, 2]
    world.close()


def test_a_profile_is_attached_between_ticks_only():
    class Attacher(Entity):
        def update(self, world):
            TickProfile(world).start()

    world = World()
    world.spawn(Attacher())
    with pytest.raises(EntityUpdateError, match="between ticks"):
        world.tick()
    world.close()


GAME = '''
from engine import Entity, Look, World


class Ball(Entity):
    look = Look("circle", 8)

    def update(self, world):
        self.x = (self.x + 2) % 320
        world.overlapping(self)


def build(world: World):
    for index in range(20):
        world.spawn(Ball(x=index * 16, y=100))
'''


def test_run_ticks_says_ticks_a_second_and_the_median_and_worst_tick_and_profiles(tmp_path, capsys):
    game = tmp_path / "balls.py"
    game.write_text(GAME)
    assert main(["run", str(game), "--ticks", "50"]) == 0
    plain = capsys.readouterr().out.strip().splitlines()
    assert len(plain) == 1
    assert re.match(r"balls\.py: 50 ticks in [0-9.]+ ms \([0-9,]+ ticks/s; a tick [0-9.]+ ms median, [0-9.]+ ms worst\), "
                    r"20 entities, state ([0-9a-f]{16})$", plain[0])
    assert main(["run", str(game), "--ticks", "50", "--profile"]) == 0
    profiled = capsys.readouterr().out.strip().splitlines()
    assert profiled[0].split("state ")[1] == plain[0].split("state ")[1], "profiling changes no state"
    assert profiled[1].startswith("profile: 50 ticks, ")
    assert "Ball x20 " in profiled[2]
    assert profiled[3].startswith("  engine ") and "collisions" in profiled[3]


def test_run_frames_headless_says_real_frame_times(tmp_path, capsys):
    game = tmp_path / "balls.py"
    game.write_text(GAME)
    assert main(["run", str(game), "--headless", "--frames", "12", "--profile"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert re.match(r"balls\.py: 12 frames, \d+ ticks \(FixedStepLoop\) in [0-9.]+ s \([0-9,]+ frames/s, [0-9,]+ ticks/s; "
                    r"a frame [0-9.]+ ms median, [0-9.]+ ms worst\), \d+ entit(y|ies), state [0-9a-f]{16}$", out[0])
    assert out[1].startswith("profile: ")


def test_a_profile_is_the_worlds_while_attached_and_nothing_else_is():
    world = World(seed=3)
    build(world)
    assert world.profile is None
    with TickProfile(world) as profile:
        assert world.profile is profile
        world.tick()
    assert world.profile is None and profile.ticks == 1
    with pytest.raises(TypeError, match="world.profile is a TickProfile or None, got 'fast'"):
        world.profile = "fast"
    world.close()
