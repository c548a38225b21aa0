"""The recent past of one world: a ring of checkpoints, and every tick's input since the oldest of them.

Any tick in the ring is reached exactly, because a tick is a function of the state before
it and its input: roll back to the latest checkpoint at or before it (``World.rollback``)
and run the ticks after that checkpoint again, each fed the input it had. So the ring
needs a checkpoint only every few ticks (``every``, 8 by default: at most 7 ticks are
re-simulated to reach any tick), and the input of every tick, which is small.

The ring covers the last ``seconds`` of game time, and never holds more than
``max_bytes`` (checkpoints as ``Checkpoint.nbytes`` measures them, input as its events):
when either is exceeded the oldest checkpoint goes, with the input only it needed. A
big world is rewound over less time, never with more memory; ``describe`` says how
much is held and how far back it reaches, for the screen.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from engine.input.events import InputEvent
from engine.world import World
from engine.world.checkpoints import Checkpoint

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_SECONDS", "EVERY", "TickRecord", "Timeline", "fed"]

DEFAULT_SECONDS = 10.0
"""How far back a ring reaches by default, in seconds of game time."""
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
"""The most memory a ring holds by default: 256 MiB."""
EVERY = 8
"""Ticks between two checkpoints of the ring: reaching any tick re-simulates at most ``EVERY - 1``."""
_EVENT_BYTES = 120
"""About what one recorded input event costs (the event and its slot in a tuple)."""
_TICK_BYTES = 64
"""About what one tick's record costs with no input (its tuple; a tick with none shares one)."""


@dataclass(frozen=True)
class TickRecord:
    """What one tick was fed: each player's input events, and the game time it covered (``None``: one step)."""

    events: tuple[tuple[InputEvent, ...], ...]
    elapsed_ms: float | None = None

    @property
    def nbytes(self) -> int:
        """About how much memory the record holds."""
        return _TICK_BYTES + _EVENT_BYTES * sum(len(events) for events in self.events)


