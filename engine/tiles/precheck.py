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
import math
import re
import xml.etree.ElementTree as etree
from pathlib import Path
from typing import Any

from engine.disk.reading import NotAFile, read_bounded
from engine.messages import shown, shown_name
from engine.schema import FieldError, parse_json
from engine.tiles.model import MapError
from engine.tiles.properties import PropertyError, check_json_properties, check_xml_properties

__all__ = ["BoolStrings", "check_map_file", "refuse_declarations"]

BoolStrings = dict[tuple[Any, ...], frozenset[str]]
"""The JSON bool properties written as strings (``"false"``), by what holds them: ``("map",)``,
``("layer", id)``, ``("object", id)``, ``("tile", first gid, tile id)``; the reader makes them bools."""

_DOCTYPE = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_LAYER_TYPES = ("tilelayer", "objectgroup", "group", "imagelayer")
_XML_SUFFIXES = (".tmx", ".tsx", ".tx", ".xml")
_MAX_GROUP_DEPTH = 16


class _Bad(ValueError):
    """One problem in a file's content, without the file's name (the caller adds it)."""


def check_map_file(file: Path, where: str, limit: int) -> BoolStrings:
    """Check the map at ``file`` and the tileset and template files it names; ``MapError`` in one line otherwise.

    Every custom property is checked against its declared type (``engine.tiles.properties``);
    returns the JSON bools written as strings, for the reader to make bools.
    """
    seen: set[Path] = set()
    document = _parsed(file, where, limit)
    found: BoolStrings = {}
    try:
        named = _tmx_map(document) if isinstance(document, etree.Element) else _json_map(document, found)
    except PropertyError as error:
        raise MapError(f"{where}: {error}") from None
    except _Bad as error:
        raise MapError(f"{where} is not a valid Tiled map: {error}") from None
    for kind, name, first_gid in named:
        other = file.parent / name
        if other in seen:
            continue
        seen.add(other)
        other_where = f"{where}'s {kind} {shown_name(name)}"
        if not other.exists():
            raise MapError(f"{where} names a {kind} file that does not exist: {shown_name(name)}")
        content = _parsed(other, other_where, limit)
        try:
            if isinstance(content, etree.Element):
                _xml_properties(content, kind)
            elif kind == "tileset" and isinstance(content, dict):
                _json_tileset(content, "the tileset", found, first_gid)
            elif kind == "template" and isinstance(content, dict) and isinstance(content.get("object"), dict):
                check_json_properties(content["object"].get("properties"), "the template's object")
        except PropertyError as error:
            raise MapError(f"{other_where}: {error}") from None
        except _Bad as error:
            raise MapError(f"{other_where} is not a valid Tiled tileset: {error}") from None
    return found


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


Named = list[tuple[str, str, int]]
"""The files a map names: (kind, file name, the first gid of a tileset, else 0)."""


def _json_map(document: Any, found: BoolStrings) -> Named:
    if not isinstance(document, dict):
        raise _Bad(f"it holds a JSON {type(document).__name__.replace('dict', 'object')}, not a map object")
    for key in ("width", "height", "tilewidth", "tileheight", "nextobjectid"):
        _need(document, "the map", key, _INT, "a whole number")
    for key in ("orientation", "renderorder"):
        _need(document, "the map", key, _STR, "a string")
    _need(document, "the map", "version", (str, int, float), "a version")
    _properties(document, "the map", "the map", found, ("map",))
    named: Named = []
    for index, tileset in enumerate(_need(document, "the map", "tilesets", _LIST, "a list")):
        path = f"tilesets[{index}]"
        _object_at(tileset, path)
        first_gid = _need(tileset, path, "firstgid", _INT, "a whole number")
        if "source" in tileset:
            named.append(("tileset", _need(tileset, path, "source", _STR, "a file name"), first_gid))
        else:
            _json_tileset(tileset, path, found, first_gid)
    _layers(_need(document, "the map", "layers", _LIST, "a list"), "layers", named, 0, found)
    return named


def _json_tileset(tileset: Any, path: str, found: BoolStrings, first_gid: int) -> None:
    _object_at(tileset, path)
    name = _need(tileset, path, "name", _STR, "a string")
    for key in ("tilecount", "tilewidth", "tileheight", "spacing", "margin", "columns"):
        _need(tileset, path, key, _INT, "a whole number")
    if "image" in tileset:
        _need(tileset, path, "image", _STR, "a file name")
    _properties(tileset, path, f"tileset {shown(name, 40)}", found, None)
    tiles = tileset.get("tiles", [])
    if not isinstance(tiles, (list, dict)):
        raise _Bad(f"{path}.tiles must be a list, got {shown(tiles)}")
    for index, tile in enumerate(tiles if isinstance(tiles, list) else tiles.values()):
        at = f"{path}.tiles[{index}]"
        _object_at(tile, at)
        if isinstance(tiles, list):
            _need(tile, at, "id", _INT, "a whole number")
        tile_id = tile.get("id", index)
        _properties(tile, at, f"tile {shown(tile_id)} of tileset {shown(name, 40)}", found,
                    ("tile", first_gid, tile_id))


def _properties(record: dict[str, Any], path: str, owner: str, found: BoolStrings,
                key: tuple[Any, ...] | None) -> None:
    """A JSON ``properties`` list: each item's shape, then its value against its type (``owner`` holds it)."""
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
    strings = check_json_properties(properties, owner)
    if strings and key is not None:
        found[key] = strings


