"""``tickswap check GAME``: does the game come out the same in every update order (``engine.tools.check``)?

With ``--rollback N``: after a rollback of N ticks (``engine.tools.rollback``)? With
``--players N`` (default: the fewest the game's ``PLAYERS`` takes) every world has N
players, each fed input of its own: a random stream each, or their lines of ``--input``.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.errors import where
from engine.files.game import GameError
from engine.files.importer import load_game
from engine.files.png import PictureError
from engine.input.scripts import assign_unnamed, read_input_scripts
from engine.interrupts import Interrupted
from engine.tiles.model import MapError
from engine.tools.check import check_order_independence, random_input
from engine.tools.cli.worlds import check_players
from engine.tools.errors import GameCrashed, UsageError, exception_summary, shown_name
from engine.tools.rollback import check_rollback

__all__ = ["check_command"]


def check_command(args: argparse.Namespace) -> int:
    """``tickswap check GAME``: exit 0 when every update order agrees, 1 naming the first difference.

    With ``--rollback N`` it checks rollback instead (``engine.tools.rollback``): every tick
    rolled back N ticks and re-simulated must come out the same.
    """
    game = load_game(args.game)
    players = check_players(game, args.players)
    inputs: Any = None if args.no_input else "random"
    if inputs == "random" and game.keys is not None:
        # The game's own keys (its KEYS), not the defaults; each player a stream of its own.
        inputs = [random_input(args.seed, keys=game.keys, player=player) for player in range(players)]
    if args.input:
        # Lines naming no player are player 0's, as in tickswap run; other players refused.
        scripts = assign_unnamed(read_input_scripts(args.input, players), 0)
        inputs = [scripts.get(player, {}) for player in range(players)]
    try:
        result: Any
        if args.rollback is not None:
            result = check_rollback(game.setup, ticks=args.ticks, distance=args.rollback, seed=args.seed,
                                    inputs=inputs, players=players)
        else:
            result = check_order_independence(game.setup, ticks=args.ticks, orders=args.orders, seed=args.seed,
                                              inputs=inputs, players=players)
    except Interrupted:
        raise
    except (GameError, MapError, PictureError) as error:  # the game's mistake (or its files'), found before a tick
        raise UsageError(str(error)) from None
    except BaseException as error:  # build(world) itself failed (a failing tick is in the result)
        raise GameCrashed(f"{shown_name(args.game)} failed: {exception_summary(error)} (at {where(error)})") \
            from None
    print(f"{args.game}: {result.describe()}")
    return 0 if result.ok else 1
