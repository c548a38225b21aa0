"""Look: how an entity is drawn, declared without touching pyglet.

Game logic stays headless, so an entity says what it looks like with a plain value and
the renderer (``engine.render``) turns that into vertices::

    class Skeleton(Entity):
        look = Look.rect((10, 10), (230, 230, 210))

    class Score(Entity):
        look = Look.caption("Score: 0", 18, layer=1)

A look can be replaced at any time, on the class or on one instance
(``self.look = Look(text=f"Score: {self.points}")``), and the next frame shows the new
one; ``self.look = None`` hides the entity. A look set on one instance is state, like a
buffered field (``engine.buffering.shown``): saved, rolled back, in the state hash.
Entities of the same look are drawn together from one vertex buffer; higher ``layer``
numbers are drawn on top. ``Part`` is one more look drawn with an entity, at an offset
(an entity's ``parts``: a health bar, a turret).

A picture's PNG header is read when its look is made (headless): a missing or damaged
picture is refused there, by name, and the picture's size is the look's box.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Literal

from engine.deprecation import MOVED_REMOVED_IN, warn_deprecated
from engine.disk.png import MAX_PICTURE_SIDE, PictureError, png_size
from engine.messages import shown, shown_name

__all__ = ["MAX_PARTS", "Look", "Part", "checked_parts"]

MAX_SIZE = 100_000.0
"""The largest side of a look, in pixels: far beyond any window, far below what breaks a vertex buffer."""
MAX_FRAMES = 65_536
"""The most frames ``Look.frames`` cuts from one sprite sheet."""
MAX_FONT_SIZE = 1000.0
"""The largest font size of a text look."""


def _pixels(value: object, largest: float) -> bool:
    """Whether ``value`` is a size in pixels: a real number (not a bool), finite, above 0, at most ``largest``."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and 0 < value <= largest)

Shape = Literal["square", "circle", "diamond", "image", "text"]
SHAPES = ("square", "circle", "diamond", "image", "text")
AnchorX = Literal["left", "center", "right"]
AnchorY = Literal["bottom", "center", "top"]
_ANCHORS_X = ("left", "center", "right")
_ANCHORS_Y = ("bottom", "center", "top")


