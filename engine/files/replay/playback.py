"""Playing a replay back: feed each tick its recorded input, compare each recorded hash.

``Playback`` streams a replay that ``read_replay`` has checked into a running game, one
line at a time, re-checking each line through ``engine.files.replay.format.scan`` (the
file may have changed since). ``verify`` runs a freshly built world through the whole
replay: the first tick whose hash differs is where the game stopped being deterministic.
``Verification`` is that check a tick at a time: ``verify`` steps it back to back, and
``tickswap replay`` drawn steps it from the window's runner (``ReplayDriver``), so both
verify with the same code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.files.replay.format import Replay, scan
from engine.input.events import InputEvent
from engine.interrupts import Interrupted
from engine.world import World, take_sounds
from engine.world.sounds import SoundRequest

__all__ = ["Playback", "ReplayDriver", "ReplayResult", "Verification", "verify"]


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


class Verification:
    """The one verification of a replay: each ``step`` runs the recording's next tick and checks its hash.

    ``tickswap replay`` without a window steps it back to back (``verify``); drawn, the
    window's runner steps it once per update through ``ReplayDriver``. Both run this code,
    so a replay verified off-screen, in a window or headless ends the same way: the first
    hash that differs, the end line's hash, and for a recording of a crashed run, the
    crash reproduced in the tick after its end.
    """

    def __init__(self, replay: Replay, world: World) -> None:
        self.replay = replay
        self.world = world
        self.playback = Playback(replay)
        self.result: ReplayResult | None = None
        """How it ended, once it has (``None`` while ticks remain)."""

    def step(self, tick: Callable[[], Any] | None = None) -> ReplayResult | None:
        """Run the next tick (``tick``, by default ``world.tick``) and check it; the result once the replay is over.

        At the recording's end (at once, for one that ends at tick 0) the end line's hash is
        compared, and a recording of a run that crashed runs the next tick, whose crash is
        the replay's success. Stepping a finished verification runs nothing.
        """
        if self.result is not None:
            return self.result
        world, replay, playback = self.world, self.replay, self.playback
        step = tick or world.tick
        if world.tick_count < replay.end:
            playback.feed(world)
            step()
            if playback.check(world) is False:
                self.result = ReplayResult(False, world.tick_count, playback.checked, world.tick_count)
                return self.result
            if world.tick_count < replay.end:
                return None
        if not playback.matches_end(world):
            self.result = ReplayResult(False, world.tick_count, playback.checked + 1, world.tick_count)
        elif replay.crashed is not None:
            # The recorded run crashed in the next tick: reproducing that crash is the replay's success.
            playback.feed(world)
            try:
                step()
            except Interrupted:
                raise
            except BaseException as error:  # a game's GeneratorExit or own KeyboardInterrupt is a crash too
                self.result = ReplayResult(True, world.tick_count, playback.checked, crash=error)
            else:
                self.result = ReplayResult(False, world.tick_count, playback.checked)
        else:
            self.result = ReplayResult(True, world.tick_count, playback.checked)
        return self.result


def verify(replay: Replay, world: World, tick: Callable[[], Any] | None = None) -> ReplayResult:
    """Run ``world`` (freshly built from the replay's game, seed and players, or loaded from its start save) through it.

    ``tick`` runs one tick (default ``world.tick``). Stops at the first hash that differs.
    """
    verification = Verification(replay, world)
    while (result := verification.step(tick)) is None:
        pass
    return result


class ReplayDriver:
    """A ``Verification`` as a window's ``Driver`` (``engine.world.driver``): the runner draws, the replay ticks.

    Each update the runner owes runs the recording's next tick through the same
    verification ``verify`` steps; the window's own input never reaches the world (it
    plays no one), and the runner stops once the verification has a result.
    """

    def __init__(self, verification: Verification) -> None:
        self.verification = verification

    @property
    def ended(self) -> str | None:
        """Why the replay stopped (its end, a differing hash, the reproduced crash), once its verification has a
        result (``result``, which says which)."""
        return None if self.verification.result is None else "the replay's verification has its result"

    @property
    def local_players(self) -> tuple[int, ...]:
        """Nobody: the recording plays every player."""
        return ()

    def poll(self) -> None:
        """Nothing to receive: the recording is read a tick at a time."""

    def idle(self, timeout_s: float) -> None:
        """Nothing to wait for: the next tick is always due."""

    @property
    def world(self) -> World:
        """The world the recording is played into."""
        return self.verification.world

    def advance(self, local: Sequence[InputEvent] | Mapping[int, Sequence[InputEvent]],
                elapsed_ms: float | None = None) -> int:
        """Run the recording's next tick (the window's events are ignored, and ``elapsed_ms``: a recording has its
        own step); how many ran (0 once it has ended)."""
        before = self.verification.world.tick_count
        self.verification.step()
        return self.verification.world.tick_count - before

    def hud_text(self) -> str:
        """Where the replay is: ``replay 120/600``."""
        return f"replay {self.verification.world.tick_count}/{self.verification.replay.end}"

    def take_sounds(self) -> list[SoundRequest]:
        """The sounds the replayed tick asked for: a replay sounds like the run it recorded."""
        return take_sounds(self.verification.world)