class Timeline:
    """Checkpoints every ``every`` ticks and every tick's input, from ``oldest`` to ``head``, bounded.

    ``start(world)`` begins it at the world's tick; ``record(world, elapsed_ms)`` adds the tick
    the world just ran; ``cut(tick)`` discards everything after ``tick`` (a resume from the
    past, as a rollback discards a predicted future).
    """

    def __init__(self, *, seconds: float = DEFAULT_SECONDS, ms_per_update: float, every: int = EVERY,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= 86_400 \
                or math.isnan(seconds):
            raise ValueError(f"a rewind of {seconds!r} seconds: give a number of seconds from 0 to 86400")
        if isinstance(every, bool) or not isinstance(every, int) or not 1 <= every <= 10_000:
            raise ValueError(f"checkpoints every {every!r} ticks: give a whole number from 1 to 10000")
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise ValueError(f"a rewind of at most {max_bytes!r} bytes: give a whole number from 0")
        self.seconds = float(seconds)
        """How far back the ring reaches at most, in seconds of game time."""
        self.every = every
        self.max_bytes = max_bytes
        self.span = math.ceil(self.seconds * 1000 / ms_per_update)
        """How far back the ring reaches at most, in ticks."""
        self._checkpoints: deque[Checkpoint] = deque()
        self._inputs: deque[TickRecord] = deque()  # the ticks after the oldest checkpoint, in order
        self._head = 0
        self._checkpoint_bytes = 0
        self._input_bytes = 0

    # -- what it holds ----------------------------------------------------------------------

    @property
    def oldest(self) -> int:
        """The earliest tick the ring can return to (its oldest checkpoint's)."""
        return self._checkpoints[0].tick if self._checkpoints else self._head

    @property
    def head(self) -> int:
        """The latest tick recorded."""
        return self._head

    @property
    def nbytes(self) -> int:
        """About how much memory the ring holds: its checkpoints and its recorded input."""
        return self._checkpoint_bytes + self._input_bytes

    @property
    def checkpoints(self) -> int:
        """How many checkpoints the ring holds."""
        return len(self._checkpoints)

    def record_of(self, tick: int) -> TickRecord:
        """What tick ``tick`` (after ``oldest``, up to ``head``) was fed."""
        if not self.oldest < tick <= self._head:
            raise ValueError(f"tick {tick} is not in the ring (ticks {self.oldest + 1} to {self._head})")
        return self._inputs[tick - self.oldest - 1]

    def checkpoint_at_or_before(self, tick: int) -> Checkpoint:
        """The latest checkpoint at or before ``tick`` (``oldest`` to ``head``)."""
        if not self._checkpoints or not self.oldest <= tick <= self._head:
            raise ValueError(f"tick {tick} is not in the ring (ticks {self.oldest} to {self._head})")
        found = self._checkpoints[0]
        for checkpoint in self._checkpoints:  # a few dozen, in tick order
            if checkpoint.tick > tick:
                break
            found = checkpoint
        return found

    # -- changing it ---------------------------------------------------------------------------

    @property
    def keeps(self) -> bool:
        """Whether the ring keeps anything (``seconds`` above 0); if not, it only follows the head."""
        return self.span > 0

    def start(self, world: World) -> None:
        """Begin again at ``world``'s tick, with one checkpoint of it and no input."""
        self.clear()
        self._head = world.tick_count
        if self.keeps:
            self._add(world.checkpoint())

    def clear(self) -> None:
        """Hold nothing (the world's checkpoints let go)."""
        self._checkpoints.clear()
        self._inputs.clear()
        self._checkpoint_bytes = self._input_bytes = 0

    def record(self, world: World, elapsed_ms: float | None = None) -> None:
        """Add the tick ``world`` just ran (``head + 1``): its input, and a checkpoint if one is due."""
        if world.tick_count != self._head + 1:
            raise ValueError(f"the ring is at tick {self._head}; it can't record tick {world.tick_count} next")
        if not self.keeps:
            self._head = world.tick_count
            return
        events = tuple(tuple(world.input_of(player).events) for player in range(world.players))
        record = TickRecord(events, elapsed_ms)
        self._inputs.append(record)
        self._input_bytes += record.nbytes
        self._head = world.tick_count
        if not self._checkpoints or self._head - self._checkpoints[-1].tick >= self.every:
            self._add(world.checkpoint())
        self._trim()

    def cut(self, tick: int) -> None:
        """Discard every tick after ``tick`` and the checkpoints taken after it: ``tick`` becomes the head."""
        if not self.oldest <= tick <= self._head:
            raise ValueError(f"tick {tick} is not in the ring (ticks {self.oldest} to {self._head})")
        while self._checkpoints and self._checkpoints[-1].tick > tick:
            self._checkpoint_bytes -= self._checkpoints.pop().nbytes()
        while self._head > tick:
            self._input_bytes -= self._inputs.pop().nbytes
            self._head -= 1

    def _add(self, checkpoint: Checkpoint) -> None:
        self._checkpoints.append(checkpoint)
        self._checkpoint_bytes += checkpoint.nbytes()

    def _trim(self) -> None:
        """Drop the oldest checkpoint while the next one still reaches back far enough, or while over budget."""
        checkpoints = self._checkpoints
        while len(checkpoints) > 1 and (checkpoints[1].tick <= self._head - self.span
                                        or self.nbytes > self.max_bytes):
            dropped = checkpoints.popleft()
            self._checkpoint_bytes -= dropped.nbytes()
            for _ in range(checkpoints[0].tick - dropped.tick):
                self._input_bytes -= self._inputs.popleft().nbytes

    def describe(self, ms_per_update: float) -> str:
        """How far back the ring reaches and what it holds, for the screen: ``rewind 9.9 s of 10: 80 checkpoints,
        12.5 MB``."""
        back = (self._head - self.oldest) * ms_per_update / 1000
        return (f"rewind {back:.1f} s of {self.seconds:g}: {self.checkpoints} checkpoint"
                f"{'' if self.checkpoints == 1 else 's'}, {self.nbytes / 1e6:.1f} MB")


def fed(world: World, record: TickRecord) -> None:
    """Push ``record``'s events into ``world``'s input queues, for the tick it records (events already waiting are
    dropped first: they are live input that belongs to no recorded tick)."""
    for player, events in enumerate(record.events):
        queue = world.input_queue_of(player)
        _waiting, held, mouse, sticks = queue.state()
        queue.set_state(list(events), held, mouse, sticks)
