"""Routing: where one tick's input goes among a world's widgets (pointer, capture, focus, keys, text).

Every widget of a world reads the same outcome: the tick's input events, walked in order
over the widgets *as the tick began* (their committed state, ``engine.buffering.access.committed``),
decide which widget the pointer is over, which one holds a press, which one has keyboard
focus, and what each widget's own events did (a click, a slider's new value, typed text).
The walk is done once per tick, by whichever widget asks first; since it reads only the
committed state and the tick's input, every update order gets the same outcome, which each
widget then writes into its own buffered fields. Nothing here is kept from tick to tick:
the cache below is a pure function of state and input, dropped whenever either changes.

The rules, in the order a tick's events are walked (each player's widgets see that
player's input, ``world.input_of(widget.player)``):

* The pointer is where the latest mouse event put it. The widget under it is the topmost
  visible widget that stops the pointer (every widget but a ``Label``): highest ``layer``,
  then panels below the rest, then the latest spawned, as they are drawn. A ``Panel`` stops it without reacting, so a
  dialog's panel keeps clicks from the buttons under it.
* A left press on an enabled interactive widget captures the pointer for it (``pressed``)
  and gives it focus; a press anywhere else takes focus away. A release over the widget
  that captured it is a click; a release elsewhere is none. While it holds the pointer, a
  slider follows it.
* Tab moves focus to the next focusable widget (Shift+Tab the previous), in spawn order;
  Up/Down and the d-pad move it too, Left/Right as well unless the focused widget uses them
  (a slider steps, a text field keeps them). With nothing focused, the first of these keys
  focuses the first focusable widget. Enter, Space (and a pad's A) activate the focused
  widget: a button clicks, a text field submits (on Enter or A only: Space is text there).
* Typed text (``"text"`` events) and Backspace (``"text_motion"``) go to the focused text field.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from engine.input import keys
from engine.input.events import InputEvent, TickInput
from engine.world import spawner_of


class Widget(Protocol):
    """What routing asks of a widget (``engine.gui.widget.Widget`` has it all): reading only."""

    id: int | None
    level: ClassVar[int]
    interactive: ClassVar[bool]
    stops_pointer: ClassVar[bool]

    def start_value(self, state: dict[str, Any]) -> Any:
        """The value routing starts from (a slider's number, a text field's text), from the committed ``state``."""

    def on_pointer(self, outcome: Outcome, x: float) -> None:
        """The pointer, holding this widget, is at window ``x``."""

    def on_click(self, outcome: Outcome) -> None:
        """A press and release inside this widget."""

    def on_key(self, outcome: Outcome, key: int) -> None:
        """A key pressed while this widget has focus."""

    def on_step(self, outcome: Outcome, direction: int) -> bool:
        """Left (-1) or right (+1) while focused: whether the widget used it."""

    def on_text(self, outcome: Outcome, text: str) -> None:
        """Text typed while this widget has focus."""

    def on_motion(self, outcome: Outcome, motion: int) -> None:
        """An editing key while this widget has focus."""

    def committed_state(self) -> dict[str, Any]:
        """Every buffered field as committed when the tick began, whoever asks."""

__all__ = ["ACTIVATE", "Outcome", "Widget", "outcome_of", "pointed", "route"]

ACTIVATE = frozenset((keys.RETURN, keys.NUM_ENTER, keys.SPACE, keys.PAD_A))
"""The keys that activate the focused widget."""
_NEXT = frozenset((keys.DOWN, keys.PAD_DOWN))
_PREVIOUS = frozenset((keys.UP, keys.PAD_UP))
_SIDEWAYS = {keys.LEFT: -1, keys.RIGHT: 1, keys.PAD_LEFT: -1, keys.PAD_RIGHT: 1}
_MOUSE = frozenset(("mouse_press", "mouse_release", "mouse_motion", "mouse_drag", "mouse_scroll"))


@dataclass(slots=True)
class Outcome:
    """What one tick's input did to one widget: the values it writes into its buffered fields.

    ``value`` starts as the widget's own committed value (a slider's number, a text field's
    text) and ends as its new one; ``activated`` says a click (or a submit) happened.
    """

    hovered: bool = False
    pressed: bool = False
    focused: bool = False
    activated: bool = False
    value: Any = None
    state: dict[str, Any] = field(default_factory=dict)
    """The widget's buffered fields as committed when the tick began (what its hooks read)."""


