"""Tiled's custom properties, checked against the type each declares before pytiled-parser converts them.

pytiled-parser converts a property by its declared type as it parses, and says nothing
when a value does not fit: an XML bool ``"yes"`` becomes ``False`` (a ``solid`` tile that
is silently not solid), an int ``"three"`` fails deep inside it (``type str doesn't define
__round__ method``), a colour ``"#zzzzzz"`` as ``Unknown Map Format``. Here every
property of a map, tileset or template is checked first, as data: a value that does not
fit its type is refused in one line naming the file (the caller's ``where``), what holds
the property (the map, a layer, an object, a tile) and the property.

A JSON bool written as the string ``"true"`` or ``"false"`` (hand-edited files, older
tools) is no mistake to refuse: it is noted, so that the reader makes it the bool it says
(``bool_strings``), rather than the truthy string ``'false'``.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as etree
from typing import Any

from engine.messages import shown

__all__ = ["PropertyError", "check_json_properties", "check_xml_properties"]

_COLOR = re.compile(r"#?(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_HINTS = {"bool": "a bool property is true or false",
          "int": "an int property is a whole number",
          "float": "a float property is a finite number",
          "color": "a color property is #RRGGBB or #AARRGGBB",
          "object": "an object property is an object's id, a whole number"}


class PropertyError(ValueError):
    """A property whose value does not fit its declared type: the message names what holds it and the property."""


def _refuse(owner: str, name: Any, kind: str, value: Any) -> PropertyError:
    return PropertyError(f"{owner}: property {shown(name, 40)} is {'an' if kind[0] in 'aeiou' else 'a'} {kind} "
                         f"property but holds {shown(value, 40)} ({_HINTS[kind]})")


def _number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def check_json_properties(properties: Any, owner: str) -> frozenset[str]:
    """Check a JSON ``properties`` list (its items' shape is checked by the caller); returns the names of
    bool properties written as the strings ``"true"`` / ``"false"``, which the reader makes bools."""
    strings: set[str] = set()
    if not isinstance(properties, list):
        return frozenset()
    for item in properties:
        if not isinstance(item, dict):
            continue
        name, kind, value = item.get("name"), str(item.get("type")), item.get("value")
        if kind == "bool" and isinstance(value, str) and value in ("true", "false"):
            strings.add(str(name))
            continue
        finite = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        fits = {"bool": isinstance(value, bool),
                "int": finite and isinstance(value, (int, float)) and float(value).is_integer(),  # not rounded: 5.5
                "float": finite,
                "color": isinstance(value, str) and _COLOR.fullmatch(value) is not None,
                "object": isinstance(value, int) and not isinstance(value, bool)}.get(kind, True)
        if not fits:
            raise _refuse(owner, name, kind, value)
    return frozenset(strings)


def check_xml_properties(holder: etree.Element, owner: str) -> None:
    """Check the ``<properties>`` of ``holder`` (and the members of class properties in them) by type."""
    found = holder.find("properties")
    if found is None:
        return
    for item in found.findall("property"):
        name, kind = item.get("name"), item.get("type", "string")
        value = item.get("value", item.text)
        if kind == "class":
            check_xml_properties(item, f"{owner}, property {shown(name, 40)}")
            continue
        if value is None:
            continue  # pytiled-parser skips a property without a value
        if kind == "bool" and value not in ("true", "false"):
            raise _refuse(owner, name, kind, value)
        number = _number(value)
        if kind == "int" and (number is None or not number.is_integer()):  # pytiled-parser would round 5.5
            raise _refuse(owner, name, kind, value)
        if kind == "float" and number is None:
            raise _refuse(owner, name, kind, value)
        if kind == "color" and not _COLOR.fullmatch(value):
            raise _refuse(owner, name, kind, value)
        if kind == "object" and not re.fullmatch(r"\d{1,12}", value.strip()):
            raise _refuse(owner, name, kind, value)
