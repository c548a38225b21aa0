"""GUI widgets in screen space, as entities: buttons, labels, panels, sliders and text fields.

Widgets are entities whose state is buffered (saved, replayed, rolled back, the same in
every update order) and whose input is the tick's recorded input, so a replay clicks the
same buttons and a headless test drives them with ``world.input_queue``. They live in
window coordinates (bottom-left origin, like ``Look(screen=True)``) and draw through looks.

- ``Widget`` (``engine.gui.widget``): the box, the shared flags, the hit test, ``Style``;
  ``widget_under_mouse(world)``, for games that also take clicks in the world.
- ``Button``, ``Label``, ``Panel``, ``Slider``, ``TextInput`` (``engine.gui.widgets``);
  ``TextBox``, a paged dialogue box (``engine.gui.textbox``).
- ``engine.gui.routing``: how one tick's input is shared out (pointer, capture, focus, keys, text).

What a widget does reaches the game as a buffered flag, polled: ``button.clicked``,
``slider.changed``, ``field.submitted`` are True during the tick after the input, for
every reader in every order. See the GUI guide (docs/guides/gui.md).
"""

from __future__ import annotations

from engine.gui.textbox import TextBox as TextBox
from engine.gui.widget import Style as Style
from engine.gui.widget import Widget as Widget
from engine.gui.widget import widget_under_mouse as widget_under_mouse
from engine.gui.widgets import Button as Button
from engine.gui.widgets import Label as Label
from engine.gui.widgets import Panel as Panel
from engine.gui.widgets import Slider as Slider
from engine.gui.widgets import TextInput as TextInput

__all__ = ["Button", "Label", "Panel", "Slider", "Style", "TextBox", "TextInput", "Widget", "widget_under_mouse"]
