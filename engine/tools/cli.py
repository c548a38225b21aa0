"""The ``tickswap`` command: list, run, record, replay and compare the games.

User errors (an unknown game, a bad number, a damaged file, no display) print one line
and exit with status 2, never a traceback. A game that crashes (in an update or in
rendering) closes its window, says what failed and where, and exits with status 1;
Ctrl-C exits with 130.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import traceback
from typing import Any

import games
from engine.tools.lab import MACHINES, BallScenario, GameScenario, Scenario, format_report, machine_from_args, run_lab
from engine.loops.names import LOOPS
from engine.files.replay import Recorder, ReplayError, ReplayResult, feed, read_replay, verify
from engine.files.save import SaveError, read_meta, save_world
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


def _finite(text: str, zero_allowed: bool, unit: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number{unit}, got {text!r}") from None
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero_allowed):
        bound = ">= 0" if zero_allowed else "> 0"
        raise argparse.ArgumentTypeError(f"expected a finite number{unit} {bound}, got {text}")
    return value


def _non_negative_ms(text: str) -> float:
    return _finite(text, True, " of milliseconds")


def _positive_number(text: str) -> float:
    return _finite(text, False, "")


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
    run.add_argument("--max-fps", type=_positive_number,
                     help="windowed: pace frames to this rate (fixed and max-fps loops; pair with --no-vsync)")
    run.add_argument("--spin-ms", type=_non_negative_ms, default=1.0,
                     help="pacing: sleep until this long before each frame, then spin (default 1; 0 never spins)")
    run.add_argument("--seed", type=int, default=0, help="seed for world.random (default 0)")
    run.add_argument("--record", metavar="FILE", help="record every tick's input and state hashes as a replay")
    run.add_argument("--save-at", nargs=2, metavar=("N", "FILE"), type=str,
                     help="save the world to FILE after tick N")
    run.add_argument("--load", metavar="FILE", help="start from a saved world instead of the game's beginning")
    replay = commands.add_parser("replay", help="replay a recording and verify every state hash")
    replay.add_argument("file", help="a replay written by `tickswap run NAME --record FILE`")
    shown = replay.add_mutually_exclusive_group()
    shown.add_argument("--headless", action="store_true", help="render the replay off-screen while verifying")
    shown.add_argument("--window", action="store_true", help="show the replay in a window while verifying")

    commands.add_parser("bench", help="run the benchmarks and print their figures (tickswap bench --help)")
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
    _add_check_parser(commands)
    return parser


def _where(error: BaseException) -> str:
    """Where an exception was raised: the innermost frame, as file:line in function."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "an unknown place"
    frame = frames[-1]
    return f"{frame.filename}:{frame.lineno} in {frame.name}"


def _open_world(args: argparse.Namespace, game: Any) -> World:
    if args.load:
        meta = read_meta(args.load)
        saved_game = meta.get("game")
        if saved_game is not None and saved_game != args.game:
            raise SaveError(f"{args.load} is a save of {saved_game!r}, not of {args.game!r}")
        return World.load(args.load)
    world = World(seed=args.seed)
    game.build(world)
    return world


