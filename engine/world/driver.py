"""The ``Driver`` protocol: what runs a world's ticks for a window's runner when ``world.tick`` alone does not.

A window's runner (``engine.render.runner.GameRunner``) draws frames and hands the
ticks they owe to a driver: a network session decides which ticks run (none while a peer
is awaited, several after a rollback), a replay runs the recording's next tick and
verifies it. Both are driven the same way, so the runner has one tick path for them;
the protocol lives here, beside the world they drive, so that neither imports the renderer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from engine.input.events import InputEvent
from engine.world.sounds import SoundRequest

__all__ = ["Driver"]


class Driver(Protocol):
    """What drives a runner's ticks instead of ``world.tick``: a network session (``engine.net.Session``),
    or a recording played back and verified (``engine.files.replay.ReplayDriver``).

    The runner hands it the window's events, polls it once a frame, shows its ``hud_text``
    and stops when it has ``ended``.
    """

    @property
    def ended(self) -> str | None:
        """Why the ticks stopped (a desync, a dropped peer, the recording's end), or ``None`` while they run."""

    def poll(self) -> None:
        """Receive and send what the network has, without blocking (once a frame)."""

    @property
    def local_players(self) -> tuple[int, ...]:
        """The players this peer plays (its window's keyboard and pads are theirs)."""

    def advance(self, local: Sequence[InputEvent] | Mapping[int, Sequence[InputEvent]]) -> int:
        """Run the ticks due now with the local players' new events (``{player: events}``); how many ran."""

    def idle(self, timeout_s: float) -> None:
        """Off-screen, once a frame: wait up to ``timeout_s`` of real time when there is nothing to run yet."""

    def hud_text(self) -> str:
        """A short line for the HUD (ping, frames ahead, rollbacks)."""

    def take_sounds(self) -> list[SoundRequest]:
        """The sounds of ticks not handed out before (a re-simulated tick's are not played twice)."""
