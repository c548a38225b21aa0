"""GUI widgets: driven by recorded input, buffered, saved, rolled back and the same in every update order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine import Entity, InputEvent, World, buffered, keys
from engine.display import Display
from engine.gui import Button, Label, Panel, Slider, TextInput, Widget
from engine.testing import assert_order_independent, assert_rollback_deterministic, load_game

MENU = load_game(str(Path(__file__).with_name("menugame.py")))


def widgets(world: World) -> dict[str, Widget]:
    """The menu's widgets by what they show."""
    found: dict[str, Widget] = {}
    for widget in world.entities_of(Widget):
        name = getattr(widget, "text", "") or type(widget).__name__
        found[name if isinstance(widget, (Button, Label)) else type(widget).__name__] = widget
    return found


def menu_of(world: World) -> Any:
    """The menu game's Menu entity (a class of the loaded game file's)."""
    return next(entity for entity in world.entities if type(entity).__name__ == "Menu")


def click(world: World, x: float, y: float) -> None:
    world.input_queue.mouse_press(x, y, keys.MOUSE_LEFT)
    world.input_queue.mouse_release(x, y, keys.MOUSE_LEFT)


# -- buttons ------------------------------------------------------------------------------------

def test_a_click_is_a_press_and_a_release_inside_and_the_game_reads_it_the_tick_after(world):
    button = world.spawn(Button("Go", 100, 100, (80, 40)))
    world.input_queue.mouse_motion(100, 100)
    world.tick()
    assert button.hovered and not button.pressed and not button.clicked
    world.input_queue.mouse_press(110, 90, keys.MOUSE_LEFT)
    world.tick()
    assert button.pressed and button.focused and not button.clicked
    world.input_queue.mouse_release(130, 110, keys.MOUSE_LEFT)
    world.tick()
    assert button.clicked and not button.pressed
    world.tick()
    assert not button.clicked, "a click is raised for one tick"
    click(world, 100, 100)  # press and release inside one frame: one click
    world.tick()
    assert button.clicked


def test_a_press_that_leaves_the_button_before_the_release_is_no_click(world):
    button = world.spawn(Button("Go", 100, 100, (80, 40)))
    world.input_queue.mouse_press(100, 100, keys.MOUSE_LEFT)
    world.input_queue.push(InputEvent("mouse_drag", keys.MOUSE_LEFT, 300, 100))
    world.tick()
    assert button.pressed and not button.hovered, "held, though the pointer is away"
    world.input_queue.mouse_release(300, 100, keys.MOUSE_LEFT)
    world.tick()
    assert not button.clicked and not button.pressed
    world.input_queue.mouse_press(100, 100, keys.MOUSE_RIGHT)
    world.input_queue.mouse_release(100, 100, keys.MOUSE_RIGHT)
    world.tick()
    assert not button.clicked, "the right button does not click"


def test_a_disabled_or_hidden_button_is_never_hovered_pressed_or_clicked(world):
    disabled = world.spawn(Button("Off", 100, 100, disabled=True))
    hidden = world.spawn(Button("Gone", 300, 100, visible=False))
    for x in (100, 300):
        world.input_queue.mouse_motion(x, 100)
        click(world, x, 100)
        world.input_queue.press(keys.TAB)
        world.input_queue.press(keys.RETURN)
        world.tick()
        for button in (disabled, hidden):
            assert not (button.hovered or button.pressed or button.focused or button.clicked)


def test_a_panel_over_a_button_takes_the_click_and_a_label_lets_it_through(world):
    under = world.spawn(Button("Under", 100, 100))
    world.spawn(Label("over the button", 100, 100))
    click(world, 100, 100)
    world.tick()
    assert under.clicked, "a label does not stop the pointer"
    world.spawn(Panel(100, 100, (300, 300), layer=1))  # a dialog's panel, a layer above
    click(world, 100, 100)
    world.tick()
    assert not under.clicked and not under.hovered
    on_top = world.spawn(Button("Dialog", 100, 100, layer=1))
    click(world, 100, 100)
    world.tick()
    assert on_top.clicked and not under.clicked, "the dialog's own button, over its panel, is clicked"


