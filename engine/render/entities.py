"""EntityRenderer: every entity, interpolated and turned, from one vertex buffer per look.

Per tick (when the world's tick count changes) the renderer gathers every drawn
entity's previous and current position and angle (``gather_motion``, the one place that
reads them) into the vertex buffers, uploaded once per tick: straight into the buffer
where one look draws every entity, else through numpy arrays each look's bucket takes
its rows of. Per frame the vertex shader draws ``previous + (current - previous) *
alpha`` (or the extrapolation), ``alpha`` a uniform: one point sprite per entity, whose
shape (square, circle, diamond, picture) the fragment shader cuts out, turned by the
entity's interpolated ``angle``, the short way round. A frame between two ticks uploads
nothing. No pyglet object is made or changed per entity per frame, which is what makes it fast:
updating one pyglet shape per entity costs several times more at 10,000 entities (see
``tickswap bench``). Text looks are pyglet labels in one batch per layer, rebuilt only
when their text changes and moved only when their entity moves.

Looks are read whenever any may have changed (``engine.buffering.shown.version``: a
look committed, rolled back or loaded, a class's look set), so a look changed at any
time, on the class or the instance, shows in the next frame, and a frame after which
nothing changed reads none; ``look = None`` hides the entity. An entity's ``parts``
(``engine.look.Part``) are drawn in their own looks' layers (after the entities' own looks of a layer), at
its offset from the entity's interpolated position (turned with its interpolated angle
when the part turns): rows appended to the gathered motion, so they go through the same
buckets as the entities and interpolate with them. Higher ``Look.layer`` numbers draw
on top; within a layer, entities of one look keep update order and looks are drawn in
the order their first entity comes in update order. A spawned ``Camera`` centres the
view on its interpolated position (zoomed and shaken as it says); looks with
``screen=True`` are drawn after every world layer, in window coordinates, where no
camera moves them. Rendering only reads: it never changes game state.

This module is the renderer that composes the parts: it decides what is drawn, with
which look, in which layer and order, and when to gather. How is elsewhere: the point
sprites of one look (``sprites``), the looks too large for a point sprite (``quads``),
the shaders that cut their shapes (``shaders``), text labels (``texts``), the
crowd layer (``crowds``), and tile maps' layers (``tiles``: drawn at world layer 0,
below the looks of that layer).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyglet

from engine.buffering import ACCELERATED, gather_pair
from engine.buffering.access import motion
from engine.buffering.own import OwnBuffers
from engine.buffering.shown import shown_values
from engine.buffering.shown import version as shown_version
from engine.camera import Camera
from engine.entity import LOOK, PARTS, Entity
from engine.look import Look, Part, resolved
from engine.render.crowds import CrowdLayer
from engine.render.quads import QuadBucket
from engine.render.sprites import Bucket, fits_a_point
from engine.render.texts import Texts
from engine.render.tiles import TileMapDrawing
from engine.tiles.tilemap import TileMap
from engine.world import World, spawner_of

__all__ = ["EntityRenderer", "gather_motion"]


def gather_motion(entities: Sequence[Entity], tick: int,
                  into: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None
                  ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Every entity's committed (previous, current) ``x, y, angle``: two arrays of shape (n, 3).

    The one place the renderer reads entities' motion, once per tick (``tick`` is the
    world's ``tick_count``), through the double buffer's owner. With the compiled core
    they are float32, written in C into ``into`` (two float32 arrays of at least n rows,
    which the renderer keeps so that a tick allocates nothing) or new arrays; without it,
    float64 as the pure path reads them.
    """
    count = len(entities)
    if ACCELERATED:
        # The compiled core's gather at alpha 0 and 1 is exactly (previous, current): both
        # written in one walk in C, the same bits as two gathers, half the reads.
        if into is None or len(into[0]) < count or len(into[1]) < count:
            into = np.empty((count, 3), dtype=np.float32), np.empty((count, 3), dtype=np.float32)
        previous32, current32 = into[0][:count], into[1][:count]
        drawn = entities if isinstance(entities, list) else list(entities)
        gather_pair(drawn, tick, previous32, current32)
        return previous32, current32
    previous, current = motion(entities, tick)
    return (np.array(previous, dtype=np.float64).reshape(count, 3),
            np.array(current, dtype=np.float64).reshape(count, 3))


