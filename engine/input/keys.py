"""Every key, by name, with pyglet's key codes: ``keys.LEFT``, ``keys.SPACE``, ``keys.A``.

Game logic compares ``world.input.pressed(keys.LEFT)`` without importing pyglet, so a game
runs with ``--ticks`` or headless on a machine with no display (importing
``pyglet.window.key`` opens the display). The codes are pyglet's, copied here (a test
checks they still match), so ``world.input`` holds exactly what the window sends.

Letters are ``A`` to ``Z``; the digit keys ``_0`` to ``_9`` (a name can't start with a
digit); the keypad ``NUM_0`` ...; modifier keys ``LSHIFT``, ``RCTRL`` ...; and the
modifier *bits* of ``world.input.modifiers``: ``MOD_SHIFT``, ``MOD_CTRL``, ``MOD_ALT``,
``MOD_COMMAND``, ... (``MOD_ACCEL`` is Ctrl, or Command on macOS); a game controller's
buttons ``PAD_A``, ``PAD_START``, ``PAD_UP`` ... (triggers are ``PAD_LT``/``PAD_RT``); the mouse
buttons ``MOUSE_LEFT``, ``MOUSE_MIDDLE``, ``MOUSE_RIGHT``, ``MOUSE4``, ``MOUSE5`` (pyglet's
``pyglet.window.mouse`` codes); and the text-cursor motions of ``"text_motion"`` events,
``MOTION_BACKSPACE``, ``MOTION_LEFT`` ... ``name(code)`` gives a key's name back, and
``code(name)`` a name's code (the one reading of key names); ``button(name)`` and
``motion(name)`` read mouse buttons' and motions' names alike. The engine keeps Esc (quit)
and F1 to F9 for itself; every other key reaches the game.
"""

from __future__ import annotations

import sys

# Modifier bits, as in world.input.modifiers (several can be set at once).
MOD_SHIFT = 0x1
MOD_CTRL = 0x2
MOD_ALT = 0x4
MOD_CAPSLOCK = 0x8
MOD_NUMLOCK = 0x10
MOD_WINDOWS = 0x20
MOD_COMMAND = 0x40
MOD_OPTION = 0x80
MOD_SCROLLLOCK = 0x100
MOD_FUNCTION = 0x200
MOD_ACCEL = MOD_COMMAND if sys.platform == "darwin" else MOD_CTRL
"""Ctrl, or Command on macOS: the key that goes with shortcuts."""

# Mouse buttons (pyglet.window.mouse's codes): a mouse_press/mouse_release event's key, and
# bits of a mouse_drag's. They count as keys in world.input.pressed(keys.MOUSE_LEFT).
MOUSE_LEFT = 0x1
MOUSE_MIDDLE = 0x2
MOUSE_RIGHT = 0x4
MOUSE4 = 0x8
MOUSE5 = 0x10

