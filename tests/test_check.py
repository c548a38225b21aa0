"""Order independence, checked: every sample game passes, order-dependent games are named."""

from __future__ import annotations

import random
from pathlib import Path

import esper
import pytest

from engine import Entity, InputEvent, World, buffered, signal
from engine.files.importer import load_game
from engine.testing import (
    assert_order_independent,
    check_order_independence,
    random_input,
)
from engine.tools.cli import main


@pytest.mark.parametrize(("name", "ticks"), [
    # patrol's two statues first fire in the same tick at tick 120 (see the report): 100 stays before it.
    ("patrol", 100), ("slapstick", 200), ("bouncy", 200), ("framebuffer", 100), ("swarm", 40), ("pong", 300),
    ("platformer", 300),
])
def test_every_sample_game_is_order_independent(name, ticks):
    result = assert_order_independent(load_game(name).build, ticks=ticks, orders=3)
    assert result.ok and result.ticks == ticks


class Gambler(Entity):
    """Draws from world.random inside update(): who draws first depends on update order."""

    roll = buffered(0.0)

    def update(self, world: World) -> None:
        self.roll = world.random.random()


def gamblers(world: World) -> None:
    for _ in range(4):
        world.spawn(Gambler())


def test_an_entity_drawing_world_random_is_named_with_its_field():
    result = check_order_independence(gamblers, ticks=20, orders=3)
    assert not result.ok
    assert result.tick == 1 and result.order is not None
    assert {d.kind for d in result.differences} == {"Gambler"}
    assert all(name == "roll" for d in result.differences for name, _, _ in d.fields)
    assert "after tick 1" in result.describe() and "Gambler (id" in result.describe() and "roll" in result.describe()
    assert result.drawers == ("Gambler (id 1)", "Gambler (id 2)", "Gambler (id 3)", "Gambler (id 4)")
    assert ("Gambler (id 1), Gambler (id 2), Gambler (id 3) and 1 more drew from world.random in update() at tick 1"
            in result.describe()) and "self.random" in result.describe()


class Shaker(Entity):
    """Draws from its own random: order independent, and named by nothing."""

    roll = buffered(0)
    tally = buffered(0)

    def update(self, world: World) -> None:
        self.roll = self.random.randrange(6)
        self.tally = sum(gambler.roll > 0.5 for gambler in world.entities_of(Gambler))


def test_only_entities_drawing_world_random_are_named_and_their_draws_are_unchanged():
    def mixed(world: World) -> None:
        world.spawn(Shaker())
        gamblers(world)
        world.random.random()  # build's draws are no update's

    result = check_order_independence(mixed, ticks=20, orders=3)
    assert result.drawers == ("Gambler (id 2)", "Gambler (id 3)", "Gambler (id 4)", "Gambler (id 5)")
    with World(seed=0) as plain, World(seed=0) as watched:
        from engine.tools.causes import Watched

        plain.random.randrange(10)
        watched.random = Watched(plain)  # the same state: the same draws, randrange and choice included
        assert [plain.random.choice("abcdef") for _ in range(50)] == [watched.random.choice("abcdef")
                                                                      for _ in range(50)]
        assert plain.random.getstate() == watched.random.getstate()


def test_a_game_drawing_nothing_from_world_random_names_no_drawer():
    result = check_order_independence(queue, ticks=5, orders=3)
    assert not result.ok and result.drawers == ()
    assert "world.random" not in result.describe()


class Counter:
    served = 0


class Customer(Entity):
    """Takes a ticket from a shared plain-attribute counter: the number depends on update order."""

    ticket = buffered(0)

    def __init__(self, counter: Counter) -> None:
        super().__init__()
        self.counter = counter

    def update(self, world: World) -> None:
        self.counter.served += 1
        self.ticket = self.counter.served


def queue(world: World) -> None:
    counter = Counter()
    for _ in range(3):
        world.spawn(Customer(counter))


