"""Tweens: buffered fields moved over ticks, as state that saves, loads, rolls back and ignores update order."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import pytest
from loadedworlds import assert_goes_on_alike

from engine import BufferedWriteError, Entity, EntityUpdateError, Tweened, World, buffered, easing
from engine.path import Follower, Path
from engine.testing import assert_order_independent, assert_rollback_deterministic

T = TypeVar("T")


class Title(Tweened):
    """Slides down with an overshoot, then pulses its tint forever, back and forth."""

    tint: tuple[int, int, int] = buffered((255, 255, 255))
    seen: float = buffered(0.0)

    def __init__(self, x: float = 320.0) -> None:
        super().__init__(x=x, y=600.0)
        self.tween("y", 400.0, ticks=12, easing=easing.ease_out_back)
        self.tween("tint", (255, 80, 0), ticks=5, easing=easing.ease_in_out_sine, delay=3, repeat=0, yoyo=True)

    def update(self, world: World) -> None:
        self.seen = self.y  # what its own update reads: already stepped


class Watcher(Entity):
    """Copies a title's committed y: a reader in another entity."""

    copied: float = buffered(0.0)
    saved = ("title",)

    def __init__(self, title: Title) -> None:
        super().__init__()
        self.title = title

    def update(self, world: World) -> None:
        self.copied = self.title.y


def watched(world: World, ticks: int, read: Callable[[], T]) -> list[T]:
    """What ``read`` gives after each of ``ticks`` ticks of ``world``."""
    seen = []
    for _ in range(ticks):
        world.tick()
        seen.append(read())
    return seen


def test_a_tween_moves_its_field_along_the_easing_one_step_per_update_and_ends_exactly():
    with World() as world:
        title = world.spawn(Title())
        ys = watched(world, 14, lambda: title.y)
        expected = [600.0 + (400.0 - 600.0) * easing.ease_out_back(k / 12) for k in range(1, 12)]
        assert ys[:11] == expected
        assert ys[11:] == [400.0, 400.0, 400.0], "exactly the end, and it stays there"
        assert min(ys) < 400.0, "ease_out_back overshoots the end"
        assert title.seen == 400.0, "the update reads the stepped value"
        assert not title.tweening("y") and title.tweening("tint") and title.tweening()


def test_a_delayed_tween_begins_from_the_value_it_finds_and_a_yoyo_goes_back_and_forth():
    with World() as world:
        title = world.spawn(Title())
        tints = watched(world, 16, lambda: title.tint)
        assert tints[:3] == [(255, 255, 255)] * 3, "three ticks of delay"
        assert tints[7] == (255, 80, 0) and tints[12] == (255, 255, 255) and tints[3] != tints[2]
        assert tints[8] == pytest.approx(tints[6]), "back the way it came"


def test_a_tween_started_in_update_steps_from_the_next_update_and_a_new_one_replaces_the_old():
    class Door(Tweened):
        def update(self, world: World) -> None:
            if world.tick_count == 2:
                self.tween("x", 10.0, ticks=2)
            if world.tick_count == 3:
                self.tween("x", -10.0, ticks=4)  # replaces the first, from where it got

    with World() as world:
        door = world.spawn(Door())
        xs = watched(world, 8, lambda: door.x)
        assert xs == [0.0, 0.0, 0.0, 5.0, 5.0 - 15.0 / 4, 5.0 - 30.0 / 4, 5.0 - 45.0 / 4, -10.0]


def test_queued_tweens_run_one_after_another_and_repeats_count():
    with World() as world:
        box = world.spawn(Tweened())
        box.tween("x", 4.0, ticks=2)
        box.tween("x", 0.0, ticks=2, queue=True)
        box.tween("y", 1.0, ticks=1, repeat=3, yoyo=True)
        box.tween("x", 8.0, ticks=1, queue=True, delay=1)
        path = watched(world, 7, lambda: (box.x, box.y))
        assert path == [(2.0, 1.0), (4.0, 0.0), (2.0, 1.0), (0.0, 1.0), (0.0, 1.0), (8.0, 1.0), (8.0, 1.0)]
        assert box.tweens == ()


def test_stopping_leaves_the_field_or_finishes_it():
    with World() as world:
        box = world.spawn(Tweened())
        box.tween("x", 100.0, ticks=10)
        box.tween("y", 50.0, ticks=10, repeat=2, yoyo=True)
        world.tick()
        box.stop_tweens("x")
        assert (box.x, box.tweening("x"), box.tweening("y")) == (10.0, False, True)
        box.stop_tweens(finish=True)
        assert (box.y, box.tweens) == (0.0, ()), "two runs back and forth end where they began"
        box.tween("x", 30.0, ticks=4)
        box.stop_tweens(finish=True)
        assert box.x == 30.0


def test_only_the_entity_tweens_its_own_fields():
    class Meddler(Entity):
        def __init__(self, victim: Tweened) -> None:
            super().__init__()
            self.victim = victim

        def update(self, world: World) -> None:
            self.victim.tween("x", 50.0, ticks=3)

    with World() as world:
        victim = world.spawn(Tweened())
        world.spawn(Meddler(victim))
        with pytest.raises(BufferedWriteError, match="tweens"):
            world.tick()
        assert victim.tweens == () and world.tick_count == 0


def test_a_failed_tick_takes_back_the_tweens_step():
    class Fragile(Tweened):
        fail = False

        def update(self, world: World) -> None:
            if Fragile.fail:
                raise RuntimeError("boom")

    with World() as world:
        fragile = world.spawn(Fragile())
        fragile.tween("x", 9.0, ticks=3)
        world.tick()
        Fragile.fail = True
        with pytest.raises(EntityUpdateError):
            world.tick()
        assert (fragile.x, fragile.tweens[0][4]) == (3.0, 1)
        Fragile.fail = False
        world.tick()
        assert fragile.x == 6.0


