"""Save and restore: a loaded world continues exactly as the original; damage is refused cleanly."""

from __future__ import annotations

import json
import os
from typing import ClassVar, cast

import esper
import pytest

from engine import Entity, World, buffered, keys, signal
from engine.files.importer import load_game, sample_games
from engine.tools.cli import main
from engine.world.save import SaveError


def run_game(name: str, ticks: int, world: World | None = None) -> World:
    if world is None:
        world = World(seed=11)
        load_game(name).module.build(world)
    for _ in range(ticks):
        world.tick()
    return world


@pytest.mark.parametrize("name", sorted(sample_games()))
def test_save_at_n_load_and_run_to_m_gives_the_straight_runs_hash(tmp_path, name):
    straight = run_game(name, 300)
    saved = run_game(name, 120)
    saved.save(tmp_path / "save.json")
    loaded = World.load(tmp_path / "save.json")
    assert loaded.state_hash() == saved.state_hash()
    run_game(name, 180, loaded)
    assert loaded.state_hash() == straight.state_hash()
    for world in (straight, saved, loaded):
        world.close()


def test_entity_references_come_back_as_references(tmp_path):
    from games.slapstick.logic import Actor

    world = run_game("slapstick", 10)
    world.save(tmp_path / "s.json")
    loaded = World.load(tmp_path / "s.json")
    actors = loaded.entities_of(Actor)
    assert all(actor.facing in actors for actor in actors)
    assert len({id(actor.facing) for actor in actors}) == len(actors)


class Keeper(Entity):
    level = buffered(3)
    saved = ("items", "buddy", "scores")

    def __init__(self) -> None:
        super().__init__(x=1.5, y=-2.0)
        self.items = ("a", 1, 2.5)
        self.buddy: Entity | None = None
        self.scores = {"red": [1, 2], "blue": []}
        self.transient = "not saved"

    def update(self, world: World) -> None:
        self.level += 1
        self.x += 0.1


def test_saved_attributes_round_trip_and_undeclared_ones_do_not(tmp_path):
    with World(seed=4) as world:
        keeper = world.spawn(Keeper())
        keeper.buddy = world.spawn(Entity(x=9))
        keeper.slap()
        world.random.random()
        world.tick()
        world.input_queue.press(keys.A)  # a file holds key codes (InputEvent.to_json)
        world.save(tmp_path / "k.json")
        loaded = World.load(tmp_path / "k.json")
        copy = loaded.entities_of(Keeper)[0]
        assert (copy.items, copy.scores, copy.level, copy.x) == (keeper.items, keeper.scores, 4, keeper.x)
        assert copy.buddy is loaded.entities[1] and copy.buddy.x == 9
        assert copy.id == keeper.id and copy.prev_x == keeper.prev_x
        assert not hasattr(copy, "transient")
        assert loaded.random.random() == world.random.random()
        assert len(loaded.input_queue) == 1
        fresh = loaded.spawn(Entity())
        assert fresh.id == world.spawn(Entity()).id, "new entities get the same ids after a load"
        loaded.close()


class Part(Entity):
    saved: ClassVar[tuple[str, ...]] = ("owner", "scene")

    def __init__(self, owner: Entity | None = None) -> None:
        super().__init__()
        self.owner, self.scene = owner, "title"


class Caption(Part):
    saved: ClassVar[tuple[str, ...]] = ("text",)  # adds to Part's names, as buffered fields are inherited

    def __init__(self, owner: Entity | None = None) -> None:
        super().__init__(owner)
        self.text = "Press Space"


def test_a_subclass_saved_adds_to_its_bases_and_a_save_of_it_loads(tmp_path):
    assert Caption.saved == ("owner", "scene", "text")
    with World() as world:
        owner = world.spawn(Entity(x=3))
        world.spawn(Caption(owner))
        world.tick()
        world.save(tmp_path / "c.json")
        loaded = World.load(tmp_path / "c.json")
        caption = loaded.entities_of(Caption)[0]
        assert caption.owner is not None and (caption.owner.x, caption.scene, caption.text) == (3, "title", "Press Space")
        assert loaded.state_hash() == world.state_hash()
        loaded.close()