# Keys.
BACKSPACE = 0xff08
TAB = 0xff09
LINEFEED = 0xff0a
CLEAR = 0xff0b
RETURN = 0xff0d
ENTER = 0xff0d
PAUSE = 0xff13
SCROLLLOCK = 0xff14
SYSREQ = 0xff15
ESCAPE = 0xff1b
HOME = 0xff50
LEFT = 0xff51
UP = 0xff52
RIGHT = 0xff53
DOWN = 0xff54
PAGEUP = 0xff55
PAGEDOWN = 0xff56
END = 0xff57
BEGIN = 0xff58
DELETE = 0xffff
SELECT = 0xff60
PRINT = 0xff61
EXECUTE = 0xff62
INSERT = 0xff63
UNDO = 0xff65
REDO = 0xff66
MENU = 0xff67
FIND = 0xff68
CANCEL = 0xff69
HELP = 0xff6a
BREAK = 0xff6b
MODESWITCH = 0xff7e
SCRIPTSWITCH = 0xff7e
FUNCTION = 0xffd2
NUMLOCK = 0xff7f
NUM_SPACE = 0xff80
NUM_TAB = 0xff89
NUM_ENTER = 0xff8d
NUM_F1 = 0xff91
NUM_F2 = 0xff92
NUM_F3 = 0xff93
NUM_F4 = 0xff94
NUM_HOME = 0xff95
NUM_LEFT = 0xff96
NUM_UP = 0xff97
NUM_RIGHT = 0xff98
NUM_DOWN = 0xff99
NUM_PRIOR = 0xff9a
NUM_PAGE_UP = 0xff9a
NUM_NEXT = 0xff9b
NUM_PAGE_DOWN = 0xff9b
NUM_END = 0xff9c
NUM_BEGIN = 0xff9d
NUM_INSERT = 0xff9e
NUM_DELETE = 0xff9f
NUM_EQUAL = 0xffbd
NUM_MULTIPLY = 0xffaa
NUM_ADD = 0xffab
NUM_SEPARATOR = 0xffac
NUM_SUBTRACT = 0xffad
NUM_DECIMAL = 0xffae
NUM_DIVIDE = 0xffaf
NUM_0 = 0xffb0
NUM_1 = 0xffb1
NUM_2 = 0xffb2
NUM_3 = 0xffb3
NUM_4 = 0xffb4
NUM_5 = 0xffb5
NUM_6 = 0xffb6
NUM_7 = 0xffb7
NUM_8 = 0xffb8
NUM_9 = 0xffb9
F1 = 0xffbe
F2 = 0xffbf
F3 = 0xffc0
F4 = 0xffc1
F5 = 0xffc2
F6 = 0xffc3
F7 = 0xffc4
F8 = 0xffc5
F9 = 0xffc6
F10 = 0xffc7
F11 = 0xffc8
F12 = 0xffc9
F13 = 0xffca
F14 = 0xffcb
F15 = 0xffcc
F16 = 0xffcd
F17 = 0xffce
F18 = 0xffcf
F19 = 0xffd0
F20 = 0xffd1
F21 = 0xffd2
F22 = 0xffd3
F23 = 0xffd4
F24 = 0xffd5
LSHIFT = 0xffe1
RSHIFT = 0xffe2
LCTRL = 0xffe3
RCTRL = 0xffe4
CAPSLOCK = 0xffe5
LMETA = 0xffe7
RMETA = 0xffe8
LALT = 0xffe9
RALT = 0xffea
LWINDOWS = 0xffeb
RWINDOWS = 0xffec
LCOMMAND = 0xffed
RCOMMAND = 0xffee
LOPTION = 0xffef
ROPTION = 0xfff0
SPACE = 0x20
EXCLAMATION = 0x21
DOUBLEQUOTE = 0x22
HASH = 0x23
POUND = 0x23
DOLLAR = 0x24
PERCENT = 0x25
AMPERSAND = 0x26
APOSTROPHE = 0x27
PARENLEFT = 0x28
PARENRIGHT = 0x29
ASTERISK = 0x2a
PLUS = 0x2b
COMMA = 0x2c
MINUS = 0x2d
PERIOD = 0x2e
SLASH = 0x2f
_0 = 0x30
_1 = 0x31
_2 = 0x32
_3 = 0x33
_4 = 0x34
_5 = 0x35
_6 = 0x36
_7 = 0x37
_8 = 0x38
_9 = 0x39
COLON = 0x3a
SEMICOLON = 0x3b
LESS = 0x3c
EQUAL = 0x3d
GREATER = 0x3e
QUESTION = 0x3f
AT = 0x40
BRACKETLEFT = 0x5b
BACKSLASH = 0x5c
BRACKETRIGHT = 0x5d
ASCIICIRCUM = 0x5e
UNDERSCORE = 0x5f
GRAVE = 0x60
QUOTELEFT = 0x60
A = 0x61
B = 0x62
C = 0x63
D = 0x64
E = 0x65
F = 0x66
G = 0x67
H = 0x68
I = 0x69
J = 0x6a
K = 0x6b
L = 0x6c
M = 0x6d
N = 0x6e
O = 0x6f
P = 0x70
Q = 0x71
R = 0x72
S = 0x73
T = 0x74
U = 0x75
V = 0x76
W = 0x77
X = 0x78
Y = 0x79
Z = 0x7a
BRACELEFT = 0x7b
BAR = 0x7c
BRACERIGHT = 0x7d
ASCIITILDE = 0x7e

