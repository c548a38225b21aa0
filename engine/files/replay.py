"""Replays: record the inputs of every tick, play them back, and verify every hash.

A fixed-step engine promises determinism: the same inputs give the same game. A replay
makes the promise checkable. ``Recorder`` writes a JSON Lines file::

    {"format": "tickswap-replay", "version": 2, "game": "patrol", "game_digest": null, "seed": 0,
     "ms_per_update": 15.625, "engine": "0.1.0"}
    {"tick": 12, "input": [["key_press", 65363, 0.0, 0.0]]}
    {"tick": 60, "hash": "9f2c..."}
    ...
    {"end": 640, "hash": "41aa..."}

a header, then the input of every tick that had any, a state hash every 60 ticks, and an
end line (so a cut file is told from a complete one). The end line of a run that crashed
says where (``"crashed": 641``, the tick after the end), and replay checks the crash
comes back at that tick. The header names the game: a
registered game's name, or a game file's name with the SHA-256 of its content, so the
replay can later check that the file it is given is the one that was recorded.

A replay is data from elsewhere, so ``read_replay`` checks *every line* before anything
is built: types (a tick is a whole number, not ``"1"`` or ``1.5``), ranges (a positive,
finite step; a seed from 0, since ``random.seed(-3)`` is ``random.seed(3)``), order, a
hash line at every 60th tick up to the end (so a 2 KB file can't claim a trillion
ticks), line length and nesting. It streams: memory stays proportional to one line, and
``Playback`` reads the file a second time, line by line, as the game runs. A malformed,
cut or wrong-version file raises ``ReplayError`` naming the file, the line and the
problem; ``verify`` then builds the game again, feeds each tick exactly its recorded
input, and compares every hash: the first tick whose hash differs is where the game
stopped being deterministic.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, NoReturn

from engine.files.atomic import AtomicFile, OutputError
from engine.files.events import MAX_EVENTS_PER_TICK, check_events, check_key, listed, named_keys
from engine.files.reading import NotAFile, open_regular
from engine.files.schema import (
    HEX_DIGEST,
    FieldError,
    expect_keys,
    expect_number,
    expect_str,
    expect_whole,
    is_whole,
    parse_json,
    version_matches,
)
from engine.input import InputEvent
from engine.interrupts import Interrupted
from engine.messages import shown, shown_name
from engine.names import __version__
from engine.snapshot import UnhashableState
from engine.world import World

__all__ = ["FORMAT", "HASH_EVERY", "VERSION", "Playback", "Recorder", "Replay", "ReplayError", "ReplayResult",
           "check_events", "check_key", "read_input_script", "read_replay", "verify"]

FORMAT = "tickswap-replay"
"""The ``format`` field of a replay's header line."""
VERSION = 2
"""The replay format version this tickswap writes and reads (2: the header names the game file's digest)."""
HASH_EVERY = 60
"""A state hash is recorded every this many ticks."""
MAX_LINE_BYTES = 1 << 20
"""The longest line a replay may have (a tick with thousands of events fits easily)."""
MAX_TICKS = 2**31 - 1
"""The highest tick number a replay may name."""
MAX_SEED = 2**64 - 1
MS_PER_UPDATE_RANGE = (0.001, 60_000.0)
"""A step from a microsecond to a minute."""
_SAMPLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
_FILE_NAME = re.compile(r"[^/\\\x00-\x1f]{1,255}")
_VERSION = re.compile(r"\d{1,6}(\.\d{1,6}){1,3}([.+-][A-Za-z0-9.+-]{1,40})?")


class ReplayError(ValueError):
    """A replay file can't be used; the message names the file, the line and the problem."""


