"""TextBox: a paged dialogue box in screen space, advanced with the keyboard, a pad or a click.

An elder's speech, a sign, a tutorial: text too long for one box, shown a page at a time,
each page typed out a few characters a tick if the game likes, and advanced by the player
(Enter, Space or pad A: the keys that activate a button; or a click on the box, a left
press and release inside it, as a button is clicked). A ``TextBox`` is a ``Widget``
(``engine.gui.widget``), so its page, how much of it is shown and whether it is done are
buffered fields, saved, replayed and rolled back, and read the same in every update order.

The text is wrapped into lines by ``textwrap`` (a fixed rule: the same lines everywhere)
and the lines into pages of ``lines``; a list of strings starts a new page at each string.
When the last page is dismissed the box hides itself and raises ``finished`` for one tick,
which the game polls (as it polls ``button.clicked``) to go on or despawn it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any, ClassVar

from engine.entity import buffered
from engine.gui.routing import ACTIVATE, Outcome
from engine.gui.widget import Widget
from engine.gui.widgets import _LEVELS, _PANEL, _TEXT, Parts, _box, _part, _words
from engine.messages import shown

__all__ = ["ADVANCE", "TextBox"]

ADVANCE = ACTIVATE
"""The keys that advance a text box: Enter, keypad Enter, Space and pad A (those that activate a button)."""

_MAX_PAGES = 1000


def _pages(text: str | Sequence[str], line_length: int, lines: int) -> tuple[tuple[str, ...], ...]:
    """The text wrapped to ``line_length`` and cut into pages of ``lines``; each string of a list starts a page."""
    chunks = [text] if isinstance(text, str) else list(text)
    if not chunks or not all(isinstance(chunk, str) for chunk in chunks):
        raise ValueError(f"TextBox text must be a string or a list of strings (one a page), got {shown(text)}")
    pages: list[tuple[str, ...]] = []
    for chunk in chunks:
        wrapped = [line for paragraph in chunk.split("\n") for line in (textwrap.wrap(paragraph, line_length) or [""])]
        pages += [tuple(wrapped[start:start + lines]) for start in range(0, len(wrapped), lines)]
    if len(pages) > _MAX_PAGES:
        raise ValueError(f"TextBox text makes {len(pages)} pages; at most {_MAX_PAGES}")
    return tuple(pages)


class TextBox(Widget):
    """A dialogue box of ``size`` centred on ``(x, y)`` in window coordinates, showing ``text`` a page at a time.

    ``lines`` lines a page, of at most ``line_length`` characters (by default as many as fit
    the box at ``style.font_size``); ``speed`` characters appear each tick (0: a page at
    once). An ``ADVANCE`` key (Enter, Space, pad A) of the box's ``player``, or a click on the
    box (``clicked``: a left press and release inside it, routed as a button's, so a widget
    above it takes the click instead), shows the rest of a page being typed, else turns to
    the next page; on the last page it hides the box and raises ``finished`` for the next
    tick. A click takes no focus (Tab passes the box by): the keys advance it wherever focus
    is. ``more`` says whether pages follow (the box shows a mark). ``say(text)`` shows new
    text in the same box.
    """

    pages: tuple[tuple[str, ...], ...] = buffered(())
    page = buffered(0)
    typed = buffered(0)
    speed = buffered(0)
    finished = buffered(False)
    clicked = buffered(False)
    """Whether this tick's input clicked the box (it advanced on it)."""
    interactive: ClassVar[bool] = True
    stops_pointer: ClassVar[bool] = True
    saved: ClassVar[tuple[str, ...]] = ("lines", "line_length")

    def __init__(self, text: str | Sequence[str], x: float = 0.0, y: float = 0.0,
                 size: tuple[float, float] = (440.0, 100.0), *, lines: int = 3, line_length: int | None = None,
                 speed: int = 0, **options: Any) -> None:
        options.setdefault("focusable", False)  # clicked, not tabbed to: its keys work without focus
        super().__init__(x, y, size, **options)
        if type(lines) is not int or not 1 <= lines <= 50:
            raise ValueError(f"TextBox lines must be a whole number from 1 to 50, got {shown(lines)}")
        if line_length is None:
            style = self.style
            line_length = max(1, int((self.size[0] - 2 * style.padding) // (style.font_size * 0.7)))
        if type(line_length) is not int or not 1 <= line_length <= 500:
            raise ValueError(f"TextBox line_length must be a whole number from 1 to 500, got {shown(line_length)}")
        if type(speed) is not int or not 0 <= speed <= 1000:
            raise ValueError(f"TextBox speed must be a whole number of characters a tick, 0 to 1000, "
                             f"got {shown(speed)}")
        self.lines, self.line_length = lines, line_length
        self.speed = speed
        self.say(text)

    def say(self, text: str | Sequence[str]) -> None:
        """Show ``text`` from its first page (the box becomes visible again); from the box's own update or between
        ticks."""
        self.pages = _pages(text, self.line_length, self.lines)
        self.page = 0
        self.typed = 0 if self.speed else self._page_length(0)
        self.visible = True
        self.refresh()

    def _page_length(self, page: int) -> int:
        pages: tuple[tuple[str, ...], ...] = self.pages
        return sum(len(line) for line in pages[page]) if page < len(pages) else 0

    @property
    def more(self) -> bool:
        """Whether pages follow the one shown."""
        return self.page + 1 < len(self.pages)

    @property
    def text_shown(self) -> tuple[str, ...]:
        """The lines of the page as far as they are typed out."""
        if self.page >= len(self.pages):
            return ()
        page: tuple[str, ...] = self.pages[self.page]
        left, shown_lines = self.typed, list[str]()
        for line in page:
            shown_lines.append(line[:max(0, left)])
            left -= len(line)
        return tuple(shown_lines)

    def on_click(self, outcome: Outcome) -> None:
        """A click on the box advances it."""
        outcome.activated = True

    def apply(self, outcome: Outcome) -> None:
        """``clicked``: whether this tick's input clicked the box."""
        self.clicked = outcome.activated

    def update(self, world: Any) -> None:
        """Type the page out, and turn or close it on an ``ADVANCE`` key of its player or a click on the box."""
        super().update(world)
        if not self.visible or self.disabled:
            self.finished = False
            return
        tick_input = world.input_of(self.player)
        advance = self.clicked or any(tick_input.just_pressed(key) for key in ADVANCE)
        full = self._page_length(self.page)
        finished = False
        if self.typed < full:
            self.typed = full if advance else min(full, self.typed + self.speed)
        elif advance:
            if self.more:
                self.page += 1
                self.typed = 0 if self.speed else self._page_length(self.page)
            else:
                self.visible = False
                finished = True
        self.finished = finished
        self.refresh()

    def appearance(self) -> Parts:
        """The box (``style.panel``), the page's lines as typed, left-aligned, and a mark when more pages follow."""
        if not self.visible:
            return ()
        style, (width, height) = self.style, self.size
        base = self.layer * _LEVELS
        parts: Parts = (_part(_box(width, height, style.panel, base + _PANEL)),)
        step = style.font_size * 1.4
        top = height / 2 - style.padding - step / 2
        left = -width / 2 + style.padding
        for row, line in enumerate(self.text_shown):
            if line:
                words = _words(line, style.font_size, style.text, base + _TEXT, "left")
                parts += (_part(words, left, top - row * step),)
        if self.more and self.typed >= self._page_length(self.page):
            parts += (_part(_box(style.font_size / 2, style.font_size / 2, style.focus, base + _TEXT),
                            width / 2 - style.padding, -height / 2 + style.padding),)
        return parts