# Text-cursor motions (pyglet's on_text_motion codes).
MOTION_UP = 0xff52
MOTION_RIGHT = 0xff53
MOTION_DOWN = 0xff54
MOTION_LEFT = 0xff51
MOTION_NEXT_WORD = 0x1
MOTION_PREVIOUS_WORD = 0x2
MOTION_BEGINNING_OF_LINE = 0x3
MOTION_END_OF_LINE = 0x4
MOTION_NEXT_PAGE = 0xff56
MOTION_PREVIOUS_PAGE = 0xff55
MOTION_BEGINNING_OF_FILE = 0x5
MOTION_END_OF_FILE = 0x6
MOTION_BACKSPACE = 0xff08
MOTION_DELETE = 0xffff
MOTION_COPY = 0x7
MOTION_PASTE = 0x8

# Game controller buttons (engine.render.pads sends them): codes above every keyboard code pyglet
# sends (below 0x10000, or a scancode shifted 32 bits up), so a pad never reads as a key.
PAD_A = 0x100000
PAD_B = 0x100001
PAD_X = 0x100002
PAD_Y = 0x100003
PAD_LB = 0x100004
PAD_RB = 0x100005
PAD_LT = 0x100006
PAD_RT = 0x100007
PAD_BACK = 0x100008
PAD_START = 0x100009
PAD_GUIDE = 0x10000a
PAD_LSTICK = 0x10000b
PAD_RSTICK = 0x10000c
PAD_UP = 0x10000d
PAD_DOWN = 0x10000e
PAD_LEFT = 0x10000f
PAD_RIGHT = 0x100010

_NAMES: dict[int, str] = {}
for _name, _code in list(globals().items()):
    if ((_name.isupper() or (_name.startswith("_") and _name[1:].isdigit()))
            and isinstance(_code, int) and not _name.startswith(("MOD_", "MOTION_", "MOUSE"))):
        _NAMES.setdefault(_code, _name)


def name(code: int) -> str:
    """The name of key ``code`` (``name(keys.LEFT) == "LEFT"``); unknown codes as ``"KEY_<code>"``."""
    return _NAMES.get(code, f"KEY_{code}")


def code(key_name: str) -> int | None:
    """The code of the key named ``key_name``, or None: ``code("LEFT") == keys.LEFT``.

    The one reading of key names, for every place a person writes one (input scripts,
    ``InputEvent.from_json``): any case, and a single digit for the digit keys (``"1"``
    is ``keys._1``). Modifier bits and text motions are not keys.
    """
    text = "_" + key_name if key_name.isdigit() and len(key_name) == 1 else key_name.upper()
    if not (text.isupper() or (text.startswith("_") and text[1:].isdigit())) or text.startswith(
            ("MOD_", "MOTION_", "MOUSE")):
        return None
    found = globals().get(text)
    return found if type(found) is int else None


def button(button_name: str) -> int | None:
    """The code of the mouse button named ``button_name`` (any case), or None: ``button("MOUSE_LEFT") == 1``."""
    found = _BUTTONS.get(button_name.upper())
    return found


def button_name(code: int) -> str:
    """The name of mouse button ``code`` (``"MOUSE_LEFT"``); unknown codes as ``"MOUSE_<code>"``."""
    return next((name for name, each in _BUTTONS.items() if each == code), f"MOUSE_{code}")


def motion(motion_name: str) -> int | None:
    """The code of the text motion named ``motion_name`` (any case), or None: ``motion("MOTION_BACKSPACE")``."""
    return _MOTIONS.get(motion_name.upper())


_BUTTONS = {"MOUSE_LEFT": MOUSE_LEFT, "MOUSE_MIDDLE": MOUSE_MIDDLE, "MOUSE_RIGHT": MOUSE_RIGHT, "MOUSE4": MOUSE4,
            "MOUSE5": MOUSE5}
BUTTONS = frozenset(_BUTTONS.values())
"""Every mouse button's code: a mouse_press or mouse_release event's key is one of them."""
_MOTIONS = {_name: _code for _name, _code in list(globals().items()) if _name.startswith("MOTION_")}
MOTIONS = frozenset(_MOTIONS.values())
"""Every text motion's code: a ``"text_motion"`` event's key is one of them."""


RESERVED = frozenset({ESCAPE, F1, F2, F3, F4, F5, F6, F7, F8, F9})
"""The keys the engine keeps: Esc quits; F1 HUD, F2 pause, F3 one tick, F4 interpolation, F5 extrapolation;
F6 and F7 rewind and go forward, F8 inspects, F9 reloads the game (``tickswap run``'s studio, since 0.4)."""