class Recorder:
    """Writes a replay while a game runs: call ``after_tick(world)`` after every tick, then ``close``.

    The recording goes to a temporary file and replaces ``path`` only when ``close``
    has written the end line and synced it (see ``engine.files.atomic``): an earlier
    recording at ``path`` survives a crash, a full disk or a Ctrl-C. ``game_digest`` is
    the content digest of a game file (``None`` for a registered game).
    """

    def __init__(self, path: str | os.PathLike[str], *, game: str, seed: int, ms_per_update: float,
                 game_digest: str | None = None) -> None:
        self.path = shown_name(path)
        header = {"format": FORMAT, "version": VERSION, "game": game, "game_digest": game_digest, "seed": seed,
                  "ms_per_update": ms_per_update, "engine": __version__}
        # The reader's own check of a header, before anything is written: what it would refuse is refused now.
        try:
            _header("", header)
        except ReplayError as error:
            raise ReplayError(f"cannot record {self.path}: {str(error).removeprefix(':1: ')}, which a replay could "
                              "not read back; nothing was written") from None
        try:
            self._output = AtomicFile(path)
            self._file: IO[str] | None = self._output.open("w")
        except OutputError as error:
            raise ReplayError(f"cannot write the replay: {error}") from None
        self._write(header)
        self._good: tuple[int, str, int] | None = None  # the last tick whose hash is written: (tick, hash, offset)

    def start(self, world: World) -> None:
        """Hash the state the recording starts from: if a later state cannot be hashed, it ends here at least.

        ``UnhashableState`` if even this state cannot be hashed (nothing is recorded then).
        """
        try:
            self._good = (world.tick_count, world.state_hash(), self._tell())
        except UnhashableState:
            self.abandon()
            raise

    def _tell(self) -> int:
        assert self._file is not None
        try:
            self._file.flush()
            return self._file.tell()
        except OSError as error:
            self._failed(error)

    def _hash(self, world: World) -> str:
        """The state hash of ``world``; if it cannot be hashed, the recording ends at the last tick that could."""
        try:
            return world.state_hash()
        except UnhashableState as error:
            if self._file is None or self._good is None:
                self.abandon()
                raise
            tick = self.end_at_last_hash()
            raise UnhashableState(f"{error}; the recording {self.path} ends at tick {tick}, the last one whose state "
                                  "was hashed") from None

    def end_at_last_hash(self) -> int:
        """End the recording at the last tick whose hash it holds, dropping what came after; returns that tick.

        For a world whose state can't be trusted or hashed (a tick torn by a forced stop, a
        value no snapshot holds): what the file then holds replays and verifies.
        """
        assert self._file is not None and self._good is not None
        tick, digest, offset = self._good
        try:
            self._file.flush()
            self._file.truncate(offset)
            self._file.seek(offset)
        except OSError as error:
            self._failed(error)
        self._write({"end": tick, "hash": digest})
        self._commit()
        return tick

    def _commit(self) -> None:
        self._file = None
        try:
            self._output.commit()
        except OutputError as error:
            raise ReplayError(f"cannot write the replay: {error}") from None

    def _write(self, record: dict[str, Any]) -> None:
        if self._file is None:
            return
        try:
            self._file.write(json.dumps(record, separators=(",", ":")) + "\n")
        except OSError as error:
            self._failed(error)

    def _failed(self, error: OSError) -> NoReturn:
        self._output.abort()
        self._file = None
        raise ReplayError(f"cannot write the replay {self.path}: {error.strerror or error}; "
                          "the previous file, if any, is intact") from None

    def _refuse(self, problem: str) -> None:
        self._output.abort()
        self._file = None
        raise ReplayError(f"cannot record {self.path}: {problem}, which a replay could not read back; "
                          "the previous file, if any, is intact")

    def _write_input(self, tick: int, events: Any) -> None:
        line = [event.to_json() for event in events]
        try:
            # The reader's check of an input line (an event's key, coordinates, count per tick).
            check_events(listed(line), f"the input of tick {tick}")
        except FieldError as error:
            self._refuse(str(error))
        self._write({"tick": tick, "input": line})

    def after_tick(self, world: World) -> None:
        """Record the tick that just ran: its input, if any, and every 60th tick the hash."""
        tick = world.tick_count
        if tick > MAX_TICKS:
            self._refuse(f"tick {tick} is past the last tick a replay may name ({MAX_TICKS})")
        if world.input.events:
            self._write_input(tick, world.input.events)
        if tick % HASH_EVERY == 0:
            digest = self._hash(world)
            self._write({"tick": tick, "hash": digest})
            if self._file is not None:
                self._good = (tick, digest, self._tell())

    def close(self, world: World, crashed: bool = False, torn: bool = False) -> int:
        """Write the end line (the final tick and hash), then put the file in place atomically.

        ``crashed``: the game crashed in the tick after the last one (rolled back): the end
        line says so (``"crashed": N``), and replay checks that the crash comes back there.
        ``torn``: the run was stopped inside a tick by force (a second Ctrl-C), so the world
        may be half-way through it: the recording ends at its last hash instead. Returns
        the tick the recording ends at.
        """
        if self._file is None:
            return world.tick_count
        if torn and self._good is not None:
            return self.end_at_last_hash()
        end: dict[str, Any] = {"end": world.tick_count, "hash": self._hash(world)}
        if crashed:
            # The crashed tick was rolled back and its input put back in the queue: record it,
            # or a replay could not run the tick that crashed with what it saw.
            events = world.input_queue.state()[0]
            if events:
                self._write_input(world.tick_count + 1, events)
            end["crashed"] = world.tick_count + 1
        self._write(end)
        self._commit()
        return world.tick_count

    def abandon(self) -> None:
        """Drop the recording; whatever was at ``path`` stays."""
        self._file = None
        self._output.abort()


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


