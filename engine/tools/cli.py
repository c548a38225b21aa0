"""The ``tickswap`` command: list, run, record, replay and compare the games; and ``engine.run(build)``.

Every way a run can end has one status and one line, never a traceback
(``engine.tools.errors``): 0 done, 1 the game crashed, 2 the user's mistake (an unknown
game, a bad number, a damaged or hostile file, a game file that does not import, an
output that can't be written, no display), 130/143 Ctrl-C/SIGTERM, which take effect
between ticks (``engine.interrupts``), 141 a closed pipe.

All checks that can be made before a run are made before it starts: the outputs
(``--record``, ``--save-at``, ``--screenshot``) must be distinct files and never the file
being read, a screenshot must be a ``.png``, every input file is checked in full. A
game file that runs itself with ``run(build)`` takes the same options, through the same
code (``_run``), as ``tickswap run FILE``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

from engine.errors import where
from engine.files.atomic import AtomicFile, OutputError, check_output, output_path
from engine.files.game import Game, GameError, game_of_module, load_game, sample_games
from engine.files.replay import (
    Playback,
    Recorder,
    ReplayError,
    ReplayResult,
    read_replay,
    verify,
)
from engine.files.save import SaveError, load_world, save_world
from engine.files.scripts import read_input_script
from engine.interrupts import TICK, Interrupted
from engine.snapshot import UnhashableState
from engine.sound import missing_sound
from engine.tools.errors import (
    GameCrashed,
    UsageError,
    crash_line,
    exception_summary,
    failed_function,
    guarded,
    say,
    shown,
    shown_name,
)
from engine.tools.options import Parser, add_run_options, build_parser, count
from engine.world import World

__all__ = ["main", "run_game"]

_crash_line = crash_line
MAX_LAB_UPDATES = 1_000_000
"""The most updates ``tickswap lab`` simulates per loop (its traces are kept whole, for the table)."""


# -- run ---------------------------------------------------------------------------------


def _check_outputs(args: argparse.Namespace, game: Game | None = None) -> None:
    """Refuse, before the run, outputs that collide with each other or with an input, and bad formats."""
    outputs: list[tuple[str, str]] = []
    if args.record:
        outputs.append(("--record", args.record))
    for _, path in args.save_at or ():
        outputs.append(("--save-at", path))
    if getattr(args, "screenshot", None):
        option = getattr(args, "screenshot_option", "--screenshot")
        if not args.screenshot.lower().endswith(".png"):
            raise UsageError(f"{option} {shown_name(args.screenshot)}: the image is a PNG file; name it something.png")
        outputs.append((option, args.screenshot))
    inputs = [(option, name) for option, name in (("--load", getattr(args, "load", None)),
                                                   ("--input", getattr(args, "input", None)),
                                                   ("the replay", getattr(args, "file", None)),
                                                   ("the game", str(game.path) if game and game.path else None))
              if name]
    try:
        # Only a regular file is ever replaced (never /dev/null, a FIFO, a directory), in a writable directory.
        resolved = [(option, name, check_output(name, option)) for option, name in outputs]
        sources = [(option, name, output_path(name)) for option, name in inputs]
    except OutputError as error:
        raise UsageError(str(error)) from None
    for index, (option, name, path) in enumerate(resolved):
        for other, other_name, other_path in resolved[index + 1:] + sources:
            if path == other_path:
                raise UsageError(f"{option} {shown_name(name)} and {other} {shown_name(other_name)} are the same file; "
                                 "each output needs its own file, and no output may replace an input")


def _check_run_args(args: argparse.Namespace, game: Game) -> None:
    for save_at in args.save_at or ():
        try:
            save_at[0] = count(save_at[0])
        except argparse.ArgumentTypeError as error:
            raise UsageError(f"--save-at N FILE: {error}") from None
        if not save_at[1]:
            raise UsageError("--save-at N FILE: expected a file name, got ''")
    if args.ticks is not None and (args.screenshot or args.headless or args.frames or args.no_hud):
        raise UsageError("--ticks runs the logic only; it can't be combined with --headless, --frames, "
                         "--screenshot or --no-hud")
    if args.ticks is not None and (args.loop != "fixed" or args.max_fps is not None or args.no_vsync):
        # No loop runs with --ticks: these would be accepted and change nothing.
        raise UsageError("--ticks runs the ticks back to back with no loop; it can't be combined with --loop, "
                         "--max-fps or --no-vsync")
    if args.record and args.load:
        raise UsageError("--record replays from the game's start; it can't be combined with --load")
    if args.load and args.seed is not None:
        raise UsageError("--load continues the saved world with its own seed; it can't be combined with --seed")
    if args.seed is None:
        args.seed = 0
    if args.input and args.ticks is None and not args.headless:
        raise UsageError("--input feeds scripted input to a run without a window: add --ticks N or --headless")
    _check_outputs(args, game)


def _game_step(game: Game) -> float:
    """The game's own ``MS_PER_UPDATE``, checked as a replay's step is (a recording must be replayable)."""
    from engine.files.replay import MS_PER_UPDATE_RANGE
    from engine.files.schema import FieldError, expect_number

    try:
        return expect_number(game.setting("MS_PER_UPDATE", 15.625), f"{game.name}: MS_PER_UPDATE", *MS_PER_UPDATE_RANGE)
    except FieldError as error:
        raise UsageError(str(error)) from None


def _build(game: Game, seed: int, saves: str | None = None) -> World:
    """A fresh world: ``build(world)``, then ``systems(world)``.

    With ``saves`` (the option that saves or loads), a ``build`` that adds systems is
    refused: a save can't hold systems, so they would be silently lost on ``--load``.
    """
    world = World(seed=seed)
    try:
        game.build(world)
        added = world.system_count
        game.add_systems(world)
    except GameError as error:  # the game's mistake, found before the run
        world.close()
        raise UsageError(str(error)) from None
    except Interrupted:
        world.close()
        raise
    except BaseException as error:  # whatever the game raises, KeyboardInterrupt and GeneratorExit included
        world.close()
        raise GameCrashed(f"{game.name}: {failed_function(error)} failed: {exception_summary(error)} "
                          f"(at {where(error)})") from None
    if saves and added:
        world.close()
        raise UsageError(f"{saves}: {game.name}'s build(world) adds {added} system{'s' if added != 1 else ''}, "
                         "which a save can't hold (systems are code): add them in systems(world) instead")
    return world


def _load(game: Game, args: argparse.Namespace) -> World:
    """The world of a save, with the game's ``systems(world)`` added again."""
    _build(game, args.seed, "--load").close()  # refuses a build() whose systems the save would lose
    notes: list[str] = []
    world = load_world(args.load, game, notes)
    for note in notes:
        say(note)
    try:
        game.add_systems(world)
    except Interrupted:
        world.close()
        raise
    except BaseException as error:
        world.close()
        raise GameCrashed(f"{game.name}: systems(world) failed: {exception_summary(error)} "
                          f"(at {where(error)})") from None
    return world


