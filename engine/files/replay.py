"""Replays: record the inputs of every tick, play them back, and verify every hash.

A fixed-step engine promises determinism: the same inputs give the same game. A replay
makes the promise checkable. ``Recorder`` writes a JSON Lines file::

    {"format": "tickswap-replay", "version": 1, "game": "patrol", "seed": 0, "ms_per_update": 15.625, "engine": "0.1.0"}
    {"tick": 12, "input": [["key_press", 65363, 0.0, 0.0]]}
    {"tick": 60, "hash": "9f2c..."}
    ...
    {"end": 640, "hash": "41aa..."}

a header, then the input of every tick that had any, a state hash every 60 ticks, and an
end line (so a cut file is told from a complete one). ``verify`` builds the game again,
feeds each tick exactly its recorded input, and compares every hash: the first tick
whose hash differs is where the game stopped being deterministic. A malformed, cut or
wrong-version file raises ``ReplayError`` naming the file, the line and the problem.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable

import engine
from engine.input import InputEvent
from engine.world import World

__all__ = ["FORMAT", "HASH_EVERY", "VERSION", "Recorder", "Replay", "ReplayError", "ReplayResult", "read_replay",
           "verify"]

FORMAT = "tickswap-replay"
"""The ``format`` field of a replay's header line."""
VERSION = 1
"""The replay format version this tickswap writes and reads."""
HASH_EVERY = 60
"""A state hash is recorded every this many ticks."""


class ReplayError(ValueError):
    """A replay file can't be used; the message names the file, the line and the problem."""


class Recorder:
    """Writes a replay while a game runs: call ``after_tick(world)`` after every tick, then ``close``."""

    def __init__(self, path: str | os.PathLike[str], *, game: str, seed: int, ms_per_update: float) -> None:
        self.path = Path(path)
        try:
            self._file: IO[str] | None = open(self.path, "w", encoding="utf-8")
        except OSError as error:
            raise ReplayError(f"cannot write the replay {self.path}: {error}") from error
        self._write({"format": FORMAT, "version": VERSION, "game": game, "seed": seed,
                     "ms_per_update": ms_per_update, "engine": engine.__version__})

    def _write(self, record: dict[str, Any]) -> None:
        assert self._file is not None
        self._file.write(json.dumps(record, separators=(",", ":")) + "\n")

    def after_tick(self, world: World) -> None:
        """Record the tick that just ran: its input, if any, and every 60th tick the hash."""
        tick = world.tick_count
        if world.input.events:
            self._write({"tick": tick, "input": [event.to_json() for event in world.input.events]})
        if tick % HASH_EVERY == 0:
            self._write({"tick": tick, "hash": world.state_hash()})

    def close(self, world: World) -> None:
        """Write the end line (the final tick and hash) and close the file."""
        if self._file is None:
            return
        self._write({"end": world.tick_count, "hash": world.state_hash()})
        self._file.close()
        self._file = None


@dataclass
class Replay:
    """A replay read back: the header, the input of each tick, the hashes, and the end."""

    path: str
    game: str
    seed: int
    ms_per_update: float
    inputs: dict[int, list[InputEvent]] = field(default_factory=dict)
    hashes: dict[int, str] = field(default_factory=dict)
    end: int = 0


def read_replay(path: str | os.PathLike[str]) -> Replay:
    """Read and check a replay file; any problem raises ``ReplayError``."""
    where = str(path)
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ReplayError(f"{where}: cannot read it: {error}") from error
    if not lines:
        raise ReplayError(f"{where}: the file is empty (no header line)")

    def parse(number: int, text: str) -> dict[str, Any]:
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            raise ReplayError(f"{where}:{number}: not valid JSON ({error.msg}); the file may be cut short") from None
        if not isinstance(record, dict):
            raise ReplayError(f"{where}:{number}: expected a JSON object, got {text[:40]!r}")
        return record

    header = parse(1, lines[0])
    if header.get("format") != FORMAT:
        raise ReplayError(f"{where}:1: not a tickswap replay (the header has no format {FORMAT!r})")
    if header.get("version") != VERSION:
        raise ReplayError(f"{where}:1: replay format version {header.get('version')!r} is not supported; "
                          f"this tickswap reads version {VERSION}")
    try:
        replay = Replay(where, str(header["game"]), int(header["seed"]), float(header["ms_per_update"]))
    except (KeyError, TypeError, ValueError) as error:
        raise ReplayError(f"{where}:1: the header is incomplete or wrong ({error})") from None
    last_tick = 0
    ended = False
    for number, text in enumerate(lines[1:], start=2):
        if ended:
            raise ReplayError(f"{where}:{number}: a line after the end line")
        record = parse(number, text)
        try:
            if "end" in record:
                replay.end = int(record["end"])
                replay.hashes[replay.end] = str(record["hash"])
                if replay.end < last_tick:
                    raise ValueError(f"ends at tick {replay.end}, before tick {last_tick}")
                ended = True
                continue
            tick = int(record["tick"])
            if tick < last_tick or tick < 1:
                raise ValueError(f"tick {tick} comes after tick {last_tick}")
            last_tick = tick
            if "input" in record:
                replay.inputs[tick] = [InputEvent.from_json(event) for event in record["input"]]
            elif "hash" in record:
                replay.hashes[tick] = str(record["hash"])
            else:
                raise ValueError("a tick line needs 'input' or 'hash'")
        except (KeyError, TypeError, ValueError) as error:
            raise ReplayError(f"{where}:{number}: {error}") from None
    if not ended:
        raise ReplayError(f"{where}:{len(lines)}: the file stops without its end line: it was cut short")
    return replay


@dataclass
class ReplayResult:
    """How a verification went: ``ok``, the ticks run, and the first tick whose hash differed."""

    ok: bool
    ticks: int
    checked: int
    first_mismatch: int | None = None


def feed(replay: Replay, world: World) -> None:
    """Queue the recorded input of the tick ``world`` is about to run."""
    for event in replay.inputs.get(world.tick_count + 1, ()):
        world.input_queue.push(event)


def verify(replay: Replay, world: World, tick: Callable[[], Any] | None = None) -> ReplayResult:
    """Run ``world`` (freshly built from the replay's game and seed) through the replay.

    ``tick`` runs one tick (default ``world.tick``; a renderer passes its own so frames
    are drawn). Stops at the first hash that differs.
    """
    step = tick or world.tick
    checked = 0
    while world.tick_count < replay.end:
        feed(replay, world)
        step()
        expected = replay.hashes.get(world.tick_count)
        if expected is not None:
            checked += 1
            if world.state_hash() != expected:
                return ReplayResult(False, world.tick_count, checked, world.tick_count)
    return ReplayResult(True, world.tick_count, checked)
