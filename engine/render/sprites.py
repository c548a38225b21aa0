"""Point sprites: one look's entities in numpy arrays mirrored by one vertex list (a bucket).

The fast path of the renderer. Per tick a ``Bucket`` holds its entities' rows of the
gathered motion (both ends of the tick) in its vertex buffer, uploaded once; per frame
the vertex shader interpolates them by a uniform ``alpha`` and only the live slots are
drawn. Also here: what a look costs a sprite (its size, and whether a point sprite of
this GL can hold it; its picture, loaded once), shared with the crowd layer (``crowds``)
and the quads that draw looks too large for a point (``quads``).
"""

from __future__ import annotations

import abc
import io
import math
import os
from typing import Any

import numpy as np
import pyglet
from pyglet.gl import GL_POINTS

from engine.disk.png import read_png
from engine.look import Look
from engine.render.shaders import PointGroup, moving_program, same_attributes

__all__ = ["Bucket", "PictureGroup", "Slots", "array_view", "draw_points", "fits_a_point", "forget_pictures",
           "look_size", "picture_region", "picture_texture", "point_limit", "program_kind", "take_rows"]


def program_kind(look: Look) -> str:
    """The shader program for ``look``: its shape's; a square is ``point`` (equal sides, uncut) or ``rect``."""
    if look.shape == "square":
        width, height = look_size(look)
        return "point" if width == height else "rect"
    return look.shape


class PictureGroup(pyglet.graphics.Group):
    """Binds a look's picture, and the part of it drawn, for the sprites of its bucket (or crowd)."""

    def __init__(self, look: Look, parent: Any) -> None:
        super().__init__(parent=parent)
        self.texture = picture_texture(look)
        self.region = picture_region(look, self.texture)
        self.program = parent.program

    def set_state(self) -> None:
        from pyglet import gl

        gl.glActiveTexture(gl.GL_TEXTURE0)
        gl.glBindTexture(self.texture.target, self.texture.id)
        # Programs are shared by every picture look; each says which part of its texture is drawn.
        self.program["region"] = self.region


def picture_region(look: Look, texture: Any) -> tuple[float, float, float, float]:
    """The part of ``texture`` that ``look`` draws, as (u, v, width, height) in texture coordinates.

    A look's region counts from the picture's top-left corner, as an image editor does;
    pyglet's textures start at the bottom row, so the region is turned upside down here.
    """
    coordinates = texture.tex_coords
    u_low, v_low, u_high, v_high = coordinates[0], coordinates[1], coordinates[6], coordinates[7]
    if look.region is None:
        return u_low, v_low, u_high - u_low, v_high - v_low
    left, top, width, height = look.region
    if left + width > texture.width or top + height > texture.height:
        raise ValueError(f"the region {look.region} (left, top, width, height) of the picture {look.image!r} "
                         f"goes past its {texture.width}x{texture.height} pixels")
    u_scale = (u_high - u_low) / texture.width
    v_scale = (v_high - v_low) / texture.height
    bottom = texture.height - top - height
    return u_low + left * u_scale, v_low + bottom * v_scale, width * u_scale, height * v_scale


_max_point_size: list[float] = []


def point_limit() -> float:
    """The largest point sprite this OpenGL draws, in pixels (asked once per process)."""
    if not _max_point_size:
        limits = (pyglet.gl.GLfloat * 2)()
        pyglet.gl.glGetFloatv(pyglet.gl.GL_POINT_SIZE_RANGE, limits)
        _max_point_size.append(float(limits[1]))
    return _max_point_size[0]


def look_size(look: Look) -> tuple[float, float]:
    """A look's size in pixels: its own, or its picture's."""
    if isinstance(look.size, tuple):
        width, height = look.size
    else:
        texture = picture_texture(look)
        width, height = float(texture.width), float(texture.height)
    return float(width), float(height)


