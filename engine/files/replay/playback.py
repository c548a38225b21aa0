"""Playing a replay back: feed each tick its recorded input, compare each recorded hash.

``Playback`` streams a replay that ``read_replay`` has checked into a running game, one
line at a time, re-checking each line through ``engine.files.replay.format.scan`` (the
file may have changed since). ``verify`` runs a freshly built world through the whole
replay: the first tick whose hash differs is where the game stopped being deterministic.
``tickswap replay`` drives ``Playback`` itself, so it can draw the game as it goes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.files.replay.format import Replay, scan
from engine.interrupts import Interrupted
from engine.world import World

__all__ = ["Playback", "ReplayResult", "verify"]


class Playback:
    """Streams a checked replay into a running game: ``feed`` before each tick, ``check`` after it.

    Holds one line at a time. A file changed since ``read_replay`` checked it is still
    checked line by line here, and raises ``ReplayError`` at the first bad line.
    """

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self._records = scan(replay.path)
        next(self._records)  # the header, checked by read_replay
        self._pending: tuple[int, str, Any] | None = None
        self._advance()
        self.checked = 0

    def _advance(self) -> None:
        # The save a recording starts from is the world's (read_start), and an input delay line changes no state.
        self._pending = next(self._records, None)
        while self._pending is not None and self._pending[1] in ("save", "delay"):
            self._pending = next(self._records, None)

    def feed(self, world: World) -> None:
        """Queue the recorded input of the tick ``world`` is about to run, each player's in their queue.

        ``world`` has the recording's players (``replay.players``); a world with fewer is refused.
        A recording that starts from a save (``replay.start``) plays into the world built from
        it (``engine.files.replay.read_start``).
        """
        if world.players != self.replay.players:
            raise ValueError(f"the replay has {self.replay.players} players; the world given has {world.players}")
        while self._pending is not None and self._pending[1] == "input" and \
                self._pending[2][0] == world.tick_count + 1:
            _, events, player = self._pending[2]
            queue = world.input_queue_of(player)
            for event in events:
                queue.push(event)
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
    """Run ``world`` (freshly built from the replay's game, seed and players, or loaded from its start save) through it.

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
