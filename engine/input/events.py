"""Per-tick input: events are queued as they arrive and handed to ticks, not frames.

A frame may run no tick, one, or several. If input were sampled per frame, a key
pressed during a frame with no tick would be lost, and one pressed during a frame with
three ticks would be seen three times. Instead every event goes into an ``InputQueue``
as it arrives (from the window, a test, or a replay), and each tick takes everything
queued since the previous tick as one ``TickInput``: the first tick of a frame gets
the events, later ticks of the same frame get none, and nothing is lost. Key and button
codes are plain values (pyglet's integer key codes, or strings in tests), so this
module needs no window. A game controller's buttons are keys (``keys.PAD_A`` ...) and its
sticks ``"stick"`` events, whose position carries over from tick to tick like held keys.
Typed text arrives as ``"text"`` events (the characters, as pyglet's ``on_text`` gives them)
and editing keys as ``"text_motion"`` events (``keys.MOTION_BACKSPACE`` ..., as
``on_text_motion`` gives them, key repeat included): a text field reads those, not key presses.

A network session says when a player drops out and comes back with two events of its
own, ``"disconnect"`` and ``"connect"``, agreed by every peer at one tick (the host puts
them in the dropped player's input): from a ``"disconnect"`` on, ``TickInput.connected`` is
false, no key is held and the sticks are centred, until a ``"connect"``. A script for
``tickswap run`` may hold them too, to play a session's drop offline.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from engine.input import keys
from engine.messages import shown

__all__ = ["MAX_TEXT", "InputEvent", "InputQueue", "TickInput", "not_a_key"]

EventType = Literal["key_press", "key_release", "mouse_press", "mouse_release", "mouse_motion", "mouse_drag",
                    "mouse_scroll", "stick", "text", "text_motion", "connect", "disconnect"]
_TYPES = frozenset(("key_press", "key_release", "mouse_press", "mouse_release", "mouse_motion", "mouse_drag",
                    "mouse_scroll", "stick", "text", "text_motion", "connect", "disconnect"))
MAX_TEXT = 64
"""The most characters one ``"text"`` event holds (the window splits longer text into several)."""
PRESENCE = frozenset(("connect", "disconnect"))
"""The events that say a player dropped out of a session or came back (no key, no position)."""
STICKS = 2
"""A controller's sticks: 0 the left, 1 the right."""
Sticks = tuple[tuple[float, float], ...]
_CENTRED: Sticks = ((0.0, 0.0),) * STICKS
_MOUSE_AT = frozenset(("mouse_press", "mouse_release", "mouse_motion", "mouse_drag", "mouse_scroll"))


