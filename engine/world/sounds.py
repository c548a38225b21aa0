"""Sound requests: ``world.play(sound)`` asks for a sound; the runner plays it after the tick.

A sound is an effect, like drawing: game logic asks for it during a tick and never hears
back. Requests are kept with the tick that made them and handed to the runner after that
tick completes (``engine.world.take_sounds(world)``); a tick that fails drops its requests
with the rest of its work, so a retried tick asks again exactly once. Nothing here touches game state:
``world.play`` changes no buffered value, no random generator, no hash. Replays run the
same ticks, so they ask for the same sounds at the same ticks, and are heard again.
This module never imports pyglet; ``engine.render.sound`` is the player.

``world.play(sound, limit=4)`` caps how many plays of one sound are heard at once, so
fifty towers firing together do not play fifty shots. The cap works in two places, and
both are deterministic: here, when a tick's requests are handed out, a tick keeps at most
``limit`` requests of one sound (the loudest: which entity asked first, in whatever update
order, does not matter); and in the player, a play that would start while ``limit`` plays
of the same sound are still sounding is skipped, counting time in ticks (a request of tick
``t`` starts at ``t * ms_per_update``) and each play's length from the file. Replays ask for
the same requests, and the same ones are heard.
"""

from __future__ import annotations

import math
import os
import sys
import wave
from dataclasses import dataclass, replace

from engine.deprecation import MOVED_REMOVED_IN, warn_deprecated
from engine.disk.reading import file_kind
from engine.messages import shown, shown_name

__all__ = ["MAX_LIMIT", "SoundRequest", "SoundRequests", "limited", "missing_file", "missing_sound", "sound_length_ms"]

KEPT = 4096
"""The most finished requests a world keeps for ``take_sounds``: a run that never plays
them (``--ticks``, tests) must not grow without bound; the oldest go first."""
_SUFFIXES = (".wav", ".ogg", ".mp3", ".flac")
MAX_LIMIT = 1024
"""The highest ``limit`` a ``world.play`` may give (more is no limit at all: leave it out)."""


@dataclass(frozen=True)
class SoundRequest:
    """One ``world.play(sound, volume, limit)``: the file, its volume, the tick that asked, and
    how many plays of this sound may sound at once (``None``: no limit).

    Its file is ``path``, as a ``MusicRequest``'s is (``sound`` is 0.4's name for it, a
    warning alias until 0.6)."""

    path: str
    """The sound file, as ``world.play`` was given it (a ``str``; a path-like is turned into one)."""
    volume: float
    """From 0.0 (silent) to 1.0 (as recorded), as asked."""
    tick: int
    """The tick that asked for it (the one whose end plays it); between ticks, the last completed tick."""
    limit: int | None = None
    """How many plays of this file may sound at once, counting this one (``None``: no limit)."""

    @property
    def sound(self) -> str:
        """Deprecated: ``path`` (music requests name their file ``path`` too). The sound file."""
        warn_deprecated("SoundRequest.sound", "SoundRequest.path", removed_in=MOVED_REMOVED_IN)
        return self.path


class SoundRequests:
    """A world's sound requests: ``World.play`` asks, and ``engine.world.take_sounds`` hands them out.

    A part ``World`` is composed of; the world tells it whether a tick is in progress and
    how many ticks have completed, and its schedule calls ``tick_started``.
    """

    def __init__(self) -> None:
        self._finished: list[SoundRequest] | None = None
        self._pending: list[SoundRequest] | None = None  # the requests of a tick not completed yet

    def ask(self, sound: str | os.PathLike[str], volume: float, ticking: bool, tick_count: int,
            limit: int | None = None) -> None:
        """``World.play``: check the request and keep it with the tick that made it (see there)."""
        path = os.fspath(sound) if isinstance(sound, (str, os.PathLike)) else None
        if not isinstance(path, str) or not path or "\0" in path:
            raise TypeError(f"world.play takes the path of a sound file, got {shown(sound)}")
        if not path.lower().endswith(_SUFFIXES):
            raise ValueError(f"world.play({shown(path)}): a sound is a {', '.join(_SUFFIXES)} file")
        if isinstance(volume, bool) or not isinstance(volume, (int, float)) or not math.isfinite(volume) \
                or not 0.0 <= volume <= 1.0:
            raise ValueError(f"world.play({shown(path)}, volume={shown(volume)}): volume goes from 0.0 to 1.0")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT):
            raise ValueError(f"world.play({shown(path)}, limit={shown(limit)}): limit is how many plays of this "
                             f"sound may sound at once, a whole number from 1 to {MAX_LIMIT} (or None: no limit)")
        if ticking:
            if self._pending is None:
                self._pending = []
            self._pending.append(SoundRequest(path, float(volume), tick_count + 1, limit))
        else:
            if self._finished is None:
                self._finished = []
            self._finished.append(SoundRequest(path, float(volume), tick_count, limit))

    def take(self, ticking: bool, tick_count: int) -> list[SoundRequest]:
        """Every sound asked for by completed ticks (and between ticks) since the last call, in order."""
        self._tick_done(ticking, tick_count)
        taken, self._finished = self._finished or [], None
        return limited(taken)

    def tick_started(self, tick_count: int) -> None:
        """World.tick calls this before the tick's systems run (the one hook sounds need).

        Requests of the previous tick join the finished ones; requests left by a tick that
        failed (their tick number was never reached) are dropped, so a retried tick asks
        again exactly once.
        """
        pending = self._pending
        if pending and pending[0].tick > tick_count:
            self._pending = None
        self._tick_done(False, tick_count)

    def _tick_done(self, ticking: bool, tick_count: int) -> None:
        # A tick's requests join the finished ones once the tick has completed.
        pending = self._pending
        if pending and not ticking and pending[0].tick <= tick_count:
            if self._finished is None:
                self._finished = []
            self._finished.extend(limited(pending))
            self._pending = None
            if len(self._finished) > KEPT:
                del self._finished[:-KEPT]


