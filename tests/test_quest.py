"""The quest sample: the kit used together (Director and Staged rooms, a TextBox, hit rules, engine.art)."""

from __future__ import annotations

from engine import World, keys
from engine.testing import assert_order_independent, assert_rollback_deterministic, assert_same_after_load, load_game
from engine.world import take_sounds


def _tap(world: World, key: int, ticks: int = 1) -> None:
    world.input_queue.press(key)
    world.tick()
    world.input_queue.release(key)
    for _ in range(ticks - 1):
        world.tick()


def test_the_elder_speaks_a_page_at_a_time_then_the_door_leads_to_the_cave():
    from games.quest.logic import Elder, Hero, Quest, Slime, Wall, Words, build

    with World(seed=1) as world:
        build(world)
        quest, hero = world.entities_of(Quest)[0], world.entities_of(Hero)[0]
        world.tick()
        world.tick()
        [words] = world.entities_of(Words)
        world.input_queue.press(keys.RIGHT)
        world.tick()
        assert hero.x == 60, "the hero waits while the elder speaks"
        world.input_queue.release(keys.RIGHT)
        pages = 0
        while words.visible:
            _tap(world, keys.SPACE, 3)
            pages += 1
            assert pages < 20
        assert words.page == len(words.pages) - 1 and len(words.pages) >= 3
        world.input_queue.press(keys.RIGHT)
        for _ in range(300):
            world.tick()
            if quest.scene == "cave" and world.entities_of(Slime):
                break
        assert quest.scene == "cave" and len(world.entities_of(Slime)) == 3
        assert world.entities_of(Elder) == [] and world.entities_of(Words) == [], "the village left with its scene"
        assert all(wall.part_of == quest.serial for wall in world.entities_of(Wall)), "only the cave's walls"
        assert hero.x < 100, "the hero came in at the cave's door"


def test_a_sword_swing_takes_one_heart_and_the_slime_blinks():
    from games.quest.logic import Hero, Quest, Slime

    with World(seed=1) as world:
        world.spawn(Quest("cave"))
        hero = world.spawn(Hero(x=200, y=250))
        world.tick()                      # the cave is entered: its slimes join after this tick
        world.tick()                      # the hero comes in at the cave's door
        slime = world.entities_of(Slime)[0]
        hero.x, hero.y = slime.x - 14, slime.y  # between ticks, a test may place things
        hero.snap()
        take_sounds(world)
        _tap(world, keys.X, 12)
        assert slime.health == 2, "one swing, one heart"
        assert any(request.path.endswith("squish.wav") for request in take_sounds(world))
        assert slime.invulnerable > 0


def test_the_quest_is_order_independent_rolled_back_and_the_same_after_a_load():
    game = load_game("quest")
    assert_order_independent(game, ticks=300, orders=2)
    assert_rollback_deterministic(game, ticks=300, distance=8)
    assert_same_after_load(game, ticks=300, saves=3)
