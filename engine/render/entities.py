"""EntityRenderer: every entity, interpolated and turned, from one vertex buffer per look.

Per tick (when the world's tick count changes) the renderer gathers every drawn
entity's previous and current position and angle into numpy arrays (``gather_motion``,
the one place that reads them); per frame it computes ``previous + (current - previous)
* alpha`` (or the extrapolation) for all of them at once, straight into the pyglet
buffer's memory: one point sprite per entity, whose shape (square, circle, diamond,
picture) the fragment shader cuts out, turned by the entity's interpolated ``angle``.
No pyglet object is made or changed per entity per frame, which is what makes it fast:
updating one pyglet shape per entity costs several times more at 10,000 entities (see
``tickswap bench``). Text looks are pyglet labels in one batch per layer, rebuilt only
when their text changes and moved only when their entity moves.

Looks are read every frame (one attribute read per entity), so a look changed at any
time, on the class or the instance, shows in the next frame; ``look = None`` hides the
entity. Higher ``Look.layer`` numbers draw on top; within a layer, entities of one look
keep update order and looks are drawn in the order their first entity comes in update
order. A spawned ``Camera`` centres the view on its interpolated position. Rendering
only reads: it never changes game state.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from operator import attrgetter, is_not
from typing import Any

import numpy as np
import pyglet
from pyglet.gl import GL_POINTS

from engine.buffering import ACCELERATED
from engine.buffering import gather_motion as interpolated
from engine.buffering.access import motion
from engine.buffering.own import OwnBuffers
from engine.camera import Camera
from engine.entity import Entity
from engine.look import Look, resolved
from engine.render.picture import read_png
from engine.world import World

__all__ = ["EntityRenderer", "gather_motion"]

_VERTEX_SOURCE = """#version 330 core
in vec2 position;
in vec4 colors;
in vec2 size;
in float angle;
flat out vec4 vertex_colors;
flat out vec2 vertex_size;
flat out vec2 vertex_turn;
flat out float vertex_extent;
uniform WindowBlock { mat4 projection; mat4 view; } window;
void main() {
    gl_Position = window.projection * window.view * vec4(position, 0.0, 1.0);
    // A turned shape needs the sprite to cover its diagonal; an unturned one only its larger side.
    float extent = angle == 0.0 ? max(size.x, size.y) : length(size);
    gl_PointSize = extent;
    vertex_turn = angle == 0.0 ? vec2(1.0, 0.0) : vec2(cos(radians(angle)), sin(radians(angle)));
    vertex_colors = colors;
    vertex_size = size;
    vertex_extent = extent;
}
"""
# One point sprite per entity. Each kind of look gets a fragment shader of its own that
# cuts its shape out of the sprite's square: on software GL (llvmpipe) one shader with a
# branch per shape made drawing twice as slow as a plain square. ``q`` is the fragment in
# the shape's own frame (y up, turned back by the entity's angle). Every value a fragment
# reads is ``flat`` (one per sprite): nothing to interpolate across the sprite.
_RECT = "if (abs(q.x) > half_size.x || abs(q.y) > half_size.y) discard;"
_CUT = {
    # Plain squares fill their sprite: no cut at all. A bucket of squares of which any
    # is turned draws with "rect" instead (same vertex shader, same attributes).
    "point": "",
    "rect": "TURN " + _RECT,
    "circle": "TURN vec2 r = q / half_size; if (dot(r, r) > 1.0) discard;",
    "diamond": "TURN if (abs(q.x) / half_size.x + abs(q.y) / half_size.y > 1.0) discard;",
    "image": "TURN " + _RECT +
             " color *= texture(picture, vec2(q.x / vertex_size.x + 0.5, q.y / vertex_size.y + 0.5));"
             " if (color.a == 0.0) discard;",
}
_TURN = ("vec2 up = vec2(p.x, -p.y);"
         " vec2 q = vec2(vertex_turn.x * up.x + vertex_turn.y * up.y, vertex_turn.x * up.y - vertex_turn.y * up.x);")
_FRAGMENT_SOURCE = """#version 330 core
flat in vec4 vertex_colors;
flat in vec2 vertex_size;
flat in vec2 vertex_turn;
flat in float vertex_extent;
out vec4 final_colors;
uniform sampler2D picture;
void main() {
    vec2 half_size = vertex_size * 0.5;
    vec2 p = (gl_PointCoord - 0.5) * vertex_extent;
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

        fragment = _FRAGMENT_SOURCE.replace("CUT", _CUT[kind].replace("TURN", _TURN))
        program = _programs[kind] = ShaderProgram(Shader(_VERTEX_SOURCE, "vertex"), Shader(fragment, "fragment"))
    return program


def _same_attributes(first: Any, second: Any) -> bool:
    """Whether two programs read their vertex attributes from the same locations."""
    def layout(program: Any) -> dict[str, Any]:
        return {name: attribute["location"] for name, attribute in program.attributes.items()}
    return layout(first) == layout(second)


def _program_kind(look: Look) -> str:
    if look.shape == "square":
        width, height = _look_size(look)
        return "point" if width == height else "rect"
    return look.shape


class _PointGroup(pyglet.graphics.ShaderGroup):
    """Binds a look's shader and lets it set the point size (drawing entities as point sprites).

    Blending (for translucent colours and pictures) only where the look needs it: it
    costs a read of every covered pixel on software GL.
    """

    def __init__(self, program: Any, blend: bool) -> None:
        super().__init__(program)
        self.blend = blend

    def set_state(self) -> None:
        super().set_state()
        pyglet.gl.glEnable(pyglet.gl.GL_PROGRAM_POINT_SIZE)
        if self.blend:
            pyglet.gl.glEnable(pyglet.gl.GL_BLEND)
            pyglet.gl.glBlendFunc(pyglet.gl.GL_SRC_ALPHA, pyglet.gl.GL_ONE_MINUS_SRC_ALPHA)

    def unset_state(self) -> None:
        if self.blend:
            pyglet.gl.glDisable(pyglet.gl.GL_BLEND)
        pyglet.gl.glDisable(pyglet.gl.GL_PROGRAM_POINT_SIZE)
        super().unset_state()


class _PictureGroup(pyglet.graphics.Group):
    """Binds a look's picture for the point sprites of its bucket."""

    def __init__(self, texture: Any, parent: Any) -> None:
        super().__init__(parent=parent)
        self.texture = texture

    def set_state(self) -> None:
        from pyglet import gl

        gl.glActiveTexture(gl.GL_TEXTURE0)
        gl.glBindTexture(self.texture.target, self.texture.id)


_max_point_size: list[float] = []


def _look_size(look: Look) -> tuple[float, float]:
    """A look's size in pixels, refused if this GL can't draw a point sprite that large."""
    if isinstance(look.size, tuple):
        width, height = look.size
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
        # Read bounded, as a regular file (a FIFO never blocks the game), and checked whole:
        # pyglet draws a damaged PNG without a word.
        data = read_png(look.image)
        try:
            texture = pyglet.image.load(look.image, file=io.BytesIO(data)).get_texture()
        except Exception as error:
            raise ValueError(f"cannot load the picture {look.image!r} of {look}: {error}") from error
        _pictures[look.image] = texture
    return texture


def _array_view(vertex_list: Any, name: str, capacity: int, columns: int) -> tuple[Any, Any]:
    """The attribute buffer ``name`` of ``vertex_list`` and a numpy view sharing its memory."""
    buffer = vertex_list.domain.attrib_name_buffers[name]
    start = vertex_list.start * columns
    view = np.ctypeslib.as_array(buffer.data)[start:start + capacity * columns]
    return buffer, view.reshape(capacity, columns) if columns > 1 else view


def _draw_points(vertex_list: Any, count: int) -> None:
    """Draw the first ``count`` points of ``vertex_list`` (not its whole capacity)."""
    if count == 0:
        return
    domain = vertex_list.domain
    domain.vao.bind()
    for buffer, _ in domain.buffer_attributes:
        buffer.commit()
    pyglet.gl.glDrawArrays(GL_POINTS, vertex_list.start, count)


def gather_motion(entities: Sequence[Entity], tick: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Every entity's committed (previous, current) ``x, y, angle``: two arrays of shape (n, 3).

    The one place the renderer reads entities' motion, once per tick (``tick`` is the
    world's ``tick_count``), through the double buffer's owner.
    """
    count = len(entities)
    if ACCELERATED:
        # The compiled core's gather at alpha 0 and 1 is exactly (previous, current), in C.
        previous32 = np.empty((count, 3), dtype=np.float32)
        current32 = np.empty((count, 3), dtype=np.float32)
        drawn = entities if isinstance(entities, list) else list(entities)
        interpolated(drawn, tick, 0.0, previous32)
        interpolated(drawn, tick, 1.0, current32)
        return previous32.astype(np.float64), current32.astype(np.float64)
    previous, current = motion(entities, tick)
    return (np.array(previous, dtype=np.float64).reshape(count, 3),
            np.array(current, dtype=np.float64).reshape(count, 3))


class _Bucket:
    """All drawn entities of one shape look: slots in numpy arrays mirrored by one vertex list.

    Drawing one point sprite per entity (not two triangles) matters on software GL such
    as llvmpipe, where it makes the draw call about four times cheaper at 10,000.
    """

    def __init__(self, look: Look) -> None:
        self.look = look
        self.layer = look.layer
        self.size = _look_size(look)
        kind = _program_kind(look)
        blend = look.image is not None or look.color[3] < 255
        group = _PointGroup(_shader_program(kind), blend)
        # Squares that fill their sprite need cutting once turned: the same buffers, drawn
        # with the rectangle's program (both programs come from the same vertex shader, so
        # the attributes sit at the same locations; checked, else always cut).
        self._turned_group = group
        if kind == "point":
            turned = _PointGroup(_shader_program("rect"), blend)
            if _same_attributes(group.program, turned.program):
                self._turned_group = turned
            else:
                group = turned
        self._picture_group = _PictureGroup(_picture(look), parent=group) if look.image is not None else None
        # A batch of its own means a vertex domain of its own: the numpy views below point
        # into the domain's buffers, which move whenever that domain grows, so no other
        # bucket may ever make it grow behind this one's back.
        self.batch = pyglet.graphics.Batch()
        self.group = group
        self.indices: np.ndarray[Any, Any] = np.zeros(0, dtype=np.intp)
        self.count = 0
        self.capacity = 0
        self.vertex_list: Any = None
        self.turning = False
        self._allocate(64)

    def _allocate(self, capacity: int) -> None:
        if self.vertex_list is not None:
            self.vertex_list.delete()
        self.capacity = capacity
        self.previous = np.zeros((capacity, 2), dtype=np.float32)
        self.current = np.zeros((capacity, 2), dtype=np.float32)
        self.angle = np.zeros(capacity, dtype=np.float32)
        self.turn = np.zeros(capacity, dtype=np.float32)
        self.vertex_list = self.group.program.vertex_list(
            capacity, GL_POINTS, batch=self.batch, group=self.group,
            position=("f", [0.0] * (capacity * 2)),
            colors=("Bn", list(self.look.color) * capacity),
            size=("f", list(self.size) * capacity),
            angle=("f", [0.0] * capacity),
        )
        self._position_buffer, self._positions = _array_view(self.vertex_list, "position", capacity, 2)
        self._angle_buffer, self._angles = _array_view(self.vertex_list, "angle", capacity, 1)
        self.turning = False

    def assign(self, indices: list[int]) -> None:
        """Take the entities at ``indices`` (of the renderer's drawn list), in that order."""
        if len(indices) > self.capacity:
            capacity = self.capacity
            while capacity < len(indices):
                capacity *= 2
            self._allocate(capacity)
        self.indices = np.array(indices, dtype=np.intp)
        self.count = len(indices)

    def take(self, previous: np.ndarray[Any, Any], current: np.ndarray[Any, Any]) -> None:
        """Copy this bucket's rows of the gathered motion into its own arrays (once per tick)."""
        count = self.count
        if count == 0:
            return
        rows_previous, rows_current = previous[self.indices], current[self.indices]
        self.previous[:count] = rows_previous[:, :2]
        self.current[:count] = rows_current[:, :2]
        # The short way round: turning from 350 to 10 degrees passes through 0.
        turn = (rows_current[:, 2] - rows_previous[:, 2] + 180.0) % 360.0 - 180.0
        self.angle[:count] = rows_current[:, 2]
        self.turn[:count] = turn
        turning = bool(np.any(self.angle[:count] % 360.0) or np.any(turn))
        if self.turning and not turning:
            self._angles[:count] = 0.0
            self._angle_buffer.invalidate_region(self.vertex_list.start, count)
        self.turning = turning

    def write(self, alpha: float, extrapolate: bool) -> None:
        """Compute every drawn position (and angle, if any is turned) for ``alpha`` in one go."""
        count = self.count
        if count == 0:
            return
        drawn = self._positions[:count]
        np.subtract(self.current[:count], self.previous[:count], out=drawn)
        drawn *= alpha
        drawn += self.current[:count] if extrapolate else self.previous[:count]
        self._position_buffer.invalidate_region(self.vertex_list.start, count)
        if self.turning:
            angles = self._angles[:count]
            # Interpolated: current - turn * (1 - alpha); extrapolated: current + turn * alpha.
            np.multiply(self.turn[:count], alpha if extrapolate else alpha - 1.0, out=angles)
            angles += self.angle[:count]
            self._angle_buffer.invalidate_region(self.vertex_list.start, count)

    def draw(self) -> None:
        """Draw the live slots only (``glDrawArrays`` over [0, count))."""
        if not self.count:
            return
        group = self._turned_group if self.turning else self.group
        group.set_state()
        if self._picture_group is not None:
            self._picture_group.set_state()
        _draw_points(self.vertex_list, self.count)
        group.unset_state()

    def delete(self) -> None:
        self.vertex_list.delete()


class _Texts:
    """Every entity whose look is text: one pyglet label each, in one batch per layer.

    A label is rebuilt only when its look changes and moved only when its drawn position
    or angle changes, so unchanged text costs nothing per frame.
    """

    def __init__(self) -> None:
        self.labels: dict[int, Any] = {}  # entity id -> label
        self.looks: dict[int, Look] = {}
        self.placed: dict[int, tuple[float, float, float]] = {}
        self.batches: dict[int, Any] = {}
        self.rows: list[tuple[int, int]] = []  # (entity id, index in the drawn list)
        self.previous: np.ndarray[Any, Any] = np.zeros((0, 3))
        self.current: np.ndarray[Any, Any] = np.zeros((0, 3))

    def assign(self, rows: list[tuple[int, int, Look]]) -> None:
        """Keep a label for each (entity id, index, look); make, restyle or drop labels to match."""
        wanted = {entity_id for entity_id, _, _ in rows}
        for entity_id in [i for i in self.labels if i not in wanted]:
            self.labels.pop(entity_id).delete()
            self.looks.pop(entity_id)
            self.placed.pop(entity_id, None)
        for entity_id, _, look in rows:
            self.restyle(entity_id, look)
        self.rows = [(entity_id, index) for entity_id, index, _ in rows]

    def restyle(self, entity_id: int, look: Look) -> None:
        """Give entity ``entity_id``'s label ``look``: changed in place where it can be, made where it must."""
        import pyglet.text

        old = self.looks.get(entity_id)
        if old != look:
            label = self.labels.get(entity_id)
            if label is not None and old is not None and old.layer == look.layer:
                if old.text != look.text:
                    label.text = look.text
                if old.size != look.size:
                    label.font_size = look.size
                if old.color != look.color:
                    label.color = look.color
            else:
                if label is not None:
                    label.delete()
                batch = self.batches.get(look.layer)
                if batch is None:
                    batch = self.batches[look.layer] = pyglet.graphics.Batch()
                self.labels[entity_id] = pyglet.text.Label(
                    look.text or "", font_size=look.size, color=look.color,  # type: ignore[arg-type]
                    anchor_x="center", anchor_y="center", batch=batch)
                self.placed.pop(entity_id, None)
            self.looks[entity_id] = look

    def take(self, previous: np.ndarray[Any, Any], current: np.ndarray[Any, Any]) -> None:
        indices = [index for _, index in self.rows]
        self.previous, self.current = previous[indices], current[indices]

    def write(self, alpha: float, extrapolate: bool) -> None:
        for row, (entity_id, _) in enumerate(self.rows):
            (px, py, pa), (cx, cy, ca) = self.previous[row], self.current[row]
            turn = (ca - pa + 180.0) % 360.0 - 180.0
            if extrapolate:
                place = (cx + (cx - px) * alpha, cy + (cy - py) * alpha, ca + turn * alpha)
            else:
                place = (px + (cx - px) * alpha, py + (cy - py) * alpha, ca - turn * (1.0 - alpha))
            if self.placed.get(entity_id) != place:
                label = self.labels[entity_id]
                label.position = (float(place[0]), float(place[1]), 0.0)
                label.rotation = -float(place[2])  # pyglet turns labels clockwise
                self.placed[entity_id] = place

    def draw(self, layer: int) -> None:
        batch = self.batches.get(layer)
        if batch is not None:
            batch.draw()

    def delete(self) -> None:
        for label in self.labels.values():
            label.delete()
        self.labels.clear()
        self.looks.clear()
        self.placed.clear()


class _CrowdLayer:
    """One crowd: a vertex buffer of its capacity, filled by ``crowd.draw_positions``."""

    def __init__(self, crowd: OwnBuffers, look: Look) -> None:
        if look.shape in ("image", "text"):
            raise ValueError(f"{type(crowd).__name__}: a crowd is drawn as shapes, not pictures or text; got {look}")
        self.crowd = crowd
        self.look = look
        self.layer = look.layer
        self.batch = pyglet.graphics.Batch()
        self.group = _PointGroup(_shader_program(_program_kind(look)), look.image is not None or look.color[3] < 255)
        capacity = crowd.capacity
        self.vertex_list = self.group.program.vertex_list(
            capacity, GL_POINTS, batch=self.batch, group=self.group,
            position=("f", [0.0] * (capacity * 2)),
            colors=("Bn", list(look.color) * capacity),
            size=("f", list(_look_size(look)) * capacity),
            angle=("f", [0.0] * capacity),
        )
        self._buffer, self._positions = _array_view(self.vertex_list, "position", capacity, 2)
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


_MISSING = object()
_MISSING_CLASS = object()


def _is_text(look: Any) -> bool:
    return isinstance(look, Look) and look.shape == "text"
_get_look = attrgetter("look")


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
        self._buckets: dict[Look, _Bucket] = {}
        self._order: list[_Bucket] = []
        self._texts = _Texts()
        self._crowds: dict[int, _CrowdLayer] = {}
        self._drawn: list[Entity] = []  # every non-crowd entity, in update order
        self._free: list[Entity] = []  # those whose look comes from the entity, not from ``looks``
        self._fixed: list[Look | None] = []  # the looks of the others, by position in _drawn
        self._seen_looks: list[Any] | None = None
        self._camera: Camera | None = None
        self._plan: list[tuple[int, list[_Bucket], list[_CrowdLayer]]] = []
        self._crowd_looks: list[tuple[OwnBuffers, Look | None]] = []  # every crowd, hidden ones too
        self._synced_tick = -1
        self._synced_version = -1

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
        self._camera = None
        for entity in self.world.entities:
            if isinstance(entity, OwnBuffers):
                assert entity.id is not None
                crowds[entity.id] = entity
                continue
            if self._camera is None and isinstance(entity, Camera):
                self._camera = entity
            drawn.append(entity)
        for entity_id in [i for i in self._crowds if i not in crowds]:
            self._crowds.pop(entity_id).delete()
        self._crowd_looks = [(crowd, self.look_of(crowd)) for crowd in crowds.values()]
        for entity_id, crowd in crowds.items():
            look = self.look_of(crowd)
            layer = self._crowds.get(entity_id)
            if layer is not None and layer.look != look:
                layer.delete()
                del self._crowds[entity_id]
            if look is not None and entity_id not in self._crowds:
                self._crowds[entity_id] = _CrowdLayer(crowd, look)
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

    def _looks_replaced(self) -> bool:
        """Whether any entity's look is another object than last frame (no list made when none is)."""
        seen = self._seen_looks
        if seen is None or len(seen) != len(self._free):
            return True
        return any(map(is_not, map(_get_look, self._free), seen))

    def _current_looks(self) -> list[Any]:
        """The look of every entity whose look is its own, read now (a look can change at any time)."""
        return list(map(_get_look, self._free))

    def _sync_looks(self, free_looks: list[Any]) -> None:
        """Put every drawn entity in the bucket of its look (or none), keeping update order."""
        free = iter(free_looks)
        members: dict[Look, list[int]] = {}
        texts: list[tuple[int, int, Look]] = []
        for index, (entity, fixed) in enumerate(zip(self._drawn, self._fixed)):
            look = resolved(next(free) if fixed is _MISSING else fixed)
            if look is None:
                continue
            if not isinstance(look, Look):
                raise TypeError(f"{type(entity).__name__}.look must be a Look or None, got {look!r}")
            if look.shape == "text":
                assert entity.id is not None
                texts.append((entity.id, index, look))
            else:
                members.setdefault(look, []).append(index)
        for look in [look for look in self._buckets if look not in members]:
            self._buckets.pop(look).delete()
        for look, indices in members.items():
            bucket = self._buckets.get(look)
            if bucket is None:
                bucket = self._buckets[look] = _Bucket(look)
            bucket.assign(indices)
        # Dicts keep insertion order: looks in the order their first entity comes, by layer.
        self._order = sorted((self._buckets[look] for look in members), key=lambda bucket: bucket.layer)
        self._texts.assign(texts)
        self._seen_looks = free_looks
        self._plan_layers()

    def _plan_layers(self) -> None:
        """What to draw, layer by layer, bottom first: worked out when looks change, not per frame."""
        layers = sorted({bucket.layer for bucket in self._order} | set(self._texts.batches)
                        | {crowd.layer for crowd in self._crowds.values()})
        self._plan = [(layer, [bucket for bucket in self._order if bucket.layer == layer],
                       [crowd for crowd in self._crowds.values() if crowd.layer == layer]) for layer in layers]

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

    def _sync(self) -> None:
        world = self.world
        regather = False
        # Crowds are few: their looks are checked every frame like everyone else's.
        crowd_look_changed = any(self.look_of(crowd) != look for crowd, look in self._crowd_looks)
        if world.structure_version != self._synced_version or crowd_look_changed:
            self._sync_structure()
            self._synced_version = world.structure_version
            regather = True
        if self._looks_replaced():
            free_looks = self._current_looks()
            if free_looks == self._seen_looks:
                self._seen_looks = free_looks  # equal looks, new objects: nothing to redraw
            elif not self._restyle_texts(free_looks):
                self._sync_looks(free_looks)
                regather = True
        if regather or world.tick_count != self._synced_tick:
            previous, current = gather_motion(self._drawn, world.tick_count)
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
        """Draw every entity ``alpha`` of the way into the next tick."""
        self._sync()
        window = None
        if self._camera is not None and self._camera.alive:
            window = self._target_window()
        if window is not None:
            from pyglet.math import Mat4, Vec3

            assert self._camera is not None
            x, y = self._camera.draw_position(alpha, self.extrapolate)
            saved_view = window.view
            window.view = Mat4.from_translation(Vec3(round(window.width / 2 - x), round(window.height / 2 - y), 0.0))
        self._texts.write(alpha, self.extrapolate)
        for layer, buckets, crowds in self._plan:
            for bucket in buckets:
                bucket.write(alpha, self.extrapolate)
                bucket.draw()
            for crowd in crowds:
                crowd.write(alpha, self.extrapolate)
                crowd.draw()
            self._texts.draw(layer)
        if window is not None:
            window.view = saved_view

    @property
    def entity_count(self) -> int:
        """How many entities the renderer is drawing, crowd members included."""
        return (sum(bucket.count for bucket in self._order) + len(self._texts.labels)
                + sum(layer.crowd.count for layer in self._crowds.values()))

    def delete(self) -> None:
        """Release the GPU buffers and labels."""
        for bucket in self._buckets.values():
            bucket.delete()
        for crowd in self._crowds.values():
            crowd.delete()
        self._texts.delete()
        self._buckets.clear()
        self._order = []
        self._plan = []
        self._crowds.clear()
