"""The errors a tick can end in: an entity's update failed, or it wrote another entity's state.

A leaf of the import graph (it imports nothing from the engine), so that the Double
Buffer, which raises them, stays below the entity and the world that it serves: the
entities here are typed ``Any`` for that reason, and are always ``Entity`` instances.
"""

from __future__ import annotations

import dis
import os
import sys
import traceback
import weakref
from typing import Any

__all__ = ["BRIEF", "BufferedWriteError", "EntityUpdateError", "GameError", "brief", "located", "mark_restored",
           "missing_after_load", "numpy_missing", "where"]

# By id, the entity itself as the value: a game's class may define __eq__ and so be unhashable.
_RESTORED: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


def numpy_missing(feature: str, error: ImportError) -> ImportError:
    """The one line a game gets when it uses a numpy-only ``feature`` (``Crowd``, ``Particles``) where numpy
    can't be imported (a browser's Pyodide that didn't load it): the rest of the engine runs without numpy."""
    found = ImportError(f"{feature} needs numpy, which can't be imported here: pip install numpy "
                        "(in a browser, load Pyodide's numpy package)")
    found.name = error.name
    return found


def mark_restored(entity: Any) -> None:
    """Note that ``entity`` was built from a save (its ``__init__`` never ran): a plain attribute
    missing from it later is most likely one its class did not list in ``saved``."""
    _RESTORED[id(entity)] = entity


def missing_after_load(error: BaseException) -> str | None:
    """The one-line explanation of an ``AttributeError`` on an entity a save built, or None.

    Only a failure pays for this (nothing on the tick's path): the error names the
    object and the attribute, and a restored entity that lacks a plain attribute its class
    does not define lost it because ``saved`` does not list it.
    """
    if not isinstance(error, AttributeError):
        return None
    entity: Any = getattr(error, "obj", None)
    name = getattr(error, "name", None)
    restored = _RESTORED.get(id(entity))
    if restored is None or restored is not entity or not isinstance(name, str):
        return None
    if hasattr(type(restored), name):  # a property or method that failed inside: not a lost attribute
        return None
    if not _stored_anywhere(type(restored), name):  # never set by the game's code: a typo, not a loss
        return None
    kind = type(restored).__name__
    return (f"{kind} (id {restored.id}) has no attribute {name!r} after loading a save: a save keeps only the plain "
            f"attributes a class lists, so list it in {kind}.saved (saved = (..., {name!r})) or set it in "
            "on_load(world)")