def _run(args: argparse.Namespace, game: Game) -> int:
    """``tickswap run`` and ``engine.run(build)``: everything checked first, then one run, one status."""
    _check_run_args(args, game)
    script = read_input_script(args.input) if args.input else {}
    ms_per_update = 1000 / args.ups if args.ups else _game_step(game)
    world = _load(game, args) if args.load else _build(game, args.seed, "--save-at" if args.save_at else None)
    try:
        recorder = (Recorder(args.record, game=game.name, game_digest=game.digest, seed=args.seed,
                             ms_per_update=ms_per_update) if args.record else None)
        if recorder is not None:
            recorder.start(world)
    except (ReplayError, UnhashableState):
        world.close()
        raise
    saves: dict[int, list[str]] = {}
    for tick, path in args.save_at or ():
        saves.setdefault(tick, []).append(path)
    # Refused before the run, not found missing after it: a tick already past (after --load),
    # or one a --ticks run never reaches.
    last = world.tick_count + args.ticks if args.ticks is not None else None
    unreachable = sorted(tick for tick in saves if tick <= world.tick_count or (last is not None and tick > last))
    if unreachable:
        world.close()
        first = world.tick_count
        span = f"goes from tick {first} to {last}" if last is not None else f"starts at tick {first}"
        raise UsageError(f"--save-at {unreachable[0]}: this run {span}, so it never saves at tick {unreachable[0]}")
    written: list[tuple[int, str]] = []
    meta = {"game": game.name, "game_digest": game.digest}

    stopped = ""  # how an interrupted run stopped, said once its recording is in place
    torn = False  # stopped by force inside a tick (a second Ctrl-C): the world may be half-way through it
    in_tick: list[int] = []  # the tick running now: an exception while it is set is a crash of that tick

    def before_tick(world: World) -> None:
        in_tick[:] = [world.tick_count + 1]
        for event in script.get(world.tick_count + 1, ()):
            world.input_queue.push(event)

    def after_tick(world: World) -> None:
        in_tick.clear()
        if recorder is not None:
            recorder.after_tick(world)
        for path in saves.get(world.tick_count, ()):
            save_world(world, path, meta=meta)
            written.append((world.tick_count, path))

    status = 0
    runner: Any = None
    finished = False
    report: str | None = None
    try:
        if args.ticks is not None:
            start = time.perf_counter()
            missing: set[str] = set()
            for _ in range(args.ticks):
                with TICK:  # a signal waits until the tick is recorded: the recording ends where the world is
                    before_tick(world)
                    world.tick()
                    after_tick(world)
                for request in world.take_sounds():  # nobody plays them; a missing file is still said
                    missing_sound(request, missing)
            seconds = time.perf_counter() - start
            entities = f"{len(world)} {'entity' if len(world) == 1 else 'entities'}"
            summary = (f"{args.ticks} ticks in {seconds * 1000:.1f} ms "
                       f"({args.ticks / seconds if seconds else float('inf'):,.0f} ticks/s), {entities}")
        else:
            runner = _make_runner(args, game, world, before_tick=before_tick, after_tick=after_tick)
            drawn = runner.run(frames=args.frames if args.frames or not args.headless else 180)
            if args.screenshot:
                _screenshot(runner, args.screenshot)
            summary = f"{drawn} frames, {runner.loop.ticks} ticks ({type(runner.loop).__name__})"
        finished = True
        if recorder is not None:
            with TICK:  # a signal now waits for the recording to be in place
                recorder.close(world)
        report = (f"{game.name}: {summary}, state {world.state_hash()[:16]}"
                  + (f", screenshot {shown_name(args.screenshot)}" if args.screenshot else "")
                  + (f", recorded {shown_name(args.record)}" if args.record else "")
                  + "".join(f", saved {shown_name(path)} at tick {tick}" for tick, path in written))
        missed = sorted(tick for tick in saves if world.tick_count < tick)
        if missed:
            say(f"the run ended at tick {world.tick_count}, before --save-at {', '.join(map(str, missed))}: "
                f"{'nothing was' if len(missed) == len(saves) else 'not all were'} saved")
            status = 1
    except Interrupted as interrupt:
        torn = interrupt.inside_tick
        stopped = f"{game.name} {interrupt.verb} at tick {world.tick_count}" + (" by force, in a tick" if torn else "")
        status = interrupt.status
    except (_DisplayError, SaveError, ReplayError, OutputError) as error:
        status = _error(str(error))
    except BaseException as error:  # anything the game raised (its own KeyboardInterrupt too) is its crash
        say(_crash_line(game.name, error, in_tick[0] if in_tick else None))
        status = 1
    finally:
        if recorder is not None and not finished:
            # The recording of a run that crashed or was interrupted is kept: it reproduces it,
            # and says at which tick the game crashed (a crash outside a tick, say in drawing, is not one).
            # A tick stopped by force may be half done: the recording then ends at its last hash.
            try:
                with TICK:
                    ends = recorder.close(world, crashed=bool(in_tick) and status == 1, torn=torn)
                if stopped and ends != world.tick_count:
                    stopped += f"; the recording ends at tick {ends}, its last hash before the stop"
            except Interrupted as late:  # a signal while the recording was put in place: it is in place all the same
                status = status or late.status
            except ReplayError as error:
                _error(str(error))
                status = status or 2
            except UnhashableState as error:
                say(crash_line(game.name, error))
                status = status or 1
        if stopped:
            say(stopped)
        if runner is not None:
            runner.close()
        else:
            world.close()
    if report is not None:
        print(report)  # after the run: a closed stdout is not the game's crash (engine.tools.errors)
    return status


