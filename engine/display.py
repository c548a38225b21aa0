"""How a run is shown: ``Display``, the options a window (or off-screen drawing) takes, typed and declared once.

The command line ends at ``engine.tools.cli.options``, which turns argv into frozen
dataclasses; what a run *shows* is this one. Each field declares its own option
(``metadata``: the flag, its help, and how its text is read), so ``tickswap run``'s
display options are made from this class and a run's ``Display`` is read back from them
by the same table. A new way to show a game is a field here and its use in
``engine.render.runner.GameRunner``: two files.

Headless and pyglet-free: the command line builds a ``Display`` for every run, ``--ticks``
runs included, which never import pyglet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

from engine.loops.registry import LOOPS
from engine.messages import shown

__all__ = ["Display", "DisplayOption", "display_options"]


@dataclass(frozen=True)
class DisplayOption:
    """How one field of ``Display`` appears on the command line: its ``flag`` and ``help``.

    A bool field is a switch: present, it sets the field to ``not default`` (``--no-hud``
    turns ``show_hud`` off). A number field has a ``low`` to ``high`` range in ``unit``
    (0 allowed only with ``zero``), and ``optional`` numbers default to ``None``. A
    ``choices`` field takes one of its names.
    """

    name: str
    flag: str
    help: str
    low: float | None = None
    high: float | None = None
    unit: str = ""
    zero: bool = False
    choices: tuple[str, ...] = ()

    def read(self, text: str) -> float:
        """The number ``text`` says, in this option's range; ``ValueError`` naming the range otherwise."""
        assert self.low is not None and self.high is not None
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"expected a number{self.unit}, got {shown(text)}") from None
        if not math.isfinite(value) or not self.low <= value <= self.high or (value == 0 and not self.zero):
            raise ValueError(f"expected a finite number{self.unit} from {self.low:g} to {self.high:g}, "
                             f"got {shown(text)}")
        return value


def _option(flag: str, help: str, **how: Any) -> dict[str, Any]:
    return {"option": (flag, help, how)}


@dataclass(frozen=True)
class Display:
    """How a run is drawn: off-screen or in a window, with or without the HUD, by which loop, paced how.

    ``loop`` names the game loop that drives the frames (``engine.loops.LOOPS``);
    ``vsync`` waits for the display's refresh; ``max_fps`` paces frames to a rate (with
    ``vsync=False``); ``spin_ms`` is how long before each frame the clock stops sleeping
    and spins (an OS sleep overshoots). Off-screen (``headless``) a run keeps its own
    virtual time, so none of the pacing applies there.
    """

    headless: bool = field(default=False, metadata=_option(
        "--headless", "render off-screen (EGL) instead of in a window"))
    show_hud: bool = field(default=True, metadata=_option("--no-hud", "hide the HUD (F1 shows it)"))
    loop: str = field(default="fixed", metadata=_option(
        "--loop", "which game loop drives the game (default fixed)", choices=tuple(LOOPS)))
    vsync: bool = field(default=True, metadata=_option(
        "--no-vsync", "windowed: don't wait for the display's refresh"))
    max_fps: float | None = field(default=None, metadata=_option(
        "--max-fps", "windowed: pace frames to this rate (fixed and max-fps loops; pair with --no-vsync)",
        low=0.01, high=100_000.0, unit=" of frames per second"))
    spin_ms: float = field(default=1.0, metadata=_option(
        "--spin-ms", "pacing: sleep until this long before each frame, then spin (default 1; 0 never spins)",
        low=0.0, high=1e7, unit=" of milliseconds", zero=True))

    def __post_init__(self) -> None:
        if self.loop not in LOOPS:
            raise ValueError(f"Display loop must be one of {', '.join(LOOPS)}, got {self.loop!r}")
        for option in display_options():
            value = getattr(self, option.name)
            if option.low is not None and value is not None:
                option.read(repr(float(value)))  # the range the command line takes, for a Display made in code


def display_options() -> tuple[DisplayOption, ...]:
    """Every field of ``Display`` as the option that sets it, in the class's order."""
    found = []
    for item in fields(Display):
        flag, help, how = item.metadata["option"]
        found.append(DisplayOption(item.name, flag, help, **how))
    return tuple(found)
