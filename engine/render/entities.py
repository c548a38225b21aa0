"""EntityRenderer: every entity, interpolated, from one vertex buffer per look.

Per tick (when the world's tick count changes) the renderer gathers every entity's
previous and current position into numpy arrays; per frame it computes
``previous + (current - previous) * alpha`` (or the extrapolation) for all of them at
once, straight into the pyglet buffer's memory: one point sprite per entity, whose
shape (square, circle, diamond) the fragment shader cuts out. No pyglet
object is made or changed per entity per frame, which is what makes it fast: updating
one pyglet shape per entity costs several times more at 10,000 entities (see
``tickswap bench``). Rendering only reads: it never changes game state.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pyglet
from pyglet.gl import GL_POINTS

from engine.buffering.buffers import previous_positions
from engine.crowd import Crowd
from engine.entity import Entity
from engine.look import DEFAULT_LOOK, Look
from engine.world import World

__all__ = ["EntityRenderer"]

_VERTEX_SOURCE = """#version 330 core
in vec2 position;
in vec4 colors;
in vec2 size;
out vec4 vertex_colors;
out vec2 vertex_size;
uniform WindowBlock { mat4 projection; mat4 view; } window;
void main() {
    gl_Position = window.projection * window.view * vec4(position, 0.0, 1.0);
    gl_PointSize = max(size.x, size.y);
    vertex_colors = colors;
    vertex_size = size;
}
"""
# One point sprite per entity. Each kind of look gets a fragment shader of its own that
# cuts its shape out of the sprite's square: on software GL (llvmpipe) one shader with a
# branch per shape made drawing twice as slow as a plain square.
_CUT = {
    "point": "",
    "rect": "if (abs(p.x) > half_size.x || abs(p.y) > half_size.y) discard;",
    "circle": "vec2 q = p / half_size; if (dot(q, q) > 1.0) discard;",
    "diamond": "if (abs(p.x) / half_size.x + abs(p.y) / half_size.y > 1.0) discard;",
    "image": "if (abs(p.x) > half_size.x || abs(p.y) > half_size.y) discard;"
             " color *= texture(picture, vec2(p.x / vertex_size.x + 0.5, 0.5 - p.y / vertex_size.y));"
             " if (color.a == 0.0) discard;",
}
_FRAGMENT_SOURCE = """#version 330 core
in vec4 vertex_colors;
in vec2 vertex_size;
out vec4 final_colors;
uniform sampler2D picture;
void main() {
    vec2 half_size = vertex_size * 0.5;
    vec2 p = (gl_PointCoord - 0.5) * max(vertex_size.x, vertex_size.y);
    vec4 color = vertex_colors;
    CUT
    final_colors = color;
}
"""

_programs: dict[str, Any] = {}


def _shader_program(kind: str) -> Any:
    """The shader program for one kind of look (compiled once per process)."""
    program = _programs.get(kind)
    if program is None:
        from pyglet.graphics.shader import Shader, ShaderProgram

        fragment = _FRAGMENT_SOURCE.replace("CUT", _CUT[kind])
        program = _programs[kind] = ShaderProgram(Shader(_VERTEX_SOURCE, "vertex"), Shader(fragment, "fragment"))
    return program


def _program_kind(look: Look) -> str:
    if look.shape == "square":
        width, height = _look_size(look)
        return "point" if width == height else "rect"
    return look.shape


class _PointGroup(pyglet.graphics.ShaderGroup):
    """Binds a look's shader and lets it set the point size (drawing entities as point sprites)."""

    def set_state(self) -> None:
        super().set_state()
        pyglet.gl.glEnable(pyglet.gl.GL_PROGRAM_POINT_SIZE)

    def unset_state(self) -> None:
        pyglet.gl.glDisable(pyglet.gl.GL_PROGRAM_POINT_SIZE)
        super().unset_state()


class _PictureGroup(pyglet.graphics.Group):
    """Binds a look's picture for the point sprites of its layer (blending its transparency)."""

    def __init__(self, texture: Any, parent: Any) -> None:
        super().__init__(parent=parent)
        self.texture = texture

    def set_state(self) -> None:
        from pyglet import gl

        gl.glActiveTexture(gl.GL_TEXTURE0)
        gl.glBindTexture(self.texture.target, self.texture.id)
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)

    def unset_state(self) -> None:
        from pyglet import gl

        gl.glDisable(gl.GL_BLEND)


_max_point_size: list[float] = []


def _look_size(look: Look) -> tuple[float, float]:
    """A look's size in pixels, refused if this GL can't draw a point sprite that large."""
    if look.size is not None:
        width, height = look.size  # type: ignore[misc]
    else:
        texture = _picture(look)
        width, height = float(texture.width), float(texture.height)
    if not _max_point_size:
        limits = (pyglet.gl.GLfloat * 2)()
        pyglet.gl.glGetFloatv(pyglet.gl.GL_POINT_SIZE_RANGE, limits)
        _max_point_size.append(float(limits[1]))
    if max(width, height) > _max_point_size[0]:
        # GL would clamp the sprite and draw it wrong without a word: refuse instead.
        raise ValueError(f"{look} is {max(width, height):g} pixels across; this OpenGL draws entities at most "
                         f"{_max_point_size[0]:g} across (draw something that large in a view of its own)")
    return float(width), float(height)


