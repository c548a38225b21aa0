"""PadReader: every connected game controller, each in a slot of its own, as input events queued like keys.

Buttons become ``key_press``/``key_release`` events with the ``keys.PAD_*`` codes (the
d-pad is ``PAD_UP`` ...; a trigger is the button ``PAD_LT``/``PAD_RT``, down past
half-way), and sticks ``"stick"`` events (0 the left, 1 the right, y up). A stick in
its dead zone reads as centred, and positions are quantised to 1/256: a resting stick's
noise sends nothing, and a recording holds short, exact numbers. Controllers come and go
(``pyglet.input.ControllerManager``, hot-plug): each is given the lowest free slot when it
connects (0 for the first), and when one is unplugged its held buttons are released and
its sticks centred with events, so nothing stays held and a replay sees the same; its
slot then goes to the next pad plugged in. Which player a slot plays is
``engine.input.local.LocalPlayers``'s to say. Only the runner's window uses this (never
headless: ``pyglet.input`` needs a display).
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable
from typing import Any

from engine.input import keys
from engine.input.events import STICKS, InputEvent

__all__ = ["DEAD_ZONE", "PadReader", "quantised"]

DEAD_ZONE = 0.2
"""How far from the centre a stick must move before it counts (worn sticks rest off-centre)."""
_STEPS = 256
_TRIGGER_DOWN = 0.5
BUTTONS = {
    "a": keys.PAD_A, "b": keys.PAD_B, "x": keys.PAD_X, "y": keys.PAD_Y,
    "leftshoulder": keys.PAD_LB, "rightshoulder": keys.PAD_RB, "back": keys.PAD_BACK, "start": keys.PAD_START,
    "guide": keys.PAD_GUIDE, "leftstick": keys.PAD_LSTICK, "rightstick": keys.PAD_RSTICK,
    "dpup": keys.PAD_UP, "dpdown": keys.PAD_DOWN, "dpleft": keys.PAD_LEFT, "dpright": keys.PAD_RIGHT,
}
"""pyglet's button names, and the key each one is."""
_TRIGGERS = {"lefttrigger": keys.PAD_LT, "righttrigger": keys.PAD_RT}
_STICK_NUMBERS = {"leftstick": 0, "rightstick": 1}


def quantised(x: float, y: float) -> tuple[float, float]:
    """A stick's raw position as the game sees it: centred inside the dead zone, in steps of 1/256, within [-1, 1]."""
    if not (math.isfinite(x) and math.isfinite(y)) or math.hypot(x, y) < DEAD_ZONE:
        return 0.0, 0.0
    return (max(-1.0, min(1.0, round(x * _STEPS) / _STEPS)) + 0.0,
            max(-1.0, min(1.0, round(y * _STEPS) / _STEPS)) + 0.0)  # + 0.0: never -0.0


class _Pad:
    """One controller in use: its slot, and what it holds (released, and its sticks centred, when it goes)."""

    def __init__(self, slot: int, controller: Any) -> None:
        self.slot = slot
        self.controller = controller
        self.held: set[int] = set()
        self.sticks = [(0.0, 0.0)] * STICKS
        self.handlers: dict[str, Callable[..., None]] = {}


