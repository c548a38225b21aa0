"""Music requests: ``world.music(path)`` asks for a track; the runner streams it after the tick.

Music is an effect, like a sound (``engine.world.sounds``): game logic asks for it during a
tick and never hears back; a tick that fails drops its requests, and a replay, running the
same ticks, asks for the same music at the same ticks. Unlike a sound it lasts: one track
is *current* until another replaces it or ``world.music(None)`` stops it, so a save keeps
the current track (not in the state hash: nothing in the game reads it) and a load asks
for it again, which resumes it. Asking for the track already current changes nothing, so
a game may ask every tick. This module never imports pyglet; ``engine.render.music`` plays.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

from engine.messages import shown
from engine.schema import FieldError, expect_str

__all__ = ["MusicRequest", "MusicRequests", "check_music", "check_saved_music", "music_of", "take_music"]

KEPT = 256
"""The most finished requests a world keeps for ``take_music`` (a run nobody plays for must not grow)."""
_SUFFIXES = (".wav", ".ogg", ".mp3", ".flac")


@dataclass(frozen=True)
class MusicRequest:
    """One ``world.music(path, loop, volume)``: ``path`` None stops the music; ``tick`` is the tick that asked."""

    path: str | None
    loop: bool
    volume: float
    tick: int

    def same_track(self, other: MusicRequest | None) -> bool:
        """Whether ``other`` asks for exactly this music (then nothing need change)."""
        return other is not None and (self.path, self.loop, self.volume) == (other.path, other.loop, other.volume)


def check_music(path: Any, loop: Any, volume: Any) -> tuple[str | None, bool, float]:
    """``world.music``'s arguments, checked (a save's music too): ``TypeError``/``ValueError`` naming the value."""
    if path is None:
        return None, True, 1.0
    name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if not isinstance(name, str) or not name or "\0" in name:
        raise TypeError(f"world.music takes the path of a music file, or None to stop, got {shown(path)}")
    if not name.lower().endswith(_SUFFIXES):
        raise ValueError(f"world.music({shown(name)}): music is a {', '.join(_SUFFIXES)} file")
    if not isinstance(loop, bool):
        raise TypeError(f"world.music({shown(name)}, loop={shown(loop)}): loop is True or False")
    if isinstance(volume, bool) or not isinstance(volume, (int, float)) or not math.isfinite(volume) \
            or not 0.0 <= volume <= 1.0:
        raise ValueError(f"world.music({shown(name)}, volume={shown(volume)}): volume goes from 0.0 to 1.0")
    return name, loop, float(volume)


def check_saved_music(value: Any, where: str) -> None:
    """The current music as a save holds it: ``[path, loop, volume]``, checked as ``world.music`` checks it."""
    if not (isinstance(value, list) and len(value) == 3):
        raise FieldError(f"{where} must be [path, loop, volume], got {shown(value)}")
    expect_str(value[0], f"{where} path", 4096)
    try:
        check_music(*value)
    except (TypeError, ValueError) as error:
        raise FieldError(f"{where}: {error}") from None


class MusicRequests:
    """A world's music: the current track, and the changes completed ticks asked for.

    A part ``World`` is composed of, like ``SoundRequests``: the world says whether a tick
    is in progress and how many have completed, and its schedule calls ``tick_started``.
    """

    def __init__(self) -> None:
        self._current: MusicRequest | None = None  # the last completed request (None: never asked)
        self._finished: list[MusicRequest] = []
        self._pending: list[MusicRequest] = []  # the requests of a tick not completed yet

    def ask(self, path: Any, loop: Any, volume: Any, ticking: bool, tick_count: int) -> None:
        """``World.music``: check the request and keep it with the tick that made it (see there)."""
        name, loop, volume = check_music(path, loop, volume)
        if not ticking:
            self._tick_done(False, tick_count)
        request = MusicRequest(name, loop, volume, tick_count + 1 if ticking else tick_count)
        latest = self._pending[-1] if self._pending else self._current
        if request.same_track(latest) or (name is None and (latest is None or latest.path is None)):
            return  # already playing (or already silent): nothing to change, nothing to hear
        if ticking:
            self._pending.append(request)
        else:
            self._keep([request])

    @property
    def current(self) -> MusicRequest | None:
        """The music the last completed tick left playing (None when none, or stopped)."""
        current = self._current
        return current if current is not None and current.path is not None else None

    def playing(self, tick_count: int) -> MusicRequest | None:
        """Between ticks: the music left playing once every completed tick's requests are settled (for saves).

        ``current`` alone lags until the requests are taken, so a save written right after a
        tick that started a track would not keep it.
        """
        self._tick_done(False, tick_count)
        return self.current

    def take(self, ticking: bool, tick_count: int) -> list[MusicRequest]:
        """Every change of music asked for by completed ticks (and between ticks) since the last call, in order."""
        self._tick_done(ticking, tick_count)
        taken, self._finished = self._finished, []
        return taken

    def tick_started(self, tick_count: int) -> None:
        """World.tick calls this before the tick's systems run: a failed tick's requests are dropped here."""
        if self._pending and self._pending[0].tick > tick_count:
            self._pending = []
        self._tick_done(False, tick_count)

    def resume(self, path: str, loop: bool, volume: float, tick_count: int) -> None:
        """Make ``path`` current as a loaded save left it, and ask for it again (a load resumes the music)."""
        self._current = None
        self._pending = []
        self.ask(path, loop, volume, False, tick_count)

    def kept(self) -> tuple[MusicRequest | None, list[MusicRequest]]:
        """The current track and the requests of completed ticks not settled yet, for a checkpoint."""
        return self._current, list(self._pending)

    def put_back(self, kept: tuple[MusicRequest | None, list[MusicRequest]], tick_count: int) -> None:
        """A rollback: the music is what the checkpoint's ticks left; if what plays differs, the runner is told."""
        playing = self._pending[-1] if self._pending else self._current
        current, pending = kept
        wanted = pending[-1] if pending else current
        self._current, self._pending = current, list(pending)
        if wanted is not None and not wanted.same_track(playing):
            self._finished.append(wanted)
        elif wanted is None and playing is not None and playing.path is not None:
            self._finished.append(MusicRequest(None, False, 0.0, tick_count))

    def _tick_done(self, ticking: bool, tick_count: int) -> None:
        if self._pending and not ticking and self._pending[0].tick > tick_count:
            # No tick runs, yet these wait for one that has not completed: it failed. Dropped here,
            # they can no longer make a request between ticks look "already playing".
            self._pending = []
        if self._pending and not ticking and self._pending[0].tick <= tick_count:
            pending, self._pending = self._pending, []
            self._keep(pending)

    def _keep(self, requests: list[MusicRequest]) -> None:
        self._current = requests[-1]
        self._finished.extend(requests)
        if len(self._finished) > KEPT:
            del self._finished[:-KEPT]


def music_of(world: object) -> MusicRequests:
    """The ``MusicRequests`` a ``World`` is composed of: for saves and the runner, not for games."""
    music = getattr(world, "_music", None)
    if not isinstance(music, MusicRequests):
        raise TypeError(f"music_of takes a World, got {world!r}")
    return music


def take_music(world: Any) -> list[MusicRequest]:
    """Every change of music ``world`` was asked for by completed ticks since the last call, in order.

    The runner plays them; a test of a game's music reads them here.
    """
    return music_of(world).take(bool(world.ticking), int(world.tick_count))
