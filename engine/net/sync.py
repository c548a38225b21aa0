"""The rollback core (GGRS's design, in Python): input logs, prediction, checkpoints, rollback, confirmed ticks.

No sockets here: ``Sync`` is given inputs (the local players', and remote ones as they
arrive) and advances a ``World`` with them. Every player's input for a tick is a tuple
of ``InputEvent`` (possibly empty). A peer may play several players (two on one
keyboard, as GGRS allows several local handles): their input is given together, for the
same tick, and is never predicted. The local players' input is delayed by
``input_delay`` ticks (what is pressed now is the input of a tick a little ahead, so a
remote peer usually has it before it needs it). A tick may run before every remote
input for it is known: a missing input is *predicted* as "no events" (held keys stay
held, inside each player's queue). At most ``max_prediction`` ticks may run past the
*confirmed frontier* (the last tick whose input is known for every player); ``0`` is
plain lockstep, waiting for every input. The delay may change during a session
(``schedule_delay``): from an agreed tick on, the local input goes that many ticks ahead
instead; inputs are the data, so the change moves only when this peer's input is given,
never what any tick is played with. Before a tick that predicts anything a
checkpoint is taken (a ring of ``max_prediction + 2``); when an input arrives for a tick
already run with a wrong prediction (events where "no events" was used), the world rolls
back to the checkpoint before that tick and runs the ticks again with what is known now.

The world is thus only ever advanced with confirmed or predicted inputs, and a confirmed
tick is bit-identical on every peer. The state hash of a hash tick is taken when the
tick is simulated (again on a re-simulation) and is final once the tick is confirmed;
``confirm()`` hands out each confirmed tick once, in order, with its inputs and, at
recording hash ticks, its hash. Memory is bounded: a player's log keeps only the ticks
from ``keep_from`` on, and remote input more than ``window`` ticks past this peer's own
tick is cut off and counted (``cut_off``). A peer that joins a running session starts from
a confirmed tick's world with the inputs since (``preload``), its own player's included. The
state of the last confirmed tick can be had between frames (``at_confirmed``) although the
world has run ahead of it on predicted input: rolled back, used, then re-simulated. The
bound is this peer's own frontier, never
the sender's: a run may only extend what is already known, so a bound measured from the
sender's known input would move with every datagram it sends. The snapshots of
desync-check ticks are kept by age (``window`` ticks), for a peer's hash arrives that
much later at most.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.constants import HASH_EVERY
from engine.input.events import InputEvent
from engine.world import World
from engine.world.checkpoints import Checkpoint

__all__ = ["Confirmed", "Events", "Sync"]

Events = tuple[InputEvent, ...]
"""One player's input for one tick."""
_NONE: Events = ()


@dataclass(frozen=True)
class Confirmed:
    """A confirmed tick: every player's input for it, and its state hash at recording hash ticks."""

    tick: int
    inputs: tuple[Events, ...]
    digest: str | None