_pictures: dict[str, Any] = {}


def _picture(look: Look) -> Any:
    """The texture of a picture look, loaded once per path."""
    assert look.image is not None
    texture = _pictures.get(look.image)
    if texture is None:
        try:
            texture = pyglet.image.load(look.image).get_texture()
        except Exception as error:
            raise ValueError(f"cannot load the picture {look.image!r} of {look}: {error}") from error
        _pictures[look.image] = texture
    return texture


def _point_list(look: Look, capacity: int, batch: Any, group: Any) -> tuple[Any, Any, Any]:
    """A vertex list of ``capacity`` points in ``look``, its position buffer, and a numpy view of it.

    The view shares the buffer's memory: writing positions into it is one vectorised copy,
    with no Python per point.
    """
    vertex_list = group.program.vertex_list(
        capacity, GL_POINTS, batch=batch, group=group,
        position=("f", [0.0] * (capacity * 2)),
        colors=("Bn", list(look.color) * capacity),
        size=("f", list(_look_size(look)) * capacity),
    )
    buffer = vertex_list.domain.attrib_name_buffers["position"]
    start = vertex_list.start * 2
    view = np.ctypeslib.as_array(buffer.data)[start:start + capacity * 2].reshape(capacity, 2)
    return vertex_list, buffer, view


def _draw_points(vertex_list: Any, count: int) -> None:
    """Draw the first ``count`` points of ``vertex_list`` (not its whole capacity)."""
    if count == 0:
        return
    domain = vertex_list.domain
    domain.vao.bind()
    for buffer, _ in domain.buffer_attributes:
        buffer.commit()
    pyglet.gl.glDrawArrays(GL_POINTS, vertex_list.start, count)


class _Layer:
    """All entities of one look: slots in numpy arrays mirrored by one vertex list.

    Drawing one point sprite per entity (not two triangles) matters on software GL such
    as llvmpipe, where it makes the draw call about four times cheaper at 10,000.
    """

    def __init__(self, look: Look, capacity: int = 64) -> None:
        self.look = look
        group = _PointGroup(_shader_program(_program_kind(look)))
        self._picture_group = _PictureGroup(_picture(look), parent=group) if look.image is not None else None
        # A batch of its own means a vertex domain of its own: the numpy view below points
        # into the domain's buffer, which moves whenever that domain grows, so no other
        # layer may ever make it grow behind this one's back.
        self.batch = pyglet.graphics.Batch()
        self.group = group
        self.slot_of: dict[int, int] = {}
        self.entities: list[Entity] = []
        self.vertex_list: Any = None
        self.previous: np.ndarray[Any, Any] = np.zeros((0, 2), dtype=np.float32)
        self.current: np.ndarray[Any, Any] = np.zeros((0, 2), dtype=np.float32)
        self._allocate(capacity)

    def _allocate(self, capacity: int) -> None:
        old = self.vertex_list
        self.capacity = capacity
        previous = np.zeros((capacity, 2), dtype=np.float32)
        current = np.zeros((capacity, 2), dtype=np.float32)
        if old is not None:
            count = len(self.entities)
            previous[:count] = self.previous[:count]
            current[:count] = self.current[:count]
            old.delete()
        self.previous, self.current = previous, current
        self.vertex_list, self._buffer, self._positions = _point_list(self.look, capacity, self.batch, self.group)

    def add(self, entity: Entity) -> None:
        slot = len(self.entities)
        if slot == self.capacity:
            self._allocate(self.capacity * 2)
        self.entities.append(entity)
        assert entity.id is not None
        self.slot_of[entity.id] = slot

    def remove(self, entity_id: int) -> None:
        # Keep the slots dense: the last entity moves into the hole. Software GL spends
        # nearly as long on a parked, off-screen point as on a visible one, so only the
        # live slots [0, count) are ever drawn.
        slot = self.slot_of.pop(entity_id)
        last = len(self.entities) - 1
        moved = self.entities.pop()
        if slot != last:
            self.entities[slot] = moved
            assert moved.id is not None
            self.slot_of[moved.id] = slot
            self.previous[slot] = self.previous[last]
            self.current[slot] = self.current[last]

    def gather(self, tick: int) -> None:
        """Copy every entity's committed previous and current position into the arrays."""
        entities = self.entities
        count = len(entities)
        if count == 0:
            return
        current = [(e.x, e.y) for e in entities]
        # Entity.prev_x would do, but this is per entity per tick: read the swap's record.
        previous = previous_positions(entities, tick)
        self.current[:count] = current
        self.previous[:count] = previous

    def write(self, alpha: float, extrapolate: bool) -> None:
        """Compute every drawn position for ``alpha`` and write the vertices in one go."""
        count = len(self.entities)
        if count == 0:
            return
        drawn = self._positions[:count]
        np.subtract(self.current[:count], self.previous[:count], out=drawn)
        drawn *= alpha
        drawn += self.current[:count] if extrapolate else self.previous[:count]
        self._buffer.invalidate_region(self.vertex_list.start, count)

    def draw(self) -> None:
        """Draw the live slots only (``glDrawArrays`` over [0, count))."""
        if not self.entities:
            return
        self.group.set_state()
        if self._picture_group is not None:
            self._picture_group.set_state()
        _draw_points(self.vertex_list, len(self.entities))
        if self._picture_group is not None:
            self._picture_group.unset_state()
        self.group.unset_state()

    def delete(self) -> None:
        self.vertex_list.delete()