def fits_a_point(look: Look, scale: float = 1.0) -> bool:
    """Whether ``look`` drawn ``scale`` times its size fits one point sprite, turned any way.

    GL clamps a larger sprite without a word (cutting the shape), so a larger look is
    drawn as a quad instead (``quads``): its diagonal, because a turned look needs it.
    """
    width, height = look_size(look)
    return math.hypot(width, height) * max(scale, 1.0) <= point_limit()


_pictures: dict[str, Any] = {}


def picture_texture(look: Look) -> Any:
    """The texture of a picture look, loaded once per path."""
    assert look.image is not None
    path = os.fspath(look.image)  # always a str already (Look keeps a Path as its string)
    texture = _pictures.get(path)
    if texture is None:
        texture = _pictures[path] = load_texture(path, f"the picture {path!r} of {look}")
    return texture


def forget_pictures() -> None:
    """Load every picture again when next drawn: a live reload after a picture file changed (``engine.studio``)."""
    _pictures.clear()


def load_texture(path: str, what: str) -> Any:
    """A new texture of the PNG at ``path`` (``what`` names it in an error): the one way pictures reach the GPU.

    Read bounded, as a regular file (a FIFO never blocks the game), and checked whole:
    pyglet draws a damaged PNG without a word. Callers cache what they load.
    """
    data = read_png(path)
    try:
        return pyglet.image.load(path, file=io.BytesIO(data)).get_texture()
    except Exception as error:
        raise ValueError(f"cannot load {what}: {error}") from error


def array_view(vertex_list: Any, name: str, capacity: int, columns: int) -> tuple[Any, Any]:
    """The attribute buffer ``name`` of ``vertex_list`` and a numpy view sharing its memory."""
    buffer = vertex_list.domain.attrib_name_buffers[name]
    start = vertex_list.start * columns
    view = np.ctypeslib.as_array(buffer.data)[start:start + capacity * columns]
    return buffer, view.reshape(capacity, columns) if columns > 1 else view


def draw_points(vertex_list: Any, count: int, mode: int = GL_POINTS) -> None:
    """Draw the first ``count`` vertices of ``vertex_list`` (not its whole capacity), as points by default."""
    if count == 0:
        return
    domain = vertex_list.domain
    domain.vao.bind()
    for buffer, _ in domain.buffer_attributes:
        buffer.commit()
    pyglet.gl.glDrawArrays(mode, vertex_list.start, count)


Rows = tuple["np.ndarray[Any, Any]", "np.ndarray[Any, Any]", "np.ndarray[Any, Any]", "np.ndarray[Any, Any]"]


def take_rows(indices: np.ndarray[Any, Any], previous: np.ndarray[Any, Any], current: np.ndarray[Any, Any],
              start: int | None = None) -> Rows:
    """The rows ``indices`` of the gathered motion: previous and current ``x, y``, the angle and its turn.

    ``start``: the rows are ``start, start + 1, ...`` (every entity in one look, the common
    case), read as views rather than copied. The turn is worked out in double precision
    whether the gather holds float32 (the compiled core) or float64 (the pure path), so
    either path draws the bits it always drew.
    """
    if start is None:
        rows_previous, rows_current = previous[indices], current[indices]
    else:
        rows_previous, rows_current = previous[start:start + len(indices)], current[start:start + len(indices)]
    if not (rows_current[:, 2].any() or rows_previous[:, 2].any()):
        # Nobody is turned (the common case): every turn below would be exactly 0.0.
        return rows_previous[:, :2], rows_current[:, :2], rows_current[:, 2], np.zeros(len(rows_current))
    # The short way round: turning from 350 to 10 degrees passes through 0.
    turn = np.subtract(rows_current[:, 2], rows_previous[:, 2], dtype=np.float64)
    turn += 180.0
    turn %= 360.0
    turn -= 180.0
    return rows_previous[:, :2], rows_current[:, :2], rows_current[:, 2], turn


