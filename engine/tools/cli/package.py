"""``tickswap package GAME``: a standalone program of the game, built with PyInstaller (``engine.tools.ship``).

The program runs where no Python is installed and takes ``tickswap run``'s options:
``./dist/mygame/mygame --ticks 300``. Exit 0: built, and (unless ``--no-check``) it gave
``tickswap run``'s state hash; 1: PyInstaller failed or the bundle is not the same game;
2: a mistake found before building (no PyInstaller, a game that does not load, an output
that exists and is not a bundle of ours, a bad option).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from engine.tools.errors import UsageError, say, shown_name

__all__ = ["add_package_command", "package_command"]


def _file_name(text: str) -> str:
    # As options' own: argparse's Path would take '' for the current directory. Not imported from
    # options, which imports this module to add the command.
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got ''")
    return text


def add_package_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``tickswap package`` and its options to the command line's subcommands."""
    package = commands.add_parser(
        "package", help="build a standalone program of a game (PyInstaller; runs with no Python installed)",
        description="Build a program of GAME that runs where no Python is installed and takes tickswap run's "
                    "options (dist/NAME/NAME --ticks 300). It holds the engine, its libraries, and the game's "
                    "own directory: the modules beside it, its pictures, sounds, maps and fonts. Then it is "
                    "run once to check that it gives tickswap run's state hash. Needs PyInstaller: "
                    "pip install 'tickswap[ship]'.")
    package.add_argument("game", help="a game's .py file, a game package's directory, or an installed game's name")
    package.add_argument("--out", metavar="DIR", type=_file_name, default="dist",
                         help="where the bundle goes: DIR/NAME (default dist)")
    package.add_argument("--name", help="the program's name (default: the game file's stem, or the game's name)")
    package.add_argument("--onefile", action="store_true",
                         help="one program file instead of a folder (starts slower: it unpacks itself each time)")
    package.add_argument("--windowed", action="store_true",
                         help="Windows and macOS: no console window (and a .app on macOS); its messages are lost")
    package.add_argument("--hidden-import", metavar="MODULE", action="append", default=[],
                         help="a module the game imports by name at run time, which reading its code can't find")
    package.add_argument("--add-binary", metavar="FILE", type=_file_name, action="append", default=[],
                         help="a shared library to ship beside the engine's, where pyglet looks for its own "
                              "(FFmpeg's, for MP3 and OGG on Windows and macOS)")
    package.add_argument("--no-check", action="store_true",
                         help="don't run the bundle (with --web: in Pyodide under Node) to check it gives tickswap "
                              "run's state hash")
    package.add_argument("--web", metavar="OUT", type=_file_name,
                         help="instead, write a static folder OUT that plays the game in a browser (Pyodide): "
                              "index.html, the Pyodide runtime, the engine and the game; try it with "
                              "tickswap serve OUT")
    package.add_argument("--pyodide", metavar="DIR", type=_file_name,
                         help="with --web: the npm package pyodide's directory (default $TICKSWAP_PYODIDE, else "
                              "~/.cache/tickswap-web/node_modules/pyodide)")


def package_command(args: argparse.Namespace) -> int:
    """Build, place and check the bundle; one line on what was made. Exit 1 when the build or the check fails."""
    if args.web is not None:
        return _web_command(args)
    if args.pyodide is not None:
        raise UsageError("--pyodide goes with --web OUT (the folder for a browser)")
    from engine.tools.ship.build import CHECK_TICKS, BuildFailed, PackageOptions, package

    options = PackageOptions(game=args.game, out=Path(args.out), name=args.name, onefile=args.onefile,
                             windowed=args.windowed, hidden_imports=tuple(args.hidden_import),
                             binaries=tuple(Path(binary) for binary in args.add_binary), check=not args.no_check)
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
    print(f"{shown_name(args.game)}: packaged as {shown_name(program, 4096)} with {bundle.game_files} file"
          f"{'s' if bundle.game_files != 1 else ''} of the game{checked}")
    return 0


def _web_command(args: argparse.Namespace) -> int:
    """``--web OUT``: the static folder for a browser (``engine.tools.ship.web``); one line on what was made."""
    from engine.tools.ship.web import CHECK_TICKS, check_web, web_folder

    for option, value in (("--name", args.name), ("--onefile", args.onefile), ("--windowed", args.windowed),
                          ("--hidden-import", args.hidden_import), ("--add-binary", args.add_binary)):
        if value:
            raise UsageError(f"{option} is for a desktop program; --web writes a folder for a browser")
    made = web_folder(args.game, Path(args.web), args.pyodide)
    state = None if args.no_check else check_web(made.path, args.game)
    checked = ("" if args.no_check else "; not checked: Node is not installed" if state is None
               else f"; checked: after {CHECK_TICKS} ticks in Pyodide under Node its state is {state}, as tickswap "
                    "run's")
    megabytes = 1024 * 1024
    print(f"{shown_name(args.game)}: a web build in {shown_name(args.web, 4096)} "
          f"({made.total_bytes / megabytes:.1f} MB: "
          f"Pyodide {made.pyodide_bytes / megabytes:.1f} MB, the engine and the game {made.app_bytes / megabytes:.1f} "
          f"MB zipped, {made.game_files} file{'s' if made.game_files != 1 else ''} of the game); "
          f"try it with tickswap serve {shown_name(args.web, 4096)}{checked}")
    return 0
