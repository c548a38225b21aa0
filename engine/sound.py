"""Sound requests: ``world.play(sound)`` asks for a sound; the runner plays it after the tick.

A sound is an effect, like drawing: game logic asks for it during a tick and never hears
back. Requests are kept with the tick that made them and handed to the runner after that
tick completes (``take_sounds()``); a tick that fails drops its requests with the rest of
its work, so a retried tick asks again exactly once. Nothing here touches game state:
``world.play`` changes no buffered value, no random generator, no hash. Replays run the
same ticks, so they ask for the same sounds at the same ticks, and are heard again.
This module never imports pyglet; ``engine.render.sound`` is the player.
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass

from engine.files.reading import file_kind
from engine.messages import shown, shown_name

__all__ = ["SoundRequest", "SoundRequests", "missing_sound"]

KEPT = 4096
"""The most finished requests a world keeps for ``take_sounds()``: a run that never plays
them (``--ticks``, tests) must not grow without bound; the oldest go first."""
_SUFFIXES = (".wav", ".ogg", ".mp3", ".flac")


@dataclass(frozen=True)
class SoundRequest:
    """One ``world.play(sound, volume)``: the file, its volume, and the tick that asked."""

    sound: str
    volume: float
    tick: int


class SoundRequests:
    """The sound side of ``World``: ``play(sound, volume=1.0)`` and ``take_sounds()``.

    A mixin, so that the world's tick only has to tell it when a tick starts
    (``_sounds_tick_started``).
    """

    tick_count: int
    _sound_requests: list[SoundRequest] | None = None
    _sound_tick_requests: list[SoundRequest] | None = None

    @property
    def ticking(self) -> bool:
        """Whether a tick is in progress (World's own property replaces this one)."""
        return False

    def play(self, sound: str | os.PathLike[str], volume: float = 1.0) -> None:
        """Ask for ``sound`` (the path of a WAV or OGG file) to be played after this tick.

        ``volume`` is from 0.0 (silent) to 1.0 (as recorded). It changes no game state:
        the runner plays it after the tick (nothing headless, or without an audio device),
        and a replay asks for it again at the same tick. Asked for outside a tick (in
        ``build``), it is played with the next tick's sounds.
        """
        path = os.fspath(sound) if isinstance(sound, (str, os.PathLike)) else None
        if not isinstance(path, str) or not path or "\0" in path:
            raise TypeError(f"world.play takes the path of a sound file, got {shown(sound)}")
        if not path.lower().endswith(_SUFFIXES):
            raise ValueError(f"world.play({shown(path)}): a sound is a {', '.join(_SUFFIXES)} file")
        if isinstance(volume, bool) or not isinstance(volume, (int, float)) or not math.isfinite(volume) \
                or not 0.0 <= volume <= 1.0:
            raise ValueError(f"world.play({shown(path)}, volume={shown(volume)}): volume goes from 0.0 to 1.0")
        if self.ticking:
            if self._sound_tick_requests is None:
                self._sound_tick_requests = []
            self._sound_tick_requests.append(SoundRequest(path, float(volume), self.tick_count + 1))
        else:
            if self._sound_requests is None:
                self._sound_requests = []
            self._sound_requests.append(SoundRequest(path, float(volume), self.tick_count))

    def take_sounds(self) -> list[SoundRequest]:
        """Every sound asked for by completed ticks (and between ticks) since the last call, in order."""
        self._sounds_tick_done()
        taken, self._sound_requests = self._sound_requests or [], None
        return taken

    def _sounds_tick_started(self) -> None:
        """World.tick calls this before the tick's systems run (the one hook sounds need).

        Requests of the previous tick join the finished ones; requests left by a tick that
        failed (their tick number was never reached) are dropped, so a retried tick asks
        again exactly once.
        """
        pending = self._sound_tick_requests
        if pending and pending[0].tick > self.tick_count:
            self._sound_tick_requests = None
        self._sounds_tick_done()

    def _sounds_tick_done(self) -> None:
        # A tick's requests join the finished ones once the tick has completed.
        pending = self._sound_tick_requests
        if pending and not self.ticking and pending[0].tick <= self.tick_count:
            if self._sound_requests is None:
                self._sound_requests = []
            self._sound_requests.extend(pending)
            self._sound_tick_requests = None
            if len(self._sound_requests) > KEPT:
                del self._sound_requests[:-KEPT]


def missing_sound(request: SoundRequest, reported: set[str]) -> bool:
    """Whether ``request``'s file does not exist; said once per file on stderr.

    Checked wherever sounds are handed out (the runner's player, ``--ticks`` runs), headless
    too: a missing file is the game's bug, to be found before a player hears silence.
    """
    if request.sound in reported:
        return True
    if os.path.isfile(request.sound):
        return False
    reported.add(request.sound)
    try:
        kind = file_kind(os.stat(request.sound).st_mode)
    except OSError:
        kind = ""
    if kind:
        # A FIFO or a device is never opened (it could block the game); it is said as what it is.
        print(f"tickswap: the sound {shown_name(request.sound)} is {kind}, not a file; going on without it",
              file=sys.stderr)
        return True
    print(f"tickswap: no sound file {shown(request.sound)} (a relative path is looked up from {os.getcwd()}; "
          "build it from __file__); going on without it", file=sys.stderr)
    return True
