"""The ``tickswap`` command: list, run, record, replay, check and compare the games; and ``engine.run(build)``.

Every way a run can end has one status and one line, never a traceback
(``engine.tools.errors``): 0 done, 1 the game crashed, 2 the user's mistake (an unknown
game, a bad number, a damaged or hostile file, a game file that does not import, an
output that can't be written, no display), 130/143 Ctrl-C/SIGTERM, which take effect
between ticks (``engine.interrupts``), 141 a closed pipe.

All checks that can be made before a run are made before it starts: the outputs
(``--record``, ``--save-at``, ``--screenshot``) must be distinct files and never the file
being read, a screenshot must be a ``.png``, every input file is checked in full.

One module per command: ``run`` (a ``RunSession``), ``replay``, ``check``, ``lab``,
``listing`` (``list``), ``package``; ``bench`` parses its own options (``engine.tools.bench``). The parser is
``options``. A game file that runs itself with ``run(build)`` takes the same options,
through the same code, as ``tickswap run FILE``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from engine.disk.atomic import OutputError
from engine.files.game import Game, GameError
from engine.files.importer import game_of_module, load_game
from engine.files.replay import ReplayError
from engine.json_events import json_output
from engine.net.checks import PacketError
from engine.tools.cli.check import check_command
from engine.tools.cli.display import DisplayError
from engine.tools.cli.lab import lab_command
from engine.tools.cli.listing import list_command
from engine.tools.cli.options import (
    Parser,
    add_host_options,
    add_join_options,
    add_run_options,
    build_parser,
    check_options,
    host_options,
    join_options,
    lab_options,
    package_options,
    rendezvous_options,
    replay_options,
    run_options,
    serve_options,
)
from engine.tools.cli.replay import replay_command, split_command
from engine.tools.cli.run import module_of, run_command
from engine.tools.errors import UsageError, guarded, shown
from engine.world import World
from engine.world.save import SaveError

__all__ = ["guarded_command", "main", "run_game", "run_with_options"]


def guarded_command(work: Callable[[], int]) -> int:
    """Run a command: mistakes, crashes, Ctrl-C, SIGTERM and a lost stdout end in one line (or none)."""
    return guarded(work, (GameError, SaveError, ReplayError, OutputError, DisplayError, PacketError))


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tickswap`` console script; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:
        # The benchmarks have their own parser; argparse's REMAINDER would drop "--quick".
        from engine.tools.bench import main as bench_main

        return guarded_command(lambda: bench_main(argv[1:]))
    args = build_parser().parse_command(argv)

    def work() -> int:
        with json_output(bool(args.json)):
            return command()

    def command() -> int:
        if args.command == "lab":
            return lab_command(lab_options(args))
        if args.command == "list":
            return list_command()
        if args.command == "replay":
            options = replay_options(args)
            if options.split is not None:  # writes scripts, replays nothing
                return split_command(options)
            return replay_command(options)
        if args.command == "check":
            return check_command(check_options(args))
        if args.command == "package":
            from engine.tools.cli.package import package_command

            return package_command(package_options(args))
        if args.command == "serve":
            from engine.tools.cli.serve import serve_command

            return serve_command(serve_options(args))
        if args.command in ("host", "join"):
            from engine.tools.cli.net import host_command, join_command

            if args.command == "host":
                return host_command(host_options(args, command="host"))
            return join_command(join_options(args, command="join"))
        if args.command == "rendezvous":
            from engine.tools.cli.rendezvous import rendezvous_command

            return rendezvous_command(rendezvous_options(args))
        game = load_game(args.game)
        return run_command(run_options(args), game)

    return guarded_command(work)


def run_game(build: Callable[[World], Any], argv: list[str] | None = None) -> int:
    """``engine.run(build)``: run the game whose ``build`` this is with ``tickswap run``'s options.

    The game is the module ``build`` lives in: the very module already running when a
    game file runs itself (``__main__``), registered under its stable name so its hashes,
    recordings and saves are those of ``tickswap run FILE``.
    """
    program = "game"
    module = module_of(build)
    if module is not None and getattr(module, "__file__", None):
        program = os.path.basename(str(module.__file__))

    def load() -> Game:
        if not callable(build) or module is None:
            raise UsageError(f"run(build): expected a game's build(world) function, got {shown(build)}")
        game = game_of_module(module)
        if game.module.build is not build:
            raise UsageError(f"run(build): {game.name}'s build is not the function given; pass the module's build")
        return game

    return run_with_options(f"python {program}", program, load, argv)


def run_with_options(prog: str, program: str, load: Callable[[], Game], argv: list[str] | None = None) -> int:
    """Run the game ``load()`` gives with ``tickswap run``'s options (or, after ``--host``/``--join``, a session's).

    ``python game.py`` (``run_game``) and a packaged game (``engine.tools.ship.boot``) are
    this: ``prog`` is how usage lines name the command, ``program`` the game in its help.
    The game is loaded once the options are known to be good, so a mistake in either is one line.
    """
    words = sys.argv[1:] if argv is None else list(argv)
    role = words[0] if words and words[0] in ("--host", "--join") else None
    if role is not None:  # a network session: tickswap host / join's options, this game
        parser = Parser(prog=f"{prog} {role}", description=f"{role[2:].title()} a session of {program}.")
        (add_host_options if role == "--host" else add_join_options)(parser, game=False)
        words = words[1:]
    else:
        parser = Parser(prog=prog, description=f"Run {program} (tickswap run's options; "
                        "--host or --join first for a network session).")
        add_run_options(parser)
    parser.set_defaults(json=False)
    args = parser.parse_args(words)

    def work() -> int:
        with json_output(bool(args.json)):
            return command()

    def command() -> int:
        game = load()
        if role == "--host":
            from engine.tools.cli.net import host_command

            return host_command(host_options(args), game)
        if role == "--join":
            from engine.tools.cli.net import join_command

            return join_command(join_options(args), game, command=f"{prog} --join")
        return run_command(run_options(args), game)

    return guarded_command(work)
