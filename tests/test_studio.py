"""The studio, headless: rewind through the ring, resume from any tick, reload code keeping state, inspect."""

from __future__ import annotations

import importlib.util
import os
import py_compile
import sys
import tracemalloc
from pathlib import Path
from typing import Any, cast

import pytest

from engine import FixedStepLoop, InputEvent, VirtualClock, keys
from engine.testing import Studio, load_game

COUNTER = '''"""A counter pushed around by Space."""
from engine import Entity, Look, buffered, keys

STEP = 1


class Counter(Entity):
    look = Look("square", 20, (200, 80, 80))
    count = buffered(0)
    speed = buffered(1.0)
    saved = ("pushes",)

    def __init__(self):
        super().__init__(x=20, y=40)
        self.pushes = 0

    def update(self, world):
        self.count += STEP
        if world.input.just_pressed(keys.SPACE):
            self.speed = -self.speed
            self.pushes += 1
        self.x += self.speed * self.random.random()


def build(world):
    world.spawn(Counter())
    world.spawn(Counter())
'''


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def press_space(tick: int) -> list[InputEvent]:
    """The scripted input of every run here: Space pressed every 23rd tick, released 3 ticks later."""
    if tick % 23 == 0:
        return [InputEvent("key_press", keys.SPACE)]
    if tick % 23 == 3:
        return [InputEvent("key_release", keys.SPACE)]
    return []


def run(studio: Studio, until: int) -> None:
    """Live ticks up to tick ``until``, each with the scripted input of its tick."""
    while studio.now < until:
        for event in press_space(studio.now + 1):
            studio.world.input_queue.push(event)
        studio.tick()


@pytest.fixture
def counter(tmp_path: Path) -> Path:
    return write(tmp_path / "counter.py", COUNTER)


def test_rewinding_100_ticks_and_resuming_with_the_same_input_gives_the_straight_runs_hash(counter):
    game = load_game(counter)
    straight = Studio(game, seconds=0)
    run(straight, 300)
    studio = Studio(game)
    run(studio, 200)
    at_200 = studio.world.state_hash()
    assert studio.back(100) == 100 and studio.now == 100 and studio.paused
    assert studio.forward(100) == 100 and studio.world.state_hash() == at_200  # the recorded ticks again
    studio.back(100)
    studio.resume()
    assert (studio.now, studio.head) == (100, 100)  # the future after tick 100 is gone
    run(studio, 300)
    assert studio.world.state_hash() == straight.world.state_hash()
    straight.close()
    studio.close()


def test_a_studio_runs_under_a_fixed_step_loop_on_a_virtual_clock_and_back_reaches_every_tick(counter):
    studio = Studio(load_game(counter))
    hashes = {}
    clock = VirtualClock()

    def update() -> None:
        for event in press_space(studio.now + 1):
            studio.world.input_queue.push(event)
        studio.tick()
        hashes[studio.now] = studio.world.state_hash()

    loop = FixedStepLoop(update, lambda alpha: None, ms_per_update=studio.world.ms_per_update, clock=clock)
    for _ in range(60):  # 60 frames of a 60 Hz display: a second, 64 ticks
        clock.advance(1000 / 60)
        loop.frame()
    assert studio.now == 64 and loop.ticks == 64
    for tick in (63, 57, 56, 40, 1, 0):  # on a checkpoint, between two, the first
        studio.go_to(tick)
        assert studio.world.state_hash() == hashes.get(tick, studio.world.state_hash()), tick
    assert studio.back(5) == 0 and studio.oldest == 0  # nothing before the start
    studio.close()


def test_a_reload_keeps_the_state_and_runs_the_new_code(counter):
    studio = Studio(load_game(counter))
    run(studio, 50)
    before = studio.world.snapshot()
    old_class = type(studio.world.entities[0])
    write(counter, COUNTER.replace("STEP = 1", "STEP = 100"))
    result = studio.reload([str(counter)])
    assert result.ok, result.message
    assert "counter.py reloaded at tick 50 (counter.py changed)" in result.message
    assert studio.world.snapshot() == before  # every field, saved attribute, id and generator came across
    assert type(studio.world.entities[0]) is not old_class  # the new code's class
    run(studio, 51)
    assert [cast(Any, entity).count for entity in studio.world.entities] == [150, 150]


