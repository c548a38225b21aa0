"""The replay file format: what a replay's lines are, and the one check of a whole file.

This module owns the format, so the writer (``recorder``) and the two readers
(``read_replay`` here, ``playback`` as the game runs) cannot disagree about it. A replay
is a JSON Lines file::

    {"format": "tickswap-replay", "version": 2, "game": "patrol", "game_digest": null, "seed": 0,
     "ms_per_update": 12.5, "engine": "0.1.0"}
    {"tick": 12, "input": [["key_press", 65363, 0.0, 0.0]]}
    {"tick": 60, "hash": "9f2c..."}
    ...
    {"end": 640, "hash": "41aa..."}

a header, then the input of every tick that had any, a state hash every 60 ticks, and an
end line (so a cut file is told from a complete one). A recording that does not start at
tick 0 (a run from ``--load``, a network session's late joiner) says so in its header
(``"start": 300``) and holds the world it starts from as its second line, a whole save
(``{"save": {...}}``, the save format of ``engine.world.save``, checked by its checks
before anything is built); its hashes are then due at the multiples of 60 after the
start. A network session's recording may say at which tick the session's input delay
changed (``{"tick": 300, "input_delay": 4}``, before that tick's input): every peer's
recording says the same, and playing back ignores it (it changes no state). The end line of a run that crashed
says where (``"crashed": 641``, the tick after the end), and replay checks the crash
comes back at that tick. The header names the game: a
registered game's name, or a game file's name with the SHA-256 of its content, so the
replay can later check that the file it is given is the one that was recorded.

A replay is data from elsewhere, so ``read_replay`` checks *every line* before anything
is built: types (a tick is a whole number, not ``"1"`` or ``1.5``), ranges (a positive,
finite step; a seed from 0, since ``random.seed(-3)`` is ``random.seed(3)``), order, a
hash line at every 60th tick up to the end (so a 2 KB file can't claim a trillion
ticks), line length and nesting. It streams (``scan``): memory stays proportional to one
line. A malformed, cut or wrong-version file raises ``ReplayError`` naming the file, the
line and the problem. ``read_lines`` and ``parse_record`` are shared with the ``--input``
script reader (``engine.input.scripts``), whose lines are a replay's input lines.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.constants import HASH_EVERY as HASH_EVERY  # defined in the leaf; kept here for importers
from engine.constants import MAX_INPUT_DELAY as MAX_INPUT_DELAY
from engine.constants import MAX_PLAYERS, MAX_SEED, MS_PER_UPDATE_RANGE
from engine.constants import MAX_TICKS as MAX_TICKS
from engine.disk.lines import MAX_LINE_BYTES as MAX_LINE_BYTES
from engine.disk.lines import MAX_START_BYTES as MAX_START_BYTES
from engine.disk.lines import REPLAY_FORMAT as FORMAT
from engine.disk.lines import ReplayError as ReplayError
from engine.disk.lines import parse_record as parse_record
from engine.disk.lines import read_lines as read_lines
from engine.input.checks import check_events
from engine.messages import shown, shown_name
from engine.schema import (
    ENGINE_VERSION,
    HEX_DIGEST,
    FieldError,
    expect_keys,
    expect_number,
    expect_str,
    expect_whole,
    is_whole,
    version_matches,
)
from engine.state.names import __version__
from engine.world.save.check import check_document

__all__ = ["FORMAT", "HASH_EVERY", "MAX_INPUT_DELAY", "MAX_LINE_BYTES", "MAX_START_BYTES", "MAX_TICKS", "VERSION",
           "Replay", "ReplayError", "check_header", "header_players", "new_header", "parse_record", "read_lines",
           "read_replay", "read_start", "scan"]

VERSION = 2
"""The replay format version this tickswap writes and reads (2: the header names the game file's digest)."""
_SAMPLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
_FILE_NAME = re.compile(r"[^/\\\x00-\x1f]{1,255}")


def new_header(*, game: str, seed: int, ms_per_update: float, game_digest: str | None,
               players: int = 1, start: int = 0) -> dict[str, Any]:
    """The header line of a new recording: the game, its seed, step and players, and this tickswap's version.

    ``players`` is written only when it is not 1, and ``start`` (the tick the recording
    starts at, from a save on its second line) only when it is not 0, so a one-player
    recording from the game's start is as it always was.
    """
    header = {"format": FORMAT, "version": VERSION, "game": game, "game_digest": game_digest, "seed": seed,
              "ms_per_update": ms_per_update, "engine": __version__}
    if players != 1:
        header["players"] = players
    if start:
        header["start"] = start
    return header


@dataclass(frozen=True)
class Replay:
    """A replay whose every line has been checked: the header and a summary of the rest.

    The lines themselves are not kept (a replay may be long); ``Playback`` streams them.
    """

    path: str
    game: str
    game_digest: str | None
    seed: int
    ms_per_update: float
    engine: str
    end: int
    end_hash: str
    input_ticks: int
    hash_count: int
    crashed: int | None = None
    """The tick at which the recorded run crashed (``end + 1``), or ``None`` when it ended cleanly."""
    players: int = 1
    """How many players the recorded world had (the header's ``players``; 1 when absent)."""
    start: int = 0
    """The tick the recording starts at (the header's ``start``): from the save on its second line when not 0."""


_Record = tuple[str, int, Any]  # ("input", tick, [InputEvent], player) | ("hash", tick, hex) | ("end", tick, hex)


def header_players(record: dict[str, Any]) -> int:
    """The players of a checked header: its ``players``, or 1 when it has none (a recording from before players)."""
    players: int = record.get("players", 1)
    return players


def header_start(record: dict[str, Any]) -> int:
    """The tick a checked header's recording starts at: its ``start``, or 0 (from the game's start)."""
    start: int = record.get("start", 0)
    return start


def check_header(path: str, record: dict[str, Any]) -> dict[str, Any]:
    """``record`` checked as the header line of the replay ``path``; returned as it is, or ``ReplayError``."""
    if record.get("format") != FORMAT:
        raise ReplayError(f"{path}:1: not a tickswap replay (the header has no format {FORMAT!r})")
    if not (is_whole(record.get("version")) and record["version"] == VERSION):
        raise ReplayError(f"{path}:1: replay format version {shown(record.get('version'))} is not supported; "
                          f"this tickswap reads version {VERSION}")
    try:
        expect_keys(record, "the header", ("format", "version", "game", "game_digest", "seed", "ms_per_update",
                                           "engine"), ("players", "start"))
        if "players" in record:
            expect_whole(record["players"], "players", 1, MAX_PLAYERS)
        if "start" in record:
            expect_whole(record["start"], "start (the tick the recording starts at, from its save)", 1, MAX_TICKS)
        digest = record["game_digest"]
        if digest is not None:
            expect_str(digest, "game_digest", 64, HEX_DIGEST)
            name = expect_str(record["game"], "game", 255, _FILE_NAME)
            if name in (".", ".."):
                raise FieldError(f"game must be a file name, got {name!r}")
        else:
            name = expect_str(record["game"], "game (a registered game's name)", 100, _SAMPLE_NAME)
            if name.endswith(".py"):
                raise FieldError(f"game {name!r} is a file name, but the header has no game_digest to check it by")
        expect_whole(record["seed"], "seed", 0, MAX_SEED)
        expect_number(record["ms_per_update"], "ms_per_update", *MS_PER_UPDATE_RANGE)
        written = expect_str(record["engine"], "engine", 64, ENGINE_VERSION)
    except FieldError as error:
        raise ReplayError(f"{path}:1: {error}") from None
    if not version_matches(written, __version__):
        raise ReplayError(f"{path}:1: recorded by tickswap {written}; this is tickswap {__version__}, "
                          "whose games may not replay the same")
    return record


def scan(path: str) -> Iterator[tuple[int, str, Any]]:
    """Yield ``(line, kind, value)`` for every line, checked: the header first, then the records.

    An input line's value is ``(tick, events, player)``; a hash's ``(tick, hex)``; the end's
    ``(end, hex, crashed)``.

    This is the one place the format is checked; ``read_replay`` and ``Playback`` both go through it.
    """
    long_lines: set[int] = set()
    lines = read_lines(path, long_lines)
    name = shown_name(path)
    first = next(lines, None)
    if first is None:
        raise ReplayError(f"{name}: the file is empty (no header line)")
    header = check_header(name, parse_record(name, *first))
    yield 1, "header", header
    start = header_start(header)
    last_tick = start
    last_rank = _HASH_RANK  # (tick, rank) of the last line: each line's comes after it
    players = header_players(header)
    hashes = 0
    first_due = (start // HASH_EVERY + 1) * HASH_EVERY
    number = 1
    end: int | None = None
    if start:
        long_lines.add(2)
        second = next(lines, None)
        if second is None:
            raise ReplayError(f"{name}:1: the header says the recording starts at tick {start}, from a save on its "
                              "second line, but the file stops after the header: it was cut short")
        number = second[0]
        yield number, "save", _check_start(name, number, parse_record(name, *second), header)
    for number, text in lines:
        if end is not None:
            raise ReplayError(f"{name}:{number}: a line after the end line")
        record = parse_record(name, number, text)
        try:
            if "input_delay" in record:
                expect_keys(record, "an input delay line", ("tick", "input_delay"))
                tick = expect_whole(record["tick"], "tick", start + 1, MAX_TICKS)
                delay = expect_whole(record["input_delay"], "input_delay", 0, MAX_INPUT_DELAY)
                if (tick, 0) <= (last_tick, last_rank):
                    raise FieldError(f"an input delay line for tick {tick} after a line of tick {last_tick}: it comes "
                                     "first at its tick")
                last_tick, last_rank = tick, 0
                yield number, "delay", (tick, delay)
                continue
            if "end" in record:
                expect_keys(record, "the end line", ("end", "hash"), ("crashed",))
                end = expect_whole(record["end"], "end", 0, MAX_TICKS)
                expect_str(record["hash"], "hash", 64, HEX_DIGEST)
                if "crashed" in record:
                    expect_whole(record["crashed"], "crashed (the tick the game crashed at)", 1, MAX_TICKS + 1)
                if "crashed" in record and record["crashed"] != end + 1:
                    raise FieldError(f"the end line says the game crashed at tick {shown(record['crashed'])}; "
                                     f"it ends at tick {end}, so the crash can only be at tick {end + 1}")
                if end < last_tick and not ("crashed" in record and last_tick == end + 1):
                    raise FieldError(f"the end line says tick {end}, but tick {last_tick} came before it")
                if end < start:
                    raise FieldError(f"the end line says tick {end}, before tick {start} the recording starts at")
                if end // HASH_EVERY - start // HASH_EVERY != hashes:
                    raise FieldError(f"the end line says tick {end}, but the file has hashes up to tick "
                                     f"{(start // HASH_EVERY + hashes) * HASH_EVERY} (one every {HASH_EVERY}): lines "
                                     "are missing or the end is wrong")
                yield number, "end", (end, record["hash"], record.get("crashed"))
                continue
            kind = "input" if "input" in record else "hash"
            expect_keys(record, "a tick line", ("tick", kind), ("player",) if kind == "input" else ())
            tick = expect_whole(record["tick"], "tick", start + 1, MAX_TICKS)
            player = 0
            if "player" in record:
                # Player 0's lines name no player: "player": 0 would be a second way to write one.
                player = expect_whole(record["player"], "player", 1, MAX_PLAYERS - 1)
                if player >= players:
                    said = "says" if "players" in header else "gives no players: 1 by default, so"
                    raise FieldError(f"player {player}, but the header {said} the recording has {players} "
                                     f"player{'s' if players != 1 else ''} (0 to {players - 1})")
            # One input line per player per tick, players in order, the hash after them.
            rank = 1 + player if kind == "input" else _HASH_RANK
            if (tick, rank) <= (last_tick, last_rank):
                raise FieldError(f"tick {tick} comes after tick {last_tick}: lines are out of order or repeated")
            if kind == "input":
                value: Any = (check_events(record["input"], "input"), player)
            else:
                value = expect_str(record["hash"], "hash", 64, HEX_DIGEST)
                due = first_due + hashes * HASH_EVERY
                if tick != due:
                    raise FieldError(f"a hash for tick {tick}, where the hash of tick {due} was due (one every 60 "
                                     "ticks)")
                hashes += 1
            last_tick, last_rank = tick, rank
        except FieldError as error:
            raise ReplayError(f"{name}:{number}: {error}") from None
        yield number, kind, (tick, *value) if kind == "input" else (tick, value)
    if end is None:
        raise ReplayError(f"{name}:{number}: the file stops without its end line: it was cut short")


_HASH_RANK = 1 + MAX_PLAYERS
"""Where a hash line comes among a tick's lines: after an input delay line (0) and every player's input."""


def _check_start(name: str, number: int, record: dict[str, Any], header: dict[str, Any]) -> dict[str, Any]:
    """The save line of a recording that starts from a save: a whole save document of the header's game and tick.

    Its entities are checked against the game's classes when the world is built
    (``engine.world.save.load_world_data``), before anything else runs.
    """
    where = f"{name}:{number}"
    if set(record) != {"save"}:
        raise ReplayError(f"{where}: the header says the recording starts from a save, so this line is "
                          '{"save": {...}} (the world it starts from), got the keys '
                          f"{', '.join(sorted(map(str, record)))[:80]}")
    document = record["save"]
    try:
        check_document(document)
        world = document.get("world")
        tick = world.get("tick_count") if isinstance(world, dict) else None
        if tick != header["start"]:
            raise FieldError(f"the save is of tick {shown(tick)}, but the header says the recording starts at tick "
                             f"{header['start']}")
        meta = document["meta"]
        if meta.get("game") != header["game"] or meta.get("game_digest") != header["game_digest"]:
            raise FieldError(f"the save is of the game {shown(meta.get('game'))}, the recording of {header['game']!r}")
    except FieldError as error:
        raise ReplayError(f"{where}: {error}") from None
    return dict(document)


def read_start(replay: Replay) -> dict[str, Any]:
    """The save a recording that starts from one holds (its second line), checked as ``scan`` checks it.

    ``ValueError`` for a recording that starts at tick 0 (it has none).
    """
    if not replay.start:
        raise ValueError(f"{shown_name(replay.path)} starts at tick 0, from no save")
    for _, kind, value in scan(replay.path):
        if kind == "save":
            return dict(value)
    raise ReplayError(f"{shown_name(replay.path)}:2: no save line")  # scan refuses a file without one first


def read_replay(path: str | os.PathLike[str]) -> Replay:
    """Check every line of a replay file; any problem raises ``ReplayError``. Builds nothing."""
    where = os.fspath(path)
    if not where:
        raise ReplayError("the replay file name is empty")
    header: dict[str, Any] = {}
    end, end_hash, inputs, hashes, crashed = 0, "", 0, 0, None
    for _, kind, value in scan(where):
        if kind == "header":
            header = value
        elif kind == "input":
            inputs += 1
        elif kind == "hash":
            hashes += 1
        elif kind == "end":
            end, end_hash, crashed = value
    return Replay(where, header["game"], header["game_digest"], header["seed"], float(header["ms_per_update"]),
                  header["engine"], end, end_hash, inputs, hashes, crashed, header_players(header),
                  header_start(header))

