"""How the ``tickswap`` command ends: one status and one line, never a traceback.

- 0: done;
- 1: the game crashed (an ``update()``, ``build()``, a system or drawing raised anything,
  ``BaseException`` included): the line names the entity, its id, the tick, and the file
  and line that raised;
- 2: the user's mistake (an unknown game, a bad number, a damaged file...);
- 130 / 143: a real Ctrl-C / SIGTERM (``engine.interrupts``); a ``KeyboardInterrupt`` the
  game raises itself is a crash of the game;
- 141: stdout is a pipe whose reader left (``tickswap list | head``): nothing more is said;
  1 with one line on stderr when stdout is closed or full.

Every message goes through ``say``, which keeps it on one line and bounded; a user's
value is shown through ``shown`` (at most ``SHOWN`` characters, with an ellipsis) and a
file name through ``shown_name`` (escaped when it holds a newline or another control).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

from engine.errors import EntityUpdateError, where
from engine.interrupts import Interrupted, deferring_handlers
from engine.messages import capped, one_line, shown, shown_name

__all__ = ["CLOSED_PIPE", "LOST_STDOUT", "GameCrashed", "UsageError", "capped", "crash_line", "guarded", "refused",
           "say", "shown", "shown_name"]

class UsageError(Exception):
    """A mistake of the user's: printed as one line, exit status 2."""


class GameCrashed(Exception):
    """The game itself failed: printed as one line, exit status 1."""


def say(message: str) -> None:
    """Print ``tickswap: message`` on stderr as one line (stderr itself may be gone: then nothing)."""
    with contextlib.suppress(OSError, ValueError):
        print(f"tickswap: {one_line(message)}", file=sys.stderr, flush=True)


def refused(message: str) -> int:
    """Say ``message`` and return 2, the status of the user's mistake (a run ends with it, rather than raising)."""
    say(message)
    return 2


def _raiser(error: BaseException) -> tuple[Any, int | None]:
    """The entity whose ``update()`` raised ``error`` (innermost), from its traceback, and its world's tick."""
    from engine.entity import Entity

    found: Any = None
    trace = error.__traceback__
    while trace is not None:
        candidate = trace.tb_frame.f_locals.get("self") if trace.tb_frame.f_code.co_name == "update" else None
        if isinstance(candidate, Entity):
            found = candidate
        trace = trace.tb_next
    world = getattr(found, "world", None) if found is not None else None
    return found, (world.tick_count + 1 if world is not None else None)


def crash_line(game: str, error: BaseException, tick: int | None = None) -> str:
    """The one line that reports a crash of ``game``: the entity, its id, the tick, the game's file and line.

    ``tick``: the tick that was running, if any, for an error that does not name it itself
    (a system's, say).
    """
    from engine.errors import BufferedWriteError
    from engine.state.snapshot import UnhashableState

    if isinstance(error, (BufferedWriteError, UnhashableState)):
        return f"{game} stopped: {error}"  # it names the writer's file and line, or the entity and attribute, itself
    if isinstance(error, EntityUpdateError):
        cause = error.__cause__ or error
        return f"{game} stopped: {error} (at {where(cause, error.entity)})"
    if isinstance(error, SystemExit):
        return (f"{game} stopped: the game raised SystemExit({shown(error.code)}) (at {where(error)}); "
                "a game ends by stopping its loop, not by exiting")
    if not isinstance(error, Exception):
        # KeyboardInterrupt, GeneratorExit, a BaseException of the game's: the engine wraps only
        # Exception in EntityUpdateError, so the entity is found in the traceback.
        entity, raised_in = _raiser(error)
        if entity is not None:
            said = f": {capped(str(error))}" if str(error) else ""
            return (f"{game} stopped: {type(entity).__name__} (id {entity.id}) raised {type(error).__name__} in "
                    f"tick {raised_in}{said}; the tick was rolled back (at {where(error)})")
    during = f" in tick {tick}, which was rolled back" if tick is not None else ""
    return f"{game} failed{during}: {exception_summary(error)} (at {where(error)})"


LOST_STDOUT = 74
"""The exit status of a command whose stdout could not be written (closed, or its device full): sysexits'
``EX_IOERR``. Never 1, which says "the orders differ", "a hash differs" or "a game crashed"."""
CLOSED_PIPE = 141
"""The exit status when stdout's reader left (``| head``): the shell's own for a process that SIGPIPE ended."""


def _failed_output(error: OSError) -> int:
    """stdout is gone: a reader that left is ``CLOSED_PIPE`` and silence; closed or full is one line and
    ``LOST_STDOUT``."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush must not fail again
    except (OSError, ValueError):
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    if isinstance(error, BrokenPipeError):
        return CLOSED_PIPE
    reason = {errno.ENOSPC: "the device is full", errno.EBADF: "it is closed"}.get(error.errno or 0,
                                                                                  error.strerror or str(error))
    say(f"cannot write the output to stdout: {reason}")
    return LOST_STDOUT


class StdoutLost(Exception):
    """Writing to stdout failed: its reader left, it is closed, or its device is full."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


class _WatchedStdout:
    """stdout, with its write failures told apart from every other file's: they end the command quietly."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except OSError as error:
            raise StdoutLost(error) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as error:
            raise StdoutLost(error) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def guarded(work: Callable[[], int], errors: tuple[type[BaseException], ...]) -> int:
    """Run a command: mistakes (``errors``), crashes, signals and a lost stdout end in one line, never a traceback."""
    if sys.stdout is None:  # started with stdout closed (`tickswap list >&-`): nothing could be said
        say("cannot write the output to stdout: it is closed")
        return LOST_STDOUT
    stdout = sys.stdout
    sys.stdout = _WatchedStdout(stdout)
    try:
        with deferring_handlers():
            return _guarded(work, errors)
    finally:
        if isinstance(sys.stdout, _WatchedStdout):
            sys.stdout = stdout


def _guarded(work: Callable[[], int], errors: tuple[type[BaseException], ...]) -> int:
    try:
        status = work()
        sys.stdout.flush()  # a closed or full stdout is found here, not in the interpreter's last flush
        return status
    except UsageError as error:
        say(str(error))
        return 2
    except GameCrashed as error:
        say(str(error))
        return 1
    except Interrupted as interrupt:
        say(interrupt.verb)
        return interrupt.status
    except StdoutLost as lost:
        return _failed_output(lost.error)
    except errors as error:
        say(str(error))
        return 2


def exception_summary(error: BaseException) -> str:
    """``Type: message`` of ``error``, bounded (a game's exception message can be anything)."""
    return f"{type(error).__name__}: {capped(str(error), 400)}" if str(error) else type(error).__name__


def failed_function(error: BaseException) -> str:
    """Which of the game's set-up functions raised ``error``: ``systems(world)`` or ``build(world)``."""
    names = [frame.name for frame in traceback.extract_tb(error.__traceback__)]
    return "systems(world)" if "systems" in names and "build" not in names else "build(world)"
