"""How a message shows a user's value: bounded and on one line, whatever the value is.

Every refusal names the value it refuses, and a value can be anything: a 5 MB string, a
file name with a newline in it, an object whose ``repr`` fails. ``shown`` and
``shown_name`` are the one way messages quote such values, so the one-line rule holds
everywhere (``engine.tools.errors.say`` escapes and bounds the whole line as a last guard).
"""

from __future__ import annotations

import os

__all__ = ["LONGEST_LINE", "SHOWN", "capped", "one_line", "shown", "shown_name"]

SHOWN = 80
"""The most characters of a user's value a message shows."""
LONGEST_LINE = 2000
"""The longest line any message may be, whatever it quotes."""


def capped(text: str, limit: int = SHOWN) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when it was longer."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def shown(value: object, limit: int = SHOWN) -> str:
    """``repr(value)``, cut to ``limit`` characters with an ellipsis: a 5 MB value is not a 5 MB message."""
    if isinstance(value, str):
        text = repr(value[:limit + 2])
    else:
        try:
            text = repr(value)
        except Exception as error:  # a game's object whose __repr__ fails
            text = f"<{type(value).__name__} object ({type(error).__name__} in its repr)>"
    return capped(text, limit)


def shown_name(name: object, limit: int = 200) -> str:
    """A file name as typed when it is plain, else escaped as ``repr`` does: a newline can't split a message."""
    text = os.fspath(name) if isinstance(name, (str, os.PathLike)) else str(name)
    if not isinstance(text, str):
        text = os.fsdecode(text)
    return capped(text if text.isprintable() else repr(text), limit)


def one_line(message: str) -> str:
    """``message`` with line breaks and other controls escaped, and at most ``LONGEST_LINE`` characters."""
    if not message.isprintable():
        message = "".join(char if char.isprintable() else repr(char)[1:-1] for char in message)
    return capped(message, LONGEST_LINE)


