"""Finding the writer: which entity's update wrote another's buffered state, and at which line.

The commit finds *that* a field was written by someone else (it differs from the
baseline), not *who* wrote it. Finding the writer costs too much to do on every tick,
so it is done only when the tick is already refused: the world rolls the tick back and
runs it once more inside ``trap_writes``, which swaps each written entity's class for a
subclass whose written fields are properties that report a write from another
entity's update, with the file and line it came from.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from engine.buffering.slots import _SLOTTED, BufferSlots

__all__ = ["trap_writes"]


class _Updating(Protocol):
    @property
    def sender(self) -> BufferSlots | None:
        """The entity whose ``update()`` is running."""


@contextmanager
def trap_writes(buffers: _Updating, written: list[tuple[BufferSlots, str]],
                on_write: Callable[[BufferSlots, BufferSlots, str, str], None]) -> Iterator[None]:
    """Within the block, a write to one of the ``written`` fields from another entity's update
    calls ``on_write(writer, written_entity, field, "file:line")`` at the write.

    ``buffers.sender`` says whose update is running. Each written entity's class is
    swapped for a subclass whose fields are properties; slow, and only ever used to
    explain a tick that is already refused.
    """
    # One swap per entity, however many of its fields were written: swapping an entity
    # twice would remember its first trap class as the "original" and leave it behind.
    fields_of: dict[int, tuple[BufferSlots, set[str]]] = {}
    for entity, field in written:
        fields_of.setdefault(id(entity), (entity, set()))[1].add(field)
    originals: list[tuple[BufferSlots, type]] = []
    try:
        for entity, fields in fields_of.values():
            originals.append((entity, type(entity)))
            entity.__class__ = _trap_class(type(entity), tuple(sorted(fields)))
            vars(entity)["_trap"] = (buffers, on_write)
        yield
    finally:
        for entity, kind in reversed(originals):
            entity.__class__ = kind
            vars(entity).pop("_trap", None)


_TRAPS: dict[tuple[type, tuple[str, ...]], type] = {}


def _trap_class(kind: type, fields: tuple[str, ...]) -> type:
    key = (kind, fields)
    if key not in _TRAPS:
        # Same __name__ (errors name the user's class), another __qualname__: nothing that
        # resolves classes by module and qualname (a save) can ever pick the trap.
        namespace: dict[str, Any] = {"__module__": kind.__module__, "__qualname__": f"{kind.__qualname__}.<trap>",
                                     "_trap_of": kind}
        for field in fields:
            namespace[field] = _trap_property(field)
        _TRAPS[key] = type(kind.__name__, (kind,), namespace)
    return _TRAPS[key]


def _trap_property(field: str) -> property:
    slot = vars(BufferSlots)[field] if field in _SLOTTED else None

    def get(entity: Any) -> Any:
        return vars(entity)[field] if slot is None else slot.__get__(entity, type(entity))

    def put(entity: Any, value: Any) -> None:
        buffers, on_write = vars(entity)["_trap"]
        sender = buffers.sender
        if sender is not None and sender is not entity:
            caller = sys._getframe(1)
            on_write(sender, entity, field, f"{caller.f_code.co_filename}:{caller.f_lineno}")
        if slot is None:
            vars(entity)[field] = value
        else:
            slot.__set__(entity, value)

    return property(get, put)