@dataclass(frozen=True, slots=True)
class InputEvent:
    """One input event: ``type``, and ``key`` (keys and mouse buttons) or ``x``/``y`` (mouse).

    ``modifiers`` holds the modifier bits held at the event (``keys.MOD_SHIFT`` ...);
    a ``"mouse_scroll"`` carries how far the wheel turned in ``scroll_x``/``scroll_y``;
    a ``"mouse_drag"`` is a move with buttons held (``key``: the buttons' bits); a
    ``"stick"`` is a controller stick moved (``key``: the stick, 0 left or 1 right; ``x``,
    ``y`` from -1.0 to 1.0, y up); a ``"text"`` event is text typed (``key``: the characters,
    1 to ``MAX_TEXT`` printable ones); a ``"text_motion"`` an editing key (``key``: a
    ``keys.MOTION_*`` code, ``keys.MOTION_BACKSPACE`` ...); a ``"disconnect"`` or ``"connect"``
    says the player dropped out of a network session or came back (no key, no position).
    Mouse buttons are ``keys.MOUSE_LEFT``...
    """

    type: EventType
    key: Hashable = None
    x: float = 0.0
    y: float = 0.0
    modifiers: int = 0
    scroll_x: float = 0.0
    scroll_y: float = 0.0

    def __post_init__(self) -> None:
        if self.type not in _TYPES:
            raise ValueError(f"InputEvent type must be one of {sorted(_TYPES)}, got {self.type!r}")
        if isinstance(self.key, bool):  # True == 1: it would silently be mouse button 1
            raise TypeError(f"InputEvent key must be a key code, a string or a tuple, not a bool ({self.key!r})")
        try:
            hash(self.key)
        except TypeError:
            # Keys are looked up in sets every tick: refuse one that can't be, here, by name.
            raise TypeError(f"InputEvent key must be hashable (an int, a string, a tuple), got {self.key!r}") from None
        if self.type == "stick":
            _check_stick(self.key, self.x, self.y)
        elif self.type in ("text", "text_motion"):
            problem = _text_problem(self.type, self.key)
            if problem:
                raise ValueError(problem)
        elif self.type in PRESENCE and (self.key is not None or self.x or self.y or self.modifiers or self.scroll_x
                                        or self.scroll_y):
            raise ValueError(f"a {self.type!r} event carries nothing but its type, got {self!r}")

    def to_json(self) -> list[Any]:
        """A compact JSON form, for replays and saves: ``[type, key, x, y]``, then ``modifiers, scroll_x,
        scroll_y`` if any is set.

        Only what ``from_json`` gives back unchanged is written: a key that is not a key
        code (``"a"`` pushed by a test, a tuple) is refused here, by name, rather than
        read back as something else.
        """
        if self.modifiers or self.scroll_x or self.scroll_y:
            data = [self.type, self.key, self.x, self.y, self.modifiers, self.scroll_x, self.scroll_y]
        else:
            data = [self.type, self.key, self.x, self.y]
        if InputEvent.from_json(data) != self:
            raise ValueError(f"the input event {shown(self)} can't be written to a file as it is: a file holds key "
                             "codes (engine.keys.A, not 'a') and plain numbers")
        return data

    @classmethod
    def from_json(cls, data: Any) -> InputEvent:
        """Rebuild an event from ``to_json()`` output; a malformed value raises ``ValueError``, by name.

        Types are strict, as everywhere a file says a number: a key is a key code (an int,
        never ``true``), or a key's name as in ``engine.keys`` (``"RIGHT"``, ``"PAD_A"``), which
        becomes its code; a mouse button is one of ``keys.MOUSE_LEFT`` ... (a code, or its name,
        ``"MOUSE_LEFT"``), a drag's key the bits of the buttons held; motion and scroll events
        carry no key (``null``); positions are finite numbers, never ``"12"``; a stick event is
        ``["stick", 0 or 1, x, y]`` with x and y from -1.0 to 1.0; a text event's key is the
        text typed (``["text", "é", 0, 0]``), a text motion's a ``keys.MOTION_*`` code or name.
        """
        if not isinstance(data, list) or len(data) not in (4, 7):
            raise ValueError(f"an input event is [type, key, x, y] or [type, key, x, y, modifiers, scroll_x, "
                             f"scroll_y], got {shown(data)}")
        kind, key, x, y = data[:4]
        modifiers, scroll_x, scroll_y = data[4:] if len(data) == 7 else (0, 0.0, 0.0)
        if not isinstance(kind, str) or kind not in _TYPES:
            raise ValueError(f"InputEvent type must be one of {sorted(_TYPES)}, got {shown(kind)}")
        if type(modifiers) is not int or not 0 <= modifiers < 2**31:
            raise ValueError(f"an input event's modifiers are a whole number of bits, got {shown(modifiers)}")
        return cls(kind, _json_key(kind, key), _coordinate(x, "x"), _coordinate(y, "y"), modifiers,  # type: ignore[arg-type]
                   _coordinate(scroll_x, "scroll_x"), _coordinate(scroll_y, "scroll_y"))