_Record = tuple[str, int, Any]  # ("input", tick, [InputEvent]) | ("hash", tick, hex) | ("end", tick, hex)


def _lines(path: str) -> Iterator[tuple[int, str]]:
    """The file's lines, numbered from 1, each at most ``MAX_LINE_BYTES`` (checked before decoding)."""
    shown = shown_name(path)
    try:
        # A FIFO, a device or a directory is refused by name, never opened in a way that blocks.
        file = open_regular(path, "the file")
    except NotAFile as error:
        raise ReplayError(str(error)) from None
    with file:
        number = 0
        while True:
            try:
                raw = file.readline(MAX_LINE_BYTES + 1)
            except OSError as error:
                raise ReplayError(f"{shown}: cannot read it: {error.strerror or error}") from None
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise ReplayError(f"{shown}:{number}: the line is longer than {MAX_LINE_BYTES} bytes")
            try:
                yield number, raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise ReplayError(f"{shown}:{number}: not UTF-8 text") from None


def _parse(path: str, number: int, text: str) -> dict[str, Any]:
    try:
        record = parse_json(text)
    except FieldError as error:
        raise ReplayError(f"{path}:{number}: {error}") from None
    except ValueError as error:
        if not text.strip():
            raise ReplayError(f"{path}:{number}: a blank line, where a JSON object was expected "
                              "(only an input script may have blank lines)") from None
        if text.lstrip().startswith("#"):
            raise ReplayError(f"{path}:{number}: a comment, where a JSON object was expected (these files have none)") \
                from None
        reason = getattr(error, "msg", str(error))
        # Cut short is what a line that stops mid-value most likely is; anything else is an edit.
        cut = "; the file may be cut short" if getattr(error, "pos", -1) >= len(text.rstrip()) else ""
        raise ReplayError(f"{path}:{number}: not valid JSON ({reason}){cut}") from None
    if not isinstance(record, dict):
        raise ReplayError(f"{path}:{number}: expected a JSON object, got {text[:40]!r}")
    return record


def _header(path: str, record: dict[str, Any]) -> dict[str, Any]:
    if record.get("format") != FORMAT:
        raise ReplayError(f"{path}:1: not a tickswap replay (the header has no format {FORMAT!r})")
    if not (is_whole(record.get("version")) and record["version"] == VERSION):
        raise ReplayError(f"{path}:1: replay format version {shown(record.get('version'))} is not supported; "
                          f"this tickswap reads version {VERSION}")
    try:
        expect_keys(record, "the header", ("format", "version", "game", "game_digest", "seed", "ms_per_update",
                                           "engine"))
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
        written = expect_str(record["engine"], "engine", 64, _VERSION)
    except FieldError as error:
        raise ReplayError(f"{path}:1: {error}") from None
    if not version_matches(written, __version__):
        raise ReplayError(f"{path}:1: recorded by tickswap {written}; this is tickswap {__version__}, "
                          "whose games may not replay the same")
    return record


