"""Saved values: what a save can hold of a game's own state, as JSON, and how it is checked.

Buffered fields and ``saved`` attributes hold numbers, strings, tuples, lists, sets,
dicts and references to other entities. JSON has only some of these, so the others are
written as tagged objects with one key: ``{"$tuple": [...]}``, ``{"$set": [...]}``,
``{"$dict": {...}}``, ``{"$entity": id}``, ``{"$dead": [id, "module:Class"]}`` for a
reference to an entity that was despawned (it loads as a despawned stub of that class:
``alive`` False, its class's default values, never spawned), and ``{"$float": "nan"}`` for
the non-finite floats JSON can't write. ``encode`` refuses, by the field's name, what could not be read
back (an object, a 100-digit integer, a list that contains itself); ``check_value``
accepts only what ``encode`` writes, generically (so a new buffered field needs nothing
here), and ``decode`` turns a checked value back into Python.
"""

from __future__ import annotations

import math
from typing import Any

from engine.entity import Entity
from engine.schema import MAX_DEPTH, MAX_INT_DIGITS, FieldError, expect_str, expect_whole
from engine.state.names import class_name

__all__ = ["MAX_ID", "VALUE_DEPTH", "DeadReference", "NotSaveable", "check_like_default", "check_value", "decode",
           "encode"]

MAX_ID = 2**53
"""The highest entity id a save may name."""
MAX_TEXT = 1 << 20
"""The longest string a saved value (or a saved dict's key) may be."""
VALUE_DEPTH = MAX_DEPTH - 6
"""How deeply a saved value may nest, in JSON levels (a list is one, a tagged tuple, set or dict two).

The deepest place a value sits in a save is ``entities[i].previous.values.$tuple[j]``,
six levels down: a value this deep still fits the reader's ``MAX_DEPTH`` for the whole
file. ``encode`` and ``check_value`` both count with it, so what one writes the other reads.
"""
_TAGS = ("$entity", "$dead", "$tuple", "$set", "$dict", "$float")
DeadReference = tuple[int, str, str]
"""A ``$dead`` reference found by ``check_value``: the id, the class name, and where it was."""
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class NotSaveable(ValueError):
    """A value a save cannot hold (and read back); the message names the field."""

def encode(value: Any, where: str, depth: int = 0) -> Any:
    """A saved value as JSON: entities as ids, tuples, sets and dicts tagged, NaN and infinities tagged.

    ``depth`` is the JSON level the value starts at; a container at ``VALUE_DEPTH`` or deeper is refused.
    """
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise NotSaveable(f"{where} holds a string of {len(value):,} characters; a save holds at most {MAX_TEXT:,}")
        return value
    if isinstance(value, (list, tuple, set, frozenset, dict, Entity)) and depth >= VALUE_DEPTH:
        raise NotSaveable(f"{where} is nested too deeply for a save (at most {VALUE_DEPTH} levels, "
                          "a tuple, set or dict counting two)")
    if isinstance(value, int):
        if len(str(abs(value))) > MAX_INT_DIGITS:
            raise NotSaveable(f"{where} holds an integer of more than {MAX_INT_DIGITS} digits, "
                              "which a save cannot hold")
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, Entity):
        if value.id is None:
            raise NotSaveable(f"{where} refers to an entity that was never spawned")
        if not value.alive:
            kind = type(value)
            if depth + 1 >= VALUE_DEPTH:
                raise NotSaveable(f"{where} is nested too deeply for a save (at most {VALUE_DEPTH} levels)")
            return {"$dead": [value.id, class_name(kind)]}
        return {"$entity": value.id}
    if isinstance(value, tuple):
        return {"$tuple": [encode(item, where, depth + 2) for item in value]}
    if isinstance(value, list):
        return [encode(item, where, depth + 1) for item in value]
    if isinstance(value, (set, frozenset)):
        return {"$set": sorted((encode(item, where, depth + 2) for item in value), key=repr)}
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        for key in value:
            encode(key, f"{where} (a key)", depth)
        return {"$dict": {key: encode(item, where, depth + 2) for key, item in value.items()}}
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return encode(value.item(), where, depth)
    raise NotSaveable(f"{where} holds {value!r:.60}, which a save cannot hold: use numbers, strings, tuples, lists, "
                    "dicts or entities, or rebuild it in on_load()")


