"""Shared fixtures. ``world`` and ``clock`` come from tickswap's own ``engine.testing.fixtures``,
which this project opts in to as any would (``tickswap_fixtures = true`` in pyproject.toml),
so the whole suite exercises them; the drawing, TURN server and grid-counting fixtures are
the suite's own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


@pytest.fixture
def write_game(tmp_path: Path) -> Callable[[str, str], Path]:
    """``write_game(name, source)``: the game ``source`` written as ``name`` in the test's own directory, its path.

    A game as the command line and ``load_game`` take it: a file of its own, imported by path.
    """

    def write(name: str, source: str) -> Path:
        path = tmp_path / name
        path.write_text(source)
        return path

    return write


@pytest.fixture
def usage_error(capsys: pytest.CaptureFixture[str]) -> Callable[[list[str]], str]:
    """``usage_error(argv)``: ``tickswap`` refuses ``argv`` as argparse does (status 2); its one line of error."""

    def refuse(argv: list[str]) -> str:
        from engine.tools.cli import main

        with pytest.raises(SystemExit) as stopped:
            main(argv)
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1, err
        return err

    return refuse


@pytest.fixture(scope="module")
def coturn() -> Iterator[Any]:
    """A local coturn TURN server for the ICE tests of one module; skipped, saying why, where none is installed."""
    from icesim import NO_COTURN, Coturn, coturn_binary

    binary = coturn_binary()
    if binary is None:
        pytest.skip(NO_COTURN)
    server = Coturn(binary)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def grids_built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every collision grid built from now on (``engine.spatial.build_grid``), in order."""
    import engine.spatial

    built: list[int] = []
    original = engine.spatial.build_grid

    def counting(table: Any, x: Any, y: Any, half_width: Any, half_height: Any, boxed: Any, slots: Any,
                 scans: int = 0) -> Any:
        built.append(len(slots))
        return original(table, x, y, half_width, half_height, boxed, slots, scans)

    monkeypatch.setattr(engine.spatial, "build_grid", counting)
    return built