class Slots(abc.ABC):
    """Rows of a bucket's arrays, one per drawn entity: what point and quad buckets share.

    A subclass sets ``capacity`` and ``_allocate(capacity)`` (its arrays and vertex list).
    """

    capacity: int
    indices: np.ndarray[Any, Any]
    count: int
    start: int | None = None
    previous: np.ndarray[Any, Any]
    current: np.ndarray[Any, Any]
    angle: np.ndarray[Any, Any]
    turn: np.ndarray[Any, Any]

    @abc.abstractmethod
    def _allocate(self, capacity: int) -> None:
        """Make room for ``capacity`` entities (arrays and vertex list)."""

    def assign(self, indices: list[int]) -> None:
        """Take the entities at ``indices`` (of the renderer's drawn list), in that order."""
        if len(indices) > self.capacity:
            capacity = self.capacity
            while capacity < len(indices):
                capacity *= 2
            self._allocate(capacity)
        self.indices = np.array(indices, dtype=np.intp)
        self.count = len(indices)
        first = indices[0] if indices else 0
        # Consecutive rows (one look for everyone) are read as a slice each tick, not gathered.
        self.start: int | None = first if np.array_equal(self.indices, np.arange(first, first + self.count)) else None

    def take(self, previous: np.ndarray[Any, Any], current: np.ndarray[Any, Any]) -> None:
        """Copy this bucket's rows of the gathered motion into its own arrays (once per tick)."""
        count = self.count
        if count == 0:
            return
        rows_previous, rows_current, self.angle[:count], self.turn[:count] = take_rows(
            self.indices, previous, current, self.start)
        # A column at a time: numpy copies a block two floats wide row by row, over ten times slower.
        for column in (0, 1):
            self.previous[:count, column] = rows_previous[:, column]
            self.current[:count, column] = rows_current[:, column]


