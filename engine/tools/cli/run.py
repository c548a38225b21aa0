"""``tickswap run`` and ``engine.run(build)``: everything checked first, then one run, one status.

A run is a ``RunSession``: opening it checks the options, reads the input script, builds
(or loads) the world and starts the recording; ``run()`` then ticks or draws, saves at the
ticks asked for, and however the run ends (done, crashed, interrupted) puts the recording
in place, says how it stopped and releases the world. A game file that runs itself with
``run(build)`` (``engine.tools.cli.run_game``) takes the same options, through the same
session, as ``tickswap run FILE``.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import time
from array import array
from collections.abc import Sequence
from dataclasses import replace
from types import ModuleType
from typing import Any

from engine.constants import DISPLAY_HZ
from engine.disk.atomic import OutputError
from engine.disk.png import PictureError
from engine.files.game import Game
from engine.files.importer import file_digest
from engine.files.replay import Recorder, ReplayError
from engine.input.events import InputEvent
from engine.input.scripts import assign_unnamed, read_script_lines
from engine.interrupts import TICK, Interrupted
from engine.json_events import emit
from engine.state.snapshot import UnhashableState
from engine.studio import DEFAULT_SECONDS, Studio, StudioDriver, Watcher
from engine.tiles.model import MapError
from engine.tools.cli.display import DisplayError, make_runner
from engine.tools.cli.options import RunOptions
from engine.tools.cli.outputs import check_outputs, screenshot_at_stop, write_screenshot
from engine.tools.cli.worlds import build_world, check_players, load_saved_world
from engine.tools.errors import UsageError, crash_line, refused, say, shown_name
from engine.world import TickProfile, World, population, take_music, take_sounds
from engine.world.driver import LocalDriver
from engine.world.save import SaveError, save_world
from engine.world.sounds import missing_file, missing_sound

__all__ = ["RunSession", "check_run_args", "module_of", "run_command", "spread"]


def check_run_args(options: RunOptions, game: Game) -> None:
    """Refuse, before anything runs, options that don't fit together or outputs that collide."""
    display, outputs = options.display, options.outputs
    if options.ticks is not None and options.frames:
        raise UsageError("--ticks runs the logic only, with no frames; it can't be combined with --frames")
    if options.ticks is not None and outputs.screenshot and not display.headless:
        raise UsageError("--ticks N --screenshot PNG draws the state after tick N off-screen: add --headless")
    if options.ticks is not None and not outputs.screenshot and (display.headless or not display.show_hud):
        raise UsageError("--ticks runs the logic only; --headless and --no-hud go with it only to take a "
                         "--screenshot of the last tick")
    if options.ticks is not None and (display.loop != "fixed" or display.max_fps is not None or not display.vsync):
        # No loop runs with --ticks: these would be accepted and change nothing.
        raise UsageError("--ticks runs the ticks back to back with no loop; it can't be combined with --loop, "
                         "--max-fps or --no-vsync")
    if options.load and options.seed is not None:
        raise UsageError("--load continues the saved world with its own seed; it can't be combined with --seed")
    if not options.load:
        check_players(game, options.players)
    if options.input and options.ticks is None and not display.headless:
        raise UsageError("--input feeds scripted input to a run without a window: add --ticks N or --headless")
    watch, rewind = options.watch, options.rewind
    if options.ticks is not None and (watch or rewind is not None):
        # No frame runs with --ticks: there is no moment to reload in, and no key to rewind with.
        raise UsageError(f"{'--watch reloads' if watch else '--rewind rewinds'} a game while its frames run: it "
                         "needs a window, or --headless --frames N; it can't be combined with --ticks")
    if watch:
        try:
            import watchfiles  # noqa: F401
        except ImportError:
            raise UsageError("--watch needs watchfiles: pip install 'tickswap[watch]'") from None
    check_outputs(outputs.files, pictures=[("--screenshot", outputs.screenshot)] if outputs.screenshot else (),
                  inputs=[("--load", options.load), ("--input", options.input)], game=game)


