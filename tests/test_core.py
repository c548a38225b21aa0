"""The compiled core and the pure-Python path of the Double Buffer give the same results, bit for bit.

The differential test runs the same random world scripts (spawns, despawns mid-tick and
between ticks, signals, foreign writes, failing ticks, snaps, shuffles, systems before
and after the Update Method system) on a world of each path, in one process, and
compares hashes, previous values, signals, errors and the renderer's gather after every
step.
"""

from __future__ import annotations

import gc
import os
import random
from decimal import Decimal
from typing import Any

import esper
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import engine.world.world
from engine import Entity, Look, Part, World, buffered, signal
from engine.buffering import (
    ACCELERATED,
    CompiledBuffers,
    PureBuffers,
    access,
    compiled,
    gather_motion,
    gather_pair,
    layout_of,
    previous,
)

needs_core = pytest.mark.skipif(not ACCELERATED, reason="the compiled core is not built here (or TICKSWAP_PURE is set)")


def test_the_core_is_built_where_ci_requires_it():
    if os.environ.get("TICKSWAP_REQUIRE_CORE", "") not in ("", "0"):
        assert ACCELERATED, "TICKSWAP_REQUIRE_CORE is set but engine.buffering._core did not load"


def test_tickswap_pure_forces_the_pure_path():
    import subprocess
    import sys

    code = "import engine.buffering as b; print(b.ACCELERATED, b.Buffers.__name__)"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "TICKSWAP_PURE": "1"},
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "PureBuffers"]


class Walker(Entity):
    """Only x, y and angle: the compiled core's fast path."""

    def __init__(self, label: int, x: float) -> None:
        super().__init__(x=x, y=-x)
        self.label = label
        self.plan: list[tuple[Any, ...]] = []

    def update(self, world: World) -> None:
        if type(self.x) not in (float, int):  # an odd value a plan put there: back to a number
            self.x = 0.0
        self.x += 0.1 * self.label
        self.angle = (self.angle + 37.5) % 360.0
        _act(self, world)


class Actor(Walker):
    """Buffered fields and signals of its own: the tuple path."""

    hp = buffered(100)
    name = buffered("actor")
    hit = signal()
    gifts = signal(sum)

    def update(self, world: World) -> None:
        if type(self.hp) is not int:
            self.hp = 100
        self.hp -= 1 + (1 if self.hit else 0)
        self.y += self.gifts.value
        _act(self, world)


def _act(self: Walker, world: World) -> None:
    script = world.script  # type: ignore[attr-defined]
    for action, target, value in self.plan:
        other = script.find(target)
        if action == "spawn":
            world.spawn(script.make(value))
        elif action == "despawn" and other is not None:
            world.despawn(other)
        elif action == "slap" and other is not None:
            other.slap()
            if isinstance(other, Actor):
                other.hit = True
        elif action == "send" and isinstance(other, Actor):
            other.gifts.send(value)
        elif action == "write" and other is not None and other is not self:
            if isinstance(other, Actor) and value > 0:
                other.hp = value
            else:
                other.x = float(value)
        elif action == "same" and other is not None and other is not self:
            other.x = other.x  # the same object back: no write at all
        elif action == "snap":
            self.x += value
            self.snap()
        elif action == "still":
            self.x -= 0.1 * self.label  # back to an equal value: a new object, a harmless swap
        elif action == "fail":
            raise RuntimeError(f"planned failure {value}")
        # Hostile but ordinary code: odd values, ==, finalizers, re-entrant ticks, lists emptied.
        elif action == "odd":
            self.x = ODD_VALUES[value % len(ODD_VALUES)]
        elif action == "fickle" and isinstance(self, Actor):
            self.hp = Fickle(world, raises=value % 2 == 0)  # type: ignore[assignment]  # hostile, on purpose
        elif action == "doomed":
            self.y = Doomed(self.y, world)
        elif action == "reenter":
            world.tick()
        elif action == "clear":
            world._buffers._order.clear()  # type: ignore[attr-defined]  # the list the tick walks: reaching past the engine
        # What an entity shows is state too: its own, its class's again, another's (refused).
        elif action == "look":
            self.look = LOOKS[value % len(LOOKS)]
        elif action == "unlook":
            del self.look
        elif action == "parts":
            self.parts = PARTS[value % len(PARTS)]  # type: ignore[assignment]  # None among them: the class's again
        elif action == "lookother" and other is not None and other is not self:
            other.look = LOOKS[value % len(LOOKS)]
    self.plan = []


