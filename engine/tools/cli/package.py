"""``tickswap package GAME``: a standalone program of the game, built with PyInstaller (``engine.tools.ship``).

The program runs where no Python is installed and takes ``tickswap run``'s options:
``./dist/mygame/mygame --ticks 300``. Exit 0: built, and (unless ``--no-check``) it gave
``tickswap run``'s state hash; 1: PyInstaller failed or the bundle is not the same game;
2: a mistake found before building (no PyInstaller, a game that does not load, an output
that exists and is not a bundle of ours, a bad option).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from engine.tools.errors import UsageError, say, shown_name

if TYPE_CHECKING:
    from engine.tools.ship.build import PackageOptions

__all__ = ["package_command"]


def package_command(options: PackageOptions) -> int:
    """Build, place and check the bundle; one line on what was made. Exit 1 when the build or the check fails."""
    if options.web is not None:
        return _web_command(options, options.web)
    if options.pyodide is not None:
        raise UsageError("--pyodide goes with --web OUT (the folder for a browser)")
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


def _web_command(options: PackageOptions, out: Path) -> int:
    """``--web OUT``: the static folder for a browser (``engine.tools.ship.web``); one line on what was made."""
    from engine.tools.ship.web import CHECK_TICKS, check_web, web_folder

    for option, value in (("--name", options.name), ("--onefile", options.onefile),
                          ("--windowed", options.windowed), ("--hidden-import", options.hidden_imports),
                          ("--add-binary", options.binaries)):
        if value:
            raise UsageError(f"{option} is for a desktop program; --web writes a folder for a browser")
    made = web_folder(options.game, out, options.pyodide)
    state = check_web(made.path, options.game) if options.check else None
    checked = ("" if not options.check else "; not checked: Node is not installed" if state is None
               else f"; checked: after {CHECK_TICKS} ticks in Pyodide under Node its state is {state}, as tickswap "
                    "run's")
    megabytes = 1024 * 1024
    print(f"{shown_name(options.game)}: a web build in {shown_name(str(out), 4096)} "
          f"({made.total_bytes / megabytes:.1f} MB: "
          f"Pyodide {made.pyodide_bytes / megabytes:.1f} MB, the engine and the game {made.app_bytes / megabytes:.1f} "
          f"MB zipped, {made.game_files} file{'s' if made.game_files != 1 else ''} of the game); "
          f"try it with tickswap serve {shown_name(str(out), 4096)}{checked}")
    return 0
