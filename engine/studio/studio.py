"""``Studio``: a running game you can pause, rewind, step, resume from any tick, reload with new code, and inspect.

The window's F2, F3, F6 to F9 and clicks call it (``engine.render.runner``), and a test
drives the very same object with no window (``engine.testing.Studio``)::

    studio = Studio(load_game("mygame.py"))
    for _ in range(300):
        studio.tick()                 # a live tick: the input queued now, as the window runs it
    studio.back(100)                  # tick 200, exactly, re-simulated from the ring
    studio.reload()                   # the game's files as they are now, the state kept
    studio.forward(100)               # ticks 201-300 again, new code, the same recorded input
    studio.resume()                   # go on from here; the rest of the old future is gone

What it rests on: a tick is a function of the state before it and its input, the world
keeps exact checkpoints (``World.checkpoint``), and a save carries state from one
version of the code to the next. The ring (``engine.studio.timeline``) keeps a
checkpoint every few ticks and every tick's input over the last ``seconds``, within
``max_bytes``; any tick in it is reached by rolling back to the checkpoint before it
and running the recorded ticks again. Resuming from the past discards the future after
it, as a rollback discards a predicted one. A reload while paused in the past runs the
recorded future again with the new code (``reload``), so an edit is seen at once
against the same input: the bug you rewound to, fixed or not.

Sounds of re-simulated ticks are not played (take_sounds is emptied after them); music
follows the state, as after a rollback. Everything happens between ticks, from the
thread that ticks the world.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from engine.entity import Entity
from engine.errors import located
from engine.files.game import Game
from engine.interrupts import Interrupted
from engine.studio.inspect import Inspection, entity_at, inspect
from engine.studio.reload import ReloadError, carry_into, carry_over
from engine.studio.timeline import DEFAULT_MAX_BYTES, DEFAULT_SECONDS, EVERY, TickRecord, Timeline, fed
from engine.world import World, take_sounds

__all__ = ["ReloadResult", "Studio"]


@dataclass(frozen=True)
class ReloadResult:
    """What ``Studio.reload`` did: ``ok``, and one line saying it (or why not: then the old code goes on)."""

    ok: bool
    message: str
    """One line: ``game.py reloaded at tick 120 in 35 ms``, or the error (file and line) that kept the old code."""
    tick: int
    """The tick the state was carried over at (or that the old code goes on from)."""
    seconds: float
    """How long the reload took, re-simulation included."""
    resimulated: int = 0
    """Ticks of the recorded future run again with the new code (a reload while paused in the past)."""
    changed: tuple[str, ...] = ()
    """The files whose change asked for the reload (as the watcher reported them)."""


class Studio:
    """One game's world, run live, with a ring of its recent past, live reload and an inspector.

    ``game`` (from ``load_game``) builds a fresh world (``seed``, ``players``: as ``tickswap
    run``'s), or ``world`` is the game's world already set up (a save loaded). The ring
    reaches ``seconds`` back (0: no rewinding), a checkpoint every ``every`` ticks, holding
    at most ``max_bytes``. ``say`` is told every message (a reload, a failure) as one line;
    ``on_rewrite`` is called with one line just before the world first leaves the head of
    its own history (rewound from it, or reloaded there): a recording of it ends there.
    """

    def __init__(self, game: Game, world: World | None = None, *, seed: int = 0, players: int | None = None,
                 seconds: float = DEFAULT_SECONDS, every: int = EVERY, max_bytes: int = DEFAULT_MAX_BYTES,
                 ms_per_update: float | None = None, say: Callable[[str], object] | None = None,
                 on_rewrite: Callable[[str], object] | None = None) -> None:
        self._game = game
        if world is None:
            world = World(seed=seed, players=players if players is not None else game.players.start)
            try:
                world.ms_per_update = ms_per_update or game.ms_per_update
                game.setup(world)
            except BaseException:
                world.close()
                raise
        elif ms_per_update is not None:
            world.ms_per_update = ms_per_update
        self._world = world
        self.say = say or (lambda line: None)
        self.on_rewrite = on_rewrite or (lambda line: None)
        self.timeline = Timeline(seconds=seconds, every=every, max_bytes=max_bytes,
                                 ms_per_update=world.ms_per_update)
        self.timeline.start(world)
        self.paused = False
        """While paused no live tick runs (``tick`` refuses); ``back``, ``forward`` and ``step`` move in the ring."""
        self.last_reload: ReloadResult | None = None
        """The latest reload's result (its ``message`` is on screen until the next)."""
        self.inspected: Entity | None = None
        """The entity the inspector shows (``inspect`` sets it), or ``None``."""
        self.crash: str | None = None
        """Why the game stopped (``crashed``), on screen until a reload works; ``None`` while it runs."""

    # -- what it runs ---------------------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The game as last loaded (a reload replaces it)."""
        return self._game

    @property
    def world(self) -> World:
        """The world shown now (a reload replaces it with one of the new classes)."""
        return self._world

    @property
    def now(self) -> int:
        """The tick the world is at (its ``tick_count``)."""
        return self._world.tick_count

    @property
    def head(self) -> int:
        """The latest tick run: ``now`` unless rewound."""
        return self.timeline.head

    @property
    def oldest(self) -> int:
        """The earliest tick ``back`` can reach (``now`` when the ring keeps nothing)."""
        return self.timeline.oldest

    @property
    def rewinds(self) -> bool:
        """Whether the ring keeps the recent past (``seconds`` above 0), so ``back`` can go anywhere."""
        return self.timeline.keeps

    # -- running --------------------------------------------------------------------------------

    def tick(self, elapsed_ms: float | None = None) -> None:
        """Run one live tick with the input queued now (what the window's loop calls), and keep it in the ring.

        Refused while paused (``step``, ``resume``). Rewound to the past, the future after
        ``now`` is discarded first, as ``resume`` does.
        """
        if self.paused:
            raise RuntimeError(f"the studio is paused at tick {self.now}: step() or resume() first")
        self._live(elapsed_ms)

    def _live(self, elapsed_ms: float | None = None) -> None:
        if self.now < self.timeline.head:
            self._discard_future()
        self._world.tick(elapsed_ms)
        self.timeline.record(self._world, elapsed_ms)

    def crashed(self, error: BaseException) -> None:
        """A live tick failed (the world rolled it back, whole): pause there, and say why until a reload works.

        What a window run with ``--watch`` does instead of ending: fix the code and the
        reload goes on from the tick that failed (or rewind to see how it came to fail).
        """
        self.paused = True
        for player in range(self._world.players):
            # The failed tick's input went back to the queue: dropped, so the tick runs again with the input
            # it is handed then (a script's is handed again), not with this twice.
            queue = self._world.input_queue_of(player)
            _waiting, held, mouse, sticks = queue.state()
            queue.set_state([], held, mouse, sticks)
        self.crash = f"tick {self.now + 1} failed: {located(error)}"
        self.say(f"{self.crash}; the game is paused: fix the code (it reloads), or go back with F6")

    def pause(self) -> None:
        """Stop live ticks; the world stays at ``now`` (``back``, ``forward``, ``step``, ``inspect`` then)."""
        self.paused = True

    def resume(self) -> None:
        """Run live again from ``now``: the recorded ticks after it are discarded (as a rollback discards a
        prediction), and the next live tick is ``now + 1`` with the input queued then."""
        if self.now < self.timeline.head:
            self._discard_future()
        self.paused = False

    def _discard_future(self) -> None:
        self.timeline.cut(self.now)

    def step(self, elapsed_ms: float | None = None) -> None:
        """One tick forward while paused: the recorded one if rewound, else a live one with the input queued now."""
        if self.now < self.timeline.head:
            self.forward(1)
        else:
            self._live(elapsed_ms)

    def back(self, ticks: int = 1) -> int:
        """Go ``ticks`` back (pausing), no further than ``oldest``; how many ticks back it went."""
        self._check_count(ticks, "back")
        self.paused = True
        target = max(self.oldest, self.now - ticks)
        moved = self.now - target
        if moved:
            self.go_to(target)
        return moved

    def _leaving_head(self, why: str) -> None:
        """The world is about to stop continuing its own history (``on_rewrite``), while it still holds the head."""
        if self.now == self.timeline.head:
            self.on_rewrite(why)

    def forward(self, ticks: int = 1) -> int:
        """Go ``ticks`` forward through the recorded ticks (pausing), no further than ``head``; how many it went.

        Each tick gets the input it had; at the head there is nothing recorded to go to
        (``step`` runs a live tick there).
        """
        self._check_count(ticks, "forward")
        self.paused = True
        target = min(self.timeline.head, self.now + ticks)
        moved = target - self.now
        if moved:
            self._run_recorded(self.now, target)
        return moved

    def go_to(self, tick: int) -> None:
        """Show tick ``tick`` exactly (``oldest`` to ``head``), paused: rolled back to the checkpoint before it and
        the recorded ticks run again."""
        if isinstance(tick, bool) or not isinstance(tick, int) or not self.oldest <= tick <= self.timeline.head:
            raise ValueError(f"go_to({tick!r}): the ring holds ticks {self.oldest} to {self.timeline.head}")
        self.paused = True
        if not self.rewinds:  # nothing kept: only the tick shown is in the ring
            return
        if tick != self.now:
            self._leaving_head(f"rewound from tick {self.now}")
        # At least one tick is run again when it can be: the inspector then knows who sent each signal.
        checkpoint = self.timeline.checkpoint_at_or_before(max(self.oldest, tick - 1))
        self._world.rollback(checkpoint)
        self._run_recorded(checkpoint.tick, tick)

    def _run_recorded(self, start: int, end: int) -> None:
        """Ticks ``start + 1`` to ``end`` again, each fed what it had (the world is at ``start``)."""
        for tick in range(start + 1, end + 1):
            record = self.timeline.record_of(tick)
            fed(self._world, record)
            self._world.tick(record.elapsed_ms)
        take_sounds(self._world)  # heard the first time: a re-simulated tick is silent

    @staticmethod
    def _check_count(ticks: int, what: str) -> None:
        if isinstance(ticks, bool) or not isinstance(ticks, int) or ticks < 0:
            raise ValueError(f"{what}({ticks!r}): give a whole number of ticks from 0")

    # -- reloading ------------------------------------------------------------------------------

    def reload(self, changed: Iterable[str] = ()) -> ReloadResult:
        """Import the game afresh and carry the state at ``now`` into the new classes (``engine.studio.reload``).

        ``changed``: the files whose change asked for it (said in the message). On success
        the world is a new one, the old is closed, and the ring starts again at ``now``;
        paused in the past, the recorded ticks up to the old head are run again with the
        new code and the same input (stopping at a tick the new code fails in), and the
        world is put back at ``now``. On failure (the import, ``build``, the state not
        fitting, one line naming the file and line) nothing changes: the old code goes on.
        Either way ``say`` is told, and the result kept in ``last_reload``.
        """
        started = time.perf_counter()
        changed = tuple(changed)
        tick, head = self.now, self.timeline.head
        future = [self.timeline.record_of(each) for each in range(tick + 1, head + 1)]
        try:
            game, world, notes = carry_over(self._game, self._world)
        except ReloadError as error:
            return self._reloaded(ReloadResult(False, f"{error}; the old code goes on", tick,
                                               time.perf_counter() - started, changed=changed))
        self._leaving_head(f"reloaded at tick {tick}")
        old, previous_game = self._world, self._game
        past = self._past_again(previous_game, game, world) if self.timeline.oldest < tick else None
        self._game, self._world = game, past if past is not None else world
        old.close()
        if past is not None:
            world.close()  # the same state, reached by the new code from the ring's oldest tick
            notes.append(f"the rewind keeps ticks {self.timeline.oldest} to {tick} (the new code runs them the same)")
        else:
            self.timeline.start(world)
            if self.rewinds and tick > 0:
                notes.append(f"the rewind starts again at tick {tick}: the new code changes the ticks before it")
        self.inspected = self._same_entity(self.inspected)
        again, failed = self._resimulate(future) if self.paused and future else (0, "")
        what = f"{game.name} reloaded at tick {tick}"
        if changed:
            what += f" ({', '.join(_short(path) for path in changed[:3])}{' ...' if len(changed) > 3 else ''} changed)"
        if again or failed:
            what += f", ticks {tick + 1} to {tick + again} re-simulated with the new code"
        if failed:
            what += f"; {failed}"
        seconds = time.perf_counter() - started
        message = f"{what} in {seconds * 1000:.0f} ms" + "".join(f"; {note}" for note in notes)
        if self.crash is not None and self.now == self.timeline.head:
            self.crash = None  # fixed, it is hoped: the tick that failed runs again, with the new code
            self.paused = False
            message += "; going on"
        return self._reloaded(ReloadResult(True, message, tick, seconds, again, changed))

    def _past_again(self, previous: Game, game: Game, now: World) -> World | None:
        """The ring's past run again by the new code, kept if it ends on ``now``'s state; else ``None``.

        The oldest checkpoint is carried into the new classes (the old world, about to be
        closed, is rolled back to it) and the recorded ticks up to ``now`` are run again,
        each with its input, into a fresh ring. Where the new code runs them the same (a new
        colour, a change to code those ticks never reached), the state it ends on is
        ``now``'s: the rewind history is kept whole. Otherwise (or if the old state does not
        carry over, or a tick fails) the ring starts again at ``now``, as it always did.
        """
        tick, oldest = now.tick_count, self.timeline.oldest
        past = [self.timeline.record_of(each) for each in range(oldest + 1, tick + 1)]
        self._world.rollback(self.timeline.checkpoint_at_or_before(oldest))
        try:
            again, _notes = carry_into(previous, game, self._world)
        except ReloadError:
            return None
        ring = Timeline(seconds=self.timeline.seconds, ms_per_update=now.ms_per_update, every=self.timeline.every,
                        max_bytes=self.timeline.max_bytes)
        ring.start(again)
        try:
            for record in past:
                fed(again, record)
                again.tick(record.elapsed_ms)
                ring.record(again, record.elapsed_ms)
        except Interrupted:
            again.close()
            raise
        except Exception:
            again.close()
            return None
        take_sounds(again)  # heard the first time
        if again.state_hash() != now.state_hash():
            again.close()
            return None
        self.timeline = ring
        return again

    def _resimulate(self, future: list[TickRecord]) -> tuple[int, str]:
        """The recorded future run again with the new code from ``now``, kept in the new ring; then back to ``now``."""
        tick = self.now
        ran = 0
        failed = ""
        for record in future:
            fed(self._world, record)
            try:
                self._world.tick(record.elapsed_ms)
            except Interrupted:
                raise
            except Exception as error:
                failed = (f"tick {self.now + 1} fails with the new code: {located(error)}; "
                          f"the recorded future ends at tick {self.now}")
                break
            self.timeline.record(self._world, record.elapsed_ms)
            ran += 1
        take_sounds(self._world)
        if ran:
            self._world.rollback(self.timeline.checkpoint_at_or_before(tick))
        return ran, failed

    def _reloaded(self, result: ReloadResult) -> ReloadResult:
        self.last_reload = result
        self.say(result.message)
        return result

    def _same_entity(self, entity: Entity | None) -> Entity | None:
        """The new world's entity of ``entity``'s id (a reload keeps ids), or ``None``."""
        if entity is None:
            return None
        return next((each for each in self._world.entities if each.id == entity.id), None)

    # -- inspecting -----------------------------------------------------------------------------

    def inspect(self, entity: Entity | int | None = None) -> Inspection | None:
        """What ``entity`` (an entity, or its id; default: the one inspected last) holds now; ``None`` if there
        is none. The inspected entity is remembered (the window shows it each frame)."""
        if isinstance(entity, int) and not isinstance(entity, bool):
            found = next((each for each in self._world.entities if each.id == entity), None)
            if found is None:
                raise ValueError(f"inspect({entity}): no live entity has id {entity} at tick {self.now}")
            entity = found
        elif entity is None:
            entity = self.inspected
            if entity is not None and not entity.alive:
                entity = self._same_entity(entity)  # rewound: the same id may live again
        if entity is None:
            self.inspected = None
            return None
        if not isinstance(entity, Entity):
            raise TypeError(f"inspect takes an Entity or an entity id, got {entity!r}")
        self.inspected = entity
        return inspect(self._world, entity)

    def pick(self, window_x: float, window_y: float) -> Entity | None:
        """The entity drawn at window pixel ``(window_x, window_y)``, inspected from now on (``None``: none)."""
        self.inspected = entity_at(self._world, window_x, window_y)
        return self.inspected

    # -- saying where it is ---------------------------------------------------------------------

    def describe(self) -> str:
        """One line for the screen: where the world is in the ring, and what the ring holds."""
        ms = self._world.ms_per_update
        ring = self.timeline.describe(ms) if self.rewinds else "rewind off"
        if self.now < self.timeline.head:
            back = (self.timeline.head - self.now) * ms / 1000
            return f"tick {self.now}, {back:.2f} s before tick {self.timeline.head}  {ring}"
        return f"tick {self.now}  {ring}"

    def close(self) -> None:
        """Release the world (and the ring's checkpoints of it)."""
        self.timeline.clear()
        self._world.close()


def _short(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]
