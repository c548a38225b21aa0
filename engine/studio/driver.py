"""``StudioDriver``: local play through a ``Studio``, as a window's runner drives it (``tickswap run``).

The runner hands it the ticks it owes as it hands them to any driver (``engine.world.driver``);
the studio keeps each in its rewind ring, a paused studio runs one (F3), and with a ``Watcher``
a change to the game's files reloads it between frames and a failing tick pauses the game
until the fix is saved. The window's keys for the studio itself (F6 to F9, a click while
paused) are the runner's: they reach ``studio``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from engine.studio.studio import Studio
from engine.studio.watch import Watcher
from engine.world import World
from engine.world.driver import Hook, LocalDriver

__all__ = ["StudioDriver"]


class StudioDriver(LocalDriver):
    """Local play through ``studio`` (rewind, reload, inspect): each tick is kept in its ring.

    ``watcher`` tells which of the game's files changed: each change reloads the game between
    frames, and a tick that fails pauses it (``Studio.crashed``) instead of ending the run.
    ``paced``: off-screen, each frame also takes a display refresh of real time, so that a
    ``--headless --watch`` run lasts long enough to edit the game. ``players``,
    ``before_tick`` and ``after_tick`` are ``LocalDriver``'s.
    """

    def __init__(self, studio: Studio, *, watcher: Watcher | None = None, paced: bool = False,
                 players: Sequence[int] | None = None, before_tick: Hook | None = None,
                 after_tick: Hook | None = None) -> None:
        super().__init__(studio.world, players=players, before_tick=before_tick, after_tick=after_tick)
        self.studio = studio
        """What the window's F2, F3, F6 to F9 and clicks drive (pause, step, rewind, inspect, reload)."""
        self.watcher = watcher
        """Which of the game's files changed (``--watch``), or ``None``."""
        self.paced = paced
        """Off-screen, frames take real time too (a display refresh each)."""
        self._paced_at = time.perf_counter()  # when the latest paced frame is due

    @property
    def world(self) -> World:
        """The studio's world: a reload replaces it (the runner then draws the new one)."""
        return self.studio.world

    def poll(self) -> None:
        """Watching, reload the game's code if its files changed since the last frame."""
        if self.watcher is not None:
            changed = self.watcher.changes()
            if changed:
                self.studio.reload(changed)

    def idle(self, timeout_s: float) -> None:
        """``paced``: wait until this frame's refresh is due (no more than a quarter of a second late)."""
        if self.paced:
            now = time.perf_counter()
            self._paced_at = max(self._paced_at + timeout_s, now - 0.25)
            time.sleep(max(0.0, self._paced_at - time.perf_counter()))

    def tick_world(self, elapsed_ms: float | None) -> bool:
        """One live tick kept in the ring (F3 while paused: one at the head of it); watching, a failing one pauses
        the game (``False``: no tick ran, and ``after_tick`` is not called)."""
        try:
            if self.studio.paused:
                self.studio.step(elapsed_ms)
            else:
                self.studio.tick(elapsed_ms)
        except Exception as error:
            if self.watcher is None:
                raise
            # Watching, a tick that fails pauses the game (the world rolled the tick back, whole)
            # until the fix is saved: building a game is not over at its first mistake.
            self.studio.crashed(error)
            return False
        return True

    def hud_text(self) -> str:
        """Where the world is in the rewind ring, when it keeps one."""
        studio = self.studio
        return studio.timeline.describe(studio.world.ms_per_update) if studio.rewinds else ""

    def close(self) -> None:
        """Stop watching and release the studio's world (and its ring)."""
        if self.watcher is not None:
            self.watcher.close()
        self.studio.close()