def _run(args: argparse.Namespace) -> int:
    if args.ticks is not None and (args.screenshot or args.headless or args.frames):
        return _error("--ticks runs the logic only; it can't be combined with --headless, --frames or --screenshot")
    if args.record and args.load:
        return _error("--record replays from the game's start; it can't be combined with --load")
    try:
        game = games.load(args.game)
    except KeyError as error:
        return _error(str(error.args[0]))
    except ValueError as error:
        return _error(str(error))
    ms_per_update = 1000 / args.ups if args.ups else getattr(game, "MS_PER_UPDATE", 15.625)
    try:
        world = _open_world(args, game)
    except SaveError as error:
        return _error(str(error))
    try:
        recorder = (Recorder(args.record, game=args.game, seed=args.seed, ms_per_update=ms_per_update)
                    if args.record else None)
    except ReplayError as error:
        world.close()
        return _error(str(error))
    save_tick, save_path = (int(args.save_at[0]), args.save_at[1]) if args.save_at else (None, None)

    def after_tick(world: World) -> None:
        if recorder is not None:
            recorder.after_tick(world)
        if world.tick_count == save_tick:
            save_world(world, str(save_path), meta={"game": args.game})

    status = 0
    runner: Any = None
    try:
        if args.ticks is not None:
            start = time.perf_counter()
            for _ in range(args.ticks):
                world.tick()
                after_tick(world)
            seconds = time.perf_counter() - start
            summary = (f"{args.ticks} ticks in {seconds * 1000:.1f} ms "
                       f"({args.ticks / seconds if seconds else float('inf'):,.0f} ticks/s), {len(world)} entities")
        else:
            runner = _make_runner(args, world, after_tick=after_tick)
            shown = runner.run(frames=args.frames if args.frames or not args.headless else 180)
            if args.screenshot:
                runner.screenshot(args.screenshot)
            summary = f"{shown} frames, {runner.loop.ticks} ticks ({type(runner.loop).__name__})"
        print(f"{args.game}: {summary}, state {world.state_hash()[:16]}"
              + (f", screenshot {args.screenshot}" if args.screenshot else ""))
        if save_tick is not None and world.tick_count < save_tick:
            print(f"tickswap: the run ended at tick {world.tick_count}, before --save-at {save_tick}: "
                  "nothing was saved", file=sys.stderr)
            status = 1
    except _DisplayError as error:
        status = _error(str(error))
    except EntityUpdateError as error:
        assert error.__cause__ is not None
        print(f"tickswap: {args.game} stopped: {error} (at {_where(error.__cause__)})", file=sys.stderr)
        status = 1
    except SaveError as error:
        status = _error(str(error))
    except KeyboardInterrupt:
        print(f"tickswap: {args.game} interrupted at tick {world.tick_count}", file=sys.stderr)
        status = 130
    except OSError as error:
        status = _error(f"cannot write {error.filename or args.screenshot}: {error.strerror or error}")
    except Exception as error:
        print(f"tickswap: {args.game} failed: {type(error).__name__}: {error} (at {_where(error)})", file=sys.stderr)
        status = 1
    finally:
        if recorder is not None:
            recorder.close(world)
        if runner is not None:
            runner.close()
        else:
            world.close()
    return status


class _DisplayError(Exception):
    """The game can't be shown as asked: no display, or options that don't fit together."""


def _make_runner(args: argparse.Namespace, world: World, **hooks: Any) -> Any:
    from engine.render import DisplayUnavailable, use_headless

    try:
        use_headless(args.headless)
    except DisplayUnavailable as error:
        raise _DisplayError(str(error)) from error
    try:
        # Importing pyglet.gl makes pyglet's hidden shadow window: without GL it fails here.
        from engine.render.runner import GameRunner
    except Exception as error:
        what = "off-screen rendering (EGL)" if args.headless else "OpenGL"
        raise _DisplayError(f"{what} is unavailable here: {type(error).__name__}: {error}") from error
    try:
        return GameRunner(args.game, headless=args.headless, loop=getattr(args, "loop", "fixed"),
                          ups=getattr(args, "ups", None), seed=getattr(args, "seed", 0),
                          vsync=not getattr(args, "no_vsync", False), world=world,
                          max_fps=getattr(args, "max_fps", None), spin_ms=getattr(args, "spin_ms", 1.0), **hooks)
    except DisplayUnavailable as error:
        raise _DisplayError(str(error)) from error
    except ValueError as error:
        raise _DisplayError(str(error)) from error


