"""PadReader: the first connected game controller, as input events queued like keys.

Buttons become ``key_press``/``key_release`` events with the ``keys.PAD_*`` codes (the
d-pad is ``PAD_UP`` ...; a trigger is the button ``PAD_LT``/``PAD_RT``, down past
half-way), and sticks ``"stick"`` events (0 the left, 1 the right, y up). A stick in
its dead zone reads as centred, and positions are quantised to 1/256: a resting stick's
noise sends nothing, and a recording holds short, exact numbers. Controllers come and go
(``pyglet.input.ControllerManager``, hot-plug): when the one in use is unplugged, its
held buttons are released and its sticks centred with events, so nothing stays held
and a replay sees the same. Only the runner's window uses this (never headless:
``pyglet.input`` needs a display).
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


class PadReader:
    """Reads the first connected controller through ``manager`` (a ``pyglet.input.ControllerManager``).

    Every event goes to ``push`` (the runner queues it for the next tick). ``manager`` is
    given by tests (a fake whose controllers' events are dispatched by hand); by default
    pyglet's is made, and a machine without one simply has no pads.
    """

    def __init__(self, push: Callable[[InputEvent], None], manager: Any = None) -> None:
        self._push = push
        self.controller: Any = None
        """The controller in use (None when none is connected)."""
        self._held: set[int] = set()
        self._sticks = [(0.0, 0.0)] * STICKS
        self._manager = manager
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

    def poll(self) -> None:
        """Let pyglet read the controllers' pending events (the runner calls it with the window's)."""
        if self._manager is None:
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
        """Let go of the controller (releasing what it held) and stop listening for new ones."""
        if self.controller is not None:
            self._disconnect(self.controller)
        if self._manager is not None:
            self._manager.remove_handlers(on_connect=self._connect, on_disconnect=self._disconnect)
            self._manager = None

    def _connect(self, controller: Any) -> None:
        if self.controller is not None:
            return  # one controller: the first connected one
        try:
            controller.open()
        except Exception as error:
            print(f"tickswap: cannot open the game controller {getattr(controller, 'name', '?')!r} "
                  f"({type(error).__name__}: {error})", file=sys.stderr)
            return
        controller.push_handlers(on_button_press=self._button_press, on_button_release=self._button_release,
                                 on_stick_motion=self._stick_motion, on_dpad_motion=self._dpad_motion,
                                 on_trigger_motion=self._trigger_motion)
        self.controller = controller

    def _disconnect(self, controller: Any) -> None:
        if controller is not self.controller:
            return
        # Nothing may stay held by a controller that is gone: the game sees it let go.
        for code in sorted(self._held):
            self._set(code, False)
        for stick in range(STICKS):
            self._move(stick, 0.0, 0.0)
        controller.remove_handlers(on_button_press=self._button_press, on_button_release=self._button_release,
                                   on_stick_motion=self._stick_motion, on_dpad_motion=self._dpad_motion,
                                   on_trigger_motion=self._trigger_motion)
        self.controller = None
        with contextlib.suppress(Exception):  # an unplugged device may already be closed
            controller.close()
        for other in self._manager.get_controllers() if self._manager is not None else ():
            if other is not controller:
                self._connect(other)
                break

    def _set(self, code: int, down: bool) -> None:
        if down and code not in self._held:
            self._held.add(code)
            self._push(InputEvent("key_press", code))
        elif not down and code in self._held:
            self._held.discard(code)
            self._push(InputEvent("key_release", code))

    def _move(self, stick: int, x: float, y: float) -> None:
        position = quantised(x, y)
        if position != self._sticks[stick]:
            self._sticks[stick] = position
            self._push(InputEvent("stick", stick, *position))

    def _button_press(self, controller: Any, button: str) -> None:
        if button in BUTTONS:
            self._set(BUTTONS[button], True)

    def _button_release(self, controller: Any, button: str) -> None:
        if button in BUTTONS:
            self._set(BUTTONS[button], False)

    def _dpad_motion(self, controller: Any, vector: Any) -> None:
        self._set(keys.PAD_LEFT, vector.x < -0.5)
        self._set(keys.PAD_RIGHT, vector.x > 0.5)
        self._set(keys.PAD_DOWN, vector.y < -0.5)
        self._set(keys.PAD_UP, vector.y > 0.5)

    def _trigger_motion(self, controller: Any, trigger: str, value: float) -> None:
        if trigger in _TRIGGERS:
            self._set(_TRIGGERS[trigger], value > _TRIGGER_DOWN)

    def _stick_motion(self, controller: Any, stick: str, vector: Any) -> None:
        if stick in _STICK_NUMBERS:
            self._move(_STICK_NUMBERS[stick], float(vector.x), float(vector.y))