def check_value(value: Any, where: str, ids: set[int], dead: list[DeadReference] | None = None) -> None:
    """A saved value: JSON scalars, lists, and the tagged forms ``encode`` writes (references to saved ids).

    ``$dead`` references are appended to ``dead`` for the caller to resolve their classes;
    without ``dead`` none is accepted.
    """
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if item is None or isinstance(item, (bool, int, float)):
            continue
        if isinstance(item, str):
            if len(item) > MAX_TEXT:
                raise FieldError(f"{where} holds a string longer than {MAX_TEXT} characters")
            continue
        if depth >= VALUE_DEPTH:
            raise FieldError(f"{where} is nested deeper than {VALUE_DEPTH} levels")
        if isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, dict):
            if len(item) != 1 or next(iter(item)) not in _TAGS:
                raise FieldError(f"{where} holds an object that is not a saved value (expected one of {_TAGS})")
            tag, inner = next(iter(item.items()))
            if tag == "$entity":
                expect_whole(inner, f"{where} (an entity reference)", 1, MAX_ID)
                if inner not in ids:
                    raise FieldError(f"{where} refers to entity {inner}, which is not in the save")
            elif tag == "$dead":
                if depth + 1 >= VALUE_DEPTH:
                    raise FieldError(f"{where} is nested deeper than {VALUE_DEPTH} levels")
                if dead is None or not (isinstance(inner, list) and len(inner) == 2):
                    raise FieldError(f"{where} holds a $dead that is not [id, class] where one may be")
                dead_id = expect_whole(inner[0], f"{where} (a despawned entity's id)", 1, MAX_ID)
                if dead_id in ids:
                    raise FieldError(f"{where} says entity {dead_id} was despawned, but it is in the save")
                dead.append((dead_id, expect_str(inner[1], f"{where} (a despawned entity's class)", 401), where))
            elif tag == "$float":
                if inner not in _NON_FINITE:
                    raise FieldError(f"{where} holds {{'$float': {inner!r:.20}}}; expected 'nan', 'inf' or '-inf'")
            elif tag == "$dict":
                if not isinstance(inner, dict):
                    raise FieldError(f"{where} holds a $dict that is not an object")
                if any(len(key) > MAX_TEXT for key in inner):
                    raise FieldError(f"{where} holds a $dict key longer than {MAX_TEXT} characters")
                stack.extend((child, depth + 2) for child in inner.values())
            else:
                if not isinstance(inner, list):
                    raise FieldError(f"{where} holds a {tag} that is not a list")
                stack.extend((child, depth + 2) for child in inner)
        else:  # pragma: no cover - JSON has no other types
            raise FieldError(f"{where} holds {type(item).__name__}")


def decode(value: Any, entities: dict[int, Entity], dead: dict[int, Entity] | None = None) -> Any:
    """The inverse of ``encode`` (on a value ``check_value`` accepted); ``dead`` holds the despawned stubs."""
    if isinstance(value, list):
        return [decode(item, entities, dead) for item in value]
    if isinstance(value, dict):
        tag, inner = next(iter(value.items()))
        if tag == "$entity":
            return entities[inner]
        if tag == "$dead":
            assert dead is not None, "a $dead reference is resolved by the save's reader"
            return dead[inner[0]]
        if tag == "$tuple":
            return tuple(decode(item, entities, dead) for item in inner)
        if tag == "$set":
            return frozenset(decode(item, entities, dead) for item in inner)
        if tag == "$float":
            return _NON_FINITE[inner]
        return {key: decode(item, entities, dead) for key, item in inner.items()}
    return value


# -- the engine-owned state of one entity (the double buffer's owner may change these two) --

def check_like_default(value: Any, default: Any, where: str) -> None:
    """A buffered value must be of the kind its declared default is: a number for a number, and so on.

    This keeps a save with ``"x": "abc"`` from loading and failing a hundred ticks later
    in the game's own code. A field whose default is ``None`` (or anything else) may hold
    any saved value.
    """
    def number(item: Any) -> bool:
        return (isinstance(item, (int, float)) and not isinstance(item, bool)) or (
            isinstance(item, dict) and "$float" in item)

    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, (int, float)):
        ok = number(value)
    elif isinstance(default, str):
        ok = isinstance(value, str)
    elif isinstance(default, tuple):
        ok = isinstance(value, dict) and "$tuple" in value
    else:
        return
    if not ok:
        # A number's field takes any number (an int field that becomes 4.5 in play is fine), so it says "a number".
        numeric = isinstance(default, (int, float)) and not isinstance(default, bool)
        kind = "number" if numeric else type(default).__name__
        article = "an" if kind[0] in "aeiou" else "a"
        raise FieldError(f"{where} must be {article} {kind} like its default {default!r:.30}, got {value!r:.40}")