def _screenshot(runner: Any, path: str) -> None:
    """Save the last frame atomically: drawn to a temporary PNG beside ``path``, then renamed."""
    with AtomicFile(path, suffix=".png") as output:
        try:
            runner.screenshot(path, output.open("wb"))
        except OSError as error:
            raise OutputError(f"cannot write {path}: {error.strerror or error}") from None
        output.commit()


class _DisplayError(Exception):
    """The game can't be shown as asked: no display, or options that don't fit together."""


def _make_runner(args: argparse.Namespace, game: Game, world: World, **hooks: Any) -> Any:
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
        return GameRunner(game, headless=args.headless, loop=getattr(args, "loop", "fixed"),
                          ups=getattr(args, "ups", None), seed=getattr(args, "seed", 0),
                          vsync=not getattr(args, "no_vsync", False), world=world,
                          max_fps=getattr(args, "max_fps", None), spin_ms=getattr(args, "spin_ms", 1.0),
                          show_hud=not getattr(args, "no_hud", False), **hooks)
    except DisplayUnavailable as error:
        raise _DisplayError(str(error)) from error
    except ValueError as error:
        raise _DisplayError(str(error)) from error


# -- replay ------------------------------------------------------------------------------


def _replay_game(replay: Any, chosen: str | None) -> Game:
    """The replay's game: a registered one by name, or the game file the user names with ``--game``.

    A game file is never run because a replay names it, not even one lying beside the
    replay with the recorded digest: whoever sent the replay can send that file too, so
    a matching digest shows only that the file fits the header, not that the user chose
    to run it. The refusal says which ``--game`` to pass.
    """
    recording = shown_name(replay.path)
    if replay.game_digest is None:
        if chosen is not None:
            raise UsageError(f"{recording} is a recording of the game {replay.game!r}; --game is for game files")
        if replay.game not in sample_games():
            # Only a registered game by name: never a file or directory the header happens to name.
            raise UsageError(f"{recording}:1: the replay's game {replay.game!r} is not an installed game; "
                             f"installed: {', '.join(sorted(sample_games()))}")
        return load_game(replay.game)
    if chosen is not None:
        # The user named this file: it may be run whatever its content; hashes say whether it still fits.
        return load_game(chosen if chosen.endswith(".py") or os.sep in chosen else os.path.join(".", chosen))
    beside = os.path.join(os.path.dirname(os.path.abspath(replay.path)), replay.game)
    relative = os.path.relpath(beside)
    suggestion = shown_name((beside if relative.startswith("..") else relative) if os.path.lexists(beside)
                              else replay.game)
    raise UsageError(f"{recording} is a recording of the game file {shown_name(replay.game)}, which a replay never "
                     f"runs by itself: to run that game, pass --game {suggestion}")


