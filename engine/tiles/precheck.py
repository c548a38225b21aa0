"""A map file checked by the engine before pytiled-parser reads it: damage named in words, never parser internals.

pytiled-parser indexes what it reads as it goes, so a damaged file surfaces as whatever
Python raised deep inside it (``KeyError: 'x'``, ``IndexError``...). Here the file (and
every tileset or template file it names) is read with a bound, decoded as UTF-8 and parsed
first: damaged JSON is named by line and column, damaged XML by line, and every field
pytiled-parser takes for granted is checked for presence and type, named by its path in
the file (``layers[2].objects[0] has no 'x'``). XML with a DOCTYPE is refused before any
parser sees it: no entity is ever expanded and no external entity fetched (pytiled-parser
parses with ``xml.etree``, which would expand internal entities).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as etree
from pathlib import Path
from typing import Any

from engine.files.reading import NotAFile, read_bounded
from engine.messages import shown, shown_name
from engine.schema import FieldError, parse_json
from engine.tiles.model import MapError

__all__ = ["check_map_file", "refuse_declarations"]

_DOCTYPE = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_LAYER_TYPES = ("tilelayer", "objectgroup", "group", "imagelayer")
_XML_SUFFIXES = (".tmx", ".tsx", ".tx", ".xml")
_MAX_GROUP_DEPTH = 16


class _Bad(ValueError):
    """One problem in a file's content, without the file's name (the caller adds it)."""


def check_map_file(file: Path, where: str, limit: int) -> None:
    """Check the map at ``file`` and the tileset and template files it names; ``MapError`` in one line otherwise."""
    seen: set[Path] = set()
    document = _parsed(file, where, limit)
    try:
        named = _tmx_map(document) if isinstance(document, etree.Element) else _json_map(document)
    except _Bad as error:
        raise MapError(f"{where} is not a valid Tiled map: {error}") from None
    for kind, name in named:
        other = file.parent / name
        if other in seen:
            continue
        seen.add(other)
        other_where = f"{where}'s {kind} {shown_name(name)}"
        if not other.exists():
            raise MapError(f"{where} names a {kind} file that does not exist: {shown_name(name)}")
        content = _parsed(other, other_where, limit)
        if kind == "tileset" and isinstance(content, dict):
            try:
                _json_tileset(content, "the tileset")
            except _Bad as error:
                raise MapError(f"{other_where} is not a valid Tiled tileset: {error}") from None


def _parsed(file: Path, where: str, limit: int) -> Any:
    """The file read with a bound and parsed as JSON or (safely) as XML, by its name."""
    try:
        raw = read_bounded(file, limit, "the map file")
    except NotAFile as error:
        raise MapError(f"{where} cannot be read: {error}") from None
    if not raw.strip():
        raise MapError(f"{where} is empty: a Tiled map is a JSON or XML document")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise MapError(f"{where} is not UTF-8 text (byte {error.start}): it is not a Tiled map file") from None
    if file.suffix.lower() in _XML_SUFFIXES:
        return _xml(raw, text, where)
    try:
        return parse_json(text)
    except json.JSONDecodeError as error:
        # A value still open at the end (a string never closed) is what a file cut in half most likely is.
        cut = "; cut short?" if error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated") else ""
        raise MapError(f"{where} is damaged: not valid JSON at line {error.lineno}, column {error.colno} "
                       f"({error.msg}){cut}") from None
    except (FieldError, ValueError) as error:
        raise MapError(f"{where} is damaged: {error}") from None


def refuse_declarations(raw: bytes, where: str) -> None:
    """Refuse XML with a DOCTYPE or ENTITY before any parser sees it (``where`` names the file).

    Python's XML parsers expand internal entities (billion laughs); Tiled never writes one.
    """
    found = _DOCTYPE.search(raw)
    if found:
        line = raw.count(b"\n", 0, found.start()) + 1
        raise MapError(f"{where} has a DOCTYPE or ENTITY declaration (line {line}): refused, entities are never "
                       "expanded (Tiled never writes one)")


def _xml(raw: bytes, text: str, where: str) -> etree.Element:
    refuse_declarations(raw, where)
    try:
        return etree.fromstring(text)
    except etree.ParseError as error:
        line, column = getattr(error, "position", (0, 0))
        cut = "; cut short?" if line >= text.rstrip().count("\n") + 1 else ""
        raise MapError(f"{where} is damaged: not valid XML at line {line}, column {column + 1} "
                       f"({str(error).split(':')[0]}){cut}") from None


# -- JSON ------------------------------------------------------------------------------------


def _need(record: Any, path: str, key: str, kinds: tuple[type, ...], what: str) -> Any:
    """``record[key]``, which must be there and of one of ``kinds`` (never a bool for a number)."""
    if key not in record:
        raise _Bad(f"{path} has no {key!r}")
    value = record[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise _Bad(f"{path}.{key} must be {what}, got {shown(value)}")
    return value


def _pair(record: dict[str, Any], path: str, first: str, second: str, kinds: tuple[type, ...], what: str) -> None:
    """Two fields pytiled-parser reads together: both or neither."""
    if first in record or second in record:
        _need(record, path, first, kinds, what)
        _need(record, path, second, kinds, what)


def _object_at(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Bad(f"{path} must be an object, got {shown(value)}")
    return value


_INT, _NUMBER, _STR, _LIST, _BOOL = (int,), (int, float), (str,), (list,), (bool,)


def _json_map(document: Any) -> list[tuple[str, str]]:
    if not isinstance(document, dict):
        raise _Bad(f"it holds a JSON {type(document).__name__.replace('dict', 'object')}, not a map object")
    for key in ("width", "height", "tilewidth", "tileheight", "nextobjectid"):
        _need(document, "the map", key, _INT, "a whole number")
    for key in ("orientation", "renderorder"):
        _need(document, "the map", key, _STR, "a string")
    _need(document, "the map", "version", (str, int, float), "a version")
    _properties(document, "the map")
    named: list[tuple[str, str]] = []
    for index, tileset in enumerate(_need(document, "the map", "tilesets", _LIST, "a list")):
        path = f"tilesets[{index}]"
        _object_at(tileset, path)
        _need(tileset, path, "firstgid", _INT, "a whole number")
        if "source" in tileset:
            named.append(("tileset", _need(tileset, path, "source", _STR, "a file name")))
        else:
            _json_tileset(tileset, path)
    _layers(_need(document, "the map", "layers", _LIST, "a list"), "layers", named, 0)
    return named


def _json_tileset(tileset: Any, path: str) -> None:
    _object_at(tileset, path)
    _need(tileset, path, "name", _STR, "a string")
    for key in ("tilecount", "tilewidth", "tileheight", "spacing", "margin", "columns"):
        _need(tileset, path, key, _INT, "a whole number")
    if "image" in tileset:
        _need(tileset, path, "image", _STR, "a file name")
    _properties(tileset, path)
    tiles = tileset.get("tiles", [])
    if not isinstance(tiles, (list, dict)):
        raise _Bad(f"{path}.tiles must be a list, got {shown(tiles)}")
    for index, tile in enumerate(tiles if isinstance(tiles, list) else tiles.values()):
        at = f"{path}.tiles[{index}]"
        _object_at(tile, at)
        if isinstance(tiles, list):
            _need(tile, at, "id", _INT, "a whole number")
        _properties(tile, at)


def _properties(record: dict[str, Any], path: str) -> None:
    properties = record.get("properties")
    if properties is None:
        return
    if not isinstance(properties, list):
        raise _Bad(f"{path}.properties must be a list, got {shown(properties)}")
    for index, item in enumerate(properties):
        at = f"{path}.properties[{index}]"
        _object_at(item, at)
        _need(item, at, "name", _STR, "a string")
        _need(item, at, "type", _STR, "a string")
        if "value" not in item:
            raise _Bad(f"{at} has no 'value'")


def _layers(layers: list[Any], path: str, named: list[tuple[str, str]], depth: int) -> None:
    if depth > _MAX_GROUP_DEPTH:
        raise _Bad(f"{path}: layer groups nest more than {_MAX_GROUP_DEPTH} deep")
    for index, layer in enumerate(layers):
        at = f"{path}[{index}]"
        _object_at(layer, at)
        kind = _need(layer, at, "type", _STR, "a layer type")
        if kind not in _LAYER_TYPES:
            raise _Bad(f"{at}.type is {shown(kind)}: a layer type is one of {', '.join(_LAYER_TYPES)}")
        _need(layer, at, "name", _STR, "a string")
        _need(layer, at, "opacity", _NUMBER, "a number")
        _need(layer, at, "visible", _BOOL, "true or false")
        _pair(layer, at, "offsetx", "offsety", _NUMBER, "a number")
        _pair(layer, at, "startx", "starty", _INT, "a whole number")
        _pair(layer, at, "width", "height", _INT, "a whole number")
        _properties(layer, at)
        if kind == "tilelayer":
            _tile_layer(layer, at)
        elif kind == "objectgroup":
            _need(layer, at, "draworder", _STR, "a string")
            for number, item in enumerate(_need(layer, at, "objects", _LIST, "a list")):
                _json_object(item, f"{at}.objects[{number}]", named)
        elif kind == "group":
            _layers(_need(layer, at, "layers", _LIST, "a list"), f"{at}.layers", named, depth + 1)
        else:
            _need(layer, at, "image", _STR, "a file name")


def _tile_layer(layer: dict[str, Any], at: str) -> None:
    if "chunks" in layer:
        _need(layer, at, "chunks", _LIST, "a list")
        return
    data = _need(layer, at, "data", (list, str), "a list of tile ids")
    _need(layer, at, "width", _INT, "a whole number")
    if isinstance(data, str):
        _need(layer, at, "encoding", _STR, "a string")
        if "compression" not in layer:
            raise _Bad(f"{at} has no 'compression'")
    elif not all(isinstance(gid, int) and not isinstance(gid, bool) for gid in data):
        bad = next(gid for gid in data if not isinstance(gid, int) or isinstance(gid, bool))
        raise _Bad(f"{at}.data holds {shown(bad)}, not a tile id")


def _json_object(item: Any, at: str, named: list[tuple[str, str]]) -> None:
    _object_at(item, at)
    _need(item, at, "id", _INT, "a whole number")
    _need(item, at, "x", _NUMBER, "a number")
    _need(item, at, "y", _NUMBER, "a number")
    if "template" in item:  # the template gives the rest
        named.append(("template", _need(item, at, "template", _STR, "a file name")))
        return
    _need(item, at, "width", _NUMBER, "a number")
    _need(item, at, "height", _NUMBER, "a number")
    _need(item, at, "rotation", _NUMBER, "a number")
    _need(item, at, "name", _STR, "a string")
    _need(item, at, "visible", _BOOL, "true or false")
    if "gid" in item:
        _need(item, at, "gid", _INT, "a whole number")
    for key in ("polygon", "polyline"):
        if key in item:
            for number, point in enumerate(_need(item, at, key, _LIST, "a list of points")):
                _object_at(point, f"{at}.{key}[{number}]")
                _need(point, f"{at}.{key}[{number}]", "x", _NUMBER, "a number")
                _need(point, f"{at}.{key}[{number}]", "y", _NUMBER, "a number")
    if "text" in item:
        _need(_object_at(item["text"], f"{at}.text"), f"{at}.text", "text", _STR, "a string")
    _properties(item, at)


# -- TMX -------------------------------------------------------------------------------------


def _attribute(element: etree.Element, path: str, name: str, whole: bool = False) -> str:
    if name not in element.attrib:
        raise _Bad(f"{path} has no {name!r} attribute")
    value = element.attrib[name]
    if whole and not re.fullmatch(r"-?\d{1,12}", value.strip()):
        raise _Bad(f"{path}'s {name!r} must be a whole number, got {shown(value)}")
    return value


def _tmx_map(root: etree.Element) -> list[tuple[str, str]]:
    if root.tag != "map":
        raise _Bad(f"its root element is <{str(root.tag)[:40]}>, not <map>")
    for name in ("width", "height", "tilewidth", "tileheight", "nextlayerid", "nextobjectid", "infinite"):
        _attribute(root, "<map>", name, whole=True)
    for name in ("orientation", "renderorder", "tiledversion", "version"):
        _attribute(root, "<map>", name)
    named: list[tuple[str, str]] = []
    for index, tileset in enumerate(root.iter("tileset")):
        path = f"<tileset> {index + 1}"
        _attribute(tileset, path, "firstgid", whole=True)
        if "source" in tileset.attrib:
            named.append(("tileset", tileset.attrib["source"]))
            continue
        _attribute(tileset, path, "name")
        for name in ("tilewidth", "tileheight", "tilecount", "columns"):
            _attribute(tileset, path, name, whole=True)
    for index, layer in enumerate(root.iter("layer")):
        path = f"<layer> {index + 1}"
        for name in ("width", "height"):
            _attribute(layer, path, name, whole=True)
        if layer.find("data") is None:
            raise _Bad(f"{path} has no <data>")
    for index, item in enumerate(root.iter("object")):
        path = f"<object> {index + 1}"
        _attribute(item, path, "id", whole=True)
        if "template" in item.attrib:
            named.append(("template", item.attrib["template"]))
        for name in ("x", "y"):
            if "template" not in item.attrib:
                _attribute(item, path, name)
    return named
