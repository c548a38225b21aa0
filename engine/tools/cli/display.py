"""The window a run or a replay is shown in: a ``GameRunner``, or one line saying why there is none."""

from __future__ import annotations

import argparse
from typing import Any

from engine.files.game import Game
from engine.world import World

__all__ = ["DisplayError", "check_display", "make_runner"]


class DisplayError(Exception):
    """The game can't be shown as asked: no display, or options that don't fit together."""


def check_display(args: argparse.Namespace) -> None:
    """Whether the game can be shown as ``args`` asks (a display, or EGL off-screen); ``DisplayError`` if not.

    What ``make_runner`` finds first, found before there is a world: a network peer asks
    it before anyone joins, so that none is welcomed into a game this peer can't draw.
    """
    from engine.render import DisplayUnavailable, use_headless

    try:
        use_headless(args.headless)
    except DisplayUnavailable as error:
        raise DisplayError(str(error)) from error
    try:
        # Importing pyglet.gl makes pyglet's hidden shadow window: without GL it fails here.
        from engine.render.runner import GameRunner  # noqa: F401
    except Exception as error:
        what = "off-screen rendering (EGL)" if args.headless else "OpenGL"
        raise DisplayError(f"{what} is unavailable here: {type(error).__name__}: {error}") from error
    from engine.render.context import check_text

    try:
        check_text()
    except DisplayUnavailable as error:
        raise DisplayError(str(error)) from error


def make_runner(args: argparse.Namespace, game: Game, world: World, **hooks: Any) -> Any:
    """A ``GameRunner`` for ``world`` with the command's display options; ``DisplayError`` if it can't be made."""
    from engine.render import DisplayUnavailable

    check_display(args)
    from engine.render.runner import GameRunner

    try:
        return GameRunner(game, headless=args.headless, loop=getattr(args, "loop", "fixed"),
                          ups=getattr(args, "ups", None), seed=getattr(args, "seed", 0),
                          vsync=not getattr(args, "no_vsync", False), world=world,
                          max_fps=getattr(args, "max_fps", None), spin_ms=getattr(args, "spin_ms", 1.0),
                          show_hud=not getattr(args, "no_hud", False), **hooks)
    except DisplayUnavailable as error:
        raise DisplayError(str(error)) from error
    except ValueError as error:
        raise DisplayError(str(error)) from error