def test_a_save_is_written_atomically(tmp_path, monkeypatch):
    path = tmp_path / "game.json"
    with World() as world:
        world.spawn(Entity(x=1))
        world.save(path)
        before = path.read_text()
        world.spawn(Entity(x=2))

        def broken_replace(src, dst):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "replace", broken_replace)
        with pytest.raises(SaveError, match="cannot write.*No space left"):
            world.save(path)
    assert path.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"], "no temporary file left behind"


@pytest.mark.parametrize(("damage", "words"), [
    (lambda text: text[: len(text) // 2], "not valid JSON at line 1"),
    (lambda text: "", "is empty: it holds no save"),
    (lambda text: text.replace('"version":2', '"version":9'), "version 9; this tickswap reads version 2"),
    (lambda text: '{"hello": 1}', "not a tickswap save"),
    (lambda text: text.replace("games.patrol.logic:Skeleton", "games.patrol.logic:Dragon"), "Dragon"),
    (lambda text: text.replace('"tick_count"', '"tick_kount"'), "tick_count"),
])
def test_a_damaged_save_is_refused_naming_the_file_and_the_problem(tmp_path, damage, words):
    path = tmp_path / "save.json"
    world = run_game("patrol", 30)
    world.save(path)
    path.write_text(damage(path.read_text()))
    worlds_before = len(esper.list_worlds())
    hash_before = world.state_hash()
    with pytest.raises(SaveError, match=words) as caught:
        World.load(path)
    assert str(path) in str(caught.value)
    assert world.state_hash() == hash_before, "the running world is untouched"
    assert len(esper.list_worlds()) == worlds_before, "a failed load leaves no esper world behind"
    world.close()


def test_what_cannot_be_saved_is_refused_by_name(tmp_path):
    class Holder(Entity):
        saved = ("thing",)

        def __init__(self) -> None:
            super().__init__()
            self.thing = object()

    with World() as world:
        world.spawn(Holder())
        with pytest.raises(SaveError, match=r"Holder \(id 1\)\.thing"):
            world.save(tmp_path / "x.json")
    with World() as world:
        world.spawn(Entity(), 3.5)
        with pytest.raises(SaveError, match="esper components.*float"):
            world.save(tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


def test_saving_mid_tick_is_refused(tmp_path):
    class Saver(Entity):
        def update(self, world: World) -> None:
            world.save(tmp_path / "mid.json")

    with World() as world:
        world.spawn(Saver())
        with pytest.raises(Exception, match="between ticks"):
            world.tick()


def test_a_save_keeps_any_meta_it_is_given(tmp_path):
    from engine.world.save import read_meta, save_world

    with World() as world:
        save_world(world, tmp_path / "m.json", meta={"level": 3, "party": ("ann", 2)})
        assert read_meta(tmp_path / "m.json") == {"level": 3, "party": ("ann", 2)}
        World.load(tmp_path / "m.json").close()


def test_the_command_line_saves_and_loads(tmp_path, capsys):
    path = tmp_path / "p.json"
    assert main(["run", "patrol", "--ticks", "300", "--save-at", "100", str(path)]) == 0
    straight = capsys.readouterr().out.split("state ")[1].split(",")[0].strip()
    assert json.loads(path.read_text())["meta"] == {"game": "patrol", "game_digest": None}
    assert main(["run", "patrol", "--ticks", "200", "--load", str(path)]) == 0
    assert capsys.readouterr().out.split("state ")[1].split(",")[0].strip() == straight


@pytest.mark.parametrize(("argv", "status", "words"), [
    (["run", "bouncy", "--ticks", "5", "--load", "{save}"], 2, "a save of another game, patrol, not of bouncy"),
    (["run", "patrol", "--ticks", "5", "--load", "{missing}"], 2, "cannot read the save"),
    (["run", "patrol", "--ticks", "5", "--save-at", "50", "{out}"], 2, "goes from tick 0 to 5, so it never saves at tick 50"),
    (["run", "patrol", "--ticks", "5", "--save-at", "zero", "{out}"], 2, "--save-at N FILE"),
])  # --record with --load is no mistake: it records from the save (test_presence)
def test_save_and_load_mistakes_exit_with_a_message(tmp_path, capsys, argv, status, words):
    save = tmp_path / "p.json"
    main(["run", "patrol", "--ticks", "20", "--save-at", "10", str(save)])
    capsys.readouterr()
    filled = [a.format(save=save, missing=tmp_path / "nope.json", out=tmp_path / "out.json") for a in argv]
    assert main(filled) == status
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


class Target(Entity):
    pass


class Missile(Entity):
    saved = ("target",)

    def __init__(self, target: Entity | None = None) -> None:
        super().__init__()
        self.target = target

    def update(self, world: World) -> None:
        if self.target is not None and self.target.alive:
            self.x += 1


def test_a_reference_to_a_despawned_entity_loads_as_a_despawned_stub(tmp_path):
    world = World()
    target = world.spawn(Target())
    missile = world.spawn(Missile(target))
    world.tick()
    world.despawn(target)
    world.tick()
    world.save(tmp_path / "s.json")
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["entities"][0]["saved"]["target"] == {"$dead": [target.id, f"{__name__}:Target"]}
    loaded = World.load(tmp_path / "s.json")
    stub = cast(Missile, loaded.entities[0]).target
    assert type(stub) is Target and stub.id == target.id and stub.alive is False and stub not in loaded.entities
    assert loaded.state_hash() == world.state_hash()
    for each in (world, loaded):
        each.tick()
    assert loaded.state_hash() == world.state_hash() and missile.x == 1


@pytest.mark.parametrize("dead, words", [
    (["x", "tests.test_save:Target"], "whole number"),
    ([1, "antigravity:Entity"], "antigravity"),
    ([2, "tests.test_save:Target"], "is in the save"),
    ([99, "tests.test_save:Target"], "above world.last_id"),
])
def test_a_damaged_dead_reference_is_refused(tmp_path, dead, words):
    world = World()
    target = world.spawn(Target())
    world.spawn(Missile(target))
    world.tick()
    world.despawn(target)
    world.tick()
    world.save(tmp_path / "s.json")
    data = json.loads((tmp_path / "s.json").read_text())
    data["entities"][0]["saved"]["target"] = {"$dead": dead}
    (tmp_path / "s.json").write_text(json.dumps(data))
    with pytest.raises(SaveError, match=words):
        World.load(tmp_path / "s.json")


class Scored(Entity):
    points = signal(sum)
    hits = signal(tuple)
    hit = signal()


@pytest.mark.parametrize("name, value, words", [
    ("points", "10", "signal(sum): its value must be a number"),
    ("points", True, "signal(sum): its value must be a number"),
    ("hits", [1, 2], "signal(tuple): its value must be a $tuple"),
    ("hit", 1, "is a flag: it can only be true"),
])
def test_a_signal_of_the_wrong_kind_is_refused_when_loading(tmp_path, name, value, words):
    with World() as world:
        world.spawn(Scored())
        world.tick()
        world.save(tmp_path / "s.json")
    data = json.loads((tmp_path / "s.json").read_text())
    data["entities"][0]["signals"] = {name: value}
    (tmp_path / "s.json").write_text(json.dumps(data))
    with pytest.raises(SaveError, match=words.replace("(", r"\(").replace(")", r"\)").replace("$", r"\$")):
        World.load(tmp_path / "s.json")


def test_valued_signals_of_the_right_kind_load(tmp_path):
    with World() as world:
        scored = world.spawn(Scored())
        world.tick()
        scored.points.send(2.5)
        scored.hits.send("a")
        scored.hit = True
        world.tick()
        world.save(tmp_path / "s.json")
        with World.load(tmp_path / "s.json") as loaded:
            assert loaded.state_hash() == world.state_hash()


def test_messages_say_a_number_and_one_entity(tmp_path, capsys):
    assert main(["run", "patrol", "--ticks", "3", "--save-at", "3", str(tmp_path / "s.json")]) == 0
    data = json.loads((tmp_path / "s.json").read_text())
    data["world"]["tick_count"] = 3
    record = next(record for record in data["entities"] if isinstance(record["buffered"].get("x"), (int, float)))
    record["buffered"]["x"] = "far"
    (tmp_path / "s.json").write_text(json.dumps(data))
    with pytest.raises(SaveError, match="must be a number like"):
        World.load(tmp_path / "s.json")
    game = tmp_path / "one.py"
    game.write_text("from engine import Entity\ndef build(world):\n    world.spawn(Entity())\n")
    capsys.readouterr()
    assert main(["run", str(game), "--ticks", "2"]) == 0
    assert "1 entity," in capsys.readouterr().out


def test_a_wrong_kind_of_value_for_a_number_says_a_number_which_any_number_is():
    # It said "must be an int like its default 3", and then took 4.5: an int field may become
    # a float in play (hp -= 0.5), so a number is what it asks for.
    from engine.schema import FieldError
    from engine.state.values import check_like_default

    with pytest.raises(FieldError, match="lives must be a number like its default 3, got '3'"):
        check_like_default("3", 3, "lives")
    with pytest.raises(FieldError, match="lives must be a number like its default 3, got True"):
        check_like_default(True, 3, "lives")
    check_like_default(4.5, 3, "lives")
    with pytest.raises(FieldError, match="name must be a str like its default"):
        check_like_default(3, "ann", "name")


def test_a_game_class_that_two_loaded_game_files_share_needs_the_game(tmp_path):
    source = "from engine import Entity\nclass Ball(Entity):\n    pass\ndef build(world):\n    world.spawn(Ball())\n"
    (tmp_path / "one.py").write_text(source)
    (tmp_path / "two.py").write_text(source + "# another file\n")
    one, two = load_game(str(tmp_path / "one.py")), load_game(str(tmp_path / "two.py"))
    from engine.world.save import load_world, save_world

    with World() as world:
        one.build(world)
        save_world(world, tmp_path / "s.json", meta={"game": one.name, "game_digest": one.digest})
        world.save(tmp_path / "no-game.json")
    with World.load(tmp_path / "s.json") as loaded:  # the digest it records says which file's Ball
        assert type(loaded.entities[0]) is one.module.Ball
    with pytest.raises(SaveError, match="more than one loaded class has") as refused:
        World.load(tmp_path / "no-game.json")
    assert "one.py" in str(refused.value) and "two.py" in str(refused.value), "both are named"
    notes: list[str] = []
    with load_world(tmp_path / "s.json", two, notes, world_class=World) as loaded:
        assert type(loaded.entities[0]) is two.module.Ball
    assert len(notes) == 1 and "saved by one.py" in notes[0]


def test_a_save_at_a_tick_the_run_never_reaches_is_refused_before_it_starts(tmp_path, capsys):
    save = tmp_path / "s.json"
    assert main(["run", "patrol", "--ticks", "30", "--save-at", "20", str(save)]) == 0
    capsys.readouterr()
    assert main(["run", "patrol", "--load", str(save), "--ticks", "10", "--save-at", "15", str(tmp_path / "e.json")]) == 2
    assert "goes from tick 20 to 30, so it never saves at tick 15" in capsys.readouterr().err
    assert main(["run", "patrol", "--ticks", "10", "--save-at", "25", str(tmp_path / "e.json")]) == 2
    assert not (tmp_path / "e.json").exists()
    assert main(["run", "patrol", "--load", str(save), "--ticks", "10", "--save-at", "25", str(tmp_path / "e.json")]) == 0
    assert "saved" in capsys.readouterr().out and (tmp_path / "e.json").exists()


FORGETFUL_GAME = '''
from engine import Entity


class Walker(Entity):
    saved = ("steps",)

    def __init__(self):
        super().__init__()
        self.steps = 0
        self.stride = 2          # a plain attribute that saved does not list

    def update(self, world):
        self.steps += 1
        self.x += self.stride


def build(world):
    world.spawn(Walker())
'''


def test_a_plain_attribute_left_out_of_saved_is_named_with_the_fix_after_loading(tmp_path, capsys):
    game = tmp_path / "forgetful.py"
    game.write_text(FORGETFUL_GAME)
    save = tmp_path / "f.json"
    assert main(["run", str(game), "--ticks", "10", "--save-at", "5", str(save)]) == 0
    capsys.readouterr()
    assert main(["run", str(game), "--ticks", "10", "--load", str(save)]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "Walker (id 1) has no attribute 'stride' after loading a save" in err
    assert "list it in Walker.saved" in err and "on_load(world)" in err and "Traceback" not in err


def test_a_typo_read_after_loading_a_save_is_not_blamed_on_the_save(tmp_path, capsys):
    # An attribute no line of the game sets was never there to lose: the plain AttributeError, no advice on saved.
    game = tmp_path / "typo.py"
    game.write_text("from engine import Entity\n\n\nclass Walker(Entity):\n    def __init__(self):\n"
                    "        super().__init__()\n        self.stride = 1\n\n    def update(self, world):\n"
                    "        if world.tick_count > 7:\n            self.x += self.strid\n\n\n"
                    "def build(world):\n    world.spawn(Walker())\n")
    save = tmp_path / "t.json"
    assert main(["run", str(game), "--ticks", "6", "--save-at", "5", str(save)]) == 0
    capsys.readouterr()
    assert main(["run", str(game), "--ticks", "10", "--load", str(save)]) == 1
    err = capsys.readouterr().err
    assert "has no attribute 'strid'" in err and "after loading a save" not in err and "saved" not in err, err


def test_an_attribute_missing_in_on_load_or_in_a_fresh_entity_is_explained_accordingly(tmp_path):
    from engine import EntityUpdateError

    class Sleeper(Entity):
        def __init__(self) -> None:
            super().__init__()
            self.dream = 1

        def update(self, world: World) -> None:
            self.nap += 1  # type: ignore[attr-defined]  # never set anywhere: not a save's doing

    with World() as world:
        sleeper = world.spawn(Sleeper())
        with pytest.raises(EntityUpdateError) as raised:
            world.tick()
        assert "raised AttributeError" in str(raised.value) and "saved" not in str(raised.value)
        world.save(tmp_path / "s.json")

    class Dreamer(Sleeper):
        def on_load(self, world: World) -> None:
            self.shown = self.dream * 2

    with World() as world:
        world.spawn(Dreamer())
        world.save(tmp_path / "d.json")
    with pytest.raises(SaveError, match=r"Dreamer \(id 1\) has no attribute 'dream' after loading a save.*saved"):
        World.load(tmp_path / "d.json")
    assert sleeper.dream == 1


class Dice(Entity):
    roll = buffered(0.0)

    def update(self, world):
        self.roll = self.random.random()


def test_an_entitys_random_state_of_version_3_0_is_refused_as_60_0_ticks_are(tmp_path):
    import json

    with World() as world:
        world.spawn(Dice())
        world.tick()
        world.save(tmp_path / "s.json")
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["entities"][0]["random"][0] == 3
    data["entities"][0]["random"][0] = 3.0
    (tmp_path / "float.json").write_text(json.dumps(data))
    with pytest.raises(SaveError, match=r"entities\[0\].*random: the generator's version must be the whole number 3, "
                                        r"got 3.0"):
        World.load(tmp_path / "float.json")


@pytest.mark.usefixtures("offscreen")
def test_a_save_at_past_the_end_of_a_headless_frames_run_is_refused_before_it_runs(tmp_path, capsys):
    # 30 frames at 60 Hz are half a second: patrol's 64 ticks a second reach tick 32 at most.
    out = tmp_path / "late.json"
    assert main(["run", "patrol", "--headless", "--frames", "30", "--save-at", "500", str(out)]) == 2
    err = capsys.readouterr().err
    assert ("--save-at 500: this run of 30 frames off-screen reaches tick 32 at most, so it never saves at tick 500"
            in err), err
    assert main(["run", "patrol", "--headless", "--frames", "30", "--save-at", "30", str(out)]) == 0
    assert out.exists()
