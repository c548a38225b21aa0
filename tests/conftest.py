"""Shared fixtures. ``world`` and ``clock`` come from tickswap's own ``engine.testing.fixtures``,
which this project opts in to as any would (``tickswap_fixtures = true`` in pyproject.toml),
so the whole suite exercises them; only the drawing fixture is the suite's own."""

from __future__ import annotations

import pytest

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
