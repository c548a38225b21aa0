"""The Spawner: a tick's spawns and despawns settled at its end, and the update list it keeps."""

from __future__ import annotations

import random

import esper
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Entity, World
from engine.world import esper_of, spawner_of


def _id(entity: Entity) -> int:
    """A live entity's id (only an unspawned one has none)."""
    assert entity.id is not None, f"{entity!r} has no id"
    return entity.id


class Culler(Entity):
    """Despawns the entities it is given and spawns as many new ones, from inside its update."""

    def __init__(self) -> None:
        super().__init__()
        self.victims: list[Entity] = []
        self.born: list[Entity] = []

    def update(self, world: World) -> None:
        for victim in self.victims:
            world.despawn(victim)
        self.born = [world.spawn(Entity(x=float(i))) for i in range(len(self.victims))]
        self.victims = []


def churned(picks: list[int], size: int = 40, shuffle: bool = False) -> tuple[World, Culler]:
    world = World()
    culler = world.spawn(Culler())
    for i in range(size):
        world.spawn(Entity(x=float(i)))
    if shuffle:
        world.shuffle_order(random.Random(3))
    world.tick()
    # Picked by place in the update order (shuffled or not): runs there are what the cut in place takes.
    others = [entity for entity in spawner_of(world).update_order() if entity is not culler]
    culler.victims = [others[i] for i in picks]
    world.tick()
    return world, culler


@pytest.mark.parametrize("picks", [
    [0, 1, 2, 3],  # the oldest, in order: cut in place
    [3, 2, 1, 0],  # the same, despawned newest first
    [10, 11, 30, 31, 39],  # a few runs
    [1, 5, 9, 13, 17, 21, 25],  # scattered: rebuilt
    [],
])
def test_after_a_churning_tick_the_update_order_is_the_live_entities(picks: list[int]) -> None:
    world, culler = churned(picks)
    assert spawner_of(world).update_order() == world.entities
    assert world.entities[len(world.entities) - len(culler.born):] == culler.born
    with world.esper_context():
        assert sorted(esper.get_entities()) == sorted(_id(entity) for entity in world.entities)


def test_a_shuffled_order_churns_into_the_same_live_entities() -> None:
    world, _culler = churned([0, 1, 2, 7], shuffle=True)
    order = spawner_of(world).update_order()
    assert order != world.entities, "the updates run shuffled"
    assert sorted(order, key=_id) == world.entities, "the queries keep spawn order"


def test_a_tick_despawning_the_oldest_keeps_its_update_list_rather_than_rebuilding_it() -> None:
    world, culler = churned([])
    listed = spawner_of(world).ticking_order()
    culler.victims = world.entities[1:6]
    world.tick()
    assert spawner_of(world).ticking_order() is listed
    assert listed == world.entities


def test_an_entity_spawned_and_despawned_in_one_tick_never_joins_the_order() -> None:
    class Blink(Entity):
        def update(self, world: World) -> None:
            world.despawn(world.spawn(Entity()))

    world = World()
    world.spawn(Blink())
    world.spawn(Entity())
    world.tick()
    assert spawner_of(world).update_order() == world.entities and len(world) == 2


@settings(max_examples=60, deadline=None)
@given(st.sets(st.integers(0, 29)), st.booleans())
def test_any_set_of_despawns_leaves_the_update_order_equal_to_the_live_entities(picks: set[int],
                                                                             shuffle: bool) -> None:
    world, culler = churned(sorted(picks, reverse=shuffle), size=30, shuffle=shuffle)
    order = spawner_of(world).update_order()
    assert (sorted(order, key=_id) if shuffle else order) == world.entities
    assert [entity.id for entity in culler.born] == list(range(world.last_id - len(picks) + 1, world.last_id + 1))
    world.close()


def test_context_blocks_nest_switch_back_and_release_the_lock_after_an_error() -> None:
    first, second = World(), World()
    with pytest.raises(KeyError), esper_of(first).context():
        assert esper.current_world == esper_of(first).name
        with esper_of(second).context():
            assert esper.current_world == esper_of(second).name
        assert esper.current_world == esper_of(first).name
        raise KeyError("inside")
    assert esper.current_world == "default"
    first.close()
    with pytest.raises(RuntimeError, match="closed"), esper_of(first).context():
        pass
    second.spawn(Entity())  # the lock was released: another context is entered
    assert len(second) == 1


# -- entities_of during a tick: the tick's start (issue 29, defect 2) ------------------------------


from engine import buffered, signal  # noqa: E402
from engine.testing import assert_order_independent  # noqa: E402


class Runner(Entity):
    """Runs; one of two despawns itself mid-tick at tick 3."""

    damage = signal(sum)

    def update(self, world: World) -> None:
        if world.tick_count == 3 and self.x in (1.0, 3.0):
            world.despawn(self)


class Gunner(Entity):
    """Hits every runner it can list and counts them: the list must not depend on who updated first."""

    runners = buffered(0)
    everyone = buffered(0)

    def update(self, world: World) -> None:
        for runner in world.entities_of(Runner):
            runner.damage.send(1.0)
        self.runners = len(world.entities_of(Runner))
        self.everyone = len(world.entities)
        if world.tick_count == 4:
            world.spawn(Runner(x=99.0))


def test_entities_of_during_a_tick_is_the_same_in_every_update_order() -> None:
    def build(world: World) -> None:
        for n in range(6):
            world.spawn(Runner(x=float(n)))
            world.spawn(Gunner())

    assert_order_independent(build, ticks=8, orders=6, inputs=None)


