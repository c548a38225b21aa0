"""The widgets: ``Button``, ``Label``, ``Panel``, ``Slider`` and ``TextInput``.

Each is a ``Widget`` (``engine.gui.widget``): buffered state, updated from the tick's input
through ``engine.gui.routing``, drawn through the looks ``looks()`` lists. What one does for
the game is a flag it raises for one tick, which the game polls during the next:

* ``Button.clicked``: a press and release inside it, or Enter/Space/pad A while it has focus;
* ``Slider.changed``: its ``value`` moved (dragged, clicked, Left/Right while focused);
* ``TextInput.submitted``: Enter (or pad A) while it has focus; its ``text`` is the text typed.

Each draws as parts (``Part``: several looks per entity, at offsets from its centre): a body
whose colour follows its state, its text, a focus ring; ``appearance()`` is what it shows
for its current state, cached per state so that redrawing a menu allocates nothing.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, ClassVar

from engine.entity import buffered
from engine.gui.routing import ACTIVATE, Outcome
from engine.gui.widget import Style, Widget
from engine.input import keys
from engine.input.events import MAX_TEXT
from engine.look import Look, Part
from engine.messages import shown

__all__ = ["MAX_TEXT_LENGTH", "Button", "Label", "Panel", "Slider", "TextInput"]

MAX_TEXT_LENGTH = 10_000
"""The longest text a label, a button or a text field holds."""
_LEVELS = 10  # a widget's looks draw at layer * _LEVELS + level: panels, then bodies, then marks, then text
_PANEL, _BODY, _MARK, _TEXT = range(4)

Parts = tuple[Part, ...]


def _text(value: Any, who: str, name: str = "text") -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT_LENGTH:
        raise ValueError(f"{who} {name} must be a string of at most {MAX_TEXT_LENGTH} characters, got {shown(value)}")
    return value


def _number(value: Any, who: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{who} {name} must be a finite number, got {shown(value)}")
    return float(value)


@lru_cache(maxsize=4096)
def _box(width: float, height: float, color: tuple[int, ...], layer: int) -> Look:
    return Look("square", size=(width, height), color=color, screen=True, layer=layer)


@lru_cache(maxsize=4096)
def _words(text: str, font_size: float, color: tuple[int, ...], layer: int, anchor_x: str = "center") -> Look:
    return Look(text=text, size=font_size, color=color, screen=True, layer=layer, anchor_x=anchor_x)  # type: ignore[arg-type]


def _part(look: Look, dx: float = 0.0, dy: float = 0.0) -> Part:
    """A look at ``(dx, dy)`` from the widget's centre; level, as a widget never turns."""
    return Part(look, (dx, dy), turns=False)


def _ring(width: float, height: float, style: Style, layer: int) -> Parts:
    """A focus ring: four bars around a box (beside it, never under it: no drawing order to rely on)."""
    border = style.border
    across, up = _box(width + 2 * border, border, style.focus, layer), _box(border, height, style.focus, layer)
    return (_part(across, 0.0, (height + border) / 2), _part(across, 0.0, -(height + border) / 2),
            _part(up, -(width + border) / 2, 0.0), _part(up, (width + border) / 2, 0.0))


class Panel(Widget):
    """A plain box behind other widgets (a menu's, a dialog's): it stops the pointer, so nothing under it is clicked.

    Drawn below the other widgets of its ``layer``; a dialog over a menu takes a higher layer.
    """

    level: ClassVar[int] = _PANEL
    """Panels draw (and meet the pointer) below the other widgets of their layer."""

    def __init__(self, x: float = 0.0, y: float = 0.0, size: tuple[float, float] = (320.0, 240.0),
                 **options: Any) -> None:
        super().__init__(x, y, size, **options)

    def appearance(self) -> Parts:
        """The panel's box, in ``style.panel``."""
        if not self.visible:
            return ()
        width, height = self.size
        return (_part(_box(width, height, self.style.panel, self.layer * _LEVELS + _PANEL)),)


class Label(Widget):
    """A line of text at ``(x, y)``, centred (or ``anchor_x="left"`` or ``"right"`` of it); the pointer passes
    through it."""

    text = buffered("")
    anchor_x = buffered("center")
    stops_pointer: ClassVar[bool] = False

    def __init__(self, text: str = "", x: float = 0.0, y: float = 0.0, *, anchor_x: str = "center",
                 **options: Any) -> None:
        super().__init__(x, y, **options)
        self.text = _text(text, "Label")
        if anchor_x not in ("left", "center", "right"):
            raise ValueError(f"Label anchor_x must be left, center or right, got {shown(anchor_x)}")
        self.anchor_x = anchor_x
        self.refresh()

    def appearance(self) -> Parts:
        """The text, in ``style.text`` at ``style.font_size`` (nothing for no text)."""
        if not self.visible or not self.text:
            return ()
        style = self.style
        color = style.disabled_text if self.disabled else style.text
        return (_part(_words(self.text, style.font_size, color, self.layer * _LEVELS + _TEXT, self.anchor_x)),)


