"""engine.keys: every key by name, pyglet's codes, no pyglet import."""

from __future__ import annotations

import os
import subprocess
import sys


def test_engine_keys_imports_with_no_display_and_no_pyglet():
    code = ("import sys; from engine import keys; print(keys.LEFT, keys.SPACE, keys.A, keys._1, "
            "any(m.startswith('pyglet') for m in sys.modules))")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["65361", "32", "97", "49", "False"]


def test_every_pyglet_key_has_the_same_name_and_code_here(offscreen):
    # offscreen: importing pyglet.window opens a display unless pyglet was told off-screen first.
    import pyglet.window.key as pyglet_keys

    from engine import keys

    names = [name for name in dir(pyglet_keys) if name.isupper() or (name[:1] == "_" and name[1:].isdigit())]
    codes = {name: getattr(pyglet_keys, name) for name in names if isinstance(getattr(pyglet_keys, name), int)}
    assert len(codes) > 150
    for name, code in codes.items():
        assert getattr(keys, name) == code, name


def test_names_come_back_and_the_engine_keeps_only_esc_and_f1_to_f9():
    from engine import keys

    assert keys.name(keys.LEFT) == "LEFT" and keys.name(keys._1) == "_1" and keys.name(123456789) == "KEY_123456789"
    assert {keys.ESCAPE, keys.F1, keys.F2, keys.F3, keys.F4, keys.F5, keys.F6, keys.F7, keys.F8, keys.F9} == \
        keys.RESERVED
    assert keys.F10 not in keys.RESERVED  # F10 to F12 stay the game's


def test_every_key_name_reads_back_as_its_code_in_one_place():
    from engine import InputEvent, keys

    named = [each for each in dir(keys) if each.isupper() and not each.startswith(("MOD_", "MOTION_", "MOUSE", "_N"))]
    for code in {getattr(keys, each) for each in named if type(getattr(keys, each)) is int}:
        name = keys.name(code)
        assert keys.code(name) == code and keys.code(name.lower()) == code, name
        assert InputEvent.from_json(["key_press", name, 0, 0]).key == code
    assert keys.code("1") == keys._1 and keys.code("MOD_SHIFT") is None and keys.code("LEFTT") is None
    assert keys.code("name") is None and keys.code("RESERVED") is None


def test_engine_keys_is_the_input_packages_keys_module():
    # Games write `from engine import keys` and docs name `engine.keys.LEFT`: both reach engine/input/keys.py.
    import engine
    from engine.input import keys

    assert engine.keys is keys and engine.keys.LEFT == keys.LEFT == 65361


def test_mouse_buttons_are_pyglets_and_read_by_name_only_as_buttons(offscreen):
    import pyglet.window.mouse as pyglet_mouse

    from engine import keys

    assert (keys.MOUSE_LEFT, keys.MOUSE_MIDDLE, keys.MOUSE_RIGHT, keys.MOUSE4, keys.MOUSE5) == (
        pyglet_mouse.LEFT, pyglet_mouse.MIDDLE, pyglet_mouse.RIGHT, pyglet_mouse.MOUSE4, pyglet_mouse.MOUSE5)
    assert keys.button("mouse_right") == 4 and keys.button_name(keys.MOUSE_MIDDLE) == "MOUSE_MIDDLE"
    # A button's name is no key's: "MOUSE_LEFT" in a key_press is refused, and code 1 has no key name.
    assert keys.code("MOUSE_LEFT") is None and keys.button("LEFT") is None and keys.name(1) == "KEY_1"
    assert {1, 2, 4, 8, 16} == keys.BUTTONS


def test_text_motions_are_pyglets_and_read_by_name(offscreen):
    import pyglet.window.key as pyglet_keys

    from engine import keys

    motions = {name: getattr(pyglet_keys, name) for name in dir(pyglet_keys) if name.startswith("MOTION_")}
    assert motions and all(keys.motion(name) == code for name, code in motions.items())
    assert set(motions.values()) == keys.MOTIONS and keys.motion("BACKSPACE") is None
