"""The DOM's input as the engine's keys: ``KeyboardEvent.code`` and mouse buttons to ``engine.input.keys``.

By ``code`` (the key's place on the keyboard), not ``key`` (what it types), as the desktop
window gives pyglet's symbols for places: WASD stays WASD on an AZERTY layout's places.
"""

from __future__ import annotations

import math

from engine.input import keys

__all__ = ["DEAD_ZONE", "MODIFIERS", "dom_button", "dom_key", "dom_modifiers", "stick_position"]

DEAD_ZONE = 0.2
"""How far from the centre a stick must move before it counts: the desktop's (``engine.render.pads``)."""

_NAMED = {
    "Space": "SPACE", "Enter": "RETURN", "NumpadEnter": "NUM_ENTER", "Escape": "ESCAPE", "Backspace": "BACKSPACE",
    "Tab": "TAB", "ArrowLeft": "LEFT", "ArrowRight": "RIGHT", "ArrowUp": "UP", "ArrowDown": "DOWN",
    "ShiftLeft": "LSHIFT", "ShiftRight": "RSHIFT", "ControlLeft": "LCTRL", "ControlRight": "RCTRL",
    "AltLeft": "LALT", "AltRight": "RALT", "MetaLeft": "LMETA", "MetaRight": "RMETA", "Home": "HOME", "End": "END",
    "PageUp": "PAGEUP", "PageDown": "PAGEDOWN", "Insert": "INSERT", "Delete": "DELETE", "CapsLock": "CAPSLOCK",
    "Minus": "MINUS", "Equal": "EQUAL", "BracketLeft": "BRACKETLEFT", "BracketRight": "BRACKETRIGHT",
    "Semicolon": "SEMICOLON", "Quote": "APOSTROPHE", "Backquote": "GRAVE", "Backslash": "BACKSLASH",
    "Comma": "COMMA", "Period": "PERIOD", "Slash": "SLASH",
}

MODIFIERS = (("shiftKey", "MOD_SHIFT"), ("ctrlKey", "MOD_CTRL"), ("altKey", "MOD_ALT"), ("metaKey", "MOD_COMMAND"))
"""A DOM event's modifier flags and the engine's modifier bits they set."""


def _name(code: str) -> str | None:
    if code.startswith("Key") and len(code) == 4 and code[3].isalpha():
        return code[3]
    if code.startswith("Digit") and len(code) == 6 and code[5].isdigit():
        return f"_{code[5]}"
    if code.startswith("Numpad") and len(code) == 7 and code[6].isdigit():
        return f"NUM_{code[6]}"
    if code.startswith("F") and code[1:].isdigit() and 1 <= int(code[1:]) <= 24:
        return code
    return _NAMED.get(code)


def dom_key(code: str) -> int | None:
    """The engine's key for a DOM ``KeyboardEvent.code`` (``"KeyW"``: ``keys.W``), or ``None`` for one it has not."""
    name = _name(code) if isinstance(code, str) and len(code) < 40 else None
    value = getattr(keys, name, None) if name is not None else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def dom_modifiers(shift: bool, ctrl: bool, alt: bool, meta: bool) -> int:
    """The engine's modifier bits for a DOM event's ``shiftKey``, ``ctrlKey``, ``altKey`` and ``metaKey``."""
    bits = 0
    for flag, (_, name) in zip((shift, ctrl, alt, meta), MODIFIERS):
        if flag:
            bits |= int(getattr(keys, name))
    return bits


def dom_button(button: int) -> int | None:
    """The engine's mouse button for a DOM ``MouseEvent.button`` (0 left, 1 middle, 2 right, 3 and 4 the side ones)."""
    return {0: keys.MOUSE_LEFT, 1: keys.MOUSE_MIDDLE, 2: keys.MOUSE_RIGHT, 3: keys.MOUSE4, 4: keys.MOUSE5}.get(button)


def stick_position(x: float, y: float) -> tuple[float, float]:
    """A gamepad stick's position as the game sees it, as the desktop's ``engine.render.pads.quantised`` gives it:
    centred inside the dead zone, in steps of 1/256, within [-1, 1] (``tests/test_web_pure.py`` compares them)."""
    if not (math.isfinite(x) and math.isfinite(y)) or math.hypot(x, y) < DEAD_ZONE:
        return 0.0, 0.0
    return (max(-1.0, min(1.0, round(x * 256) / 256)) + 0.0, max(-1.0, min(1.0, round(y * 256) / 256)) + 0.0)