# -- keyboard and pad focus --------------------------------------------------------------------

def test_tab_arrows_and_the_dpad_move_focus_and_enter_space_or_a_click(world):
    first, second, third = (world.spawn(Button(name, 100, y)) for name, y in (("1", 300), ("2", 200), ("3", 100)))
    world.spawn(Label("not focusable", 100, 50))
    queue = world.input_queue

    def focused() -> list[str]:
        return [button.text for button in (first, second, third) if button.focused]

    world.tick()
    assert focused() == []
    queue.press(keys.TAB)
    world.tick()
    assert focused() == ["1"]
    queue.press(keys.TAB)
    queue.press(keys.TAB)
    world.tick()
    assert focused() == ["3"]
    queue.press(keys.TAB)  # round to the first
    world.tick()
    assert focused() == ["1"]
    queue.push(InputEvent("key_press", keys.TAB, modifiers=keys.MOD_SHIFT))
    world.tick()
    assert focused() == ["3"]
    queue.press(keys.UP)
    world.tick()
    assert focused() == ["2"]
    queue.press(keys.RETURN)
    world.tick()
    assert second.clicked and not first.clicked
    queue.press(keys.PAD_DOWN)
    queue.press(keys.PAD_A)
    world.tick()
    assert third.clicked and not second.clicked
    queue.press(keys.SPACE)
    world.tick()
    assert third.clicked
    click(world, 600, 400)  # a press on nothing takes focus away
    world.tick()
    assert focused() == []
    queue.press(keys.PAD_DOWN)  # with nothing focused, the d-pad starts at the first
    world.tick()
    assert focused() == ["1"]


def test_a_widget_spawned_focused_has_the_focus_and_a_click_moves_it(world):
    first = world.spawn(Button("1", 100, 300))
    second = world.spawn(Button("2", 100, 200, focused=True))
    world.tick()
    assert second.focused and not first.focused
    click(world, 100, 300)
    world.tick()
    assert first.focused and not second.focused


# -- sliders and text fields -------------------------------------------------------------------

def test_a_slider_follows_a_drag_steps_with_keys_and_says_when_it_changed(world):
    slider = world.spawn(Slider(200, 100, (200, 20), minimum=0.0, maximum=10.0, step=1.0, value=5.0))
    queue = world.input_queue
    queue.mouse_press(200, 100, keys.MOUSE_LEFT)
    world.tick()
    assert slider.value == 5.0 and not slider.changed and slider.pressed
    queue.push(InputEvent("mouse_drag", keys.MOUSE_LEFT, 262, 140))  # off the slider, still held
    world.tick()
    assert slider.value == 8.0 and slider.changed  # 162 of its 200 pixels: 8.1, snapped to the step
    queue.push(InputEvent("mouse_drag", keys.MOUSE_LEFT, 900, 100))
    queue.mouse_release(900, 100, keys.MOUSE_LEFT)
    world.tick()
    assert slider.value == 10.0 and not slider.pressed
    queue.push(InputEvent("mouse_motion", None, 950, 100))
    world.tick()
    assert slider.value == 10.0 and not slider.changed, "released: the slider no longer follows"
    queue.press(keys.LEFT)
    queue.press(keys.PAD_LEFT)
    world.tick()
    assert slider.value == 8.0 and slider.focused and slider.changed
    queue.press(keys.HOME)
    world.tick()
    assert slider.value == 0.0
    queue.press(keys.LEFT)
    world.tick()
    assert slider.value == 0.0 and not slider.changed, "it stops at its ends"