def test_a_failing_import_keeps_the_old_code_running_and_says_where(counter):
    studio = Studio(load_game(counter))
    run(studio, 20)
    world = studio.world
    said: list[str] = []
    studio.say = said.append
    write(counter, COUNTER.replace("STEP = 1", "STEP = (1"))
    result = studio.reload()
    assert not result.ok and studio.world is world
    assert f"{counter}:4: syntax error" in result.message and result.message.endswith("the old code goes on")
    assert said == [result.message] and studio.last_reload is result
    write(counter, COUNTER.replace("def build(world):", "def build(world):\n    1 / 0"))
    result = studio.reload()
    assert not result.ok and "build(world) failed: ZeroDivisionError" in result.message
    assert "counter.py:26 in build" in result.message
    write(counter, COUNTER.replace("class Counter(", "class Tally(").replace("Counter()", "Tally()"))
    result = studio.reload()
    assert not result.ok and "names class 'game:Counter'" in result.message, result.message
    run(studio, 21)  # the old code still runs: STEP 1
    assert [cast(Any, entity).count for entity in studio.world.entities] == [21, 21]
    write(counter, COUNTER.replace("STEP = 1", "STEP = 2"))
    assert studio.reload().ok  # and a good edit after bad ones is taken
    run(studio, 22)
    assert [cast(Any, entity).count for entity in studio.world.entities] == [23, 23]


@pytest.mark.parametrize("raises", ["raise KeyboardInterrupt('odd')", "raise GeneratorExit('odd')",
                                    "raise BaseException('odd')"])
def test_new_code_that_raises_anything_keeps_the_old_code_running(counter, raises):
    # The game's own KeyboardInterrupt is its failure, not a Ctrl-C (engine.interrupts): the studio goes on.
    studio = Studio(load_game(counter))
    run(studio, 10)
    world = studio.world
    for where, edit in (("failed to import", f"{raises}\n\n\ndef build(world):"),
                        ("build(world) failed", f"def build(world):\n    {raises}"),
                        ("systems(world) failed", f"def systems(world):\n    {raises}\n\n\ndef build(world):")):
        write(counter, COUNTER.replace("def build(world):", edit))
        result = studio.reload()
        assert not result.ok and where in result.message and studio.world is world, result.message
    run(studio, 11)
    assert [cast(Any, entity).count for entity in studio.world.entities] == [11, 11]


def test_a_file_edited_back_to_what_it_was_reloads_into_its_new_classes_only(counter):
    # The same content gives the same module name: the old classes must not be taken for the new.
    studio = Studio(load_game(counter))
    run(studio, 5)
    write(counter, COUNTER.replace("STEP = 1", "STEP = 3"))
    assert studio.reload().ok
    write(counter, COUNTER)
    result = studio.reload()
    assert result.ok, result.message
    run(studio, 6)
    assert cast(Any, studio.world.entities[0]).count == 5 * 1 + 1


def test_an_edit_while_paused_re_simulates_from_the_paused_tick_with_the_new_code_and_the_same_input(counter):
    game = load_game(counter)
    studio = Studio(game)
    run(studio, 200)
    studio.back(100)
    write(counter, COUNTER.replace("self.speed = -self.speed", "self.speed = -2 * self.speed"))
    result = studio.reload()
    assert result.ok and result.resimulated == 100, result.message
    assert "ticks 101 to 200 re-simulated with the new code" in result.message
    assert (studio.now, studio.head, studio.paused) == (100, 200, True)
    studio.forward(100)
    edited = studio.world.state_hash()
    # The same, the long way: the old code to tick 100, the new code from there with the same input.
    write(counter, COUNTER)
    expected = Studio(load_game(counter))
    run(expected, 100)
    write(counter, COUNTER.replace("self.speed = -self.speed", "self.speed = -2 * self.speed"))
    assert expected.reload().ok
    run(expected, 200)
    assert edited == expected.world.state_hash()
    assert [cast(Any, entity).speed for entity in studio.world.entities] != [1.0, 1.0]


def test_new_code_that_fails_in_the_recorded_future_ends_the_future_there(counter):
    studio = Studio(load_game(counter))
    run(studio, 100)
    studio.back(50)
    write(counter, COUNTER.replace("self.pushes += 1", "self.pushes += 1\n            raise ValueError('no')"))
    result = studio.reload()
    assert result.ok and "tick 69 fails with the new code: " in result.message, result.message
    assert "the recorded future ends at tick 68" in result.message
    assert (studio.now, studio.head) == (50, 68)


