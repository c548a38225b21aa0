"""A paged text box (engine.gui.textbox) and hit rules (engine.hits), in a small adventure held to the checkers."""

from __future__ import annotations

from typing import Any

import pytest

from engine import World, keys
from engine.gui.textbox import TextBox
from engine.testing import assert_order_independent, assert_rollback_deterministic, assert_same_after_load, load_game
from engine.tools.cli import main

SPEECH = ["Welcome, traveller. The cave to the north is dangerous; take this sword.",
          "Come back when you have the gem."]


def _press(world: World, key: int) -> None:
    world.input_queue.press(key)
    world.tick()
    world.input_queue.release(key)


def test_a_text_box_types_its_pages_out_and_the_advance_keys_turn_and_close_them():
    with World() as world:
        box = world.spawn(TextBox(SPEECH, x=240, y=60, lines=2, line_length=46, speed=4))
        assert [len(page) for page in box.pages] == [2, 1]
        world.tick()
        world.tick()
        assert box.text_shown == ("Welcome,", "") and box.more
        _press(world, keys.SPACE)                   # the rest of the page at once
        assert box.text_shown == box.pages[0] and box.page == 0
        world.tick()
        _press(world, keys.ENTER)                   # the next page
        assert box.page == 1 and box.typed == 0 and not box.more
        for _ in range(10):
            world.tick()
        assert box.text_shown == ("Come back when you have the gem.",) and not box.finished
        _press(world, keys.PAD_A)                   # a pad's A closes the last page
        assert box.finished and not box.visible and box.parts == ()
        world.tick()
        assert not box.finished, "finished is raised for one tick"


def test_a_text_box_advances_on_its_players_keys_only_and_refuses_bad_options():
    with World(players=2) as world:
        box = world.spawn(TextBox(["one", "two"], player=1))
        world.input_queue_of(0).press(keys.SPACE)
        world.tick()
        assert box.page == 0
        world.input_queue_of(1).press(keys.SPACE)
        world.tick()
        assert box.page == 1
    with pytest.raises(ValueError, match="TextBox lines must be a whole number from 1 to 50, got 0"):
        TextBox("hi", lines=0)
    with pytest.raises(ValueError, match="a string or a list of strings"):
        TextBox([3])  # type: ignore[list-item]  # the mistake the test makes


ADVENTURE = '''
"""An elder speaks; a hero swings a sword at slimes: a hit lands once per swing, then the slime blinks."""

from engine import Entity, Look, World, keys
from engine.gui.textbox import TextBox
from engine.hits import Hurtable, Striker

KEYS = (keys.SPACE, keys.X, keys.LEFT, keys.RIGHT)


class Hero(Striker):
    look = Look("square", 12, (90, 200, 255))

    def update(self, world):
        self.x += 2 * (world.input.pressed(keys.RIGHT) - world.input.pressed(keys.LEFT))
        if world.input.just_pressed(keys.X):
            self.start_swing()
        if self.swing:
            for slime in world.overlapping(self, kind=Slime):
                self.strike(slime, damage=1)


class Slime(Hurtable):
    look = Look("circle", 12, (80, 220, 80))
    INVULNERABLE_TICKS = 20

    def update(self, world):
        if self.health <= 0:
            world.despawn(self)

    def on_hurt(self, world, damage, striker):
        world.play("squish.wav")


def build(world: World):
    world.spawn(TextBox(["Go north.", "Mind the slimes."], x=240, y=60, lines=1, speed=2))
    world.spawn(Hero(x=0, y=0))
    for n in range(3):
        world.spawn(Slime(x=8 + 10 * n, y=0))
'''


@pytest.fixture
def adventure(write_game):
    return write_game("adventure.py", ADVENTURE)


def test_a_hit_lands_once_per_swing_then_the_target_blinks_and_is_safe(adventure):
    game = load_game(str(adventure))
    with World(seed=0) as world:
        game.setup(world)
        slime: Any = world.entities[2]  # the game file's Slime, loaded by name
        world.tick()
        _press(world, keys.X)                       # swing 1: the hero overlaps the slime for many ticks
        for _ in range(6):
            world.tick()
        assert slime.health == 2, "one swing, one hit, however long the sword touches"
        assert slime.invulnerable > 0
        looks = []
        for _ in range(12):
            world.tick()
            looks.append(slime.look is None)
        assert True in looks and False in looks, "it blinks while invulnerable"
        _press(world, keys.X)                       # swing 2, while still invulnerable: nothing lands
        for _ in range(30):
            world.tick()
        assert slime.health == 2 and slime.invulnerable == 0 and slime.look is not None
        _press(world, keys.X)                       # swing 3, no longer invulnerable: it lands
        world.tick()
        world.tick()
        assert slime.health == 1