class Button(Widget):
    """A button: ``clicked`` is True for the tick after a click (press and release inside, or Enter/Space/pad A
    while focused). Hover, press and focus show in its looks; a disabled one is greyed and never clicks."""

    text = buffered("")
    clicked = buffered(False)
    interactive: ClassVar[bool] = True

    def __init__(self, text: str = "", x: float = 0.0, y: float = 0.0, size: tuple[float, float] = (160.0, 40.0),
                 **options: Any) -> None:
        super().__init__(x, y, size, **options)
        self.text = _text(text, "Button")
        self.refresh()

    def on_click(self, outcome: Outcome) -> None:
        """A click activates it."""
        outcome.activated = True

    def on_key(self, outcome: Outcome, key: int) -> None:
        """Enter, Space or pad A activate it."""
        if key in ACTIVATE:
            outcome.activated = True

    def apply(self, outcome: Outcome) -> None:
        """``clicked``: whether this tick's input clicked it."""
        self.clicked = outcome.activated

    def appearance(self) -> Parts:
        """Its body (normal, hovered, pressed or disabled colour), its text, and a focus ring when focused."""
        if not self.visible:
            return ()
        return _button_looks(self.style, self.size, self.text, self.layer, self.disabled,
                             self.pressed and self.hovered, self.hovered, self.focused)


@lru_cache(maxsize=1024)
def _button_looks(style: Style, size: tuple[float, float], text: str, layer: int, disabled: bool, pressed: bool,
                  hovered: bool, focused: bool) -> Parts:
    width, height = size
    body = (style.disabled if disabled else style.pressed if pressed else style.hover if hovered
            else style.background)
    parts: Parts = (_part(_box(width, height, body, layer * _LEVELS + _BODY)),)
    if text:
        parts += (_part(_words(text, style.font_size, style.disabled_text if disabled else style.text,
                               layer * _LEVELS + _TEXT)),)
    if focused and not disabled:
        parts += _ring(width, height, style, layer * _LEVELS + _MARK)
    return parts


class Slider(Widget):
    """A value from ``minimum`` to ``maximum``, dragged with the mouse or stepped with Left/Right (d-pad) when focused.

    ``step`` snaps it (0: any value; keys then move it by a twentieth of the range); Home
    and End go to the ends. ``changed`` is True for the tick after its value moved.
    """

    value = buffered(0.0)
    minimum = buffered(0.0)
    maximum = buffered(1.0)
    step = buffered(0.0)
    changed = buffered(False)
    interactive: ClassVar[bool] = True
    knob_width: ClassVar[float] = 12.0
    """The knob's width in pixels (its centre spans the slider's width)."""

    def __init__(self, x: float = 0.0, y: float = 0.0, size: tuple[float, float] = (200.0, 24.0), *,
                 minimum: float = 0.0, maximum: float = 1.0, value: float | None = None, step: float = 0.0,
                 **options: Any) -> None:
        super().__init__(x, y, size, **options)
        low, high = _number(minimum, "Slider", "minimum"), _number(maximum, "Slider", "maximum")
        if not low < high:
            raise ValueError(f"Slider minimum must be below maximum, got {shown(minimum)} and {shown(maximum)}")
        spacing = _number(step, "Slider", "step")
        if not 0 <= spacing <= high - low:
            raise ValueError(f"Slider step must be from 0 (any value) to the range ({high - low:g}), got {shown(step)}")
        self.minimum, self.maximum, self.step = low, high, spacing
        start = low if value is None else _number(value, "Slider", "value")
        if not low <= start <= high:
            raise ValueError(f"Slider value must be from {low:g} to {high:g}, got {shown(value)}")
        self.value = self._snapped(start, low, high, spacing)
        self.refresh()

    @staticmethod
    def _snapped(value: float, low: float, high: float, step: float) -> float:
        if step > 0:
            value = low + round((value - low) / step) * step
        # Twelve decimals: 0.1 * 3 reads back as 0.3, the same on every machine.
        return round(min(max(value, low), high), 12)

    @staticmethod
    def _limits(outcome: Outcome) -> tuple[float, float, float]:
        state = outcome.state
        return state["minimum"], state["maximum"], state["step"]

    def start_value(self, state: dict[str, Any]) -> Any:
        """The committed value."""
        return state["value"]

    def on_pointer(self, outcome: Outcome, x: float) -> None:
        """The value under window ``x`` (the knob's centre spans the slider's width)."""
        low, high, step = self._limits(outcome)
        width = outcome.state["size"][0]
        fraction = (x - (outcome.state["x"] - width / 2)) / width
        outcome.value = self._snapped(low + min(max(fraction, 0.0), 1.0) * (high - low), low, high, step)

    def on_step(self, outcome: Outcome, direction: int) -> bool:
        """Left/right move the value by a step (or a twentieth of the range)."""
        low, high, step = self._limits(outcome)
        outcome.value = self._snapped(outcome.value + direction * (step or (high - low) / 20), low, high, step)
        return True

    def on_key(self, outcome: Outcome, key: int) -> None:
        """Home and End go to the ends."""
        low, high, _step = self._limits(outcome)
        if key in (keys.HOME, keys.END):
            outcome.value = low if key == keys.HOME else high

    def apply(self, outcome: Outcome) -> None:
        """``value`` and ``changed``."""
        self.changed = outcome.value != outcome.state["value"]
        self.value = outcome.value

    @property
    def fraction(self) -> float:
        """How far along the value is, from 0.0 (``minimum``) to 1.0 (``maximum``)."""
        return (self.value - self.minimum) / (self.maximum - self.minimum)

    def appearance(self) -> Parts:
        """Its track, and its knob where the value is (highlighted when hovered, pressed or focused)."""
        if not self.visible:
            return ()
        return _slider_looks(self.style, self.size, self.fraction, self.layer, self.disabled,
                             self.hovered or self.pressed, self.focused, self.knob_width)


