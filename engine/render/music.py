"""MusicPlayer: streams the music a world asked for, after each tick, through ``pyglet.media``.

One track plays at a time: a new request stops the old one and starts the new one from
its beginning (``world.music`` never asks twice for the track already playing), and a
request for ``None`` stops it. Music is streamed (``pyglet.media.load(path,
streaming=True)``): a song is decoded as it plays, never held whole in memory. Silent
when headless (``pyglet.media`` is never even imported) and where there is no audio
device or no decoder: like a sound, music is an effect and a game runs the same
without it. A missing or undecodable file is said once on stderr, never raised. Every
request is logged in ``asked``, heard or not, so tests and replays can check which
music a run asked for, and when.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Iterable
from typing import Any

from engine.world.music import MusicRequest
from engine.world.sounds import missing_file

__all__ = ["MusicPlayer"]


class MusicPlayer:
    """Plays ``MusicRequest``s, one track at a time; ``silent=True`` only logs them (headless runs)."""

    def __init__(self, *, silent: bool, log_size: int = 1000) -> None:
        self.silent = silent
        self.asked: deque[MusicRequest] = deque(maxlen=log_size)
        """The latest requests, heard or not, oldest first."""
        self.playing: MusicRequest | None = None
        """The request whose track is playing now (None when silent, stopped or unplayable)."""
        self._player: Any = None
        self._broken: set[str] = set()
        self._unavailable = False

    def play(self, requests: Iterable[MusicRequest]) -> None:
        """Log each request; only the last one of a batch is played (the earlier ones were replaced at once)."""
        latest = None
        for request in requests:
            self.asked.append(request)
            latest = request
        if latest is not None:
            self._switch(latest)

    def _switch(self, request: MusicRequest) -> None:
        self.stop()
        if request.path is None or request.path in self._broken or missing_file(request.path, self._broken, "music"):
            return
        if self.silent or self._unavailable:
            return
        try:
            import pyglet.media

            source = pyglet.media.load(request.path, streaming=True)
            player = pyglet.media.Player()
            player.queue(source)
            player.loop = request.loop
            player.volume = request.volume
            player.play()
        except Exception as error:
            if type(error).__name__ in ("NoAudioDriverError", "MediaException") and self.playing is None \
                    and not self._broken:
                self._unavailable = True  # no audio device: nothing will ever play, so nothing more is tried
            self._broken.add(request.path)
            print(f"tickswap: cannot play the music {request.path!r} ({type(error).__name__}: {error}); "
                  "going on without it", file=sys.stderr)
            return
        self._player = player
        self.playing = request

    def stop(self) -> None:
        """Stop the music playing now, if any (the runner calls it when it closes)."""
        player, self._player, self.playing = self._player, None, None
        if player is not None:
            try:
                player.pause()
                player.delete()
            except Exception as error:  # a driver that fails to stop must not crash the game
                print(f"tickswap: stopping the music failed ({type(error).__name__}: {error})", file=sys.stderr)
