"""A title menu for the GUI tests (loaded as a game file): Start and Options buttons, a volume slider, a name field."""

from __future__ import annotations

from engine import Entity, World, buffered
from engine.gui import Button, Label, Panel, Slider, TextInput

WIDTH, HEIGHT = 640, 480


class Menu(Entity):
    """The game's side: it polls the widgets' flags and keeps what they said."""

    starts = buffered(0)
    options = buffered(0)
    volume = buffered(0.5)
    greeting = buffered("")
    saved = ("start", "settings", "slider", "field")

    def __init__(self, start: Button, settings: Button, slider: Slider, field: TextInput) -> None:
        super().__init__()
        self.start, self.settings, self.slider, self.field = start, settings, slider, field

    def update(self, world: World) -> None:
        if self.start.clicked:
            self.starts += 1
        if self.settings.clicked:
            self.options += 1
        if self.slider.changed:
            self.volume = self.slider.value
        if self.field.submitted:
            self.greeting = f"Hello, {self.field.text}!"


def build(world: World) -> None:
    world.spawn(Panel(320, 240, (360, 360)))
    world.spawn(Label("TITLE", 320, 380))
    start = world.spawn(Button("Start", 320, 320))
    settings = world.spawn(Button("Options", 320, 270))
    slider = world.spawn(Slider(320, 210, minimum=0.0, maximum=1.0, step=0.1, value=0.5))
    field = world.spawn(TextInput(320, 150, max_length=12, placeholder="your name"))
    world.spawn(Menu(start, settings, slider, field))
