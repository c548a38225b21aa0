"""The inspector: what one entity holds between two ticks, and which entity is under a point of the window.

``inspect(world, entity)`` reads, never changes: the entity's buffered fields as the tick
before last committed them and as the last tick did (``previous`` and ``current``: what
the Double Buffer keeps), the signals it sees now and who sent each (the buffers record
every sender, ``engine.world.signal_senders``), the plain attributes its class lists in
``saved``, and its look and parts. ``Inspection.lines()`` is the text the window shows
(``engine.render.studio``) and a test can print.

``entity_at(world, window_x, window_y)`` is what a click picks: the topmost entity whose
look covers the window point, through the world's camera as the renderer draws it (a
screen look in window coordinates); a crowd only when nothing else is there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine.buffering.access import committed_values, previous, signals_of
from engine.buffering.own import OwnBuffers
from engine.camera import Camera, first_camera
from engine.entity import Entity
from engine.look import Look, resolved
from engine.messages import shown
from engine.state.names import class_name
from engine.world import World, signal_senders

__all__ = ["Inspection", "entity_at", "inspect"]

_SHOWN = 60
"""The most characters one value takes in the inspector's lines."""


@dataclass(frozen=True)
class Inspection:
    """One entity as the world holds it between two ticks (``Studio.inspect``): read, never changed."""

    entity: str
    """How messages name it: ``Ball (id 3)``."""
    kind: str
    """Its class as saves name it: ``game:Ball``."""
    id: int | None
    tick: int
    """The tick it is seen after."""
    alive: bool
    fields: dict[str, tuple[Any, Any]]
    """Every buffered field: name -> (previous, current), as the tick before last and the last tick committed it.

    In a fixed order, the class's layout: ``x``, ``y`` and ``angle`` first, then each class's own
    ``buffered()`` fields in the order its body declares them, the base classes' before a subclass's
    (the order a save and a snapshot list them in, never the order they were last written)."""
    signals: dict[str, tuple[Any, tuple[str, ...] | None]]
    """Every signal it sees now (raised in the last tick): name -> (value, who sent it, ``None`` if unknown)."""
    saved: dict[str, Any]
    """The plain attributes its class lists in ``saved``, in that tuple's order."""
    look: str
    """Its look, described (its own or its class's), or ``"none"``."""
    parts: tuple[str, ...]
    """Its parts, described."""

    def lines(self) -> list[str]:
        """The inspection as the window shows it, one line per field, signal and part."""
        lines = [f"{self.entity}  {self.kind}  after tick {self.tick}" + ("" if self.alive else "  (despawned)")]
        for name, (before, now) in self.fields.items():
            changed = "" if _same(before, now) else f"  (was {shown(before, _SHOWN)})"
            lines.append(f"  {name} = {shown(now, _SHOWN)}{changed}")
        for name, value in self.saved.items():
            lines.append(f"  {name} = {shown(value, _SHOWN)}  (saved)")
        if self.signals:
            for name, (value, senders) in self.signals.items():
                said = "" if value is True else f" = {shown(value, _SHOWN)}"
                who = "sender not known (until the next tick)" if senders is None else f"from {', '.join(senders)}"
                lines.append(f"  signal {name}{said}  {who}")
        else:
            lines.append("  no signals")
        lines.append(f"  look {self.look}")
        lines.extend(f"  part {part}" for part in self.parts)
        return lines


def _same(before: Any, now: Any) -> bool:
    try:
        return bool(before == now)
    except Exception:  # a value whose comparison raises is shown as changed
        return False


def _look_text(look: Look | None) -> str:
    look = resolved(look)
    if look is None:
        return "none"
    what = (f"text {look.text!r}" if look.text is not None else f"picture {look.image}" if look.image is not None
            else look.shape)
    size = look.size if not isinstance(look.size, tuple) else f"{look.size[0]:g}x{look.size[1]:g}"
    extra = "".join((f" layer {look.layer}" if look.layer else "", " screen" if look.screen else "",
                     f" region {look.region}" if look.region is not None else ""))
    return f"{what} {size} colour {look.color}{extra}"


