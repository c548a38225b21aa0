"""Advancing: entities that carry parts which move them by themselves, one step at the start of each update.

A tween (``engine.tween.Tweened``) and a path walk (``engine.path.Follower``) are state an
entity holds in its own buffered fields, advanced once per tick by the entity itself:
an entity may write only its own buffered state during a tick, so the step has to run
inside its ``update``. Asking every game to call ``super().update(world)`` first would
leave a silent bug for the one that forgets (the tween never moves, nothing says why).

So ``Advancing`` wraps, when a subclass is created, the ``update`` it defines: the step
(``_advance``) runs first, then the game's own code, which therefore reads the stepped
values and may overrule them. The step runs once per update however deep the classes
go: only the wrapper of the entity's own class (the most derived ``update``) steps, so a
subclass that calls ``super().update(world)`` does not step twice. Mixins cooperate:
each ``_advance`` calls ``super()._advance(world)``, so ``class Boss(Follower, Tweened)``
walks its path and runs its tweens. A class that inherits its ``update`` from a base that
is not ``Advancing`` (``class Banner(RoundThing, Tweened)``: ``RoundThing.update`` comes
first) gets that update wrapped as its own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from engine.entity import Entity

__all__ = ["Advancing"]

Update = Callable[[Any, Any], None]


def _advancing(update: Update) -> Update:
    """``update`` with the entity's parts stepped first, when it is the entity's own class's update."""

    @functools.wraps(update)
    def advancing(self: Any, world: Any) -> None:
        if type(self).update is advancing:
            self._advance(world)
        update(self, world)

    advancing._advances = True  # type: ignore[attr-defined]
    return advancing


class Advancing(Entity):
    """An entity whose parts step by themselves at the start of its ``update`` (see the module docstring).

    The base of ``Tweened`` and ``Follower``; games subclass those, not this.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The update this class runs: its own, or one it inherits from a game's base class listed
        # before the Advancing one (``class Banner(RoundThing, Tweened)``), which knows nothing of
        # steps: wrapped here too, or the tweens of such a class would silently never move.
        update = vars(cls).get("update", getattr(cls, "update", None))
        if callable(update) and not getattr(update, "_advances", False):
            cls.update = _advancing(update)  # type: ignore[method-assign,assignment]

    def _advance(self, world: Any) -> None:
        """Step this entity's parts by one tick (each mixin steps its own, then calls ``super()``)."""

    def update(self, world: Any) -> None:
        """Step the parts (tweens, a path walk), then go on with whatever update comes next in the classes."""
        super().update(world)


Advancing.update = _advancing(Advancing.update)  # type: ignore[method-assign,assignment]
