"""The shaders that draw entities as point sprites: their sources, one program per kind of look.

Every entity is one point sprite; its vertex shader places and sizes it (interpolating
between the tick's two ends, for the renderer's buckets), and a fragment shader per kind
of look (square, rectangle, circle, diamond, picture) cuts the shape out of the sprite's
square, turned by the entity's angle. Kept apart from the buffers that
feed them (``sprites``, ``crowds``) because GLSL is its own language with its own
reasons, and both the renderer's buckets and the crowd layer draw with these programs.
"""

from __future__ import annotations

from typing import Any

import pyglet

__all__ = ["PointGroup", "carrying_vertex", "compiled_program", "moving_program", "quad_program", "same_attributes",
           "shader_program"]

# Both point-sprite vertex shaders (positions as drawn, and positions interpolated on the
# GPU) end alike: the sprite covers the look, grows with the camera's zoom, and hands the
# fragment shader what it cuts with. One text, so that a bucket's sprite and a crowd
# member's cannot drift apart; each shader puts ``position`` and ``angle`` before it.
_POINT_SPRITE_OUTPUTS = """flat out vec4 vertex_colors;
flat out vec2 vertex_size;
flat out vec2 vertex_turn;
flat out float vertex_extent;
uniform WindowBlock { mat4 projection; mat4 view; } window;
"""
_POINT_SPRITE_END = """    gl_Position = window.projection * window.view * vec4(position, 0.0, 1.0);
    // A turned shape needs the sprite to cover its diagonal; an unturned one only its larger side.
    float extent = angle == 0.0 ? max(size.x, size.y) : length(size);
    // A camera's zoom scales the view; the sprite must grow with it (cut in the look's own pixels).
    gl_PointSize = extent * length(window.view[0].xyz);
    vertex_turn = angle == 0.0 ? vec2(1.0, 0.0) : vec2(cos(radians(angle)), sin(radians(angle)));
    vertex_colors = colors;
    vertex_size = size;
    vertex_extent = extent;
}
"""
_VERTEX_SOURCE = """#version 330 core
in vec2 position;
in vec4 colors;
in vec2 size;
in float angle;
""" + _POINT_SPRITE_OUTPUTS + """void main() {
""" + _POINT_SPRITE_END
# The renderer's buckets draw moving entities: both ends of the tick are in the vertex
# buffer (uploaded once per tick) and the vertex shader interpolates them by ``alpha``, a
# uniform, so a frame between two ticks uploads nothing. The arithmetic is the renderer's
# former numpy expression, operation for operation in float32 (``previous + (current -
# previous) * alpha``; extrapolated ``current + (current - previous) * alpha``; the angle
# ``turn * turn_weight + angle``, its weight ``alpha - 1`` or ``alpha`` worked out in double
# precision as before), and ``precise`` where GL has it (GL_ARB_gpu_shader5, core in GL 4.0)
# keeps a GPU compiler from fusing it into a multiply-add that rounds once: the same bits
# as the CPU drew. ``turn``, the short way round from the previous angle, comes worked out
# in double precision with the positions; ``turning`` false draws every sprite unturned.
_MOVING_VERTEX_SOURCE = """#version 330 core
#extension GL_ARB_gpu_shader5 : enable
#ifdef GL_ARB_gpu_shader5
#define EXACT precise
#else
#define EXACT
#endif
in vec3 previous;
in vec3 current;
in float turn;
in vec4 colors;
in vec2 size;
""" + _POINT_SPRITE_OUTPUTS + """uniform float alpha;
uniform float turn_weight;
uniform bool extrapolate;
uniform bool turning;
void main() {
    EXACT vec2 moved = (current.xy - previous.xy) * alpha;
    EXACT vec2 position = (extrapolate ? current.xy : previous.xy) + moved;
    EXACT float angle = turning ? turn * turn_weight + current.z : 0.0;
""" + _POINT_SPRITE_END
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
             # ``region`` is the part of the texture drawn (a sprite sheet's frame; all of it
             # otherwise), kept half a texel inside so a scaled frame never shows its neighbour.
             " vec2 uv = region.xy + vec2(q.x / vertex_size.x + 0.5, q.y / vertex_size.y + 0.5) * region.zw;"
             " vec2 half_texel = 0.5 / vec2(textureSize(picture, 0));"
             " color *= texture(picture, clamp(uv, region.xy + half_texel, region.xy + region.zw - half_texel));"
             " if (color.a == 0.0) discard;",
}
_TURN = ("vec2 up = vec2(p.x, -p.y);"
         " vec2 q = vec2(vertex_turn.x * up.x + vertex_turn.y * up.y, vertex_turn.x * up.y - vertex_turn.y * up.x);")
