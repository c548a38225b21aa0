"""The crowd layer: one crowd's members drawn from one vertex buffer of its capacity.

A crowd holds its members in arrays, not entities, so the renderer does not gather it:
each frame ``crowd.draw_positions`` writes every member's interpolated position straight
into this layer's buffer, which is drawn with the same point-sprite shaders as any look.
"""

from __future__ import annotations

import pyglet
from pyglet.gl import GL_POINTS

from engine.buffering.own import OwnBuffers
from engine.look import Look
from engine.render.shaders import PointGroup, shader_program
from engine.render.sprites import array_view, draw_points, fits_a_point, look_size, point_limit, program_kind

__all__ = ["CrowdLayer"]


class CrowdLayer:
    """One crowd: a vertex buffer of its capacity, filled by ``crowd.draw_positions``."""

    def __init__(self, crowd: OwnBuffers, look: Look) -> None:
        if look.shape in ("image", "text"):
            raise ValueError(f"{type(crowd).__name__}: a crowd is drawn as shapes, not pictures or text; got {look}")
        if not fits_a_point(look):
            # Members are point sprites only (a crowd's buffer is filled by the crowd itself).
            raise ValueError(f"{type(crowd).__name__}: a crowd's look is at most {point_limit():g} pixels across "
                             f"(its diagonal) on this OpenGL; got {look}")
        self.crowd = crowd
        self.look = look
        self.stage = (look.screen, look.layer)
        """Where it is drawn: world layers bottom first, then the screen's."""
        self.batch = pyglet.graphics.Batch()
        self.group = PointGroup(shader_program(program_kind(look)), look.image is not None or look.color[3] < 255)
        capacity = crowd.capacity
        self.vertex_list = self.group.program.vertex_list(
            capacity, GL_POINTS, batch=self.batch, group=self.group,
            position=("f", [0.0] * (capacity * 2)),
            colors=("Bn", list(look.color) * capacity),
            size=("f", list(look_size(look)) * capacity),
            angle=("f", [0.0] * capacity),
        )
        self._buffer, self._positions = array_view(self.vertex_list, "position", capacity, 2)
        self._count = 0

    def write(self, alpha: float, extrapolate: bool) -> None:
        """Have the crowd write its members' drawn positions for ``alpha`` into this layer's buffer."""
        self._count = self.crowd.draw_positions(alpha, self._positions, extrapolate)
        self._buffer.invalidate_region(self.vertex_list.start, self._count)

    def draw(self) -> None:
        """Draw the members written last (none if the crowd is empty)."""
        if self._count:
            self.group.set_state()
            draw_points(self.vertex_list, self._count)
            self.group.unset_state()

    def delete(self) -> None:
        """Release the layer's vertex buffer."""
        self.vertex_list.delete()