def test_the_ring_holds_at_most_its_bytes_and_its_seconds():
    from engine import Entity, buffered

    class Mote(Entity):
        heat = buffered(0)

        def update(self, world):
            self.x += 1
            self.heat = world.tick_count

    def build(world):
        for _ in range(200):
            world.spawn(Mote())

    import types

    from engine.files.game import Game

    module = types.ModuleType("motes")
    module.build = build  # type: ignore[attr-defined]
    game = Game("motes", module)
    bounded = Studio(game, max_bytes=2_000_000)
    for _ in range(640):
        bounded.tick()
    assert bounded.timeline.nbytes <= 2_000_000
    assert 0 < bounded.head - bounded.oldest < 640  # fewer seconds kept, never more memory
    assert "MB" in bounded.describe() and "rewind" in bounded.describe()
    short = Studio(game, seconds=1.0, every=8)
    for _ in range(640):
        short.tick()
    assert 64 <= short.head - short.oldest < 64 + 8  # a second back, and no more than a checkpoint's worth beyond
    # The estimate is of the right size: what the ring really allocated, within a factor of two.
    tracemalloc.start()
    measured = Studio(game)
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(160):
        measured.tick()
    grown = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    assert grown / 2 <= measured.timeline.nbytes <= grown * 2, (grown, measured.timeline.nbytes)
    for studio in (bounded, short, measured):
        studio.close()


def test_the_inspector_shows_fields_before_and_after_signals_and_who_sent_them(tmp_path):
    game = load_game(write(tmp_path / "slaps.py", '''
from engine import Entity, Look, buffered, signal


class Target(Entity):
    look = Look("circle", 10, (10, 200, 10))
    hurt = signal(sum)
    health = buffered(10)

    def update(self, world):
        self.health -= self.hurt.value or 0


class Slapper(Entity):
    def __init__(self, target, power):
        super().__init__()
        self.target, self.power = target, power

    saved = ("target", "power")

    def update(self, world):
        self.target.slap()
        self.target.hurt.send(self.power)


def build(world):
    target = world.spawn(Target(x=5))
    world.spawn(Slapper(target, 2))
    world.spawn(Slapper(target, 3))
'''))
    studio = Studio(game)
    run(studio, 3)
    seen = studio.inspect(1)
    assert seen is not None and seen.entity == "Target (id 1)" and seen.kind == "game:Target" and seen.tick == 3
    assert seen.fields["health"] == (5, 0)  # 10, then 5 a tick from tick 2
    assert seen.signals == {"hurt": (5, ("Slapper (id 2)", "Slapper (id 3)")),
                            "slapped": (True, ("Slapper (id 2)", "Slapper (id 3)"))}
    lines = seen.lines()
    assert lines[0] == "Target (id 1)  game:Target  after tick 3"
    assert "  health = 0  (was 5)" in lines
    assert "  signal hurt = 5  from Slapper (id 2), Slapper (id 3)" in lines
    assert lines[-1].startswith("  look circle 10x10 colour (10, 200, 10")
    studio.back(2)  # the inspector follows: the same entity, a tick later, is shown again
    again = studio.inspect()
    assert again is not None and again.tick == 1 and again.fields["health"] == (10, 10)
    shown = studio.inspect(2)
    assert shown is not None and shown.saved == {"target": studio.world.entities[0], "power": 2}
    with pytest.raises(ValueError, match="no live entity has id 9 at tick 1"):
        studio.inspect(9)


