"""Input events as files hold them: replays' input lines, ``--input`` scripts, a save's input queue.

One set of checks for all of them, so that an event the recorder writes is one the
reader takes, and a script written by hand is held to the same rules (plus key names:
``"LEFT"`` for ``keys.LEFT``). A problem raises ``FieldError`` naming the event and field.
"""

from __future__ import annotations

from typing import Any

from engine.input import keys
from engine.input.events import STICKS, InputEvent, not_a_key
from engine.messages import shown
from engine.schema import FieldError, expect_number, expect_str, expect_whole

__all__ = ["MAX_EVENTS_PER_TICK", "check_events", "check_key", "check_saved_sticks", "listed", "named_keys"]

MAX_EVENTS_PER_TICK = 10_000
"""The most input events one tick may have in a file."""
_KEY_TEXT = 64


def listed(value: Any) -> Any:
    """Tuples as lists (nested too): an event or a key as its JSON line reads back."""
    if isinstance(value, (tuple, list)):
        return [listed(item) for item in value]
    return value


def check_events(value: Any, where: str) -> list[InputEvent]:
    """One tick's input events as a file holds them, checked field by field (replays, scripts, saves, the recorder)."""
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_EVENTS_PER_TICK:
        raise FieldError(f"{where} must be a list of 1 to {MAX_EVENTS_PER_TICK} events")
    events = []
    for index, item in enumerate(value):
        at = f"{where}[{index}]"
        if not isinstance(item, list) or len(item) not in (4, 7):
            raise FieldError(f"{at} must be [type, key, x, y] or [type, key, x, y, modifiers, scroll_x, scroll_y]")
        kind, key, x, y = item[:4]
        expect_str(kind, f"{at} type", 20)
        if kind == "stick" and type(key) is not int:
            # A stick's key is its number: 0.0 or "0" is a stick number written wrong, not a key to describe.
            raise FieldError(f"{at}: a stick event's key is the stick, 0 (left) or 1 (right), got {shown(key)}")
        check_key(key, f"{at} key")
        expect_number(x, f"{at} x", -1e9, 1e9)
        expect_number(y, f"{at} y", -1e9, 1e9)
        if len(item) == 7:
            expect_whole(item[4], f"{at} modifiers", 0, 2**31 - 1)
            expect_number(item[5], f"{at} scroll_x", -1e9, 1e9)
            expect_number(item[6], f"{at} scroll_y", -1e9, 1e9)
        try:
            events.append(InputEvent.from_json(item))
        except (TypeError, ValueError) as error:
            raise FieldError(f"{at}: {error}") from None
    return events


def check_saved_sticks(value: Any, where: str) -> None:
    """The sticks' positions as a save holds them: one ``[x, y]`` per stick, each from -1.0 to 1.0."""
    if not (isinstance(value, list) and len(value) == STICKS
            and all(isinstance(stick, list) and len(stick) == 2 for stick in value)):
        raise FieldError(f"{where} must be {STICKS} [x, y] pairs, got {shown(value)}")
    for stick in value:
        for number in stick:
            expect_number(number, where, -1.0, 1.0)


def check_key(key: Any, where: str, nested: bool = False) -> None:
    """A key as a file holds it: a code, a short string, null, or a short list of them."""
    if key is None or isinstance(key, bool):
        return
    if isinstance(key, int):
        expect_whole(key, where, 0, 2**63 - 1)
    elif isinstance(key, str):
        expect_str(key, where, _KEY_TEXT)
    elif isinstance(key, list) and not nested and len(key) <= 8:
        for part in key:
            check_key(part, where, nested=True)
    else:
        raise FieldError(f"{where} must be a key code, a short string or a short list of them")


def named_keys(value: Any, where: str) -> Any:
    """An input line's events with key names (``"LEFT"``) turned into codes; an unknown name is refused."""
    if not isinstance(value, list):
        return value
    named = []
    for index, item in enumerate(value):
        stick = isinstance(item, list) and len(item) >= 2 and item[0] == "stick"  # check_events names a bad stick
        if isinstance(item, list) and len(item) >= 2 and not stick and (
                type(item[1]) is bool or isinstance(item[1], list) or (
                item[1] is None and item[0] in ("key_press", "key_release", "mouse_press", "mouse_release"))):
            # Written by hand, true, null or ["LEFT"] is a mistake, not a key: a recorded key is a code or a name.
            raise FieldError(f"{where}[{index}]: {not_a_key(item[0], item[1])}")
        if isinstance(item, list) and len(item) >= 2 and isinstance(item[1], str) and item[0] in ("key_press",
                                                                                                  "key_release"):
            code = keys.code(item[1])
            if code is None:
                raise FieldError(f"{where}[{index}]: {not_a_key(item[0], item[1])}")
            item = [item[0], code, *item[2:]]
        named.append(item)
    return named


