"""How framebuffer looks: the scene's current framebuffer, scaled up with square pixels."""

from __future__ import annotations

from typing import Any

from engine import World
from games.framebuffer.logic import SCALE, Canvas

BACKGROUND = (0, 0, 0)


class FramebufferView:
    """Uploads ``scene.buffer`` into one texture each frame and draws it scaled, unsmoothed."""

    def __init__(self, world: World) -> None:
        import pyglet
        from pyglet import gl

        self.world = world
        self.extrapolate = False
        self.entity_count = 1
        canvas = world.entities_of(Canvas)[0]
        frame = canvas.scene.buffer
        self._texture: Any = pyglet.image.Texture.create(frame.width, frame.height, internalformat=gl.GL_RGBA8)
        gl.glBindTexture(self._texture.target, self._texture.id)
        # Nearest-neighbour: each framebuffer pixel becomes a crisp SCALE x SCALE square.
        gl.glTexParameteri(self._texture.target, gl.GL_TEXTURE_MAG_FILTER, gl.GL_NEAREST)
        gl.glTexParameteri(self._texture.target, gl.GL_TEXTURE_MIN_FILTER, gl.GL_NEAREST)

    def draw(self, alpha: float) -> None:
        """Show the last complete picture (the scene's current buffer; never the one being drawn)."""
        import pyglet

        frame = self.world.entities_of(Canvas)[0].scene.buffer
        # The framebuffer's row 0 is the top; a negative pitch makes pyglet flip it upright.
        image = pyglet.image.ImageData(frame.width, frame.height, "L", bytes(frame.pixels), pitch=-frame.width)
        self._texture.blit_into(image, 0, 0, 0)
        self._texture.blit(0, 0, width=frame.width * SCALE, height=frame.height * SCALE)

    def delete(self) -> None:
        """Release the texture."""
        self._texture.delete()


def make_view(world: World) -> FramebufferView:
    """The view the runner uses for this game."""
    return FramebufferView(world)