def _codes(value: Any, seen: set[int]) -> list[Any]:
    """The code objects of a function, method, property or class (and those nested in them)."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        return [code for part in (value.fget, value.fset) for code in _codes(part, seen)]
    if isinstance(value, type):
        if id(value) in seen:
            return []
        seen.add(id(value))
        return [code for item in vars(value).values() for code in _codes(item, seen)]
    code = getattr(value, "__code__", None)
    found = []
    pending = [code] if code is not None else []
    while pending:
        code = pending.pop()
        found.append(code)
        pending.extend(const for const in code.co_consts if hasattr(const, "co_code"))
    return found


def _stored_anywhere(kind: type, name: str) -> bool:
    """Whether the code of ``kind``'s classes, or of the modules they come from, sets an attribute ``name``.

    An attribute no line sets (``self.nope``, a typo) was never there to lose; one that
    ``__init__``, another method or ``build`` sets was lost by the load. Read from the
    bytecode, only when an update has already failed.
    """
    seen: set[int] = set()
    places: list[Any] = []
    for base in kind.__mro__:
        module = sys.modules.get(base.__module__)
        if base.__module__.partition(".")[0] == "engine" or base is object:
            continue
        places.append(base)
        if module is not None and getattr(module, base.__name__, None) is base:
            places.extend(value for value in vars(module).values()
                          if str(getattr(value, "__module__", "")).partition(".")[0] != "engine")
    return any(instruction.opname == "STORE_ATTR" and instruction.argval == name
               for place in places for code in _codes(place, seen) for instruction in dis.get_instructions(code))


_ENGINE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def where(error: BaseException, entity: Any = None) -> str:
    """Where the game's code raised: the innermost frame outside the engine, as file:line in function.

    A mistake the engine refuses (a missing super().__init__(), a bad Look) is raised inside
    the engine, but the line to fix is the game's that called it. Generated code (a
    dataclass's ``__init__`` is ``<string>``) counts as the engine's. A mistake the engine
    finds only after an update returned (a list written to a buffered field) has no frame
    of the game's: with ``entity`` (the one updating), it is that class's ``update``.
    """
    frames = traceback.extract_tb(error.__traceback__)
    outside = [frame for frame in frames
               if not frame.filename.startswith("<") and not os.path.abspath(frame.filename).startswith(_ENGINE)]
    if not outside and entity is not None:
        update = getattr(getattr(type(entity), "update", None), "__code__", None)
        if update is not None and not os.path.abspath(update.co_filename).startswith(_ENGINE):
            return f"{update.co_filename}:{update.co_firstlineno} in {type(entity).__name__}.update"
    if not frames:
        return "an unknown place"
    frame = (outside or frames)[-1]
    return f"{frame.filename}:{frame.lineno} in {frame.name}"


class GameError(ValueError):
    """A game can't be found or loaded, or a setting is bad; the message is one line naming the game, file and
    line (raised by ``engine.files.game`` and by the world's view for ``world.view_size``)."""


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
        if message is None and error is not None and (missing := missing_after_load(error)) is not None:
            message = f"{missing}; tick {tick} was rolled back"
        if message is None:
            message = (f"{self.entity_class} (id {self.entity_id}) raised {type(error).__name__} in tick {tick}: "
                       f"{brief(error)}; the tick was rolled back")
        super().__init__(message)


class BufferedWriteError(EntityUpdateError):
    """An entity's update wrote another entity's buffered state; the tick was refused.

    Only an entity writes its own buffered fields (``x``, ``y``, ``angle``, its
    ``buffered()`` values): a write to another's would be seen by some readers and not
    others depending on update order, or lost at the swap. Affect others with a signal
    instead (``other.slap()``, ``other.damage.send(5)``), which they read next tick.
    ``writer`` and ``entity`` are the two entities (``writer`` is ``None`` when it could
    not be identified), ``field`` the field, ``tick`` the tick, ``where`` the writer's
    file and line when known. The tick was rolled back: also where the update caught the error
    and went on (``caught``: raised again when the updates end, which says so).
    """

    def __init__(self, writer: Any, written: Any, field: str, tick: int, where: str | None = None,
                 caught: bool = False) -> None:
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
                   + ("the update caught this error and went on, which does not save its tick: " if caught else "")
                   + "the tick was rolled back")
        super().__init__(writer if writer is not None else written, tick, None, message)
        self.written = written


def located(error: BaseException) -> str:
    """``Type: message (at file:line in function)``: a failure as ``tickswap check`` reports it.

    The check runs the game in many worlds and reports one line; without the game's file and
    line the user has only the message to go on. An entity's error is located by its cause
    (the game's own exception); a refused foreign write names the writer's line itself.
    """
    if isinstance(error, BufferedWriteError):
        return f"{type(error).__name__}: {error}"
    cause = error.__cause__ if isinstance(error, EntityUpdateError) and error.__cause__ is not None else error
    said = str(error) if isinstance(error, EntityUpdateError) else brief(error)  # an entity's names its cause briefly
    entity = error.entity if isinstance(error, EntityUpdateError) else None
    return f"{type(error).__name__}: {said} (at {where(cause, entity)})"


BRIEF = 400
"""The most characters of an exception's own message a report quotes (a 5 MB message is not a 5 MB line)."""


def brief(error: BaseException | None) -> str:
    """``str(error)``, cut to ``BRIEF`` characters with an ellipsis."""
    text = str(error)
    return text if len(text) <= BRIEF else text[:BRIEF - 1] + "…"
