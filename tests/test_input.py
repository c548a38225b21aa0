"""Per-tick input: events reach ticks, not frames; nothing lost, nothing duplicated."""

from __future__ import annotations

from typing import cast

import pytest

from engine import Entity, FixedStepLoop, InputEvent, InputQueue, TickInput, World


class Listener(Entity):
    """Records what each tick saw of the input."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[int, tuple, bool, bool, bool]] = []

    def update(self, world: World) -> None:
        keys = world.input
        self.seen.append((
            world.tick_count + 1,
            tuple(event.type for event in keys.events),
            keys.pressed("a"),
            keys.just_pressed("a"),
            keys.just_released("a"),
        ))


def make_game(clock):
    world = World()
    listener = world.spawn(Listener())
    pending: list[InputEvent] = []

    def process_input() -> None:  # what the window does: queue what arrived this frame
        for event in pending:
            world.input_queue.push(event)
        pending.clear()

    loop = FixedStepLoop(world.tick, lambda alpha: None, ms_per_update=40,
                         process_input=process_input, clock=clock)
    return world, listener, pending, loop


def test_a_press_and_release_inside_one_frame_are_both_seen(clock):
    world, listener, pending, loop = make_game(clock)
    pending += [InputEvent("key_press", "a"), InputEvent("key_release", "a")]
    clock.advance(40)
    loop.frame()
    assert listener.seen == [(1, ("key_press", "key_release"), False, True, True)]
    world.close()


def test_a_frame_with_no_tick_loses_nothing(clock):
    world, listener, pending, loop = make_game(clock)
    pending.append(InputEvent("key_press", "a"))
    clock.advance(10)
    loop.frame()  # no tick this frame
    assert listener.seen == []
    clock.advance(30)
    loop.frame()
    assert listener.seen == [(1, ("key_press",), True, True, False)]
    clock.advance(40)
    loop.frame()
    assert listener.seen[-1] == (2, (), True, False, False), "held keys stay held, edges don't repeat"
    world.close()


def test_a_frame_with_three_ticks_hands_the_events_to_the_first_only(clock):
    world, listener, pending, loop = make_game(clock)
    pending.append(InputEvent("key_press", "a"))
    clock.advance(120)
    loop.frame()
    assert [(tick, events, just) for tick, events, _, just, _ in listener.seen] == [
        (1, ("key_press",), True), (2, (), False), (3, (), False)]
    world.close()


def test_tick_input_tracks_mouse_and_buttons():
    queue = InputQueue()
    queue.mouse_motion(10, 20)
    queue.mouse_press(11, 21, button=1)
    tick = queue.take()
    assert (tick.mouse_x, tick.mouse_y) == (11, 21)
    assert tick.pressed(1) and tick.just_pressed(1)
    queue.mouse_release(12, 22, button=1)
    tick = queue.take()
    assert not tick.pressed(1) and tick.just_released(1)
    assert len(queue) == 0 and queue.take().events == ()


def test_events_survive_a_json_round_trip_for_replays():
    event = InputEvent("mouse_press", 2, 3.5, 4.0)
    assert InputEvent.from_json(event.to_json()) == event
    with pytest.raises(ValueError, match="type"):
        InputEvent("jump")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"\[type, key, x, y\]"):
        InputEvent.from_json({"type": "key_press"})


def test_an_unhashable_key_is_refused_when_the_event_is_made():
    with pytest.raises(TypeError, match=r"hashable.*\['a'\]"):
        InputEvent("key_press", ["a"])  # type: ignore[arg-type]  # refused by name


def test_push_refuses_anything_but_an_event():
    with pytest.raises(TypeError, match="'a'"):
        InputQueue().push("a")  # type: ignore[arg-type]


def test_an_empty_tick_input_has_nothing_pressed():
    empty = TickInput()
    assert not empty.pressed("a") and empty.events == ()


def test_scroll_drag_and_modifiers_add_up_per_tick_and_survive_json():
    from engine import keys

    queue = InputQueue()
    events = [
        InputEvent("mouse_press", 1, 5.0, 5.0, keys.MOD_SHIFT),
        InputEvent("mouse_drag", 1, 9.0, 7.0, keys.MOD_SHIFT),
        InputEvent("mouse_scroll", None, 9.0, 7.0, scroll_y=2.0),
        InputEvent("mouse_scroll", None, 9.0, 7.0, scroll_y=-0.5),
        InputEvent("key_press", keys.A, modifiers=keys.MOD_CTRL | keys.MOD_SHIFT),
    ]
    for event in events:
        assert InputEvent.from_json(event.to_json()) == event
        queue.push(event)
    tick = queue.take()
    assert tick.pressed(1) and (tick.mouse_x, tick.mouse_y) == (9.0, 7.0)
    assert (tick.scroll_x, tick.scroll_y) == (0.0, 1.5)
    assert tick.modifiers == keys.MOD_CTRL | keys.MOD_SHIFT
    assert InputEvent("key_press", 1).to_json() == ["key_press", 1, 0.0, 0.0], "old replays read the same"
    assert queue.take().scroll_y == 0.0, "scrolling is per tick"


def test_the_input_script_reader_is_public_in_engine_input(tmp_path):
    import engine.input
    from engine.input.scripts import read_input_script

    path = tmp_path / "moves.jsonl"
    path.write_text('{"tick": 2, "input": [["key_press", "LEFT", 0, 0]]}\n')
    assert engine.input.read_input_script is read_input_script
    assert engine.input.read_input_script(path) == {2: [InputEvent("key_press", 65361, 0, 0)]}


def test_typed_text_and_editing_keys_reach_the_tick_in_order_and_survive_json():
    from engine import keys

    queue = InputQueue()
    queue.type_text("Ad")
    queue.text_motion(keys.MOTION_BACKSPACE)
    queue.type_text("é" * 70)  # longer than one event holds: split, as the window splits it
    tick = queue.take()
    assert [event.type for event in tick.events] == ["text", "text_motion", "text", "text"]
    assert tick.text == "Ad" + "é" * 70 and [len(cast(str, event.key)) for event in tick.events[2:]] == [64, 6]
    assert not tick.pressed(keys.MOTION_BACKSPACE) and tick.modifiers == 0, "text is no key press"
    for event in tick.events:
        assert InputEvent.from_json(event.to_json()) == event
    assert queue.take().text == "", "text is per tick"


@pytest.mark.parametrize("event, words", [
    (("text", ""), "1 to 64 printable characters"),
    (("text", "a\r"), "no control characters"),
    (("text", 5), "the text typed"),
    (("text_motion", 3000), "a text motion"),
    (("text_motion", "BACKSPACE"), "a text motion"),
])
def test_a_text_event_that_no_window_sends_is_refused_when_made(event, words):
    with pytest.raises(ValueError, match=words):
        InputEvent(*event)


def test_mouse_buttons_and_text_motions_are_named_in_script_lines(tmp_path):
    from engine import keys
    from engine.input.scripts import read_input_script

    path = tmp_path / "in.jsonl"
    path.write_text(
        '{"tick": 2, "input": [["mouse_press", "MOUSE_LEFT", 320, 240], ["mouse_drag", "MOUSE_LEFT", 330, 240]]}\n'
        '{"tick": 3, "input": [["mouse_release", 1, 330, 240], ["mouse_press", "mouse_right", 5, 6]]}\n'
        '{"tick": 4, "input": [["text", "Ada", 0, 0], ["text_motion", "MOTION_BACKSPACE", 0, 0]]}\n')
    script = read_input_script(path)
    assert [(event.type, event.key) for event in script[2]] == [("mouse_press", keys.MOUSE_LEFT),
                                                                ("mouse_drag", keys.MOUSE_LEFT)]
    assert [event.key for event in script[3]] == [keys.MOUSE_LEFT, keys.MOUSE_RIGHT]
    assert [(event.type, event.key) for event in script[4]] == [("text", "Ada"),
                                                                ("text_motion", keys.MOTION_BACKSPACE)]


@pytest.mark.parametrize("event, words", [
    ('["text", 5, 0, 0]', "a text event's key is the text typed"),
    ('["text", "", 0, 0]', "1 to 64 printable characters"),
    ('["text", "a\\n", 0, 0]', "no control characters"),
    ('["text", null, 0, 0]', "a text event's key is the text typed"),
    ('["text_motion", "LEFT", 0, 0]', "a text_motion event's key is a text motion"),
    ('["text_motion", 70000, 0, 0]', "a text_motion event's key is a text motion"),
    ('["mouse_press", "LEFT", 0, 0]', "a mouse_press event's key is a mouse button"),
    ('["mouse_press", 3, 0, 0]', "a mouse_press event's key is a mouse button"),
    ('["mouse_release", null, 0, 0]', "a mouse_release event's key is a mouse button"),
    ('["mouse_drag", 0, 0, 0]', "the bits of the mouse buttons held"),
])
def test_a_damaged_mouse_or_text_line_is_refused_naming_file_line_and_problem(tmp_path, capsys, event, words):
    from engine.files.replay import ReplayError
    from engine.input.scripts import read_input_script
    from engine.tools.cli import main

    path = tmp_path / "in.jsonl"
    path.write_text('{"tick": 1, "input": [["key_press", "A", 0, 0]]}\n{"tick": 2, "input": [' + event + ']}\n')
    with pytest.raises(ReplayError, match=f":2: input\\[0\\]: .*{words}"):
        read_input_script(path)
    assert main(["run", "patrol", "--ticks", "5", "--input", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2: input[0]: " in err and words in err and err.count("\n") == 1, err