def _replay(args: argparse.Namespace) -> int:
    if args.screenshot and not (args.headless or args.window):
        raise UsageError("--screenshot needs --headless or --window: a replay verified without drawing has no frame")
    args.record, args.save_at = None, None
    _check_outputs(args)
    replay = read_replay(args.file)
    game = _replay_game(replay, args.game)
    _check_outputs(args, game)
    changed = (f"the game file changed since it was recorded (digest {(game.digest or '')[:12]}, recorded "
               f"{(replay.game_digest or '')[:12]})" if replay.game_digest not in (None, game.digest) else None)
    world = _build(game, replay.seed)
    runner: Any = None
    try:
        if not (args.headless or args.window):
            result = verify(replay, world)
        else:
            playback = Playback(replay)
            mismatch: list[int] = []

            def check(world: World) -> None:
                if playback.check(world) is False:
                    mismatch.append(world.tick_count)
                    runner.stop()
                if world.tick_count >= replay.end:
                    runner.stop()

            args.ups = 1000 / replay.ms_per_update
            runner = _make_runner(args, game, world, before_tick=playback.feed, after_tick=check,
                                  forward_input=False)
            if replay.end > 0:
                runner.run()
            if args.screenshot:
                _screenshot(runner, args.screenshot)
            finished = world.tick_count >= replay.end or bool(mismatch)
            if finished and not mismatch and not playback.matches_end(world):
                mismatch.append(world.tick_count)  # the end line's hash (tick 0 too), checked on its own
            crash: BaseException | None = None
            if finished and not mismatch and replay.crashed is not None:
                try:  # the recorded run crashed in the next tick: does this one?
                    playback.feed(world)
                    world.tick()
                except Interrupted:
                    raise
                except BaseException as error:
                    crash = error
            result = ReplayResult(finished and not mismatch and (replay.crashed is None or crash is not None),
                                  world.tick_count, playback.checked, mismatch[0] if mismatch else None, crash)
            if not finished:
                say(f"replay stopped at tick {world.tick_count} of {replay.end}")
    except Interrupted as interrupt:
        say(f"replay of {shown_name(args.file)} {interrupt.verb} at tick {world.tick_count}")
        return interrupt.status
    except (_DisplayError, OutputError) as error:
        return _error(str(error))
    except BaseException as error:
        say(f"the replay crashed: {_crash_line(game.name, error)}" + (f"; {changed}" if changed else ""))
        return 1
    finally:
        if runner is not None:
            runner.close()
        else:
            world.close()
    name = shown_name(args.file)
    if result.ok and result.crash is not None:
        print(f"replay {name}: the recording ends where the game crashed at tick {replay.crashed}: reproduced "
              f"({result.checked} {'hash' if result.checked == 1 else 'hashes'} matched before it; "
              f"{_crash_line(game.name, result.crash)})")
        return 0
    if replay.crashed is not None and result.first_mismatch is None and result.ticks >= replay.end:
        print(f"replay {name}: the recorded game crashed at tick {replay.crashed}, but this one does not")
        return 1
    if result.ok:
        hashes = "hash" if result.checked == 1 else "hashes"
        print(f"replay {name}: {result.ticks} ticks of {game.name}, {result.checked} {hashes} checked, all match")
        if changed:
            say(f"note: {changed}, but it replays the same")
        return 0
    if result.first_mismatch is not None:
        matched = max(0, result.checked - 1)
        print(f"replay {name}: the state differs at tick {result.first_mismatch} "
              f"(the first mismatch; {matched} {'hash' if matched == 1 else 'hashes'} matched before it)"
              + (f"; {changed}" if changed else ""))
    return 1