def _scan(path: str) -> Iterator[tuple[int, str, Any]]:
    """Yield ``(line, kind, value)`` for every line, checked: the header first, then the records.

    This is the one place the format is checked; reading and playback both go through it.
    """
    lines = _lines(path)
    name = shown_name(path)
    first = next(lines, None)
    if first is None:
        raise ReplayError(f"{name}: the file is empty (no header line)")
    yield 1, "header", _header(name, _parse(name, *first))
    last_tick = 0
    last_kind = ""
    hashes = 0
    number = 1
    end: int | None = None
    for number, text in lines:
        if end is not None:
            raise ReplayError(f"{name}:{number}: a line after the end line")
        record = _parse(name, number, text)
        try:
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
                if end // HASH_EVERY != hashes:
                    raise FieldError(f"the end line says tick {end}, but the file has hashes for {hashes * HASH_EVERY} "
                                     f"ticks (one every {HASH_EVERY}): lines are missing or the end is wrong")
                yield number, "end", (end, record["hash"], record.get("crashed"))
                continue
            kind = "input" if "input" in record else "hash"
            expect_keys(record, "a tick line", ("tick", kind))
            tick = expect_whole(record["tick"], "tick", 1, MAX_TICKS)
            if tick < last_tick or (tick == last_tick and not (last_kind == "input" and kind == "hash")):
                raise FieldError(f"tick {tick} comes after tick {last_tick}: lines are out of order or repeated")
            if kind == "input":
                value: Any = check_events(record["input"], "input")
            else:
                value = expect_str(record["hash"], "hash", 64, HEX_DIGEST)
                if tick != (hashes + 1) * HASH_EVERY:
                    raise FieldError(f"a hash for tick {tick}, where the hash of tick {(hashes + 1) * HASH_EVERY} "
                                     "was due (one every 60 ticks)")
                hashes += 1
            last_tick, last_kind = tick, kind
        except FieldError as error:
            raise ReplayError(f"{name}:{number}: {error}") from None
        yield number, kind, (tick, value)
    if end is None:
        raise ReplayError(f"{name}:{number}: the file stops without its end line: it was cut short")


def read_replay(path: str | os.PathLike[str]) -> Replay:
    """Check every line of a replay file; any problem raises ``ReplayError``. Builds nothing."""
    where = os.fspath(path)
    if not where:
        raise ReplayError("the replay file name is empty")
    header: dict[str, Any] = {}
    end, end_hash, inputs, hashes, crashed = 0, "", 0, 0, None
    for _, kind, value in _scan(where):
        if kind == "header":
            header = value
        elif kind == "input":
            inputs += 1
        elif kind == "hash":
            hashes += 1
        else:
            end, end_hash, crashed = value
    return Replay(where, header["game"], header["game_digest"], header["seed"], float(header["ms_per_update"]),
                  header["engine"], end, end_hash, inputs, hashes, crashed)


class Playback:
    """Streams a checked replay into a running game: ``feed`` before each tick, ``check`` after it.

    Holds one line at a time. A file changed since ``read_replay`` checked it is still
    checked line by line here, and raises ``ReplayError`` at the first bad line.
    """

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self._records = _scan(replay.path)
        next(self._records)  # the header, checked by read_replay
        self._pending: tuple[int, str, Any] | None = next(self._records, None)
        self.checked = 0

    def _advance(self) -> None:
        self._pending = next(self._records, None)

    def feed(self, world: World) -> None:
        """Queue the recorded input of the tick ``world`` is about to run."""
        if self._pending is not None and self._pending[1] == "input" and self._pending[2][0] == world.tick_count + 1:
            for event in self._pending[2][1]:
                world.input_queue.push(event)
            self._advance()

    def check(self, world: World) -> bool | None:
        """Compare the hash recorded for the tick just run, if any: ``True`` matches, ``False`` differs."""
        pending = self._pending
        if pending is None or pending[1] == "input" or pending[2][0] != world.tick_count:
            return None
        self._advance()
        self.checked += 1
        return bool(world.state_hash() == pending[2][1])

    def matches_end(self, world: World) -> bool:
        """Whether ``world``, at the replay's end tick, has the end line's hash.

        Checked on its own, not only as the last hash line: a replay that ends at tick 0
        runs no tick at all, and one that ends in a crash has the crashed tick's input
        between its last tick and its end line; neither may say "all match" unchecked.
        """
        return world.tick_count == self.replay.end and world.state_hash() == self.replay.end_hash

    @property
    def finished(self) -> bool:
        """Whether the world has reached the replay's end tick."""
        return self._pending is None


