"""SoundPlayer: plays the sounds a world asked for, after each tick, through ``pyglet.media``.

Silent when headless (``pyglet.media`` is never even imported) and where there is no
audio device or no decoder for a file: a sound is an effect, and a game must run the
same without one. The first failure is reported once on stderr, never raised. Every
request is logged in ``played`` (tick, file, volume), heard or not, so tests and replays
can check which sounds a run asked for.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Iterable
from typing import Any

from engine.world.sounds import SoundRequest, missing_sound

__all__ = ["SoundPlayer"]


class SoundPlayer:
    """Plays ``SoundRequest``s; ``silent=True`` only logs them (headless runs)."""

    def __init__(self, *, silent: bool, log_size: int = 10_000) -> None:
        self.silent = silent
        self.played: deque[SoundRequest] = deque(maxlen=log_size)
        """The latest requests, heard or not, oldest first."""
        self._sources: dict[str, Any] = {}
        self._broken: set[str] = set()
        self._unavailable = False

    def play(self, requests: Iterable[SoundRequest]) -> None:
        """Play each request (unless silent), and log it."""
        for request in requests:
            self.played.append(request)
            if request.sound in self._broken:
                continue
            if request.sound not in self._sources and missing_sound(request, self._broken):
                continue
            if self.silent or self._unavailable:
                continue
            try:
                source = self._sources.get(request.sound)
                if source is None:
                    import pyglet.media

                    source = self._sources[request.sound] = pyglet.media.load(request.sound, streaming=False)
                player = source.play()
                player.volume = request.volume
            except Exception as error:
                if type(error).__name__ in ("NoAudioDriverError", "MediaException") and not self._sources:
                    self._unavailable = True
                self._broken.add(request.sound)
                print(f"tickswap: cannot play {request.sound!r} ({type(error).__name__}: {error}); "
                      "going on without it", file=sys.stderr)
