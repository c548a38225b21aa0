"""Drawing tile maps: each tile layer from one vertex buffer of textured quads.

A map of 900 tiles is not 900 entities: each tile layer is written once, when the map is
first drawn, into a vertex buffer of its own (two triangles per tile, texture coordinates
cut from the tileset's image), and every frame draws it with one call per tileset it
uses. Textures are sampled with nearest filtering and each tile's texture coordinates
are pulled a hundredth of a texel inside its cell, so zoomed or scrolled maps show
neither blur nor seams (a neighbour's edge bleeding in). Maps are static: the buffers
never change. Invisible layers (Tiled's eye) are not drawn, though their solid tiles
still collide.
"""

from __future__ import annotations

from typing import Any

import pyglet
from pyglet import gl

from engine.render.shaders import carrying_vertex, compiled_program
from engine.render.sprites import load_texture
from engine.tiles.model import TilesetData
from engine.tiles.tilemap import TileMap

__all__ = ["TileMapDrawing", "forget_tilesets"]

_VERTEX = carrying_vertex("vec2", "tex_coords", "uv")
_FRAGMENT = """#version 330 core
in vec2 uv;
out vec4 final_colors;
uniform sampler2D tiles;
void main() {
    final_colors = texture(tiles, uv);
}
"""
_INSET = 0.01  # of a texel: sampling exactly on a cell's edge must not pick the neighbour's texel

_textures: dict[str, Any] = {}


def _tile_program() -> Any:
    return compiled_program("tiles", _VERTEX, _FRAGMENT)


def forget_tilesets() -> None:
    """Load every tileset image again when next drawn: a live reload after one changed (``engine.studio``)."""
    _textures.clear()


def _texture(tileset: TilesetData) -> Any:
    """The tileset's image as a texture with nearest filtering (loaded once per image per process)."""
    key = str(tileset.image)
    texture = _textures.get(key)
    if texture is None:
        texture = load_texture(key, f"the tileset image {key!r} of {tileset.name!r}")
        gl.glBindTexture(texture.target, texture.id)
        gl.glTexParameteri(texture.target, gl.GL_TEXTURE_MIN_FILTER, gl.GL_NEAREST)
        gl.glTexParameteri(texture.target, gl.GL_TEXTURE_MAG_FILTER, gl.GL_NEAREST)
        _textures[key] = texture
    return texture


class _TilesetGroup(pyglet.graphics.ShaderGroup):
    """Binds the tile shader and one tileset's texture, with blending for transparent pixels."""

    def __init__(self, program: Any, texture: Any) -> None:
        super().__init__(program)
        self.texture = texture

    def set_state(self) -> None:
        super().set_state()
        gl.glActiveTexture(gl.GL_TEXTURE0)
        gl.glBindTexture(self.texture.target, self.texture.id)
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)

    def unset_state(self) -> None:
        gl.glDisable(gl.GL_BLEND)
        super().unset_state()


class TileMapDrawing:
    """The GPU side of one spawned ``TileMap``: one batch (one vertex buffer) per visible tile layer."""

    def __init__(self, tile_map: TileMap) -> None:
        self.tile_map = tile_map
        program = _tile_program()
        data = tile_map.data
        groups = {tileset.first_gid: _TilesetGroup(program, _texture(tileset)) for tileset in data.tilesets}
        self.batches: list[Any] = []
        self._lists: list[Any] = []
        width, height = float(data.tile_width), float(data.tile_height)
        for layer in data.layers:
            if not layer.visible:
                continue
            quads: dict[int, tuple[list[float], list[float]]] = {}
            for row, cells in enumerate(layer.cells):
                for column, gid in enumerate(cells):
                    if not gid:
                        continue
                    tileset = data.tileset_of(gid)
                    positions, coordinates = quads.setdefault(tileset.first_gid, ([], []))
                    left, bottom = column * width, row * height
                    right, top = left + width, bottom + height
                    positions += [left, bottom, right, bottom, right, top, left, bottom, right, top, left, top]
                    coordinates += _coordinates(tileset, gid - tileset.first_gid)
            if not quads:
                continue
            batch = pyglet.graphics.Batch()  # a domain, so a vertex buffer, of its own for the layer
            for first_gid, (positions, coordinates) in quads.items():
                self._lists.append(program.vertex_list(len(positions) // 2, gl.GL_TRIANGLES, batch=batch,
                                                       group=groups[first_gid], position=("f", positions),
                                                       tex_coords=("f", coordinates)))
            self.batches.append(batch)

    def draw(self) -> None:
        """Draw the layers, bottom first, under whatever view (camera) is set."""
        for batch in self.batches:
            batch.draw()

    def delete(self) -> None:
        """Release the vertex buffers (the textures stay, shared by every map of the same tileset)."""
        for vertex_list in self._lists:
            vertex_list.delete()
        self._lists = []
        self.batches = []


def _coordinates(tileset: TilesetData, tile_id: int) -> list[float]:
    """The six texture coordinates of a tile's two triangles (pyglet's textures have their origin bottom-left)."""
    left, top = tileset.region(tile_id)
    image_width, image_height = tileset.image_width, tileset.image_height
    u0 = (left + _INSET) / image_width
    u1 = (left + tileset.tile_width - _INSET) / image_width
    v1 = 1.0 - (top + _INSET) / image_height
    v0 = 1.0 - (top + tileset.tile_height - _INSET) / image_height
    return [u0, v0, u1, v0, u1, v1, u0, v0, u1, v1, u0, v1]
