"""``tickswap check GAME``: does the game come out the same in every update order (``engine.tools.check``)?

With ``--rollback N``: after a rollback of N ticks (``engine.tools.rollback``)?
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.errors import where
from engine.files.game import GameError
from engine.files.importer import load_game
from engine.files.png import PictureError
from engine.input.scripts import read_input_script
from engine.interrupts import Interrupted
from engine.tiles.model import MapError
from engine.tools.check import check_order_independence, random_input
from engine.tools.errors import GameCrashed, UsageError, exception_summary, shown_name
from engine.tools.rollback import check_rollback

__all__ = ["check_command"]


def check_command(args: argparse.Namespace) -> int:
    """``tickswap check GAME``: exit 0 when every update order agrees, 1 naming the first difference.

    With ``--rollback N`` it checks rollback instead (``engine.tools.rollback``): every tick
    rolled back N ticks and re-simulated must come out the same.
    """
    game = load_game(args.game)
    inputs: Any = None if args.no_input else "random"
    if inputs == "random" and game.keys is not None:
        inputs = random_input(args.seed, keys=game.keys)  # the game's own keys (its KEYS), not the defaults
    if args.input:
        inputs = read_input_script(args.input)
    try:
        result: Any
        if args.rollback is not None:
            result = check_rollback(game.setup, ticks=args.ticks, distance=args.rollback, seed=args.seed,
                                    inputs=inputs)
        else:
            result = check_order_independence(game.setup, ticks=args.ticks, orders=args.orders, seed=args.seed,
                                              inputs=inputs)
    except Interrupted:
        raise
    except (GameError, MapError, PictureError) as error:  # the game's mistake (or its files'), found before a tick
        raise UsageError(str(error)) from None
    except BaseException as error:  # build(world) itself failed (a failing tick is in the result)
        raise GameCrashed(f"{shown_name(args.game)} failed: {exception_summary(error)} (at {where(error)})") \
            from None
    print(f"{args.game}: {result.describe()}")
    return 0 if result.ok else 1
