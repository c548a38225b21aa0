"""The window a run or a replay is shown in: a ``GameRunner``, or one line saying why there is none."""

from __future__ import annotations

from typing import Any

from engine.display import Display
from engine.files.game import Game
from engine.world import World
from engine.world.driver import Driver, LocalDriver

__all__ = ["DisplayError", "check_display", "make_runner"]


class DisplayError(Exception):
    """The game can't be shown as asked: no display, or options that don't fit together."""


def check_display(display: Display) -> None:
    """Whether the game can be shown as ``display`` asks (a display, or EGL off-screen); ``DisplayError`` if not.

    What ``make_runner`` finds first, found before there is a world: a network peer asks
    it before anyone joins, so that none is welcomed into a game this peer can't draw.
    """
    from engine.render import DisplayUnavailable, use_headless

    try:
        use_headless(display.headless)
    except DisplayUnavailable as error:
        raise DisplayError(str(error)) from error
    try:
        # Importing pyglet.gl makes pyglet's hidden shadow window: without GL it fails here.
        from engine.render.runner import GameRunner  # noqa: F401
    except Exception as error:
        what = "off-screen rendering (EGL)" if display.headless else "OpenGL"
        raise DisplayError(f"{what} is unavailable here: {type(error).__name__}: {error}") from error
    from engine.render.context import check_text

    try:
        check_text()
    except DisplayUnavailable as error:
        raise DisplayError(str(error)) from error


def make_runner(display: Display, game: Game, world: World, *, ups: float | None = None,
                driver: Driver | None = None) -> Any:
    """A ``GameRunner`` for ``world``, shown as ``display``, at ``ups`` updates a second (``None``: the game's step);
    ``DisplayError`` if it can't be made. ``driver`` runs its ticks (the studio's, a replay's, a network
    session's: ``world`` is the driver's); by default ``world`` is played here (a ``LocalDriver``)."""
    from engine.render import DisplayUnavailable

    if driver is not None and driver.world is not world:
        raise ValueError(f"make_runner: the driver ({type(driver).__name__}) ticks another world than the one given")
    check_display(display)
    from engine.render.runner import GameRunner

    try:
        return GameRunner(game, driver if driver is not None else LocalDriver(world), display=display, ups=ups)
    except DisplayUnavailable as error:
        raise DisplayError(str(error)) from error
    except ValueError as error:
        raise DisplayError(str(error)) from error