def test_a_click_picks_the_topmost_entity_under_it_through_the_camera(tmp_path):
    game = load_game(write(tmp_path / "picked.py", '''
from engine import Camera, Entity, Look

WIDTH, HEIGHT = 200, 100


class Floor(Entity):
    look = Look("square", (400, 20), (90, 90, 90))


class Crate(Entity):
    look = Look("square", 10, (200, 150, 50), layer=1)


class Score(Entity):
    look = Look(text="0", size=10, screen=True)


def build(world):
    world.spawn(Camera(x=100, y=0, zoom=2.0))
    world.spawn(Floor(x=100, y=0))
    world.spawn(Crate(x=100, y=0))
    world.spawn(Score(x=10, y=90))
'''))
    studio = Studio(game)
    studio.tick()
    # The camera centres (100, 0) in the window, twice as large: window (100, 50) is world (100, 0).
    assert type(studio.pick(100, 50)).__name__ == "Crate"  # above the floor (its layer)
    assert type(studio.pick(100 + 2 * 8, 50)).__name__ == "Floor"  # 8 world pixels right: past the crate
    assert type(studio.pick(10, 90)).__name__ == "Score"  # a screen look, in window pixels
    assert studio.pick(100, 95) is None and studio.inspect() is None


def test_a_reload_of_a_registered_game_keeps_its_state_and_hash():
    studio = Studio(load_game("slapstick"))
    for _ in range(30):
        studio.tick()
    before = studio.world.state_hash()
    old = type(studio.world.entities[0])
    assert studio.reload().ok
    assert studio.world.state_hash() == before and type(studio.world.entities[0]) is not old
    for _ in range(30):
        studio.tick()
    straight = Studio(load_game("slapstick"), seconds=0)
    for _ in range(60):
        straight.tick()
    assert studio.world.state_hash() == straight.world.state_hash()


FALLER = '''
import rules
from engine import Entity


class Faller(Entity):
    def update(self, world):
        self.y -= rules.GRAVITY


def build(world):
    world.spawn(Faller())
'''
"""A game that falls by ``rules.GRAVITY`` a tick, from the module ``rules`` beside it."""


def test_a_module_beside_the_game_is_reloaded_too(tmp_path):
    write(tmp_path / "rules.py", "GRAVITY = 1\n")
    game = load_game(write(tmp_path / "faller.py", FALLER))
    studio = Studio(game)
    run(studio, 10)
    write(tmp_path / "rules.py", "GRAVITY = 5\n")
    assert studio.reload([str(tmp_path / "rules.py")]).ok
    run(studio, 11)
    assert studio.world.entities[0].y == -15


