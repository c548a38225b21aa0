"""Tweens: a buffered field moved from its value to another over a number of ticks, along an easing curve.

::

    class Title(Tweened):
        look = Look(text="TICKSWAP", size=40, screen=True)

        def __init__(self):
            super().__init__(x=320, y=560)
            self.tween("y", 400, ticks=48, easing=ease_out_back)

A tween is state like any other: its progress lives in the entity's own buffered field
``tweens`` (plain tuples: the field's name, its start and end, ticks done, the easing's
name...), so it is saved, loaded, rolled back, hashed and replayed with the entity, and
never lives in a Python generator or a closure a save could not hold. It counts ticks,
never wall time: a tween of 64 ticks lasts one second at the default step, whatever the
frame rate, and a replay sees the same value at the same tick.

The entity steps its own tweens at the start of each of its updates (``Advancing``), so
it only writes its own buffered state, and the step is order-independent like every
other write. Starting a tween on another entity writes its ``tweens`` field and is
refused, as any foreign write is (``BufferedWriteError``): send it a signal instead.
"""

from __future__ import annotations

import math
from typing import Any

from engine.advancing import Advancing
from engine.buffering.fields import class_layout, layout_of
from engine.easing import EASINGS, Easing, linear
from engine.entity import buffered
from engine.messages import shown

__all__ = ["Tweened"]

_NAMES = {function: name for name, function in EASINGS.items()}
# One tween, as the ``tweens`` field holds it (a plain tuple: a save holds data).
_FIELD, _START, _END, _TICKS, _DONE, _EASING, _WAIT, _REPEAT, _YOYO = range(9)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shape(value: Any) -> int | None:
    """-1 for a number, the length for a tuple of numbers, ``None`` for anything a tween cannot move."""
    if _number(value):
        return -1
    if isinstance(value, tuple) and value and all(_number(item) for item in value):
        return len(value)
    return None


def _between(start: Any, end: Any, share: float) -> Any:
    """``start + (end - start) * share``, element by element for tuples."""
    if isinstance(start, tuple):
        return tuple(first + (last - first) * share for first, last in zip(start, end))
    return start + (end - start) * share


