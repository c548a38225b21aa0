"""Ctrl-C and SIGTERM take effect between ticks, never inside one.

A tick either happens completely or not at all (a failed tick is rolled back). A
``KeyboardInterrupt`` that Python raises at an arbitrary bytecode could land in the
middle of the commit, after the world moved but before ``tick_count`` did: a recording
would end on that torn state, and its replay would say the state differs.

So the command line installs ``deferring_handlers()``: while a tick is running (the
``TICK`` gate is held), a signal is only *recorded*; it is raised as ``Interrupted``
(or ``Terminated``) when the outermost hold ends, the tick done or rolled back. Between
ticks it is raised at once. A second signal during one tick is raised at once too: a
tick that never ends (an ``update`` in an endless loop) must still be stoppable, and a
tick interrupted in its update is rolled back whole.

A signal whose ``Interrupted`` lands where Python cannot raise it (a finalizer, a weakref
callback, such as the import machinery's while a module loads lazily) is not lost: CPython
hands such an exception to ``sys.unraisablehook``, and while the handlers are installed that
hook keeps it in the gate, which raises it at its next check (entering or leaving the gate
between ticks, and ``TickGate.check`` where a loop waits without ticking, such as a lobby).

Only signals become ``Interrupted``: a ``KeyboardInterrupt`` a game raises itself is the
game's error, reported as a crash like any other. Without the handlers (a library user,
pytest), the gate costs a counter and Python's own handler behaves as it always has.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType

__all__ = ["TICK", "Interrupted", "Terminated", "TickGate", "deferring_handlers"]


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) delivered between ticks: the run stops cleanly, exit status 130.

    ``inside_tick`` is true for a second signal that stopped a tick by force: the world
    may then be half-way through that tick, and a recording ends at its last hash.
    """

    status = 130
    verb = "interrupted"

    def __init__(self, *args: object, inside_tick: bool = False) -> None:
        super().__init__(*args)
        self.inside_tick = inside_tick


class Terminated(Interrupted):
    """SIGTERM (``kill``, ``timeout``, a cancelled CI job), handled like Ctrl-C; exit status 143."""

    status = 143
    verb = "terminated"


class TickGate:
    """Held (re-entrantly, by the main thread) for as long as one tick and its hooks run.

    ``World.tick`` holds it; so do the command line and the runner around a tick and the
    hooks that record it, so the recording and the world always agree.
    """

    __slots__ = ("_depth", "_main", "lost", "pending")

    def __init__(self) -> None:
        self._depth = 0
        self._main = threading.main_thread().ident
        self.pending: type[Interrupted] | None = None
        """A signal that arrived while the gate was held, raised when it is released."""
        self.lost: type[Interrupted] | None = None
        """A signal raised where Python could not raise it (a finalizer, a weakref callback): raised by ``check``."""

    @property
    def held(self) -> bool:
        """Whether a tick is running in the main thread now."""
        return self._depth > 0

    def check(self) -> None:
        """Raise a signal lost where Python could not raise it; nothing otherwise (and nothing inside a tick).

        A loop that waits without ticking (a lobby) calls it, so Ctrl-C stops it.
        """
        if self.lost is not None and self._depth == 0 and threading.get_ident() == self._main:
            lost, self.lost = self.lost, None
            raise lost

    def __enter__(self) -> None:
        if threading.get_ident() == self._main:  # signals reach the main thread only
            if self.lost is not None and self._depth == 0:
                self.check()
            self._depth += 1

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if threading.get_ident() != self._main:
            return
        self._depth -= 1
        if self._depth == 0 and self.pending is not None:
            pending, self.pending = self.pending, None
            raise pending
        if self._depth == 0 and self.lost is not None:
            self.check()

    def _deliver(self, signum: int, frame: FrameType | None) -> None:
        kind = Terminated if signum == signal.SIGTERM else Interrupted
        if self._depth > 0 and self.pending is None:
            self.pending = kind
            return
        inside_tick = self._depth > 0
        self.pending = None
        raise kind(inside_tick=inside_tick)


TICK = TickGate()
"""The one gate: signals are delivered to the main thread, so one is enough."""


@contextmanager
def deferring_handlers() -> Iterator[None]:
    """Install the deferring SIGINT and SIGTERM handlers for a block (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, TICK._deliver) for number in (signal.SIGINT, signal.SIGTERM)}
    previous_hook = sys.unraisablehook

    def deliver_again(unraisable: sys.UnraisableHookArgs) -> None:
        # An Interrupted raised inside a finalizer or a weakref callback would be printed
        # as "Exception ignored" and dropped: the user's Ctrl-C lost. The gate keeps it for
        # its next check (tripping the signal again would fire it inside this very hook).
        kind = unraisable.exc_type
        if kind is not None and issubclass(kind, Interrupted):
            TICK.lost = kind
            return
        previous_hook(unraisable)

    sys.unraisablehook = deliver_again
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        for number, handler in previous.items():
            signal.signal(number, handler)
        TICK.pending = TICK.lost = None
