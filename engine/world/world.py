"""World: the entities of a game, and the schedule of a tick.

The Update Method pattern: the world calls every entity's ``update()`` once per tick, in
spawn order, as one esper processor at priority 0; other systems are esper processors
(``add_processor``). This module only decides *when* things happen. ``World`` is composed
of parts, each in its own module here: a ``Spawner`` (ids, update order, joining after a
tick), ``Players``, ``View`` (the window's size, the mouse), ``SoundRequests``, ``MusicRequests``,
``Collisions``, its esper world (``engine.ecs``) and Double Buffer (``engine.buffering``); tools reach them through
``spawner_of``, ``esper_of`` ..., never through ``World``. The update path never queries
esper (its query cache is rebuilt after any structural change): the spawner keeps the table.
"""

from __future__ import annotations

import os
import random
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar, overload

import esper

from engine.buffering import Buffers
from engine.camera import Mouse
from engine.clock import checked_ms
from engine.constants import DEFAULT_MS_PER_UPDATE, MAX_SEED
from engine.deprecation import MOVED_REMOVED_IN, warn_deprecated
from engine.ecs import EsperWorld
from engine.entity import Entity
from engine.errors import BufferedWriteError, EntityUpdateError
from engine.input.events import InputQueue, TickInput
from engine.interrupts import TICK
from engine.state.snapshot import snapshot, state_hash
from engine.world.checkpoints import Checkpoint, roll_back, take_checkpoint
from engine.world.collisions import Collisions, OldIndex
from engine.world.music import MusicRequests
from engine.world.players import Players
from engine.world.profiling import TickProfile, TimedCollisions
from engine.world.sounds import SoundRequest, SoundRequests
from engine.world.spawner import Spawner
from engine.world.view import View

if TYPE_CHECKING:
    from engine.world.save.check import Game

__all__ = ["BufferedWriteError", "EntityUpdateError", "World"]

E = TypeVar("E", bound=Entity)
T = TypeVar("T")


class _UpdateSystem(esper.Processor):
    """The esper processor that runs every entity's ``update()``.

    It holds its world weakly: esper's module-global context table would otherwise keep
    every world alive forever.
    """

    def __init__(self, world: World) -> None:
        self._world = weakref.ref(world)

    updates_entities = True
    """A profile (``TickProfile``) times this system's parts, not the system as one."""

    def process(self, *args: Any, **kwargs: Any) -> None:
        world = self._world()
        if world is not None:
            world._buffers.update(world)