def test_a_text_field_takes_typing_backspace_and_enter_up_to_its_length(world):
    field = world.spawn(TextInput(200, 100, max_length=8))
    queue = world.input_queue
    queue.type_text("lost")  # nothing focused: typed text goes nowhere
    world.tick()
    assert field.text == ""
    click(world, 200, 100)
    queue.type_text("Ada Lovelace")
    world.tick()
    assert field.focused and field.text == "Ada Love"
    queue.text_motion(keys.MOTION_BACKSPACE)
    queue.text_motion(keys.MOTION_BACKSPACE)
    queue.type_text("X")
    queue.press(keys.LEFT)  # stays in the field: it would move a cursor
    world.tick()
    assert field.text == "Ada LoX" and field.focused and not field.submitted
    queue.press(keys.SPACE)  # Space is text here, not a submit
    queue.type_text(" ")
    world.tick()
    assert field.text == "Ada LoX " and not field.submitted
    queue.press(keys.RETURN)
    world.tick()
    assert field.submitted and field.text == "Ada LoX "
    queue.press(keys.TAB)
    queue.type_text("more")
    world.tick()
    assert field.focused, "the only focusable widget keeps focus"


def test_bad_widget_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match=r"Slider minimum must be below maximum, got 1 and 1"):
        Slider(minimum=1, maximum=1)
    with pytest.raises(ValueError, match=r"Slider value must be from 0 to 1, got 2"):
        Slider(value=2)
    with pytest.raises(ValueError, match=r"Button size must be \(width, height\).*got \(0, 10\)"):
        Button("x", size=(0, 10))
    with pytest.raises(ValueError, match=r"TextInput max_length must be .* got 0"):
        TextInput(max_length=0)
    with pytest.raises(ValueError, match=r"Button player must be a whole number from 0 to 7, got 9"):
        Button(player=9)
    with pytest.raises(TypeError, match=r"Button disabled must be True or False, got 'no'"):
        Button(disabled="no")


def test_a_widget_of_a_player_the_world_does_not_have_is_refused_by_name(world):
    world.spawn(Button("p2", player=1))
    with pytest.raises(Exception, match=r"Button \d+ is player 1's, but the world has 1 player"):
        world.tick()


def test_each_player_drives_their_own_widgets():
    with World(players=2) as world:
        mine, theirs = world.spawn(Button("0", 100, 100)), world.spawn(Button("1", 100, 100, player=1))
        click(world, 100, 100)
        world.tick()
        assert mine.clicked and not theirs.clicked
        world.input_queue_of(1).press(keys.TAB)
        world.input_queue_of(1).press(keys.RETURN)
        world.tick()
        assert theirs.clicked and theirs.focused and not mine.clicked


# -- the menu game: scripted, saved, rolled back, in every order --------------------------------

SCRIPT = (  # an --input file: click Start, drag the slider, type a name, Enter, Shift+Tab to Options and Space
    '{"tick": 2, "input": [["mouse_motion", null, 320, 320]]}\n'
    '{"tick": 3, "input": [["mouse_press", "MOUSE_LEFT", 320, 320]]}\n'
    '{"tick": 4, "input": [["mouse_release", "MOUSE_LEFT", 321, 318]]}\n'
    '{"tick": 6, "input": [["mouse_press", "MOUSE_LEFT", 320, 210]]}\n'
    '{"tick": 7, "input": [["mouse_drag", "MOUSE_LEFT", 360, 210]]}\n'
    '{"tick": 8, "input": [["mouse_drag", "MOUSE_LEFT", 400, 214]]}\n'
    '{"tick": 9, "input": [["mouse_release", "MOUSE_LEFT", 400, 214]]}\n'
    '{"tick": 10, "input": [["mouse_press", "MOUSE_LEFT", 320, 150], ["mouse_release", "MOUSE_LEFT", 320, 150]]}\n'
    '{"tick": 11, "input": [["text", "Ad", 0, 0]]}\n'
    '{"tick": 12, "input": [["text", "x", 0, 0], ["text_motion", "MOTION_BACKSPACE", 0, 0], ["text", "a", 0, 0]]}\n'
    '{"tick": 14, "input": [["key_press", "RETURN", 0, 0]]}\n'
    '{"tick": 15, "input": [["key_press", "TAB", 0, 0, 1, 0, 0], ["key_press", "TAB", 0, 0, 1, 0, 0],'
    ' ["key_press", "TAB", 0, 0, 1, 0, 0]]}\n'
    '{"tick": 16, "input": [["key_press", "DOWN", 0, 0], ["key_press", "SPACE", 0, 0]]}\n'
)


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "menu.jsonl"
    path.write_text(SCRIPT)
    return path