def test_a_subclass_calling_super_steps_once_and_mixins_all_step():
    class Base(Tweened):
        def update(self, world: World) -> None:
            self.calls = getattr(self, "calls", 0) + 1

    class Child(Base):
        def update(self, world: World) -> None:
            super().update(world)

    class Walker(Follower, Tweened):
        pass

    with World() as world:
        child = world.spawn(Child())
        child.tween("x", 4.0, ticks=4)
        walker = world.spawn(Walker())
        walker.follow(Path([(0, 0), (0, 100)]), speed=2.0)
        walker.tween("angle", 90.0, ticks=2)
        world.tick()
        world.tick()
        assert (child.x, child.calls) == (2.0, 2), "one step per tick, however deep the classes"
        assert (walker.y, walker.angle) == (4.0, 90.0)


@pytest.mark.parametrize("call, message", [
    (lambda t: t.tween("z", 1.0, ticks=3), "'z' is not a buffered field of Tweened"),
    (lambda t: t.tween("tweens", (), ticks=3), "'tweens' is not a buffered field"),
    (lambda t: t.tween("x", (1, 2), ticks=3), "to must be a finite number"),
    (lambda t: t.tween("x", float("nan"), ticks=3), "to must be a finite number"),
    (lambda t: t.tween("x", 1.0, ticks=0), "ticks must be a whole number of ticks >= 1"),
    (lambda t: t.tween("x", 1.0, ticks=2.5), "ticks must be a whole number"),
    (lambda t: t.tween("x", 1.0, ticks=3, delay=-1), "delay must be"),
    (lambda t: t.tween("x", 1.0, ticks=3, easing=lambda v: v), "easing must be one of engine.easing's functions"),
])
def test_bad_tweens_are_refused_by_name(call, message):
    with pytest.raises((TypeError, ValueError), match=message):
        call(Tweened())


def test_a_field_holding_no_number_and_a_queue_after_an_endless_tween_are_refused():
    class Named(Tweened):
        label: str = buffered("hi")

    with pytest.raises(TypeError, match="the field holds 'hi'; a tween moves a number or a tuple"):
        Named().tween("label", "bye", ticks=3)
    forever = Tweened()
    forever.tween("x", 1.0, ticks=3, repeat=0)
    with pytest.raises(ValueError, match="repeats forever"):
        forever.tween("x", 0.0, ticks=3, queue=True)


def build_titles(world: World) -> None:
    for index in range(4):
        title = world.spawn(Title(x=100.0 * index))
        world.spawn(Watcher(title))


def test_tweens_are_the_same_in_every_update_order():
    assert_order_independent(build_titles, ticks=40, orders=4, inputs=None)


def test_tweens_roll_back_and_resimulate_exactly():
    assert_rollback_deterministic(build_titles, ticks=30, distance=5, inputs=None)


def test_a_save_made_mid_tween_loads_and_goes_on_as_the_straight_run(tmp_path):
    with World(seed=2) as straight:
        build_titles(straight)
        for _ in range(6):
            straight.tick()
        assert_goes_on_alike(straight, tmp_path / "mid.json", ticks=20)


def _damaged(tmp_path, world: World, change) -> str:
    """Save ``world``, let ``change`` edit the JSON of its entities, and return the path of the damaged save."""
    import json

    path = tmp_path / "damaged.json"
    world.save(path)
    data = json.loads(path.read_text())
    change(data["entities"])
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("entry, message", [
    (["y", None, 1.0, 5, 0, "os.system", 0, 1, False], "easing 'os.system' is not one of engine.easing's"),
    (["z", None, 1.0, 5, 0, "linear", 0, 1, False], "'z' is not a buffered field of Title"),
    (["y", None, 1.0, 5, 5, "linear", 0, 1, False], "are not a tween's counts"),
    (["y", "up", 1.0, 5, 0, "linear", 0, 1, False], "start 'up' and end 1.0 are not numbers"),
    (["y", 1.0], "is not a tween \\(9 values\\)"),
])
def test_a_save_holding_a_tween_no_tween_makes_is_refused_at_load_naming_it(tmp_path, entry, message):
    from engine import SaveError

    def change(entities):
        title = next(record for record in entities if record["class"].endswith(":Title"))
        title["buffered"]["tweens"] = {"$tuple": [{"$tuple": entry}]}

    with World() as world:
        world.spawn(Title())
        path = _damaged(tmp_path, world, change)
    with pytest.raises(SaveError, match=f"damaged.json cannot be loaded: ValueError: Title \\(id 1\\).tweens\\[0\\]: "
                                        f".*{message}"):
        World.load(path)


class RoundThing(Entity):
    """A game's own base class with an update of its own (not a Tweened)."""

    rounds = buffered(0)

    def update(self, world: World) -> None:
        self.rounds += 1


class Banner(RoundThing, Tweened):
    """Tweened after a base that defines update: issue 39's defect 1 (the tween never moved)."""


class Flag(Banner):
    def update(self, world: World) -> None:
        super().update(world)


def test_tweened_after_a_base_class_that_defines_update_still_steps_once_a_tick():
    with World() as world:
        banner = world.spawn(Banner())
        flag = world.spawn(Flag())
        banner.tween("x", 100.0, ticks=4)
        flag.tween("x", 100.0, ticks=4)
        for _ in range(2):
            world.tick()
        assert (banner.x, banner.rounds) == (50.0, 2), "the tween steps, and the base's update runs"
        assert (flag.x, flag.rounds) == (50.0, 2), "a subclass calling super() steps once"
        for _ in range(2):
            world.tick()
        assert banner.x == flag.x == 100.0