def _error(message: str) -> int:
    say(message)
    return 2


# -- lab and list ------------------------------------------------------------------------


def _lab(args: argparse.Namespace) -> int:
    from engine.tools.lab import (
        BallScenario,
        GameScenario,
        Scenario,
        format_report,
        machine_from_args,
        run_lab,
    )

    if args.scenario != "ball":
        try:
            load_game(args.scenario)
        except GameError as error:
            raise UsageError(f"unknown scenario {shown(args.scenario)}; use 'ball' or a game ({error})") from None
    try:
        machine = machine_from_args(
            args.machine, update_ms=args.update_ms, render_ms=args.render_ms, jitter_ms=args.jitter_ms,
            stall_at_ms=args.stall_at_ms, stall_ms=args.stall_ms, seed=args.seed)
    except ValueError as error:
        raise UsageError(str(error)) from None
    updates = args.seconds * args.ups
    if updates > MAX_LAB_UPDATES:  # each value in range, the product not: refused before it eats the memory
        raise UsageError(f"--seconds {args.seconds:g} at --ups {args.ups:g} is {updates:,.0f} updates per loop; "
                         f"the lab simulates at most {MAX_LAB_UPDATES:,}: shorten --seconds or lower --ups")
    if args.png:
        # The chart is an output like a screenshot: a PNG, into a directory that exists.
        _check_outputs(argparse.Namespace(record=None, save_at=None, screenshot=args.png, screenshot_option="--png"))

    def scenario() -> Scenario:
        return BallScenario() if args.scenario == "ball" else GameScenario(args.scenario, seed=args.seed)

    reports = run_lab(scenario, machine, seconds=args.seconds, ms_per_update=1000 / args.ups)
    print(f"scenario {args.scenario}, {args.seconds:g} s at {args.ups:g} updates/s, machine: update "
          f"{machine.update_ms:g} ms, render {machine.render_ms:g} ms, jitter ±{machine.jitter_ms:g} ms"
          + (f", stall {machine.stall_ms:g} ms at {machine.stall_at_ms:g} ms"
             if machine.stall_at_ms is not None else ""))
    print(format_report(reports))
    if args.png:
        try:
            from engine.render.chart import draw_timelines

            with AtomicFile(args.png, suffix=".png") as output:
                draw_timelines(reports, args.png, file=output.open("wb"))
                output.commit()
        except OutputError as error:
            raise UsageError(str(error)) from None
        except OSError as error:
            raise UsageError(f"cannot write {args.png}: {error.strerror or error}") from None
        except Exception as error:
            raise UsageError(f"cannot draw the chart ({type(error).__name__}: {error}); the table above is complete") \
                from None
        print(f"chart written to {args.png}")
    return 0