def _replay(args: argparse.Namespace) -> int:
    try:
        replay = read_replay(args.file)
        game = games.load(replay.game)
    except ReplayError as error:
        return _error(str(error))
    except (KeyError, ValueError) as error:
        return _error(f"{args.file}: the replay's game cannot be loaded: {error}")
    world = World(seed=replay.seed)
    game.build(world)
    runner: Any = None
    try:
        if not (args.headless or args.window):
            result = verify(replay, world)
        else:
            checked = [0]
            mismatch: list[int] = []

            def check(world: World) -> None:
                expected = replay.hashes.get(world.tick_count)
                if expected is not None:
                    checked[0] += 1
                    if world.state_hash() != expected:
                        mismatch.append(world.tick_count)
                        runner.stop()
                if world.tick_count >= replay.end:
                    runner.stop()

            args.game = replay.game
            args.ups = 1000 / replay.ms_per_update
            runner = _make_runner(args, world, before_tick=lambda w: feed(replay, w), after_tick=check,
                                  forward_input=False)
            runner.run()
            finished = world.tick_count >= replay.end or bool(mismatch)
            result = ReplayResult(finished and not mismatch, world.tick_count, checked[0],
                                  mismatch[0] if mismatch else None)
            if not finished:
                print(f"tickswap: replay stopped at tick {world.tick_count} of {replay.end}", file=sys.stderr)
    except _DisplayError as error:
        return _error(str(error))
    except EntityUpdateError as error:
        print(f"tickswap: the replay crashed: {error}", file=sys.stderr)
        return 1
    finally:
        if runner is not None:
            runner.close()
        else:
            world.close()
    if result.ok:
        print(f"replay {args.file}: {result.ticks} ticks of {replay.game}, {result.checked} hashes checked, all match")
        return 0
    if result.first_mismatch is not None:
        matched = result.checked - 1
        print(f"replay {args.file}: the state differs at tick {result.first_mismatch} "
              f"(the first mismatch; {matched} {'hash' if matched == 1 else 'hashes'} matched before it)")
    return 1


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
        if args.scenario == "ball":
            return BallScenario()
        return GameScenario(args.scenario, seed=args.seed, ms_per_update=1000 / args.ups)

    reports = run_lab(scenario, machine, seconds=args.seconds, ms_per_update=1000 / args.ups)
    print(f"scenario {args.scenario}, {args.seconds:g} s at {args.ups:g} updates/s, machine: update "
          f"{machine.update_ms:g} ms, render {machine.render_ms:g} ms, jitter ±{machine.jitter_ms:g} ms"
          + (f", stall {machine.stall_ms:g} ms at {machine.stall_at_ms:g} ms" if machine.stall_at_ms is not None else ""))
    print(format_report(reports))
    if args.png:
        try:
            from engine.render.chart import draw_timelines

            draw_timelines(reports, args.png)
        except OSError as error:
            return _error(f"cannot write {args.png}: {error}")
        except Exception as error:  # no GL to draw with: the table above still stands
            return _error(f"cannot draw the chart ({type(error).__name__}: {error}); the table above is complete")
        print(f"chart written to {args.png}")
    return 0


# -- tickswap check ---------------------------------------------------------------------

def _add_check_parser(commands: Any) -> None:
    check = commands.add_parser(
        "check", help="check that a game comes out the same in every update order",
        description="Run a game in spawn order and in shuffled update orders (reshuffled every tick) with the "
                    "same seeded random input, and report the first tick whose state differs, naming the "
                    "entities and fields. Exit 0 when every order agrees, 1 when they differ.")
    check.add_argument("game", help="a sample game's name (see `tickswap list`) or the path of your game's .py file")
    check.add_argument("--ticks", type=_positive_int, default=300, help="ticks to run (default 300)")
    check.add_argument("--orders", type=_positive_int, default=4, help="shuffled orders besides spawn order (default 4)")
    check.add_argument("--seed", type=int, default=0, help="seed for the worlds, the shuffles and the input (default 0)")
    given = check.add_mutually_exclusive_group()
    given.add_argument("--input", metavar="FILE",
                       help="feed every order the per-tick input of a recording (tickswap run --record FILE)")
    given.add_argument("--no-input", action="store_true", help="no input at all (default: seeded random input)")


def _check(args: argparse.Namespace) -> int:
    from engine.tools.check import check_order_independence

    try:
        game = games.load(args.game)
    except KeyError as error:
        return _error(str(error.args[0]))
    except ValueError as error:
        return _error(str(error))
    except Exception as error:  # noqa: BLE001 - a game file that does not import: bad input, one line
        return _error(f"cannot load {args.game}: {type(error).__name__}: {error}")
    inputs: Any = None if args.no_input else "random"
    if args.input:
        try:
            inputs = read_replay(args.input).inputs
        except ReplayError as error:
            return _error(str(error))
    try:
        result = check_order_independence(game.build, ticks=args.ticks, orders=args.orders, seed=args.seed,
                                          inputs=inputs)
    except Exception as error:  # noqa: BLE001 - build(world) itself failed (a failing tick is in the result)
        print(f"tickswap: {args.game} failed: {type(error).__name__}: {error} (at {_where(error)})", file=sys.stderr)
        return 1
    print(f"{args.game}: {result.describe()}")
    return 0 if result.ok else 1


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tickswap`` console script; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:
        # The benchmarks have their own parser; argparse's REMAINDER would drop "--quick".
        from engine.tools.bench import main as bench_main

        return bench_main(argv[1:])
    args = _build_parser().parse_args(argv)
    if args.command == "lab":
        return _lab(args)
    if args.command == "check":
        return _check(args)
    if args.command == "list":
        for name in sorted(games.GAMES):
            print(f"{name:<12} {games.load(name).DESCRIPTION}")
        return 0
    if args.command == "replay":
        return _replay(args)
    if args.save_at is not None:
        try:
            args.save_at[0] = _positive_int(args.save_at[0])
        except argparse.ArgumentTypeError as error:
            return _error(f"--save-at N FILE: {error}")
    return _run(args)


if __name__ == "__main__":
    raise SystemExit(main())