class _CrowdLayer:
    """One crowd: a vertex buffer of its capacity, filled by ``crowd.draw_positions``."""

    def __init__(self, crowd: Crowd, look: Look) -> None:
        if look.image is not None:
            raise ValueError(f"{type(crowd).__name__}: a crowd is drawn as shapes, not pictures; got {look}")
        self.crowd = crowd
        self.batch = pyglet.graphics.Batch()
        self.group = _PointGroup(_shader_program(_program_kind(look)))
        self.vertex_list, self._buffer, self._positions = _point_list(look, crowd.capacity, self.batch, self.group)
        self._count = 0

    def write(self, alpha: float, extrapolate: bool) -> None:
        self._count = self.crowd.draw_positions(alpha, self._positions, extrapolate)
        self._buffer.invalidate_region(self.vertex_list.start, self._count)

    def draw(self) -> None:
        if self._count:
            self.group.set_state()
            _draw_points(self.vertex_list, self._count)
            self.group.unset_state()

    def delete(self) -> None:
        self.vertex_list.delete()


class EntityRenderer:
    """Draws every live entity of a world at ``draw_position(alpha)``, batched by ``Look``.

    ``draw(alpha)`` interpolates between the last two committed states;
    ``extrapolate=True`` draws ahead instead (no latency, occasionally wrong). An entity
    gets a slot when it is first seen and gives it back when it leaves the world; no
    pyglet object is created per frame.
    """

    def __init__(self, world: World, *, looks: Mapping[type, Look] | None = None, extrapolate: bool = False) -> None:
        self.world = world
        self.looks = dict(looks or {})
        """Looks by entity class (a game's view module declares them); else ``entity.look``."""
        self.extrapolate = extrapolate
        """Draw ``current + velocity * alpha`` instead of interpolating."""
        self._layers: dict[Look, _Layer] = {}
        self._layer_of: dict[int, _Layer] = {}
        self._crowds: dict[int, _CrowdLayer] = {}
        self._synced_tick = -1
        self._synced_version = -1

    def _sync(self) -> None:
        world = self.world
        if world.structure_version != self._synced_version:
            live = {entity.id: entity for entity in world.entities if entity.id is not None}
            for entity_id in [i for i in self._layer_of if i not in live]:
                self._layer_of.pop(entity_id).remove(entity_id)
            for entity_id in [i for i in self._crowds if i not in live]:
                self._crowds.pop(entity_id).delete()
            for entity_id, entity in live.items():
                if isinstance(entity, Crowd):
                    if entity_id not in self._crowds:
                        self._crowds[entity_id] = _CrowdLayer(entity, self.look_of(entity))
                    continue
                if entity_id not in self._layer_of:
                    look = self.look_of(entity)
                    if not isinstance(look, Look):
                        raise TypeError(f"{type(entity).__name__}.look must be a Look, got {look!r}")
                    layer = self._layers.get(look)
                    if layer is None:
                        layer = self._layers[look] = _Layer(look)
                    layer.add(entity)
                    assert entity_id is not None
                    self._layer_of[entity_id] = layer
            self._synced_version = world.structure_version
            self._synced_tick = -1
        if world.tick_count != self._synced_tick:
            for layer in self._layers.values():
                layer.gather(world.tick_count)
            self._synced_tick = world.tick_count

    def look_of(self, entity: Entity) -> Look:
        """The look for ``entity``: from ``looks`` by its class (or a base class), else its own."""
        for kind in type(entity).__mro__:
            look = self.looks.get(kind)
            if look is not None:
                return look
        return entity.look if entity.look is not None else DEFAULT_LOOK

    def draw(self, alpha: float) -> None:
        """Draw every entity ``alpha`` of the way into the next tick."""
        self._sync()
        layers: list[_Layer | _CrowdLayer] = [*self._layers.values(), *self._crowds.values()]
        for layer in layers:
            layer.write(alpha, self.extrapolate)
            layer.draw()

    @property
    def entity_count(self) -> int:
        """How many entities the renderer is drawing, crowd members included."""
        return len(self._layer_of) + sum(layer.crowd.count for layer in self._crowds.values())

    def delete(self) -> None:
        """Release the GPU buffers."""
        layers: list[_Layer | _CrowdLayer] = [*self._layers.values(), *self._crowds.values()]
        for layer in layers:
            layer.delete()
        self._layers.clear()
        self._layer_of.clear()
        self._crowds.clear()
