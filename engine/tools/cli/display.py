"""The window a run or a replay is shown in: a ``GameRunner``, or one line saying why there is none."""

from __future__ import annotations

import argparse
from typing import Any

from engine.files.game import Game
from engine.world import World

__all__ = ["DisplayError", "make_runner"]


class DisplayError(Exception):
    """The game can't be shown as asked: no display, or options that don't fit together."""


def make_runner(args: argparse.Namespace, game: Game, world: World, **hooks: Any) -> Any:
    """A ``GameRunner`` for ``world`` with the command's display options; ``DisplayError`` if it can't be made."""
    from engine.render import DisplayUnavailable, use_headless

    try:
        use_headless(args.headless)
    except DisplayUnavailable as error:
        raise DisplayError(str(error)) from error
    try:
        # Importing pyglet.gl makes pyglet's hidden shadow window: without GL it fails here.
        from engine.render.runner import GameRunner
    except Exception as error:
        what = "off-screen rendering (EGL)" if args.headless else "OpenGL"
        raise DisplayError(f"{what} is unavailable here: {type(error).__name__}: {error}") from error
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
