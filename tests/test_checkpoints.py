"""Checkpoints: world.checkpoint() and world.rollback(cp) return a world to exactly what it was."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any, cast

import esper
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Entity, EntityUpdateError, InputEvent, World, buffered, signal
from engine.crowd import Crowd
from engine.testing import load_game, random_input
from engine.world import music_of, take_music
from engine.world.checkpoints import Checkpoint

SAMPLES = ["bouncy", "comet", "explorer", "framebuffer", "patrol", "platformer", "pong", "slapstick", "swarm"]


def run(world: World, events, first: int, count: int) -> list[str]:
    """Tick ``count`` times from tick ``first`` with ``events(tick)`` queued; the hash after each tick."""
    hashes = []
    for tick in range(first, first + count):
        for event in events(tick):
            world.input_queue.push(event)
        world.tick()
        hashes.append(world.state_hash())
    return hashes


@pytest.mark.parametrize("name", SAMPLES)
@settings(max_examples=3, deadline=None)
@given(before=st.integers(0, 12), after=st.integers(1, 10), seed=st.integers(0, 2**16))
def test_every_sample_ticks_the_same_after_a_rollback(name, before, after, seed):
    game = load_game(name)
    events = random_input(seed, keys=game.keys) if game.keys is not None else random_input(seed)
    with World(seed=seed) as world:
        game.setup(world)
        run(world, events, 1, before)
        at_checkpoint = world.state_hash()
        checkpoint = world.checkpoint()
        first = run(world, events, before + 1, after)
        world.rollback(checkpoint)
        assert world.state_hash() == at_checkpoint and world.tick_count == before == checkpoint.tick
        assert run(world, events, before + 1, after) == first


class Bullet(Entity):
    """Flies, and leaves after its fuse burns out; hits its target with a valued signal."""

    fuse = buffered(3)
    damage = signal(sum)

    def __init__(self, target: Gun | None = None) -> None:
        super().__init__()
        self.target = target

    def update(self, world: World) -> None:
        self.x += self.random.random()
        self.fuse -= 1
        if self.target is not None and self.target.alive:
            self.target.damage.send(self.fuse)
        if self.fuse <= 0:
            world.despawn(self)


class Gun(Entity):
    """Spawns a bullet every other tick; keeps a saved list of what it spawned."""

    hp = buffered(100)
    damage = signal(sum)
    saved = ("log",)

    def __init__(self) -> None:
        super().__init__()
        self.log: list[int] = []

    def update(self, world: World) -> None:
        if world.tick_count % 2 == 0:
            world.spawn(Bullet(self))
            self.log.append(world.tick_count)
        self.hp -= self.damage.value
        if world.input.just_pressed(32):
            self.hp += 1


class Dust(Crowd):
    """Members drift by a random step and the oldest leave when too many."""

    fields = {"position": 2}

    def update(self, world: World) -> None:
        step = self.random.random()
        np.add(self.current("position"), step, out=self.next("position"))
        self.spawn_members(position=[[step, 0.0]])
        if self.count > 5:
            self.despawn_members([0])


class Dice(esper.Processor):
    """A system drawing from world.random into an entity's buffered state, before the entities update."""

    def __init__(self, gun: Gun) -> None:
        self.gun = gun

    def process(self) -> None:
        world = self.gun.world
        assert world is not None
        self.gun.y = world.random.random()


def arena(world: World) -> tuple[Gun, Dust]:
    gun = world.spawn(Gun())
    dust = world.spawn(Dust(16))
    world.add_processor(Dice(gun), 1)
    return gun, dust


def space(tick: int) -> list[InputEvent]:
    return [InputEvent("key_press", 32), InputEvent("key_release", 32)] if tick % 3 == 0 else []


@settings(max_examples=10, deadline=None)
@given(before=st.integers(0, 9), after=st.integers(1, 9), again=st.integers(1, 2))
def test_spawns_despawns_signals_crowds_and_randoms_tick_the_same_after_a_rollback(before, after, again):
    with World(seed=7) as world:
        arena(world)
        run(world, space, 1, before)
        checkpoint = world.checkpoint()
        at_checkpoint = world.state_hash()
        first = run(world, space, before + 1, after)
        for _ in range(again):  # a checkpoint can be returned to more than once
            world.rollback(checkpoint)
            assert world.state_hash() == at_checkpoint
            assert run(world, space, before + 1, after) == first