class PadReader:
    """Reads every connected controller through ``manager`` (a ``pyglet.input.ControllerManager``).

    Every event goes to ``push(slot, event)``, ``slot`` the controller's (the runner sends it
    to the player that slot plays). ``manager`` is given by tests (a fake whose controllers'
    events are dispatched by hand); by default pyglet's is made, and a machine without one
    simply has no pads.
    """

    def __init__(self, push: Callable[[int, InputEvent], None], manager: Any = None) -> None:
        self._push = push
        self._pads: list[_Pad] = []  # in slot order
        self._manager = manager
        self._pyglets = manager is None  # pyglet's own manager is fed by pyglet's event loop; a stand-in by its owner
        if manager is None:
            try:
                import pyglet.input

                self._manager = pyglet.input.ControllerManager()
            except Exception:  # no input devices to read here (no /dev/input, a sandbox): no pads, said nowhere
                self._manager = None
                return
        self._manager.push_handlers(on_connect=self._connect, on_disconnect=self._disconnect)
        for controller in self._manager.get_controllers():
            self._connect(controller)

    @property
    def controllers(self) -> dict[int, Any]:
        """The controllers in use, by slot."""
        return {pad.slot: pad.controller for pad in self._pads}

    def poll(self) -> None:
        """Let pyglet read the controllers' pending events (the runner calls it with the window's)."""
        if self._manager is None or not self._pyglets:
            return
        import pyglet.app

        try:
            pyglet.app.platform_event_loop.step(0)  # controller devices are select()ed there on Linux
            pyglet.app.platform_event_loop.dispatch_posted_events()  # hot-plug connects are posted by a thread
        except Exception as error:
            print(f"tickswap: cannot read game controllers ({type(error).__name__}: {error}); going on without them",
                  file=sys.stderr)
            self.close()

    def close(self) -> None:
        """Let go of every controller (releasing what each held) and stop listening for new ones."""
        for pad in list(self._pads):
            self._disconnect(pad.controller)
        if self._manager is not None:
            self._manager.remove_handlers(on_connect=self._connect, on_disconnect=self._disconnect)
            self._manager = None

    def _pad(self, controller: Any) -> _Pad | None:
        return next((pad for pad in self._pads if pad.controller is controller), None)

    def _connect(self, controller: Any) -> None:
        if self._pad(controller) is not None:
            return
        try:
            controller.open()
        except Exception as error:
            print(f"tickswap: cannot open the game controller {getattr(controller, 'name', '?')!r} "
                  f"({type(error).__name__}: {error})", file=sys.stderr)
            return
        taken = {pad.slot for pad in self._pads}
        pad = _Pad(min(set(range(len(taken) + 1)) - taken), controller)
        # Each handler knows its pad: pyglet passes the controller, but the pad is what holds the state.
        pad.handlers = {
            "on_button_press": lambda _, button: self._button(pad, button, True),
            "on_button_release": lambda _, button: self._button(pad, button, False),
            "on_stick_motion": lambda _, stick, vector: self._stick_motion(pad, stick, vector),
            "on_dpad_motion": lambda _, vector: self._dpad_motion(pad, vector),
            "on_trigger_motion": lambda _, trigger, value: self._trigger_motion(pad, trigger, value)}
        controller.push_handlers(**pad.handlers)
        self._pads.append(pad)
        self._pads.sort(key=lambda each: each.slot)

    def _disconnect(self, controller: Any) -> None:
        pad = self._pad(controller)
        if pad is None:
            return
        # Nothing may stay held by a controller that is gone: the game sees it let go.
        for code in sorted(pad.held):
            self._set(pad, code, False)
        for stick in range(STICKS):
            self._move(pad, stick, 0.0, 0.0)
        controller.remove_handlers(**pad.handlers)
        self._pads.remove(pad)
        with contextlib.suppress(Exception):  # an unplugged device may already be closed
            controller.close()

    def _set(self, pad: _Pad, code: int, down: bool) -> None:
        if down and code not in pad.held:
            pad.held.add(code)
            self._push(pad.slot, InputEvent("key_press", code))
        elif not down and code in pad.held:
            pad.held.discard(code)
            self._push(pad.slot, InputEvent("key_release", code))

    def _move(self, pad: _Pad, stick: int, x: float, y: float) -> None:
        position = quantised(x, y)
        if position != pad.sticks[stick]:
            pad.sticks[stick] = position
            self._push(pad.slot, InputEvent("stick", stick, *position))

    def _button(self, pad: _Pad, button: str, down: bool) -> None:
        if button in BUTTONS:
            self._set(pad, BUTTONS[button], down)

    def _dpad_motion(self, pad: _Pad, vector: Any) -> None:
        self._set(pad, keys.PAD_LEFT, vector.x < -0.5)
        self._set(pad, keys.PAD_RIGHT, vector.x > 0.5)
        self._set(pad, keys.PAD_DOWN, vector.y < -0.5)
        self._set(pad, keys.PAD_UP, vector.y > 0.5)

    def _trigger_motion(self, pad: _Pad, trigger: str, value: float) -> None:
        if trigger in _TRIGGERS:
            self._set(pad, _TRIGGERS[trigger], value > _TRIGGER_DOWN)

    def _stick_motion(self, pad: _Pad, stick: str, vector: Any) -> None:
        if stick in _STICK_NUMBERS:
            self._move(pad, _STICK_NUMBERS[stick], float(vector.x), float(vector.y))
