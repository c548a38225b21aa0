"""``tickswap package GAME``: a standalone program of the game, built with PyInstaller (``engine.tools.ship``).

The program runs where no Python is installed and takes ``tickswap run``'s options:
``./dist/mygame/mygame --ticks 300``. Exit 0: built, and (unless ``--no-check``) it gave
``tickswap run``'s state hash; 1: PyInstaller failed or the bundle is not the same game;
2: a mistake found before building (no PyInstaller, a game that does not load, an output
that exists and is not a bundle of ours, a bad option).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from engine.tools.errors import say, shown_name

if TYPE_CHECKING:
    from engine.tools.ship.build import PackageOptions

__all__ = ["package_command"]


def package_command(options: PackageOptions) -> int:
    """Build, place and check the bundle; one line on what was made. Exit 1 when the build or the check fails."""
    from engine.tools.ship.build import CHECK_TICKS, BuildFailed, package

    try:
        bundle = package(options)
    except BuildFailed as error:
        say(str(error))
        return 1
    checked = (f"; checked: after {CHECK_TICKS} ticks its state is {bundle.state}, as tickswap run's"
               if bundle.state else "")
    try:
        program = os.path.relpath(bundle.program)  # as the user would type it, where it is under here
    except ValueError:  # another drive (Windows)
        program = os.pardir
    program = str(bundle.program) if program.startswith(os.pardir) else program
    print(f"{shown_name(options.game)}: packaged as {shown_name(program, 4096)} with {bundle.game_files} file"
          f"{'s' if bundle.game_files != 1 else ''} of the game{checked}")
    return 0
