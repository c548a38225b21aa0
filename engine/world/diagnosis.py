"""Explaining a refused tick: which entity wrote another's buffered state, and where.

A tick whose commit finds foreign writes is refused and rolled back by the schedule
(``engine.world.world``); only then is this run, to turn the refusal into a
``BufferedWriteError`` that names the writer and its file and line. It is its own
module because it is no part of a tick that succeeds.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.buffering import PureBuffers
from engine.buffering.slots import BufferSlots
from engine.errors import BufferedWriteError

__all__ = ["explain"]


class _Trapped(Exception):
    """The write trap fired while explaining a refused tick."""


def explain(buffers: PureBuffers, attempt: Callable[[], None], tick: int,
            written: list[tuple[BufferSlots, str]]) -> BufferedWriteError:
    """The tick was refused for foreign writes and rolled back: find who wrote, and where.

    Runs the tick once more (``attempt``) with a trap on the written fields (then rolls
    it back again), so the error can name the writer and its file and line. Plain
    attributes an update changes are therefore changed twice on this path: it only
    happens for a tick that is refused anyway.
    """
    found: list[BufferedWriteError] = []

    def on_write(writer: BufferSlots, entity: BufferSlots, field: str, where: str) -> None:
        if not found:
            found.append(BufferedWriteError(writer, entity, field, tick, where))
        raise _Trapped

    buffers.diagnosing = True
    try:
        with buffers.trap_writes(written, on_write):
            attempt()
    except BaseException:  # the trap, the check at commit, or anything else: all rolled back
        pass
    finally:
        buffers.diagnosing = False
    if found:
        return found[0]
    entity, field = written[0]
    return BufferedWriteError(None, entity, field, tick)