@dataclass(frozen=True)
class Look:
    """A shape (``"square"``, ``"circle"`` or ``"diamond"``), a size in pixels, an RGB(A) colour and a layer.

    One factory per kind says only what that kind takes: ``Look.rect``, ``Look.circle``,
    ``Look.diamond``, ``Look.picture`` and ``Look.caption`` (text); ``Look.frames`` cuts a
    sprite sheet. The constructor takes every option, as before.

    ``size`` is ``(width, height)`` (or one number for both), centred on the entity's
    position and turned by its ``angle``. For a picture, give ``image`` (the path of a
    PNG): the shape becomes ``"image"``, ``size`` defaults to the picture's own (read
    from its header when the look is made, so a missing or damaged picture is refused
    then, by name) and ``color`` tints it (white keeps its colours). For text, give ``text``: the shape
    becomes ``"text"``, ``size`` is the font size (default 16) and the text is centred on
    the entity (``anchor_x``: ``"left"``, ``"center"`` or ``"right"``; ``anchor_y``:
    ``"bottom"``, ``"center"`` or ``"top"`` say which point of the text sits there instead).
    ``layer`` orders drawing: higher layers on top (the HUD is always above).
    ``screen=True`` puts the entity in window coordinates (bottom-left origin) above
    every world layer, where no camera moves it: a score, a health bar. ``region=(left,
    top, width, height)`` draws only that part of the picture, in its pixels from its
    top-left corner as an image editor shows them (``size`` then defaults to the
    region's); ``Look.frames`` cuts a whole sprite sheet into such looks. Looks are
    values: equal looks (the region included) share a vertex buffer.
    """

    shape: Shape = "square"
    size: tuple[float, float] | float | None = None
    color: tuple[int, ...] = (255, 255, 255, 255)
    image: str | os.PathLike[str] | None = None  # kept as a str: a Path becomes its string
    text: str | None = None
    layer: int = 0
    screen: bool = False
    anchor_x: AnchorX = "center"
    anchor_y: AnchorY = "center"
    region: tuple[int, int, int, int] | None = None

    def __post_init__(self) -> None:
        if self.region is not None:
            self._check_region()
        if isinstance(self.layer, bool) or not isinstance(self.layer, int):
            raise TypeError(f"Look layer must be an int (higher layers draw on top), got {shown(self.layer)}")
        if not isinstance(self.screen, bool):
            raise TypeError(f"Look screen must be True (window coordinates) or False (the world), "
                            f"got {shown(self.screen)}")
        for name, value, allowed in (("anchor_x", self.anchor_x, _ANCHORS_X), ("anchor_y", self.anchor_y, _ANCHORS_Y)):
            if not (isinstance(value, str) and value in allowed):
                raise ValueError(f"Look {name} must be one of {', '.join(allowed)}, got {shown(value)}")
        if (self.anchor_x, self.anchor_y) != ("center", "center") and self.text is None:
            raise ValueError(f"Look anchor_x/anchor_y place text; a {self.shape} is centred on its entity "
                             f"(got anchor_x={shown(self.anchor_x)}, anchor_y={shown(self.anchor_y)})")
        if (self.text is not None or self.image is not None) and self.shape not in ("square", "text", "image"):
            # A text or a picture has no shape: 0.3 silently dropped it; say so until 0.6 refuses it.
            kind, factory = ("text", f"Look.caption({shown(self.text, 30)}, ...)") if self.text is not None else (
                "picture", f"Look.picture({shown(self.image, 30)}, ...)")
            warn_deprecated(f"a {kind} Look with shape={shown(self.shape)} (the shape is ignored)",
                            f"{factory} with no shape", stacklevel=4)
        if self.text is not None:
            if not isinstance(self.text, str):
                raise TypeError(f"Look text must be a string, got {shown(self.text)}")
            if self.image is not None:
                raise ValueError("a Look is a picture or a text, not both")
            object.__setattr__(self, "shape", "text")
            font_size = 16.0 if self.size is None else self.size
            if isinstance(font_size, tuple) or not _pixels(font_size, MAX_FONT_SIZE):
                raise ValueError(f"a text Look's size is its font size, a number above 0, up to {MAX_FONT_SIZE:g}, "
                                 f"got {shown(self.size)}")
            object.__setattr__(self, "size", float(font_size))
            self._check_color()
            return
        if self.shape == "text":
            raise ValueError("Look shape 'text' needs text='what to write'")
        if isinstance(self.image, os.PathLike):
            object.__setattr__(self, "image", os.fspath(self.image))  # a Path from __file__ is the usual way
        if self.image is not None:
            if not isinstance(self.image, str) or not self.image or "\0" in self.image:
                raise ValueError(f"Look image must be the path of a picture, got {shown(self.image)}")
            object.__setattr__(self, "shape", "image")
            self._check_picture()
        elif self.shape == "image":
            raise ValueError("Look shape 'image' needs image='path/to/picture.png'")
        if self.shape not in SHAPES:
            raise ValueError(f"Look shape must be one of {', '.join(SHAPES)}, got {shown(self.shape)}")
        if self.size is None and self.image is None:
            object.__setattr__(self, "size", (8.0, 8.0))
        size = self.size
        if isinstance(size, (int, float)) and _pixels(size, MAX_SIZE):
            size = (float(size), float(size))
        if size is not None and not (isinstance(size, tuple) and len(size) == 2
                                     and all(_pixels(side, MAX_SIZE) for side in size)):
            raise ValueError(f"Look size must be a number of pixels up to {MAX_SIZE:g} or (width, height) of them, "
                             f"got {shown(self.size)}")
        if size is not None:
            object.__setattr__(self, "size", (float(size[0]), float(size[1])))
        self._check_color()

    def _check_picture(self) -> None:
        """Read the picture's size from its PNG header now (headless), so a missing or damaged
        picture is refused where the look is made, by name, not first when it is drawn; and
        a picture without ``size`` or ``region`` has its own size as its box."""
        assert isinstance(self.image, str)
        try:
            width, height = png_size(self.image, "the picture")
        except PictureError as error:
            hint = ""
            if not os.path.isabs(self.image) and not os.path.exists(self.image):
                hint = (f" (a relative path is read from the working directory, {shown_name(os.getcwd())}: "
                        f"build it from the game file's place, Path(__file__).parent / "
                        f"{shown(os.path.basename(self.image), 60)})")
            raise PictureError(f"{error}{hint}") from None
        region = self.region
        if region is not None:
            left, top, region_width, region_height = region
            if left + region_width > width or top + region_height > height:
                raise ValueError(f"the region {region} (left, top, width, height) of the picture "
                                 f"{shown_name(self.image)} goes past its {width}x{height} pixels")
        elif self.size is None:
            object.__setattr__(self, "size", (float(width), float(height)))

    def _check_region(self) -> None:
        region = self.region
        if self.image is None:
            raise ValueError(f"Look region cuts a part of a picture; give image='sheet.png' too "
                             f"(got region={shown(region)})")
        if not (isinstance(region, (tuple, list)) and len(region) == 4
                and all(type(part) is int for part in region)):
            raise ValueError(f"Look region must be (left, top, width, height) in whole pixels, got {shown(region)}")
        left, top, width, height = region
        if left < 0 or top < 0 or width <= 0 or height <= 0 or max(left + width, top + height) > MAX_PICTURE_SIDE:
            raise ValueError(f"Look region (left, top, width, height) must lie inside a picture (left and top "
                             f"from 0, width and height above 0), got {shown(region)}")
        object.__setattr__(self, "region", (left, top, width, height))
        if self.size is None:
            object.__setattr__(self, "size", (float(width), float(height)))

    @classmethod
    def rect(cls, size: tuple[float, float] | float = 8.0, color: tuple[int, ...] = (255, 255, 255, 255), *,
             layer: int = 0, screen: bool = False) -> Look:
        """A filled rectangle ``size=(width, height)`` pixels (or one number for a square), centred on its
        entity and turned by its angle (the ``"square"`` shape)."""
        return cls("square", size, color, layer=layer, screen=screen)

    @classmethod
    def circle(cls, size: tuple[float, float] | float = 8.0, color: tuple[int, ...] = (255, 255, 255, 255), *,
               layer: int = 0, screen: bool = False) -> Look:
        """A filled circle ``size`` pixels across (``(width, height)``: an ellipse), centred on its entity."""
        return cls("circle", size, color, layer=layer, screen=screen)

    @classmethod
    def diamond(cls, size: tuple[float, float] | float = 8.0, color: tuple[int, ...] = (255, 255, 255, 255), *,
                layer: int = 0, screen: bool = False) -> Look:
        """A filled diamond ``size=(width, height)`` pixels (or one number), centred on its entity and turned
        by its angle."""
        return cls("diamond", size, color, layer=layer, screen=screen)

    @classmethod
    def picture(cls, image: str | os.PathLike[str], size: tuple[float, float] | float | None = None,
                color: tuple[int, ...] = (255, 255, 255, 255), *, region: tuple[int, int, int, int] | None = None,
                layer: int = 0, screen: bool = False) -> Look:
        """The PNG ``image`` (a path), its own size unless ``size`` is given, tinted by ``color``; ``region=(left,
        top, width, height)`` draws a part of it. Its header is read now, so a bad picture is refused here."""
        return cls("image", size, color, image=image, region=region, layer=layer, screen=screen)

    @classmethod
    def caption(cls, text: str, size: float = 16.0, color: tuple[int, ...] = (255, 255, 255, 255), *,
                anchor_x: AnchorX = "center", anchor_y: AnchorY = "center", layer: int = 0,
                screen: bool = False) -> Look:
        """The ``text``, at font size ``size``, centred on its entity (``anchor_x``/``anchor_y`` say which point
        of the text sits there instead). A text has no shape: the factory takes none. (Named apart from the
        GUI widget ``engine.Label``, an entity with its own input, which a look is not.)"""
        return cls("text", size, color, text=text, anchor_x=anchor_x, anchor_y=anchor_y, layer=layer, screen=screen)

    @classmethod
    def label(cls, text: str, size: float = 16.0, color: tuple[int, ...] = (255, 255, 255, 255), *,
              anchor_x: AnchorX = "center", anchor_y: AnchorY = "center", layer: int = 0, screen: bool = False) -> Look:
        """Deprecated (until 0.6): ``Look.caption``, the same text look; the name is the GUI widget ``Label``'s."""
        warn_deprecated("Look.label", "Look.caption", removed_in=MOVED_REMOVED_IN)
        return cls.caption(text, size, color, anchor_x=anchor_x, anchor_y=anchor_y, layer=layer, screen=screen)

    @classmethod
    def frames(cls, image: str | os.PathLike[str], frame_size: tuple[int, int] | int,
               **look_options: Any) -> list[Look]:
        """The frames of the sprite sheet ``image``, each ``frame_size=(width, height)`` pixels (or one number).

        Left to right, top row first, as a sheet is read: an animation is
        ``self.look = WALK[(world.tick_count // 6) % len(WALK)]``. ``look_options`` are
        the Look's own (``color``, ``layer``, ``size``, ``screen``...); the size defaults
        to the frame's. Only the sheet's PNG header is read (headless, no pyglet); a sheet
        that is not a whole number of frames is refused in one line naming it and both sizes.
        """
        for option in ("image", "region", "text"):
            if option in look_options:
                raise TypeError(f"Look.frames sets each frame's {option} itself; "
                                f"got {option}={shown(look_options[option])}")
        if type(frame_size) is int:
            frame_size = (frame_size, frame_size)
        if isinstance(image, os.PathLike):
            image = os.fspath(image)
        if not (isinstance(frame_size, (tuple, list)) and len(frame_size) == 2
                and all(type(side) is int for side in frame_size)):
            raise ValueError(f"Look.frames frame_size must be (width, height) in whole pixels, got {shown(frame_size)}")
        frame_width, frame_height = frame_size
        if not isinstance(image, str) or not image or "\0" in image:
            raise ValueError(f"Look.frames image must be the path of a PNG sprite sheet, got {shown(image)}")
        name = shown_name(image)
        if frame_width <= 0 or frame_height <= 0:
            raise ValueError(f"the sprite sheet {name}: a frame must be at least 1x1 pixels, "
                             f"got {frame_width}x{frame_height}")
        width, height = png_size(image, "the sprite sheet")
        if frame_width > width or frame_height > height:
            raise ValueError(f"the sprite sheet {name} is {width}x{height}, smaller than one "
                             f"{frame_width}x{frame_height} frame")
        if width % frame_width or height % frame_height:
            raise ValueError(f"the sprite sheet {name} is {width}x{height}, not a whole number of "
                             f"{frame_width}x{frame_height} frames")
        if (width // frame_width) * (height // frame_height) > MAX_FRAMES:
            raise ValueError(f"the sprite sheet {name} cut into {frame_width}x{frame_height} frames makes "
                             f"{(width // frame_width) * (height // frame_height):,} frames, more than "
                             f"{MAX_FRAMES:,}")
        return [cls(image=image, region=(left, top, frame_width, frame_height), **look_options)
                for top in range(0, height, frame_height) for left in range(0, width, frame_width)]

    def _check_color(self) -> None:
        color = self.color
        # Strict types: True is not 1, 254.9 is not a colour component, a string is not a colour.
        if not (isinstance(color, (tuple, list)) and len(color) in (3, 4)
                and all(type(part) is int and 0 <= part <= 255 for part in color)):
            raise ValueError(f"Look color must be 3 or 4 whole numbers from 0 to 255, got {shown(self.color)}")
        color = tuple(color) if len(color) == 4 else (*color, 255)
        object.__setattr__(self, "color", color)

    @property
    def box(self) -> tuple[float, float] | None:
        """The look's (width, height) in pixels (a picture's own size when none was given), or
        ``None`` for text, whose size only drawing knows."""
        if self.shape == "text" or not isinstance(self.size, tuple):
            return None
        return self.size


DEFAULT_LOOK = Look()
"""The marker of an entity that declares no look: it draws nothing (controllers need no fake look).

``Entity.look`` defaults to this very object; the renderer and collisions treat it, by
identity, as ``None``. (``Entity.look = None`` is the intent; see the renderer.)
"""


def resolved(look: Look | None) -> Look | None:
    """``look``, or ``None`` for no look at all (``None`` or the class default)."""
    return None if look is DEFAULT_LOOK else look


MAX_PARTS = 64
"""The most parts one entity shows (a health bar, a turret, a label: a few, not a crowd)."""
MAX_OFFSET = 1_000_000.0
"""The farthest a part may sit from its entity, in pixels, along either axis."""


@dataclass(frozen=True)
class Part:
    """One more look an entity shows, drawn with it: a health bar over an enemy, a turret on a base.

    ``offset=(dx, dy)`` is where the part sits from the entity's position, in pixels;
    with ``turns=True`` (the default) the offset and the part turn with the entity's
    ``angle`` (a gun on a ship), with ``turns=False`` neither does (a health bar stays
    level above its enemy). A part moves and turns with its entity's interpolated position
    and angle, so it never lags a frame behind it. Its look says its layer (within a layer,
    parts draw after the entities' own looks, each entity's in their order) and
    whether it is in window coordinates (``screen=True``: a widget's label), like any look.

    Parts are appearance, not bodies: collision queries see the entity's ``hitbox`` or
    look only. An entity's ``parts`` is a tuple of them, set on its class or on one
    instance like ``look`` (and, set on an instance, is state: saved, rolled back).
    """

    look: Look
    offset: tuple[float, float] = (0.0, 0.0)
    turns: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.look, Look):
            raise TypeError(f"Part look must be a Look, got {shown(self.look)}")
        offset = self.offset
        if not (isinstance(offset, (tuple, list)) and len(offset) == 2 and _offset(offset[0]) and _offset(offset[1])):
            raise ValueError(f"Part offset must be (dx, dy), two finite numbers of pixels up to {MAX_OFFSET:g} "
                             f"away, got {shown(offset)}")
        if type(offset) is not tuple or type(offset[0]) is not float or type(offset[1]) is not float:
            object.__setattr__(self, "offset", (float(offset[0]), float(offset[1])))
        if not isinstance(self.turns, bool):
            raise TypeError(f"Part turns must be True (the part turns with its entity) or False, "
                            f"got {shown(self.turns)}")


def _offset(value: object) -> bool:
    """Whether ``value`` is one coordinate of a part's offset: a finite number (not a bool) within ``MAX_OFFSET``."""
    return (type(value) is float or (isinstance(value, (int, float)) and not isinstance(value, bool))) and (
        -MAX_OFFSET <= value <= MAX_OFFSET)  # NaN fails both comparisons; infinity the bound


def checked_parts(owner: str, value: Any) -> tuple[Part, ...]:
    """``value`` as an entity's parts (a tuple of ``Part``; ``None`` or ``()`` for none); ``owner`` names it."""
    if value is None:
        return ()
    if isinstance(value, Part):
        raise TypeError(f"{owner}.parts is a tuple of Parts: write ({shown(value, 40)},) for one")
    if not (isinstance(value, (tuple, list)) and all(isinstance(part, Part) for part in value)):
        raise TypeError(f"{owner}.parts must be a tuple of Part (or None), got {shown(value)}")
    if len(value) > MAX_PARTS:
        raise ValueError(f"{owner}.parts holds {len(value)} parts; an entity shows at most {MAX_PARTS}")
    return tuple(value)
