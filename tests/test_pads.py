"""Game controllers: PAD_ buttons are keys, sticks are "stick" events; recorded, replayed, scripted, saved."""

from __future__ import annotations

import json

import pytest

from engine import Entity, InputEvent, World, keys
from engine.input import read_input_script
from engine.input.events import TickInput

PAD_GAME = (
    "from engine import Entity, buffered, keys\n"
    "KEYS = (keys.PAD_A, keys.PAD_START)\n"
    "class Ship(Entity):\n"
    "    jumps = buffered(0)\n"
    "    def update(self, world):\n"
    "        dx, dy = world.input.stick(0)\n"
    "        self.x += dx * 4\n"
    "        self.y += dy * 4\n"
    "        if world.input.just_pressed(keys.PAD_A):\n"
    "            self.jumps += 1\n"
    "            world.music('jump.ogg' if self.jumps % 2 else 'calm.ogg')\n"
    "def build(world):\n"
    "    world.spawn(Ship())\n"
)
SCRIPT = [
    {"tick": 2, "input": [["key_press", "PAD_A", 0, 0], ["stick", 0, 0.5, -1.0]]},
    {"tick": 5, "input": [["key_release", "PAD_A", 0, 0]]},
    {"tick": 9, "input": [["key_press", "pad_a", 0, 0], ["stick", 0, 0.0, 0.25], ["stick", 1, -1, 1]]},
    {"tick": 14, "input": [["stick", 0, 0, 0]]},
]


def _write_script(path, lines) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_pad_buttons_are_key_codes_above_the_keyboard_and_read_by_name():
    pads = [name for name in dir(keys) if name.startswith("PAD_")]
    assert len(pads) == 17 and {"PAD_A", "PAD_LT", "PAD_RT", "PAD_GUIDE", "PAD_RIGHT"} <= set(pads)
    for name in pads:
        code = getattr(keys, name)
        assert 0xffff < code < 2**32 and keys.name(code) == name and keys.code(name.lower()) == code
        assert InputEvent.from_json(["key_press", name, 0, 0]).key == code
    world_input = TickInput([InputEvent("key_press", keys.PAD_A)])
    assert world_input.pressed(keys.PAD_A) and world_input.just_pressed(keys.PAD_A)


def test_a_stick_holds_its_position_from_tick_to_tick_until_it_moves(world):
    world.input_queue.stick(0, 0.5, -1.0)
    world.tick()
    assert world.input.stick(0) == (0.5, -1.0) and world.input.stick(1) == (0.0, 0.0)
    world.tick()
    assert world.input.stick(0) == (0.5, -1.0), "no event: the stick stays where it was"
    world.input_queue.stick(0, 0.0, 0.0)
    world.input_queue.stick(1, 0.25, 0.75)
    world.tick()
    assert world.input.stick(0) == (0.0, 0.0) and world.input.stick(1) == (0.25, 0.75)


def test_a_failed_tick_puts_the_stick_back_as_it_was(world):
    class Fails(Entity):
        fail = False

        def update(self, world: World) -> None:
            if Fails.fail:
                raise RuntimeError("boom")

    world.spawn(Fails())
    world.input_queue.stick(1, 0.5, 0.5)
    world.tick()
    Fails.fail = True
    world.input_queue.stick(1, -1.0, -1.0)
    with pytest.raises(Exception, match="boom"):
        world.tick()
    assert world.input_queue.state()[3] == ((0.0, 0.0), (0.5, 0.5))
    Fails.fail = False
    world.tick()
    assert world.input.stick(1) == (-1.0, -1.0)


@pytest.mark.parametrize("n", [2, -1, "0", True, 0.0, None])
def test_a_bad_stick_number_is_refused_by_name(n):
    with pytest.raises(ValueError, match=f"0 \\(the left stick\\) or 1 \\(the right\\), got {n!r}"):
        TickInput().stick(n)