def test_assert_order_independent_raises_naming_the_tick_entity_and_field():
    with pytest.raises(AssertionError) as raised:
        assert_order_independent(queue, ticks=5, orders=2)
    message = str(raised.value)
    assert "after tick 1" in message
    assert "Customer (id " in message and "ticket " in message and " vs " in message


class Hunter(Entity):
    kills = buffered(0)

    def __init__(self, prey: Entity | None = None) -> None:
        super().__init__()
        self.prey = prey

    def update(self, world: World) -> None:
        # Reads another entity's ``alive`` mid-tick: despawn takes effect at once.
        if self.prey is not None and self.prey.alive:
            self.kills += 1


class Prey(Entity):
    def update(self, world: World) -> None:
        if world.tick_count == 3:
            world.despawn(self)


def hunt(world: World) -> None:
    prey = world.spawn(Prey())
    world.spawn(Hunter(prey))


def test_reading_alive_mid_tick_is_caught():
    result = check_order_independence(hunt, ticks=10, orders=4, inputs=None)
    assert result.tick == 4
    (difference,) = result.differences
    assert difference.kind == "Hunter" and difference.fields[0][0] == "kills"


def test_slapstick_with_its_buffer_switched_off_is_order_dependent():
    b_key = 98  # slapstick's B turns the double buffer off: the slap races round the ring
    result = check_order_independence(load_game("slapstick").build, ticks=20, orders=3,
                                      inputs={2: [InputEvent("key_press", b_key)]})
    assert result.tick == 2 and any(d.kind == "Actor" for d in result.differences)


class Spawner(Entity):
    def update(self, world: World) -> None:
        if world.tick_count == 0:
            world.spawn(Spark(self.x))


class Spark(Entity):
    def update(self, world: World) -> None:
        pass


def two_spawners(world: World) -> None:
    world.spawn(Spawner(x=1))
    world.spawn(Spawner(x=2))


def test_same_tick_spawns_get_the_same_ids_in_every_update_order():
    # Ids of one tick's spawns are handed out in their spawners' order, not the update order.
    result = check_order_independence(two_spawners, ticks=5, orders=4, inputs=None)
    assert result.ok, result


def test_a_tick_that_fails_in_some_orders_only_is_reported():
    class Fragile(Entity):
        def update(self, world: World) -> None:
            if world.entities[0] is not self and world.tick_count == 2:
                raise RuntimeError("not first")

    def build(world: World) -> None:
        for _ in range(3):
            world.spawn(Fragile())

    result = check_order_independence(build, ticks=5, orders=3)
    assert not result.ok and "not first" in result.describe()


def test_random_input_is_a_pure_function_of_seed_and_tick():
    first, again, other = random_input(1), random_input(1), random_input(2)
    assert [first(t) for t in range(1, 200)] == [again(t) for t in range(1, 200)]
    assert [first(t) for t in range(1, 200)] != [other(t) for t in range(1, 200)]
    assert any(event.type == "key_press" for t in range(1, 200) for event in first(t))


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="orders"):
        check_order_independence(gamblers, orders=0)
    with pytest.raises(ValueError, match="inputs"):
        check_order_independence(gamblers, inputs="lots")


def test_the_plugin_gives_a_fresh_world_and_a_virtual_clock(world, clock):
    assert isinstance(world, World) and world.tick_count == 0 and len(world) == 0
    assert clock.now_ms() == 0.0
    clock.advance(5)
    assert clock.now_ms() == 5.0


# -- the command line ------------------------------------------------------------------------

BAD_GAME = """
from engine import Entity, buffered


class Gambler(Entity):
    roll = buffered(0.0)

    def update(self, world):
        self.roll = world.random.random()


def build(world):
    for _ in range(3):
        world.spawn(Gambler())
"""


def test_tickswap_check_passes_a_sample_game(capsys):
    assert main(["check", "patrol", "--ticks", "50", "--orders", "3"]) == 0
    assert "order independent" in capsys.readouterr().out


