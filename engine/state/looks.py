"""Looks and parts as data: what snapshots and saves hold of what an entity shows of its own.

A look set on an instance is state (``engine.buffering.shown``), so the state hash and a
save hold it, as plain JSON data, never as code: its shape, size, colour, layer, anchors,
text, region, and its picture as a path. A save may come from elsewhere, so reading one
back checks every field as data before the look is made (``look_from_data``), and a
picture is only ever a path whose PNG header is read.

Pictures are named relative to the directory of the module that defines the entity's
class when they lie under it (``picture_root``): the usual ``Path(__file__).parent /
"hero.png"`` is saved as ``{"beside": "hero.png"}``, so a save moves with its game, and the
state hash never holds the directory a game lives in (a picture elsewhere is hashed by its
file name, and saved by its absolute path).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from engine.buffering.shown import HIDDEN
from engine.look import MAX_FONT_SIZE, MAX_OFFSET, MAX_PARTS, MAX_SIZE, SHAPES, Look, Part
from engine.messages import shown
from engine.schema import FieldError, expect_keys, expect_number, expect_str, expect_whole

__all__ = ["look_data", "look_from_data", "own_shown", "parts_data", "parts_from_data", "picture_root"]

_LOOK_KEYS = ("shape", "size", "color", "layer", "screen", "anchor", "text", "image", "region")
MAX_TEXT = 100_000
"""The longest text a saved look may hold."""
MAX_LAYER = 2**31
_MAX_PATH = 4096


def picture_root(kind: type) -> str | None:
    """The directory of the module that defines ``kind``: pictures under it are saved and hashed
    relative to it, so a save moves with its game and a hash never holds where the game lives."""
    module = sys.modules.get(kind.__module__)
    file = getattr(module, "__file__", None)
    return os.path.dirname(os.path.abspath(file)) if isinstance(file, str) else None


def _picture(path: str, root: str | None, portable: bool) -> dict[str, str]:
    """A look's picture path as data: ``{"beside": relative}`` under ``root``; else ``{"path": absolute}``
    (``portable``: a hash's, which never holds a directory: ``{"name": file name}``)."""
    absolute = os.path.abspath(path)
    if root is not None:
        relative = os.path.relpath(absolute, root)
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
            return {"beside": relative.replace(os.sep, "/")}
    return {"name": os.path.basename(absolute)} if portable else {"path": absolute}


def look_data(look: Look | None, root: str | None, portable: bool = False) -> dict[str, Any] | None:
    """``look`` as plain JSON data (``None`` for none); ``root`` and ``portable`` say how its picture is named.

    A save writes it with ``portable=False`` (a picture outside ``root`` by its absolute
    path); a snapshot with ``portable=True`` (by its file name only): see ``picture_root``.
    """
    if look is None:
        return None
    size = look.size if isinstance(look.size, (int, float)) else list(look.size or ())
    return {"shape": look.shape, "size": size, "color": list(look.color), "layer": look.layer,
            "screen": look.screen, "anchor": [look.anchor_x, look.anchor_y], "text": look.text,
            "image": None if look.image is None else _picture(os.fspath(look.image), root, portable),
            "region": None if look.region is None else list(look.region)}


def look_from_data(data: Any, where: str, root: str | None) -> Look | None:
    """The look a save holds (``look_data``'s), checked whole: ``FieldError`` naming ``where`` and the problem.

    Every field is checked as data before the look is made (which reads its picture's
    header): shape, size, colour, layer, anchors, text, the picture's path (a string; one
    ``beside`` its class's module stays inside that directory) and region. Never code.
    """
    if data is None:
        return None
    record = expect_keys(data, where, _LOOK_KEYS)
    shape = expect_str(record["shape"], f"{where}.shape", 16)
    if shape not in SHAPES:
        raise FieldError(f"{where}.shape must be one of {', '.join(SHAPES)}, got {shown(shape)}")
    size: Any = record["size"]
    if shape == "text":
        size = expect_number(size, f"{where}.size", 0.0, MAX_FONT_SIZE)
    else:
        if not (isinstance(size, list) and len(size) == 2):
            raise FieldError(f"{where}.size must be [width, height], got {shown(size)}")
        size = tuple(expect_number(side, f"{where}.size", 0.0, MAX_SIZE) for side in size)
    color = record["color"]
    if not (isinstance(color, list) and len(color) == 4):
        raise FieldError(f"{where}.color must be [red, green, blue, alpha], got {shown(color)}")
    color = tuple(expect_whole(part, f"{where}.color", 0, 255) for part in color)
    layer = expect_whole(record["layer"], f"{where}.layer", -MAX_LAYER, MAX_LAYER)
    if not isinstance(record["screen"], bool):
        raise FieldError(f"{where}.screen must be true or false, got {shown(record['screen'])}")
    anchor = record["anchor"]
    if not (isinstance(anchor, list) and len(anchor) == 2):
        raise FieldError(f"{where}.anchor must be [anchor_x, anchor_y], got {shown(anchor)}")
    anchor_x = expect_str(anchor[0], f"{where}.anchor", 16)
    anchor_y = expect_str(anchor[1], f"{where}.anchor", 16)
    text = None if record["text"] is None else expect_str(record["text"], f"{where}.text", MAX_TEXT)
    image = None if record["image"] is None else _picture_from_data(record["image"], f"{where}.image", root)
    region = record["region"]
    if region is not None:
        if not (isinstance(region, list) and len(region) == 4):
            raise FieldError(f"{where}.region must be [left, top, width, height], got {shown(region)}")
        region = tuple(expect_whole(part, f"{where}.region", 0, MAX_LAYER) for part in region)
    try:
        options: dict[str, Any] = {"image": image, "text": text, "layer": layer, "screen": record["screen"],
                                   "anchor_x": anchor_x, "anchor_y": anchor_y, "region": region}
        return Look(shape, size, color, **options)  # type: ignore[arg-type]  # the shape is checked above
    except (TypeError, ValueError) as error:
        raise FieldError(f"{where}: {error}") from None


def _picture_from_data(data: Any, where: str, root: str | None) -> str:
    """The path a saved picture names, checked: relative ones stay under ``root``."""
    if isinstance(data, dict) and len(data) == 1 and "beside" in data:
        relative = expect_str(data["beside"], f"{where}.beside", _MAX_PATH)
        parts = relative.split("/")
        if not relative or "\0" in relative or relative.startswith("/") or os.pardir in parts or "\\" in relative:
            raise FieldError(f"{where}.beside must be a relative path inside its game, got {shown(relative)}")
        if root is None:
            raise FieldError(f"{where}.beside names a picture beside a class whose module has no directory")
        return os.path.join(root, *parts)
    record = expect_keys(data, where, ("path",))
    path = expect_str(record["path"], f"{where}.path", _MAX_PATH)
    if not os.path.isabs(path) or "\0" in path:
        raise FieldError(f"{where}.path must be an absolute path, got {shown(path)}")
    return path


def parts_data(parts: tuple[Part, ...], root: str | None, portable: bool = False) -> list[dict[str, Any]]:
    """An entity's parts as plain JSON data (see ``look_data``)."""
    return [{"look": look_data(part.look, root, portable), "offset": list(part.offset), "turns": part.turns}
            for part in parts]


def parts_from_data(data: Any, where: str, root: str | None) -> tuple[Part, ...]:
    """The parts a save holds (``parts_data``'s), checked whole: ``FieldError`` naming ``where``."""
    if not isinstance(data, list) or len(data) > MAX_PARTS:
        raise FieldError(f"{where} must be a list of at most {MAX_PARTS} parts, got {shown(data)}")
    parts = []
    for index, item in enumerate(data):
        at = f"{where}[{index}]"
        record = expect_keys(item, at, ("look", "offset", "turns"))
        look = look_from_data(record["look"], f"{at}.look", root)
        if look is None:
            raise FieldError(f"{at}.look must be a look, got null")
        offset = record["offset"]
        if not (isinstance(offset, list) and len(offset) == 2):
            raise FieldError(f"{at}.offset must be [dx, dy], got {shown(offset)}")
        dx, dy = (expect_number(value, f"{at}.offset", -MAX_OFFSET, MAX_OFFSET) for value in offset)
        if not isinstance(record["turns"], bool):
            raise FieldError(f"{at}.turns must be true or false, got {shown(record['turns'])}")
        parts.append(Part(look, (dx, dy), record["turns"]))
    return tuple(parts)


def own_shown(record: dict[str, Any], where: str, kind: type) -> dict[str, Any]:
    """What an entity record of a save says the entity shows of its own, as slot values
    (``engine.buffering.shown``): ``look`` (``HIDDEN`` for none) and ``parts``, each only if saved.

    Checked whole (``look_from_data``); ``FieldError`` names the field.
    """
    own: dict[str, Any] = {}
    root = picture_root(kind)
    if "look" in record:
        look = look_from_data(record["look"], f"{where}.look", root)
        own["look"] = HIDDEN if look is None else look
    if "parts" in record:
        own["parts"] = parts_from_data(record["parts"], f"{where}.parts", root)
    return own
