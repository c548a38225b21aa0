"""A look (or parts) set on an instance is state: buffered, saved, loaded, rolled back, hashed.

Issue 29, defect 1: a game that sets looks per instance (animation frames, damage tints)
and whose collisions come from looks must play the same after a save and a load, a
rollback, and in every update order; and a class's look still shows on every instance
that never set its own.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import esper
import pytest

from engine import BufferedWriteError, Entity, EntityUpdateError, Look, Part, SaveError, World, buffered
from engine.testing import assert_order_independent

SMALL = Look("square", 4, (90, 200, 90))
BIG = Look("square", 40, (250, 80, 80))
ROOT = Path(__file__).resolve().parent.parent


class Pulser(Entity):
    """Grows and shrinks at moments of its own choosing: its look is its collision box."""

    look: Look | None = SMALL

    def update(self, world: World) -> None:
        if self.random.random() < 0.02:
            # ==, not is: a loaded look is equal to the one saved, not the same object.
            self.look = BIG if self.look == SMALL else SMALL


class Walker(Entity):
    """Walks along a row, counting the ticks it overlaps a pulser (collisions from looks)."""

    look = Look("circle", 2)
    touched = buffered(0)

    def __init__(self, x: float, y: float, speed: float) -> None:
        super().__init__(x=x, y=y)
        self.speed = speed

    saved = ("speed",)

    def update(self, world: World) -> None:
        self.x = (self.x + self.speed) % 400.0
        self.touched += len(world.overlapping(self, Pulser))


def build(world: World) -> None:
    for index in range(12):
        world.spawn(Pulser(x=30.0 * index + 15, y=50.0))
    for index in range(8):
        world.spawn(Walker(x=37.0 * index, y=50.0 + (index % 3) * 6, speed=0.5 + index * 0.25))


def _hashes(world: World, ticks: int) -> list[str]:
    found = []
    for _ in range(ticks):
        world.tick()
        found.append(world.state_hash())
    return found


def test_a_save_at_tick_600_loads_into_a_world_that_plays_like_the_straight_run(tmp_path):
    # Before: a pulser that was BIG at the save loaded SMALL (its class's look), so the
    # walkers counted other overlaps and the hashes parted after the load.
    with World(seed=3) as straight:
        build(straight)
        for _ in range(600):
            straight.tick()
        assert any(pulser.look == BIG for pulser in straight.entities_of(Pulser)), "the repro needs a grown pulser"
        straight.save(tmp_path / "at600.json")
        expected = _hashes(straight, 200)
    with World.load(tmp_path / "at600.json") as loaded:
        assert _hashes(loaded, 200) == expected


def test_a_look_set_on_an_instance_is_in_the_snapshot_and_the_state_hash():
    with World() as world:
        pulser = world.spawn(Pulser())
        before = world.state_hash()
        assert "look" not in world.snapshot()["entities"][0], "an instance showing its class's look adds nothing"
        pulser.look = BIG
        record = world.snapshot()["entities"][0]
        assert record["look"]["size"] == [40.0, 40.0] and record["look"]["color"] == [250, 80, 80, 255]
        assert world.state_hash() != before
        del pulser.look
        assert world.state_hash() == before, "following the class again is the state it was"


def test_during_a_tick_others_see_the_committed_look_and_the_entity_its_own():
    seen: list[Any] = []

    class Changer(Entity):
        look = SMALL

        def update(self, world: World) -> None:
            self.look = BIG
            seen.append(("own", self.look))

    class Reader(Entity):
        def update(self, world: World) -> None:
            seen.append(("other", world.entities_of(Changer)[0].look))

    for order in ((Changer, Reader), (Reader, Changer)):
        seen.clear()
        with World() as world:
            for kind in order:
                world.spawn(kind())
            world.tick()
            assert sorted(seen, key=lambda pair: pair[0]) == [("other", SMALL), ("own", BIG)], order
            assert world.entities_of(Changer)[0].look is BIG, "committed at the tick's end"


def test_collisions_from_instance_looks_are_the_same_in_every_update_order():
    assert_order_independent(build, ticks=200, orders=3, inputs=None)


def test_setting_another_entitys_look_during_an_update_is_refused_naming_both_and_the_line():
    class Tinter(Entity):
        def update(self, world: World) -> None:
            world.entities_of(Pulser)[0].look = BIG

    with World() as world:
        pulser = world.spawn(Pulser())
        world.spawn(Tinter())
        with pytest.raises(BufferedWriteError, match=r"Tinter \(id 2\) wrote look of Pulser \(id 1\) in tick 1 "
                                                     r"at .*test_shown.py:\d+"):
            world.tick()
        assert pulser.look is SMALL and world.tick_count == 0


def test_a_caught_refusal_to_set_another_entitys_look_still_refuses_the_tick_as_one_of_its_x_does():
    class Sly(Entity):
        def update(self, world: World) -> None:
            with contextlib.suppress(BufferedWriteError):
                world.entities_of(Pulser)[0].look = BIG

    with World() as world:
        pulser = world.spawn(Pulser())
        world.spawn(Sly())
        with pytest.raises(BufferedWriteError, match="Sly .* wrote look of Pulser .* caught this error and went on"):
            world.tick()
        assert pulser.look is SMALL and world.tick_count == 0


def test_a_failed_tick_takes_back_the_looks_and_parts_it_set_own_and_by_systems():
    class Doomed(Entity):
        def update(self, world: World) -> None:
            self.look = BIG
            self.parts = (Part(SMALL),)
            raise RuntimeError("no")

    class Painter(esper.Processor):
        def __init__(self, world: World) -> None:
            self.world = world

        def process(self) -> None:
            self.world.entities_of(Pulser)[0].look = None

    with World() as world:
        pulser = world.spawn(Pulser())
        doomed = world.spawn(Doomed())
        world.add_processor(Painter(world), priority=5)
        with pytest.raises(EntityUpdateError):
            world.tick()
        assert (pulser.look, doomed.look, doomed.parts) == (SMALL, None, ())
        assert all({"look", "parts"}.isdisjoint(record) for record in world.snapshot()["entities"])


def test_a_rollback_puts_back_the_looks_and_parts_of_the_checkpoint():
    with World(seed=1) as world:
        build(world)
        for _ in range(50):
            world.tick()
        checkpoint = world.checkpoint()
        looks = [entity.look for entity in world.entities]
        walker = world.entities_of(Walker)[0]
        parts: tuple[Part, ...] = (Part(BIG, (0, 10), turns=False),)
        walker.parts = parts
        expected = _hashes(world, 120)
        assert [entity.look for entity in world.entities] != looks
        world.rollback(checkpoint)
        assert [entity.look for entity in world.entities] == looks and walker.parts == ()
        walker.parts = (Part(BIG, (0, 10), turns=False),)
        assert _hashes(world, 120) == expected


def test_a_class_look_change_shows_on_every_instance_that_never_set_its_own():
    class Bone(Entity):
        look: Look | None = SMALL

    with World() as world:
        plain, own = world.spawn(Bone()), world.spawn(Bone())
        own.look = BIG
        Bone.look = Look("circle", 6)
        assert (plain.look, own.look, Bone.look) == (Look("circle", 6), BIG, Look("circle", 6))
        del own.look
        assert own.look == Look("circle", 6)
        del Bone.look
        # (The checker keeps Bone.look as last set: it does not follow the del.)
        assert (plain.look, Bone.look) == (None, None), "back to Entity's: no look"  # type: ignore[comparison-overlap]
    with pytest.raises(TypeError, match=r"Bone.look must be a Look or None, got 'red'"):
        Bone.look = "red"  # type: ignore[assignment]  # refused by name
    with pytest.raises(TypeError, match=r"Bone.look must be a Look or None, got 3"):
        Bone().look = 3  # type: ignore[assignment]  # refused by name


def test_a_look_computed_by_a_property_is_refused_with_what_to_do():
    with pytest.raises(TypeError, match="set self.look in update"):
        class Computed(Entity):
            @property
            def look(self) -> Look:  # type: ignore[override]  # refused: the test's point
                return SMALL


def test_a_look_set_in_init_before_entity_init_stands():
    class Early(Entity):
        def __init__(self) -> None:
            self.look = BIG
            super().__init__(angle=30.0)

    class Earlier(Entity):
        def __init__(self) -> None:
            self.parts = (Part(SMALL),)
            super().__init__()

    early, earlier = Early(), Earlier()
    assert early.look is BIG and early.angle == 30.0 and early.parts == ()
    assert earlier.parts == (Part(SMALL),) and earlier.look is None


def _save_data(tmp_path: Path, change: Any) -> Path:
    with World() as world:
        pulser = world.spawn(Pulser())
        pulser.look = Look(image=str(ROOT / "games/pong/ball.png"), color=(255, 0, 0))
        pulser.parts = (Part(BIG, (1, 2), turns=False),)
        path = tmp_path / "save.json"
        world.save(path)
    data = json.loads(path.read_text())
    change(data["entities"][0])
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(("change", "words"), [
    (lambda record: record["look"].update(shape="hexagon"), r"entities\[0\] \(id 1\)\.look\.shape .*hexagon"),
    (lambda record: record["look"].update(color=[300, 0, 0, 255]), r"\.look\.color must be from 0 to 255"),
    (lambda record: record["look"].update(image={"path": "relative.png"}), r"look\.image\.path must be an absolute"),
    (lambda record: record["look"].update(image={"beside": "../../../etc/passwd"}), r"look\.image\.beside must be a "
                                                                                     "relative path inside"),
    (lambda record: record["look"].update(image={"path": "/no/such/x.png"}), r"cannot read the picture .*x\.png"),
    (lambda record: record["look"].update(image={"module": "os"}), r"look\.image"),
    (lambda record: record["look"].update(text=7), r"look\.text must be a string"),
    (lambda record: record["look"].update(size=[1e300, 3]), r"look\.size must be a finite number from 0 to 100000"),
    (lambda record: record["parts"][0].update(offset=["a", 1]), r"parts\[0\]\.offset must be a number"),
    (lambda record: record["parts"].append(None), r"parts\[1\] must be an object"),
    (lambda record: record.update(parts={"$tuple": []}), r"\.parts must be a list"),
    (lambda record: record.update(look={"$entity": 1}), r"\.look"),
])
def test_a_look_in_a_save_is_data_checked_whole_and_refused_by_field(tmp_path, change, words):
    path = _save_data(tmp_path, change)
    with pytest.raises(SaveError, match=words):
        World.load(path)


def test_a_saved_look_and_its_parts_load_back_equal(tmp_path):
    path = _save_data(tmp_path, lambda record: None)
    data = json.loads(path.read_text())["entities"][0]
    assert data["look"]["image"] == {"path": str(ROOT / "games/pong/ball.png")}
    with World.load(path) as world:
        pulser = world.entities[0]
        assert pulser.look == Look(image=str(ROOT / "games/pong/ball.png"), color=(255, 0, 0))
        assert pulser.parts == (Part(BIG, (1.0, 2.0), turns=False),)


GAME = '''
from pathlib import Path
from engine import Entity, Look

HERE = Path(__file__).parent
FRAMES = Look.frames(HERE / "art" / "coin.png", 16)

class Coin(Entity):
    look = FRAMES[0]

    def update(self, world):
        self.look = FRAMES[(world.tick_count // 3 + int(self.x)) % len(FRAMES)]

def build(world):
    for index in range(3):
        world.spawn(Coin(x=index * 20))
'''


def _game_in(folder: Path) -> Path:
    (folder / "art").mkdir(parents=True)
    shutil.copy(ROOT / "games/platformer/coin.png", folder / "art" / "coin.png")
    (folder / "coins.py").write_text(GAME)
    return folder / "coins.py"


def _tickswap(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "engine.tools.cli", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_pictures_never_put_the_games_directory_in_a_hash_and_a_save_moves_with_its_game(tmp_path):
    first, second = _game_in(tmp_path / "here"), _game_in(tmp_path / "there" / "deeper")
    one = _tickswap("run", str(first), "--ticks", "20", "--save-at", "20", str(tmp_path / "coins.save"))
    two = _tickswap("run", str(second), "--ticks", "20")
    assert one.split("state ")[1][:16] == two.split("state ")[1][:16]
    saved = json.loads((tmp_path / "coins.save").read_text())
    assert saved["entities"][0]["look"]["image"] == {"beside": "art/coin.png"}
    shutil.rmtree(tmp_path / "here")  # the game moved: its save loads beside it, wherever it is now
    on = _tickswap("run", str(second), "--load", str(tmp_path / "coins.save"), "--ticks", "10")
    again = _tickswap("run", str(second), "--ticks", "30")
    assert on.split("state ")[1][:16] == again.split("state ")[1][:16]


def test_a_tick_that_fails_after_the_commit_takes_back_own_and_system_looks_in_order():
    class Grower(Entity):
        look = SMALL

        def update(self, world: World) -> None:
            self.look = BIG

    class Tint(esper.Processor):  # after the Update Method system: sees BIG, paints it, then the next system fails
        def __init__(self, world: World) -> None:
            self.world = world

        def process(self) -> None:
            grower = self.world.entities_of(Grower)[0]
            assert grower.look is BIG
            grower.look = Look("circle", 6)

    class Broken(esper.Processor):
        def process(self) -> None:
            raise RuntimeError("a later system fails")

    with World() as world:
        grower = world.spawn(Grower())
        world.add_processor(Tint(world), priority=-1)
        world.add_processor(Broken(), priority=-2)
        before = world.state_hash()
        with pytest.raises(RuntimeError, match="a later system fails"):
            world.tick()
        assert grower.look is SMALL and world.state_hash() == before


def test_a_look_set_twice_in_one_update_commits_the_last_and_a_failed_signal_combine_takes_it_back():
    def broken(values: tuple[Any, ...]) -> Any:
        if values:
            raise ValueError("combine fails")
        return 0

    from engine import signal

    class Twice(Entity):
        look = SMALL
        poke = signal(broken)

        def update(self, world: World) -> None:
            self.look = BIG
            self.look = Look("diamond", 5)
            assert self.look == Look("diamond", 5)
            if world.tick_count == 1:
                self.poke.send(1)

    with World() as world:
        twice = world.spawn(Twice())
        world.tick()
        assert twice.look == Look("diamond", 5)
        del twice.look
        with pytest.raises(EntityUpdateError, match="combine fails"):
            world.tick()
        assert twice.look is SMALL, "the failed tick's look is taken back"