def test_a_scripted_input_clicks_start_and_the_game_reacts(script):
    from engine.input import read_input_script

    events = read_input_script(script)
    with World() as world:
        MENU.setup(world)
        for tick in range(1, 21):
            for event in events.get(tick, ()):
                world.input_queue.push(event)
            world.tick()
        menu = menu_of(world)
        assert (menu.starts, menu.options, menu.volume, menu.greeting) == (1, 1, 0.9, "Hello, Ada!")


def test_the_command_line_runs_the_script_with_the_same_hash_saves_and_loads_mid_drag(script, tmp_path, capsys):
    from engine.tools.cli import main

    game = str(Path(__file__).with_name("menugame.py"))
    assert main(["run", game, "--ticks", "20", "--input", str(script)]) == 0
    straight = capsys.readouterr().out
    save = tmp_path / "mid-drag.json"
    assert main(["run", game, "--ticks", "7", "--input", str(script), "--save-at", "7", str(save)]) == 0
    capsys.readouterr()
    assert main(["run", game, "--load", str(save), "--ticks", "13", "--input", str(script)]) == 0
    loaded = capsys.readouterr().out
    assert straight.split("state ")[-1] == loaded.split("state ")[-1], (straight, loaded)
    mid_drag = World.load(save)
    try:
        assert widgets(mid_drag)["Slider"].pressed, "saved while the slider was held"
    finally:
        mid_drag.close()




def menu_inputs(script_path: Path):
    from engine.input import read_input_script

    events = read_input_script(script_path)
    return lambda tick: events.get(tick, ())


def test_the_menu_is_the_same_in_every_update_order(script):
    assert_order_independent(MENU, ticks=20, orders=6, inputs=menu_inputs(script))


def test_rolling_back_mid_drag_and_mid_typing_replays_the_same(script):
    assert_rollback_deterministic(MENU, ticks=20, distance=3, inputs=menu_inputs(script))
    assert_rollback_deterministic(MENU, ticks=20, distance=1, inputs=menu_inputs(script))


def test_a_save_mid_typing_loads_into_a_world_that_goes_on_the_same(script, tmp_path):
    from engine.testing import load_save, save_game

    events = menu_inputs(script)

    def run(world: World, ticks: range) -> None:
        for tick in ticks:
            for event in events(tick):
                world.input_queue.push(event)
            world.tick()

    with World() as straight:
        MENU.setup(straight)
        run(straight, range(1, 12))
        field = widgets(straight)["TextInput"]
        assert isinstance(field, TextInput)
        assert field.focused and field.text == "Ad", "saved while typing"
        save_game(straight, MENU, str(tmp_path / "typing.json"))
        run(straight, range(12, 21))
        loaded = load_save(MENU, str(tmp_path / "typing.json"))
        try:
            run(loaded, range(12, 21))
            assert loaded.state_hash() == straight.state_hash()
            assert menu_of(loaded).greeting == "Hello, Ada!"
        finally:
            loaded.close()


class Shy(Button):
    """Disables itself at tick 5, in its own update, before the input is routed: routing reads what was committed."""

    def update(self, world: World) -> None:
        if world.tick_count == 4:
            self.disabled = True
        super().update(world)