def _senders(world: World, ids: tuple[int, ...]) -> tuple[str, ...]:
    named = []
    for sender in ids:
        if sender < 0:
            named.append("a system or build")
            continue
        entity = next((each for each in world.entities if each.id == sender), None)
        named.append(f"{type(entity).__name__} (id {sender})" if entity is not None else f"id {sender} (despawned)")
    return tuple(named)


def inspect(world: World, entity: Entity) -> Inspection:
    """What ``entity`` of ``world`` holds now, between ticks (see the module docstring)."""
    if world.ticking:
        raise RuntimeError("an entity is inspected between ticks, not during one")
    kind = type(entity)
    fields = {name: (previous(entity, name), value) for name, value in committed_values(entity).items()}
    senders = signal_senders(world, entity) if entity.alive else {}
    signals = {name: (value, None if senders is None else _senders(world, senders.get(name, ())))
               for name, value in signals_of(entity).items()}
    saved = {name: getattr(entity, name) for name in kind.saved if hasattr(entity, name)}
    parts = tuple(f"{_look_text(part.look)} at {part.offset}" + ("" if part.turns else " (level)")
                  for part in entity.parts)
    return Inspection(f"{kind.__name__} (id {entity.id})", class_name(kind), entity.id, world.tick_count,
                      entity.alive, fields, signals, saved, _look_text(entity.look), parts)


def _box(look: Look) -> tuple[float, float]:
    box = look.box
    if box is not None:
        return box
    size = float(look.size) if isinstance(look.size, (int, float)) else 16.0
    return size * 0.6 * max(1, len(look.text or "")), size  # text: about as wide as its characters


def _covers(look: Look, x: float, y: float, at: tuple[float, float], angle: float) -> bool:
    """Whether ``look`` drawn at ``at``, turned ``angle`` degrees, covers ``(x, y)`` (its box, turned)."""
    width, height = _box(look)
    dx, dy = x - at[0], y - at[1]
    if look.text is not None:  # text is placed by its anchor, and never turned
        dx += {"left": -width / 2, "right": width / 2}.get(look.anchor_x, 0.0)
        dy += {"bottom": -height / 2, "top": height / 2}.get(look.anchor_y, 0.0)
    elif angle:
        turn = math.radians(-angle)
        dx, dy = dx * math.cos(turn) - dy * math.sin(turn), dx * math.sin(turn) + dy * math.cos(turn)
    return abs(dx) <= width / 2 and abs(dy) <= height / 2


def entity_at(world: World, window_x: float, window_y: float) -> Entity | None:
    """The entity drawn at window pixel ``(window_x, window_y)`` (bottom-left origin), topmost first; ``None``.

    Through the camera the world's view follows, as of the last tick; a screen look is
    tested in window coordinates. A crowd (its own look, not its members') is picked only
    when no other entity is there.
    """
    camera = first_camera(world.entities_of(Camera))
    point = (window_x, window_y) if camera is None else camera.to_world(window_x, window_y, world.view_size)
    found: list[tuple[int, int, int, Entity]] = []
    for order, entity in enumerate(world.entities):
        looks = [(entity.look, (0.0, 0.0), True)] + [(part.look, part.offset, part.turns) for part in entity.parts]
        for look, offset, turns in looks:
            look = resolved(look)
            if look is None:
                continue
            x, y = (window_x, window_y) if look.screen else point
            angle = entity.angle if turns else 0.0
            turn = math.radians(angle)
            at = (entity.x + offset[0] * math.cos(turn) - offset[1] * math.sin(turn),
                  entity.y + offset[0] * math.sin(turn) + offset[1] * math.cos(turn))
            if _covers(look, x, y, at, angle):
                above = (1 << 20) if look.screen else look.layer  # a screen look is above every world layer
                found.append((0 if isinstance(entity, OwnBuffers) else 1, above, order, entity))
                break
    return max(found, key=lambda item: item[:3])[3] if found else None