def test_tickswap_check_fails_an_order_dependent_game_naming_the_field(tmp_path, capsys):
    path = tmp_path / "gamble.py"
    path.write_text(BAD_GAME)
    assert main(["check", str(path), "--ticks", "10", "--orders", "2"]) == 1
    out = capsys.readouterr().out
    assert "order dependent: after tick 1" in out and "Gambler (id" in out and "roll" in out


@pytest.mark.parametrize(("argv", "words"), [
    (["check", "tennis"], "unknown game 'tennis'"),
    (["check", "missing.py"], "no game file at missing.py"),
])
def test_tickswap_check_bad_input_exits_2_in_one_line(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_tickswap_check_refuses_a_game_file_that_does_not_import(tmp_path, capsys):
    path = tmp_path / "broken.py"
    path.write_text("def build(world:\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "syntax error" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_tickswap_check_feeds_a_recordings_input_to_every_order(tmp_path, capsys):
    recording = tmp_path / "b.rec"
    header = ('{"format":"tickswap-replay","version":1,"game":"slapstick","seed":0,'
              '"ms_per_update":15.625,"engine":"0.1.0"}')
    b_at_tick_2 = '{"tick":2,"input":[["key_press",98,0.0,0.0]]}'
    end = '{"end":20,"hash":"0"}'
    recording.write_text(f"{header}\n{b_at_tick_2}\n{end}\n")
    assert main(["check", "slapstick", "--ticks", "20", "--input", str(recording)]) == 1
    assert "after tick 2" in capsys.readouterr().out
    assert main(["check", "slapstick", "--input", str(tmp_path / "missing.rec")]) == 2


class Source(Entity):
    def __init__(self) -> None:
        super().__init__()
        self.n = 0

    def update(self, world: World) -> None:
        self.n += 1  # a plain attribute: readers see it before or after this, by update order


class Copier(Entity):
    saved = ("seen",)

    def __init__(self, source: Source) -> None:
        super().__init__()
        self.source = source
        self.seen = 0

    def update(self, world: World) -> None:
        self.seen = self.source.n


def copier(world: World) -> None:
    world.spawn(Copier(world.spawn(Source())))


def test_a_saved_plain_attribute_that_depends_on_update_order_is_caught_and_named():
    result = check_order_independence(copier, ticks=10, orders=4, inputs=None)
    assert not result.ok
    (difference,) = result.differences
    assert difference.kind == "Copier" and difference.fields[0][0] == "seen"


def test_the_assertion_runs_the_games_systems_when_given():
    class Failing(esper.Processor):
        def process(self) -> None:
            raise RuntimeError("system ran")

    def systems(world: World) -> None:
        world.add_processor(Failing(), priority=-1)

    assert check_order_independence(two_spawners, ticks=3, orders=2, inputs=None).ok
    result = check_order_independence(two_spawners, ticks=3, orders=2, inputs=None, systems=systems)
    assert "system ran" in result.note


class Lost(Entity):
    """Sets its own position to NaN: the same state in every order, though NaN != NaN."""

    def update(self, world: World) -> None:
        self.x = float("nan")


def test_nan_is_the_same_state_in_every_order():
    def lost(world: World) -> None:
        for _ in range(3):
            world.spawn(Lost())

    result = check_order_independence(lost, ticks=5, orders=3)
    assert result.ok and not result.differences, result.describe()


class Doomed(Entity):
    """Every one raises at tick 4: which raises first depends on the order, that the tick fails does not."""

    def update(self, world: World) -> None:
        if world.tick_count == 3:
            raise ValueError("doomed")


def test_a_tick_that_fails_in_every_order_is_said_so_whichever_entity_fails_first():
    def doomed(world: World) -> None:
        for _ in range(6):
            world.spawn(Doomed())

    result = check_order_independence(doomed, ticks=6, orders=4)
    assert "the game failed at tick 4 in every order" in result.describe(), result.describe()
    assert "differs" not in result.describe() and "dependent" not in result.describe()
    # The game's own line, so the user knows where to look without running the game again.
    line = next(number for number, text in enumerate(Path(__file__).read_text().splitlines(), 1) if 'raise ValueError("doomed")' in text)
    assert f"(at {__file__}:{line} in update)" in result.describe(), result.describe()


class Still(Entity):
    """Moves only when a system moves it."""


class AddOne(esper.Processor):
    """Adds 1 to every Still's x (or y)."""

    def __init__(self, world: World, field: str = "x") -> None:
        self.world, self.field = world, field

    def process(self) -> None:
        for entity in self.world.entities_of(Still):
            setattr(entity, self.field, getattr(entity, self.field) + 1)


class Triple(AddOne):
    """Triples every Still's x (or y): after AddOne or before it, x comes out different."""

    def process(self) -> None:
        for entity in self.world.entities_of(Still):
            setattr(entity, self.field, getattr(entity, self.field) * 3)


def two_systems_on_one_field(world: World) -> None:
    world.spawn(Still(x=1.0))
    world.add_processor(AddOne(world), priority=1)
    world.add_processor(Triple(world), priority=1)


def two_systems_on_two_fields(world: World) -> None:
    world.spawn(Still(x=1.0, y=1.0))
    world.add_processor(AddOne(world, "x"), priority=1)
    world.add_processor(Triple(world, "y"), priority=1)


def test_two_systems_of_one_priority_that_depend_on_their_order_are_caught_and_named():
    result = check_order_independence(two_systems_on_one_field, ticks=10, orders=4, inputs=None)
    assert not result.ok
    assert result.systems == ("AddOne, Triple at priority 1",)
    assert result.system_order == "systems at priority 1 ran as Triple, AddOne (added as AddOne, Triple)"
    report = result.describe()
    assert "Still (id" in report and "ran as Triple, AddOne (added as AddOne, Triple)" in report


def test_two_systems_of_one_priority_that_do_not_depend_on_their_order_pass_and_are_named():
    result = check_order_independence(two_systems_on_two_fields, ticks=20, orders=4, inputs=None)
    assert result.ok, result.describe()
    assert result.describe().endswith("; systems permuted: AddOne, Triple at priority 1")


def test_systems_of_different_priorities_are_never_permuted():
    def ordered(world: World) -> None:
        world.spawn(Still(x=1.0))
        world.add_processor(AddOne(world), priority=2)
        world.add_processor(Triple(world), priority=1)

    result = check_order_independence(ordered, ticks=10, orders=4, inputs=None)
    assert result.ok and result.systems == ()


def test_tickswap_check_names_two_systems_of_one_priority_that_depend_on_their_order(tmp_path, capsys):
    path = tmp_path / "systems.py"
    path.write_text(
        "from engine import Entity\n\n"
        "class Still(Entity):\n    pass\n\n"
        "class Halve:\n    def __init__(self, world):\n        self.world = world\n"
        "    def process(self):\n        for e in self.world.entities_of(Still):\n            e.x = e.x / 2\n\n"
        "class Shift(Halve):\n    def process(self):\n        for e in self.world.entities_of(Still):\n"
        "            e.x = e.x + 8\n\n"
        "def build(world):\n    world.spawn(Still(x=4.0))\n\n"
        "def systems(world):\n    world.add_processor(Halve(world))\n    world.add_processor(Shift(world))\n")
    assert main(["check", str(path), "--ticks", "10", "--orders", "2", "--no-input"]) == 1
    out = capsys.readouterr().out
    assert "order dependent" in out and "systems at priority 0 ran as Shift, Halve (added as Halve, Shift)" in out


PAUSE_GAME = '''
from engine import Entity, buffered, keys

KEYS = (keys.P, keys.R)


class Gambler(Entity):
    roll = buffered(0.0)

    def update(self, world):
        if world.input.just_pressed(keys.P):   # only the game's own key reaches the mistake
            self.roll = world.random.random()


def build(world):
    world.spawn(Gambler())
    world.spawn(Gambler())
'''


def test_tickswap_check_presses_the_keys_a_game_lists_in_KEYS(tmp_path, capsys):
    path = tmp_path / "pausing.py"
    path.write_text(PAUSE_GAME)
    assert main(["check", str(path), "--ticks", "200", "--orders", "2"]) == 1
    assert "roll" in capsys.readouterr().out
    path.write_text(PAUSE_GAME.replace("KEYS = (keys.P, keys.R)", ""))
    assert main(["check", str(path), "--ticks", "200", "--orders", "2"]) == 0, "without KEYS, P is never pressed"


@pytest.mark.parametrize(("keys", "words"), [
    ("()", "KEYS must be a tuple of 1 to 256 keys"),
    ("keys.P", "KEYS must be a tuple"),
    ("('P',)", "KEYS must hold key codes such as keys.P"),
    ("(True,)", "KEYS must hold key codes"),
    ("(keys.P, keys.ESCAPE)", "KEYS lists ESCAPE, which the engine keeps"),
])
def test_a_malformed_KEYS_is_refused_in_one_line(tmp_path, capsys, keys, words):
    path = tmp_path / "keyed.py"
    path.write_text(PAUSE_GAME.replace("KEYS = (keys.P, keys.R)", f"KEYS = {keys}"))
    for command in ("check", "run"):
        assert main([command, str(path), "--ticks", "3"]) == 2
        err = capsys.readouterr().err
        assert words in err and "keyed.py" in err and len(err.strip().splitlines()) == 1, err


class Dog(Entity):
    pass


class Sheep(Entity):
    """Pushed by each dog in turn, its own pending move seen by the next: fine while dogs come in spawn order."""

    def update(self, world: World) -> None:
        for dog in world.entities_of(Dog):
            self.x += 1 if self.x >= dog.x else -1


def test_a_loop_over_entities_of_sees_spawn_order_in_every_update_order():
    def herd(world: World) -> None:
        world.spawn(Dog(x=0.0))
        world.spawn(Dog(x=2.0))
        world.spawn(Sheep(x=1.0))
        world.spawn(Dog(x=1.5))

    result = check_order_independence(herd, ticks=20, orders=4)
    assert result.ok, result.describe()
    with World() as world:
        herd(world)
        world.shuffle_order(random.Random(5))
        assert [entity.id for entity in world.entities] == [1, 2, 3, 4]
        assert [dog.id for dog in world.entities_of(Dog)] == [1, 2, 4]


def test_orders_with_rollback_is_refused_naming_both_and_one_order_is_one_order(capsys):
    # --orders was dropped without a word when --rollback was given: that check has no orders.
    from engine.tools.cli import main

    assert main(["check", "patrol", "--rollback", "4", "--orders", "3", "--ticks", "10"]) == 2
    err = capsys.readouterr().err
    assert "--orders 3" in err and "--rollback" in err and "Traceback" not in err
    assert main(["check", "patrol", "--ticks", "10", "--orders", "1", "--saves", "0", "--hash-seeds", "0"]) == 0
    assert "order independent: 1 shuffled order agreed" in capsys.readouterr().out


class Tally(Entity):
    """Receives one number from each Caller a tick: what it gets depends on who called first."""

    calls = signal(tuple)
    heard = buffered(0)

    def update(self, world: World) -> None:
        self.heard += len(self.calls.value)


class Caller(Entity):
    """Sends the tally how many callers came before it this tick: plain state shared by update order."""

    def update(self, world: World) -> None:
        tally = world.entities_of(Tally)[0]
        seen = [c for c in world.entities_of(Caller) if getattr(c, "_went", -1) == world.tick_count]
        self.__dict__["_went"] = world.tick_count
        tally.calls.send(len(seen))


def test_an_order_dependent_signal_is_reported_with_who_sent_it():
    def build(world: World) -> None:
        world.spawn(Tally())
        for _ in range(3):
            world.spawn(Caller())

    result = check_order_independence(build, ticks=5, orders=3, inputs=None)
    assert not result.ok and result.tick is not None
    text = result.describe()
    assert "signals" in text
    assert (f"Tally (id 1)'s signal calls was sent at tick {result.tick} by Caller (id 2), Caller (id 3) and "
            "Caller (id 4)") in text, text