class Sync:
    """Advances ``world`` for ``players`` players with known and predicted input; rolls back on a misprediction.

    ``local`` is the player whose input this peer gives, or a tuple of the players it
    gives (several on one machine; ``None``: a spectator, which never predicts).
    ``desync_interval``: the ticks whose hash peers compare.
    """

    def __init__(self, world: World, *, players: int, local: int | tuple[int, ...] | None, input_delay: int = 2,
                 max_prediction: int = 8, desync_interval: int = 60, window: int | None = None) -> None:
        here = () if local is None else (local,) if isinstance(local, int) else tuple(local)
        if (local is not None and not here) or len(set(here)) != len(here) or any(
                type(player) is not int or not 0 <= player < players for player in here):
            raise ValueError(f"local player {local!r} is not one of the {players} players")
        self.world = world
        self.players = players
        self.locals = here
        """Every player this peer gives the input of (empty for a spectator); their input is known to the same tick."""
        local = here[0] if here else None
        self.local = local
        """The first of ``locals`` (``None``: a spectator): where this peer's input stands."""
        self.input_delay = input_delay if local is not None else 0
        """The local input delay now (the last one scheduled at or before the next tick to run)."""
        self._delays: dict[int, int] = {}  # from tick: the input delay agreed for that tick on
        self.max_prediction = max_prediction if local is not None else 0
        self.desync_interval = desync_interval
        self.window = window if window is not None else 4 * (max_prediction + input_delay) + 64
        """How far past this peer's current tick a remote run may reach; the rest is cut off (bounded memory).

        No honest peer is further ahead than its prediction window and input delay (it
        waits for our input), so the margin is generous and a flood gains nothing."""
        self.cut_off = 0
        """Remote ticks refused because they lay past ``window`` (a flood, or a peer far ahead)."""
        self.final_tick: int | None = None
        """The last tick of a ``--ticks`` session: hashed and compared like a desync-check tick."""
        start = world.tick_count
        self.start = start
        self.known = [start] * players
        """``known[p]``: the last tick t such that player p's input is known for every tick up to t."""
        self._events: list[dict[int, Events]] = [{} for _ in range(players)]
        self._checkpoints: dict[int, Checkpoint] = {}
        self._first_wrong: int | None = None
        self.hashes: dict[int, str] = {}
        """State hashes of the hash ticks simulated and not yet handed out (final once confirmed)."""
        self.snapshots: dict[int, dict[str, Any]] = {}
        """The snapshots of the check ticks of the last ``window`` ticks, to explain a desync (``net.desync``)."""
        self.emitted = start
        """The last confirmed tick handed out by ``confirm()``."""
        self.rollbacks = 0
        self.resimulated = 0

    # -- input ------------------------------------------------------------------------

    @property
    def current(self) -> int:
        """The last tick simulated."""
        return self.world.tick_count

    @property
    def confirmed(self) -> int:
        """The confirmed frontier: the last tick whose input is known for every player."""
        return min(self.known)

    @property
    def next_local_tick(self) -> int:
        """The tick the next local input (``add_local``) is for: the current tick plus one plus the delay."""
        if self.local is None:
            raise ValueError("a spectator has no local input")
        return self.known[self.local] + 1

    def needs_local(self) -> bool:
        """Whether the local input of the next tick to run is still to be given (never more than the delay ahead)."""
        if self.local is None:
            return False
        self._apply_delays()
        return self.known[self.local] < self.current + 1 + self.input_delay

    def schedule_delay(self, tick: int, delay: int) -> None:
        """From ``tick`` on, give the local input ``delay`` ticks ahead (an agreed change; again: nothing new).

        Applied when the next tick to run reaches ``tick``: a longer delay gives the ticks
        between at once (with no events), a shorter one waits until the world catches up
        with the input already given; no input is lost or moved. A spectator ignores it.
        """
        if self.local is not None:
            self._delays[tick] = delay

    @property
    def delays(self) -> dict[int, int]:
        """The input delay changes scheduled and not yet applied: ``{from tick: delay}``."""
        return dict(self._delays)

    def _apply_delays(self) -> None:
        following = self.current + 1
        for tick in sorted(tick for tick in self._delays if tick <= following):
            self.input_delay = self._delays.pop(tick)

    def add_local(self, events: Sequence[InputEvent] | Mapping[int, Sequence[InputEvent]]) -> int:
        """The local players' input for ``next_local_tick``; returns that tick.

        ``events`` is the one local player's events, or ``{player: events}`` for every local
        player (one not named had none); a player not local is a ``ValueError``.
        """
        if self.local is None:
            raise ValueError("a spectator has no local input")
        given = events if isinstance(events, Mapping) else {self.local: events}
        strangers = sorted(set(given) - set(self.locals))
        if strangers:
            raise ValueError(f"player {strangers[0]!r} is not a local player of this peer ({list(self.locals)})")
        tick = self.known[self.local] + 1
        for player in self.locals:
            mine = given.get(player, ())
            if mine:
                self._events[player][tick] = tuple(mine)
            self.known[player] = tick
        return tick

    def add_remote(self, player: int, first: int, last: int, events: Mapping[int, Events]) -> int:
        """Player ``player``'s input for ticks ``first``..``last`` (only ticks with events listed).

        Ticks already known are ignored (duplicates, resent runs); a run that starts past
        the next tick not known leaves a gap and is ignored (the sender resends from the
        acknowledged tick); the part more than ``window`` ticks past this peer's current
        tick is cut off and counted in ``cut_off``. An input with events for
        a tick already run predicted that tick wrongly: the next ``resolve()`` rolls back to
        it. Returns how many new ticks became known.
        """
        if not 0 <= player < self.players or player in self.locals:
            return 0
        known = self.known[player]
        if first > known + 1 or last <= known:
            return 0
        limit = self.current + self.window
        if last > limit:
            self.cut_off += last - max(limit, known)
            last = limit
            if last <= known:
                return 0
        log = self._events[player]
        for tick in range(known + 1, last + 1):
            given = events.get(tick)
            if given:
                log[tick] = tuple(given)
                if tick <= self.current and (self._first_wrong is None or tick < self._first_wrong):
                    self._first_wrong = tick
        self.known[player] = last
        return last - known

    def preload(self, player: int, first: int, last: int, events: Mapping[int, Events]) -> None:
        """Player ``player``'s input for ``first``..``last``, before anything has run (a late joiner's catch-up).

        The local player's too: a player who rejoins a running session gets from the host its
        input up to the tick it takes its seat back (its ``"connect"``), and gives its own from the
        next. ``ValueError`` once a tick has run or for a run that does not follow what is known.
        """
        if self.current != self.start or self.emitted != self.start:
            raise ValueError("preload: input is preloaded only before the first tick runs")
        if not 0 <= player < self.players or first != self.known[player] + 1 or last < first - 1:
            raise ValueError(f"preload: player {player!r}'s ticks {first!r}..{last!r} do not follow tick "
                             f"{self.known[player] if 0 <= player < self.players else '?'}")
        log = self._events[player]
        for tick, given in events.items():  # the ticks with events, not every tick of the run
            if first <= tick <= last and given:
                log[tick] = tuple(given)
        self.known[player] = last

    def events_of(self, player: int, tick: int) -> Events:
        """Player ``player``'s events for ``tick`` as known now (none if unknown: the prediction)."""
        return self._events[player].get(tick, _NONE)

    def run_of(self, player: int, first: int, last: int) -> dict[int, Events]:
        """Player ``player``'s ticks with events among ``first``..``last`` (all known), in order, for sending.

        Called for every datagram: the cost follows the run asked for (the unacknowledged
        ticks), never the whole log.
        """
        log = self._events[player]
        return {tick: log[tick] for tick in range(first, last + 1) if tick in log}

    def forget_before(self, keep_from: int) -> None:
        """Drop the inputs of ticks before ``keep_from`` (never any a rollback or ``confirm()`` still needs)."""
        keep_from = min(keep_from, self.emitted + 1)
        for log in self._events:
            for tick in [tick for tick in log if tick < keep_from]:
                del log[tick]

    # -- simulation -------------------------------------------------------------------

    def can_advance(self) -> bool:
        """Whether the next tick may run: its local input is given and it stays inside the prediction window."""
        following = self.current + 1
        if self.local is not None and self.known[self.local] < following:
            return False
        return following <= self.confirmed + self.max_prediction

    def resolve(self) -> int:
        """Roll back to before the first mispredicted tick and run the ticks again; returns how many were re-run."""
        wrong, self._first_wrong = self._first_wrong, None
        if wrong is None or wrong > self.current:
            return 0
        checkpoint = self._checkpoints.get(wrong - 1)
        if checkpoint is None:  # cannot happen: a predicted tick always had its checkpoint taken
            raise RuntimeError(f"no checkpoint before tick {wrong} to roll back to")
        until = self.current
        self.world.rollback(checkpoint)
        self.rollbacks += 1
        for _ in range(wrong, until + 1):
            self._simulate()
        self.resimulated += until - wrong + 1
        return until - wrong + 1

    def advance(self) -> bool:
        """Run the next tick if it may run (``can_advance``); returns whether it ran."""
        if self._first_wrong is not None:
            self.resolve()
        if not self.can_advance():
            return False
        self._simulate()
        return True

    def _simulate(self) -> None:
        world = self.world
        tick = world.tick_count + 1
        if tick > self.confirmed:  # something is predicted: keep the state to come back to
            self._checkpoints[tick - 1] = world.checkpoint()
            self._checkpoints.pop(tick - 1 - (self.max_prediction + 2), None)
        for player in range(self.players):
            queue = world.input_queue_of(player)
            for event in self._events[player].get(tick, _NONE):
                queue.push(event)
        world.tick()
        if self.is_hash_tick(tick):
            self.hashes[tick] = world.state_hash()
        if self.is_check_tick(tick):
            self.snapshots[tick] = world.snapshot()
            for old in [old for old in self.snapshots if old < tick - self.window]:
                del self.snapshots[old]

    def is_check_tick(self, tick: int) -> bool:
        """Whether peers compare ``tick``'s hash: every ``desync_interval`` ticks, and the session's last tick."""
        return tick % self.desync_interval == 0 or tick == self.final_tick

    def is_hash_tick(self, tick: int) -> bool:
        """Whether ``tick``'s state is hashed: peers compare it (``is_check_tick``) or a recording keeps it."""
        return self.is_check_tick(tick) or tick % HASH_EVERY == 0

    def confirm(self) -> Iterator[Confirmed]:
        """Each newly confirmed tick that has run, once, in order (resolve a pending rollback first)."""
        if self._first_wrong is not None:
            self.resolve()
        last = min(self.confirmed, self.current)
        while self.emitted < last:
            tick = self.emitted + 1
            self.emitted = tick
            inputs = tuple(self._events[player].get(tick, _NONE) for player in range(self.players))
            digest = self.hashes.get(tick) if tick % HASH_EVERY == 0 else None
            if not self.is_check_tick(tick):
                self.hashes.pop(tick, None)
            for old in [old for old in self._checkpoints if old < tick - 1]:
                del self._checkpoints[old]  # nothing rolls back past a confirmed tick
            yield Confirmed(tick, inputs, digest)

    def at_confirmed(self, use: Callable[[World], Any]) -> Any:
        """Call ``use(world)`` with the world at the last confirmed tick handed out (``emitted``); its result.

        Between ticks only. When the world has run ahead on predicted input it is rolled back
        to that tick's checkpoint for the call, then the ticks after are run again with the
        same input, to the same state (as a rollback re-runs them: their sounds are not handed
        out twice).
        """
        if self._first_wrong is not None:
            self.resolve()
        until = self.current
        if until == self.emitted:
            return use(self.world)
        self.world.rollback(self._checkpoints[self.emitted])
        try:
            return use(self.world)
        finally:
            for _ in range(self.emitted + 1, until + 1):
                self._simulate()

    def rewind_to_confirmed(self) -> None:
        """Put the world back at the last confirmed tick handed out (the end of a session: no predicted tick stays)."""
        if self.current > self.emitted:
            self.world.rollback(self._checkpoints[self.emitted])

    def confirmed_hash(self, tick: int) -> str | None:
        """The final hash of confirmed desync-check tick ``tick``, if still kept."""
        return self.hashes.get(tick) if tick <= self.emitted else None

    def forget_hashes_before(self, tick: int) -> None:
        """Drop kept hashes of ticks before ``tick`` (they were compared)."""
        for old in [old for old in self.hashes if old < tick and old <= self.emitted]:
            del self.hashes[old]