def test_a_widget_that_changes_itself_before_routing_changes_nothing_for_the_others_this_tick():
    def build(world: World) -> None:
        world.spawn(Shy("A", 100, 100))
        world.spawn(Button("B", 100, 200))
        world.spawn(Shy("C", 100, 300))

    def inputs(tick: int) -> list[InputEvent]:
        return [InputEvent("key_press", keys.TAB)] if tick % 2 else [InputEvent("key_press", keys.RETURN)]

    assert_order_independent(build, ticks=12, orders=6, inputs=inputs)


def test_the_compiled_core_and_the_pure_path_run_the_menu_to_the_same_hash(script):
    import os
    import subprocess
    import sys

    game = str(Path(__file__).with_name("menugame.py"))
    hashes = set()
    for pure in ("0", "1"):
        out = subprocess.run([sys.executable, "-m", "engine.tools.cli", "run", game, "--ticks", "20", "--input",
                              str(script)], capture_output=True, text=True, check=True,
                             env={**os.environ, "TICKSWAP_PURE": pure})
        hashes.add(out.stdout.split("state ")[-1].strip())
    assert len(hashes) == 1, hashes


@pytest.mark.usefixtures("offscreen")
def test_clicks_and_typing_in_the_window_are_recorded_and_replayed_hash_for_hash(tmp_path, capsys):
    from engine.files.replay import Recorder, read_replay
    from engine.render.runner import GameRunner
    from engine.tools.cli import main

    path = tmp_path / "menu.jsonl"
    from engine.tools.cli.worlds import build_world
    from engine.world.driver import LocalDriver

    recorder = Recorder(path, game=MENU.name, seed=0, ms_per_update=MENU.ms_per_update,
                        game_digest=MENU.digest)
    runner = GameRunner(MENU, LocalDriver(build_world(MENU, 0), after_tick=recorder.after_tick),
                        display=Display(headless=True))
    window = runner.window
    script = {3: ("on_mouse_motion", 320, 320, 0, 0), 5: ("on_mouse_press", 320, 320, keys.MOUSE_LEFT, 0),
              6: ("on_mouse_release", 320, 320, keys.MOUSE_LEFT, 0), 8: ("on_mouse_press", 320, 150, 1, 0),
              9: ("on_mouse_release", 320, 150, 1, 0), 10: ("on_text", "Bo\r"), 11: ("on_text", "b"),
              12: ("on_text_motion", keys.MOTION_BACKSPACE), 13: ("on_key_press", keys.RETURN, 0)}
    for frame in range(20):
        if frame in script:
            window.dispatch_event(*script[frame])
        runner.run(frames=1)
    menu = menu_of(runner.world)
    assert (menu.starts, menu.greeting) == (1, "Hello, Bo!")
    recorder.close(runner.world)
    runner.close()
    recorded = path.read_text()
    assert '["text","Bo",0.0,0.0]' in recorded and "\\r" not in recorded, "Enter is a key press, not text"
    assert read_replay(path).input_ticks
    capsys.readouterr()
    assert main(["replay", str(path), "--game", str(MENU.path)]) == 0
    assert "all match" in capsys.readouterr().out


class Builder(Entity):
    """Places a tower at a left click in the world, but not through the HUD: a tower defense's click."""

    towers: tuple[tuple[float, float], ...] = buffered(())

    def update(self, world: World) -> None:
        from engine import widget_under_mouse

        if world.input.just_pressed(keys.MOUSE_LEFT) and widget_under_mouse(world) is None:
            self.towers = (*self.towers, (world.mouse.x, world.mouse.y))


