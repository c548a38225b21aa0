"""Particles: a Crowd that emits, moves, fades and shrinks its members, drawn in one call.

::

    world.spawn(Particles.burst(enemy.x, enemy.y, 30, speed=(1, 3), lifetime=(20, 40),
                                color=(255, 200, 80), shrink=True))

is a death puff: thirty sparks fly out in every direction, fade and shrink over their
lives, and the emitter despawns itself when the last one is gone. ``Particles(x, y,
rate=2, ...)`` emits two a tick for as long as it lives (or ``duration`` ticks), a trail
or a fountain; ``follow=ship`` keeps it at another entity's place.

It is a ``Crowd`` (``engine.crowd``): its members are rows of float32 arrays, moved with
vectorized numpy, double-buffered, saved, loaded and rolled back as every crowd is, and
drawn from one vertex buffer with a size and an opacity per member (its ``scale`` and
``opacity`` fields). Everything random comes from the emitter's own ``random`` (seeded
from the world's seed and its id), the directions from ``engine.portable``'s sine and
cosine, so a burst is the same in every update order, in every replay, and on every
machine. Everything counts in ticks: ``lifetime`` is in ticks, ``speed`` in world units
per tick, ``gravity`` in units per tick per tick, ``rate`` in particles per tick.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from engine.errors import numpy_missing

try:
    import numpy as np
except ImportError as missing:
    raise numpy_missing("Particles", missing) from missing

from engine.crowd import Crowd
from engine.entity import Entity, buffered, signal
from engine.look import Look
from engine.messages import shown
from engine.portable import RADIANS, sin_cos_array

__all__ = ["Particles"]

MAX_PARTICLES = 1_000_000
"""The most particles one emitter may hold at once (its capacity, worked out from its settings)."""

Range = float | tuple[float, float]
"""A number, or ``(low, high)``: each particle draws its own value between them."""


def _range(name: str, value: Any, least: float | None = None) -> tuple[float, float]:
    """``value`` (a number or ``(low, high)``) as ``(low, high)`` of finite floats, or ``ValueError`` naming it."""
    pair = value if isinstance(value, (tuple, list)) else (value, value)
    if len(pair) != 2 or not all(isinstance(item, (int, float)) and not isinstance(item, bool)
                                 and math.isfinite(item) for item in pair):
        raise ValueError(f"Particles {name} must be a finite number or (low, high), got {shown(value)}")
    low, high = float(pair[0]), float(pair[1])
    if low > high:
        raise ValueError(f"Particles {name} {shown(value)}: low must not be above high")
    if least is not None and low < least:
        raise ValueError(f"Particles {name} must be at least {least:g}, got {shown(value)}")
    return low, high


def _number(name: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ValueError(f"Particles {name} must be a number from {low:g} to {high:g}, got {shown(value)}")
    return float(value)


class Particles(Crowd):
    """An emitter of particles at ``(x, y)``: a burst at once, a steady ``rate``, or both.

    * ``burst``: particles emitted in the first update; ``rate``: particles per tick
      (``0.25`` is one every fourth tick), for ``duration`` ticks (``None``: until
      ``stop()`` or a followed entity despawns).
    * Each particle draws its ``lifetime`` (ticks), ``speed`` (units per tick) and
      direction: ``direction`` (degrees, counter-clockwise from +x; 90 is up) plus or
      minus half the ``spread`` (360: every way). A number or a ``(low, high)`` range.
    * Each tick a particle's velocity loses ``drag`` of itself (0.05: five percent) and
      ``gravity`` downwards, then it moves by it; ``fade`` takes its opacity and
      ``shrink`` its size from full to nothing over its life.
    * Drawn as ``shape`` (``"circle"``, ``"square"``, ``"diamond"``) of ``size`` pixels
      and ``color`` on ``layer``, or in window coordinates with ``screen=True``.
    * ``follow``: an entity whose place (committed, so in any update order) the emitter
      takes each tick; when it despawns the emitter stops emitting.

    Once it has stopped emitting and its last particle is gone, it despawns itself (in the
    update after that: despawning takes effect at once, so it leaves only when every reader
    in that tick, updated before it or after, sees it with no particles).
    Its settings are ``saved`` attributes, and may be changed between ticks or in its
    own update; its progress (``elapsed`` ticks, ``emitting``) is buffered.
    """

    fields: ClassVar[dict[str, int]] = {"position": 2, "velocity": 2, "age": 1, "life": 1, "scale": 1, "opacity": 1}
    saved = ("burst_count", "rate", "duration", "lifetime", "speed", "direction", "spread", "gravity", "drag",
             "fade", "shrink", "shape", "size", "color", "layer", "screen", "followed")

    elapsed: int = buffered(0)
    """Updates done since it was spawned."""
    emitting: bool = buffered(True)
    """False once ``stop()`` took effect or ``duration`` ran out: no more particles come."""
    stop_asked = signal()
    """Raised by ``stop()``; the emitter stops in its next update, whoever asked."""

    def __init__(self, x: float = 0.0, y: float = 0.0, *, burst: int = 0, rate: float = 0.0,
                 duration: int | None = None, lifetime: Range = 32.0, speed: Range = (1.0, 3.0),
                 direction: float = 90.0, spread: float = 360.0, gravity: float = 0.0, drag: float = 0.0,
                 fade: bool = True, shrink: bool = False, shape: str = "circle", size: float = 4.0,
                 color: tuple[int, ...] = (255, 255, 255), layer: int = 0, screen: bool = False,
                 follow: Entity | None = None) -> None:
        capacity = self._settle(burst, rate, duration, lifetime, speed, direction, spread, gravity, drag, fade, shrink,
                                shape, size, color, layer, screen, follow)
        super().__init__(capacity, self._make_look())
        self.x, self.y = x, y

    def _settle(self, burst: Any, rate: Any, duration: Any, lifetime: Any, speed: Any, direction: Any, spread: Any,
                gravity: Any, drag: Any, fade: Any, shrink: Any, shape: Any, size: Any, color: Any, layer: Any,
                screen: Any, follow: Any) -> int:
        """Check the settings (from the constructor, or a save), keep them, and return the capacity they need."""
        if isinstance(burst, bool) or not isinstance(burst, int) or not 0 <= burst <= MAX_PARTICLES:
            raise ValueError(f"Particles burst must be a whole number from 0 to {MAX_PARTICLES:,}, got {shown(burst)}")
        rate = _number("rate", rate, 0.0, float(MAX_PARTICLES))
        if duration is not None and (isinstance(duration, bool) or not isinstance(duration, int) or duration < 1):
            raise ValueError(f"Particles duration must be a whole number of ticks >= 1, or None, got {shown(duration)}")
        if burst == 0 and (rate == 0.0):
            raise ValueError("Particles emit nothing: give a burst (particles at once) or a rate (particles per tick)")
        lifetime_range = _range("lifetime", lifetime, 1.0)
        capacity: int = burst + math.ceil(rate) * (math.ceil(lifetime_range[1]) + 1)
        if capacity > MAX_PARTICLES:
            raise ValueError(f"Particles would hold up to {capacity:,} particles at once (burst {burst}, "
                             f"rate {rate:g}, lifetime up to {lifetime_range[1]:g} ticks); at most {MAX_PARTICLES:,}")
        if follow is not None and not isinstance(follow, Entity):
            raise TypeError(f"Particles follow must be an entity (or None), got {shown(follow)}")
        for name, flag in (("fade", fade), ("shrink", shrink)):
            if not isinstance(flag, bool):
                raise TypeError(f"Particles {name} must be True or False, got {shown(flag)}")
        self.burst_count = burst
        self.rate = rate
        self.duration = duration
        self.lifetime = lifetime_range
        self.speed = _range("speed", speed)
        self.direction = _number("direction", direction, -1e9, 1e9)
        self.spread = _number("spread", spread, 0.0, 360.0)
        self.gravity = _number("gravity", gravity, -1e9, 1e9)
        self.drag = _number("drag", drag, 0.0, 1.0)
        self.fade = fade
        self.shrink = shrink
        self.shape, self.size, self.layer, self.screen = shape, size, layer, screen
        self.color = tuple(color) if isinstance(color, list) else color
        self._make_look()  # checks shape, size, colour and layer now, naming the bad one
        self.followed = follow
        return capacity

    @classmethod
    def burst(cls, x: float, y: float, count: int = 24, **settings: Any) -> Particles:
        """``count`` particles at once from ``(x, y)``, then nothing: a puff that despawns itself when it is over."""
        return cls(x, y, burst=count, **settings)

    def stop(self) -> None:
        """Emit no more (from the next update on; whoever calls it); the living particles live out their lives."""
        self.stop_asked = True

    def on_load(self, world: Any) -> None:
        """After a load: the settings checked (a save is data from elsewhere), and the look made again from them."""
        try:
            needed = self._settle(self.burst_count, self.rate, self.duration, self.lifetime, self.speed, self.direction,
                                  self.spread, self.gravity, self.drag, self.fade, self.shrink, self.shape, self.size,
                                  self.color, self.layer, self.screen, self.followed)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{type(self).__name__} (id {self.id}): {error}") from None
        if needed > self.capacity:
            raise ValueError(f"{type(self).__name__} (id {self.id}): its settings need room for {needed:,} particles, "
                             f"its saved capacity is {self.capacity:,}")
        self.look = self._make_look()
        super().on_load(world)

    def _make_look(self) -> Look:
        return Look(self.shape, self.size, self.color, layer=self.layer, screen=self.screen)

    def update(self, world: Any) -> None:
        """Age, move, fade and shrink the particles, emit this tick's new ones, and leave when all is done."""
        if self.stop_asked:
            self.emitting = False
        if not self.emitting and self.count == 0:
            # Gone only once its committed count is 0: whoever reads it in this tick, before
            # or after this update, sees an emitter with no particles.
            world.despawn(self)
            return
        followed = self.followed
        if followed is not None:
            if followed.alive:
                self.x, self.y = followed.x, followed.y
            else:
                self.emitting = False
        self._live(self.count)
        elapsed = self.elapsed
        rate, duration = self.rate, self.duration
        new = self.burst_count if elapsed == 0 else 0
        if self.emitting:
            new += math.floor(rate * (elapsed + 1)) - math.floor(rate * elapsed)
            if rate == 0.0 or (duration is not None and elapsed + 1 >= duration):
                self.emitting = False  # that was the last tick to emit
        if new:
            self._emit(new)
        self.elapsed = elapsed + 1

    def _live(self, count: int) -> None:
        """One tick of the particles there are: age, move, fade and shrink them; the old leave after it."""
        if count == 0:
            return
        age = np.add(self.current("age"), np.float32(1.0), out=self.next("age"))
        velocity = self.current("velocity")
        if self.drag or self.gravity:
            slowed = self.next("velocity")
            np.multiply(velocity, np.float32(1.0 - self.drag), out=slowed)
            slowed[:, 1] -= np.float32(self.gravity)
            velocity = slowed
        np.add(self.current("position"), velocity, out=self.next("position"))
        life = self.current("life")
        if self.fade or self.shrink:
            left = np.subtract(np.float32(1.0), age / life, dtype=np.float32)
            # np.clip's wrapper costs more than the work for a puff of ten: the two ufuncs it stands for.
            np.minimum(np.maximum(left, np.float32(0.0), out=left), np.float32(1.0), out=left)
            if self.fade:
                np.copyto(self.next("opacity"), left)
            if self.shrink:
                np.copyto(self.next("scale"), left)
        dead = (age >= life)[:, 0]
        if dead.any():
            self.despawn_members(dead)

    def _emit(self, count: int) -> None:
        """``count`` new particles at the emitter, each with its own lifetime, speed and direction."""
        draw = self.random.random  # random() alone: its sequence is the one Python guarantees across versions
        draws = np.array([draw() for _ in range(3 * count)], dtype=np.float64).reshape(count, 3)
        (life_low, life_high), (speed_low, speed_high) = self.lifetime, self.speed
        life = life_low + (life_high - life_low) * draws[:, 0]
        speed = speed_low + (speed_high - speed_low) * draws[:, 1]
        angle = (self.direction - self.spread / 2.0 + self.spread * draws[:, 2]) * RADIANS
        sines, cosines = sin_cos_array(angle)
        ones = np.ones((count, 1), dtype=np.float32)
        self.spawn_members(position=np.tile(np.array([self.x, self.y], dtype=np.float64), (count, 1)),
                           velocity=np.stack([cosines * speed, sines * speed], axis=1), life=life.reshape(count, 1),
                           scale=ones, opacity=ones)