LOOKS = (Look("circle", 4), None, Look("square", (3, 5), (200, 10, 10)), Look(text="hi"))
PARTS = ((), (Part(Look("square", 2), (0, 6), turns=False),), None,
         (Part(Look("diamond", 3)), Part(Look(text="hp"), (1, -4))))


ODD_VALUES: tuple[Any, ...] = ("1.5", None, Decimal("1.5"), True, 10**30, float("nan"))


def _walk(world: World) -> int:
    """Touch every entry of the buffers' lists, as a profiler's hook would: a NULL crashes here."""
    buffers = world._buffers
    return sum(entity is None for found in (buffers._order, buffers._moved, buffers._changed) for entity in found)


class Fickle:
    """A buffered value whose ``==`` raises, or walks the buffers' lists and says 'different'."""

    def __init__(self, world: World, raises: bool) -> None:
        self.world, self.raises = world, raises

    def __eq__(self, other: object) -> bool:
        if self.raises:
            raise ValueError("fickle ==")
        _walk(self.world)
        return False

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Fickle()"


class Doomed(float):
    """A y whose finalizer walks the buffers' lists (released at a different moment on each path)."""

    def __new__(cls, value: float, world: World) -> Doomed:
        made = super().__new__(cls, value)
        made.world = world  # type: ignore[attr-defined]
        return made

    def __del__(self) -> None:
        _walk(self.world)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return repr(float(self))