def test_a_click_on_the_gui_is_not_a_click_in_the_world_in_any_order():
    from engine import Camera

    def build(world: World) -> None:
        world.spawn(Builder())
        world.spawn(Button("Sell", 600, 20, (80, 30), disabled=True))  # a disabled button still takes the click
        world.spawn(Camera(0, 0, zoom=2.0))
        world.spawn(Panel(320, 460, (640, 40)))

    def inputs(tick: int) -> list[InputEvent]:
        x, y = [(600, 20), (100, 100), (320, 470), (500, 300)][tick % 4]
        return [InputEvent("mouse_press", keys.MOUSE_LEFT, x, y), InputEvent("mouse_release", keys.MOUSE_LEFT, x, y)]

    assert_order_independent(build, ticks=8, orders=4, inputs=inputs)
    with World() as world:
        build(world)
        for tick in range(1, 5):
            for event in inputs(tick):
                world.input_queue.push(event)
            world.tick()
        builder = world.entities_of(Builder)[0]
        assert builder.towers == ((-110.0, -70.0), (90.0, 30.0)), "the clicks at (100, 100) and (500, 300) only"


# -- drawn ----------------------------------------------------------------------------------------

@pytest.mark.usefixtures("offscreen")
def test_a_button_draws_its_body_text_and_focus_ring_and_hovering_changes_its_colour():
    import pyglet

    from engine import Camera
    from engine.render import create_window
    from engine.render.context import read_pixels
    from engine.render.entities import EntityRenderer

    window = create_window(200, 100, headless=True)
    try:
        with World() as world:
            world.spawn(Camera(5000, -300, zoom=3.0))  # widgets are in window coordinates: no camera moves them
            button = world.spawn(Button("OK", 100, 50, (80, 30)))
            renderer = EntityRenderer(world)
            style = button.style

            def drawn() -> bytes:
                pyglet.gl.glClearColor(0, 0, 0, 1)
                window.clear()
                renderer.draw(1.0)
                return read_pixels(window.width, window.height)

            def at(data: bytes, x: int, y: int) -> tuple[int, ...]:
                return tuple(data[(y * 200 + x) * 4:(y * 200 + x) * 4 + 3])

            def near(drawn: tuple[int, ...], rgb: tuple[int, ...]) -> bool:
                # Within the colour depth of the off-screen context (16 bits on some: 5 bits of red).
                return all(abs(a - b) <= 8 for a, b in zip(drawn, rgb[:3], strict=False))

            first = drawn()  # before any tick: made with its parts
            assert near(at(first, 65, 40), style.background), "its body, away from the text"
            assert at(first, 100, 70) == (0, 0, 0) and at(first, 30, 50) == (0, 0, 0), "only inside its box"
            text = {at(first, x, y) for x in range(90, 111) for y in range(44, 57)}
            assert any(near(each, style.text) for each in text), "its text is drawn over the body"
            world.input_queue.mouse_motion(100, 50)
            world.tick()
            hovered = drawn()
            assert near(at(hovered, 65, 40), style.hover) and not near(at(hovered, 65, 40), style.background)
            world.input_queue.press(keys.TAB)
            world.input_queue.mouse_motion(10, 10)
            world.tick()
            focused = drawn()
            assert near(at(focused, 65, 40), style.background), "the pointer left it"
            assert near(at(focused, 100, 65 + 1), style.focus), "a focus ring just outside its top edge"
            renderer.delete()
    finally:
        window.close()


class Closer(Entity):
    """Despawns the first button at tick 3, mid-tick: routing still counts it (it was there when the tick began)."""

    saved = ("target",)

    def __init__(self, target: Button) -> None:
        super().__init__()
        self.target = target

    def update(self, world: World) -> None:
        if world.tick_count == 2:
            world.despawn(self.target)


def test_a_widget_despawned_mid_tick_routes_the_same_in_every_order():
    def build(world: World) -> None:
        first = world.spawn(Button("A", 100, 100))
        world.spawn(Button("B", 100, 200))
        world.spawn(Closer(first))
        world.spawn(Button("C", 100, 300))

    def inputs(tick: int) -> list[InputEvent]:
        # At tick 3 focus goes from B past C, round to A if it is counted (else on to B).
        return [InputEvent("key_press", keys.TAB)] * (2 if tick == 3 else 1)

    assert_order_independent(build, ticks=6, orders=6, inputs=inputs)
