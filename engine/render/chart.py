"""The loop lab's timelines as a PNG: one row per loop, renders, updates and waits as spans.

Drawn with pyglet, off-screen: tickswap already depends on it, it draws text and
rectangles, and it saves PNGs through the same EGL path as game screenshots, so the
chart costs no new dependency (matplotlib would add tens of megabytes for one figure).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["draw_timelines"]

COLORS = {
    "update": (90, 170, 255),
    "render": (250, 170, 60),
    "wait": (70, 70, 80),
    "behind": (230, 60, 60),
}
"""Span colours by trace event kind."""
ROW, LEFT, TOP, WIDTH = 44, 90, 40, 1000


def _spans(trace: Any, until_ms: float) -> list[tuple[str, float, float]]:
    """(kind, start, end) for every update, render, wait and behind event before ``until_ms``."""
    events = [event for event in trace if event.at_ms < until_ms]
    spans = []
    for index, event in enumerate(events):
        if event.kind not in COLORS:
            continue
        if event.kind == "wait" and event.ms is not None:
            end = event.at_ms + event.ms
        else:
            later = [e.at_ms for e in events[index + 1:] if e.at_ms > event.at_ms]
            end = later[0] if later else event.at_ms
        # A step that took no clock time still gets a sliver, so it shows.
        spans.append((event.kind, event.at_ms, max(end, event.at_ms + 0.15)))
    return spans


def draw_timelines(reports: Sequence[Any], path: str, until_ms: float = 100.0, file: Any = None) -> None:
    """Draw the first ``until_ms`` of each report's trace and save the chart as a PNG at ``path`` (or into ``file``)."""
    import sys

    from engine.render.context import use_headless

    if "pyglet.window" not in sys.modules:
        use_headless(True)
    import pyglet

    from engine.render.context import create_window, save_screenshot

    height = TOP + ROW * len(reports) + 40
    window = create_window(WIDTH, height, headless=bool(pyglet.options["headless"]), caption="tickswap lab")
    try:
        batch = pyglet.graphics.Batch()
        keep: list[Any] = []
        scale = (WIDTH - LEFT - 20) / until_ms
        for row, report in enumerate(reports):
            y = height - TOP - ROW * (row + 1)
            keep.append(pyglet.text.Label(report.loop, x=8, y=y + ROW / 2 - 6, font_size=11, batch=batch,
                                          color=(230, 230, 230, 255)))
            for kind, start, end in _spans(report.trace, until_ms):
                lane = {"update": 0, "render": 1}.get(kind, 2)
                keep.append(pyglet.shapes.Rectangle(
                    LEFT + start * scale, y + 6 + lane * 11, max(1.0, (min(end, until_ms) - start) * scale), 9,
                    color=COLORS[kind], batch=batch))
        for tick in range(0, int(until_ms) + 1, 10):
            keep.append(pyglet.shapes.Line(LEFT + tick * scale, 30, LEFT + tick * scale, height - TOP + 4,
                                           color=(60, 60, 60), batch=batch))
            keep.append(pyglet.text.Label(f"{tick} ms", x=LEFT + tick * scale, y=12, font_size=8,
                                          anchor_x="center", batch=batch, color=(180, 180, 180, 255)))
        keep.append(pyglet.text.Label("update (blue)   render (orange)   wait (grey)   behind (red)",
                                      x=LEFT, y=height - 24, font_size=10, batch=batch, color=(230, 230, 230, 255)))
        pyglet.gl.glClearColor(0.08, 0.08, 0.1, 1.0)
        window.clear()
        batch.draw()
        save_screenshot(path, file)
    finally:
        window.close()