@pytest.mark.parametrize(("event", "said"), [
    (["stick", 2, 0, 0], "the stick, 0 (left) or 1 (right), got 2"),
    (["stick", "LEFT", 0, 0], "the stick, 0 (left) or 1 (right), got 'LEFT'"),
    (["stick", 0, 1.5, 0], "x goes from -1.0 to 1.0, got 1.5"),
    (["stick", 1, 0, -2], "y goes from -1.0 to 1.0, got -2"),
    (["stick", None, 0, 0], "the stick, 0 (left) or 1 (right), got None"),
    (["stick", 0.0, 0.5, 0], "the stick, 0 (left) or 1 (right), got 0.0"),
    (["stick", 1.0, 0, 0], "the stick, 0 (left) or 1 (right), got 1.0"),
    (["stick", True, 0, 0], "the stick, 0 (left) or 1 (right), got True"),
    (["key_press", "PAD_Z", 0, 0], "'PAD_Z' is not a key"),
])
def test_a_bad_pad_line_in_a_script_is_refused_in_one_line_naming_the_line_and_value(tmp_path, event, said):
    from engine.files.replay.format import ReplayError

    script = tmp_path / "pads.jsonl"
    _write_script(script, [{"tick": 1, "input": [["key_press", "PAD_A", 0, 0]]}, {"tick": 3, "input": [event]}])
    with pytest.raises(ReplayError) as caught:
        read_input_script(script)
    message = str(caught.value)
    assert "\n" not in message and "pads.jsonl:2" in message and said in message


def test_a_script_presses_pad_buttons_by_name_and_moves_sticks(tmp_path):
    script = tmp_path / "pads.jsonl"
    _write_script(script, SCRIPT)
    read = read_input_script(script)
    assert read[2] == [InputEvent("key_press", keys.PAD_A), InputEvent("stick", 0, 0.5, -1.0)]
    assert read[9][2] == InputEvent("stick", 1, -1.0, 1.0)


def test_a_recorded_run_with_pads_replays_with_the_same_hashes_and_music_at_the_same_ticks(tmp_path, capsys):
    from engine.files.replay.format import read_replay
    from engine.files.replay.playback import verify
    from engine.testing import load_game
    from engine.tools.cli import main
    from engine.world import take_music

    game_file, script, recording = tmp_path / "pads.py", tmp_path / "pads.jsonl", tmp_path / "run.jsonl"
    game_file.write_text(PAD_GAME)
    _write_script(script, SCRIPT)
    assert main(["run", str(game_file), "--ticks", "20", "--input", str(script), "--record", str(recording)]) == 0
    text = recording.read_text()
    assert '["stick",0,0.5,-1.0]' in text and f'["key_press",{keys.PAD_A},0.0,0.0]' in text
    assert main(["replay", str(recording), "--game", str(game_file)]) == 0, capsys.readouterr()

    # In a test, the same script gives the command line's hash, and asks for music at the same ticks.
    def run(feed):
        game = load_game(str(game_file))
        asked = []
        with World() as world:
            game.setup(world)
            for _ in range(20):
                feed(world)
                world.tick()
                asked += [(request.tick, request.path) for request in take_music(world)]
            return world.state_hash(), asked

    inputs = read_input_script(script)
    scripted = run(lambda world: [world.input_queue.push(event) for event in inputs.get(world.tick_count + 1, [])])
    assert scripted[1] == [(2, "jump.ogg"), (9, "calm.ogg")]
    replay = read_replay(recording)
    game = load_game(str(game_file))
    asked: list = []
    with World() as world:
        game.setup(world)
        def tick() -> None:
            world.tick()
            asked.extend((request.tick, request.path) for request in take_music(world))

        result = verify(replay, world, tick=tick)
        assert result.ok and world.state_hash() == scripted[0] == replay.end_hash
    assert asked == scripted[1]
    assert world.tick_count == 20


def test_a_save_keeps_where_the_sticks_are(tmp_path, world):
    world.input_queue.stick(0, -0.25, 1.0)
    world.tick()
    path = tmp_path / "save.json"
    world.save(path)
    assert json.loads(path.read_text())["world"]["input"]["sticks"] == [[-0.25, 1.0], [0.0, 0.0]]
    with World.load(path) as loaded:
        loaded.tick()
        assert loaded.input.stick(0) == (-0.25, 1.0)


def test_a_save_with_a_stick_out_of_range_is_refused_in_one_line(tmp_path, world):
    from engine import SaveError

    world.input_queue.stick(0, 0.5, 0.5)
    world.tick()
    path = tmp_path / "save.json"
    world.save(path)
    data = json.loads(path.read_text())
    data["world"]["input"]["sticks"][0] = [0.5, 5]
    path.write_text(json.dumps(data))
    with pytest.raises(SaveError, match=r"world.input.sticks must be a finite number from -1 to 1, got 5$"):
        World.load(path)


