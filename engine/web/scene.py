"""What a browser frame draws: the same looks, parts, text, tile maps and camera as ``engine.render``.

``scene(world, looks, alpha, view_size)`` reads every live entity's look (the view module's
``LOOKS`` by class first, as ``EntityRenderer.look_of``), its parts, and its previous and
current position and angle (``engine.buffering.access.motion``, the renderer's own gather),
and gives the page the frame as plain data: the camera's transform (``Camera.view_transform``,
the one the pyglet renderer and ``world.mouse`` use), the tile maps to draw at world layer 0,
and the items in the pyglet renderer's order: world layers up, within a layer the looks in the
order their first entity comes, then the parts, then the texts; screen looks last. Positions
are interpolated ``alpha`` of the way into the next tick, angles the short way round.

Not drawn yet: crowds and particles (they need numpy, which the browser build leaves out) and
a game's own ``make_view`` (pyglet code).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from engine.buffering.access import motion
from engine.buffering.own import OwnBuffers
from engine.camera import Camera, first_camera
from engine.entity import Entity
from engine.look import Look, Part, resolved
from engine.tiles.tilemap import TileMap
from engine.world import World

__all__ = ["Item", "look_of", "map_tiles", "scene"]

Item = list[Any]
"""One thing to draw: ``[layer, screen, shape, x, y, angle, width, height, rgba, image, region, text, anchor_x,
anchor_y]`` (a text's height is its font size; ``image`` the picture's path in the page's file system)."""

_MISSING = object()


def look_of(entity: Entity, looks: Mapping[type, Look]) -> Look | None:
    """The look ``entity`` is drawn with: from ``looks`` by its class (or a base class), else its own."""
    for base in type(entity).__mro__:
        look = looks.get(base)
        if look is not None:
            return resolved(look)
    return resolved(entity.look)


def _between(previous: float, current: float, alpha: float) -> float:
    return previous + (current - previous) * alpha


def _turned(previous: float, current: float, alpha: float) -> float:
    """The angle ``alpha`` of the way from ``previous`` to ``current``, the short way round, counted back from
    ``current`` as the renderer's shader counts it (``turn * (alpha - 1) + current``)."""
    delta = (current - previous + 180.0) % 360.0 - 180.0
    return current + delta * (alpha - 1.0)


def _item(look: Look, x: float, y: float, angle: float) -> Item:
    color = list(look.color) + [255] * (4 - len(look.color))
    if look.shape == "text":
        return [look.layer, look.screen, "text", x, y, 0.0, 0.0, look.size, color, None, None, look.text,
                look.anchor_x, look.anchor_y]
    width, height = look.box or (8.0, 8.0)
    region = list(look.region) if look.region is not None else None
    return [look.layer, look.screen, look.shape, x, y, angle, width, height, color, look.image, region, None,
            "center", "center"]


def scene(world: World, looks: Mapping[type, Look], alpha: float, view_size: tuple[int, int]) -> dict[str, Any]:
    """The frame ``alpha`` of the way into the next tick, as data the page draws (see the module)."""
    entities = [entity for entity in world.entities if not isinstance(entity, OwnBuffers)]
    previous, current = motion(entities, world.tick_count)
    camera: Camera | None = first_camera(entities)
    view = camera.view_transform(alpha, view_size) if camera is not None else (0.0, 0.0, 1.0)
    maps = [entity.id for entity in entities if isinstance(entity, TileMap)]
    # (screen, layer) -> [looks in order of their first entity], per look its items; then parts, then texts.
    stages: dict[tuple[bool, int], tuple[dict[Look, list[Item]], list[Item], list[Item]]] = {}
    for index, entity in enumerate(entities):
        look = look_of(entity, looks)
        parts: Sequence[Part] = entity.parts or ()
        if look is None and not parts:
            continue
        row = 3 * index
        x = _between(previous[row], current[row], alpha)
        y = _between(previous[row + 1], current[row + 1], alpha)
        angle = _turned(previous[row + 2], current[row + 2], alpha)
        if look is not None:
            stage = stages.setdefault((look.screen, look.layer), ({}, [], []))
            item = _item(look, x, y, angle)
            (stage[2] if look.shape == "text" else stage[0].setdefault(look, [])).append(item)
        for part in parts:
            turn = angle if part.turns else 0.0
            radians = math.radians(turn)
            cos, sin = math.cos(radians), math.sin(radians)
            dx, dy = part.offset
            px, py = x + dx * cos - dy * sin, y + dx * sin + dy * cos
            stage = stages.setdefault((part.look.screen, part.look.layer), ({}, [], []))
            item = _item(part.look, px, py, turn)
            (stage[2] if part.look.shape == "text" else stage[1]).append(item)
    items: list[Item] = []
    for key in sorted(stages):
        by_look, part_items, texts = stages[key]
        for group in by_look.values():
            items.extend(group)
        items.extend(part_items)
        items.extend(texts)
    return {"view": list(view), "maps": maps, "items": items, "tick": world.tick_count}


def map_tiles(world: World, map_id: int) -> dict[str, Any] | None:
    """The tiles of the spawned ``TileMap`` with id ``map_id``, for the page to draw once and keep: its tile size,
    tilesets (image path, first id, columns, margin, spacing) and visible layers' cells (row 0 at the bottom)."""
    found = next((entity for entity in world.entities if isinstance(entity, TileMap) and entity.id == map_id), None)
    if found is None:
        return None
    data = found.data
    return {"tile_width": data.tile_width, "tile_height": data.tile_height,
            "tilesets": [{"image": str(tileset.image), "first_gid": tileset.first_gid, "count": tileset.count,
                          "columns": tileset.columns, "margin": tileset.margin, "spacing": tileset.spacing,
                          "tile_width": tileset.tile_width, "tile_height": tileset.tile_height}
                         for tileset in data.tilesets],
            "layers": [[list(cells) for cells in layer.cells] for layer in data.layers if layer.visible]}