def test_the_adventure_is_order_independent_rolled_back_and_the_same_after_a_load(adventure, capsys):
    game = load_game(str(adventure))
    assert_order_independent(game, ticks=200, orders=3)
    assert_rollback_deterministic(game, ticks=200, distance=8)
    assert_same_after_load(game, ticks=200, saves=3)
    assert main(["check", str(adventure), "--ticks", "200", "--rollback", "6"]) == 0


def test_the_blink_ends_with_the_look_back_and_leaves_a_look_the_game_hides_alone():
    from engine import Hurtable, Look, Striker

    class Target(Hurtable):
        look = Look("square", 8, (0, 255, 0))
        INVULNERABLE_TICKS = 10

        def update(self, world):
            if world.tick_count == 40:
                self.look = None  # type: ignore[assignment]  # the game hides it (a slime gone underground)

    class Blade(Striker):
        look = Look("square", 8, (0, 0, 255))

        def update(self, world):
            if world.tick_count == 0:
                self.start_swing()
            for target in world.overlapping(self, kind=Target):
                self.strike(target)

    with World() as world:
        target = world.spawn(Target(x=0))
        world.spawn(Blade(x=2))
        for _ in range(20):
            world.tick()
        assert target.health == 2 and target.invulnerable == 0 and target.look == Target.look
        for _ in range(30):
            world.tick()
        assert target.look is None, "no blink going on: the step leaves the look alone"
        assert target.hitbox == (8.0, 8.0), "its box stays the class look's"


def _click(world: World, x: float, y: float, player: int = 0) -> None:
    queue = world.input_queue_of(player)
    queue.mouse_press(x, y, keys.MOUSE_LEFT)
    queue.mouse_release(x, y, keys.MOUSE_LEFT)
    world.tick()


def test_a_click_on_the_text_box_advances_it_as_its_keys_do_and_a_click_elsewhere_does_not():
    from engine.gui import Button

    with World() as world:
        box = world.spawn(TextBox(SPEECH, x=240, y=60, size=(440.0, 100.0), lines=2, line_length=46, speed=4))
        world.tick()
        _click(world, 600, 300)                     # outside the box: nothing
        assert box.page == 0 and box.typed < len("".join(box.pages[0])) and not box.clicked
        _click(world, 100, 40)                      # inside: the rest of the page at once
        assert box.clicked and box.text_shown == box.pages[0] and box.page == 0
        world.tick()
        assert not box.clicked, "clicked is this tick's"
        _click(world, 240, 60)                      # the next page
        assert box.page == 1 and box.typed == 0
        for _ in range(10):
            world.tick()
        _click(world, 400, 100)                     # the last page closes
        assert box.finished and not box.visible
        world.tick()
        _click(world, 240, 60)                      # hidden: a click there reaches nothing
        assert not box.finished and not box.clicked
    with World() as world:
        box = world.spawn(TextBox(["one", "two"], x=240, y=60))
        button = world.spawn(Button("Skip", 240, 60, (80, 40), layer=1))  # above the box: it takes the click
        _click(world, 240, 60)
        assert button.clicked and box.page == 0
        _click(world, 100, 60)                      # beside the button, on the box
        assert box.page == 1 and not box.focused, "a click takes no focus: Tab passes the box by"


def test_a_clicked_text_box_is_the_same_in_every_order_and_after_a_rollback():
    from engine.gui import Button
    from engine.input import InputEvent

    def build(world: World) -> None:
        world.spawn(TextBox(SPEECH * 3, x=240, y=60, lines=1, line_length=30, speed=2))
        world.spawn(Button("Skip", 400, 200, (80, 40)))

    def clicks(tick: int) -> list[InputEvent]:
        if tick % 7 == 3:
            return [InputEvent("mouse_press", keys.MOUSE_LEFT, 200.0, 50.0)]
        return [InputEvent("mouse_release", keys.MOUSE_LEFT, 200.0, 50.0)] if tick % 7 == 4 else []

    assert_order_independent(build, ticks=60, inputs=clicks)
    assert_rollback_deterministic(build, ticks=60, inputs=clicks)
    with World() as world:  # and the clicks did advance it
        build(world)
        for tick in range(1, 61):
            for event in clicks(tick):
                world.input_queue.push(event)
            world.tick()
        box = next(entity for entity in world.entities if isinstance(entity, TextBox))
        assert box.page >= 4, box.page