def test_entities_of_during_a_tick_answers_from_the_tick_start_sorted_by_id(world: World) -> None:
    runners = [world.spawn(Runner(x=float(n))) for n in range(4)]
    seen: list[list[Entity]] = []

    class Watcher(Entity):
        def update(self, world: World) -> None:
            world.despawn(runners[1])
            world.spawn(Runner(x=50.0))
            seen.append(world.entities_of(Runner))
            seen.append(world.entities)

    watcher = world.spawn(Watcher())
    world.shuffle_order(random.Random(5))
    world.tick()
    assert seen[0] == runners, "despawned this tick: still listed; spawned this tick: not yet"
    assert seen[1] == [*runners, watcher]
    assert [entity.id for entity in seen[1]] == sorted(_id(entity) for entity in seen[1])
    assert len(world.entities_of(Runner)) == 4 and runners[1] not in world.entities_of(Runner), "after the tick: live"


# -- entities_of from an index by class: the kind's classes looked at, the same answer as a scan -------------


class Base(Entity):
    pass


class Left(Base):
    pass


class Right(Base):
    pass


class Other(Entity):
    pass


class Churner(Entity):
    """Spawns and despawns others mid-tick, by its own random; asks entities_of as it goes."""

    saved = ("seen",)

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[int] = []

    def update(self, world):
        rng = self.random
        for _ in range(rng.randrange(4)):
            world.spawn(rng.choice((Base, Left, Right, Other))())
        for kind in (Entity, Base, Left, Other):  # mid-tick too: the tick's start, as a scan finds it
            assert world.entities_of(kind) == _scan(world, kind), kind
        live = world.entities_of(Base)
        if live and rng.random() < 0.7:
            world.despawn(rng.choice(live))
        self.seen = [entity.id for entity in world.entities_of(Left)]


def _scan(world: World, kind: type | tuple[type, ...]) -> list[Entity]:
    """What entities_of answered before the index: every entity looked at."""
    return [entity for entity in world.entities if isinstance(entity, kind)]


@settings(max_examples=25, deadline=None)
@given(steps=st.lists(st.sampled_from(["tick", "spawn", "despawn", "checkpoint", "rollback", "shuffle", "save"]),
                      max_size=40), seed=st.integers(0, 2**32 - 1))
def test_entities_of_answers_as_a_scan_through_churn_rollbacks_shuffles_and_loads(steps, seed, tmp_path_factory):
    rng = random.Random(seed)
    world = World(seed=seed)
    world.spawn(Churner())
    checkpoint = world.checkpoint()
    try:
        for step in steps:
            if step == "tick":
                world.tick()
            elif step == "spawn":
                world.spawn(rng.choice((Base, Left, Right, Other))())
            elif step == "despawn" and len(world.entities) > 1:
                world.despawn(rng.choice(world.entities[1:]))
            elif step == "checkpoint":
                checkpoint = world.checkpoint()
            elif step == "rollback":
                world.rollback(checkpoint)
            elif step == "shuffle":
                world.shuffle_order(rng)
            elif step == "save":
                path = tmp_path_factory.mktemp("save") / "world.json"
                world.save(path)
                world.close()
                world = World.load(path)
                checkpoint = world.checkpoint()
            kinds: tuple[type[Entity] | tuple[type[Entity], ...], ...] = (Entity, Base, Left, Right, Other, Churner,
                                                                          (Left, Other))
            for kind in kinds:
                assert world.entities_of(kind) == _scan(world, kind), (step, kind)
    finally:
        world.close()


class _Churning(Entity):
    """Despawns the two oldest plain entities when its id is a multiple of 3, spawns an entity a tick, and, when
    ``bring`` says so, one with a component of its own on odd ids."""

    bring = False

    def update(self, world: World) -> None:
        if _id(self) % 3 == 0:
            for entity in [entity for entity in world.entities if type(entity) is Entity][:2]:
                world.despawn(entity)
        world.spawn(Entity(x=1.0))
        if self.bring and _id(self) % 2:
            world.spawn(Entity(x=2.0), "component")


def _esper_view(world: World) -> tuple[object, ...]:
    """esper's tables as esper's public calls show them: each entity's components (named), in esper's order; the
    ids ``get_component(Entity)`` walks, in its set's order; the next id esper hands out."""
    with world.esper_context():
        rows = []
        for entity_id in esper.get_entities():
            components: tuple[object, ...] = esper.components_for_entity(entity_id)
            rows.append((entity_id, [(type(part).__name__, getattr(part, "id", part)) for part in components]))
        walked = [entity_id for entity_id, _entity in esper.get_component(Entity)]
    return rows, walked, _id(world.spawn(Entity()))


@pytest.mark.parametrize("bring", [False, True])
def test_a_ticks_spawns_and_despawns_change_esper_as_one_esper_call_an_entity_would(
        monkeypatch: pytest.MonkeyPatch, bring: bool) -> None:
    import engine.ecs

    def run() -> tuple[object, ...]:
        world = World()
        for _ in range(3):
            churner = _Churning()
            churner.bring = bring
            world.spawn(churner)
        for _ in range(7):
            world.tick()
        assert len(world.entities) > 10
        view = _esper_view(world)
        world.close()
        return view

    in_one_pass = run()
    monkeypatch.setattr(engine.ecs, "_TABLES", False)  # esper's create_entity / add_component / delete_entity
    assert in_one_pass == run()
