"""Shared fixtures: a virtual clock, so no test ever sleeps."""

from __future__ import annotations

import pytest

from engine import VirtualClock


@pytest.fixture
def clock() -> VirtualClock:
    """A fresh ``VirtualClock`` at 0 ms."""
    return VirtualClock()


@pytest.fixture
def world():
    """A fresh ``World``, closed (its esper world released) after the test."""
    from engine import World

    with World() as fresh:
        yield fresh


_offscreen_reason: list[str] = []


@pytest.fixture
def offscreen() -> None:
    """Off-screen (EGL) drawing for this test; skipped, with the reason, where there is none.

    pyglet fixes its backend once per process, so the first test that draws chooses
    off-screen for the whole run (no window ever pops up on a developer's desktop).
    """
    if not _offscreen_reason:
        try:
            from engine.render import create_window, use_headless

            use_headless(True)
            create_window(8, 8, headless=True).close()
            _offscreen_reason.append("")
        except Exception as error:  # macOS, or Linux without EGL: nothing to draw with
            _offscreen_reason.append(f"off-screen rendering (EGL) is unavailable here: {error}")
    if _offscreen_reason[0]:
        pytest.skip(_offscreen_reason[0])