# Both kinds of fragment shader (point sprites, quads) cut with the same ``_CUT`` texts, so
# they share the names those read: INPUTS declares what the vertex shader hands on, PLACE
# finds the fragment in the sprite (``p``) or the shape (``q``), CUT cuts.
_FRAGMENT_SOURCE = """#version 330 core
INPUTS
out vec4 final_colors;
uniform sampler2D picture;
uniform vec4 region;
void main() {
    vec2 half_size = vertex_size * 0.5;
    PLACE
    vec4 color = vertex_colors;
    CUT
    final_colors = color;
}
"""
_POINT_INPUTS = """flat in vec4 vertex_colors;
flat in vec2 vertex_size;
flat in vec2 vertex_turn;
flat in float vertex_extent;"""
_POINT_PLACE = "vec2 p = (gl_PointCoord - 0.5) * vertex_extent;"

# Looks too large for a point sprite are two triangles each (``quads``): the vertex shader
# turns each corner; the fragment gets its place in the shape's own frame (y up), so the
# same cuts apply with nothing to turn back.
_QUAD_VERTEX_SOURCE = """#version 330 core
in vec2 position;
in vec2 corner;
in vec4 colors;
in vec2 size;
in float angle;
out vec2 shape_point;
flat out vec4 vertex_colors;
flat out vec2 vertex_size;
uniform WindowBlock { mat4 projection; mat4 view; } window;
void main() {
    vec2 local = corner * size;
    float c = cos(radians(angle));
    float s = sin(radians(angle));
    vec2 turned = vec2(c * local.x - s * local.y, s * local.x + c * local.y);
    gl_Position = window.projection * window.view * vec4(position + turned, 0.0, 1.0);
    shape_point = local;
    vertex_colors = colors;
    vertex_size = size;
}
"""
_QUAD_INPUTS = """in vec2 shape_point;
flat in vec4 vertex_colors;
flat in vec2 vertex_size;"""
_QUAD_PLACE = "vec2 q = shape_point;"


def _fragment(inputs: str, place: str, cut: str) -> str:
    return _FRAGMENT_SOURCE.replace("INPUTS", inputs).replace("PLACE", place).replace("CUT", cut)


_POINT_FRAGMENTS = {kind: _fragment(_POINT_INPUTS, _POINT_PLACE, cut.replace("TURN", _TURN))
                    for kind, cut in _CUT.items()}
# A quad covers exactly its turned rectangle: squares need no cut at all.
_QUAD_FRAGMENTS = {kind: _fragment(_QUAD_INPUTS, _QUAD_PLACE, "" if kind in ("point", "rect") else
                                   cut.replace("TURN", "")) for kind, cut in _CUT.items()}

_programs: dict[str, Any] = {}


def carrying_vertex(kind: str, carried: str, out: str) -> str:
    """A vertex shader that places ``position`` in the window and hands one attribute on unchanged.

    The HUD's graph carries each vertex's colour, a tile map each corner's texture
    coordinates: both are drawn where the window's projection and view put them, so that
    part is written once, here, beside the engine's other shaders.
    ``carrying_vertex("vec4", "colors", "vertex_colors")`` reads ``in vec4 colors`` and
    writes ``out vec4 vertex_colors``.
    """
    return f"""#version 330 core
in vec2 position;
in {kind} {carried};
out {kind} {out};
uniform WindowBlock {{ mat4 projection; mat4 view; }} window;
void main() {{
    gl_Position = window.projection * window.view * vec4(position, 0.0, 1.0);
    {out} = {carried};
}}
"""


def compiled_program(key: str, vertex: str, fragment: str) -> Any:
    """The shader program of ``key``, compiled from the two sources when first asked for (once per process)."""
    program = _programs.get(key)
    if program is None:
        from pyglet.graphics.shader import Shader, ShaderProgram

        program = _programs[key] = ShaderProgram(Shader(vertex, "vertex"), Shader(fragment, "fragment"))
    return program


def shader_program(kind: str) -> Any:
    """The shader program for one kind of look, from positions and angles as drawn (compiled once per process).

    The crowd layer draws with it (a crowd writes its members' drawn positions each frame).
    """
    return compiled_program(kind, _VERTEX_SOURCE, _POINT_FRAGMENTS[kind])


def moving_program(kind: str) -> Any:
    """The shader program for one kind of look that interpolates on the GPU (compiled once per process).

    Its vertices hold both ends of the tick (``previous`` and ``current``: ``x, y, angle``)
    and the turn between them; the uniforms ``alpha``, ``turn_weight``, ``extrapolate`` and
    ``turning`` say where between them to draw (``sprites.Bucket`` sets them).
    """
    return compiled_program("moving " + kind, _MOVING_VERTEX_SOURCE, _POINT_FRAGMENTS[kind])


def quad_program(kind: str) -> Any:
    """The shader program for one kind of look drawn as quads (compiled once per process)."""
    return compiled_program("quad " + kind, _QUAD_VERTEX_SOURCE, _QUAD_FRAGMENTS[kind])


def same_attributes(first: Any, second: Any) -> bool:
    """Whether two programs read their vertex attributes from the same locations."""
    def layout(program: Any) -> dict[str, Any]:
        return {name: attribute["location"] for name, attribute in program.attributes.items()}
    return layout(first) == layout(second)


class PointGroup(pyglet.graphics.ShaderGroup):
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

