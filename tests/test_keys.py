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


def test_every_pyglet_key_has_the_same_name_and_code_here():
    import pyglet.window.key as pyglet_keys

    from engine import keys

    names = [name for name in dir(pyglet_keys) if name.isupper() or (name[:1] == "_" and name[1:].isdigit())]
    codes = {name: getattr(pyglet_keys, name) for name in names if isinstance(getattr(pyglet_keys, name), int)}
    assert len(codes) > 150
    for name, code in codes.items():
        assert getattr(keys, name) == code, name


def test_names_come_back_and_the_engine_keeps_only_esc_and_f1_to_f5():
    from engine import keys

    assert keys.name(keys.LEFT) == "LEFT" and keys.name(keys._1) == "_1" and keys.name(123456789) == "KEY_123456789"
    assert {keys.ESCAPE, keys.F1, keys.F2, keys.F3, keys.F4, keys.F5} == keys.RESERVED


def test_every_key_name_reads_back_as_its_code_in_one_place():
    from engine import InputEvent, keys

    named = [each for each in dir(keys) if each.isupper() and not each.startswith(("MOD_", "MOTION_", "_N"))]
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