@lru_cache(maxsize=1024)
def _slider_looks(style: Style, size: tuple[float, float], fraction: float, layer: int, disabled: bool,
                  hot: bool, focused: bool, knob: float) -> Parts:
    width, height = size
    track = _box(width, max(2.0, height / 6), style.disabled if disabled else style.track, layer * _LEVELS + _BODY)
    color = style.disabled_text if disabled else style.focus if focused else style.hover if hot else style.knob
    return _part(track), _part(_box(knob, height, color, layer * _LEVELS + _MARK), (fraction - 0.5) * width)


class TextInput(Widget):
    """A one-line text field: focus it (click, Tab) and type; Backspace deletes, Enter submits.

    ``text`` holds at most ``max_length`` characters (what is typed beyond is dropped);
    ``submitted`` is True for the tick after Enter (or pad A) while focused. Typing goes
    at the end (there is no cursor to move); ``placeholder`` shows while it is empty.
    """

    text = buffered("")
    placeholder = buffered("")
    max_length = buffered(32)
    submitted = buffered(False)
    interactive: ClassVar[bool] = True

    def __init__(self, x: float = 0.0, y: float = 0.0, size: tuple[float, float] = (240.0, 36.0), *,
                 text: str = "", max_length: int = 32, placeholder: str = "", **options: Any) -> None:
        super().__init__(x, y, size, **options)
        if type(max_length) is not int or not 1 <= max_length <= MAX_TEXT_LENGTH:
            raise ValueError(f"TextInput max_length must be a whole number from 1 to {MAX_TEXT_LENGTH}, "
                             f"got {shown(max_length)}")
        self.max_length = max_length
        self.text = _text(text, "TextInput")[:max_length]
        self.placeholder = _text(placeholder, "TextInput", "placeholder")
        self.refresh()

    def start_value(self, state: dict[str, Any]) -> Any:
        """The committed text."""
        return state["text"]

    def on_text(self, outcome: Outcome, text: str) -> None:
        """Typed text goes at the end, up to ``max_length`` characters."""
        outcome.value = (outcome.value + text)[:outcome.state["max_length"]]

    def on_motion(self, outcome: Outcome, motion: int) -> None:
        """Backspace deletes the last character."""
        if motion == keys.MOTION_BACKSPACE:
            outcome.value = outcome.value[:-1]

    def on_key(self, outcome: Outcome, key: int) -> None:
        """Enter (or pad A) submits."""
        if key in (keys.RETURN, keys.NUM_ENTER, keys.PAD_A):
            outcome.activated = True

    def on_step(self, outcome: Outcome, direction: int) -> bool:
        """Left and right stay in the field (they would move a cursor): focus does not move."""
        return True

    def apply(self, outcome: Outcome) -> None:
        """``text`` and ``submitted``."""
        self.text = outcome.value
        self.submitted = outcome.activated

    def appearance(self) -> Parts:
        """Its field, its text (or placeholder) from the left, a caret and a focus ring while focused."""
        if not self.visible:
            return ()
        return _field_looks(self.style, self.size, self.text, self.placeholder, self.layer, self.disabled,
                            self.hovered, self.focused)


@lru_cache(maxsize=1024)
def _field_looks(style: Style, size: tuple[float, float], text: str, placeholder: str, layer: int, disabled: bool,
                 hovered: bool, focused: bool) -> Parts:
    width, height = size
    body = style.disabled if disabled else style.hover if hovered and not focused else style.field
    parts: Parts = (_part(_box(width, height, body, layer * _LEVELS + _BODY)),)
    shown_text, color = ((text + "_" if focused else text), style.disabled_text if disabled else style.text)
    if not text and not focused:
        shown_text, color = placeholder, style.placeholder
    if shown_text:
        parts += (_part(_words(shown_text, style.font_size, color, layer * _LEVELS + _TEXT, "left"),
                        -width / 2 + style.padding),)
    if focused and not disabled:
        parts += _ring(width, height, style, layer * _LEVELS + _MARK)
    return parts


assert MAX_TEXT <= MAX_TEXT_LENGTH  # one text event always fits a field's longest text
