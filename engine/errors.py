"""The errors a tick can end in: an entity's update failed, or it wrote another entity's state.

A leaf of the import graph (it imports nothing from the engine), so that the Double
Buffer, which raises them, stays below the entity and the world that it serves: the
entities here are typed ``Any`` for that reason, and are always ``Entity`` instances.
"""

from __future__ import annotations

import os
import traceback
from typing import Any

__all__ = ["BufferedWriteError", "EntityUpdateError", "where"]

_ENGINE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def where(error: BaseException) -> str:
    """Where the game's code raised: the innermost frame outside the engine, as file:line in function.

    A mistake the engine refuses (a missing super().__init__(), a bad Look) is raised inside
    the engine, but the line to fix is the game's that called it. Generated code (a
    dataclass's ``__init__`` is ``<string>``) counts as the engine's.
    """
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "an unknown place"
    outside = [frame for frame in frames
               if not frame.filename.startswith("<") and not os.path.abspath(frame.filename).startswith(_ENGINE)]
    frame = (outside or frames)[-1]
    return f"{frame.filename}:{frame.lineno} in {frame.name}"


class EntityUpdateError(RuntimeError):
    """An entity's ``update()`` raised; the tick was abandoned and rolled back.

    Names the entity's class, its id and the tick number; the original exception is
    ``__cause__``. Everything the engine owns is exactly as it was before the tick, so
    the world can tick again.
    """

    def __init__(self, entity: Any, tick: int, error: BaseException | None, message: str | None = None) -> None:
        self.entity = entity
        self.entity_class = type(entity).__name__
        self.entity_id = entity.id
        self.tick = tick
        if message is None:
            message = (f"{self.entity_class} (id {self.entity_id}) raised {type(error).__name__} in tick {tick}: "
                       f"{error}; the tick was rolled back")
        super().__init__(message)


class BufferedWriteError(EntityUpdateError):
    """An entity's update wrote another entity's buffered state; the tick was refused.

    Only an entity writes its own buffered fields (``x``, ``y``, ``angle``, its
    ``buffered()`` values): a write to another's would be seen by some readers and not
    others depending on update order, or lost at the swap. Affect others with a signal
    instead (``other.slap()``, ``other.damage.send(5)``), which they read next tick.
    ``writer`` and ``entity`` are the two entities (``writer`` is ``None`` when it could
    not be identified), ``field`` the field, ``tick`` the tick, ``where`` the writer's
    file and line when known. The tick was rolled back.
    """

    def __init__(self, writer: Any, written: Any, field: str, tick: int, where: str | None = None) -> None:
        self.writer = writer
        self.field = field
        self.where = where
        target = f"{type(written).__name__} (id {written.id})"
        by = (f"{type(writer).__name__} (id {writer.id})" if writer is not None
              else "another entity's update (which one could not be found again)")
        at = f" at {where}" if where else ""
        message = (f"{by} wrote {field} of {target} in tick {tick}{at}: an entity writes only its own buffered "
                   f"state; send it a signal instead (declare e.g. hit = signal() or damage = signal(sum) on "
                   f"{type(written).__name__} and raise it, and let it change its own {field}); "
                   "the tick was rolled back")
        super().__init__(writer if writer is not None else written, tick, None, message)
        self.written = written