@dataclass(slots=True)
class _Seen:
    """A widget as the tick began: its committed box and flags."""

    widget: Widget
    left: float
    bottom: float
    right: float
    top: float
    layer: int
    enabled: bool
    focusable: bool
    outcome: Outcome = field(default_factory=Outcome)

    def contains(self, x: float, y: float) -> bool:
        return self.left <= x < self.right and self.bottom <= y < self.top


def _seen(widget: Widget, state: dict[str, Any]) -> _Seen:
    x, y = state["x"], state["y"]
    width, height = state["size"]
    enabled = state["visible"] and not state["disabled"] and widget.interactive
    seen = _Seen(widget, x - width / 2, y - height / 2, x + width / 2, y + height / 2, state["layer"],
                 enabled, enabled and state["focusable"], Outcome(value=widget.start_value(state), state=state))
    return seen


def route(widgets: list[tuple[Widget, dict[str, Any]]], tick_input: TickInput
          ) -> tuple[dict[int, Outcome], Widget | None]:
    """Walk ``tick_input``'s events over ``widgets`` (one player's, in spawn order, each with its committed state).

    Returns each one's ``Outcome`` by id, and the widget under the pointer at the end (``None``: none).
    """
    seen = [_seen(widget, state) for widget, state in widgets]
    stoppers = sorted((each for each in seen if each.outcome.state["visible"] and each.widget.stops_pointer),
                      key=lambda each: (each.layer, each.widget.level, each.widget.id), reverse=True)
    focusable = [each for each in seen if each.focusable]
    captured = next((each for each in reversed(seen) if each.enabled and each.outcome.state["pressed"]), None)
    focus = next((each for each in reversed(focusable) if each.outcome.state["focused"]), None)

    def under(x: float, y: float) -> _Seen | None:
        return next((each for each in stoppers if each.contains(x, y)), None)

    def moved(by: int) -> _Seen | None:
        if not focusable:
            return None
        if focus is None:
            return focusable[0] if by > 0 else focusable[-1]
        return focusable[(focusable.index(focus) + by) % len(focusable)]

    events = tick_input.events
    first = next((event for event in events if event.type in _MOUSE), None)
    pointer = (first.x, first.y) if first is not None else (tick_input.mouse_x, tick_input.mouse_y)
    for event in events:
        kind = event.type
        if kind in _MOUSE:
            pointer = (event.x, event.y)
        if kind == "mouse_press" and event.key == keys.MOUSE_LEFT:
            top = under(*pointer)
            captured = top if top is not None and top.enabled else None
            focus = captured if captured is not None and captured.focusable else None
            if captured is not None:
                captured.widget.on_pointer(captured.outcome, pointer[0])
        elif kind == "mouse_release" and event.key == keys.MOUSE_LEFT:
            if captured is not None and under(*pointer) is captured:
                captured.widget.on_click(captured.outcome)
            captured = None
        elif kind in ("mouse_motion", "mouse_drag"):
            if captured is not None:
                captured.widget.on_pointer(captured.outcome, pointer[0])
        elif kind == "key_press":
            focus = _key(event, focus, moved)
        elif kind in ("text", "text_motion") and focus is not None:
            if kind == "text":
                focus.widget.on_text(focus.outcome, str(event.key))
            else:
                focus.widget.on_motion(focus.outcome, int(event.key))  # type: ignore[call-overload]
    top = under(*pointer)
    for each in seen:
        each.outcome.hovered = each is top and each.enabled
        each.outcome.pressed = each is captured
        each.outcome.focused = each is focus
    return ({each.widget.id: each.outcome for each in seen if each.widget.id is not None},
            None if top is None else top.widget)