def _layers(layers: list[Any], path: str, named: Named, depth: int, found: BoolStrings) -> None:
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
        name = layer["name"]
        _properties(layer, at, f"layer {shown(name, 40)}", found, ("layer", layer.get("id")))
        if kind == "tilelayer":
            _tile_layer(layer, at)
        elif kind == "objectgroup":
            _need(layer, at, "draworder", _STR, "a string")
            for number, item in enumerate(_need(layer, at, "objects", _LIST, "a list")):
                _json_object(item, f"{at}.objects[{number}]", named, name, found)
        elif kind == "group":
            _layers(_need(layer, at, "layers", _LIST, "a list"), f"{at}.layers", named, depth + 1, found)
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


def _json_object(item: Any, at: str, named: Named, layer: str, found: BoolStrings) -> None:
    _object_at(item, at)
    object_id = _need(item, at, "id", _INT, "a whole number")
    _need(item, at, "x", _NUMBER, "a number")
    _need(item, at, "y", _NUMBER, "a number")
    owner = _object_owner(object_id, item.get("name"), layer)
    if "template" in item:  # the template gives the rest
        named.append(("template", _need(item, at, "template", _STR, "a file name"), 0))
        _properties(item, at, owner, found, ("object", object_id))
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
    _properties(item, at, owner, found, ("object", object_id))


def _object_owner(object_id: Any, name: Any, layer: Any) -> str:
    """An object as a message names it: ``object 3 'route' in layer 'paths'``."""
    called = f" {shown(name, 40)}" if isinstance(name, str) and name else ""
    return f"object {str(object_id)[:12]}{called} in layer {shown(layer, 40)}"


# -- TMX -------------------------------------------------------------------------------------


def _attribute(element: etree.Element, path: str, name: str, whole: bool = False) -> str:
    if name not in element.attrib:
        raise _Bad(f"{path} has no {name!r} attribute")
    value = element.attrib[name]
    if whole and not re.fullmatch(r"-?\d{1,12}", value.strip()):
        raise _Bad(f"{path}'s {name!r} must be a whole number, got {shown(value)}")
    return value


def _finite(element: etree.Element, path: str, name: str) -> None:
    """An attribute pytiled-parser reads with ``float()``: a finite number, or refused by name (``nan``, ``1e999``)."""
    value = element.attrib.get(name)
    if value is None:
        return
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise _Bad(f"{path}'s {name!r} must be a finite number, got {shown(value)}")


def _points(element: etree.Element, path: str) -> None:
    """A polyline's or polygon's ``points``: "x,y x,y ...", each a finite number."""
    for kind in ("polyline", "polygon"):
        shape = element.find(kind)
        if shape is None:
            continue
        text = shape.attrib.get("points", "")
        pairs = text.split()
        if not pairs:
            raise _Bad(f"{path}'s <{kind}> has no points")
        for pair in pairs:
            values = pair.split(",")
            if len(values) != 2 or not all(math.isfinite(number) for number in map(_float_or_nan, values)):
                raise _Bad(f"{path}'s <{kind}> point {shown(pair, 40)} is not two finite numbers x,y")


def _float_or_nan(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def _xml_properties(root: etree.Element, kind: str) -> None:
    """Every property of an XML map, tileset or template against its type (``engine.tiles.properties``)."""
    check_xml_properties(root, {"map": "the map", "tileset": f"tileset {shown(root.get('name'), 40)}",
                                "template": "the template"}.get(kind, f"the {kind}"))
    for tileset in root.iter("tileset"):
        name = shown(tileset.get("name"), 40)
        if tileset is not root:
            check_xml_properties(tileset, f"tileset {name}")
        for tile in tileset.iter("tile"):
            check_xml_properties(tile, f"tile {str(tile.get('id'))[:12]} of tileset {name}")
    for tag in ("layer", "objectgroup", "group", "imagelayer"):
        for layer in root.iter(tag):
            check_xml_properties(layer, f"layer {shown(layer.get('name'), 40)}")
            for item in layer.findall("object"):
                check_xml_properties(item, _object_owner(item.get("id"), item.get("name"), layer.get("name")))
    for item in root.findall("object"):  # a template's object
        check_xml_properties(item, "the template's object")


def _tmx_map(root: etree.Element) -> Named:
    if root.tag != "map":
        raise _Bad(f"its root element is <{str(root.tag)[:40]}>, not <map>")
    for name in ("width", "height", "tilewidth", "tileheight", "nextlayerid", "nextobjectid", "infinite"):
        _attribute(root, "<map>", name, whole=True)
    for name in ("orientation", "renderorder", "tiledversion", "version"):
        _attribute(root, "<map>", name)
    _xml_properties(root, "map")
    named: Named = []
    for index, tileset in enumerate(root.iter("tileset")):
        path = f"<tileset> {index + 1}"
        first_gid = int(_attribute(tileset, path, "firstgid", whole=True))
        if "source" in tileset.attrib:
            named.append(("tileset", tileset.attrib["source"], first_gid))
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
        path = f"<object> {index + 1} (id {shown(item.attrib.get('id'))})"
        _attribute(item, path, "id", whole=True)
        if "template" in item.attrib:
            named.append(("template", item.attrib["template"], 0))
        for name in ("x", "y"):
            if "template" not in item.attrib:
                _attribute(item, path, name)
        for name in ("x", "y", "width", "height", "rotation"):
            _finite(item, path, name)
        if ("width" in item.attrib) != ("height" in item.attrib):
            raise _Bad(f"{path} has a width or a height but not both")
        if item.attrib.get("visible", "1") not in ("0", "1"):
            raise _Bad(f"{path}'s 'visible' must be 0 or 1, got {shown(item.attrib['visible'])}")
        _points(item, path)
    return named
