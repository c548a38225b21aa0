"""The save format and its checks, shared by the reader and the writer: the one definition of a valid save.

A save holds everything a world needs to continue exactly as the original would, hash for
hash: every entity's class, esper id, buffered values, committed signals, previous values
and declared ``saved`` attributes (references to other entities are stored as ids, and
to despawned ones as ``$dead`` with their class: they load as despawned stubs), each
crowd's capacity and committed member arrays, the tick count, the state of
``world.random``, the id counter and the input queue, and ``meta``: which game it belongs
to (its name, and for a game file the digest of its content).

``load_world`` runs these checks on a file before anything is built; ``save_world`` runs the very
same checks on what it is about to write, so a save that tickswap wrote is always one it
reads back (a buffered ``x = 'left'``, a ``buffered(False)`` set to ``1``, a string over
the read limit or an id past ``MAX_ID`` is refused by name when saving, not found
"damaged" when loading). Class names are resolved only among classes that already exist
(the game's own and the engine's when a game is given); nothing is ever imported.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Protocol

from engine.buffering.fields import class_layout
from engine.buffering.own import OwnBuffers
from engine.constants import MAX_PLAYERS, MAX_SEED
from engine.disk.reading import NotAFile, read_bounded
from engine.entity import Entity
from engine.input.checks import check_events, check_saved_sticks, listed
from engine.input.events import STICKS
from engine.messages import shown, shown_name
from engine.schema import (
    ENGINE_VERSION,
    FieldError,
    check_depth,
    expect_keys,
    expect_number,
    expect_str,
    expect_whole,
    is_whole,
    parse_json,
    version_matches,
)
from engine.state.looks import own_shown
from engine.state.names import GAME_MODULE_PREFIX, __version__, class_file, class_name, class_origin
from engine.state.values import MAX_ID, DeadReference, check_like_default, check_value, decode
from engine.world.music import check_saved_music

__all__ = ["FORMAT", "MAX_SAVE_BYTES", "VERSION", "Game", "SaveError", "check_document", "check_game", "check_world",
           "classes_by_name", "entity_classes", "music_beside", "parse_save", "read_save"]


class Game(Protocol):
    """What a save asks of the game it is loaded into (``engine.files.game.Game`` is one).

    A save sits with the world it holds, below the files package that finds and imports
    games, so it names the game by what it uses: which classes are the game's own, its name
    and file (for messages, and the music's place), its digest and its window's size.
    """

    @property
    def name(self) -> str:
        """The game's name, as messages show it."""

    @property
    def path(self) -> Path | None:
        """The game's file, or ``None`` for a sample game found by name."""

    @property
    def digest(self) -> str | None:
        """The digest of the game's file, or ``None``."""

    @property
    def view_size(self) -> tuple[int, int]:
        """The game's window size, which a loaded world takes (the save's is not used)."""

    @property
    def root(self) -> Path | None:
        """The directory of the game's own files: a save's music inside it is named relative to it."""

    def owns_class(self, kind: type) -> bool:
        """Whether ``kind`` is one of the game's own classes."""

    def loaded_class(self, kind: type) -> bool:
        """Whether ``kind`` is the copy of a class that the game itself loaded."""

FORMAT = "tickswap-save"
"""The ``format`` field of every save file."""
VERSION = 2
"""The save format version this tickswap writes and reads (2: checked fields, non-finite floats tagged)."""
MAX_SAVE_BYTES = 512 * 1024 * 1024
"""A save larger than this is refused before it is read."""
MAX_ENTITIES = 1_000_000
MAX_TICK_COUNT = 2**63 - 1
MAX_CROWD_BYTES = 2 * 1024**3
"""The most memory a loaded crowd may ask for (capacity x columns x 3 buffers x 4 bytes)."""
_CLASS_NAME = re.compile(r"[A-Za-z_][\w.]{0,199}:[A-Za-z_][\w.<>]{0,199}")


class SaveError(ValueError):
    """A world could not be saved or loaded; the message names the file and the problem."""


_ENTITY_KEYS = ("crowd", "id", "class", "buffered", "saved", "signals", "previous", "random")
_SHOWN_KEYS = ("look", "parts")
"""Optional: what an entity shows of its own (absent: its class's look and parts)."""


def music_beside(data: Any, where: str) -> str:
    """A saved track named inside its game's directory, ``{"beside": "music/theme.ogg"}``: the relative path,
    checked as a picture beside its class is (``/``-separated, never leaving the directory)."""
    record = expect_keys(data, where, ("beside",))
    relative = expect_str(record["beside"], f"{where}.beside", 4096)
    parts = relative.split("/")
    if not relative or "\0" in relative or "\\" in relative or relative.startswith("/") or os.pardir in parts \
            or "" in parts:
        raise FieldError(f"{where}.beside must be a relative path inside its game's directory, got {shown(relative)}")
    return relative


def _is_number(value: Any) -> bool:
    """A saved number: an int or float (not a bool), or a tagged non-finite float."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) or (
        isinstance(value, dict) and "$float" in value)


def _check_random_state(state: Any, where: str) -> None:
    """A ``random.Random.getstate()`` as JSON: [3, 625 words, gauss or null]."""
    if not (isinstance(state, list) and len(state) == 3 and isinstance(state[1], list) and len(state[1]) == 625):
        raise FieldError(f"{where} is not the state of a Python random generator")
    if not (is_whole(state[0]) and state[0] == 3):  # 3.0 is no version, as 60.0 is no tick count
        raise FieldError(f"{where}: the generator's version must be the whole number 3, got {shown(state[0])}")
    for word in state[1][:624]:
        expect_whole(word, where, 0, 2**32 - 1)
    expect_whole(state[1][624], where, 1, 624)
    if state[2] is not None:
        expect_number(state[2], f"{where} (gauss)", -1e308, 1e308)


def _check_entity_record(record: Any, where: str, kind: type[Entity], ids: set[int], tick_count: int,
                         dead: list[DeadReference]) -> None:
    """Check one entity record against its class (called once the class is resolved)."""
    expect_keys(record, where, _ENTITY_KEYS, _SHOWN_KEYS)
    own_shown(record, where, kind)
    defaults = kind.buffered_fields()
    names = tuple(defaults)
    buffered = expect_keys(record["buffered"], f"{where}.buffered", names)
    for name, value in buffered.items():
        check_value(value, f"{where}.{name}", ids, dead)
        check_like_default(value, defaults[name], f"{where}.{name}")
    saved = expect_keys(record["saved"], f"{where}.saved", kind.saved)
    for name, value in saved.items():
        check_value(value, f"{where}.{name}", ids, dead)
    signals = record["signals"]
    declared = class_layout(kind).signals
    if not isinstance(signals, dict):
        raise FieldError(f"{where}.signals must be an object of signal name -> value")
    for name, value in signals.items():
        if name not in declared:
            raise FieldError(f"{where}.signals names {str(name)[:40]!r}, which {kind.__name__} does not declare")
        check_value(value, f"{where}.signals.{name}", ids, dead)
        combine = declared[name].combine
        if combine is None and value is not True:
            raise FieldError(f"{where}.signals.{name} is a flag: it can only be true, got {value!r:.40}")
        # A valued signal declares no type; its combined value is checked where the combine says what it makes.
        if combine is sum and not _is_number(value):
            raise FieldError(f"{where}.signals.{name} is signal(sum): its value must be a number, got {value!r:.40}")
        if combine is tuple and not (isinstance(value, dict) and "$tuple" in value):
            raise FieldError(f"{where}.signals.{name} is signal(tuple): its value must be a $tuple, got {value!r:.40}")
    previous = expect_keys(record["previous"], f"{where}.previous", ("tick", "values"))
    expect_whole(previous["tick"], f"{where}.previous.tick", -1, tick_count)
    values = previous["values"]
    listed = values.get("$tuple") if isinstance(values, dict) else None
    if not (isinstance(listed, list) and len(listed) == len(names)):
        raise FieldError(f"{where}.previous.values must be a $tuple of the {len(names)} buffered values")
    for name, value in zip(names, values["$tuple"]):
        check_value(value, f"{where}.previous.{name}", ids, dead)
        check_like_default(value, defaults[name], f"{where}.previous.{name}")
    if record["random"] is not None:
        _check_random_state(record["random"], f"{where}.random")
    crowd = record["crowd"]
    if not issubclass(kind, OwnBuffers):
        if crowd is not None:
            raise FieldError(f"{where}.crowd must be null: {kind.__name__} is not a Crowd")
        return
    crowd = expect_keys(crowd, f"{where}.crowd", ("capacity", "count", "fields"))
    columns = sum(kind.fields.values())
    limit = max(1, MAX_CROWD_BYTES // (12 * max(1, columns)))
    capacity = expect_whole(crowd["capacity"], f"{where}.crowd.capacity", 1, limit)
    count = expect_whole(crowd["count"], f"{where}.crowd.count", 0, capacity)
    fields = expect_keys(crowd["fields"], f"{where}.crowd.fields", tuple(kind.fields))
    for name, encoded in fields.items():
        expect_str(encoded, f"{where}.crowd.fields.{name}", MAX_SAVE_BYTES)
        try:
            size = len(base64.b64decode(encoded, validate=True))
        except (binascii.Error, ValueError):
            raise FieldError(f"{where}.crowd.fields.{name} is not base64") from None
        if size != count * kind.fields[name] * 4:
            raise FieldError(f"{where}.crowd.fields.{name} holds {size} bytes; {count} members need "
                             f"{count * kind.fields[name] * 4}")




def check_document(data: Any) -> dict[str, Any]:
    """The top of a save: its format, version, fields, engine version string and ``meta``.

    Returns the engine version it was written by (whether this tickswap may read it is the
    reader's question, not the format's).
    """
    check_depth(data)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise FieldError(f"not a tickswap save (no format {FORMAT!r})")
    if not (is_whole(data.get("version")) and data["version"] == VERSION):
        raise FieldError(f"save format version {shown(data.get('version'))}; this tickswap reads version "
                         f"{VERSION}")
    expect_keys(data, "the save", ("format", "version", "engine", "world", "entities", "meta"))
    expect_str(data["engine"], "engine", 64, ENGINE_VERSION)
    meta = data["meta"]
    if not isinstance(meta, dict):
        raise FieldError("meta must be an object")
    for key, value in meta.items():
        expect_str(key, "a meta field's name", 100)
        check_value(value, f"meta.{key}", set())
    if "game" in meta:
        expect_str(meta["game"], "meta.game", 255)
    if meta.get("game_digest") is not None:
        expect_str(meta["game_digest"], "meta.game_digest", 64, re.compile(r"[0-9a-f]{64}"))
    return data


def classes_by_name() -> dict[str, list[type[Entity]]]:
    """Every Entity class that exists in this process, by its name in saves (``class_name``; imports nothing).

    Several classes may share a name: one game file loaded twice (imported, and loaded
    with ``load_game``), or two games' ``game:Ball``. Which one a save means is then for
    the game to say (``Game.owns_class``).
    """
    found: dict[str, list[type[Entity]]] = {}
    stack: list[type[Entity]] = [Entity]
    seen: set[type[Entity]] = set()
    while stack:
        kind = stack.pop()
        if kind in seen:
            continue
        seen.add(kind)
        found.setdefault(class_name(kind), []).append(kind)
        stack.extend(kind.__subclasses__())
    return found


def entity_classes() -> dict[str, type[Entity] | None]:
    """Every Entity class that exists in this process, by ``module:qualname``; a name several share maps to ``None``."""
    return {name: kinds[0] if len(kinds) == 1 else None for name, kinds in classes_by_name().items()}


def _content(kind: type) -> str | None:
    """The SHA-256 of the file ``kind``'s module was loaded from (``None`` without one): copies of a file agree."""
    file = class_file(kind)
    if file is None:
        return None
    if file not in _CONTENTS:
        try:
            _CONTENTS[file] = hashlib.sha256(read_bounded(file, MAX_SAVE_BYTES, "a game's module")).hexdigest()
        except (OSError, NotAFile):
            _CONTENTS[file] = None
    return _CONTENTS[file]


_CONTENTS: dict[str, str | None] = {}


def _one_games_classes(records: list[Any], meta: Any, near: str | None = None) -> dict[str, type[Entity] | None]:
    """Classes for a save loaded without its game: a name several loaded classes share is resolved as one game's.

    A game file's classes are ``game:Ball`` in every game, so a process that loaded two
    games (or one game file twice) has two ``game:Ball``. Only the save's own evidence
    decides, never a guess: the digest its ``meta`` records; copies of one file (the same
    content: either is the game, and the one the process imported itself is taken, not
    ``load_game``'s); the directory of the save's other classes, where those are not in
    doubt; last, the game this process imported itself (not a copy ``load_game`` made),
    where all of it lies in the save's own directory (``near``) or the working directory,
    as a test's game and its save do. What is still in doubt stays ``None``, and is
    refused naming both.
    """
    by_name = classes_by_name()
    found = {name: kinds[0] if len(kinds) == 1 else None for name, kinds in by_name.items()}
    digest = meta.get("game_digest") if isinstance(meta, dict) else None
    names = {record["class"] for record in records if isinstance(record, dict) and isinstance(record.get("class"), str)}
    doubtful = {name: by_name[name] for name in names if len(by_name.get(name, [])) > 1}
    if not doubtful:
        return found
    for name, kinds in doubtful.items():
        if isinstance(digest, str) and any(_content(kind) == digest for kind in kinds):
            kinds = [kind for kind in kinds if _content(kind) == digest]
        if len({_content(kind) for kind in kinds}) == 1 and _content(kinds[0]) is not None:
            imported = [kind for kind in kinds if not kind.__module__.startswith(GAME_MODULE_PREFIX)]
            kinds = (imported or kinds)[:1]
        doubtful[name] = kinds
        found[name] = kinds[0] if len(kinds) == 1 else None
    # Then the names still in doubt, by the directory the save's settled classes come from.
    places = {os.path.dirname(file) for name in names
              if (kind := found.get(name)) is not None and not _is_engine(kind) and (file := class_file(kind))}
    for name, kinds in doubtful.items():
        if found[name] is None and places:
            kinds = [kind for kind in kinds if os.path.dirname(class_file(kind) or "") in places]
            found[name] = kinds[0] if len(kinds) == 1 else None
    still = [name for name in doubtful if found[name] is None]
    local = {os.path.realpath(near or os.curdir), os.path.realpath(os.curdir)}
    own = {name: [kind for kind in doubtful[name] if not kind.__module__.startswith(GAME_MODULE_PREFIX)
                  and os.path.dirname(os.path.realpath(class_file(kind) or "")) in local] for name in still}
    if still and all(len(kinds) == 1 for kinds in own.values()):
        found.update({name: kinds[0] for name, kinds in own.items()})
    return found


def _is_engine(kind: type) -> bool:
    return kind.__module__ == "engine" or kind.__module__.startswith("engine.")


def _both(kinds: list[type[Entity]]) -> str:
    return " and ".join(class_origin(kind) for kind in kinds[:2]) + (" ..." if len(kinds) > 2 else "")


def _entity_class(name: str, where: str, game: Game | None, classes: dict[str, type[Entity] | None],
                  by_name: dict[str, list[type[Entity]]] | None = None) -> type[Entity]:
    """The class a save names, among the game's own classes and the engine's (never by importing)."""
    if game is not None:
        named = (by_name or {}).get(name, [])
        candidates = [kind for kind in named if _is_engine(kind) or game.owns_class(kind)]
        if len(candidates) > 1:
            # One of the game's files loaded twice in this process: the copy the game itself loaded is its.
            loaded = [kind for kind in candidates if game.loaded_class(kind)]
            candidates = loaded if len(loaded) == 1 else candidates
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            raise FieldError(f"{where} names class {name!r}, which more than one class of {game.name} has: "
                             f"{_both(candidates)}")
        if named:
            raise FieldError(f"{where} names class {name!r}, which is not one of {game.name}'s classes or the engine's")
        raise FieldError(f"{where} names class {name!r}, which is no Entity class of {game.name}")
    if name in classes and classes[name] is None:
        both = _both(classes_by_name().get(name, []))
        raise FieldError(f"{where} names class {name!r}, which more than one loaded class has ({both}): give the "
                         "save its game: World.load(path, game=load_game(...)) or engine.testing.load_save(game, "
                         "path) (tickswap run GAME --load FILE on the command line)")
    kind = classes.get(name)
    if kind is None:
        raise FieldError(f"{where} names class {name!r}, which is no Entity class loaded here")
    return kind


def check_world(data: dict[str, Any], game: Game | None, classes: dict[str, type[Entity] | None] | None = None,
                *, writing: bool = False, near: str | None = None
                ) -> tuple[dict[str, Any], list[dict[str, Any]], list[type[Entity]], dict[int, type[Entity]]]:
    """Check the world and every entity record; returns them with each record's class, and despawned ones'.

    ``classes`` maps class names to classes (default: every Entity class in this process).
    ``writing``: the writer's own check, where a despawned entity's class need only be a
    class name (the reader resolves it against the game, which the writer is not given).
    ``near``: the save's directory, where a save read without its game looks for the game
    a name several loaded games share belongs to (``_one_games_classes``).
    """
    info = expect_keys(data["world"], "world", ("tick_count", "seed", "random", "last_id", "input"),
                       ("music", "players", "inputs"))
    if "music" in info:
        music = info["music"]
        if isinstance(music, list) and len(music) == 3 and isinstance(music[0], dict):
            check_saved_music([music_beside(music[0], "world.music"), *music[1:]], "world.music")
        else:
            check_saved_music(music, "world.music")
    tick_count = expect_whole(info["tick_count"], "world.tick_count", 0, MAX_TICK_COUNT)
    expect_whole(info["seed"], "world.seed", 0, MAX_SEED)  # what World(seed=...) takes
    _check_random_state(info["random"], "world.random")
    last_id = expect_whole(info["last_id"], "world.last_id", 0, MAX_ID)
    records = data["entities"]
    if not isinstance(records, list) or len(records) > MAX_ENTITIES:
        raise FieldError(f"entities must be a list of at most {MAX_ENTITIES}")
    ids: set[int] = set()
    for index, record in enumerate(records):
        record = expect_keys(record, f"entities[{index}]", _ENTITY_KEYS, _SHOWN_KEYS)
        entity_id = expect_whole(record["id"], f"entities[{index}].id", 1, MAX_ID)
        if entity_id in ids:
            raise FieldError(f"entities[{index}].id {entity_id} is used twice")
        ids.add(entity_id)
    if ids and last_id < max(ids):
        raise FieldError(f"world.last_id is {last_id}, below entity id {max(ids)}: new entities would reuse ids")
    _check_saved_queue(info["input"], "world.input")
    players = expect_whole(info.get("players", 1), "world.players", 1, MAX_PLAYERS)
    if players == 1 and "inputs" in info:
        raise FieldError("world.inputs (players 1 and up) in a save of one player (world.players absent or 1)")
    if players > 1:
        others = info.get("inputs")
        if not isinstance(others, list) or len(others) != players - 1:
            raise FieldError(f"world.inputs must be a list of {players - 1} players' input (players 1 to "
                             f"{players - 1}; world.input is player 0's), got {shown(others)[:60]}")
        for player, queued in enumerate(others, 1):
            _check_saved_queue(queued, f"world.inputs[{player - 1}] (player {player})")
    if classes is None:
        classes = _one_games_classes(records, data.get("meta"), near) if game is None else entity_classes()
    by_name = classes_by_name() if game is not None else None
    kinds = []
    dead: list[DeadReference] = []
    resolved: dict[str, type[Entity]] = {}  # a name resolves alike in every record: a thousand balls, one lookup
    for index, record in enumerate(records):
        where = f"entities[{index}] (id {record['id']})"
        name = expect_str(record["class"], f"{where}.class", 401, _CLASS_NAME)
        kind = resolved.get(name) or resolved.setdefault(name, _entity_class(name, where, game, classes, by_name))
        _check_entity_record(record, where, kind, ids, tick_count, dead)
        kinds.append(kind)
    dead_kinds: dict[int, type[Entity]] = {}
    for dead_id, name, where in dead:
        if not _CLASS_NAME.fullmatch(name):
            raise FieldError(f"{where} names a despawned entity's class {name[:60]!r}, which is not a class name")
        if dead_id > last_id:
            raise FieldError(f"{where} refers to despawned entity {dead_id}, above world.last_id {last_id}")
        if writing:
            continue
        kind = _entity_class(name, where, game, classes, by_name)
        if dead_kinds.setdefault(dead_id, kind) is not kind:
            raise FieldError(f"{where} gives despawned entity {dead_id} two different classes")
    return info, records, kinds, dead_kinds


# -- reading a file ------------------------------------------------------------------------


def read_save(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The file parsed with bounds, with the right format, version and engine version, and a valid ``meta``."""
    if not os.fspath(path):
        raise SaveError("the save file name is empty")
    where = shown_name(path)
    try:
        # Bounded by the bytes read, not st_size (/dev/zero has none); FIFOs and devices refused by name.
        text = read_bounded(path, MAX_SAVE_BYTES, "the save").decode("utf-8")
    except NotAFile as error:
        raise SaveError(str(error)) from None
    except UnicodeDecodeError:
        raise SaveError(f"cannot read the save {where}: it is not UTF-8 text") from None
    return parse_save(text, where)


def parse_save(text: str, where: str) -> dict[str, Any]:
    """A save's text parsed with bounds and checked as ``read_save`` checks a file (``where`` names it)."""
    if len(text) > MAX_SAVE_BYTES:
        raise SaveError(f"{where} is {len(text):,} characters, more than a save may be ({MAX_SAVE_BYTES:,})")
    try:
        data = parse_json(text)
    except FieldError as error:
        raise SaveError(f"{where} is damaged: {error}") from None
    except json.JSONDecodeError as error:
        if _is_replay(text):
            raise SaveError(f"{where} is a replay (a recording made with --record), not a save: "
                            f"replay it with tickswap replay {where}") from None
        if not text.strip():
            raise SaveError(f"{where} is empty: it holds no save") from None
        if text.startswith("\ufeff"):
            raise SaveError(f"{where} starts with a byte-order mark (an editor's 'UTF-8 with BOM'): save it as plain "
                            "UTF-8") from None
        # Only an error at the very end (or a string never closed) suggests a file cut short.
        cut = "; truncated?" if error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string") else ""
        raise SaveError(f"{where} is damaged: not valid JSON at line {error.lineno}, column {error.colno} "
                        f"({error.msg}){cut}") from None
    except ValueError as error:
        raise SaveError(f"{where} is damaged: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveError(f"{where} is not a tickswap save (no format {FORMAT!r})")
    if not (is_whole(data.get("version")) and data["version"] == VERSION):
        raise SaveError(f"{where} is save format version {shown(data.get('version'))}; "
                        f"this tickswap reads version {VERSION}")
    try:
        written = check_document(data)["engine"]
    except FieldError as error:
        raise SaveError(f"{where} is damaged: {error}") from None
    if not version_matches(written, __version__):
        raise SaveError(f"{where} was saved by tickswap {written}; this is tickswap {__version__}")
    return data


def _is_replay(text: str) -> bool:
    """Whether ``text`` starts with a tickswap replay's header line (so a save is not what it is)."""
    first = text.split("\n", 1)[0]
    try:
        header = json.loads(first) if len(first) < 4096 else None
    except ValueError:
        return False
    return isinstance(header, dict) and header.get("format") == "tickswap-replay"


def check_game(meta: dict[str, Any], game: Game, where: str) -> tuple[str, str | None]:
    """Whether the save is ``game``'s: returns how to prefix a problem found later, and a note to print.

    A save is never refused here: a game is one game however it was loaded (``tickswap run
    NAME``, a path, a test's ``load_game`` or ``import``), and classes are named alike in
    all of them, so a save made one way loads another way; a save that names no game (a
    test's ``world.save()``) loads into the game the command names. Its classes and fields
    are checked like any save's, and only what does not fit is refused, with this prefix.
    """
    saved = meta.get("game")
    digest = meta.get("game_digest")
    if saved is None:
        return f"{where} names no game and does not fit {game.name}", None
    if digest is not None and game.digest is not None and digest != game.digest and saved == game.name:
        changed = (f"the game file changed since it was saved (digest {digest[:12]}, now "
                   f"{(game.digest or '')[:12]})")
        return f"{where}: {changed}, and the save no longer fits it", f"{where}: {changed}; every class and field fits"
    if saved == game.name or (digest is not None and digest == game.digest):
        return f"{where} is damaged", None
    return (f"{where} is a save of another game, {shown_name(saved)}, not of {game.name}",
            f"{where} was saved by {shown_name(saved)}; its classes and fields fit {game.name}, so it is loaded "
            "into it")


def _check_saved_queue(queued: Any, where: str) -> None:
    """One player's saved input queue (events waiting, held keys, mouse, sticks), checked as a replay's input lines are.

    A save holds one per player (``world.input`` for player 0, ``world.inputs`` for the others).
    """
    queued = expect_keys(queued, where, ("events", "held", "mouse"), ("sticks", "connected"))
    if "connected" in queued and queued["connected"] is not False:
        # Written only for a player dropped from a session: true is the default, never written.
        raise FieldError(f"{where}.connected is written only as false (a player dropped from a session), "
                         f"got {shown(queued['connected'])}")
    check_saved_sticks(queued.get("sticks", [[0.0, 0.0]] * STICKS), f"{where}.sticks")
    if not isinstance(queued["events"], list) or len(queued["events"]) > 100_000:
        raise FieldError(f"{where}.events must be a list")
    for value in (queued["events"], queued["held"], queued["mouse"]):
        check_value(value, where, set())
    for index, event in enumerate(queued["events"]):
        # The same checks as a replay's input lines: "12", NaN or 1e999 is no coordinate.
        check_events([listed(decode(event, {}))], f"{where}.events[{index}]")
    mouse = decode(queued["mouse"], {})
    if not (isinstance(mouse, list) and len(mouse) == 2):
        raise FieldError(f"{where}.mouse must be [x, y]")
    for value in mouse:
        expect_number(value, f"{where}.mouse", -1e9, 1e9)
    held = decode(queued["held"], {})
    if not isinstance(held, frozenset):
        raise FieldError(f"{where}.held must be a $set of keys")
    for key in held:
        # A held key is a code, as the queue keeps it: never a name, a flag or null (True == 1, the left button).
        if type(key) is not int or not 0 <= key < 2**63:
            raise FieldError(f"{where}.held holds {shown(key)}, which is not a key code")
