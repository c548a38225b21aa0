"""What runs a world's ticks for a window's runner: the ``Driver`` protocol, and ``LocalDriver``, local play.

A window's runner (``engine.render.runner.GameRunner``) draws frames and hands every tick
it owes to its driver, with the window's events, the same way whoever drives: local play
(``LocalDriver``: the world ticks by itself, between hooks that record it, save it or feed
it a script), the studio (``engine.studio.StudioDriver``: local play that can rewind and
reload), a recording played back and verified (``engine.files.replay.ReplayDriver``) and a
network session (``engine.net.Session``: it decides which ticks run, none while a peer is
awaited, several after a rollback). So the runner has one tick path; the protocol lives
here, beside the world they drive, so that none of them imports the renderer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from engine.input.events import InputEvent
from engine.messages import shown
from engine.world.access import take_sounds
from engine.world.sounds import SoundRequest
from engine.world.world import World

__all__ = ["Driver", "Hook", "Local", "LocalDriver"]

Local = Sequence[InputEvent] | Mapping[int, Sequence[InputEvent]]
"""A frame's events from this machine's devices: the first local player's, or ``{player: events}``."""
Hook = Callable[[World], Any]
"""Called with the world around each tick (``LocalDriver``'s ``before_tick`` and ``after_tick``)."""


class Driver(Protocol):
    """What runs a runner's ticks: local play (``LocalDriver``), the studio (``engine.studio.StudioDriver``), a
    recording played back and verified (``engine.files.replay.ReplayDriver``), a network session
    (``engine.net.Session``).

    The runner hands it the window's events with each tick it owes, polls it once a
    frame, draws its ``world``, shows its ``hud_text`` and stops when it has ``ended``.
    """

    @property
    def world(self) -> World | None:
        """The world it ticks, which the runner draws (``None``: a session not started yet, refused by the runner).
        It may change between frames (the studio's reload): the runner then draws the new one."""

    @property
    def ended(self) -> str | None:
        """Why the ticks stopped (a desync, a dropped peer, the recording's end), or ``None`` while they run."""

    def poll(self) -> None:
        """Once a frame, before its ticks: receive and send what the network has, or reload changed code (never
        blocking)."""

    @property
    def local_players(self) -> tuple[int, ...]:
        """The players this machine plays (its window's keyboard and pads are theirs); none: a spectator."""

    def advance(self, local: Local, elapsed_ms: float | None = None) -> int:
        """Run the ticks due now with the local players' new events (``{player: events}``); how many ran.

        ``elapsed_ms`` is the game time a variable-step loop's tick covers (``None``: the fixed step)."""

    def idle(self, timeout_s: float) -> None:
        """Off-screen, once a frame: wait up to ``timeout_s`` of real time when there is nothing to run yet."""

    def hud_text(self) -> str:
        """A short line for the HUD (ping, frames ahead, rollbacks, a replay's progress), or ``""``."""

    def take_sounds(self) -> list[SoundRequest]:
        """The sounds of ticks not handed out before (a re-simulated tick's are not played twice)."""


class LocalDriver:
    """Local play: the world ticks by itself, one tick for each the runner owes, with this machine's input.

    ``players`` are the world's players this machine's devices play (by default all of
    them; ``()``: none, the window's keys still work but reach no player, as a replay
    fed by a hook wants). ``before_tick`` and ``after_tick`` are called with the world
    around every tick: a recording is local play whose ``after_tick`` is the recorder's
    (``engine.files.replay.Recorder.after_tick``); ``tickswap run`` also saves at a tick
    and feeds an ``--input`` script there.
    """

    def __init__(self, world: World, *, players: Sequence[int] | None = None, before_tick: Hook | None = None,
                 after_tick: Hook | None = None) -> None:
        chosen = tuple(range(world.players)) if players is None else tuple(players)
        if any(type(player) is not int or not 0 <= player < world.players for player in chosen):
            raise ValueError(f"LocalDriver players must be players of the world (0 to {world.players - 1}), "
                             f"got {shown(players)}")
        self._world = world
        self._players = chosen
        self.before_tick = before_tick
        """Called with the world before every tick (a replay's hook feeds its recorded input here), or ``None``."""
        self.after_tick = after_tick
        """Called with the world after every tick (recording, saving at a tick), or ``None``."""

    @property
    def world(self) -> World:
        """The world it ticks."""
        return self._world

    @property
    def ended(self) -> None:
        """Never: local play runs until the window closes (or the runner's frames are done)."""
        return None

    @property
    def local_players(self) -> tuple[int, ...]:
        """The players this machine's devices play (``players``)."""
        return self._players

    def poll(self) -> None:
        """Nothing to receive: the input is this machine's."""

    def idle(self, timeout_s: float) -> None:
        """Nothing to wait for: the next tick is always due."""

    def advance(self, local: Local, elapsed_ms: float | None = None) -> int:
        """Queue the local events for their players, then run one tick between the hooks; how many ran (1, or 0
        where ``tick_world`` says none did)."""
        self._queue(local)
        if self.before_tick is not None:
            self.before_tick(self.world)
        if not self.tick_world(elapsed_ms):
            return 0
        if self.after_tick is not None:
            self.after_tick(self.world)
        return 1

    def _queue(self, local: Local) -> None:
        """Push a frame's events into their players' input queues (a sequence is the first local player's)."""
        by_player = local if isinstance(local, Mapping) else {self._players[0]: local} if self._players and local \
            else {}
        for player, events in by_player.items():
            if player not in self._players:
                raise ValueError(f"player {shown(player)} is not played on this machine (it plays {self._players})")
            queue = self.world.input_queue_of(player)
            for event in events:
                queue.push(event)

    def tick_world(self, elapsed_ms: float | None) -> bool:
        """The tick itself, between the hooks: ``world.tick`` (the studio's driver keeps it in its ring); whether
        it ran (a failure the driver handles, not raised, is no tick)."""
        self.world.tick(elapsed_ms)
        return True

    def hud_text(self) -> str:
        """Nothing to say: the HUD shows the loop's own figures."""
        return ""

    def take_sounds(self) -> list[SoundRequest]:
        """The sounds the tick asked for."""
        return take_sounds(self.world)