def _coordinate(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not -1e9 <= value <= 1e9:
        raise ValueError(f"an input event's {name} is a finite number, got {shown(value)}")
    return float(value)


def _check_stick(stick: Any, x: Any, y: Any) -> None:
    """A stick event's fields: the stick 0 or 1, each axis a number from -1.0 to 1.0 (refused by name)."""
    if type(stick) is not int or not 0 <= stick < STICKS:
        raise ValueError(f"a stick event's key is the stick, 0 (left) or 1 (right), got {shown(stick)}")
    for name, value in (("x", x), ("y", y)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not -1.0 <= value <= 1.0:
            raise ValueError(f"a stick event's {name} goes from -1.0 to 1.0, got {shown(value)}")


def not_a_key(kind: str, key: Any) -> str:
    """Why ``key`` is no key of a ``kind`` event: the one wording, for replays and input scripts alike."""
    if kind == "mouse_drag":
        return f"a mouse_drag event's key is the bits of the mouse buttons held (1 to 31), got {shown(key)}"
    if kind.startswith("mouse"):
        return (f"a {kind} event's key is a mouse button, a code (1, 2, 4, 8, 16) or a name from engine.keys "
                f"(\"MOUSE_LEFT\", \"MOUSE_RIGHT\", \"MOUSE_MIDDLE\", \"MOUSE4\", \"MOUSE5\"), got {shown(key)}")
    if kind in ("text", "text_motion"):
        return _text_problem(kind, key) or f"{shown(key)} is no {kind} event's key"
    return f"{shown(key)} is not a key: use a name from engine.keys (\"LEFT\", \"SPACE\", \"A\") or a key code"


def _text_problem(kind: str, key: Any) -> str:
    """Why ``key`` can't be a ``"text"`` or ``"text_motion"`` event's key ("" when it can)."""
    if kind == "text":
        if not isinstance(key, str) or not 1 <= len(key) <= MAX_TEXT or not key.isprintable():
            return (f"a text event's key is the text typed, 1 to {MAX_TEXT} printable characters (no control "
                    f"characters: Enter is a key_press, Backspace a text_motion), got {shown(key)}")
        return ""
    if type(key) is not int or key not in keys.MOTIONS:
        return (f"a text_motion event's key is a text motion, a code or a name from engine.keys "
                f"(\"MOTION_BACKSPACE\", \"MOTION_LEFT\", \"MOTION_DELETE\" ...), got {shown(key)}")
    return ""


def _json_key(kind: str, key: Any) -> Any:
    """The key of a ``kind`` event read from a file: a code for keys and buttons, ``None`` for motion and scroll."""
    if kind == "stick":
        _check_stick(key, 0.0, 0.0)
        return key
    if kind in ("mouse_motion", "mouse_scroll") or kind in PRESENCE:
        if key is not None:
            raise ValueError(f"a {kind} event has no key (null), got {shown(key)}")
        return None
    if kind == "text":
        if _text_problem(kind, key):
            raise ValueError(_text_problem(kind, key))
        return key
    if isinstance(key, str) and kind in ("key_press", "key_release", "mouse_press", "mouse_release", "mouse_drag",
                                         "text_motion"):
        code = (keys.code(key) if kind.startswith("key") else keys.motion(key) if kind == "text_motion"
                else keys.button(key))
        if code is None:
            raise ValueError(not_a_key(kind, key))
        return code
    if type(key) is not int:
        raise ValueError(not_a_key(kind, key))
    if kind == "text_motion" and key not in keys.MOTIONS:
        raise ValueError(not_a_key(kind, key))
    if kind in ("mouse_press", "mouse_release") and key not in keys.BUTTONS:
        raise ValueError(not_a_key(kind, key))
    if kind == "mouse_drag" and not 1 <= key <= 31:
        raise ValueError(not_a_key(kind, key))
    if not 0 <= key < 2**63:  # pyglet's key codes and mouse buttons are never negative
        what = "a key code or a key's name" if kind.startswith("key") else "a mouse button number"
        raise ValueError(f"a {kind} event's key is {what}, got {shown(key)}")
    return key


class TickInput:
    """What one tick sees of the input: held keys, edges, and the raw events in order.

    ``pressed(key)`` is whether the key is held at the end of the events this tick
    received; ``just_pressed`` / ``just_released`` whether it went down / up during
    them. A press and release inside one frame are both seen: ``just_pressed`` and
    ``just_released`` are then both true, ``pressed`` false. Mouse buttons count as keys
    (``pressed(1)`` while the left button is held, drags included). ``mouse_x``/``mouse_y``
    is where the mouse was at the latest mouse event; ``scroll_x``/``scroll_y`` add up
    the wheel's turns during this tick; ``modifiers`` are the modifier bits
    (``keys.MOD_SHIFT`` ...) held at this tick's latest key or mouse event (0 if none).
    ``stick(n)`` is where a controller's stick is, as of this tick's latest stick event.
    ``text`` is the text typed during this tick (every ``"text"`` event's, in order); editing
    keys are the ``"text_motion"`` events in ``events`` (a text field walks ``events`` in order,
    so that a Backspace between two letters deletes the right one). ``connected`` is false for
    a player who dropped out of a network session (see the module docstring): such a player's
    input is empty, nothing held, the sticks centred.
    """

    __slots__ = ("_down", "_held", "_start", "_sticks", "_up", "connected", "events", "modifiers", "mouse_x",
                 "mouse_y", "scroll_x", "scroll_y", "text")

    def __init__(self, events: Iterable[InputEvent] = (), held: frozenset[Hashable] = frozenset(),
                 mouse: tuple[float, float] = (0.0, 0.0), sticks: Sticks = _CENTRED, connected: bool = True) -> None:
        self.events: tuple[InputEvent, ...] = tuple(events)
        """Every event handed to this tick, in arrival order."""
        self._start = (held, mouse, sticks, connected)
        self.connected = connected
        """Whether the player is in the game: false from a ``"disconnect"`` (a player dropped from a network
        session, at the tick every peer agreed) until a ``"connect"`` (the player rejoined)."""
        sticks_now: list[tuple[float, float]] = list(sticks)
        held_now = set(held)
        down: set[Hashable] = set()
        up: set[Hashable] = set()
        self.mouse_x, self.mouse_y = mouse
        self.scroll_x = self.scroll_y = 0.0
        self.modifiers = 0
        typed: list[str] = []
        for event in self.events:
            if event.type in ("key_press", "mouse_press"):
                held_now.add(event.key)
                down.add(event.key)
            elif event.type in ("key_release", "mouse_release"):
                held_now.discard(event.key)
                up.add(event.key)
            elif event.type == "mouse_scroll":
                self.scroll_x += event.scroll_x
                self.scroll_y += event.scroll_y
            elif event.type == "stick":
                sticks_now[event.key] = (event.x, event.y)  # type: ignore[call-overload]
                continue  # a controller has no modifier keys: a stick leaves the keyboard's alone
            elif event.type in ("text", "text_motion"):
                if event.type == "text":
                    typed.append(event.key)  # type: ignore[arg-type]
                continue  # what a key press made: the press itself carried the modifiers
            elif event.type in PRESENCE:
                # A player gone lets go of everything (the game sees the keys released); one back starts empty.
                self.connected = event.type == "connect"
                if not self.connected:
                    up |= held_now
                    down -= held_now
                    held_now.clear()
                    sticks_now = list(_CENTRED)
                continue
            if event.type in _MOUSE_AT:
                self.mouse_x, self.mouse_y = event.x, event.y
            if event.type != "mouse_motion":
                self.modifiers = event.modifiers
        self.text = "".join(typed)
        self._sticks: Sticks = tuple(sticks_now)
        self._held = frozenset(held_now)
        self._down = frozenset(down)
        self._up = frozenset(up)

    def pressed(self, key: Hashable) -> bool:
        """Whether ``key`` is held down (after this tick's events)."""
        return key in self._held

    def just_pressed(self, key: Hashable) -> bool:
        """Whether ``key`` went down during this tick's events."""
        return key in self._down

    def just_released(self, key: Hashable) -> bool:
        """Whether ``key`` went up during this tick's events."""
        return key in self._up

    def stick(self, n: int) -> tuple[float, float]:
        """Where stick ``n`` (0 the left, 1 the right) is: ``(x, y)``, each from -1.0 to 1.0, y up.

        ``(0.0, 0.0)`` when centred (a controller's dead zone reads as centred) or when no
        controller is connected; the position holds from tick to tick until the stick moves.
        """
        if type(n) is not int or not 0 <= n < STICKS:
            raise ValueError(f"world.input.stick(n) takes 0 (the left stick) or 1 (the right), got {shown(n)}")
        return self._sticks[n]

    @property
    def sticks(self) -> Sticks:
        """Every stick's ``(x, y)``, after this tick's events (a save and the next tick start from it)."""
        return self._sticks

    @property
    def held(self) -> frozenset[Hashable]:
        """Every key held down after this tick's events."""
        return self._held

    def __repr__(self) -> str:
        gone = "" if self.connected else ", connected=False"
        return f"TickInput(events={len(self.events)}, held={sorted(map(repr, self._held))}{gone})"


class InputQueue:
    """Events waiting for the next tick; ``take()`` hands them over as a ``TickInput``."""

    def __init__(self) -> None:
        self._events: list[InputEvent] = []
        self._held: frozenset[Hashable] = frozenset()
        self._mouse = (0.0, 0.0)
        self._sticks = _CENTRED
        self._connected = True

    def push(self, event: InputEvent) -> None:
        """Queue one event for the next tick."""
        if not isinstance(event, InputEvent):
            raise TypeError(f"InputQueue.push takes an InputEvent, got {event!r}")
        self._events.append(event)

    def press(self, key: Hashable) -> None:
        """Queue a key press."""
        self._events.append(InputEvent("key_press", key))

    def release(self, key: Hashable) -> None:
        """Queue a key release."""
        self._events.append(InputEvent("key_release", key))

    def mouse_press(self, x: float, y: float, button: Hashable = 1) -> None:
        """Queue a mouse button press at ``(x, y)``."""
        self._events.append(InputEvent("mouse_press", button, x, y))

    def mouse_release(self, x: float, y: float, button: Hashable = 1) -> None:
        """Queue a mouse button release at ``(x, y)``."""
        self._events.append(InputEvent("mouse_release", button, x, y))

    def mouse_motion(self, x: float, y: float) -> None:
        """Queue a mouse move to ``(x, y)``."""
        self._events.append(InputEvent("mouse_motion", None, x, y))

    def stick(self, n: int, x: float, y: float) -> None:
        """Queue a move of controller stick ``n`` (0 left, 1 right) to ``(x, y)``, each from -1.0 to 1.0, y up."""
        self._events.append(InputEvent("stick", n, x, y))

    def type_text(self, text: str) -> None:
        """Queue ``text`` as typed (``"text"`` events of at most ``MAX_TEXT`` characters each), as a window would."""
        if not isinstance(text, str):
            raise TypeError(f"InputQueue.type_text takes a string, got {shown(text)}")
        self._events.extend(InputEvent("text", text[start:start + MAX_TEXT]) for start in range(0, len(text), MAX_TEXT))

    def text_motion(self, motion: int) -> None:
        """Queue an editing key (``keys.MOTION_BACKSPACE`` ...), as a window's ``on_text_motion`` would."""
        self._events.append(InputEvent("text_motion", motion))

    def __len__(self) -> int:
        return len(self._events)

    def take(self) -> TickInput:
        """Hand every queued event to one tick, in order, and empty the queue."""
        events, self._events = self._events, []
        tick_input = TickInput(events, self._held, self._mouse, self._sticks, self._connected)
        self._held = tick_input.held
        self._mouse = (tick_input.mouse_x, tick_input.mouse_y)
        self._sticks = tick_input.sticks
        self._connected = tick_input.connected
        return tick_input

    def state(self) -> tuple[list[InputEvent], frozenset[Hashable], tuple[float, float], Sticks]:
        """What the queue holds: waiting events, keys held, the mouse and the sticks' positions (for saves).

        Whether the player is connected is ``connected`` (a save writes it only when false).
        """
        return list(self._events), self._held, self._mouse, self._sticks

    @property
    def connected(self) -> bool:
        """Whether the player was connected after the last tick taken (``TickInput.connected``)."""
        return self._connected

    def set_state(self, events: list[InputEvent], held: frozenset[Hashable], mouse: tuple[float, float],
                  sticks: Sticks = _CENTRED, connected: bool = True) -> None:
        """Replace what the queue holds (a loaded save, a checkpoint)."""
        self._events = list(events)
        self._held = frozenset(held)
        self._mouse = mouse
        self._sticks = tuple(sticks)
        self._connected = connected

    def restore(self, tick_input: TickInput) -> None:
        """Put an abandoned tick's events back at the front of the queue, as if never taken."""
        self._events[:0] = tick_input.events
        self._held, self._mouse, self._sticks, self._connected = tick_input._start