def test_an_edit_of_the_same_size_and_second_is_reloaded_not_its_stale_bytecode_cache(tmp_path, monkeypatch):
    # Python trusts a __pycache__ file whose header matches the source's size and second; a quick
    # edit must still be the code that runs (the interpreter writes caches unless told not to).
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    rules = write(tmp_path / "rules.py", "GRAVITY = 1\n")
    game = load_game(write(tmp_path / "faller.py", FALLER))
    studio = Studio(game)
    run(studio, 10)
    before = rules.stat()
    # The cache a plain import writes, there for sure (whatever PYTHONDONTWRITEBYTECODE says):
    cached = Path(importlib.util.cache_from_source(str(rules)))
    py_compile.compile(str(rules), cfile=str(cached), doraise=True)
    write(rules, "GRAVITY = 5\n")
    os.utime(rules, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert cached.is_file() and rules.stat().st_size == before.st_size
    assert studio.reload([str(rules)]).ok
    run(studio, 11)
    assert studio.world.entities[0].y == -15


def test_the_watcher_reports_the_games_files_and_not_the_runs_outputs(tmp_path):
    from engine.studio import Watcher

    write(tmp_path / "game.py", "def build(world):\n    pass\n")
    with Watcher(tmp_path, ignore=[tmp_path / "out.json"]) as watcher:
        assert watcher.changes() == []
        write(tmp_path / "out.json", "{}")  # an output of the run
        write(tmp_path / "notes.txt", "hello")  # not the game's code or content
        write(tmp_path / "game.py", "def build(world):\n    world.tick_count\n")
        assert watcher.wait(10.0)
        changed = watcher.changes()
        assert changed == [str(tmp_path / "game.py")]
        watcher.mark(tmp_path / "level.tmj")
        assert watcher.changes() == [str(tmp_path / "level.tmj")] and watcher.changes() == []


def test_the_world_leaving_its_history_is_told_once_with_or_without_a_ring(counter):
    # What ends a recording: the first step back from the head, or a reload there (the ring kept or not).
    for seconds in (10.0, 0.0):
        told: list[str] = []
        studio = Studio(load_game(counter), seconds=seconds, on_rewrite=told.append)
        run(studio, 30)
        studio.back(5)
        studio.forward(5)
        if seconds:
            assert told == ["rewound from tick 30"]
        else:
            assert told == [] and studio.now == 30  # nothing kept: nowhere to go back to
        studio.resume()
        run(studio, 40)
        assert studio.reload().ok
        assert told[-1] == "reloaded at tick 40"
        studio.close()


def test_a_buffered_field_added_or_removed_while_it_runs_reloads_with_its_default_and_says_so(tmp_path):
    game_file = write(tmp_path / "hero.py", '''
from engine import Entity, buffered


class Hero(Entity):
    steps = buffered(0)
    mood = buffered("calm")

    def update(self, world):
        self.steps += 1


def build(world):
    world.spawn(Hero())
    world.spawn(Hero(x=5.0))
''')
    studio = Studio(load_game(game_file))
    run(studio, 10)
    write(game_file, game_file.read_text().replace('    mood = buffered("calm")\n', "    hp = buffered(3)\n")
          .replace("self.steps += 1", "self.steps += 1\n        self.hp -= 1"))
    result = studio.reload()
    assert result.ok, result.message
    assert "Hero.hp is new: 2 entities take its default" in result.message
    assert "Hero.mood is gone from the code: dropped" in result.message
    heroes: list[Any] = list(studio.world.entities)  # the game file's classes: unknown to the type checker
    assert [(hero.steps, hero.hp, hero.x) for hero in heroes] == [(10, 3, 0.0), (10, 3, 5.0)]
    assert [hero.previous("hp") for hero in heroes] == [3, 3]  # no interpolation from nothing
    run(studio, 12)
    assert [(hero.steps, hero.hp) for hero in cast(list[Any], studio.world.entities)] == [(12, 1), (12, 1)]



def test_a_changed_init_is_named_on_reload_and_the_running_entities_keep_their_state(tmp_path):
    game_file = write(tmp_path / "runner.py", '''
from engine import Entity


class Runner(Entity):
    saved = ("speed",)

    def __init__(self, x=0.0):
        super().__init__(x=x)
        self.speed = 2

    def update(self, world):
        self.x += self.speed


class Flag(Entity):
    def update(self, world):
        pass


def build(world):
    world.spawn(Runner())
    world.spawn(Runner(x=10.0))
    world.spawn(Flag())
''')
    studio = Studio(load_game(game_file))
    run(studio, 5)
    # A line added above every class moves each __init__ without changing it: nothing to say.
    write(game_file, game_file.read_text().replace("from engine import Entity\n", "from engine import Entity\n# moved\n"))
    result = studio.reload()
    assert result.ok, result.message
    assert "__init__" not in result.message
    write(game_file, game_file.read_text().replace("self.speed = 2", "self.speed = 7"))
    result = studio.reload()
    assert result.ok, result.message
    assert "Runner.__init__ changed: 2 running entities keep their state (new ones run it)" in result.message
    assert "Flag" not in result.message
    run(studio, 6)
    assert [runner.x for runner in cast(list[Any], studio.world.entities)[:2]] == [12.0, 22.0]


def test_a_class_deleted_or_renamed_while_it_runs_is_refused_and_the_old_code_goes_on(tmp_path):
    game_file = write(tmp_path / "haunt.py", '''
from engine import Entity


class Ghost(Entity):
    def update(self, world):
        self.x += 1


class Keeper(Entity):
    pass


def build(world):
    world.spawn(Ghost())
    world.spawn(Keeper())
''')
    studio = Studio(load_game(game_file))
    run(studio, 5)
    for edit in range(3):  # several reloads first: old copies of the class pile up in the process
        write(game_file, game_file.read_text() + f"\nEDIT = {edit}\n")
        assert studio.reload().ok
    for new_name in ("Spook", None):
        source = game_file.read_text()
        write(game_file, source.replace("Ghost", new_name) if new_name else
              source.replace("class Ghost(Entity):\n    def update(self, world):\n        self.x += 1\n", "")
              .replace("    world.spawn(Ghost())\n", ""))
        result = studio.reload()
        assert not result.ok
        assert "names class 'game:Ghost', which is not one of haunt.py's classes or the engine's" in result.message
        assert "more than one" not in result.message
        write(game_file, source)
    run(studio, 7)
    ghost = studio.world.entities[0]
    assert type(ghost).__name__ == "Ghost" and ghost.x == 7.0


def test_a_tile_map_changed_while_it_runs_is_the_new_map_after_a_reload(tmp_path):
    from mapfiles import tmj

    tmj(tmp_path, [[1, 2]])
    game_file = write(tmp_path / "mapped.py", '''
from pathlib import Path

from engine import TileMap


def build(world):
    world.spawn(TileMap.load(Path(__file__).parent / "level.tmj"))
''')
    studio = Studio(load_game(game_file))
    run(studio, 3)
    level: Any = studio.world.entities[0]
    assert level.tile_at(12, 4).id == 1  # gid 2: the second tile
    tmj(tmp_path, [[1, 3]])
    result = studio.reload([str(tmp_path / "level.tmj")])
    assert result.ok, result.message
    level = studio.world.entities[0]
    assert level.tile_at(12, 4).id == 2 and studio.now == 3


def test_a_name_taken_out_of_saved_or_put_in_while_it_runs_reloads_and_says_so(tmp_path):
    # Taking "life" out of saved was refused on every save ("saved has unknown field 'life'"),
    # where a buffered field taken out is dropped; putting one in lost the running value.
    game_file = write(tmp_path / "shots.py", '''
from engine import Entity


class Shot(Entity):
    saved = ("life", "power")

    def __init__(self, x=0.0):
        super().__init__(x=x)
        self.life, self.power, self.hue = 50, 3, 7

    def update(self, world):
        self.life -= 1
        self.x += 1


def build(world):
    world.spawn(Shot())
    world.spawn(Shot(x=9.0))
''')
    studio = Studio(load_game(game_file))
    run(studio, 4)
    write(game_file, game_file.read_text().replace('saved = ("life", "power")', 'saved = ("life", "hue")'))
    result = studio.reload()
    assert result.ok, result.message
    assert "Shot.hue is saved now: 2 running entities keep their value" in result.message
    assert "Shot.power is no longer saved: dropped" in result.message
    shots = cast(list[Any], studio.world.entities)
    assert [(shot.life, shot.hue, hasattr(shot, "power")) for shot in shots] == [(46, 7, False), (46, 7, False)]
    run(studio, 6)
    assert [shot.life for shot in cast(list[Any], studio.world.entities)] == [44, 44]


def test_an_inspections_fields_come_in_the_class_layouts_order_not_the_order_of_writes():
    from engine import Entity, World, buffered
    from engine.studio.inspect import inspect

    class Base(Entity):
        zeta = buffered(0)
        alpha = buffered(0)
        saved = ("later", "earlier")

    class Derived(Base):
        middle = buffered(0)

        def update(self, world):
            self.middle += 1  # written first, listed last: its class is the subclass
            self.alpha += 1
            self.zeta += 1

    with World() as world:
        thing = world.spawn(Derived())
        thing.earlier, thing.later = 1, 2
        world.tick()
        seen = inspect(world, thing)
        assert list(seen.fields) == ["x", "y", "angle", "zeta", "alpha", "middle"]
        assert list(seen.saved) == ["later", "earlier"]


def test_a_reload_that_leaves_the_past_the_same_keeps_the_rewind_history(counter):
    # Issue 39: after a reload the history shrank from 10 s to what had run since the reload.
    studio = Studio(load_game(counter))
    run(studio, 200)
    oldest = studio.oldest
    assert oldest == 0
    before: dict[int, str] = {}
    for tick in (50, 120):
        studio.go_to(tick)
        before[tick] = studio.world.state_hash()
    studio.go_to(200)
    studio.resume()
    write(counter, COUNTER.replace("(200, 80, 80)", "(80, 200, 80)"))  # a new colour: every tick the same
    result = studio.reload()
    assert result.ok and "the rewind keeps ticks 0 to 200" in result.message, result.message
    assert (studio.oldest, studio.now) == (oldest, 200)
    for tick, expected in before.items():
        studio.go_to(tick)
        assert studio.world.state_hash() == expected
    studio.go_to(200)
    studio.resume()
    run(studio, 210)
    write(counter, COUNTER.replace("STEP = 1", "STEP = 5"))  # changes every tick: the past can't be kept
    result = studio.reload()
    assert result.ok and "the rewind starts again at tick 210: the new code changes the ticks before it" \
        in result.message, result.message
    assert studio.oldest == 210
    studio.close()
