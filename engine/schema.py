"""A small typed decoder for files from elsewhere: bounded JSON, then field by field checks.

Saves and replays come from other people. Before anything is built from one, every
value is checked against what the format allows: its JSON type (``"1"`` is not a tick,
``1.5`` is not a tick, ``true`` is not a number), its range, its length, and how deeply
it nests. JSON itself is parsed with bounds: ``NaN``, ``Infinity`` and ``1e400`` are
refused, an integer literal longer than ``MAX_INT_DIGITS`` is refused before Python
tries to convert it, and nesting deeper than ``MAX_DEPTH`` is refused instead of
overflowing the interpreter's stack. A problem raises ``FieldError`` naming the field;
the save and replay readers prefix the file and line.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

from engine.messages import shown

__all__ = [
    "ENGINE_VERSION",
    "MAX_DEPTH",
    "FieldError",
    "check_depth",
    "expect_keys",
    "expect_number",
    "expect_str",
    "expect_whole",
    "is_whole",
    "parse_json",
    "version_matches",
]

MAX_DEPTH = 32
"""The deepest nesting of lists and objects a file may have."""
MAX_INT_DIGITS = 40
"""The longest integer literal accepted (2**128 has 39 digits)."""
HEX_DIGEST = re.compile(r"[0-9a-f]{64}")
"""A SHA-256 digest as hex: how a file names the game file it was made with."""
ENGINE_VERSION = re.compile(r"\d{1,6}(\.\d{1,6}){1,3}([.+-][A-Za-z0-9.+-]{1,40})?")
"""How a save or a replay may write the tickswap version that wrote it (checked before it is compared)."""


class FieldError(ValueError):
    """One field of a file is missing, of the wrong type or out of range."""


class _Constant(FieldError):
    """``NaN``, ``Infinity`` or ``-Infinity`` in a file: said with where it is, once the rest is parsed."""


def _refuse_constant(name: str) -> Any:
    raise _Constant(f"{name} is not a number a file may hold")


class _Marker:
    """What a constant parses to when ``parse_json`` looks for where it was (never returned to a caller)."""


def _path_of_marker(value: Any) -> str | None:
    """The first place (``entities[0].buffered.hp``) that holds a ``_Marker``, walked without recursion."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, _Marker):
            return path.lstrip(".") or "the value"
        children = (list(item.items()) if isinstance(item, dict) else
                    [(f"[{index}]", child) for index, child in enumerate(item)] if isinstance(item, list) else [])
        for key, child in reversed(children):
            stack.append((child, path + (key if key.startswith("[") and isinstance(item, list) else f".{key}")))
    return None


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise FieldError(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise FieldError(f"{text[:30]} is out of range for a number")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # JSON allows a key twice and json.loads keeps the last: a hand-edited file that says
    # "tick" twice is a mistake to name, not a value to pick.
    record: dict[str, Any] = {}
    for key, value in pairs:
        if key in record:
            raise FieldError(f"the key {shown(key)} appears twice in one object")
        record[key] = value
    return record


def parse_json(text: str) -> Any:
    """Parse JSON with bounds (see the module docstring); problems raise ``FieldError`` or ``ValueError``."""
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=_bounded_int, parse_float=_finite_float,
                           object_pairs_hook=_unique_keys)
    except RecursionError:
        raise FieldError(f"nested deeper than {MAX_DEPTH} levels") from None
    except _Constant as error:
        # Parsed again, the constants as markers, to say which field holds one (a failure pays for this).
        try:
            marked = json.loads(text, parse_constant=lambda _name: _Marker(), parse_int=_bounded_int,
                                parse_float=_finite_float, object_pairs_hook=_unique_keys)
        except (ValueError, RecursionError):
            raise FieldError(str(error)) from None
        where = _path_of_marker(marked)
        raise FieldError(f"{where}: {error}" if where else str(error)) from None
    check_depth(value)
    return value


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """Refuse lists and objects nested deeper than ``limit`` (walked without recursion)."""
    if not isinstance(value, (list, dict)):
        return
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth >= limit:
            raise FieldError(f"nested deeper than {limit} levels")
        children: Iterable[Any] = item.values() if isinstance(item, dict) else item
        # Only lists and objects go on the stack: a save's numbers and strings, most of it, are passed over.
        stack.extend((child, depth + 1) for child in children if isinstance(child, (list, dict)))


def expect_keys(record: Any, where: str, required: Iterable[str], optional: Iterable[str] = ()) -> dict[str, Any]:
    """``record`` as an object with every ``required`` key, and no key outside ``required`` and ``optional``."""
    if not isinstance(record, dict):
        raise FieldError(f"{where} must be an object, got {shown(record)}")
    needed = list(required)
    missing = [key for key in needed if key not in record]
    if missing:
        raise FieldError(f"{where} has no {', '.join(repr(key) for key in missing)}")
    allowed = set(needed) | set(optional)
    extra = sorted(key for key in record if key not in allowed)
    if extra:
        raise FieldError(f"{where} has unknown field {extra[0]!r}")
    return record


def is_whole(value: Any) -> bool:
    """Whether ``value`` is a whole number as a file says one: an ``int``, never a bool or ``2.0``."""
    return type(value) is int


def expect_whole(value: Any, where: str, low: int, high: int) -> int:
    """An integer (not a bool, a float or a string) with ``low <= value <= high``."""
    if not is_whole(value):
        raise FieldError(f"{where} must be a whole number, got {shown(value)}")
    whole: int = value
    if not low <= whole <= high:
        raise FieldError(f"{where} must be from {low} to {high}, got {shown(value)}")
    return whole


def expect_number(value: Any, where: str, low: float, high: float) -> float:
    """A finite number (int or float, not a bool) with ``low <= value <= high``."""
    if type(value) not in (int, float):
        raise FieldError(f"{where} must be a number, got {shown(value)}")
    if not (math.isfinite(value) and low <= value <= high):
        raise FieldError(f"{where} must be a finite number from {low:g} to {high:g}, got {shown(value)}")
    return float(value)


def expect_str(value: Any, where: str, max_length: int = 256, pattern: re.Pattern[str] | None = None) -> str:
    """A string of at most ``max_length`` characters, matching ``pattern`` in full when given."""
    if not isinstance(value, str):
        raise FieldError(f"{where} must be a string, got {shown(value)}")
    if len(value) > max_length:
        raise FieldError(f"{where} is longer than {max_length} characters")
    if pattern is not None and not pattern.fullmatch(value):
        raise FieldError(f"{where} is not valid: {shown(value)}")
    return value


_WROTE_0_1 = (["0", "1"], ["0", "2"], ["0", "3"], ["0", "4"])
"""What 0.5 reads besides its own: every release to 0.4 wrote ``0.1.0`` (its version string was never bumped)."""


def version_matches(written: str, ours: str) -> bool:
    """Whether a file written by tickswap ``written`` may be read by ``ours``: the same major.minor, or 0.1 to
    0.4 read by 0.5 (their saves and recordings are 0.5's formats, whose own ``version`` fields say when not)."""
    theirs, mine = written.split(".")[:2], ours.split(".")[:2]
    return theirs == mine or (mine == ["0", "5"] and theirs in _WROTE_0_1)