def _list() -> int:
    for name in sorted(sample_games()):
        try:
            description = load_game(name).description
        except GameError as error:
            description = f"(cannot be loaded: {error})"
        print(f"{name:<12} {description}")
    return 0


# -- entry points ------------------------------------------------------------------------


def _guarded(work: Callable[[], int]) -> int:
    """Run a command: mistakes, crashes, Ctrl-C, SIGTERM and a lost stdout end in one line (or none)."""
    return guarded(work, (GameError, SaveError, ReplayError, OutputError, _DisplayError))


def _check(args: argparse.Namespace) -> int:
    """``tickswap check GAME``: exit 0 when every update order agrees, 1 naming the first difference."""
    from engine.tools.check import check_order_independence

    game = load_game(args.game)
    inputs: Any = None if args.no_input else "random"
    if args.input:
        inputs = read_input_script(args.input)
    try:
        result = check_order_independence(game.setup, ticks=args.ticks, orders=args.orders, seed=args.seed,
                                          inputs=inputs)
    except Interrupted:
        raise
    except GameError as error:  # the game's mistake, found before the first tick
        raise UsageError(str(error)) from None
    except BaseException as error:  # build(world) itself failed (a failing tick is in the result)
        raise GameCrashed(f"{shown_name(args.game)} failed: {exception_summary(error)} (at {where(error)})") \
            from None
    print(f"{args.game}: {result.describe()}")
    return 0 if result.ok else 1


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tickswap`` console script; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:
        # The benchmarks have their own parser; argparse's REMAINDER would drop "--quick".
        from engine.tools.bench import main as bench_main

        return _guarded(lambda: bench_main(argv[1:]))
    args = build_parser().parse_args(argv)

    def work() -> int:
        if args.command == "lab":
            return _lab(args)
        if args.command == "list":
            return _list()
        if args.command == "replay":
            return _replay(args)
        if args.command == "check":
            return _check(args)
        return _run(args, load_game(args.game))

    return _guarded(work)


def _module_of(build: Any) -> ModuleType | None:
    """The module whose namespace ``build`` was defined in (by identity, whatever it is named now)."""
    namespace = getattr(build, "__globals__", None)
    if namespace is None:
        return None
    named = sys.modules.get(str(namespace.get("__name__")))
    if named is not None and vars(named) is namespace:
        return named
    for module in list(sys.modules.values()):
        if getattr(module, "__dict__", None) is namespace:
            return module
    return None


def run_game(build: Callable[[World], Any], argv: list[str] | None = None) -> int:
    """``engine.run(build)``: run the game whose ``build`` this is with ``tickswap run``'s options.

    The game is the module ``build`` lives in: the very module already running when a
    game file runs itself (``__main__``), registered under its stable name so its hashes,
    recordings and saves are those of ``tickswap run FILE``.
    """
    program = "game"
    module = _module_of(build)
    if module is not None and getattr(module, "__file__", None):
        program = os.path.basename(str(module.__file__))
    parser = Parser(prog=f"python {program}", description=f"Run {program} (tickswap run's options).")
    add_run_options(parser)
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))

    def work() -> int:
        if not callable(build) or module is None:
            raise UsageError(f"run(build): expected a game's build(world) function, got {shown(build)}")
        game = game_of_module(module)
        if game.module.build is not build:
            raise UsageError(f"run(build): {game.name}'s build is not the function given; pass the module's build")
        return _run(args, game)

    return _guarded(work)


if __name__ == "__main__":
    raise SystemExit(main())
