"""SoundPlayer: plays the sounds a world asked for, after each tick, through ``pyglet.media``.

Silent when headless (``pyglet.media`` is never even imported) and where there is no
audio device or no decoder for a file: a sound is an effect, and a game must run the
same without one. The first failure is reported once on stderr, never raised. Every
request is logged in ``played`` (tick, file, volume), heard or not, so tests and replays
can check which sounds a run asked for.

A request with a ``limit`` (``world.play(path, limit=4)``) is skipped, and logged in
``limited``, while ``limit`` plays of the same file are still sounding. Time is counted
in ticks, not read from a clock: a request of tick ``t`` starts at ``t * ms_per_update``
and sounds for the file's length: a WAV's from its header, so the same run skips the
same plays windowed or headless, and a replay hears what the run heard; another format's
from the decoder once it is loaded (headless, never: there only the tick's own cap holds).
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Iterable
from typing import Any

from engine.world.sounds import SoundRequest, missing_sound, sound_length_ms

__all__ = ["SoundPlayer"]


class SoundPlayer:
    """Plays ``SoundRequest``s; ``silent=True`` only logs them (headless runs)."""

    def __init__(self, *, silent: bool, log_size: int = 10_000, ms_per_update: float = 15.625) -> None:
        self.silent = silent
        self.ms_per_update = ms_per_update
        """The game's step: a request of tick ``t`` starts ``t * ms_per_update`` into the run."""
        self.played: deque[SoundRequest] = deque(maxlen=log_size)
        """The latest requests, heard or not, oldest first."""
        self.limited: deque[SoundRequest] = deque(maxlen=log_size)
        """The latest requests skipped because ``limit`` plays of their sound were still sounding."""
        self._sources: dict[str, Any] = {}
        self._lengths: dict[str, float | None] = {}
        self._sounding: dict[str, list[float]] = {}  # per limited file: when each of its plays ends, in ms
        self._broken: set[str] = set()
        self._unavailable = False

    def forget(self) -> None:
        """Read every sound file again when next played: a live reload after one changed (``engine.studio``)."""
        self._sources.clear()
        self._lengths.clear()
        self._broken.clear()

    def play(self, requests: Iterable[SoundRequest]) -> None:
        """Play each request (unless silent or over its limit), and log it."""
        for request in requests:
            self.played.append(request)
            if request.path in self._broken:
                continue
            if request.path not in self._sources and missing_sound(request, self._broken):
                continue
            if request.limit is not None and not self._start(request):
                self.limited.append(request)
                continue
            if self.silent or self._unavailable:
                continue
            try:
                source = self._sources.get(request.path)
                if source is None:
                    import pyglet.media

                    source = self._sources[request.path] = pyglet.media.load(request.path, streaming=False)
                    length = getattr(source, "duration", None)
                    if self._lengths.get(request.path) is None and isinstance(length, (int, float)) and length > 0:
                        self._lengths[request.path] = length * 1000.0  # an OGG's: no header told us
                player = source.play()
                player.volume = request.volume
            except Exception as error:
                if type(error).__name__ in ("NoAudioDriverError", "MediaException") and not self._sources:
                    self._unavailable = True
                self._broken.add(request.path)
                print(f"tickswap: cannot play {request.path!r} ({type(error).__name__}: {error}); "
                      "going on without it", file=sys.stderr)

    def _start(self, request: SoundRequest) -> bool:
        """Whether a limited request may sound: fewer than ``limit`` plays of its file still sounding then."""
        sound, limit = request.path, request.limit
        assert limit is not None
        if sound not in self._lengths:
            self._lengths[sound] = sound_length_ms(sound)
        start = request.tick * self.ms_per_update
        # A length we cannot know counts as none: the tick's own cap (engine.world.sounds) still holds.
        ends = [end for end in self._sounding.get(sound, ()) if end > start]
        if len(ends) >= limit:
            self._sounding[sound] = ends
            return False
        ends.append(start + (self._lengths[sound] or 0.0))
        self._sounding[sound] = ends
        return True
