"""Recording a replay: the input of every tick and a hash every 60, written as the game runs.

The writer of the format that ``engine.files.replay.format`` defines and checks. It
lives apart from the readers because its concerns are a running game's: a file put in
place only when complete (``engine.disk.atomic``), a recording that still ends at a
replayable tick when a state cannot be hashed, a crash, or a forced stop mid-tick, and
refusing to write anything the reader would refuse later.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import IO, Any, NoReturn

from engine.constants import HASH_EVERY, MAX_INPUT_DELAY, MAX_TICKS
from engine.disk.atomic import AtomicFile, OutputError
from engine.files.replay.format import (
    MAX_START_BYTES,
    ReplayError,
    check_header,
    new_header,
)
from engine.input.checks import check_events, listed
from engine.input.events import InputEvent
from engine.messages import shown_name
from engine.schema import FieldError
from engine.state.snapshot import UnhashableState
from engine.world import World
from engine.world.save import SaveError, save_text

__all__ = ["Recorder"]


class Recorder:
    """Writes a replay while a game runs: call ``after_tick(world)`` after every tick, then ``close``.

    The recording goes to a temporary file and replaces ``path`` only when ``close``
    has written the end line and synced it (see ``engine.disk.atomic``): an earlier
    recording at ``path`` survives a crash, a full disk or a Ctrl-C. ``game_digest`` is
    the content digest of a game file (``None`` for a registered game).
    """

    def __init__(self, path: str | os.PathLike[str], *, game: str, seed: int, ms_per_update: float,
                 game_digest: str | None = None, players: int = 1,
                 root: str | os.PathLike[str] | None = None) -> None:
        self.path = shown_name(path)
        self._root = root  # the game's directory: a start save names the music under it relative to it
        self.players = players
        """How many players the recorded world has (the header's ``players``)."""
        self._last_tick = 0
        self._game = (game, game_digest)
        header = new_header(game=game, seed=seed, ms_per_update=ms_per_update, game_digest=game_digest,
                            players=players)
        self._header = header
        # The reader's own check of a header, before anything is written: what it would refuse is refused now.
        try:
            check_header("", header)
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

        A world past tick 0 (loaded from a save, a network session's late joiner) is written
        whole as the recording's second line, a save, and the header says the tick
        (``"start"``): a replay begins from it. ``UnhashableState`` if even this state cannot
        be hashed, ``ReplayError`` if it cannot be saved (nothing is recorded then).
        """
        self._last_tick = world.tick_count
        if world.tick_count and self._file is not None:
            self._start_from(world)
        try:
            self._good = (world.tick_count, world.state_hash(), self._tell())
        except UnhashableState:
            self.abandon()
            raise

    def _start_from(self, world: World) -> None:
        """Write the header again with the tick the recording starts at, then the world as a save (line 2)."""
        game, digest = self._game
        try:
            text = save_text(world, {"game": game, "game_digest": digest}, where=self.path, root=self._root)
        except SaveError as error:
            self._refuse(f"the world it starts from (tick {world.tick_count}) can't be saved: {error}")
        line = '{"save":' + text + "}"
        if len(line.encode("utf-8")) > MAX_START_BYTES:
            self._refuse(f"the world it starts from (tick {world.tick_count}) is {len(line):,} bytes as a save, more "
                         f"than the {MAX_START_BYTES:,} a recording's save line may be")
        self._header = {**self._header, "start": world.tick_count}
        assert self._file is not None
        try:
            self._file.seek(0)
            self._file.truncate(0)
        except OSError as error:
            self._failed(error)
        self._write(self._header)
        if self._file is not None:
            try:
                self._file.write(line + "\n")
            except OSError as error:
                self._failed(error)

    def record_delay(self, tick: int, delay: int) -> None:
        """Say that a network session's input delay is ``delay`` from ``tick`` on (before that tick's ``record_tick``).

        It changes no state, so a replay plays the same without it; every peer's recording says
        the same. ``ValueError`` for a tick already recorded or a delay out of range.
        """
        if type(tick) is not int or tick <= self._last_tick:
            raise ValueError(f"record_delay: tick {tick!r} is not after tick {self._last_tick}, the last recorded")
        if type(delay) is not int or not 0 <= delay <= MAX_INPUT_DELAY:
            raise ValueError(f"record_delay: an input delay is 0 to {MAX_INPUT_DELAY} ticks, got {delay!r}")
        self._write({"tick": tick, "input_delay": delay})

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

    def _write_input(self, tick: int, events: Any, player: int = 0) -> None:
        line = [event.to_json() for event in events]
        try:
            # The reader's check of an input line (an event's key, coordinates, count per tick).
            check_events(listed(line), f"the input of tick {tick}")
        except FieldError as error:
            self._refuse(str(error))
        # Player 0's lines name no player: a one-player recording is as it always was.
        self._write({"tick": tick, "input": line} if player == 0 else {"tick": tick, "player": player, "input": line})

    def _check_tick(self, tick: int) -> None:
        if tick > MAX_TICKS:
            self._refuse(f"tick {tick} is past the last tick a replay may name ({MAX_TICKS})")

    def _write_hash(self, tick: int, digest: str) -> None:
        self._write({"tick": tick, "hash": digest})
        if self._file is not None:
            self._good = (tick, digest, self._tell())

    def after_tick(self, world: World) -> None:
        """Record the tick that just ran: every player's input, if any, and every 60th tick the hash."""
        tick = world.tick_count
        self._check_tick(tick)
        self._last_tick = tick
        for player in range(world.players):
            events = world.input_of(player).events
            if events:
                self._write_input(tick, events, player)
        if tick % HASH_EVERY == 0:
            self._write_hash(tick, self._hash(world))

    def record_tick(self, tick: int, inputs: Sequence[Sequence[InputEvent]], digest: str | None) -> None:
        """Record a tick from data, not from a world: a network session's confirmed tick.

        ``inputs`` holds one sequence of events per player (``players`` of them);
        ``digest`` is the state hash after the tick, given exactly at hash ticks
        (``tick % HASH_EVERY == 0``) and ``None`` at the others. Ticks come in order, one
        call each, starting after the tick the recording started at. A call that breaks
        these rules raises ``ValueError`` and writes nothing. ``close`` ends the recording
        as after ``after_tick``.
        """
        if type(tick) is not int or tick != self._last_tick + 1:
            raise ValueError(f"record_tick: tick {tick!r}, where tick {self._last_tick + 1} comes next")
        if len(inputs) != self.players:
            raise ValueError(f"record_tick: {len(inputs)} players' inputs for a recording of {self.players} players")
        if (digest is None) != (tick % HASH_EVERY != 0):
            due = "a hash is due" if tick % HASH_EVERY == 0 else "no hash is due"
            raise ValueError(f"record_tick: tick {tick}: {due} (one every {HASH_EVERY} ticks), got {digest!r}")
        self._check_tick(tick)
        self._last_tick = tick
        for player, events in enumerate(inputs):
            if events:
                self._write_input(tick, events, player)
        if digest is not None:
            self._write_hash(tick, digest)

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
        if (torn or world.tick_count != self._last_tick) and self._good is not None:
            # Torn, or a session's world ahead of (or behind) the last confirmed tick recorded: what
            # the file holds is known good only up to its last hash.
            return self.end_at_last_hash()
        end: dict[str, Any] = {"end": world.tick_count, "hash": self._hash(world)}
        if crashed:
            # The crashed tick was rolled back and its input put back in the queue: record it,
            # or a replay could not run the tick that crashed with what it saw.
            for player in range(world.players):
                events = world.input_queue_of(player).state()[0]
                if events:
                    self._write_input(world.tick_count + 1, events, player)
            end["crashed"] = world.tick_count + 1
        self._write(end)
        self._commit()
        return world.tick_count

    def abandon(self) -> None:
        """Drop the recording; whatever was at ``path`` stays."""
        self._file = None
        self._output.abort()