def test_check_moves_sticks_only_for_a_game_that_lists_pad_buttons():
    from engine.tools.check import DEFAULT_KEYS, random_input

    plain = random_input(3)
    with_pads = random_input(3, keys=(keys.PAD_A, keys.P))
    assert not any(event.type == "stick" for tick in range(1, 400) for event in plain(tick))
    sticks = [event for tick in range(1, 400) for event in with_pads(tick) if event.type == "stick"]
    assert sticks and all(-1 <= event.x <= 1 and -1 <= event.y <= 1 for event in sticks)
    assert random_input(3, keys=DEFAULT_KEYS)(7) == plain(7)


class _Vec:
    def __init__(self, x: float, y: float) -> None:
        self.x, self.y = x, y


def _fakes():
    from pyglet.event import EventDispatcher

    class FakeController(EventDispatcher):
        name = "fake pad"
        opened = False

        def open(self, window=None, exclusive=False):
            self.opened = True

        def close(self):
            self.opened = False

    for event in ("on_button_press", "on_button_release", "on_stick_motion", "on_dpad_motion", "on_trigger_motion"):
        FakeController.register_event_type(event)

    class FakeManager(EventDispatcher):
        def __init__(self, controllers):
            self.controllers = controllers

        def get_controllers(self):
            return list(self.controllers)

    FakeManager.register_event_type("on_connect")
    FakeManager.register_event_type("on_disconnect")
    return FakeController, FakeManager


def test_the_runners_pad_reader_reads_every_controller_in_a_slot_of_its_own_and_releases_all_on_unplug(world):
    from engine.render.pads import PadReader

    FakeController, FakeManager = _fakes()
    first, second, third = FakeController(), FakeController(), FakeController()
    manager = FakeManager([first])
    slots: list[int] = []

    def push(slot, event):
        slots.append(slot)
        world.input_queue.push(event)

    reader = PadReader(push, manager)
    assert reader.controllers == {0: first} and first.opened
    first.dispatch_event("on_button_press", first, "a")
    first.dispatch_event("on_stick_motion", first, "leftstick", _Vec(0.1, 0.1))  # the dead zone: nothing
    first.dispatch_event("on_stick_motion", first, "rightstick", _Vec(0.30001, -0.7))
    first.dispatch_event("on_dpad_motion", first, _Vec(-1, 1))
    first.dispatch_event("on_trigger_motion", first, "righttrigger", 0.9)
    first.dispatch_event("on_button_press", first, "touchpad")  # not a button we name: ignored
    world.tick()
    assert [event.type for event in world.input.events] == ["key_press", "stick", "key_press", "key_press",
                                                            "key_press"]
    assert world.input.held == {keys.PAD_A, keys.PAD_LEFT, keys.PAD_UP, keys.PAD_RT}
    assert world.input.stick(0) == (0.0, 0.0) and world.input.stick(1) == (77 / 256, -179 / 256)
    assert set(slots) == {0}

    # Another controller plugs in: it is read too, in the next slot (which player it plays is LocalPlayers').
    manager.controllers.append(second)
    manager.dispatch_event("on_connect", second)
    slots.clear()
    second.dispatch_event("on_button_press", second, "b")
    world.tick()
    assert world.input.just_pressed(keys.PAD_B) and slots == [1]
    assert reader.controllers == {0: first, 1: second}

    # The first one is unplugged: everything it held is let go and its sticks centred; the second holds on.
    manager.controllers.remove(first)
    manager.dispatch_event("on_disconnect", first)
    world.tick()
    assert world.input.held == {keys.PAD_B} and world.input.stick(1) == (0.0, 0.0)
    assert reader.controllers == {1: second} and not first.opened
    first.dispatch_event("on_button_press", first, "y")  # a controller no longer read says nothing
    # A pad plugged in now takes the free slot, 0.
    manager.controllers.append(third)
    manager.dispatch_event("on_connect", third)
    slots.clear()
    third.dispatch_event("on_button_press", third, "x")
    world.tick()
    assert world.input.held == {keys.PAD_B, keys.PAD_X} and slots == [0]
    assert reader.controllers == {0: third, 1: second}
    reader.close()
    world.tick()
    assert world.input.held == frozenset()


def test_stick_positions_are_quantised_and_centred_in_the_dead_zone():
    from engine.render.pads import DEAD_ZONE, quantised

    assert quantised(DEAD_ZONE * 0.9, 0.0) == (0.0, 0.0)
    assert quantised(1.0000001, -1.2) == (1.0, -1.0)
    assert quantised(0.5003, -0.0001) == (128 / 256, 0.0)
    assert quantised(float("nan"), 1.0) == (0.0, 0.0)