def test_a_despawned_entity_comes_back_as_the_same_object_and_a_spawned_one_goes_away():
    with World(seed=1) as world:
        gun, dust = arena(world)
        run(world, space, 1, 3)
        bullets = world.entities_of(Bullet)
        ids = [bullet.id for bullet in bullets]
        assert None not in ids
        log = list(gun.log)
        checkpoint = world.checkpoint()
        run(world, space, 4, 6)
        assert not any(bullet.alive for bullet in bullets)
        newer = world.entities_of(Bullet)
        world.rollback(checkpoint)
        assert world.entities_of(Bullet) == bullets and [bullet.id for bullet in bullets] == ids
        assert all(bullet.alive and bullet.world is world for bullet in bullets)
        assert not any(bullet.alive or bullet.world is not None or bullet.id is not None for bullet in newer)
        assert gun.log == log and world.entities[:2] == [gun, dust]
        assert world.last_id == max(cast("list[int]", ids))
        assert world.spawn(Bullet()).id == max(cast("list[int]", ids)) + 1  # the id counter came back too


def test_the_input_queue_and_the_last_tick_input_come_back():
    with World() as world:
        world.spawn(Gun())
        world.input_queue.push(InputEvent("key_press", 32))
        world.tick()
        world.input_queue.push(InputEvent("key_press", 65))
        before = world.input
        checkpoint = world.checkpoint()
        world.tick()
        world.rollback(checkpoint)
        assert world.input is before and world.input.held == frozenset({32})
        world.tick()
        assert world.input.just_pressed(65) and world.input.held == frozenset({32, 65})


def test_the_current_music_comes_back_and_the_runner_is_told():
    with World() as world:
        world.music("a.ogg")
        checkpoint = world.checkpoint()
        take_music(world)
        world.music("b.ogg")
        assert [request.path for request in take_music(world)] == ["b.ogg"]
        world.rollback(checkpoint)
        current = music_of(world).current
        assert current is not None and current.path == "a.ogg"
        assert [request.path for request in take_music(world)] == ["a.ogg"]


class Snooper(Entity):
    checkpoint: Checkpoint  # set before the tick that uses it

    def __init__(self, when: str) -> None:
        super().__init__()
        self.when = when

    def update(self, world: World) -> None:
        if self.when == "checkpoint":
            world.checkpoint()
        else:
            world.rollback(self.checkpoint)


@pytest.mark.parametrize("when", ["checkpoint", "rollback"])
def test_a_checkpoint_or_a_rollback_during_a_tick_is_refused_by_name(when):
    with World() as world:
        snooper = world.spawn(Snooper(when))
        snooper.checkpoint = world.checkpoint()
        with pytest.raises(Exception, match=rf"World.{when}\(\) .*between ticks, not during tick 1"):
            world.tick()
        assert world.tick_count == 0


def test_a_checkpoint_of_another_world_is_refused_by_name():
    with World() as one, World() as other:
        checkpoint = one.checkpoint()
        with pytest.raises(ValueError, match="<Checkpoint tick=0> was taken of another world"):
            other.rollback(checkpoint)
        with pytest.raises(TypeError, match="takes a Checkpoint"):
            other.rollback("tick 0")  # type: ignore[arg-type]  # refused by name


SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
from test_checkpoints import arena, run, space
from engine import World
from engine.buffering import ACCELERATED
with World(seed=3) as world:
    arena(world)
    run(world, space, 1, 5)
    checkpoint = world.checkpoint()
    run(world, space, 6, 7)
    world.rollback(checkpoint)
    print(ACCELERATED, run(world, space, 6, 7)[-1])
"""


def test_a_rollback_is_bit_identical_on_the_compiled_core_and_the_pure_path():
    script = SCRIPT.format(tests=os.path.dirname(__file__))
    outputs = {}
    for pure in ("0", "1"):
        env = {**os.environ, "TICKSWAP_PURE": pure}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        accelerated, digest = done.stdout.split()
        outputs[accelerated] = digest
    from engine.buffering.slots import _core
    assert len(set(outputs.values())) == 1
    if _core is not None:
        assert set(outputs) == {"True", "False"}, "the core was built: both paths ran"


class Drifter(Entity):
    """Only x, y and angle, one of them drawn from its own generator now and then: the core's common row."""

    def update(self, world: World) -> None:
        self.x += 1.0
        if world.tick_count % 3 == 0:
            self.angle = self.random.random()


def _seen(world: World) -> tuple[Any, ...]:
    """Everything a rollback must give back, as values: the hash, and each entity's previous values and kept slots."""
    rows = []
    for entity in world.entities:
        names = type(entity)._layout.names
        rows.append((entity.id, type(entity).__name__, [entity.previous(name) for name in names],
                     [getattr(entity, name) for name in names], dict(entity._signals), entity._prev_tick,
                     None if entity._random is None else entity._random.getstate()))
    return world.state_hash(), world.tick_count, world.last_id, rows


@settings(max_examples=25, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(["tick", "checkpoint", "rollback"]), st.integers(0, 7)),
                      min_size=1, max_size=30),
       drifters=st.integers(0, 40))
