"""Entity: the Update Method with double-buffered x, y, slaps, buffered() and signal()."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Entity, World, buffered, signal

# The book's patrolling skeleton (walks between 0 and 100): one copy, the one the benchmarks time.
from engine.tools.bench.base import Patroller as Skeleton


class Bolt(Entity):
    """Flies right for ``life`` ticks, then despawns itself."""

    def __init__(self, x: float, life: int = 3) -> None:
        super().__init__(x=x)
        self.life = life
        self.updates = 0

    def update(self, world: World) -> None:
        self.updates += 1
        self.x += 10
        self.life -= 1
        if self.life == 0:
            world.despawn(self)


class Statue(Entity):
    """Fires a bolt every ``delay`` ticks."""

    def __init__(self, delay: int) -> None:
        super().__init__()
        self.delay = delay
        self.frames = 0
        self.bolts: list[Bolt] = []

    def update(self, world: World) -> None:
        self.frames += 1
        if self.frames == self.delay:
            self.frames = 0
            self.bolts.append(world.spawn(Bolt(self.x)))


def test_skeleton_patrols_from_0_to_100_and_back(world):
    bones = world.spawn(Skeleton())
    positions = []
    for _ in range(250):
        world.tick()
        positions.append(bones.x)
    assert positions[:3] == [1, 2, 3]
    assert positions[99] == 100 and positions[100] == 99
    assert positions[199] == 0 and positions[200] == 1
    assert min(positions) == 0 and max(positions) == 100


def test_statue_fires_every_delay_ticks_and_bolts_start_the_tick_after(world):
    statue = world.spawn(Statue(delay=3))
    for _ in range(2):
        world.tick()
    assert statue.bolts == []
    world.tick()  # tick 3: the statue fires
    bolt = statue.bolts[0]
    assert bolt.alive and bolt.id is not None
    assert bolt.updates == 0, "a bolt spawned mid-tick must not be updated in that tick"
    assert bolt in world.entities
    world.tick()
    assert bolt.updates == 1
    assert (bolt.x, bolt.prev_x) == (10, 0)


def test_a_bolt_despawns_itself_and_leaves_the_world_after_the_tick(world):
    bolt = world.spawn(Bolt(0, life=2))
    world.tick()
    world.tick()
    assert not bolt.alive
    assert bolt not in world.entities
    with world.esper_context():
        import esper

        assert not esper.entity_exists(bolt.id)
    world.tick()
    assert bolt.updates == 2


def test_an_entity_reads_its_own_pending_value_and_others_the_committed_one(world):
    seen: dict[str, float] = {}

    class Mover(Entity):
        def update(self, world: World) -> None:
            self.x += 1
            self.x += 1
            seen["own"] = self.x

    class Watcher(Entity):
        def __init__(self, target: Entity) -> None:
            super().__init__()
            self.target = target

        def update(self, world: World) -> None:
            seen["other"] = self.target.x

    mover = world.spawn(Mover(x=10))
    world.spawn(Watcher(mover))
    world.tick()
    assert seen == {"own": 12, "other": 10}
    assert mover.x == 12
    world.tick()
    assert seen == {"own": 14, "other": 12}


def test_prev_and_draw_position_interpolate_and_extrapolate(world):
    class Car(Entity):
        def update(self, world: World) -> None:
            self.x += 100

    car = world.spawn(Car(x=400))
    world.tick()
    assert (car.prev_x, car.x) == (400, 500)
    assert car.draw_position(0.3) == pytest.approx((430, 0))
    assert car.draw_position(0.3, extrapolate=True) == pytest.approx((530, 0))


def test_an_entity_that_stops_has_previous_equal_to_current(world):
    class Once(Entity):
        def update(self, world: World) -> None:
            if world.tick_count == 0:
                self.x = 5

    once = world.spawn(Once())
    world.tick()
    assert once.prev_x == 0
    world.tick()
    assert once.prev_x == 5 == once.x


def test_snap_makes_previous_equal_current_after_a_teleport(world):
    bones = world.spawn(Skeleton(x=10))
    world.tick()
    assert bones.prev_x == 10
    bones.x = 90  # a teleport between ticks is committed at once
    assert bones.draw_position(0.0) == (10, 0)
    bones.snap()
    assert bones.draw_position(0.0) == (90, 0)


def test_a_spawned_entity_starts_with_previous_equal_to_committed(world):
    bones = world.spawn(Skeleton(x=42))
    assert (bones.prev_x, bones.x) == (42, 42)
    assert bones.draw_position(0.5) == (42, 0)


def test_slap_given_during_a_tick_is_seen_during_the_next_and_then_cleared(world):
    log: list[tuple[int, bool]] = []

    class Victim(Entity):
        def update(self, world: World) -> None:
            log.append((world.tick_count + 1, self.was_slapped()))

    class Slapper(Entity):
        def __init__(self, victim: Entity) -> None:
            super().__init__()
            self.victim = victim

        def update(self, world: World) -> None:
            if world.tick_count + 1 == 1:
                self.victim.slap()

    victim = world.spawn(Victim())
    world.spawn(Slapper(victim))
    for _ in range(3):
        world.tick()
    assert log == [(1, False), (2, True), (3, False)]


def test_user_buffered_fields_and_signals_follow_the_same_rules(world):
    class Counter(Entity):
        count = buffered(0)
        poked = signal()

        def __init__(self) -> None:
            super().__init__()
            self.peer: Counter | None = None
            self.saw: list[tuple[int, bool]] = []

        def update(self, world: World) -> None:
            assert self.peer is not None
            self.saw.append((self.peer.count, self.poked))
            self.count += 1
            self.count += 1
            self.peer.poked = True

    first, second = world.spawn(Counter()), world.spawn(Counter())
    first.peer, second.peer = second, first
    world.tick()
    world.tick()
    assert first.saw == second.saw == [(0, False), (2, True)]
    assert (first.count, first.previous("count")) == (4, 2)
    assert world.snapshot()["entities"][0]["state"] == {"x": 0.0, "y": 0.0, "angle": 0.0, "count": 4}
    assert Counter.buffered_fields() == {"x": 0.0, "y": 0.0, "angle": 0.0, "count": 0}


def test_a_signal_can_only_be_raised():
    class Flagged(Entity):
        hit = signal()

    with pytest.raises(ValueError, match="'hit'.*False"):
        Flagged().hit = False


def test_a_mutable_buffered_default_is_refused():
    with pytest.raises(TypeError, match=r"immutable.*\[\]"):
        buffered([])


def test_a_buffered_field_cannot_be_silently_replaced_by_a_plain_one():
    with pytest.raises(TypeError, match="'x'"):
        class Broken(Entity):
            x = 5


def test_a_subclass_may_set_buffered_values_before_calling_super_init(world):
    class Early(Entity):
        hp = buffered(3)

        def __init__(self) -> None:
            self.hp = 10
            super().__init__()

    assert Early().hp == 10


def test_reading_or_slapping_a_despawned_entity_is_harmless(world):
    bones = world.spawn(Skeleton(x=3))
    world.despawn(bones)
    bones.slap()
    assert bones.x == 3 and not bones.was_slapped() and not bones.alive
    assert bones.draw_position(0.5) == (3, 0)
    assert "despawned" in repr(bones)


def test_an_unspawned_entity_is_not_alive_and_has_no_id():
    bones = Skeleton()
    assert (bones.alive, bones.id, bones.world) == (False, None, None)
    bones.slap()  # harmless
    assert not bones.was_slapped()


def test_looks_are_validated_by_name():
    from engine import Look

    assert Look("circle", 5).size == (5.0, 5.0)
    ball = str(Path(__file__).parents[1] / "games" / "pong" / "ball.png")
    assert Look(image=ball).shape == "image"
    for bad, words in [({"shape": "hexagon"}, "hexagon"), ({"size": -2}, "-2"), ({"color": (1, 2)}, r"\(1, 2\)"),
                       ({"shape": "image"}, "image="), ({"image": ""}, "''"), ({"image": "ship.png"}, "ship.png")]:
        with pytest.raises(ValueError, match=words):
            Look(**bad)  # type: ignore[arg-type]  # bad values on purpose


def test_saved_as_a_plain_string_is_refused_with_the_fix():
    with pytest.raises(TypeError, match=r"saved must be a tuple of attribute names, got 'hp': write saved = \('hp',\)"):
        class Forgetful(Entity):
            saved = ("hp")  # type: ignore[assignment]  # the mistake the message names