def limited(requests: list[SoundRequest]) -> list[SoundRequest]:
    """``requests`` with at most ``limit`` of one sound per tick: the loudest, in their order.

    Where a tick's requests of one sound give different limits, the smallest holds, and
    every request kept carries it: what is kept depends only on what was asked, never on
    the order the asking entities updated in.
    """
    limits: dict[tuple[int, str], int] = {}
    for request in requests:
        if request.limit is not None:
            key = (request.tick, request.path)
            limits[key] = min(limits.get(key, request.limit), request.limit)
    if not limits:
        return requests
    groups: dict[tuple[int, str], list[int]] = {}
    for index, request in enumerate(requests):
        if (request.tick, request.path) in limits:
            groups.setdefault((request.tick, request.path), []).append(index)
    dropped: set[int] = set()
    for key, indices in groups.items():
        loudest = sorted(indices, key=lambda index: -requests[index].volume)  # stable: equal ones are alike
        dropped.update(loudest[limits[key]:])
    kept = []
    for index, request in enumerate(requests):
        if index in dropped:
            continue
        limit = limits.get((request.tick, request.path), request.limit)
        kept.append(request if request.limit == limit else replace(request, limit=limit))
    return kept


def sound_length_ms(path: str) -> float | None:
    """How long the WAV file at ``path`` plays, in milliseconds, from its header; ``None`` when unknown.

    The player counts a limited sound's plays as sounding for this long. Read with the
    standard library's ``wave`` (no decoder needed, headless too); other formats, and a
    file that is not a readable WAV, give ``None``.
    """
    if not path.lower().endswith(".wav"):
        return None
    try:
        with wave.open(path, "rb") as reader:
            rate, frames = reader.getframerate(), reader.getnframes()
    except (OSError, EOFError, wave.Error):
        return None
    return frames * 1000.0 / rate if rate > 0 else None


def missing_sound(request: SoundRequest, reported: set[str]) -> bool:
    """Whether ``request``'s file does not exist; said once per file on stderr.

    Checked wherever sounds are handed out (the runner's player, ``--ticks`` runs), headless
    too: a missing file is the game's bug, to be found before a player hears silence.
    """
    return missing_file(request.path, reported, "sound")


def missing_file(path: str, reported: set[str], what: str) -> bool:
    """Whether the ``what`` file (a sound, music) at ``path`` does not exist; said once per file on stderr."""
    if path in reported:
        return True
    if os.path.isfile(path):
        return False
    reported.add(path)
    try:
        kind = file_kind(os.stat(path).st_mode)
    except OSError:
        kind = ""
    if kind:
        # A FIFO or a device is never opened (it could block the game); it is said as what it is.
        print(f"tickswap: the {what} {shown_name(path)} is {kind}, not a file; going on without it",
              file=sys.stderr)
        return True
    # Only a relative path can be the cwd's fault; an absolute one is simply not there.
    hint = "" if os.path.isabs(path) else \
        f" (a relative path is looked up from {os.getcwd()}; build it from __file__)"
    print(f"tickswap: no {what} file {shown(path)}{hint}; going on without it", file=sys.stderr)
    return True
