"""The ``tickswap`` command: list the sample games and run them.

User errors (an unknown game, a bad number) print one line and exit with status 2,
never a traceback.
"""

from __future__ import annotations

import argparse
import sys
import time

import games
from engine.world import World

__all__ = ["main"]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tickswap", description="Run tickswap's sample games.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list the sample games")
    run = commands.add_parser("run", help="run a sample game")
    run.add_argument("game", help="the game's name (see `tickswap list`)")
    run.add_argument("--ticks", type=_positive_int, help="run N ticks of logic, no rendering, as fast as possible")
    run.add_argument("--seed", type=int, default=0, help="seed for world.random (default 0)")
    return parser


def _run_ticks(name: str, ticks: int, seed: int) -> int:
    game = games.load(name)
    with World(seed=seed) as world:
        game.build(world)
        start = time.perf_counter()
        for _ in range(ticks):
            world.tick()
        seconds = time.perf_counter() - start
        print(
            f"{name}: {ticks} ticks in {seconds * 1000:.1f} ms "
            f"({ticks / seconds if seconds else float('inf'):,.0f} ticks/s), "
            f"{len(world)} entities, state {world.state_hash()[:16]}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tickswap`` console script; returns the exit status."""
    args = _build_parser().parse_args(argv)
    if args.command == "list":
        for name in sorted(games.GAMES):
            print(f"{name:<12} {games.load(name).DESCRIPTION}")
        return 0
    if args.game not in games.GAMES:
        print(f"tickswap: unknown game {args.game!r}; known games: {', '.join(sorted(games.GAMES))}", file=sys.stderr)
        return 2
    if args.ticks is None:
        print("tickswap: this version runs games headless only; add --ticks N "
              "(windowed and off-screen rendering are not built yet)", file=sys.stderr)
        return 2
    return _run_ticks(args.game, args.ticks, args.seed)


if __name__ == "__main__":
    raise SystemExit(main())