class Tweened(Advancing):
    """An entity whose buffered fields can be tweened: ``self.tween("y", 400, ticks=48, easing=ease_out_back)``.

    Subclass it instead of ``Entity``. Each tween moves one buffered field (``x``, ``y``,
    ``angle`` or one of the class's own ``buffered`` fields: a number, or a tuple of
    numbers such as a colour) from its value when the tween begins to ``to``, in
    ``ticks`` steps, one at the start of each of the entity's updates, before the code of
    ``update`` runs (which may read, or overrule, the stepped value). After the last step
    the field holds ``to`` exactly; between, floats (a counter shown as a whole number
    rounds it where it is shown).

    The tweens in progress are the buffered field ``tweens``: saved, loaded and rolled
    back with the entity, and read by others as committed, like any buffered field.
    """

    tweens: tuple[Any, ...] = buffered(())
    """The tweens in progress, oldest first, as plain tuples (state: see the module docstring)."""

    def tween(self, field: str, to: Any, ticks: int, easing: Easing = linear, *, delay: int = 0,
              queue: bool = False, repeat: int = 1, yoyo: bool = False) -> None:
        """Move buffered field ``field`` to ``to`` over ``ticks`` ticks along ``easing``.

        ``easing`` is one of ``engine.easing``'s functions (a save keeps its name).
        ``delay`` ticks pass before it begins; its start is the field's value when it
        begins. A new tween of a field replaces the field's tweens unless ``queue=True``,
        which begins it when the field's last tween ends (so ``queue`` chains moves).
        ``repeat`` runs it that many times (0: forever), each time from its start again,
        or, with ``yoyo=True``, back and forth. Call it in the entity's own ``update``, its
        ``__init__``, or between ticks (``build``, a test); from another entity's update
        it is refused like any write to another entity's buffered state.
        """
        kind = type(self)
        if not isinstance(field, str) or field not in class_layout(kind).names or field == "tweens":
            fields = ", ".join(name for name in class_layout(kind).names if name != "tweens")
            raise ValueError(f"{kind.__name__}.tween: {shown(field)} is not a buffered field of "
                             f"{kind.__name__} (its fields: {fields}); declare it with buffered()")
        shape = _shape(getattr(self, field))
        if shape is None:
            raise TypeError(f"{kind.__name__}.tween({field!r}): the field holds {shown(getattr(self, field))}; "
                            "a tween moves a number or a tuple of numbers")
        if _shape(to) != shape or not all(math.isfinite(item) for item in (to if isinstance(to, tuple) else (to,))):
            wanted = "a finite number" if shape == -1 else f"a tuple of {shape} finite numbers"
            raise ValueError(f"{kind.__name__}.tween({field!r}, to={shown(to)}): {field} holds "
                             f"{shown(getattr(self, field))}, so to must be {wanted}")
        for name, value, least in (("ticks", ticks, 1), ("delay", delay, 0), ("repeat", repeat, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"{kind.__name__}.tween({field!r}): {name} must be a whole number of ticks "
                                 f"{'>= 1' if least else '>= 0'}, got {shown(value)}")
        easing_name = _NAMES.get(easing) if callable(easing) else None
        if easing_name is None:
            raise ValueError(f"{kind.__name__}.tween({field!r}): easing must be one of engine.easing's functions "
                             f"({', '.join(EASINGS)}), got {shown(easing)}: a save keeps its name")
        if not isinstance(yoyo, bool) or not isinstance(queue, bool):
            raise TypeError(f"{kind.__name__}.tween({field!r}): yoyo and queue are True or False, "
                            f"got yoyo={shown(yoyo)}, queue={shown(queue)}")
        wait = delay
        kept = self.tweens
        if queue:
            last = next((entry for entry in reversed(kept) if entry[_FIELD] == field), None)
            if last is not None:
                if last[_REPEAT] == 0:
                    raise ValueError(f"{kind.__name__}.tween({field!r}, queue=True): the field's last tween "
                                     "repeats forever, so a queued one would never begin")
                wait += last[_WAIT] + last[_TICKS] - last[_DONE] + last[_TICKS] * (last[_REPEAT] - 1)
        else:
            kept = tuple(entry for entry in kept if entry[_FIELD] != field)
        self.tweens = (*kept, (field, None, to, ticks, 0, easing_name, wait, repeat, yoyo))

    def tweening(self, field: str | None = None) -> bool:
        """Whether a tween of ``field`` (of any field: ``None``) is in progress or waiting to begin."""
        return any(field is None or entry[_FIELD] == field for entry in self.tweens)

    def stop_tweens(self, field: str | None = None, finish: bool = False) -> None:
        """Stop the tweens of ``field`` (of every field: ``None``) where they are.

        ``finish=True`` first puts each stopped field where its last tween would have left it.
        """
        stopped = [entry for entry in self.tweens if field is None or entry[_FIELD] == field]
        if finish:
            ends: dict[str, Any] = {}
            for entry in stopped:  # oldest first: a field's last tween decides
                end = entry[_END]
                if entry[_YOYO] and entry[_REPEAT] % 2 == 0 and entry[_REPEAT]:
                    # An even number of runs left, back and forth: it would end where this run starts.
                    end = getattr(self, entry[_FIELD]) if entry[_START] is None else entry[_START]
                ends[entry[_FIELD]] = end
            for name, value in ends.items():
                setattr(self, name, value)
        self.tweens = tuple(entry for entry in self.tweens if not (field is None or entry[_FIELD] == field))

    def on_load(self, world: Any) -> None:
        """After a load: refuse tweens a save could hold but no tween makes (a save is data from elsewhere)."""
        for index, entry in enumerate(self.tweens):
            problem = self._damage(entry)
            if problem:
                raise ValueError(f"{type(self).__name__} (id {self.id}).tweens[{index}]: {problem}")
        super().on_load(world)

    def _damage(self, entry: Any) -> str:
        """What is wrong with one saved tween, or ``""``."""
        if not (isinstance(entry, tuple) and len(entry) == 9):
            return f"{shown(entry)} is not a tween (9 values)"
        field, start, end, ticks, done, easing, wait, repeat, yoyo = entry
        if not isinstance(field, str) or field not in layout_of(self).names or field == "tweens":
            return f"{shown(field)} is not a buffered field of {type(self).__name__}"
        shape = _shape(end)
        if shape is None or (start is not None and _shape(start) != shape):
            return f"start {shown(start)} and end {shown(end)} are not numbers, or tuples of as many"
        if easing not in EASINGS:
            return f"easing {shown(easing)} is not one of engine.easing's functions"
        counts = ((ticks, 1), (done, 0), (wait, 0), (repeat, 0))
        if any(isinstance(count, bool) or not isinstance(count, int) or count < least for count, least in counts) \
                or done >= ticks or not isinstance(yoyo, bool):
            return (f"ticks {shown(ticks)}, done {shown(done)}, wait {shown(wait)}, repeat {shown(repeat)}, "
                    f"yoyo {shown(yoyo)} are not a tween's counts")
        return ""

    def _advance(self, world: Any) -> None:
        tweens = self.tweens
        if tweens:
            self.tweens = self._step(tweens)
        super()._advance(world)

    def _step(self, tweens: tuple[Any, ...]) -> tuple[Any, ...]:
        """Each tween one tick on, oldest first (a queued tween begins from where the one before it left)."""
        going = []
        for entry in tweens:
            field, start, end, ticks, done, easing, wait, repeat, yoyo = entry
            if wait:
                going.append((field, start, end, ticks, done, easing, wait - 1, repeat, yoyo))
                continue
            if start is None:
                start = getattr(self, field)
            done += 1
            setattr(self, field, end if done == ticks else _between(start, end, EASINGS[easing](done / ticks)))
            if done < ticks:
                going.append((field, start, end, ticks, done, easing, 0, repeat, yoyo))
            elif repeat != 1:
                if yoyo:
                    start, end = end, start
                going.append((field, start, end, ticks, 0, easing, 0, max(repeat - 1, 0), yoyo))
        return tuple(going)