def test_compiled_and_pure_checkpoints_and_rollbacks_give_identical_worlds(steps, drifters):
    """The compiled core's keep/put_back and the pure path's, on the same random sequence, give the same worlds."""
    import engine.world.world
    from engine.buffering import ACCELERATED, CompiledBuffers, PureBuffers

    seen = []
    with pytest.MonkeyPatch.context() as monkeypatch:
        for kind in [PureBuffers, *([CompiledBuffers] if ACCELERATED else [])]:
            monkeypatch.setattr(engine.world.world, "Buffers", kind)
            record = []
            with World(seed=11) as world:
                arena(world)
                for _ in range(drifters):
                    world.spawn(Drifter())
                checkpoints = []
                for tick, (step, which) in enumerate(steps):
                    if step == "tick":
                        for event in space(tick):
                            world.input_queue.push(event)
                        world.tick()
                    elif step == "checkpoint":
                        checkpoints.append(world.checkpoint())
                    elif checkpoints:
                        world.rollback(checkpoints[which % len(checkpoints)])
                    record.append(_seen(world))
            seen.append(record)
    assert all(record == seen[0] for record in seen[1:])


class Guard(Entity):
    """Walks right, one a tick."""

    hp = buffered(5)

    def update(self, world: World) -> None:
        self.hp += 1
        self.x += 1.0


class Ghost(Entity):
    """Same fields as a Guard, another update: what a guard becomes when a game swaps its class."""

    hp = buffered(50)

    def update(self, world: World) -> None:
        self.hp -= 3


class Mage(Entity):
    """Other fields than a Guard's: its buffers are laid out otherwise."""

    mana = buffered(9)
    hp = buffered(1)

    def update(self, world: World) -> None:
        self.mana += 2


class Pinned(Entity):
    """Has a slot of its own: no Guard can be made one (Python refuses the swap)."""

    __slots__ = ("pin",)

    def update(self, world: World) -> None:
        pass


@pytest.mark.parametrize(("other", "ticks"), [(Ghost, True), (Mage, False)])
def test_a_rollback_gives_an_entity_whose_class_was_swapped_its_own_class_and_state_back(other, ticks):
    with World(seed=3) as world, World(seed=3) as untouched:
        guards = [world.spawn(Guard()) for _ in range(3)]
        for each in untouched, world:
            if each is untouched:
                for _ in range(3):
                    each.spawn(Guard())
            for _ in range(4):
                each.tick()
        at_checkpoint = world.state_hash()
        checkpoint = world.checkpoint()
        guards[1].__class__ = other
        world.despawn(guards[2])
        guards[2].__class__ = other  # swapped, then gone: the rollback brings back a Guard
        if ticks:
            for _ in range(3):
                world.tick()
        else:  # a Mage's fields are not there: its update fails, and the tick is taken back
            with pytest.raises(EntityUpdateError, match="mana"):
                world.tick()
        world.rollback(checkpoint)
        assert [type(guard) for guard in guards] == [Guard, Guard, Guard]
        assert world.state_hash() == at_checkpoint
        for _ in range(5):
            world.tick()
            untouched.tick()
        assert world.state_hash() == untouched.state_hash()
        assert guards[1].hp == 5 + 9 and guards[1].x == 9.0


def test_a_rollback_refuses_a_class_it_cannot_swap_back_naming_the_entity_and_changes_nothing():
    from engine.buffering.kept import restore_classes

    with World(seed=3) as world:
        guard, pinned = world.spawn(Guard()), world.spawn(Pinned())
        world.tick()
        guard.__class__ = Ghost  # type: ignore[assignment]  # a class swapped behind the engine's back
        # The guard goes back to a Guard; the pinned entity, as if it had been one, can't (slots differ).
        with pytest.raises(TypeError, match=r"^World.rollback\(\): Pinned \(id 2\) was a Guard at the checkpoint "
                                            r"and can't be made one again .*nothing was rolled back$"):
            restore_classes([guard, pinned], [0, 1], [Guard, Guard])
        assert type(guard) is Ghost and type(pinned) is Pinned  # type: ignore[comparison-overlap]  # swapped above  # the guard's swap back was undone


@pytest.mark.parametrize("pure", ["0", "1"])
def test_a_rollback_restores_a_swapped_class_on_both_paths(pure):
    script = (
        "from engine import Entity, World, buffered\n"
        "class A(Entity):\n    hp = buffered(5)\n    def update(self, world): self.hp += 1\n"
        "class C(Entity):\n    mana = buffered(3)\n    hp = buffered(0)\n"
        "    def update(self, world): self.mana += 1\n"
        "with World(seed=1) as w:\n    a = w.spawn(A()); w.tick(); h = w.state_hash(); cp = w.checkpoint()\n"
        "    a.__class__ = C\n    w.rollback(cp)\n    print(type(a).__name__, w.state_hash() == h, a.hp)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         env={**os.environ, "TICKSWAP_PURE": pure}).stdout
    assert out.split() == ["A", "True", "6"]
