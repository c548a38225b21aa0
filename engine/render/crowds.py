"""The crowd layer: one crowd's members drawn from one vertex buffer of its capacity.

A crowd holds its members in arrays, not entities, so the renderer does not gather it:
each frame ``crowd.draw_positions`` writes every member's interpolated position straight
into this layer's buffer, which is drawn with the same shaders as any look: one point
sprite per member, or, for a look too large for a point sprite of this GL (at the
camera's zoom), two triangles per member as ``quads`` draws entities.

A crowd whose ``fields`` include ``scale`` (one column: 1.0 is the look's size) or
``opacity`` (1.0 is the look's own alpha, 0.0 invisible) is drawn with a size or an
opacity per member, interpolated like positions (``crowd.draw_field``) and written into
the same vertex buffer's ``size`` and ``colors``: particles that shrink and fade cost two
more vectorized passes a frame, never a draw call per member.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyglet
from pyglet.gl import GL_POINTS, GL_TRIANGLES

from engine.buffering.own import OwnBuffers
from engine.look import Look
from engine.render.quads import CORNERS, VERTICES
from engine.render.shaders import PointGroup, quad_program, shader_program
from engine.render.sprites import PictureGroup, array_view, draw_points, look_size, program_kind

__all__ = ["CrowdLayer"]


class CrowdLayer:
    """One crowd: a vertex buffer of its capacity, filled by ``crowd.draw_positions``."""

    def __init__(self, crowd: OwnBuffers, look: Look, quads: bool = False) -> None:
        if look.shape == "text":
            raise ValueError(f"{type(crowd).__name__}: a crowd is drawn as shapes or pictures, not text; got {look}")
        self.crowd = crowd
        self.look = look
        self.quads = quads
        """Drawn as two triangles per member (a look too large for a point sprite)."""
        self.stage = (look.screen, look.layer)
        """Where it is drawn: world layers bottom first, then the screen's."""
        self.batch = pyglet.graphics.Batch()
        kind = program_kind(look)
        fields = crowd.fields
        self._scaled = fields.get("scale") == 1
        self._faded = fields.get("opacity") == 1
        blend = look.image is not None or look.color[3] < 255 or self._faded
        self.group = PointGroup(quad_program(kind) if quads else shader_program(kind), blend)
        self._picture_group = PictureGroup(look, parent=self.group) if look.image is not None else None
        capacity = crowd.capacity
        per_member = VERTICES if quads else 1
        vertices = capacity * per_member
        attributes: dict[str, Any] = {
            "position": ("f", [0.0] * (vertices * 2)),
            "colors": ("Bn", list(look.color) * vertices),
            "size": ("f", list(look_size(look)) * vertices),
            "angle": ("f", [0.0] * vertices),
        }
        if quads:
            attributes["corner"] = ("f", list(CORNERS) * capacity)
        self.vertex_list = self.group.program.vertex_list(vertices, GL_TRIANGLES if quads else GL_POINTS,
                                                          batch=self.batch, group=self.group, **attributes)
        self._buffer, positions = array_view(self.vertex_list, "position", vertices, 2)
        # Quads: the crowd writes one position per member, copied to its six corners' vertices.
        self._positions = np.zeros((capacity, 2), dtype=np.float32) if quads else positions
        self._corners = positions.reshape(capacity, VERTICES, 2) if quads else positions
        self._per_member = per_member
        self._count = 0
        if self._scaled:
            self._size_buffer, sizes = array_view(self.vertex_list, "size", vertices, 2)
            self._sizes = sizes.reshape(capacity, per_member, 2)
            self._base_size = np.array(look_size(look), dtype=np.float32)
            self._scales = np.zeros((capacity, 1), dtype=np.float32)
        if self._faded:
            self._color_buffer, colors = array_view(self.vertex_list, "colors", vertices, 4)
            self._alphas = colors.reshape(capacity, per_member, 4)[:, :, 3]
            self._base_alpha = np.float32(look.color[3])
            self._opacities = np.zeros((capacity, 1), dtype=np.float32)

    def write(self, alpha: float, extrapolate: bool) -> None:
        """Have the crowd write its members' drawn positions for ``alpha`` into this layer's buffer."""
        count = self._count = self.crowd.draw_positions(alpha, self._positions, extrapolate)
        if self.quads:
            self._corners[:count] = self._positions[:count, None, :]
        start, vertices = self.vertex_list.start, count * self._per_member
        self._buffer.invalidate_region(start, vertices)
        if self._scaled:
            self.crowd.draw_field("scale", alpha, self._scales)
            np.multiply(self._scales[:count], self._base_size, out=self._sizes[:count, 0])
            if self.quads:
                self._sizes[:count, 1:] = self._sizes[:count, :1]
            self._size_buffer.invalidate_region(start, vertices)
        if self._faded:
            opacities = self._opacities
            self.crowd.draw_field("opacity", alpha, opacities)
            np.clip(opacities[:count], 0.0, 1.0, out=opacities[:count])
            opacities[:count] *= self._base_alpha
            self._alphas[:count] = opacities[:count]  # to bytes, truncated: 0.0 is never drawn, 1.0 the look's alpha
            self._color_buffer.invalidate_region(start, vertices)

    def draw(self) -> None:
        """Draw the members written last (none if the crowd is empty)."""
        if self._count:
            self.group.set_state()
            if self._picture_group is not None:
                self._picture_group.set_state()
            draw_points(self.vertex_list, self._count * self._per_member, GL_TRIANGLES if self.quads else GL_POINTS)
            self.group.unset_state()

    def delete(self) -> None:
        """Release the layer's vertex buffer."""
        self.vertex_list.delete()
