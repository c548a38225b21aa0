"""The ``tickswap`` command: list the sample games and run them.

User errors (an unknown game, a bad number) print one line and exit with status 2,
never a traceback.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import games
from engine.loops.names import LOOPS
from engine.lab import MACHINES, BallScenario, GameScenario, Scenario, format_report, machine_from_args, run_lab
from engine.world import EntityUpdateError, World

__all__ = ["main"]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _non_negative_ms(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected milliseconds, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a finite number of milliseconds >= 0, got {text}")
    return value


def _positive_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text}")
    return value


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tickswap", description="Run tickswap's sample games.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list the sample games")
    run = commands.add_parser("run", help="run a sample game")
    run.add_argument("game", help="a sample game's name (see `tickswap list`) or the path of your game's .py file")
    run.add_argument("--headless", action="store_true", help="render off-screen (EGL) instead of in a window")
    run.add_argument("--frames", type=_positive_int, help="stop after N frames (headless default: 180)")
    run.add_argument("--ticks", type=_positive_int, help="run N ticks of logic, no rendering, as fast as possible")
    run.add_argument("--screenshot", metavar="PNG", help="save the last frame as a PNG")
    run.add_argument("--loop", choices=LOOPS, default="fixed", help="which game loop drives the game (default fixed)")
    run.add_argument("--ups", type=_positive_number, help="updates per second (default: the game's own)")
    run.add_argument("--no-vsync", action="store_true", help="windowed: don't wait for the display's refresh")
    run.add_argument("--seed", type=int, default=0, help="seed for world.random (default 0)")

    bench = commands.add_parser("bench", help="run the benchmarks and print their figures",
                                add_help=False)
    bench.add_argument("rest", nargs=argparse.REMAINDER)
    lab = commands.add_parser("lab", help="compare every game loop on a simulated machine",
                              description="Run one scenario under each game loop on a simulated machine and "
                                          "print a table, then the first 100 ms of each loop as a timeline.")
    lab.add_argument("scenario", nargs="?", default="ball",
                     help="'ball' (a ball at constant speed, the default) or a sample game's name")
    lab.add_argument("--machine", choices=sorted(MACHINES), help="a preset machine (costs below override it)")
    lab.add_argument("--update-ms", type=_non_negative_ms, help="what one update costs")
    lab.add_argument("--render-ms", type=_non_negative_ms, help="what one render costs")
    lab.add_argument("--jitter-ms", type=_non_negative_ms, help="random ± added to every cost")
    lab.add_argument("--stall-at-ms", type=_non_negative_ms, help="one stall at this clock time")
    lab.add_argument("--stall-ms", type=_non_negative_ms, help="how long that stall lasts (default 250)")
    lab.add_argument("--seconds", type=_positive_number, default=2.0, help="simulated real time per loop (default 2)")
    lab.add_argument("--ups", type=_positive_number, default=64.0, help="updates per second (default 64)")
    lab.add_argument("--seed", type=int, default=0, help="seed for the jitter and the game (default 0)")
    lab.add_argument("--png", metavar="FILE", help="also draw the timelines as a chart (needs EGL or a display)")
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


def _run_rendered(args: argparse.Namespace) -> int:
    from engine.render import DisplayUnavailable, use_headless

    try:
        use_headless(args.headless)
    except DisplayUnavailable as error:
        return _error(str(error))
    from engine.render.runner import GameRunner

    try:
        runner = GameRunner(args.game, headless=args.headless, loop=args.loop, ups=args.ups, seed=args.seed,
                            vsync=not args.no_vsync)
    except DisplayUnavailable as error:
        return _error(str(error))
    frames = args.frames if args.frames or not args.headless else 180
    try:
        shown = runner.run(frames=frames)
        if args.screenshot:
            runner.screenshot(args.screenshot)
    except EntityUpdateError as error:
        print(f"tickswap: {args.game} stopped: {error} (caused by {error.__cause__!r})", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"tickswap: {args.game} interrupted", file=sys.stderr)
        return 130
    except OSError as error:
        return _error(f"cannot write {args.screenshot}: {error}")
    finally:
        runner.close()
    print(f"{args.game}: {shown} frames, {runner.loop.ticks} ticks ({type(runner.loop).__name__}), "
          f"state {runner.world.state_hash()[:16]}" + (f", screenshot {args.screenshot}" if args.screenshot else ""))
    return 0


def _error(message: str) -> int:
    print(f"tickswap: {message}", file=sys.stderr)
    return 2


def _lab(args: argparse.Namespace) -> int:
    if args.scenario != "ball":
        try:
            games.load(args.scenario)
        except (KeyError, ValueError):
            return _error(f"unknown scenario {args.scenario!r}; use 'ball', a game's .py file, "
                          f"or one of: {', '.join(sorted(games.GAMES))}")
    try:
        machine = machine_from_args(
            args.machine, update_ms=args.update_ms, render_ms=args.render_ms, jitter_ms=args.jitter_ms,
            stall_at_ms=args.stall_at_ms, stall_ms=args.stall_ms, seed=args.seed)
    except ValueError as error:
        return _error(str(error))

    def scenario() -> Scenario:
        return BallScenario() if args.scenario == "ball" else GameScenario(args.scenario, seed=args.seed)

    reports = run_lab(scenario, machine, seconds=args.seconds, ms_per_update=1000 / args.ups)
    print(f"scenario {args.scenario}, {args.seconds:g} s at {args.ups:g} updates/s, machine: update "
          f"{machine.update_ms:g} ms, render {machine.render_ms:g} ms, jitter ±{machine.jitter_ms:g} ms"
          + (f", stall {machine.stall_ms:g} ms at {machine.stall_at_ms:g} ms" if machine.stall_at_ms is not None else ""))
    print(format_report(reports))
    if args.png:
        from engine.render.chart import draw_timelines

        try:
            draw_timelines(reports, args.png)
        except OSError as error:
            return _error(f"cannot write {args.png}: {error}")
        print(f"chart written to {args.png}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tickswap`` console script; returns the exit status."""
    args = _build_parser().parse_args(argv)
    if args.command == "lab":
        return _lab(args)
    if args.command == "bench":
        from engine.bench import main as bench_main

        return bench_main(args.rest)
    if args.command == "list":
        for name in sorted(games.GAMES):
            print(f"{name:<12} {games.load(name).DESCRIPTION}")
        return 0
    try:
        games.load(args.game)
    except KeyError as error:
        return _error(str(error.args[0]))
    except ValueError as error:
        return _error(str(error))
    if args.ticks is not None:
        if args.screenshot or args.headless or args.frames:
            return _error("--ticks runs the logic only; it can't be combined with --headless, --frames or --screenshot")
        return _run_ticks(args.game, args.ticks, args.seed)
    return _run_rendered(args)


if __name__ == "__main__":
    raise SystemExit(main())
