"""Hit rules for action games: a hit lands once per swing, then a short invulnerability that flashes.

Every action game writes these by hand: a sword overlaps an enemy for several ticks of
one swing, and the enemy must lose one heart, not six; a hurt hero blinks and cannot be
hurt again for a moment. Here they are two mixins on the Update Method's rules:

- a ``Striker`` (the hero, a sword, a charging boar) counts its swings: ``start_swing()``
  begins one, and ``strike(target, damage)`` during it, tick after tick, sends the target
  a hit carrying the striker's id and swing number (a signal: order-independent);
- a ``Hurtable`` reads the hits it received, at the start of its own update: a swing
  lands at most once (it remembers each striker's last swing that touched it, landed or
  not), and not at all while it is ``invulnerable``; a hit that lands takes ``damage``
  from ``health``, makes it invulnerable for ``INVULNERABLE_TICKS`` ticks and calls
  ``on_hurt(world, damage, striker_id)``. While invulnerable it flashes: its look is hidden
  for ``FLASH_TICKS`` ticks, shown for as many, and so on (``flash_look`` for an animated one);
  its box stays (its ``hitbox`` is its class look's size unless the class gives one).

Everything is buffered state or a signal, so hits are saved, replayed, rolled back and the
same in every update order.
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.advancing import Advancing
from engine.entity import Entity, buffered, signal
from engine.look import Look
from engine.messages import shown

__all__ = ["Hurtable", "Striker"]


class Striker(Advancing):
    """An entity whose attacks come in swings: ``start_swing()``, then ``strike(target)`` while it touches."""

    swing: int = buffered(0)
    """The number of the swing going on (0: none yet)."""

    def start_swing(self) -> None:
        """Begin a new swing: each target it touches can be hit by it once."""
        self.swing += 1

    def strike(self, target: Entity, damage: int = 1) -> None:
        """Hit ``target`` (a ``Hurtable``) with this swing; striking it again in the same swing lands nothing more."""
        if not isinstance(target, Hurtable):
            raise TypeError(f"{type(self).__name__}.strike needs a Hurtable target, got {shown(target)}")
        if type(damage) is not int or damage < 0:
            raise ValueError(f"strike's damage must be a whole number of at least 0, got {shown(damage)}")
        target.hits.send((self.id, self.swing, damage))


class Hurtable(Advancing):
    """An entity that loses ``health`` to hits (at most one per swing), then is invulnerable, flashing, for a while."""

    INVULNERABLE_TICKS: ClassVar[int] = 48
    """How long a landed hit protects it, in ticks (0.75 s at 64 ticks a second)."""
    FLASH_TICKS: ClassVar[int] = 4
    """While invulnerable its look is hidden this many ticks, then shown as many."""

    health: int = buffered(3)
    """What is left; hits take from it (it may go below 0: the game decides what 0 means)."""
    invulnerable: int = buffered(0)
    """Ticks of invulnerability left."""
    struck_by: tuple[tuple[int, int], ...] = buffered(())
    """Each striker's id and its last swing that touched this entity (landed or not), sorted by id."""
    hits = signal(tuple)
    """The hits sent during the last tick: ``(striker id, swing, damage)`` each."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A flash hides the look, and a box is the look's size by default: keep the box while it blinks.
        look = cls.look
        size = look.size if isinstance(look, Look) else None
        if cls.hitbox is None and isinstance(size, tuple):
            cls.hitbox = (float(size[0]), float(size[1]))

    def _advance(self, world: Any) -> None:
        protected = self.invulnerable
        if protected:
            self.invulnerable -= 1
        touched = dict(self.struck_by)
        landed = None
        for striker, swing, damage in self.hits.value:
            if touched.get(striker) == swing:
                continue  # this swing already touched it: a hit lands once per swing
            touched[striker] = swing
            if landed is None and not self.invulnerable:
                landed = (damage, striker)
        if touched != dict(self.struck_by):
            self.struck_by = tuple(sorted(touched.items()))
        if landed is not None:
            damage, striker = landed
            self.health -= damage
            self.invulnerable = self.INVULNERABLE_TICKS
            self.on_hurt(world, damage, striker)
        if protected or landed is not None:  # flashing, or its last tick of it: the look back
            self.look = self.flash_look(self.unhurt_look())
        super()._advance(world)

    @property
    def flashing(self) -> bool:
        """Whether its look is hidden this tick (invulnerable, in the off half of a flash)."""
        return bool(self.invulnerable) and (self.invulnerable - 1) // self.FLASH_TICKS % 2 == 0

    def flash_look(self, look: Look | None) -> Look | None:
        """``look``, or ``None`` while flashing: an animated entity sets ``self.look = self.flash_look(frame)``."""
        return None if self.flashing else look

    def unhurt_look(self) -> Look | None:
        """The look it shows when not flashing: its class's (override it for a look of its own)."""
        look = type(self).look
        return look if isinstance(look, Look) else None

    def on_hurt(self, world: Any, damage: int, striker: int) -> None:
        """A hit landed: ``damage`` from the entity with id ``striker`` (play a sound, knock back, die at 0)."""