@dataclass
class ReplayResult:
    """How a verification went: ``ok``, the ticks run, and the first tick whose hash differed."""

    ok: bool
    ticks: int
    checked: int
    first_mismatch: int | None = None
    crash: BaseException | None = None
    """For a recording of a crashed run: the exception of the crash reproduced at the same tick."""


def verify(replay: Replay, world: World, tick: Callable[[], Any] | None = None) -> ReplayResult:
    """Run ``world`` (freshly built from the replay's game and seed) through the replay.

    ``tick`` runs one tick (default ``world.tick``). Stops at the first hash that differs.
    """
    step = tick or world.tick
    playback = Playback(replay)
    while world.tick_count < replay.end:
        playback.feed(world)
        step()
        if playback.check(world) is False:
            return ReplayResult(False, world.tick_count, playback.checked, world.tick_count)
    if not playback.matches_end(world):
        return ReplayResult(False, world.tick_count, playback.checked + 1, world.tick_count)
    if replay.crashed is not None:
        # The recorded run crashed in the next tick: reproducing that crash is the replay's success.
        playback.feed(world)
        try:
            step()
        except Interrupted:
            raise
        except BaseException as error:  # a game's GeneratorExit or own KeyboardInterrupt is a crash too
            return ReplayResult(True, world.tick_count, playback.checked, crash=error)
        return ReplayResult(False, world.tick_count, playback.checked)
    return ReplayResult(True, world.tick_count, playback.checked)


def read_input_script(path: str | os.PathLike[str]) -> dict[int, list[InputEvent]]:
    """Scripted input for ``tickswap run --input FILE``: lines ``{"tick": N, "input": [...]}``.

    The same lines as a replay's input lines, with two conveniences for people writing
    them by hand: a key may be named as in ``engine.keys`` (``"LEFT"``, ``"SPACE"``,
    ``"A"``), and several lines for one tick are merged in order. A whole replay works
    too: its header, hash and end lines are skipped. Anything else that is not an input
    line (a save, a stray ``format``) is refused; problems raise ``ReplayError`` naming the
    file and line.
    """
    where = os.fspath(path)
    if not where:
        raise ReplayError("the input file name is empty")
    shown = shown_name(where)
    script: dict[int, list[InputEvent]] = {}
    last = 0
    total = 0
    is_replay = False
    for number, text in _lines(where):
        if not text.strip():
            continue  # a script is written by hand: blank lines are no damage
        record = _parse(shown, number, text)
        if number == 1 and record.get("format") == FORMAT:
            is_replay = True
            continue
        if is_replay and ("end" in record or set(record) == {"tick", "hash"}):
            continue
        if "format" in record:
            what = "a tickswap save" if record.get("format") == "tickswap-save" else "not an input script"
            raise ReplayError(f"{shown}:{number}: {what}: an input file holds lines "
                              '{"tick": N, "input": [[type, key, x, y], ...]} (or is a replay)')
        try:
            expect_keys(record, "an input line", ("tick", "input"))
            tick = expect_whole(record["tick"], "tick", 1, MAX_TICKS)
            if tick < last:
                raise FieldError(f"tick {tick} comes after tick {last}: lines are out of order")
            events = check_events(named_keys(record["input"], "input"), "input")
            total += len(events)
            if total > 1_000_000:
                raise FieldError("more than 1,000,000 events")
            if len(script.get(tick, ())) + len(events) > MAX_EVENTS_PER_TICK:
                raise FieldError(f"more than {MAX_EVENTS_PER_TICK} events for tick {tick}")
        except FieldError as error:
            raise ReplayError(f"{shown}:{number}: {error}") from None
        # Two lines for one tick are one tick's input, in order (a replay never writes them).
        script.setdefault(tick, []).extend(events)
        last = tick
    return script