class RunSession:
    """One run of a game: its world, its recording and saves, and how it stopped.

    Made only after ``check_run_args``; the world it opens is released by ``run()``
    (or here, when opening fails half-way).
    """

    def __init__(self, options: RunOptions, game: Game) -> None:
        self.options = options
        self._game = game
        self.seed = options.seed if options.seed is not None else 0
        """The world's seed: ``--seed``, or 0 (a loaded save keeps its own)."""
        players = None if options.load else check_players(game, options.players)
        self.studio: Studio | None = None
        """The window's rewind, reload and inspector (``_run_frames`` makes it): it holds the world from then on."""
        # Read before the world is built when its players are known; a save's are known once loaded.
        outputs = options.outputs
        self.script = self._read_script(players) if options.input and players is not None else {}
        self.ms_per_update = 1000 / options.ups if options.ups else game.ms_per_update
        self._world = (load_saved_world(game, options.load, options.players, self.seed) if options.load
                       else build_world(game, self.seed, "--save-at" if outputs.save_at else None, players))
        try:
            if options.input and options.load:
                self.script = self._read_script(self.world.players)
            self.recorder = (Recorder(outputs.record, game=game.name, game_digest=game.digest, seed=self.seed,
                                      ms_per_update=self.ms_per_update, players=self.world.players,
                                      root=game.root)
                             if outputs.record else None)
            if self.recorder is not None:
                self.recorder.start(self.world)
        except (ReplayError, UnhashableState):
            self.world.close()
            raise
        self.profile = TickProfile(self.world).start() if options.profile else None
        """Times the ticks for ``--profile`` (it only reads a clock: the state is the same without it)."""
        self.saves: dict[int, list[str]] = {}
        for tick, path in outputs.save_at:
            self.saves.setdefault(tick, []).append(path)
        self._refuse_unreachable_saves()
        self.written: list[tuple[int, str]] = []
        self.stopped = ""
        """How an interrupted run stopped, said once its recording is in place."""
        self.shot = ""
        """What became of ``--screenshot`` when a signal stopped the run, said at the end of ``stopped``."""
        self.torn = False
        """Stopped by force inside a tick (a second Ctrl-C): the world may be half-way through it."""
        self.in_tick: int | None = None
        """The tick running now: an exception while it is set is a crash of that tick."""
        self.runner: Any = None
        self.watcher: Watcher | None = None
        """Which of the game's files changed (``--watch``: ``_run_frames`` makes it), or ``None``."""
        self.finished = False
        self.record_ended: int | None = None
        """The tick the recording ended at when the run left its own history (a rewind, a reload)."""
        self.recorded_after: list[str] = []
        """The recordings that went on after reloads (``run.from-TICK.jsonl``), each from its reload's state."""
        self._record_again = False  # a reload ended the recording: the next tick starts one from the new state

    @property
    def world(self) -> World:
        """The world running: the studio's once there is one (a reload replaces it)."""
        return self.studio.world if self.studio is not None else self._world

    @property
    def game(self) -> Game:
        """The game running: the studio's once there is one (a reload imports it again)."""
        return self.studio.game if self.studio is not None else self._game

    @property
    def meta(self) -> dict[str, Any]:
        """What a save of this run records of its game: its name and the digest of its code now."""
        return {"game": self.game.name, "game_digest": self.game.digest}

    def _rewritten(self, why: str) -> None:
        """The world leaves its own history (rewound, or reloaded): a recording of it ends here, as it is."""
        if self.recorder is None or self.finished:
            return
        recorder, self.recorder = self.recorder, None
        with TICK:
            ends = recorder.close(self.world)
        name = self.recorded_after[-1] if self.recorded_after else self.options.outputs.record or ""
        if why.startswith("reloaded") and self.world.tick_count > 0:
            # A recording holds one version of the game: this one ends here, replayable with the code
            # before the reload, and the run goes on recorded in a file that starts from the state the
            # new code got (a save on its second line), replayable with the new code.
            then = self._after_reload_name(self.world.tick_count)
            self._record_again = True
            say(f"{self.game.name}: the recording {shown_name(name)} ends at tick {ends}: {why}; it replays with "
                f"the code before the reload, and the run goes on recorded in {shown_name(then)}, which replays "
                "with the new code")
        else:
            say(f"{self.game.name}: the recording {shown_name(name)} ends at tick {ends}: {why} (a recording "
                "holds one run of one version of the game)")
        if self.record_ended is None:
            self.record_ended = ends

    def _after_reload_name(self, tick: int) -> str:
        """The recording that goes on after a reload at ``tick``: ``run.from-TICK.jsonl`` beside ``run.jsonl``."""
        stem, suffix = os.path.splitext(self.options.outputs.record or "")
        return f"{stem}.from-{tick}{suffix or '.jsonl'}"

    def _record_from_here(self, world: World) -> None:
        """Start the recording that goes on after a reload: from ``world``'s state, with the reloaded game."""
        self._record_again = False
        path, game = self._after_reload_name(world.tick_count), self.game
        if self.watcher is not None:
            self.watcher.ignore(path)  # an output, not the game's: writing it must not reload the game
        self.recorder = Recorder(path, game=game.name, game_digest=game.digest, seed=self.seed,
                                 ms_per_update=self.ms_per_update, players=world.players, root=game.root)
        self.recorder.start(world)
        self.recorded_after.append(path)

    def _read_script(self, players: int) -> dict[int, dict[int, list[InputEvent]]]:
        """Every player's scripted input (lines naming no player are player 0's); other players refused."""
        assert self.options.input is not None
        # Where --players was chosen here (not by a save), a player past it is refused saying which plays it.
        allowed = self.game.players if not self.options.load else None
        return assign_unnamed(read_script_lines(self.options.input, players, allowed=allowed), 0)

    def _refuse_unreachable_saves(self) -> None:
        # Refused before the run, not found missing after it: a tick already past (after --load),
        # or one a --ticks run never reaches.
        first = self.world.tick_count
        last = first + self.options.ticks if self.options.ticks is not None else None
        most = self._most_ticks() if last is None else None
        unreachable = sorted(tick for tick in self.saves if tick <= first or (last is not None and tick > last)
                             or (most is not None and tick > first + most))
        if unreachable:
            self.world.close()
            span = (f"goes from tick {first} to {last}" if last is not None
                    else f"of {self.options.frames} frames off-screen reaches tick {first + most} at most"
                    if most is not None and unreachable[0] > first else f"starts at tick {first}")
            raise UsageError(f"--save-at {unreachable[0]}: this run {span}, so it never saves at tick {unreachable[0]}")

    def _most_ticks(self) -> int | None:
        """The most ticks a ``--frames`` run can run, where that is known before it: off-screen with the fixed
        step loop, each frame advances a virtual clock by one 60 Hz refresh, and the loop runs no tick ahead
        of the time that passed (``None``: not known: a window's real time, a loop that paces itself)."""
        options = self.options
        if not (options.display.headless and options.frames and options.display.loop == "fixed"
                and not options.watch):
            return None
        return int(options.frames * (1000 / DISPLAY_HZ) / self.ms_per_update + 1e-9)

    def before_tick(self, world: World) -> None:
        """Mark the tick as running and hand it its scripted input."""
        if self._record_again:
            self._record_from_here(world)
        self.in_tick = world.tick_count + 1
        for player, script in self.script.items():
            queue = world.input_queue_of(player)
            for event in script.get(world.tick_count + 1, ()):
                queue.push(event)

    def after_tick(self, world: World) -> None:
        """Record the tick, and save the world if this is a tick to save at."""
        self.in_tick = None
        if self.recorder is not None:
            self.recorder.after_tick(world)
        for path in self.saves.get(world.tick_count, ()):
            save_world(world, path, meta=self.meta, root=self._game.root)
            self.written.append((world.tick_count, path))

    def _run_ticks(self) -> str:
        """``--ticks N``: the ticks back to back, no loop and no window; returns the summary."""
        world, ticks = self.world, self.options.ticks
        assert ticks is not None
        # What a tick imports on first use (numpy, for the first collision query: `import engine` stays
        # light) is the program's start, not a tick's time: a 10-tick run said "71 ticks/s, 140 ms worst".
        with contextlib.suppress(ImportError):  # a game without numpy-only features runs without it
            import numpy  # noqa: F401

        clock = time.perf_counter
        start = clock()
        missing: set[str] = set()
        tick_ms = array("d")
        for _ in range(ticks):
            with TICK:  # a signal waits until the tick is recorded: the recording ends where the world is
                self.before_tick(world)
                started = clock()
                world.tick()
                tick_ms.append((clock() - started) * 1000)
                self.after_tick(world)
            for request in take_sounds(world):  # nobody plays them; a missing file is still said
                missing_sound(request, missing)
            for music in take_music(world):
                if music.path is not None:
                    missing_file(music.path, missing, "music")
        seconds = time.perf_counter() - start
        screenshot = self.options.outputs.screenshot
        if screenshot:
            # The state after exactly tick N, drawn once at alpha 1 (the latest state), with no HUD:
            # a picture of the game, the same on every machine.
            self.runner = make_runner(replace(self.options.display, show_hud=False), self.game, world,
                                      ups=self.options.ups)
            write_screenshot(self.runner, screenshot, alpha=1.0)
        return (f"{ticks} ticks in {seconds * 1000:.1f} ms "
                f"({ticks / seconds if seconds else float('inf'):,.0f} ticks/s; a tick {spread(tick_ms)}), "
                f"{population(world)}")

    def _run_frames(self) -> str:
        """A loop in a window (or off-screen); returns the summary."""
        options, outputs, headless = self.options, self.options.outputs, self.options.display.headless
        watch, rewind = options.watch, options.rewind
        driver: LocalDriver
        if watch or rewind is not None or not headless:
            # A window rewinds (F6) by default; off-screen there are no keys, so only --rewind keeps a ring there.
            seconds = rewind if rewind is not None else 0.0 if headless else DEFAULT_SECONDS
            self.studio = Studio(self._game, self._world, seconds=seconds, ms_per_update=self.ms_per_update,
                                 say=say, on_rewrite=self._rewritten)
            if watch:
                assert self.game.root is not None
                written = [path for path in (outputs.record, outputs.screenshot, options.load) if path]
                self.watcher = Watcher(self.game.root, ignore=written + [path for _, path in outputs.save_at])
                if self.game.path is not None and file_digest(self.game.path) != self.game.digest:
                    self.watcher.mark(self.game.path)  # changed while the run started, before the watcher saw anything
            # Watching off-screen, frames take real time too (60 a second): the run lasts long enough to edit.
            driver = StudioDriver(self.studio, watcher=self.watcher, paced=watch and headless,
                                  before_tick=self.before_tick, after_tick=self.after_tick)
        else:
            driver = LocalDriver(self.world, before_tick=self.before_tick, after_tick=self.after_tick)
        try:
            self.runner = make_runner(options.display, self.game, self.world, ups=options.ups, driver=driver)
        except BaseException:
            if self.watcher is not None:
                self.watcher.close()
            raise
        self.runner.hud.profile = self.profile
        start = time.perf_counter()
        if watch:
            say(f"{self.game.name}: watching {shown_name(str(self.game.root))} for changes")
        drawn = self.runner.run(frames=options.frames if options.frames or not headless else 180)
        seconds = time.perf_counter() - start
        if outputs.screenshot:
            write_screenshot(self.runner, outputs.screenshot)
        ticks = self.runner.loop.ticks
        # Real time, headless too (where the loop and the HUD run on a virtual clock).
        rates = (f" in {seconds:.2f} s ({drawn / seconds:,.0f} frames/s, {ticks / seconds:,.0f} ticks/s; "
                 f"a frame {spread(self.runner.frame_ms)})" if seconds > 0 and drawn else "")
        loop = type(self.runner.loop).__name__
        return f"{drawn} frames, {ticks} ticks ({loop}){rates}, {population(self.runner.world)}"

    def run(self) -> int:
        """Run, then close everything; print the report line and return the status."""
        outputs = self.options.outputs
        status = 0
        report: str | None = None
        try:
            summary = self._run_ticks() if self.options.ticks is not None else self._run_frames()
            self.finished = True
            if self.profile is not None:
                self.profile.stop()
            if self.recorder is not None:
                with TICK:  # a signal now waits for the recording to be in place
                    self.recorder.close(self.world)
            state = self.world.state_hash()
            ticks = self.world.tick_count
            report = (f"{self.game.name}: {summary}, state {state[:16]}"
                      + (f", screenshot {shown_name(outputs.screenshot)}" if outputs.screenshot else "")
                      + (f", recorded {shown_name(outputs.record)}" if outputs.record else "")
                      + (f" (to tick {self.record_ended})" if self.record_ended is not None else "")
                      + "".join(f" and {shown_name(path)}" for path in self.recorded_after)
                      + "".join(f", saved {shown_name(path)} at tick {tick}" for tick, path in self.written))
            if self.studio is not None and self.studio.crash is not None:
                # Paused by a failing tick (--watch), and never fixed: the run ends as a crash does.
                say(f"{self.game.name} stopped: {self.studio.crash}")
                status = 1
            missed = sorted(tick for tick in self.saves if self.world.tick_count < tick)
            if missed:
                say(f"the run ended at tick {self.world.tick_count}, before --save-at {', '.join(map(str, missed))}: "
                    f"{'nothing was' if len(missed) == len(self.saves) else 'not all were'} saved")
                status = 1
        except Interrupted as interrupt:
            self.torn = interrupt.inside_tick
            self.stopped = (f"{self.game.name} {interrupt.verb} at tick {self.world.tick_count}"
                            + (" by force, in a tick" if self.torn else ""))
            if outputs.screenshot:  # the window is still open: the last frame drawn, or why not, said in that line
                self.shot = screenshot_at_stop(self.runner, outputs.screenshot, interrupt)
            status = interrupt.status
        except (DisplayError, SaveError, ReplayError, OutputError, PictureError, MapError) as error:
            status = refused(str(error))  # bad input found mid-run (a picture drawn, a map loaded late): exit 2
        except BaseException as error:  # anything the game raised (its own KeyboardInterrupt too) is its crash
            say(crash_line(self.game.name, error, self.in_tick))
            status = 1
        finally:
            status = self._close(status)
        if report is not None:
            print(report)  # after the run: a closed stdout is not the game's crash (engine.tools.errors)
            emit("summary", command="run", game=self.game.name, ok=status == 0, ticks=ticks, state=state, text=report)
            if self.profile is not None:
                print("\n".join(self.profile.lines()))
        return status

    def _close(self, status: int) -> int:
        """Put an unfinished recording in place, say how the run stopped, release the world; the final status."""
        if self.recorder is not None and not self.finished:
            # The recording of a run that crashed or was interrupted is kept: it reproduces it,
            # and says at which tick the game crashed (a crash outside a tick, say in drawing, is not one).
            # A tick stopped by force may be half done: the recording then ends at its last hash.
            try:
                with TICK:
                    ends = self.recorder.close(self.world, crashed=self.in_tick is not None and status == 1,
                                               torn=self.torn)
                if self.stopped and ends != self.world.tick_count:
                    self.stopped += f"; the recording ends at tick {ends}, its last hash before the stop"
            except Interrupted as late:  # a signal while the recording was put in place: it is in place all the same
                status = status or late.status
            except ReplayError as error:
                refused(str(error))
                status = status or 2
            except UnhashableState as error:
                say(crash_line(self.game.name, error))
                status = status or 1
        if self.stopped:
            say(self.stopped + self.shot)
        if self.runner is not None:
            self.runner.close()
        else:
            self.world.close()
        return status


def spread(durations_ms: Sequence[float]) -> str:
    """Durations in ms, for a person: ``"1.23 ms median, 4.56 ms worst"`` (the worst is what a player feels)."""
    if not durations_ms:
        return "none timed"
    return f"{statistics.median(durations_ms):.2f} ms median, {max(durations_ms):.2f} ms worst"


def run_command(options: RunOptions, game: Game) -> int:
    """``tickswap run`` and ``engine.run(build)``: everything checked first, then one run, one status."""
    check_run_args(options, game)
    return RunSession(options, game).run()


def module_of(build: Any) -> ModuleType | None:
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
