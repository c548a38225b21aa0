"""Quads: the looks too large for a point sprite, two triangles per entity.

OpenGL draws point sprites only up to a size of its own (255 px on the software
renderer, more on most GPUs) and clamps larger ones without a word. A look whose
diagonal (times the camera's zoom) passes that limit is drawn here instead: the same
entities, the same interpolation and the same shape cuts (``shaders.quad_program``),
from six vertices per entity. Large looks are few (backgrounds, platforms), so the
per-frame cost of writing six positions per entity does not matter; the common small
look stays a point sprite.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyglet
from pyglet.gl import GL_TRIANGLES

from engine.look import Look
from engine.render.shaders import PointGroup, quad_program
from engine.render.sprites import PictureGroup, Slots, array_view, draw_points, look_size

__all__ = ["CORNERS", "VERTICES", "QuadBucket"]

# Two triangles covering the look's box, as fractions of its size around the entity.
CORNERS = (-0.5, -0.5, 0.5, -0.5, 0.5, 0.5, -0.5, -0.5, 0.5, 0.5, -0.5, 0.5)
VERTICES = 6


class QuadBucket(Slots):
    """All drawn entities of one large look: six vertices each, in one vertex list.

    The same interface as ``sprites.Bucket`` (``assign``, ``take``, ``write``, ``draw``,
    ``delete``), so the renderer treats both alike.
    """

    def __init__(self, look: Look) -> None:
        self.look = look
        self.stage = (look.screen, look.layer)
        """Where it is drawn: world layers bottom first, then the screen's."""
        self.quads = True
        self.size = look_size(look)
        kind = "point" if look.shape == "square" else look.shape
        self.group = PointGroup(quad_program(kind), look.image is not None or look.color[3] < 255)
        self._picture_group = PictureGroup(look, parent=self.group) if look.image is not None else None
        self.batch = pyglet.graphics.Batch()  # a domain of its own: the numpy views point into it
        self.indices: np.ndarray[Any, Any] = np.zeros(0, dtype=np.intp)
        self.count = 0
        self.capacity = 0
        self.vertex_list: Any = None
        self._allocate(4)

    def _allocate(self, capacity: int) -> None:
        if self.vertex_list is not None:
            self.vertex_list.delete()
        self.capacity = capacity
        self.previous = np.zeros((capacity, 2), dtype=np.float32)
        self.current = np.zeros((capacity, 2), dtype=np.float32)
        self.angle = np.zeros(capacity, dtype=np.float32)
        self.turn = np.zeros(capacity, dtype=np.float32)
        vertices = capacity * VERTICES
        self.vertex_list = self.group.program.vertex_list(
            vertices, GL_TRIANGLES, batch=self.batch, group=self.group,
            position=("f", [0.0] * (vertices * 2)),
            corner=("f", list(CORNERS) * capacity),
            colors=("Bn", list(self.look.color) * vertices),
            size=("f", list(self.size) * vertices),
            angle=("f", [0.0] * vertices),
        )
        self._position_buffer, positions = array_view(self.vertex_list, "position", vertices, 2)
        self._positions = positions.reshape(capacity, VERTICES, 2)
        self._angle_buffer, angles = array_view(self.vertex_list, "angle", vertices, 1)
        self._angles = angles.reshape(capacity, VERTICES)

    def write(self, alpha: float, extrapolate: bool) -> None:
        """Compute every drawn position and angle for ``alpha``, six times over (one per corner)."""
        count = self.count
        if count == 0:
            return
        start = self.current[:count] if extrapolate else self.previous[:count]
        drawn = start + (self.current[:count] - self.previous[:count]) * alpha
        self._positions[:count] = drawn[:, None, :]
        angles = self.angle[:count] + self.turn[:count] * (alpha if extrapolate else alpha - 1.0)
        self._angles[:count] = angles[:, None]
        self._position_buffer.invalidate_region(self.vertex_list.start, count * VERTICES)
        self._angle_buffer.invalidate_region(self.vertex_list.start, count * VERTICES)

    def draw(self) -> None:
        """Draw the live quads only."""
        if not self.count:
            return
        self.group.set_state()
        if self._picture_group is not None:
            self._picture_group.set_state()
        draw_points(self.vertex_list, self.count * VERTICES, GL_TRIANGLES)
        self.group.unset_state()

    def delete(self) -> None:
        """Release the bucket's vertex buffer."""
        self.vertex_list.delete()