class Bucket(Slots):
    """All drawn entities of one shape look: point sprites in one vertex list, interpolated on the GPU.

    Drawing one point sprite per entity (not two triangles) matters on software GL such
    as llvmpipe, where it makes the draw call about four times cheaper at 10,000. Each
    vertex holds both ends of the tick, ``previous`` and ``current`` (``x, y, angle``),
    and the ``turn`` between the angles, written once per tick (``take``, or the gather
    straight into ``rows()``: ``taken``) and uploaded once; a frame sets the shader's
    ``alpha`` and draws (``shaders.moving_program``).
    """

    def __init__(self, look: Look) -> None:
        self.look = look
        self.stage = (look.screen, look.layer)
        """Where it is drawn: world layers bottom first, then the screen's."""
        self.quads = False
        """Drawn as point sprites (``quads.QuadBucket`` draws the looks too large for them)."""
        self.size = look_size(look)
        kind = program_kind(look)
        blend = look.image is not None or look.color[3] < 255
        group = PointGroup(moving_program(kind), blend)
        # Squares that fill their sprite need cutting once turned: the same buffers, drawn
        # with the rectangle's program (both programs come from the same vertex shader, so
        # the attributes sit at the same locations; checked, else always cut).
        self._turned_group = group
        if kind == "point":
            turned = PointGroup(moving_program("rect"), blend)
            if same_attributes(group.program, turned.program):
                self._turned_group = turned
            else:
                group = turned
        self._picture_group = PictureGroup(look, parent=group) if look.image is not None else None
        # A batch of its own means a vertex domain of its own: the numpy views below point
        # into the domain's buffers, which move whenever that domain grows, so no other
        # bucket may ever make it grow behind this one's back.
        self.batch = pyglet.graphics.Batch()
        self.group = group
        self.indices: np.ndarray[Any, Any] = np.zeros(0, dtype=np.intp)
        self.count = 0
        self.capacity = 0
        self.start: int | None = None
        self.vertex_list: Any = None
        self.turning = False
        self._alpha = 0.0
        self._extrapolate = False
        self._allocate(64)

    def _allocate(self, capacity: int) -> None:
        if self.vertex_list is not None:
            self.vertex_list.delete()
        self.capacity = capacity
        self.vertex_list = self.group.program.vertex_list(
            capacity, GL_POINTS, batch=self.batch, group=self.group,
            previous=("f", [0.0] * (capacity * 3)),
            current=("f", [0.0] * (capacity * 3)),
            turn=("f", [0.0] * capacity),
            colors=("Bn", list(self.look.color) * capacity),
            size=("f", list(self.size) * capacity),
        )
        self._previous_buffer, self._previous = array_view(self.vertex_list, "previous", capacity, 3)
        self._current_buffer, self._current = array_view(self.vertex_list, "current", capacity, 3)
        self._turn_buffer, self._turns = array_view(self.vertex_list, "turn", capacity, 1)
        self.turning = False

    def rows(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """This bucket's rows of ``previous`` and ``current`` in its vertex buffer (float32, ``count`` by 3).

        Where the bucket holds every drawn entity in order, the renderer gathers straight
        into them (then calls ``taken``): no copy between the entities and the GPU buffer.
        """
        return self._previous[:self.count], self._current[:self.count]

    def take(self, previous: np.ndarray[Any, Any], current: np.ndarray[Any, Any]) -> None:
        """Copy this bucket's rows of the gathered motion into its vertex buffer (once per tick)."""
        count = self.count
        if count == 0:
            return
        if self.start is None:
            rows_previous, rows_current = previous[self.indices], current[self.indices]
        else:
            rows_previous = previous[self.start:self.start + count]
            rows_current = current[self.start:self.start + count]
        self._previous[:count] = rows_previous
        self._current[:count] = rows_current
        self._settle(rows_previous[:, 2], rows_current[:, 2])

    def taken(self) -> None:
        """The gather wrote ``rows()``: work out the turns and upload (once per tick)."""
        if self.count:
            previous, current = self.rows()
            self._settle(previous[:, 2], current[:, 2])

    def _settle(self, previous_angle: np.ndarray[Any, Any], current_angle: np.ndarray[Any, Any]) -> None:
        """The turns, from the gathered angles (in double precision, whatever the gather's type), and the upload."""
        count = self.count
        turning = False
        if current_angle.any() or previous_angle.any():  # else nobody is turned: every turn would be 0.0
            # The short way round: turning from 350 to 10 degrees passes through 0.
            turn = np.subtract(current_angle, previous_angle, dtype=np.float64)
            turn += 180.0
            turn %= 360.0
            turn -= 180.0
            turns = self._turns[:count]
            turns[:] = turn
            angle = self._current[:count, 2]
            turning = bool((np.any(angle) and np.any(angle % 360.0)) or np.any(turns))
            if turning:
                self._turn_buffer.invalidate_region(self.vertex_list.start, count)
        self.turning = turning
        self._previous_buffer.invalidate_region(self.vertex_list.start, count)
        self._current_buffer.invalidate_region(self.vertex_list.start, count)

    def write(self, alpha: float, extrapolate: bool) -> None:
        """Draw the next frame ``alpha`` into the tick (the shader interpolates: nothing is written)."""
        self._alpha = alpha
        self._extrapolate = extrapolate

    def draw(self) -> None:
        """Draw the live slots only (``glDrawArrays`` over [0, count))."""
        if not self.count:
            return
        group = self._turned_group if self.turning else self.group
        group.set_state()
        program = group.program
        program["alpha"] = self._alpha
        # The angle's weight in double precision, rounded once, as the CPU worked it out.
        program["turn_weight"] = self._alpha if self._extrapolate else self._alpha - 1.0
        program["extrapolate"] = self._extrapolate
        program["turning"] = self.turning
        if self._picture_group is not None:
            self._picture_group.set_state()
        draw_points(self.vertex_list, self.count)
        group.unset_state()

    def delete(self) -> None:
        """Release the bucket's vertex buffer."""
        self.vertex_list.delete()