class World:
    """A game world: spawns and despawns entities and runs them, tick by tick.

    ``tick()`` is the whole of game logic for one step; drive it from a loop
    (``FixedStepLoop(world.tick, render)``) or call it directly in tests. ``seed`` seeds
    ``world.random`` and every entity's ``random``, so that runs replay exactly: a whole
    number from 0 to 2**64-1, as ``--seed`` takes (``ValueError`` otherwise).
    ``ms_per_update`` is the fixed step the game is written for (``speed_factor`` is 1.0
    when a tick covers exactly that).
    """

    def __init__(self, seed: int = 0, ms_per_update: float = DEFAULT_MS_PER_UPDATE, players: int = 1) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            # random.seed(-3) is random.seed(3), and a string or a float would be a seed no command
            # line, recording or session can name: refused before anything is made.
            raise ValueError(f"seed must be a whole number from 0 to 2**64-1, got {seed!r}")
        self._ecs = EsperWorld(self)
        self._buffers = Buffers()
        self._spawner = Spawner(self, self._ecs, self._buffers)
        self._sounds = SoundRequests()
        self._music = MusicRequests()
        self._collisions_untimed = Collisions(self._spawner)
        self._collisions: Collisions | TimedCollisions = self._collisions_untimed  # timed while profiled
        self._quick: dict[Any, Any] = self._collisions_untimed.quick  # see overlapping; none while profiled
        self._view = View(self._spawner)
        self.seed = seed
        self.random = random.Random(seed)
        """For code outside entities (``build``, systems): entities use their own ``random``,
        since draws from a shared generator follow the update order."""
        self.tick_count = 0
        """Ticks completed so far."""
        self.ms_per_update = checked_ms("ms_per_update", ms_per_update)
        """The game time one fixed step covers."""
        self.elapsed_ms = self.ms_per_update
        """The game time the current (or last) tick covers: ``ms_per_update`` under fixed-step
        loops, the frame's elapsed time under the variable-step loop."""
        self.speed_factor = 1.0
        """``elapsed_ms / ms_per_update``: exactly 1.0 under fixed-step loops. Multiply motion by
        it and an entity moves at the right speed under every loop."""
        self._players = Players(players)
        self.input_queue = self._players.queues[0]
        """Where player 0's input events wait for the next tick (the window, tests and replays push here)."""
        self.input = self._players.inputs[0]
        """The input of the tick in progress (or the last one), player 0's: see ``TickInput``."""
        self._ticking = False
        self._ticker: int | None = None  # the thread whose tick() is running, start to end
        self._tick_lock = threading.Lock()
        self._early_systems = 0
        self._late_systems = 0
        self._profile: TickProfile | None = None  # timing the ticks (engine.world.profiling), or not
        self._ecs.add_processor(_UpdateSystem(self), 0)

    # -- players (the Players part: engine.world.players) -------------------------------------

    @property
    def players(self) -> int:
        """How many players this world has, fixed when it is made (``World(players=2)``)."""
        return len(self._players.queues)

    def input_of(self, player: int) -> TickInput:
        """Player ``player``'s input (0 to ``players - 1``) in the tick in progress: ``world.input`` is player 0's."""
        return self._players.inputs[self._players.check(player, "input_of")]

    def input_queue_of(self, player: int) -> InputQueue:
        """Where player ``player``'s events wait for the next tick (``world.input_queue`` is player 0's)."""
        return self._players.queues[self._players.check(player, "input_queue_of")]

    # -- the window and the mouse (the View: engine.world.view) ---------------------------------

    @property
    def view_size(self) -> tuple[int, int]:
        """The window's ``(width, height)`` in pixels, which a camera centres the view in: the game's ``WIDTH``,
        ``HEIGHT`` in worlds built for a game (``Game.build``), else 640 x 480 until set."""
        return self._view.size

    @view_size.setter
    def view_size(self, size: tuple[int, int]) -> None:
        self._view.size = size

    @property
    def mouse(self) -> Mouse:
        """Player 0's mouse: ``.x``, ``.y`` in the world, through the camera (its zoom and shake included) as the
        renderer draws it, and ``.window_x``, ``.window_y`` in the window (see ``Camera.to_world``)."""
        return self._view.mouse(self._players.inputs[0])

    def mouse_of(self, player: int) -> Mouse:
        """Player ``player``'s mouse, as ``world.mouse`` is player 0's."""
        return self._view.mouse(self.input_of(player))

    # -- esper ----------------------------------------------------------------------------

    @contextmanager
    def esper_context(self) -> Iterator[None]:
        """Make this world's esper world current for direct ``esper`` calls (processors need not: a tick does)."""
        with self._ecs.context():
            yield

    def close(self) -> None:
        """Release the esper world; the World can't be used afterwards. Safe to call twice."""
        self._ecs.close()

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_processor(self, processor: esper.Processor, priority: int = 0) -> None:
        """Add a plain esper processor (a system) to this world.

        Systems run in priority order, higher first, as esper does; updating the entities
        is the system at priority 0, and processors added at priority 0 run after it.
        ``processor.process()`` is called with no arguments, with esper pointing at this
        world. A system may write any entity's buffered state: written before the Update
        Method system, entities read it as their own committed values; written after it,
        it is kept (the Update Method system has committed the tick's values by then).
        Either way it is rolled back if the tick fails.
        """
        if not callable(getattr(processor, "process", None)):
            raise TypeError(f"add_processor takes an object with a process() method, got {processor!r}")
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise TypeError(f"priority must be an int, got {priority!r}")
        self._ecs.add_processor(processor, priority)
        if priority > 0:
            self._early_systems += 1
        else:
            self._late_systems += 1
            if self._ticking:  # added mid-tick: the buffers must not fold the previous values into the commit
                self._buffers.late_system_added()

    # -- spawning and reading (the Spawner) ---------------------------------------------------

    def spawn(self, entity: E, *components: Any) -> E:
        """Add ``entity`` (with optional esper components) and return it.

        Outside a tick the entity is live at once and gets its ``id`` (its esper entity
        id). Spawned during a tick it is ``alive`` at once but not updated in that tick:
        it joins after the tick, with previous = committed = its initial state, and gets
        its id then. Ids of the entities spawned in one tick are handed out in a canonical
        order (their spawners' ids, then the order each spawner spawned them), so ids, and
        everything seeded from them, never depend on the update order.
        """
        return self._spawner.spawn(entity, components, self._ticking)

    def despawn(self, entity: Entity) -> None:
        """Remove ``entity``: ``alive`` is False at once, and despawning twice is harmless.

        During a tick the entity is not updated after this point (nobody else is
        skipped or updated twice) and it leaves the esper world after the tick.
        """
        self._spawner.despawn(entity, self._ticking)

    @property
    def last_id(self) -> int:
        """The highest id handed out so far: the next spawn gets a higher one."""
        return self._spawner.last_id

    @property
    def entities(self) -> list[Entity]:
        """Live entities in spawn order (by id), the update order; a new list, safe to keep while spawning.

        It stays spawn order when ``tickswap check`` shuffles the updates: a loop over it is the same loop.
        During a tick it answers from the tick's start, like the collision queries: everyone live
        when the tick began (one despawned earlier in the tick included, one spawned in it not yet),
        so the answer never depends on who updated first.
        """
        return self._spawner.live()

    @overload
    def entities_of(self, kind: type[E]) -> list[E]: ...
    @overload
    def entities_of(self, kind: tuple[type[Entity], ...]) -> list[Entity]: ...

    def entities_of(self, kind: type[E] | tuple[type[Entity], ...]) -> list[E] | list[Entity]:
        """Live entities that are instances of ``kind`` (a class, or a tuple of classes as ``isinstance``
        takes), in spawn order (by id), like ``entities``.

        During a tick, those live when the tick began (see ``entities``): the same list in every update order.
        """
        return self._spawner.live_of(kind)

    def __len__(self) -> int:
        return self._spawner.count()

    def shuffle_order(self, rng: random.Random) -> None:
        """Permute the update order of the live entities, from the next tick on.

        A tool for checking that a game does not depend on update order: with double
        buffered state, shuffling changes nothing a player can see. Entities spawned
        later join at the end. ``entities`` and ``entities_of`` keep spawn order.
        """
        self._spawner.shuffle(rng)

    @property
    def ticking(self) -> bool:
        """Whether a tick is in progress (spawns and despawns are then deferred)."""
        return self._ticking

    # -- effects and queries (SoundRequests, MusicRequests, Collisions) ------------------------

    def play(self, sound: str | os.PathLike[str], volume: float = 1.0, limit: int | None = None) -> None:
        """Ask for ``sound`` (the path of a WAV or OGG file) to be played after this tick.

        ``volume`` is from 0.0 (silent) to 1.0 (as recorded). It changes no game state:
        the runner plays it after the tick (none headless or without audio), and a replay
        asks for it again at the same tick. Asked for outside a tick (in ``build``), it is
        played with the next tick's. ``limit=4``: at most four plays of this sound at once
        (the loudest; ``engine.world.sounds`` says how)."""
        self._sounds.ask(sound, volume, self._ticking, self.tick_count, limit)

    def music(self, path: str | os.PathLike[str] | None, loop: bool = True, volume: float = 1.0) -> None:
        """Start (or switch to) the music at ``path``, streamed, after this tick; ``None`` stops it.

        An effect like ``play``: no game state changes, a replay asks again at the same tick,
        and a save keeps the current track, so a load resumes it (from its start). Asking for
        the track already playing changes nothing. See ``engine.world.music``.
        """
        self._music.ask(path, loop, volume, self._ticking, self.tick_count)

    # Without a kind the answer mixes entities and a map's tiles: list[Any], for the caller to narrow.
    @overload
    def overlapping(self, entity: Entity, kind: None = None) -> list[Any]: ...
    @overload
    def overlapping(self, entity: Entity, kind: type[T]) -> list[T]: ...

    def overlapping(self, entity: Entity, kind: type[T] | None = None) -> list[T] | list[Any]:
        """The live entities (instances of ``kind``, if given) whose boxes overlap ``entity``'s, sorted by id.

        With a spawned ``TileMap``, its solid tiles follow the entities (by layer, row,
        column); ``kind=Tile`` asks for the tiles only, an Entity class for entities only.

        Read from committed positions, so the answer is the same in every update order.
        An entity never overlaps itself; one without a box overlaps nothing.
        """
        if self._ticking:  # the fast path of a shooter's thousand queries a tick: the kind's one grid, asked at once
            try:
                found = self._quick[kind].overlapping(entity)
            except (KeyError, TypeError):
                found = None
            if found is not None:
                return found  # type: ignore[no-any-return]
        return self._collisions.overlapping(entity, kind, self._ticking, self.tick_count)

    @overload
    def overlapping_at(self, x: float, y: float, size: tuple[float, float], kind: None = None) -> list[Any]: ...
    @overload
    def overlapping_at(self, x: float, y: float, size: tuple[float, float], kind: type[T]) -> list[T]: ...

    def overlapping_at(self, x: float, y: float, size: tuple[float, float],
                       kind: type[T] | None = None) -> list[T] | list[Any]:
        """The live entities (instances of ``kind``, if given) that a box of ``size`` (width, height)
        centred at (x, y) would overlap, sorted by id; then the solid tiles of spawned maps
        (``kind=Tile``: only those; an Entity class: only entities).

        For moving then colliding: ask where an entity *would* be before it goes there. Read
        from committed positions, like ``overlapping``: the same answer in every update order.
        """
        return self._collisions.overlapping_at(x, y, size, kind, self._ticking, self.tick_count)

    @overload
    def overlapping_members(self, crowd: Entity, kind: None = None) -> tuple[Any, list[Any]]: ...
    @overload
    def overlapping_members(self, crowd: Entity, kind: type[T]) -> tuple[Any, list[T]]: ...

    def overlapping_members(self, crowd: Entity,
                            kind: type[T] | None = None) -> tuple[Any, list[T]] | tuple[Any, list[Any]]:
        """Which members of ``crowd`` (a ``Crowd``) overlap which live entities (of ``kind``), in one call.

        Returns ``(members, entities)``: a numpy int64 array of member indices (rows of the
        crowd's arrays) and the list of the entities each one overlaps, pair by pair
        (``zip(members, entities)``), sorted by member index, then entity id. A member's box
        is the crowd's ``hitbox`` if it sets one, else its look's size, centred on the
        member's position. Read from committed state, the crowd's committed members
        included, like ``overlapping``: the same answer in every update order. For projectiles
        as a crowd: ``members, hit = world.overlapping_members(self, Enemy)``, then a signal
        to each enemy hit and ``self.despawn_members(members)``.
        """
        return self._collisions.overlapping_members(crowd, kind, self._ticking, self.tick_count)

    @overload
    def near(self, x: float, y: float, radius: float, kind: None = None, *,
             exclude: Entity | None = None) -> list[Entity]: ...
    @overload
    def near(self, x: float, y: float, radius: float, kind: type[T], *, exclude: Entity | None = None) -> list[T]: ...

    def near(self, x: float, y: float, radius: float, kind: type[T] | None = None, *,
             exclude: Entity | None = None) -> list[T] | list[Entity]:
        """The live entities (instances of ``kind``, if given) whose position is within ``radius`` of (x, y).

        Sorted by id, from committed positions: the same in every update order. ``exclude``
        is an entity left out of the answer, typically the asker, which stands at its own
        position: ``world.near(self.x, self.y, 50, Boid, exclude=self)`` is the other boids
        within 50 px, as ``overlapping`` never returns the entity asked about. An entity
        that is not in the answer anyway (another kind, too far, spawned this tick) changes
        nothing; anything but an Entity or ``None`` is refused with ``TypeError``.
        """
        return self._collisions.near(x, y, radius, kind, self._ticking, self.tick_count, exclude)

    # -- the tick -----------------------------------------------------------------------

    def tick(self, elapsed_ms: float | None = None) -> None:
        """Run one tick of game logic, covering ``elapsed_ms`` of game time (default: one step).

        The order, always:

        1. The input queued since the previous tick becomes ``world.input`` (each player's
           becomes ``world.input_of(player)``).
        2. Systems run in priority order, higher first; updating the entities is the
           system at priority 0. It updates live entities in spawn order (one spawned
           during the tick waits for the next; one despawned is not updated after that
           point) and ends by committing their buffered state.
        3. After all systems: previous values are recorded, signals swap, spawns join,
           despawned entities leave the esper world, and ``tick_count`` goes up by one.

        If anything raises, the tick is abandoned and everything the engine owns is as
        it was before: buffered state, signals, pending spawns and despawns (dropped),
        the id counter, ``world.random``, every entity's ``random``, crowds, and the
        tick's input (back in the queue). An ``update()`` failure is raised as
        ``EntityUpdateError``; a write to another entity's buffered state as
        ``BufferedWriteError``. The world can tick again afterwards.

        A world ticked from several threads ticks one tick at a time (the others wait);
        a tick started from inside a tick of the same world (an ``update()``, a system, a
        finalizer) is refused with ``RuntimeError``.
        """
        me = threading.get_ident()
        if self._ticker == me:
            raise RuntimeError("World.tick() was called from inside a tick of the same world")
        with self._tick_lock:
            self._ticker = me
            try:
                self._tick(elapsed_ms)
            finally:
                self._ticker = None

    def _tick(self, elapsed_ms: float | None) -> None:
        if elapsed_ms is None:
            self.elapsed_ms = self.ms_per_update
            self.speed_factor = 1.0
        else:
            self.elapsed_ms = checked_ms("elapsed_ms", elapsed_ms, zero_allowed=True)
            self.speed_factor = self.elapsed_ms / self.ms_per_update
        # Held to the end, rollback included: a signal waits for the tick (engine.interrupts).
        with TICK:
            self._attempt()

    def _attempt(self) -> None:
        if self._profile is not None:
            self._attempt_profiled(self._profile)
            return
        self.input = self._players.take()
        random_state = self.random.getstate()
        self._buffers.begin(self._spawner.ticking_order(), self._late_systems > 0, self.tick_count + 1)
        self._sounds.tick_started(self.tick_count)
        self._music.tick_started(self.tick_count)
        self._collisions.tick_started(self.tick_count)
        self._ticking = True
        try:
            self._ecs.process()
            self._buffers.combine_signals(self.tick_count + 1)  # the game's combine functions, still undoable
        except BaseException:
            self._ticking = False
            self._abandon(random_state)
            raise
        self._ticking = False
        self._finish()

    def _attempt_profiled(self, profile: TickProfile) -> None:
        """``_attempt``, each of its steps timed by ``profile`` (which only reads a clock)."""
        started = profile.clock()
        self.input = self._players.take()
        random_state = self.random.getstate()
        profile.timed("double buffer", lambda: self._buffers.begin(
            self._spawner.ticking_order(), self._late_systems > 0, self.tick_count + 1))
        self._sounds.tick_started(self.tick_count)
        self._music.tick_started(self.tick_count)
        profile.timed("collisions", lambda: self._collisions.tick_started(self.tick_count))
        self._ticking = True
        try:
            self._ecs.process_each(profile.system)
            profile.timed("signals", lambda: self._buffers.combine_signals(self.tick_count + 1))
        except BaseException:
            self._ticking = False
            self._abandon(random_state)
            profile.tick_failed()
            raise
        self._ticking = False
        tick = self.tick_count + 1
        profile.timed("double buffer", lambda: self._buffers.finish(tick))
        profile.timed("spawns", self._spawner.settle)
        self.tick_count = tick
        profile.tick_done(profile.clock() - started)

    @property
    def profile(self) -> TickProfile | None:
        """The ``TickProfile`` timing this world's ticks (``TickProfile.start()`` sets it), or ``None``."""
        return self._profile

    @profile.setter
    def profile(self, profile: TickProfile | None) -> None:
        """Time this world's ticks with ``profile`` (``None``: stop); see ``TickProfile``. Between ticks only."""
        if profile is not None and not isinstance(profile, TickProfile):
            raise TypeError(f"world.profile is a TickProfile or None, got {profile!r}")
        if self._ticking:
            raise RuntimeError("a profile is attached or detached between ticks, not during one")
        self._profile = profile
        self._buffers.profile = profile
        self._collisions = self._collisions_untimed if profile is None else TimedCollisions(
            self._collisions_untimed, profile)
        self._quick = self._collisions_untimed.quick if profile is None else {}  # profiled: every query timed

    def _finish(self) -> None:
        tick = self.tick_count + 1
        self._buffers.finish(tick)
        self._spawner.settle()
        self.tick_count = tick

    def _abandon(self, random_state: tuple[Any, ...]) -> None:
        self._buffers.abort()
        self._spawner.drop_deferred()
        self.random.setstate(random_state)
        self.input = self._players.restore()

    # -- state ---------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Save the whole world to ``path``, atomically, in a versioned JSON format (``engine.world.save``).

        Every entity's class, id, buffered values, signals and ``saved`` attributes, the
        tick count, the random generators and every player's input state. Between ticks.
        """
        from engine.world.save import save_world

        save_world(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, game: Game | None = None) -> World:
        """Load a world saved by ``save()``: a new World that continues exactly as the original.

        A damaged, truncated or wrong-version file raises ``SaveError`` naming the file and the problem.
        ``game`` (``engine.testing.load_game``'s) says whose classes the save's are, where the process
        has loaded more than one game (or two versions of one file, as a test suite may): its
        classes only; its ``systems`` are not added (``engine.testing.load_save`` adds them).
        """
        from engine.world.save import load_world

        return load_world(path, game, world_class=cls)

    def checkpoint(self) -> Checkpoint:
        """Keep the whole state of the world in memory, between ticks: ``rollback`` returns to it.

        Exact, as a save is (``engine.world.checkpoints`` says what is kept), and the same
        objects come back, so references to entities stay valid. Refused during a tick.
        """
        return take_checkpoint(self, self._buffers)

    def rollback(self, checkpoint: Checkpoint) -> None:
        """Return to ``checkpoint`` (this world's own): ticking on with the same input repeats the same ticks."""
        self.input = roll_back(self, checkpoint, self._buffers)

    def snapshot(self) -> dict[str, Any]:
        """Return all buffered state and the tick count as a plain, JSON-serialisable dict.

        Entities appear by id (so the update order does not change it) with their class,
        committed buffered values, committed signals and the plain attributes their class
        lists in ``saved`` (what a save keeps is state too). Other plain attributes are
        private to each entity and not included.
        """
        return snapshot(self)

    def state_hash(self) -> str:
        """A stable hex digest of ``snapshot()``: same history, same hash, on any machine (floats to the bit)."""
        return state_hash(self)

    def __repr__(self) -> str:
        return f"<World tick={self.tick_count} entities={len(self)}>"

    # -- deprecated: names of 0.2, kept as aliases that warn until 0.6 (docs/changelog.md) ------

    @property
    def buffers(self) -> Any:
        """Deprecated, and never needed by a game: the world's Double Buffer is its own (0.4 published it
        for the engine's parts, which now reach it from an entity's state)."""
        warn_deprecated("World.buffers",
                        "the entity's own fields and signals (a game never needs the world's Double Buffer)",
                        removed_in=MOVED_REMOVED_IN)
        return self._buffers

    def take_sounds(self) -> list[SoundRequest]:
        """Deprecated: ``engine.world.take_sounds(world)``. The sounds completed ticks asked for, in order."""
        warn_deprecated("World.take_sounds()", "engine.world.take_sounds(world)")
        return self._sounds.take(self._ticking, self.tick_count)

    def system_count(self) -> int:
        """Deprecated: ``engine.world.system_count(world)``. How many systems ``add_processor`` added."""
        warn_deprecated("World.system_count()", "engine.world.system_count(world)")
        return self._early_systems + self._late_systems

    def restore_entity(self, entity: Entity, entity_id: int, buffers: dict[str, Any]) -> None:
        """Deprecated: ``World.load`` restores saved entities (``engine.world.spawner_of(world).restore_entity``)."""
        warn_deprecated("World.restore_entity()", "World.load(path), or engine.world.spawner_of(world).restore_entity")
        self._spawner.restore_entity(entity, entity_id, buffers)

    def restore_last_id(self, last_id: int) -> None:
        """Deprecated: ``World.load`` restores the id counter (``engine.world.spawner_of(world).restore_last_id``)."""
        warn_deprecated("World.restore_last_id()",
                        "World.load(path), or engine.world.spawner_of(world).restore_last_id")
        self._spawner.restore_last_id(last_id)

    def spatial_index(self) -> OldIndex:
        """Deprecated: ask ``overlapping``, ``overlapping_at`` or ``near``. This tick's collision index."""
        warn_deprecated("World.spatial_index()",
                        "world.overlapping(entity), world.overlapping_at(...) or world.near(...)")
        return OldIndex(self._collisions_untimed, self._ticking, self.tick_count)

    @property
    def structure_version(self) -> int:
        """Deprecated: ``engine.world.spawner_of(world).structure_version``. Bumped whenever entities join or leave."""
        warn_deprecated("World.structure_version", "engine.world.spawner_of(world).structure_version")
        return self._spawner.structure_version