_MISSING = object()
_MISSING_CLASS = object()


def _is_text(look: Any) -> bool:
    return isinstance(look, Look) and look.shape == "text"


def place_parts(rows: np.ndarray[Any, Any], offsets: np.ndarray[Any, Any],
                turns: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Where parts are, from their entities' ``rows`` (``x, y, angle`` each): ``(x, y, angle)`` per part.

    A part that turns sits at its offset turned by its entity's angle, and is turned as
    much; one that does not sits at its offset, unturned. Worked out in double precision
    and returned in the rows' own type, as the gather gave them.
    """
    entity = rows.astype(np.float64)
    angle = np.where(turns, entity[:, 2], 0.0)
    radians = np.radians(angle)
    cos, sin = np.cos(radians), np.sin(radians)
    placed = np.empty_like(entity)
    placed[:, 0] = entity[:, 0] + offsets[:, 0] * cos - offsets[:, 1] * sin
    placed[:, 1] = entity[:, 1] + offsets[:, 0] * sin + offsets[:, 1] * cos
    placed[:, 2] = angle
    return placed.astype(rows.dtype)


class EntityRenderer:
    """Draws every live entity of a world at ``draw_position(alpha)``, turned by ``draw_angle(alpha)``.

    ``draw(alpha)`` interpolates between the last two committed states;
    ``extrapolate=True`` draws ahead instead (no latency, occasionally wrong). Entities
    are batched by ``Look``; a look is read every frame, so changing it (or setting it to
    ``None``) shows in the next frame. No pyglet object is created per frame for
    entities whose look did not change. With a ``Camera`` in the world, the view is
    centred on it (``window``: the window to move; by default the one being drawn to).
    """

    def __init__(self, world: World, *, looks: Mapping[type, Look] | None = None, extrapolate: bool = False,
                 window: Any = None) -> None:
        self.world = world
        self.looks = dict(looks or {})
        """Looks by entity class (a game's view module declares them); else ``entity.look``."""
        self.extrapolate = extrapolate
        """Draw ``current + velocity * alpha`` instead of interpolating."""
        self.window = window
        self._buckets: dict[Look, Bucket | QuadBucket] = {}
        self._order: list[Bucket | QuadBucket] = []
        self._texts = Texts()
        self._crowds: dict[int, CrowdLayer] = {}
        self._drawn: list[Entity] = []  # every non-crowd entity, in update order
        self._free: list[Entity] = []  # those whose look comes from the entity, not from ``looks``
        self._fixed: list[Look | None] = []  # the looks of the others, by position in _drawn
        self._seen_looks: list[Any] | None = None
        self._seen_parts: list[tuple[Part, ...]] | None = None
        self._seen_version = -1
        self._part_of: np.ndarray[Any, Any] | None = None  # the entity (index in _drawn) of each part's row
        self._part_offsets: np.ndarray[Any, Any] = np.zeros((0, 2))
        self._part_turns: np.ndarray[Any, Any] = np.zeros(0, dtype=bool)
        self._camera: Camera | None = None
        self._plan: list[tuple[tuple[bool, int], list[Bucket | QuadBucket], list[CrowdLayer]]] = []
        self._scale = 1.0  # the zoom the buckets were chosen for (points or quads)
        self._crowd_looks: list[tuple[OwnBuffers, Look | None]] = []  # every crowd, hidden ones too
        self._maps: dict[int, TileMapDrawing] = {}  # spawned tile maps, by entity id
        self._synced_tick = -1
        self._synced_version = -1
        self._motion: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None  # the gather's arrays

    # -- what to draw ------------------------------------------------------------------

    def look_of(self, entity: Entity | OwnBuffers) -> Look | None:
        """The look for ``entity``: from ``looks`` by its class (or a base class), else its own; ``None`` hides it."""
        look = self._class_look(type(entity))
        if look is _MISSING:
            look = entity.look
        return resolved(look)

    def _class_look(self, kind: type) -> Any:
        for base in kind.__mro__:
            look = self.looks.get(base)
            if look is not None:
                return look
        return _MISSING

    def _sync_structure(self) -> None:
        drawn: list[Entity] = []
        crowds: dict[int, OwnBuffers] = {}
        maps: dict[int, TileMap] = {}
        self._camera = None
        for entity in self.world.entities:
            if isinstance(entity, OwnBuffers):
                assert entity.id is not None
                crowds[entity.id] = entity
                continue
            if self._camera is None and isinstance(entity, Camera):
                self._camera = entity
            if isinstance(entity, TileMap):
                assert entity.id is not None
                maps[entity.id] = entity
            drawn.append(entity)
        for entity_id in [i for i in self._maps if i not in maps or self._maps[i].tile_map is not maps[i]]:
            self._maps.pop(entity_id).delete()
        for entity_id, tile_map in maps.items():
            if entity_id not in self._maps:
                self._maps[entity_id] = TileMapDrawing(tile_map)
        for entity_id in [i for i in self._crowds if i not in crowds]:
            self._crowds.pop(entity_id).delete()
        self._crowd_looks = [(crowd, self.look_of(crowd)) for crowd in crowds.values()]
        for entity_id, crowd in crowds.items():
            look = self.look_of(crowd)
            layer = self._crowds.get(entity_id)
            quads = look is not None and look.shape != "text" and not fits_a_point(look, self._scale)
            if layer is not None and (layer.look != look or layer.quads != quads):
                layer.delete()
                del self._crowds[entity_id]
            if look is not None and entity_id not in self._crowds:
                self._crowds[entity_id] = CrowdLayer(crowd, look, quads)
        self._drawn = drawn
        by_class: dict[type, Any] = {}
        fixed = []
        for entity in drawn:
            kind = type(entity)
            look = by_class.get(kind, _MISSING_CLASS)
            if look is _MISSING_CLASS:
                look = by_class[kind] = self._class_look(kind)
            fixed.append(look)
        self._free = [entity for entity, look in zip(drawn, fixed) if look is _MISSING]
        self._fixed = fixed
        self._seen_looks = None  # re-sort every entity into its look's bucket, and re-plan the layers

    def _current_looks(self) -> list[Any]:
        """The look of every entity whose look is its own, read now (a look can change at any time)."""
        return shown_values(LOOK, self._free)

    def _sync_looks(self, free_looks: list[Any], parts: list[tuple[Part, ...]]) -> None:
        """Put every drawn entity, and every part, in the bucket of its look (or none), keeping update order.

        Parts get rows after the entities' (``_part_of`` says whose), so a bucket's rows
        may be entities' or parts': drawn the same way.
        """
        free = iter(free_looks)
        members: dict[Look, list[int]] = {}
        texts: list[tuple[Any, int, Look]] = []
        drawn = self._drawn
        part_of: list[int] = []
        offsets: list[tuple[float, float]] = []
        turns: list[bool] = []
        for index, (entity, fixed) in enumerate(zip(drawn, self._fixed)):
            look = resolved(next(free) if fixed is _MISSING else fixed)
            if look is not None:
                if not isinstance(look, Look):
                    raise TypeError(f"{type(entity).__name__}.look must be a Look or None, got {look!r}")
                if look.shape == "text":
                    assert entity.id is not None
                    texts.append((entity.id, index, look))
                else:
                    members.setdefault(look, []).append(index)
        # Then the parts, in a pass of their own (none at all, the common case, costs one any()):
        # after every entity's own look, so a part is never hidden by another entity's look of its layer.
        row = len(drawn)
        for index in (index for index, shown_parts in enumerate(parts) if shown_parts) if any(parts) else ():
            entity = drawn[index]
            for number, part in enumerate(parts[index]):
                part_of.append(index)
                offsets.append(part.offset)
                turns.append(part.turns)
                if part.look.shape == "text":
                    texts.append(((entity.id, number), row, part.look))
                else:
                    members.setdefault(part.look, []).append(row)
                row += 1
        self._part_of = np.array(part_of, dtype=np.intp) if part_of else None
        self._part_offsets = np.array(offsets, dtype=np.float64).reshape(-1, 2)
        self._part_turns = np.array(turns, dtype=bool)
        for look in [look for look in self._buckets if look not in members]:
            self._buckets.pop(look).delete()
        for look, indices in members.items():
            bucket = self._buckets.get(look)
            quads = not fits_a_point(look, self._scale)
            if bucket is not None and bucket.quads != quads:
                bucket.delete()
                bucket = None
            if bucket is None:
                bucket = self._buckets[look] = QuadBucket(look) if quads else Bucket(look)
            bucket.assign(indices)
        # Dicts keep insertion order: looks in the order their first entity comes, by stage.
        self._order = sorted((self._buckets[look] for look in members), key=lambda bucket: bucket.stage)
        self._texts.assign(texts)
        self._seen_looks = free_looks
        self._seen_parts = parts
        self._plan_layers()

    def _plan_layers(self) -> None:
        """What to draw, stage by stage, bottom first: worked out when looks change, not per frame.

        A stage is ``(screen, layer)``: every world layer sorts before every screen layer.
        """
        stages = sorted({bucket.stage for bucket in self._order} | set(self._texts.batches)
                        | {crowd.stage for crowd in self._crowds.values()})
        self._plan = [(stage, [bucket for bucket in self._order if bucket.stage == stage],
                       [crowd for crowd in self._crowds.values() if crowd.stage == stage]) for stage in stages]

    def _restyle_texts(self, free_looks: list[Any]) -> bool:
        """Apply looks that changed from one text to another straight to their labels.

        A score that changes every tick must not re-sort 10,000 entities into buckets.
        Returns False (do the full re-sort) if any other kind of look changed.
        """
        seen = self._seen_looks
        if seen is None or len(seen) != len(free_looks):
            return False
        changed = [(slot, look) for slot, (old, look) in enumerate(zip(seen, free_looks)) if old is not look
                   and old != look]
        if not all(_is_text(seen[slot]) and _is_text(look) for slot, look in changed):
            return False
        for slot, look in changed:
            entity_id = self._free[slot].id
            assert entity_id is not None
            self._texts.restyle(entity_id, look)
        self._seen_looks = free_looks
        return True

    def _restyle_parts(self, parts: list[tuple[Part, ...]]) -> bool:
        """Apply parts that changed only in their text (a widget's label, a counter over a unit) to their labels.

        Returns False (do the full re-sort) if any part changed otherwise: in number, offset,
        turning, or a look that is not text on both sides.
        """
        seen = self._seen_parts
        if seen is None or len(seen) != len(parts):
            return False
        changed = [(index, old, new) for index, (old, new) in enumerate(zip(seen, parts)) if old is not new]
        restyled: list[tuple[Any, Look]] = []
        for index, old, new in changed:
            if len(old) != len(new):
                return False
            for number, (was, now) in enumerate(zip(old, new)):
                if was == now:
                    continue
                if (was.offset, was.turns) != (now.offset, now.turns) or not (_is_text(was.look)
                                                                             and _is_text(now.look)):
                    return False
                restyled.append(((self._drawn[index].id, number), now.look))
        for key, look in restyled:
            self._texts.restyle(key, look)
        self._seen_parts = parts
        return True

    def _sync_entities(self) -> bool:
        """Follow spawns, despawns and crowds' looks; whether the motion must be gathered again."""
        # Crowds are few: their looks are checked every frame like everyone else's.
        crowd_look_changed = any(self.look_of(crowd) != look for crowd, look in self._crowd_looks)
        version = spawner_of(self.world).structure_version
        if version != self._synced_version or crowd_look_changed:
            self._sync_structure()
            self._synced_version = version
            return True
        return False

    def _sync(self, scale: float, regather: bool) -> None:
        world = self.world
        if scale != self._scale:
            self._scale = scale
            if any(bucket.quads != (not fits_a_point(bucket.look, scale)) for bucket in self._order):
                self._seen_looks = None  # a look outgrew its point sprite (or fits again): re-sort
            if any(layer.quads != (not fits_a_point(layer.look, scale)) for layer in self._crowds.values()):
                self._sync_structure()  # a crowd's look too: its layer is made again, as quads or points
                regather = True
        # Looks and parts are read only when something shown may have changed (or the entities
        # did): then one pass over the entities, and a list compares its items by identity
        # first, so the same looks as last frame cost no __eq__; equal looks in new objects
        # redraw nothing.
        version = shown_version()
        if version != self._seen_version or self._seen_looks is None:
            self._seen_version = version
            free_looks = self._current_looks()
            parts = shown_values(PARTS, self._drawn)
            if ((free_looks != self._seen_looks and not self._restyle_texts(free_looks))
                    or (parts != self._seen_parts and not self._restyle_parts(parts))):
                self._sync_looks(free_looks, parts)
                regather = True
            else:
                self._seen_looks = free_looks
        if regather or world.tick_count != self._synced_tick:
            drawn = self._drawn
            only = self._order[0] if len(self._order) == 1 else None
            if (ACCELERATED and isinstance(only, Bucket) and only.start == 0 and only.count == len(drawn)
                    and self._part_of is None):
                # One look for everyone (the common case): the core gathers straight into the
                # vertex buffer, the same bits it would gather into the arrays below.
                previous, current = only.rows()
                gather_pair(drawn, world.tick_count, previous, current)
                only.taken()
                self._texts.take(previous, current)
                self._synced_tick = world.tick_count
                return
            if self._motion is None or len(self._motion[0]) < len(drawn):
                rows = max(64, 2 * len(drawn))  # room to grow: spawning a few more allocates nothing
                self._motion = np.empty((rows, 3), dtype=np.float32), np.empty((rows, 3), dtype=np.float32)
            previous, current = gather_motion(drawn, world.tick_count, self._motion)
            part_of = self._part_of
            if part_of is not None:  # the parts' rows follow the entities', placed from them
                previous = np.concatenate((previous, place_parts(previous[part_of], self._part_offsets,
                                                                 self._part_turns)))
                current = np.concatenate((current, place_parts(current[part_of], self._part_offsets,
                                                               self._part_turns)))
            for bucket in self._order:
                bucket.take(previous, current)
            self._texts.take(previous, current)
            self._synced_tick = world.tick_count

    # -- drawing -------------------------------------------------------------------------

    def _target_window(self) -> Any:
        if self.window is not None:
            return self.window
        context = pyglet.gl.current_context
        for window in pyglet.app.windows:
            if window.context is context:
                return window
        return None

    def draw(self, alpha: float) -> None:
        """Draw every entity ``alpha`` of the way into the next tick: the world's layers, then the screen's."""
        regather = self._sync_entities()
        window = None
        camera = self._camera
        if camera is not None and camera.alive:
            window = self._target_window()
        zoom = 1.0
        if window is not None:
            from pyglet.math import Mat4, Vec3

            assert camera is not None
            # The camera's one transform: world.mouse maps the mouse back through the same one.
            tx, ty, zoom = camera.view_transform(alpha, (window.width, window.height), self.extrapolate)
            saved_view = window.view
            moved = Mat4.from_translation(Vec3(tx, ty, 0.0))
            window.view = moved if zoom == 1.0 else moved @ Mat4.from_scale(Vec3(zoom, zoom, 1.0))
        self._sync(zoom, regather)
        self._texts.write(alpha, self.extrapolate)
        maps = list(self._maps.values())  # tile layers draw at world layer 0, below its looks
        for stage, buckets, crowds in self._plan:
            if maps and stage >= (False, 0):
                for drawing in maps:
                    drawing.draw()
                maps = []
            if stage[0] and window is not None:
                # Screen looks: window coordinates, whatever the camera did.
                window.view = saved_view
                window = None
            for bucket in buckets:
                bucket.write(alpha, self.extrapolate)
                bucket.draw()
            for crowd in crowds:
                crowd.write(alpha, self.extrapolate)
                crowd.draw()
            self._texts.draw(stage)
        for drawing in maps:  # no look at layer 0 or above
            drawing.draw()
        if window is not None:
            window.view = saved_view

    @property
    def entity_count(self) -> int:
        """How many looks the renderer is drawing: entities', parts' and crowd members'."""
        return (sum(bucket.count for bucket in self._order) + len(self._texts.labels)
                + sum(layer.crowd.count for layer in self._crowds.values()))

    def delete(self) -> None:
        """Release the GPU buffers and labels."""
        for bucket in self._buckets.values():
            bucket.delete()
        for crowd in self._crowds.values():
            crowd.delete()
        self._texts.delete()
        for drawing in self._maps.values():
            drawing.delete()
        self._maps.clear()
        self._buckets.clear()
        self._order = []
        self._plan = []
        self._crowds.clear()
