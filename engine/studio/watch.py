"""Watching a game's files: what changed since the game loop last asked, found by a thread that never touches the world.

``Watcher(root)`` starts a daemon thread running ``watchfiles`` (the OS's own change
notifications: inotify, FSEvents, ReadDirectoryChangesW) over the game's directory. The
thread only collects paths; the game loop asks ``changes()`` between ticks, which never
blocks, so watching costs the loop nothing and the world is only touched from the loop.
What counts is the game's code and what it loads: Python files (not caches), pictures,
sounds, tile maps and tilesets, fonts. The run's own outputs (its recording, saves and
screenshot) are left out, so writing them reloads nothing.

``watchfiles`` is the ``watch`` extra (``pip install 'tickswap[watch]'``): only building
a game needs it, never a shipped one. ``Watcher`` without it raises ``WatchUnavailable``
saying how to install it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["WATCHED_SUFFIXES", "WatchUnavailable", "Watcher"]

WATCHED_SUFFIXES = frozenset({".py", ".png", ".wav", ".ogg", ".mp3", ".flac", ".tmj", ".tmx", ".tsj", ".tsx", ".json",
                              ".ttf", ".otf"})
"""The files whose change reloads the game: its code, pictures, sounds, maps and tilesets, fonts."""
DEBOUNCE_MS = 60
"""Changes closer together than this are one change (an editor's write-then-rename): well under a second."""


class WatchUnavailable(RuntimeError):
    """``watchfiles`` is not installed: the message says how to install it."""


class Watcher:
    """The changed files under ``root`` since the last ``changes()``, collected by a background thread.

    ``ignore``: files never reported (the run's outputs). ``close()`` stops the thread.
    """

    def __init__(self, root: str | os.PathLike[str], *, ignore: Iterable[str | os.PathLike[str]] = ()) -> None:
        try:
            import watchfiles
        except ImportError:
            raise WatchUnavailable("--watch needs watchfiles: pip install 'tickswap[watch]'") from None
        self.root = Path(root).resolve()
        self._ignore = {Path(path).resolve() for path in ignore}
        self._lock = threading.Lock()
        self._changed: set[str] = set()
        self._arrived = threading.Event()
        self._stop = threading.Event()
        self.error: str | None = None
        """Why watching stopped, if it did (the directory went away): said once by whoever asks."""
        self._thread = threading.Thread(target=self._watch, args=(watchfiles,), name=f"tickswap watch {self.root}",
                                        daemon=True)
        self._thread.start()

    def ignore(self, path: str | os.PathLike[str]) -> None:
        """Never report ``path`` from now on: an output the run opened after the watch began (a recording
        that goes on after a reload)."""
        self._ignore = self._ignore | {Path(path).resolve()}  # a new set: the thread reads whole sets

    def _wanted(self, _change: Any, path: str) -> bool:
        file = Path(path)
        return (file.suffix.lower() in WATCHED_SUFFIXES and "__pycache__" not in file.parts
                and not file.name.startswith(".") and file.resolve() not in self._ignore)

    def _watch(self, watchfiles: Any) -> None:
        try:
            for batch in watchfiles.watch(self.root, watch_filter=self._wanted, debounce=DEBOUNCE_MS, step=20,
                                          stop_event=self._stop, rust_timeout=500, raise_interrupt=False):
                with self._lock:
                    self._changed.update(path for _change, path in batch)
                self._arrived.set()
        except Exception as error:  # the directory removed, a watch limit reached: the game keeps running
            self.error = f"watching {self.root} stopped: {type(error).__name__}: {error}"
            self._arrived.set()

    def mark(self, path: str | os.PathLike[str]) -> None:
        """Report ``path`` as changed with the next ``changes()`` (a change made before watching began)."""
        with self._lock:
            self._changed.add(os.fspath(path))
        self._arrived.set()

    def changes(self) -> list[str]:
        """The files changed since the last call, sorted (none: ``[]``); never blocks."""
        if not self._arrived.is_set():
            return []
        with self._lock:
            changed, self._changed = sorted(self._changed), set()
            self._arrived.clear()
        return changed

    def wait(self, timeout_s: float) -> bool:
        """Block up to ``timeout_s`` seconds until a change has arrived (for a test or a script; the loop never
        waits); whether one has."""
        return self._arrived.wait(timeout_s)

    def close(self) -> None:
        """Stop watching (the thread ends within the watcher's half-second timeout)."""
        self._stop.set()
        self._thread.join(timeout=2.0)

    def __enter__(self) -> Watcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
