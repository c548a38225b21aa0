"""How a message shows a user's value: bounded and on one line, whatever the value is.

Every refusal names the value it refuses, and a value can be anything: a 5 MB string, a
file name with a newline in it, an object whose ``repr`` fails. ``shown`` and
``shown_name`` are the one way messages quote such values, so the one-line rule holds
everywhere (``engine.tools.errors.say`` escapes and bounds the whole line as a last guard).
"""

from __future__ import annotations

import os
import reprlib

__all__ = ["KEPT_END", "LONGEST_LINE", "SHOWN", "capped", "one_line", "shown", "shown_name"]

_brief = reprlib.Repr()
_brief.maxlevel, _brief.maxlist, _brief.maxdict, _brief.maxtuple = 3, 6, 4, 6

SHOWN = 80
"""The most characters of a user's value a message shows."""
LONGEST_LINE = 2000
"""The longest line any message may be, whatever it quotes."""


def capped(text: str, limit: int = SHOWN) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when it was longer."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def shown(value: object, limit: int = SHOWN) -> str:
    """``repr(value)``, cut to ``limit`` characters with an ellipsis: a 5 MB value is not a 5 MB message.

    A container shows its first few items (``reprlib``: its whole repr could be megabytes,
    built only to be cut), and an integer too long to be worth reading its number of digits.
    """
    if isinstance(value, (dict, list, tuple, set, frozenset)):
        try:
            return capped(_brief.repr(value), limit)
        except Exception as error:  # an item's __repr__ failed, or an item is an unprintable int
            return f"a {type(value).__name__} ({type(error).__name__} in its repr)"
    if type(value) is int and value.bit_length() > 3 * limit:
        # str() of a huge int is slow (and refused past 4,300 digits): its size says enough.
        if value.bit_length() >= 14000:
            return "an integer of over 4,000 digits"
        return f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, str):
        text = repr(value[:limit + 2])
    else:
        try:
            text = repr(value)
        except Exception as error:  # a game's object whose __repr__ fails
            text = f"<{type(value).__name__} object ({type(error).__name__} in its repr)>"
    return capped(text, limit)


def shown_name(name: object, limit: int = SHOWN) -> str:
    """A file name as typed when it is plain, else escaped as ``repr`` does: a newline can't split a message.

    A name longer than ``limit`` loses its middle, since the start (the directory) and the
    end (the file) are what identify it.
    """
    try:
        text = os.fsdecode(name)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        text = shown(name)
    if not text.isprintable():
        text = text.encode("unicode_escape", "backslashreplace").decode("ascii")
    if len(text) > limit:
        half = (limit - 1) // 2
        text = text[:half] + "…" + text[-half:]
    return text


KEPT_END = 400
"""How much of an overlong line's end ``one_line`` keeps: where a message says where (``(at g.py:5 in update)``)."""


def one_line(message: str) -> str:
    """``message`` with line breaks and other controls escaped, and at most ``LONGEST_LINE`` characters.

    An overlong message loses its middle, not its end: a report ends with the place it
    happened (``(at g.py:5 in update)``), which must survive whatever the game's message held.
    """
    if len(message) > 4 * LONGEST_LINE:  # escaping 5 MB to keep 2,000 characters of it: cut first
        message = message[:2 * LONGEST_LINE] + "…" + message[-2 * KEPT_END:]
    if not message.isprintable():
        message = "".join(char if char.isprintable() else repr(char)[1:-1] for char in message)
    if len(message) <= LONGEST_LINE:
        return message
    return message[:LONGEST_LINE - KEPT_END - 1] + "…" + message[-KEPT_END:]


