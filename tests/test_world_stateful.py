"""A hypothesis state machine over World operations, checking the invariants after every step."""

from __future__ import annotations

from typing import TypeVar, cast

import esper
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from engine import BufferedWriteError, Entity, EntityUpdateError, World, buffered, signal
from engine.world import spawner_of

_Failure = TypeVar("_Failure", bound=Exception)


class Probe(Entity):
    """Counts its updates per tick; may be told to spawn, despawn, slap, send, write another or fail."""

    score = buffered(0)
    gifts = signal(sum)

    def __init__(self, label: int, log: list[tuple[int, int]]) -> None:
        super().__init__(x=float(label))
        self.label = label
        self.log = log
        self.plan: list[tuple[str, int | Probe | None]] = []

    def update(self, world: World) -> None:
        self.log.append((world.tick_count + 1, self.label))
        self.x += 1
        self.score += self.label + self.gifts.value
        for action, target in self.plan:
            if action == "spawn":
                world.spawn(Probe(cast(int, target), self.log))  # a "spawn" plan holds the new label
            elif action == "despawn":
                world.despawn(cast(Probe, target))  # the other plans hold a live probe
            elif action == "slap":
                cast(Probe, target).slap()
            elif action == "send":
                cast(Probe, target).gifts.send(0.1 * self.label)
            elif action == "write" and target is not self:
                cast(Probe, target).score = -1
            elif action == "fail":
                raise RuntimeError("planned failure")
        self.plan = []


class Cap(esper.Processor):
    """A system after the Update Method system: caps every score, and its writes must stick."""

    def __init__(self, world: World) -> None:
        self.world = world

    def process(self) -> None:
        for probe in self.world.entities_of(Probe):
            if probe.score > 50:
                probe.score = 50


class WorldMachine(RuleBasedStateMachine):
    """Drives a World through random spawns, despawns, slaps, ticks and failing ticks."""

    def __init__(self) -> None:
        super().__init__()
        self.world = World()
        self.log: list[tuple[int, int]] = []
        self.labels = iter(range(1, 10_000))
        self.spawned_order: list[Probe] = []
        self.world.add_processor(Cap(self.world), priority=-1)

    def teardown(self) -> None:
        self.world.close()

    def live(self) -> list[Probe]:
        return [probe for probe in self.spawned_order if probe.alive]

    @rule()
    def spawn(self) -> None:
        self.spawned_order.append(self.world.spawn(Probe(next(self.labels), self.log)))

    @precondition(lambda self: self.live())
    @rule(index=st.integers(min_value=0))
    def despawn_between_ticks(self, index: int) -> None:
        live = self.live()
        self.world.despawn(live[index % len(live)])

    @precondition(lambda self: self.live())
    @rule(actor=st.integers(min_value=0), victim=st.integers(min_value=0),
          action=st.sampled_from(["spawn", "despawn", "slap", "send"]))
    def plan_mid_tick(self, actor: int, victim: int, action: str) -> None:
        live = self.live()
        who = live[actor % len(live)]
        if action == "spawn":
            who.plan.append(("spawn", next(self.labels)))
        else:
            who.plan.append((action, live[victim % len(live)]))

    @rule()
    def tick(self) -> None:
        before_live = self.live()
        despawned_mid_tick = {cast(Probe, target).label for probe in before_live for action, target in probe.plan
                              if action == "despawn"}
        start = len(self.log)
        self.world.tick()
        updated = [label for _, label in self.log[start:]]
        assert len(updated) == len(set(updated)), "nobody is updated twice in a tick"
        expected_order = [p.label for p in before_live]
        assert updated == [label for label in expected_order if label in updated], "updates follow spawn order"
        assert set(expected_order) - set(updated) <= despawned_mid_tick, "only despawned entities are skipped"
        for probe in self.world.entities:
            if probe not in self.spawned_order:
                assert isinstance(probe, Probe)
                self.spawned_order.append(probe)

    @precondition(lambda self: len(self.live()) >= 2)
    @rule(actor=st.integers(min_value=0), victim=st.integers(min_value=1))
    def foreign_write_is_refused(self, actor: int, victim: int) -> None:
        live = self.live()
        writer = live[actor % len(live)]
        target = live[(actor + victim) % len(live)]
        if target is writer:
            return
        # Only the write this time: a despawn planned earlier could remove the writer
        # before its update, and then there is no write to refuse.
        for probe in live:
            probe.plan = []
        writer.plan.append(("write", target))
        error = self.failed_tick(BufferedWriteError, "a write to another entity's buffered field was not refused")
        assert error.written is target and error.field == "score"

    @invariant()
    def scores_are_capped_by_the_late_system(self) -> None:
        assert all(probe.score <= 50 for probe in self.live())

    @precondition(lambda self: self.live())
    @rule()
    def failing_tick(self) -> None:
        # The first live probe updates first and can't be despawned before it runs; its
        # planned spawns, despawns and slaps happen, then it fails: all must be rolled back.
        self.live()[0].plan.append(("fail", None))
        self.failed_tick(EntityUpdateError, "the planned failure did not fail the tick")

    def failed_tick(self, expected: type[_Failure], unfailed: str) -> _Failure:
        """Tick, which must raise ``expected`` (else ``unfailed``) and leave the world as it was; the error."""
        before = (self.world.snapshot(), self.world.tick_count, [p.label for p in self.live()])
        try:
            self.world.tick()
        except expected as error:
            failure = error
        else:
            raise AssertionError(unfailed)
        for probe in self.live():
            probe.plan = []
        assert (self.world.snapshot(), self.world.tick_count, [p.label for p in self.live()]) == before
        return failure

    @invariant()
    def live_entities_are_in_spawn_order(self) -> None:
        assert [cast(Probe, p).label for p in self.world.entities] == [p.label for p in self.live()]

    @invariant()
    def the_update_order_is_the_live_entities_in_spawn_order(self) -> None:
        # The spawner keeps its update list across ticks, cutting out the despawned in place.
        assert spawner_of(self.world).update_order() == self.world.entities

    @invariant()
    def esper_holds_exactly_the_live_entities(self) -> None:
        with self.world.esper_context():
            assert len(list(esper.get_entities())) == len(self.world)


WorldMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
test_world_state_machine = WorldMachine.TestCase
