"""What a map holds and names, checked before pytiled-parser reads it: bounded, regular files, beside the map.

pytiled-parser inflates compressed layer data with no limit (a 2x2 map can inflate to a
gigabyte) and opens every file a map names itself (external tilesets, object templates),
so a FIFO there blocks forever and ``../../etc/passwd`` is read. This pre-pass reads the
map (and each external tileset and template) bounded, inflates each tile layer's data at
most to the bytes its tiles take, and checks every file named: a regular file (a symlink
is followed, then its target checked), bounded in size, inside the map's own directory
tree. Any problem raises ``MapError`` in one line naming the map and the bad reference.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import stat
import zlib
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from engine.disk.reading import file_kind, read_bounded
from engine.messages import one_line, shown_name
from engine.tiles.model import MapError
from engine.tiles.precheck import refuse_declarations

__all__ = ["MAX_NAMED_BYTES", "check_map_files"]

MAX_NAMED_BYTES = 64 * 1024 * 1024
"""The largest file a map may name (a tileset, a template, a tileset's image)."""
_GID_BYTES = 4  # a tile layer's base64 data holds one 32-bit tile id per cell
_DEPTH = 8  # templates name tilesets; nothing nests deeper than a few files


def check_map_files(file: Path, where: str, max_bytes: int, max_cells: int) -> None:
    """Check the map ``file`` and everything it names (see the module); ``MapError`` naming the problem."""
    _Checker(file, where, max_bytes, max_cells).document(file, 0)


class _Checker:
    def __init__(self, file: Path, where: str, max_bytes: int, max_cells: int) -> None:
        self.root = file.parent.resolve()
        self.where = where
        self.max_bytes = max_bytes
        self.max_cells = max_cells
        self.seen: set[Path] = set()

    def document(self, path: Path, depth: int) -> None:
        """Read the map, tileset or template at ``path`` bounded and check what it holds and names."""
        if depth > _DEPTH:
            raise MapError(f"{self.where}: its files name each other more than {_DEPTH} deep "
                           f"at {shown_name(path.name)}")
        try:
            data = read_bounded(path, self.max_bytes if depth == 0 else MAX_NAMED_BYTES, "the file")
        except OSError as error:
            raise MapError(f"{self.where}: {error}") from None
        if path.suffix.lower() in (".tmx", ".tsx", ".tx"):
            self._xml(data, path, depth)
        elif path.suffix.lower() in (".tmj", ".json", ".tsj", ".tj"):
            try:
                document = json.loads(data)
            except (ValueError, RecursionError):
                return  # not JSON: pytiled-parser's error, which read_map words, says so
            self._json(document, path, depth)
        else:
            raise MapError(f"{self.where} names {shown_name(path.name)}, which is neither a Tiled JSON "
                           "(.tmj/.tsj/.tj) nor XML (.tmx/.tsx/.tx) file")

    def named(self, reference: Any, beside: Path, depth: int, parse: bool) -> None:
        """Check one file a map names (relative to ``beside``); read it too when it is a tileset or template."""
        if not isinstance(reference, str) or not reference:
            return  # not a file name: the parser's error says what is wrong
        shown = shown_name(reference)
        target = (beside / reference).resolve()
        if target != self.root and self.root not in target.parents:
            raise MapError(f"{self.where} names {shown}, outside its directory: a map may only use files "
                           "beside it or below")
        if not parse:
            self._regular(target, shown)
            return
        if target in self.seen:
            return
        self.seen.add(target)
        self._regular(target, shown)
        self.document(target, depth + 1)

    def _regular(self, target: Path, shown: str) -> None:
        try:
            status = os.stat(target)
        except OSError as error:
            raise MapError(f"{self.where} names {shown}, which cannot be read: {error.strerror or error}") from None
        if not stat.S_ISREG(status.st_mode):
            raise MapError(f"{self.where} names {shown}, which is {file_kind(status.st_mode)}, not a file")
        if status.st_size > MAX_NAMED_BYTES:
            raise MapError(f"{self.where} names {shown}, {status.st_size:,} bytes: more than a map's file may be "
                           f"({MAX_NAMED_BYTES:,})")

    def _json(self, document: Any, path: Path, depth: int) -> None:
        if not isinstance(document, dict):
            return
        beside = path.parent
        if isinstance(document.get("image"), str):
            self.named(document["image"], beside, depth, False)
        for tile in _dicts(document.get("tiles")):
            self.named(tile.get("image"), beside, depth, False)
        for tileset in _dicts(document.get("tilesets")) + _dicts([document.get("tileset")]):
            if "source" in tileset:
                self.named(tileset["source"], beside, depth, True)
            else:
                self._json({"image": tileset.get("image"), "tiles": tileset.get("tiles")}, path, depth)
        if isinstance(document.get("object"), dict):  # a template
            self._json({"objects": [document["object"]]}, path, depth)
        for item in _dicts(document.get("objects")):
            if "template" in item:
                self.named(item["template"], beside, depth, True)
        self._json_layers(document.get("layers"), path, depth, 0)

    def _json_layers(self, layers: Any, path: Path, depth: int, nesting: int) -> None:
        for layer in _dicts(layers):
            if nesting > 32:
                raise MapError(f"{self.where}: layer groups nest more than 32 deep")
            name = str(layer.get("name", ""))
            if isinstance(layer.get("data"), str):
                self._data(layer["data"], layer.get("compression"), name, layer.get("width"), layer.get("height"))
            for chunk in _dicts(layer.get("chunks")):
                if isinstance(chunk.get("data"), str):
                    self._data(chunk["data"], layer.get("compression"), name, chunk.get("width"), chunk.get("height"))
            if isinstance(layer.get("image"), str):
                self.named(layer["image"], path.parent, depth, False)
            self._json({"objects": layer.get("objects")}, path, depth)
            self._json_layers(layer.get("layers"), path, depth, nesting + 1)

    def _xml(self, data: bytes, path: Path, depth: int) -> None:
        what = {".tsx": "tileset", ".tx": "template"}.get(path.suffix.lower())
        refuse_declarations(data, f"{self.where}'s {what} {shown_name(path.name)}" if what else self.where)
        try:
            root = ElementTree.fromstring(data)
        except ElementTree.ParseError:
            return  # not XML: pytiled-parser's error, which read_map words, says so
        beside = path.parent
        for element in root.iter():
            if element.tag == "image":
                self.named(element.get("source"), beside, depth, False)
            elif element.tag == "tileset" and element.get("source") is not None:
                self.named(element.get("source"), beside, depth, True)
            elif element.tag == "object" and element.get("template") is not None:
                self.named(element.get("template"), beside, depth, True)
            elif element.tag == "layer":
                name = element.get("name", "")
                for holder in element.iter("data"):
                    if holder.get("encoding") == "base64":
                        self._data(holder.text or "", holder.get("compression"), name,
                                   element.get("width"), element.get("height"))
                    for chunk in holder.iter("chunk"):
                        if holder.get("encoding") == "base64":
                            self._data(chunk.text or "", holder.get("compression"), name,
                                       chunk.get("width"), chunk.get("height"))

    def _data(self, text: str, compression: Any, layer: str, width: Any, height: Any) -> None:
        """A tile layer's base64 data, decoded and inflated at most to what its ``width x height`` tiles take."""
        try:
            columns, rows = int(width), int(height)
        except (TypeError, ValueError):
            raise MapError(f"{self.where}: layer {layer!r} has no whole width and height in tiles "
                           f"(got {one_line(str(width))[:20]} x {one_line(str(height))[:20]})") from None
        if not (columns > 0 and rows > 0 and columns * rows <= self.max_cells):
            raise MapError(f"{self.where}: layer {layer!r} is {columns} x {rows} tiles: a layer has 1 to "
                           f"{self.max_cells:,} cells")
        limit = columns * rows * _GID_BYTES
        try:
            raw = base64.b64decode("".join(text.split()), validate=True)
        except (binascii.Error, ValueError):
            raise MapError(f"{self.where}: layer {layer!r}'s data is not valid base64") from None
        if compression in (None, ""):
            inflated, rest = raw, b""
        elif compression in ("zlib", "gzip"):
            inflater = zlib.decompressobj(zlib.MAX_WBITS | (16 if compression == "gzip" else 0))
            try:
                inflated = inflater.decompress(raw, limit + 1)
            except zlib.error as error:
                raise MapError(f"{self.where}: layer {layer!r}'s {compression} data is damaged ({error})") from None
            rest = inflater.unused_data  # a second gzip member would inflate past this check
            if len(inflated) <= limit and not inflater.eof:
                raise MapError(f"{self.where}: layer {layer!r}'s {compression} data is cut short")
        else:
            raise MapError(f"{self.where}: layer {layer!r} uses {one_line(str(compression))[:40]!r} compression: "
                           "tickswap reads tile data uncompressed or compressed with zlib or gzip")
        if len(inflated) > limit or rest:
            raise MapError(f"{self.where}: layer {layer!r} holds more data than its {columns} x {rows} tiles")


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