def _key(event: InputEvent, focus: _Seen | None, moved: Callable[[int], _Seen | None]) -> _Seen | None:
    """A key press: focus moves, or the focused widget reacts. Returns where focus is now."""
    key = event.key
    if key == keys.TAB:
        return moved(-1 if event.modifiers & keys.MOD_SHIFT else 1)
    if key in _NEXT or key in _PREVIOUS:
        return moved(1 if key in _NEXT else -1)
    sideways = _SIDEWAYS.get(key) if type(key) is int else None
    if sideways is not None:
        if focus is not None and focus.widget.on_step(focus.outcome, sideways):
            return focus
        return moved(sideways)
    if focus is not None and type(key) is int:
        focus.widget.on_key(focus.outcome, key)
    return focus


@dataclass(slots=True)
class _Routed:
    """One tick's routing of a world: for the tick, the structure and the input objects it was made from."""

    key: tuple[int, int]
    inputs: tuple[TickInput, ...]
    outcomes: dict[int, Outcome]
    pointed: dict[int, Widget | None]


_passes: weakref.WeakKeyDictionary[Any, _Routed] = weakref.WeakKeyDictionary()
_widgets: weakref.WeakKeyDictionary[Any, tuple[int, type[Any], list[Any]]] = weakref.WeakKeyDictionary()


def _widgets_of(world: Any, kind: type[Any]) -> list[Any]:
    """The world's widgets as the tick began (one despawned during it too), by id: found again only when the
    set of entities changed, among the widget classes' entities only (a world of thousands of shots and a
    few buttons looks at the buttons)."""
    spawner = spawner_of(world)
    cached = _widgets.get(world)
    if cached is None or cached[0] != spawner.structure_version or cached[1] is not kind:
        found = spawner.live_of(kind)
        cached = _widgets[world] = (spawner.structure_version, kind, found)
    return cached[2]


def _routed(world: Any, kind: type[Any]) -> _Routed:
    """This tick's routing of every widget of ``world`` of class ``kind``, done once per tick.

    Kept only while the tick runs, for the tick and the input it was made from: a rollback,
    a retried tick or a re-simulated one (new input objects) routes again.
    """
    key = (world.tick_count, spawner_of(world).structure_version)
    players = world.players
    inputs = (world.input,) if players == 1 else tuple(world.input_of(player) for player in range(players))
    cached = _passes.get(world) if world.ticking else None
    if cached is not None and cached.key == key and all(a is b for a, b in zip(cached.inputs, inputs, strict=True)):
        return cached
    routed = _Routed(key, inputs, {}, {})
    widgets = [(widget, widget.committed_state()) for widget in _widgets_of(world, kind)]
    for player, tick_input in enumerate(inputs):
        mine = [each for each in widgets if each[1]["player"] == player]
        outcomes, routed.pointed[player] = route(mine, tick_input) if mine else ({}, None)
        routed.outcomes.update(outcomes)
    if world.ticking:
        _passes[world] = routed
    return routed


def outcome_of(world: Any, widget: Widget, kind: type[Any]) -> Outcome:
    """This tick's ``Outcome`` for ``widget``, routed once per tick for every widget of ``world`` of class ``kind``."""
    found = _routed(world, kind).outcomes.get(widget.id) if widget.id is not None else None
    if found is None:  # not live when the tick began: it keeps what it had
        state = widget.committed_state()
        found = Outcome(value=widget.start_value(state), state=state)
    return found


def pointed(world: Any, kind: type[Any], player: int) -> Widget | None:
    """The widget of class ``kind`` under ``player``'s pointer after this tick's events (panels and disabled ones
    too: whatever the pointer stops at), or ``None``."""
    return _routed(world, kind).pointed.get(player)
