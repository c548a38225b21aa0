"""Widget: a GUI element in window coordinates, an entity whose state is buffered like any other.

A widget is an ``Entity`` (spawned, updated, saved, replayed and rolled back like any other)
whose position ``x``, ``y`` is the centre of its box in *window* coordinates (bottom-left
origin, as ``Look(screen=True)``), unmoved by any camera. Its state is buffered fields:
``size``, ``visible``, ``disabled``, ``focusable``, ``layer`` and ``player`` say what it is;
``hovered``, ``pressed`` and ``focused`` what the input did to it, written by the widget
itself in its ``update`` from the tick's recorded input (``engine.gui.routing``). A replay
feeds the same input, so it hovers, presses and clicks the same widgets.

What a widget does for the game is a buffered flag the game polls: a button's ``clicked``, a
slider's ``changed``, a text field's ``submitted``. The widget sets it in the tick the input
arrived, so everyone else reads it (committed) during the next tick, in every update order,
like a signal; a subclass that overrides ``update`` reads it right after ``super().update(world)``.

A widget draws through its ``parts`` (``Part``: several looks per entity): ``appearance()``
says what it shows for its current state (a body, a label, a focus ring...), in the colours
of its class's ``style`` (a ``Style``: subclass a widget to restyle it), and the widget sets
its ``parts`` to it when it is made and at the end of every ``update``; the parts are state
like the rest, so a save, a replay or a rollback draws the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.buffering.access import committed, committed_state
from engine.entity import Entity, buffered
from engine.gui.routing import Outcome, outcome_of, pointed
from engine.look import Part
from engine.messages import shown

__all__ = ["Style", "Widget", "checked_size", "widget_under_mouse"]

Color = tuple[int, ...]
MAX_WIDGET_SIDE = 16384.0
"""The largest side of a widget, in pixels (a window's largest)."""


@dataclass(frozen=True)
class Style:
    """The colours and font size widgets are drawn with (RGB or RGBA, each 0 to 255).

    A class attribute of each widget class: ``class Loud(Button): style = Style(background=(160, 30, 30))``
    restyles every ``Loud`` button. Styles are plain values: no pyglet, nothing saved (the
    class is, by name).
    """

    font_size: float = 16.0
    text: Color = (235, 235, 240)
    background: Color = (62, 66, 82)
    hover: Color = (84, 90, 112)
    pressed: Color = (40, 42, 54)
    disabled: Color = (48, 48, 52)
    disabled_text: Color = (128, 128, 134)
    focus: Color = (242, 196, 72)
    panel: Color = (28, 30, 38, 235)
    track: Color = (96, 100, 116)
    knob: Color = (214, 218, 230)
    field: Color = (18, 19, 24)
    placeholder: Color = (120, 122, 132)
    padding: float = 8.0
    border: float = 2.0


def checked_size(size: Any, who: str) -> tuple[float, float]:
    """A widget's ``(width, height)`` in pixels, each above 0 and finite, or ``ValueError`` naming it."""
    if not (isinstance(size, (tuple, list)) and len(size) == 2 and all(
            isinstance(side, (int, float)) and not isinstance(side, bool) and math.isfinite(side)
            and 0 < side <= MAX_WIDGET_SIDE for side in size)):
        raise ValueError(f"{who} size must be (width, height) in pixels, each above 0 and at most "
                         f"{MAX_WIDGET_SIDE:g}, got {shown(size)}")
    return float(size[0]), float(size[1])


class Widget(Entity):
    """A GUI element: a box of ``size`` centred on ``(x, y)`` in window coordinates, updated from the tick's input.

    ``visible`` (drawn, and reachable by pointer and keys), ``disabled`` (drawn greyed, never
    hovered, pressed or focused), ``focusable`` (Tab, arrows and the d-pad stop on it),
    ``layer`` (higher draws on top and takes the pointer first), ``player`` (whose input
    drives it: ``world.input_of(player)``) are the game's to set; ``hovered``, ``pressed``
    and ``focused`` are the widget's own, from the input. ``contains(x, y)`` is the hit
    test, in window coordinates. A widget is never in world collision queries (it has no box there).
    """

    size = buffered((100.0, 32.0))
    visible = buffered(True)
    disabled = buffered(False)
    focusable = buffered(False)
    layer = buffered(0)
    player = buffered(0)
    hovered = buffered(False)
    pressed = buffered(False)
    focused = buffered(False)

    style: ClassVar[Style] = Style()
    """How this class draws (see ``Style``)."""
    interactive: ClassVar[bool] = False
    """Whether it reacts to the pointer and keys (a button does; a panel or a label does not)."""
    stops_pointer: ClassVar[bool] = True
    """Whether the pointer stops at it: a panel over a button keeps it from being clicked; a label does not."""
    level: ClassVar[int] = 1
    """Where it draws within its ``layer``: panels (0) below everything else (1), so the
    pointer meets widgets in the order they are drawn: ``layer``, then level, then spawn order."""

    def __init__(self, x: float = 0.0, y: float = 0.0, size: tuple[float, float] = (100.0, 32.0), *,
                 visible: bool = True, disabled: bool = False, focusable: bool | None = None, layer: int = 0,
                 player: int = 0, focused: bool = False) -> None:
        super().__init__(x=x, y=y)
        who = type(self).__name__
        self.size = checked_size(size, who)
        for flag, value in (("visible", visible), ("disabled", disabled), ("focused", focused)):
            if not isinstance(value, bool):
                raise TypeError(f"{who} {flag} must be True or False, got {shown(value)}")
        for name, number, (low, high) in (("layer", layer, (-1000, 1000)), ("player", player, (0, 7))):
            if type(number) is not int or not low <= number <= high:
                raise ValueError(f"{who} {name} must be a whole number from {low} to {high}, got {shown(number)}")
        self.visible = visible
        self.disabled = disabled
        self.focusable = self.interactive if focusable is None else bool(focusable)
        self.layer = layer
        self.player = player
        self.focused = focused
        self.refresh()

    # -- the hit test --------------------------------------------------------------------

    def contains(self, x: float, y: float) -> bool:
        """Whether window point ``(x, y)`` is inside this widget's box (left and bottom edges in, right and top out)."""
        width, height = self.size
        return self.x - width / 2 <= x < self.x + width / 2 and self.y - height / 2 <= y < self.y + height / 2

    # -- the tick ------------------------------------------------------------------------

    def update(self, world: Any) -> None:
        """Take this tick's outcome for this widget (``engine.gui.routing``) into its buffered fields."""
        if self.player >= world.players:
            raise ValueError(f"{type(self).__name__} {self.id} is player {self.player}'s, but the world has "
                             f"{world.players} player{'s' if world.players != 1 else ''}")
        outcome = outcome_of(world, self, Widget)
        self.hovered = outcome.hovered
        self.pressed = outcome.pressed
        self.focused = outcome.focused
        self.apply(outcome)
        self.refresh()

    def apply(self, outcome: Outcome) -> None:
        """Write a widget kind's own results (a click, a value) into its fields; the base has none."""

    # -- what routing asks of a widget (reading only: the outcome, and its committed ``state``) --

    def start_value(self, state: dict[str, Any]) -> Any:
        """The value routing starts from this tick (a slider's number, a text field's text), from the committed
        ``state``."""
        return None

    def on_pointer(self, outcome: Outcome, x: float) -> None:
        """The pointer, holding this widget, is at window ``x`` (a slider follows it)."""

    def on_click(self, outcome: Outcome) -> None:
        """A press and release inside this widget."""

    def on_key(self, outcome: Outcome, key: int) -> None:
        """A key pressed while this widget has focus (``ACTIVATE`` keys activate it)."""

    def on_step(self, outcome: Outcome, direction: int) -> bool:
        """Left (-1) or right (+1) while focused: whether the widget used it (else focus moves)."""
        return False

    def on_text(self, outcome: Outcome, text: str) -> None:
        """Text typed while this widget has focus."""

    def on_motion(self, outcome: Outcome, motion: int) -> None:
        """An editing key (``keys.MOTION_BACKSPACE`` ...) while this widget has focus."""

    def committed(self, name: str) -> Any:
        """Buffered field ``name`` as committed when the tick began: what routing reads, whoever asks."""
        return committed(self, name)

    def committed_state(self) -> dict[str, Any]:
        """Every buffered field as committed when the tick began, by name (routing reads them once a tick)."""
        return committed_state(self)

    # -- drawing -------------------------------------------------------------------------

    def refresh(self) -> None:
        """Show the current state: set ``parts`` to ``appearance()`` (done after every update; call it after
        changing a widget between ticks, in ``build``, for the first frame to show it)."""
        shown = self.appearance()
        if shown != self.parts:  # an unchanged menu writes nothing
            self.parts = shown

    def appearance(self) -> tuple[Part, ...]:
        """What this widget shows for its state now, as parts (offsets from its centre); nothing when hidden.

        The widget sets its ``parts`` to it when made and after each update: a field a
        subclass changes after ``super().update(world)`` shows from the next tick.
        """
        return ()


def widget_under_mouse(world: Any, player: int = 0) -> Widget | None:
    """The widget under ``player``'s mouse after this tick's input: the one a click there reaches (a panel or a
    disabled button too), or ``None`` when the mouse is over the game.

    For a game that also takes clicks in the world: ``if widget_under_mouse(world) is None:
    place a tower at world.mouse``. The same in every update order (see ``engine.gui.routing``).
    """
    if type(player) is not int or not 0 <= player < world.players:
        raise ValueError(f"widget_under_mouse: player must be from 0 to {world.players - 1}, got {shown(player)}")
    found = pointed(world, Widget, player)
    return found if isinstance(found, Widget) else None
