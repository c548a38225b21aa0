"""``tickswap check GAME``: does the game come out the same in every update order (``engine.tools.check``)?

With ``--rollback N``: after a rollback of N ticks (``engine.tools.rollback``)? Either way
it then saves the game at ``--saves N`` ticks (default 3, ``0`` skips), loads each save in a
fresh world and runs it beside the straight run (``engine.tools.saveload``), and runs the
game in ``--hash-seeds K`` fresh processes (default 3, ``0`` skips), each
with its own ``PYTHONHASHSEED``, and compares their state hashes every tick
(``engine.tools.seeds``): what one process's worlds share (set order, ``id()``) is caught
only there. With
``--players N`` every world has N players, each fed input of its own: a random stream
each, or their lines of ``--input``. The default is the fewest the game's ``PLAYERS``
takes, and for ``--rollback`` (the network's check) the fewest a session plays, 2 when the
game takes 2; a game that takes other counts is told which was checked.
"""

from __future__ import annotations

from typing import Any

from engine.disk.png import PictureError
from engine.errors import where
from engine.files.game import GameError
from engine.files.importer import load_game
from engine.interrupts import Interrupted
from engine.json_events import emit
from engine.tiles.model import MapError
from engine.tools.check import check_order_independence
from engine.tools.cli.options import CheckOptions
from engine.tools.cli.worlds import check_players
from engine.tools.errors import GameCrashed, StdoutLost, UsageError, exception_summary, shown_name
from engine.tools.rollback import check_rollback
from engine.tools.saveload import SaveLoadResult, check_save_load
from engine.tools.seeds import SeedResult, check_hash_seeds, inputs_of

__all__ = ["check_command"]


def check_command(args: CheckOptions) -> int:
    """``tickswap check GAME``: exit 0 when every update order agrees, 1 naming the first difference.

    With ``--rollback N`` it checks rollback instead (``engine.tools.rollback``): every tick
    rolled back N ticks and re-simulated must come out the same.
    """
    game = load_game(args.game)
    players = check_players(game, args.players)
    if args.players is None and args.rollback is not None and players < 2 and 2 in game.players:
        players = 2  # the rollback check is the network's: a session plays 2 or more, as tickswap host's default
    if args.rollback is not None and args.orders is not None:
        raise UsageError(f"--orders {args.orders} is the update-order check's, and --rollback checks rollback instead: "
                         "give one of them")
    if args.rollback is not None and args.rollback > args.ticks:
        raise UsageError(f"--rollback {args.rollback} rolls back further than --ticks {args.ticks} runs: no tick would "
                         f"be re-simulated (give --ticks {args.rollback} or more)")
    # The game's own keys (its KEYS) at random, each player a stream of its own; or a script's.
    inputs = inputs_of(game, players, args.seed, args.input, args.no_input)
    try:
        result: Any
        if args.rollback is not None:
            result = check_rollback(game.setup, ticks=args.ticks, distance=args.rollback, seed=args.seed,
                                    inputs=inputs, players=players)
        else:
            orders = 4 if args.orders is None else args.orders
            result = check_order_independence(game.setup, ticks=args.ticks, orders=orders, seed=args.seed,
                                              inputs=inputs, players=players)
        # Each part's line as soon as it is known (flushed): the three parts of a default check
        # can take a minute, and a line a part shows that it is under way.
        print(f"{args.game}: {result.describe()}", flush=True)
        emit("check", check="rollback" if args.rollback is not None else "orders", ok=bool(result.ok),
             text=f"{args.game}: {result.describe()}")
        across: SeedResult | None = None
        loads: SaveLoadResult | None = None
        # A game that fails at a tick fails there in every process too: the failure is the news.
        if args.saves and not result.crashed:
            loads = check_save_load(game.setup, ticks=args.ticks, saves=args.saves, seed=args.seed, inputs=inputs,
                                    players=players)
            print(f"{args.game}: {loads.describe()}", flush=True)
            emit("check", check="saves", ok=bool(loads.ok), text=f"{args.game}: {loads.describe()}")
        if args.hash_seeds and not result.crashed:
            across = check_hash_seeds(game, ticks=args.ticks, seed=args.seed, players=players, input_path=args.input,
                                      no_input=args.no_input, processes=args.hash_seeds)
            print(f"{args.game}: {across.describe()}", flush=True)
            emit("check", check="processes", ok=bool(across.ok), text=f"{args.game}: {across.describe()}")
    except (Interrupted, StdoutLost):  # a lost stdout is its reader's news, never the game's crash
        raise
    except (GameError, MapError, PictureError) as error:  # the game's mistake (or its files'), found before a tick
        raise UsageError(str(error)) from None
    except BaseException as error:  # build(world) itself failed (a failing tick is in the result)
        raise GameCrashed(f"{shown_name(args.game)} failed: {exception_summary(error)} (at {where(error)})") \
            from None
    if args.players is None and len(game.players) > 1:
        # Say what was checked: a game for 1 to 4 checked with 1 leaves the others unchecked.
        others = [count for count in game.players if count != players]
        print(f"{args.game}: checked with {players} player{'s' if players != 1 else ''}; its PLAYERS takes "
              f"{game.played_by()}: --players {others[0] if len(others) == 1 else 'N'} checks "
              f"{'that' if len(others) == 1 else 'another'} count")
    ok = bool(result.ok and (loads is None or loads.ok) and (across is None or across.ok))
    emit("summary", command="check", game=args.game, ok=ok, ticks=args.ticks, players=players)
    return 0 if ok else 1