class Script:
    """One world and the entities it made, by label (the same labels on both paths)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.made: list[Walker] = []
        world.script = self  # type: ignore[attr-defined]

    def make(self, kind: int) -> Walker:
        label = len(self.made)
        entity: Walker = (Actor if kind % 2 else Walker)(label, float(label % 7))
        self.made.append(entity)
        return entity

    def find(self, label: int) -> Walker | None:
        return self.made[label % len(self.made)] if self.made else None


class Late(esper.Processor):
    """A system after the Update Method system: its writes are kept."""

    def __init__(self, world: World) -> None:
        self.world = world

    def process(self) -> None:
        for entity in self.world.entities_of(Actor):
            if entity.hp < 95:
                entity.hp = 95


class Early(esper.Processor):
    """A system before it: entities read what it writes as their own committed values."""

    def __init__(self, world: World) -> None:
        self.world = world

    def process(self) -> None:
        for entity in self.world.entities_of(Walker)[::3]:
            entity.y += 1.0


_tick = st.tuples(st.just("tick"), st.just(0), st.just(0))
_plan = st.tuples(st.just("plan"), st.integers(0, 50),
                  st.tuples(st.sampled_from(["spawn", "despawn", "slap", "send", "write", "same", "snap", "still",
                                             "fail", "odd", "fickle", "doomed", "reenter", "clear", "look",
                                             "unlook", "parts", "lookother"]),
                            st.integers(0, 50), st.integers(-2, 5)))
steps = st.one_of(
    _tick, _plan, _tick, _plan,
    st.tuples(st.just("spawn"), st.integers(0, 3), st.just(0)),
    st.tuples(st.just("despawn"), st.integers(0, 50), st.just(0)),
    st.tuples(st.just("write"), st.integers(0, 50), st.integers(-3, 3)),
    st.tuples(st.just("shuffle"), st.integers(0, 1000), st.just(0)),
    st.tuples(st.just("gc"), st.just(0), st.just(0)),
    st.tuples(st.just("checkpoint"), st.just(0), st.just(0)),
    st.tuples(st.just("rollback"), st.just(0), st.just(0)),
    st.tuples(st.just("look"), st.integers(0, 50), st.integers(0, 5)),
)


def _observe(script: Script, error: BaseException | None) -> list[Any]:
    world = script.world
    seen: list[Any] = [_outcome(world.state_hash), world.tick_count,
                       None if error is None else (type(error).__name__, str(error))]
    for entity in script.made:
        names = layout_of(entity).names
        seen.append((entity.alive, entity.id, [repr(previous(entity, name)) for name in names],
                     [repr(value) for value in layout_of(entity).get(entity)], entity.was_slapped(),
                     sorted(access.signals_of(entity).items()), repr(entity.look), repr(entity.parts)))
    return seen


def _outcome(call: Any) -> Any:
    try:
        return call()
    except Exception as error:
        return type(error).__name__, str(error)


def _gathered(script: Script, kind: type) -> tuple[Any, bytes]:
    live = script.world.entities
    out = np.full((len(live), 3), np.nan, dtype=np.float32)
    gather = _core_gather if kind is CompiledBuffers else compiled._gather_motion_numpy
    return _outcome(lambda: gather(live, script.world.tick_count, 0.375, out, False)), out.tobytes()


def _core_gather(*args: Any) -> None:
    compiled._core.gather_motion(*args)


def _run(kind: type, systems: int, program: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    monkeypatch.setattr(engine.world.world, "Buffers", kind)
    world = World(seed=5)
    assert type(world._buffers) is kind
    script = Script(world)
    if systems & 1:
        world.add_processor(Late(world), priority=-1)
    if systems & 2:
        world.add_processor(Early(world), priority=3)
    trace: list[Any] = []
    kept: list[Any] = []
    threshold = gc.get_threshold()
    try:
        for _ in range(3):
            world.spawn(script.make(_))
        for step, target, value in program:
            error: BaseException | None = None
            if step == "spawn":
                world.spawn(script.make(target))
            elif step == "despawn":
                found = script.find(target)
                if found is not None and found.alive:
                    world.despawn(found)
            elif step == "write":
                found = script.find(target)
                if found is not None:
                    found.x = float(value)  # between ticks: allowed, committed at once
            elif step == "shuffle":
                world.shuffle_order(random.Random(target))
            elif step == "plan":
                found = script.find(target)
                if found is not None:
                    found.plan.append(value)
            elif step == "checkpoint":
                kept[:] = [world.checkpoint()]
            elif step == "rollback":
                if kept:
                    world.rollback(kept[0])
            elif step == "look":
                found = script.find(target)
                if found is not None:
                    found.look = LOOKS[value % len(LOOKS)]  # between ticks: committed at once
            else:
                hooked = step == "gc"  # a profiler's hook, set off often, walking the buffers' lists
                if hooked:
                    gc.callbacks.append(lambda phase, info: _walk(world))
                    gc.set_threshold(20)
                try:
                    world.tick()
                except Exception as failed:
                    error = failed
                finally:
                    if hooked:
                        gc.callbacks.pop()
                        gc.set_threshold(*threshold)
                for entity in script.made:
                    entity.plan = []
            trace.append((step, _observe(script, error), _gathered(script, kind)))
    finally:
        world.close()
    return trace


@needs_core
@settings(max_examples=150, deadline=None)
@given(systems=st.integers(0, 3), program=st.lists(steps, max_size=60))
@example(systems=0, program=[("shuffle", 1, 0), ("plan", 0, ("write", 20, 0)), ("plan", 0, ("clear", 0, 0)),
                             ("tick", 0, 0)])
def test_both_paths_give_identical_hashes_previous_values_signals_and_errors(systems, program):
    with pytest.MonkeyPatch.context() as monkeypatch:
        pure = _run(PureBuffers, systems, program, monkeypatch)
        compiled = _run(CompiledBuffers, systems, program, monkeypatch)
    assert compiled == pure


def test_gather_motion_interpolates_the_short_way_round_and_extrapolates():
    world = World()
    script = Script(world)
    walker = world.spawn(script.make(0))
    walker.x = 10.0
    world.tick()  # x 10 -> 10.1, angle 0 -> 37.5
    walker.angle = 350.0
    world.tick()
    out = np.zeros((1, 3), dtype=np.float32)
    gather_motion([walker], world.tick_count, 0.5, out)
    x, _ = walker.draw_position(0.5)
    assert out[0, 0] == np.float32(x)
    assert out[0, 2] == np.float32(walker.draw_angle(0.5))
    gather_motion([walker], world.tick_count, 0.5, out, extrapolate=True)
    assert out[0, 0] == np.float32(walker.draw_position(0.5, extrapolate=True)[0])
    world.close()


@needs_core
@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.tuples(st.floats(allow_nan=True, width=64), st.floats(allow_nan=True, width=64),
                                 st.floats(-1e6, 1e6) | st.integers(-10**20, 10**20),
                                 st.floats(allow_nan=True, width=64)), min_size=1, max_size=20),
       alpha=st.floats(0, 1), extrapolate=st.booleans())
def test_the_compiled_gather_and_the_numpy_gather_give_the_same_bits(values, alpha, extrapolate):
    world = World()
    made = [world.spawn(Entity()) for _ in values]
    for entity, (x, y, angle, _) in zip(made, values, strict=True):
        entity.x, entity.y, entity.angle = x, y, angle
    world.tick()
    for entity, (x, _y, _angle, later) in zip(made, values, strict=True):
        entity._px, entity._py, entity._pa, entity._prev_tick = x, later, later, world.tick_count
        entity.x = later
    outs = [np.zeros((len(made), 3), dtype=np.float32) for _ in range(2)]
    compiled._core.gather_motion(made, world.tick_count, alpha, outs[0], extrapolate)
    compiled._gather_motion_numpy(made, world.tick_count, alpha, outs[1], extrapolate)
    assert outs[0].tobytes() == outs[1].tobytes()
    world.close()


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.tuples(st.floats(allow_nan=True, width=64), st.floats(allow_nan=True, width=64),
                                 st.floats(-1e6, 1e6) | st.integers(-10**20, 10**20),
                                 st.floats(allow_nan=True, width=64)), min_size=1, max_size=20),
       moved=st.lists(st.booleans(), min_size=20, max_size=20))
@example(values=[(-0.0, 0.0, -0.0, float("inf"))], moved=[True] * 20)
def test_the_one_walk_gather_writes_the_bits_of_two_gathers_at_alpha_0_and_1(values, moved):
    world = World()
    made = [world.spawn(Entity()) for _ in values]
    for entity, (x, y, angle, _) in zip(made, values, strict=True):
        entity.x, entity.y, entity.angle = x, y, angle
    world.tick()
    for entity, (x, _y, _angle, later), was in zip(made, values, moved, strict=False):
        entity._px, entity._py, entity._pa = x, later, later
        entity._prev_tick = world.tick_count if was else world.tick_count - 1
        entity.x = later
    rows = (len(made), 3)
    expected = [np.zeros(rows, dtype=np.float32) for _ in range(2)]
    gather_motion(made, world.tick_count, 0.0, expected[0])
    gather_motion(made, world.tick_count, 1.0, expected[1])
    pairs = [gather_pair, compiled._gather_pair_numpy]
    for pair in pairs:
        found = [np.full(rows, 7.0, dtype=np.float32) for _ in range(2)]
        pair(made, world.tick_count, found[0], found[1])
        assert [out.tobytes() for out in found] == [out.tobytes() for out in expected]
    world.close()


@needs_core
def test_the_core_refuses_objects_that_are_not_entities():
    with pytest.raises(TypeError, match="expected an Entity"):
        compiled._core.commit([object()], None)
    with pytest.raises(TypeError, match="float32"):
        compiled._core.gather_motion([Entity()], 0, 0.5, np.zeros(3, dtype=np.float64))


@needs_core
def test_a_system_added_during_a_tick_gives_the_same_previous_values_on_both_paths(monkeypatch):
    class Nudge(esper.Processor):
        def __init__(self, world: World, fail: bool) -> None:
            self.world, self.fail = world, fail

        def process(self) -> None:
            for entity in self.world.entities:
                entity.x = entity.x + 0.5  # a system: its writes are kept
            if self.fail:
                raise RuntimeError("late failure")

    class Adder(Entity):
        def update(self, world: World) -> None:
            self.x += 1.0
            if world.tick_count in (1, 3):  # esper runs it in this very tick
                world.add_processor(Nudge(world, fail=world.tick_count == 3), priority=-1)

    results = []
    for kind in (PureBuffers, CompiledBuffers):
        monkeypatch.setattr(engine.world.world, "Buffers", kind)
        world = World()
        adder = world.spawn(Adder(x=1.0))
        seen: list[Any] = []
        for _ in range(5):
            try:
                world.tick()
            except Exception as error:
                seen.append(repr(error))
            seen.append((adder.x, previous(adder, "x"), world.state_hash()))
        results.append(seen)
        world.close()
    assert results[0] == results[1]
