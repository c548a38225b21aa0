"""GameRunner: a sample game, a loop, a window (or an off-screen one), input and the HUD.

The runner owns the main loop: each pass is one ``loop.frame()``, whose input step
pumps the window's events (key and mouse events go into the world's input queue, to
be handed to the next *tick*), whose render step clears, draws the view and the HUD
and flips. With a real window the loop runs on a ``RealClock`` and the display's vsync
(or ``max_fps``) paces it. Headless, it runs on a ``VirtualClock`` and every frame
advances it by one 60 Hz display refresh, so an off-screen run and its screenshot are
the same on every machine.

The engine keeps only Esc (quit) and F1 to F9: F1 toggles the HUD, F2 pauses (and resumes
from the tick shown), F3 runs one tick while paused, F4 toggles interpolation, F5
extrapolation; with a ``Studio`` (``tickswap run``), F6 and F7 go back and forward through
the rewind ring (a tick, or a second with Shift; held, they scrub), F8 inspects the entity
under the mouse (so does a click while paused), F9 reloads the game's code, as a change
does under ``--watch``. Every other key,
mouse drags, the wheel, the modifiers and typed text (``"text"`` and ``"text_motion"``
events) go to the game (``world.input``), untouched.
Sounds and music the world asked for during a tick are played right after it (silent
headless). Every connected game controller (``engine.render.pads``) reaches the game as
``keys.PAD_*`` buttons and ``"stick"`` events, like keys; headless there are none. With
several players on this machine each event goes to its own player's queue
(``engine.input.local.LocalPlayers``: every pad is a player, and the keyboard is split by
the game's ``PLAYER_KEYS`` or the default, WASD and the arrows).
"""

from __future__ import annotations

import sys
import time
from array import array
from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any

import pyglet

from engine.clock import RealClock, VirtualClock
from engine.constants import DISPLAY_HZ
from engine.deprecation import MOVED_REMOVED_IN, warn_deprecated
from engine.display import Display
from engine.files.game import Game
from engine.files.importer import load_game
from engine.input import keys
from engine.input.events import MAX_TEXT, InputEvent
from engine.input.local import LocalPlayers
from engine.interrupts import TICK
from engine.loops import LOOPS, FixedStepLoop, make_loop
from engine.messages import shown
from engine.render.context import create_window, save_screenshot
from engine.render.entities import EntityRenderer
from engine.render.hud import Hud
from engine.render.music import MusicPlayer
from engine.render.pads import PadReader
from engine.render.sound import SoundPlayer
from engine.render.sprites import forget_pictures
from engine.render.studio import StudioOverlay
from engine.render.tiles import forget_tilesets
from engine.render.view import View
from engine.studio import ReloadResult, StudioDriver
from engine.world import World, take_music
from engine.world.driver import Driver as Driver
from engine.world.driver import LocalDriver as LocalDriver

__all__ = ["Driver", "GameRunner", "LocalDriver", "StudioDriver"]


HEADLESS_RENDER_MS = 1.0
"""What a headless render costs loops that pace themselves (constant rate, render-gated)."""
SCRUB_AFTER_FRAMES = 15
"""Held F6 or F7 scrubs (a step every frame) after this many frames: a tap moves one step."""


class GameRunner:
    """Runs game ``name`` (a name, a game file's path, or a loaded ``Game``) in a window, or off-screen.

    ``driver`` runs the ticks the frames owe (``engine.world.driver``): by default local play
    of a world of the game's own (``LocalDriver``: seed 0, the fewest players the game
    takes), or a ``LocalDriver`` of a world given (with hooks around each tick: recording,
    saving), the studio's (``engine.studio.StudioDriver``), a replay's
    (``engine.files.replay.ReplayDriver``) or a network session (``engine.net.Session``).
    Every tick goes through it, with the window's events. ``display`` is how it is shown
    (``engine.display.Display``: off-screen, the HUD, the loop, the pacing); ``ups`` the
    updates a second (by default the game's step). ``local_players`` says which player each
    device plays (``engine.input.local.LocalPlayers``; by default the driver's, on the
    game's ``PLAYER_KEYS``); ``controllers`` is where game controllers are read from
    (pyglet's by default; none headless unless given: a test gives a stand-in).
    Until 0.6 the old keywords still work, warning: the display's fields one by one
    (``headless=True``...: ``display=Display(...)``), ``seed``, ``world``, ``before_tick``,
    ``after_tick`` and ``forward_input`` (a ``LocalDriver``), ``studio``, ``watcher`` and
    ``paced`` (a ``StudioDriver``).
    """

    def __init__(self, name: str | Game, driver: Driver | None = None, *, display: Display | None = None,
                 ups: float | None = None, local_players: LocalPlayers | None = None, controllers: Any = None,
                 **old: Any) -> None:
        display = _old_display(display, old)
        game = name if isinstance(name, Game) else load_game(name)
        driver, forward_input = _old_driver(game, driver, old)
        self.display = display
        """How the game is shown: off-screen or in a window, the HUD, the loop and its pacing."""
        headless, loop, show_hud = display.headless, display.loop, display.show_hud
        self.driver: Driver = driver
        """What runs every tick (local play, the studio, a replay, a network session)."""
        self.studio = driver.studio if isinstance(driver, StudioDriver) else None
        """What F2, F3, F6 to F9 and clicks drive (pause, rewind, step, inspect, reload), or ``None``."""
        self.name = game.name
        self._game = game  # what a new world of the driver's is drawn as (the studio's reload brings its own)
        self.forward_input = forward_input
        """Whether window input reaches the driver's players (a spectator's, a replay's: the keys still work)."""
        self.headless = headless
        self._local: dict[int, list[InputEvent]] = {}  # the window's events for the driver's next tick, by player
        world = driver.world
        if world is None:
            raise ValueError(f"{game.name}: the driver has no world yet (a network session not started): "
                             "start it before its window")
        self.world: World = world
        """The world drawn: the driver's (a reload replaces it)."""
        if local_players is None:
            here = driver.local_players
            if not here:  # a spectator plays no one: the window's keys still work, and reach no player
                self.forward_input, here = False, (0,)
            local_players = LocalPlayers(here, game.player_keys)
        self.local_players = local_players
        """Which player each device plays (every pad, the keyboard's parts): ``engine.input.local``."""
        width, height = game.view_size
        self.world.view_size = (width, height)  # a world given (a replay's, a save's) maps the mouse like this window
        self.window = create_window(width, height, headless=headless, vsync=display.vsync,
                                    caption=f"tickswap: {game.name}")
        try:
            self.view: View = self._make_view(game)
        except ValueError:
            self.window.close()
            raise
        self.interpolate = True
        """F4 toggles it: without it every frame draws the latest state (alpha 1)."""
        self.sound = SoundPlayer(silent=headless)
        """Plays what the world asks for after each tick; headless it only keeps the log (``sound.played``)."""
        self.music = MusicPlayer(silent=headless)
        """Streams the music the world asks for (headless it only keeps the log, ``music.asked``)."""
        self.pads = None if headless and controllers is None else PadReader(self._forward_pad, controllers)
        """The game controllers, read with the window's events: ``controllers`` (a ``pyglet.input.ControllerManager``,
        or a test's stand-in), by default pyglet's; none headless unless given."""
        # Frame pacing: RealClock sleeps until spin_ms before each deadline, then spins,
        # because an OS sleep alone overshoots by up to a millisecond or more.
        self.clock: Any = VirtualClock() if headless else RealClock(spin_ms=display.spin_ms)
        ms_per_update = 1000 / ups if ups else game.ms_per_update
        self.ms_per_update = ms_per_update
        self.sound.ms_per_update = ms_per_update  # a limited sound's plays are timed in ticks
        self.world.ms_per_update = ms_per_update  # speed_factor is 1.0 exactly at this step
        self.loop = make_loop(loop, self._tick, self._render, ms_per_update=ms_per_update,
                              clock=self.clock, process_input=self._pump, max_fps=display.max_fps)
        # Headless, a loop that renders as often as it can would never let virtual time
        # pass: its flip stands in for a vsync'd 60 Hz one. Loops that wait for their own
        # deadlines just pay a small render cost, or two pacers would fight.
        self._render_ms = 1000 / DISPLAY_HZ if LOOPS[loop].renders_freely else HEADLESS_RENDER_MS
        self.hud = Hud(self.window, self.loop, self.world)
        self.hud.visible = show_hud
        self.overlay = StudioOverlay(self.window, self.studio) if self.studio is not None else None
        self._paused = False
        self._stopped = False
        self._frame_started = time.perf_counter()
        self._mouse = (0.0, 0.0)  # where the pointer is in the window: what F8 inspects
        self._scrub = (0, False, 0)  # a held F6 (-1) or F7 (+1), with Shift, and the frames it has been held
        self.frame_ms: array[float] = array("d")
        """How long each frame shown took in real time, in ms (its ticks, its drawing, any wait): the summary's
        figures, headless too, where the HUD's rates follow the virtual clock."""
        self.window.push_handlers(
            on_key_press=self._on_key_press, on_key_release=self._on_key_release,
            on_mouse_press=self._on_mouse_press, on_mouse_release=self._on_mouse_release,
            on_mouse_motion=self._on_mouse_motion, on_mouse_drag=self._on_mouse_drag,
            on_mouse_scroll=self._on_mouse_scroll, on_text=self._on_text, on_text_motion=self._on_text_motion,
            on_close=self._on_close,
        )

    @property
    def before_tick(self) -> Any:
        """Deprecated: the local driver's (``GameRunner(name, LocalDriver(world, before_tick=...))``)."""
        return self._local_driver("before_tick").before_tick

    @before_tick.setter
    def before_tick(self, hook: Any) -> None:
        self._local_driver("before_tick").before_tick = hook

    @property
    def after_tick(self) -> Any:
        """Deprecated: the local driver's (``GameRunner(name, LocalDriver(world, after_tick=...))``)."""
        return self._local_driver("after_tick").after_tick

    @after_tick.setter
    def after_tick(self, hook: Any) -> None:
        self._local_driver("after_tick").after_tick = hook

    def _local_driver(self, hook: str) -> LocalDriver:
        warn_deprecated(f"GameRunner.{hook}", f"GameRunner(name, LocalDriver(world, {hook}=...)) "
                        "(engine.world.driver)", stacklevel=4, removed_in=MOVED_REMOVED_IN)
        if not isinstance(self.driver, LocalDriver):
            raise AttributeError(f"GameRunner.{hook}: this runner's driver ({type(self.driver).__name__}) runs its "
                                 "own ticks, with no hooks")
        return self.driver

    def _make_view(self, game: Game) -> View:
        """The game's view of this runner's world: its own ``make_view(world)``, or an ``EntityRenderer``."""
        view_module = game.view()
        background = getattr(view_module, "BACKGROUND", (0, 0, 0))
        self._background = (background[0] / 255, background[1] / 255, background[2] / 255)
        make_view = getattr(view_module, "make_view", None)
        view = (make_view(self.world) if make_view is not None
                else EntityRenderer(self.world, looks=getattr(view_module, "LOOKS", {}), window=self.window))
        if not isinstance(view, View):  # refused here by name, not as an AttributeError in the first frame
            raise ValueError(f"{game.name}: make_view(world) returned {shown(view)}; it must return a View "
                             "(an object with draw(alpha) and delete())")
        return view

    # -- input ------------------------------------------------------------------------

    def _pump(self) -> None:
        self.window.dispatch_events()
        if self.pads is not None:
            self.pads.poll()
        if self.studio is not None:
            self._scrub_held()
        if self.headless:  # a virtual frame is no real time: don't outrun the peers' real ones (or, paced, an editor)
            self.driver.idle(self._render_ms / 1000.0)
        with TICK:  # a signal waits for the datagrams applied whole (or the reload), as for a tick
            self.driver.poll()
        world = self.driver.world
        if world is not None and world is not self.world:  # reloaded (--watch): show the new world
            self._adopt(world)
        self._sync_pause()
        if self.driver.ended is not None:
            self.stop()

    def _on_key_press(self, symbol: int, modifiers: int) -> bool:
        # The engine's own keys never reach the game; every other key only reaches it.
        if symbol not in keys.RESERVED:
            self._forward(InputEvent("key_press", symbol, modifiers=modifiers))
        elif symbol == keys.ESCAPE:
            self.stop()
        elif symbol == keys.F1:
            self.hud.visible = not self.hud.visible
        elif symbol == keys.F2 and isinstance(self.driver, LocalDriver):  # a session's peers don't wait for one
            self.paused = not self.paused
        elif symbol == keys.F3 and self.paused:
            self.step()
        elif symbol == keys.F4:
            self.interpolate = not self.interpolate
        elif symbol == keys.F5 and hasattr(self.view, "extrapolate"):
            self.view.extrapolate = not self.view.extrapolate
        elif self.studio is not None:
            self._studio_key(symbol, modifiers)
        return True  # handled: keeps pyglet's default Esc-closes-window out of the way

    def _studio_key(self, symbol: int, modifiers: int) -> None:
        """F6 back, F7 forward (a tick, or a second with Shift), F8 inspect under the mouse, F9 reload."""
        if symbol in (keys.F6, keys.F7):
            direction = -1 if symbol == keys.F6 else 1
            fast = bool(modifiers & keys.MOD_SHIFT)
            self._scrub = (direction, fast, 0)
            self.scrub(direction, fast)
        elif symbol == keys.F8:
            self.inspect_at(*self._mouse)
        elif symbol == keys.F9:
            self.reload()

    def _scrub_held(self) -> None:
        direction, fast, held = self._scrub
        if direction:
            self._scrub = (direction, fast, held + 1)
            if held + 1 >= SCRUB_AFTER_FRAMES:
                self.scrub(direction, fast)

    def scrub(self, direction: int, fast: bool = False) -> int:
        """Go one tick (``fast``: one second of ticks) back (``direction`` -1) or forward (+1) in the rewind ring,
        paused; how many ticks it moved."""
        assert self.studio is not None
        ticks = max(1, round(1000 / self.ms_per_update)) if fast else 1
        moved = self.studio.back(ticks) if direction < 0 else self.studio.forward(ticks)
        self._sync_pause()
        self.music.play(take_music(self.world))  # the music of the tick now shown, if a rollback changed it
        return moved

    def inspect_at(self, window_x: float, window_y: float) -> None:
        """Inspect the entity drawn at a window point; over no entity, close the inspector."""
        if self.studio is not None:
            self.studio.pick(window_x, window_y)

    def reload(self, changed: Sequence[str] = ()) -> ReloadResult | None:
        """Reload the game's code and assets keeping the state (``Studio.reload``); on success show the new world
        in this window. ``None`` without a studio."""
        if self.studio is None:
            return None
        result = self.studio.reload(changed)
        if self.studio.world is not self.world:
            self._adopt(self.studio.world)
        self._sync_pause()
        return result

    def _adopt(self, world: World) -> None:
        """Show the driver's new world (the studio's, reloaded): a new view of it, pictures and sounds read again."""
        self.world = world
        self.hud.world = self.world
        forget_pictures()
        forget_tilesets()
        self.sound.forget()
        old, self.view = self.view, _Blank()
        old.delete()
        try:
            self.view = self._make_view(self.studio.game if self.studio is not None else self._game)
        except ValueError as error:  # the new view can't be made: said, and the game goes on undrawn
            print(error, file=sys.stderr)
        self.music.play(take_music(self.world))

    def _sync_pause(self) -> None:
        if self.studio is not None and isinstance(self.loop, FixedStepLoop):
            self.loop.paused = self.studio.paused

    def _forward(self, event: InputEvent, pad: int | None = None) -> None:
        """Queue ``event`` (from the keyboard, the mouse, or the pad in slot ``pad``) for the player it plays."""
        if not self.forward_input:
            return
        for player, routed in self.local_players.route(event, pad):
            self._local.setdefault(player, []).append(routed)

    def _forward_pad(self, slot: int, event: InputEvent) -> None:
        self._forward(event, slot)

    def _on_key_release(self, symbol: int, modifiers: int) -> None:
        if symbol not in keys.RESERVED:
            self._forward(InputEvent("key_release", symbol, modifiers=modifiers))
        elif symbol in (keys.F6, keys.F7):
            self._scrub = (0, False, 0)

    def _on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        if self.studio is not None and self.paused:  # paused, a click inspects: the game sees none of it
            self.inspect_at(float(x), float(y))
            return
        self._forward(InputEvent("mouse_press", button, float(x), float(y), modifiers))

    def _on_mouse_release(self, x: int, y: int, button: int, modifiers: int) -> None:
        if self.studio is not None and self.paused:
            return
        self._forward(InputEvent("mouse_release", button, float(x), float(y), modifiers))

    def _on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        self._mouse = (float(x), float(y))
        self._forward(InputEvent("mouse_motion", None, float(x), float(y)))

    def _on_mouse_drag(self, x: int, y: int, dx: int, dy: int, buttons: int, modifiers: int) -> None:
        # pyglet sends drags instead of motions while a button is held.
        self._mouse = (float(x), float(y))
        self._forward(InputEvent("mouse_drag", buttons, float(x), float(y), modifiers))

    def _on_mouse_scroll(self, x: int, y: int, scroll_x: float, scroll_y: float) -> None:
        self._forward(InputEvent("mouse_scroll", None, float(x), float(y), scroll_x=float(scroll_x),
                                 scroll_y=float(scroll_y)))

    def _on_text(self, text: str) -> None:
        # Enter comes as "\r" too (it is a key_press already): text events hold printable text only.
        printable = "".join(character for character in text if character.isprintable())
        for start in range(0, len(printable), MAX_TEXT):
            self._forward(InputEvent("text", printable[start:start + MAX_TEXT]))

    def _on_text_motion(self, motion: int) -> None:
        if motion in keys.MOTIONS:
            self._forward(InputEvent("text_motion", motion))

    def _on_close(self) -> bool:
        self.stop()
        return True

    # -- control --------------------------------------------------------------------------

    @property
    def paused(self) -> bool:
        """F2 toggles it. Fixed-step loops stop accumulating lag; the others skip their ticks.

        With a studio it is the studio's: going back pauses, and resuming runs on from the
        tick shown (the ticks after it are discarded)."""
        return self.studio.paused if self.studio is not None else self._paused

    @paused.setter
    def paused(self, value: bool) -> None:
        if self.studio is not None:
            if value:
                self.studio.pause()
            else:
                self.studio.resume()
        self._paused = value
        if isinstance(self.loop, FixedStepLoop):
            self.loop.paused = value

    def _tick(self, elapsed_ms: float | None = None) -> None:
        # Fixed-step loops pause themselves (no lag piles up); the others keep calling,
        # and a paused game simply doesn't tick.
        # Once stopped, the rest of this frame's updates are skipped too: a replay must
        # not run past its end, nor a game past the Esc that quit it.
        if self._stopped or (self.paused and not isinstance(self.loop, FixedStepLoop)):
            return
        self._run_tick(elapsed_ms)

    def _run_tick(self, elapsed_ms: float | None = None) -> None:
        # Every driver the same way: it decides which ticks run (a session none while waiting for a
        # peer, several after a rollback) and hands out only effects of ticks not handed out before.
        local, self._local = self._local, {}
        with TICK:  # a signal waits for the tick and its hooks: a recording always ends where the world is
            if elapsed_ms is None:  # the fixed step: a driver written for 0.4 (advance(local)) still runs
                self.driver.advance(local)
            else:
                self.driver.advance(local, elapsed_ms)
        self._sync_pause()  # watching, a tick that failed paused the studio
        # Effects after the tick, from what the tick asked for: a replay asks again.
        self.sound.play(self.driver.take_sounds())
        self.music.play(take_music(self.world))

    def step(self) -> None:
        """Run exactly one tick while paused (F3): rewound, the next recorded one; else a live one."""
        if self.studio is not None and self.studio.now < self.studio.head:
            self.scrub(1)
        elif isinstance(self.loop, FixedStepLoop):
            self.loop.step()
        else:
            self._run_tick()

    def stop(self) -> None:
        """End ``run()`` after the current frame, with no further tick (Esc, closing the window)."""
        self._stopped = True
        self.loop.stop()
        self.window.has_exit = True

    # -- drawing ---------------------------------------------------------------------------

    def _draw(self, alpha: float, hud: bool = True) -> None:
        red, green, blue = self._background
        pyglet.gl.glClearColor(red, green, blue, 1.0)
        self.window.clear()
        self.view.draw(alpha if self.interpolate else 1.0)
        if not hud:
            return
        flags = [name for name, on in (("paused", self.paused), ("interpolation off", not self.interpolate),
                                       ("extrapolating", getattr(self.view, "extrapolate", False))) if on]
        driven = self.driver.hud_text()
        if driven:
            flags.append(driven)
        self.hud.note = "  ".join(flags)
        self.hud.draw(self.clock.now_ms())
        if self.overlay is not None:
            self.overlay.draw(self.clock.now_ms())

    def _render(self, alpha: float) -> None:
        self._draw(alpha)
        self.window.flip()
        now = time.perf_counter()
        frame_ms = (now - self._frame_started) * 1000
        self.hud.frame_time(frame_ms)
        self.frame_ms.append(frame_ms)
        self._frame_started = now
        if self.headless:
            self.clock.advance(self._render_ms)

    def run(self, frames: int | None = None) -> int:
        """Run until ``frames`` have been shown, or the window closes; return frames shown."""
        self._frame_started = time.perf_counter()
        return self.loop.run(frames=frames, until=lambda: bool(self.window.has_exit))

    def screenshot(self, path: str, file: Any = None, alpha: float | None = None) -> None:
        """Draw the current state once more (drawing changes nothing) and save it as a PNG (into ``file`` if given).

        The picture is the game's alone: the HUD is the window's, for the person watching,
        and never in a screenshot (it covered 520 x 125 pixels of a ``--frames`` run's PNG).
        ``alpha``: how far between the last two ticks to draw; by default where the last frame was.
        """
        self._draw(self.loop.alpha if alpha is None else alpha, hud=False)
        save_screenshot(path, file)

    def close(self) -> None:
        """Close the window and release the world's esper world (and stop watching)."""
        self.view.delete()
        if self.overlay is not None:
            self.overlay.delete()
        self.music.stop()
        if self.pads is not None:
            self.pads.close()
        self.window.close()
        if isinstance(self.driver, StudioDriver):
            self.driver.close()
        else:
            self.world.close()


_LOCAL_KEYWORDS = ("seed", "world", "before_tick", "after_tick", "forward_input")
_STUDIO_KEYWORDS = ("studio", "watcher", "paced")


def _old_display(display: Display | None, old: dict[str, Any]) -> Display:
    """``display``, or one made of the fields given one by one (deprecated: ``GameRunner(headless=True...)``)."""
    display_fields = {name: old.pop(name) for name in [item.name for item in fields(Display)] if name in old}
    if display_fields:
        warn_deprecated(f"GameRunner({', '.join(f'{field}=' for field in sorted(display_fields))}...)",
                        "GameRunner(display=Display(...)) (engine.display)", stacklevel=4,
                        removed_in=MOVED_REMOVED_IN)
        return replace(display or Display(), **display_fields)
    return display or Display()


def _old_driver(game: Game, driver: Driver | None, old: dict[str, Any]) -> tuple[Driver, bool]:
    """The driver, and whether window input reaches it: ``driver``, or one made of the deprecated keywords
    (``seed``, ``world``, the hooks, ``forward_input``; ``studio``, ``watcher``, ``paced``), or local play of a
    world of the game's own."""
    unknown = sorted(set(old) - set(_LOCAL_KEYWORDS) - set(_STUDIO_KEYWORDS))
    if unknown:
        raise TypeError(f"GameRunner() got an unexpected keyword argument {unknown[0]!r}")
    if old:
        studio = old.get("studio")
        new = ("GameRunner(name, StudioDriver(studio, watcher=..., before_tick=...)) (engine.studio)"
               if studio is not None else "GameRunner(name, LocalDriver(world, before_tick=...)) (engine.world.driver)")
        warn_deprecated(f"GameRunner({', '.join(f'{keyword}=' for keyword in sorted(old))}...)", new, stacklevel=4,
                        removed_in=MOVED_REMOVED_IN)
    if driver is not None:
        if old.get("studio") is not None:
            raise ValueError("a network session's world can't be rewound or reloaded: no studio with a driver")
        if old.get("world") not in (None, driver.world) or set(old) & {"seed", "before_tick", "after_tick"}:
            raise ValueError(f"GameRunner: {', '.join(sorted(set(old) - {'forward_input'}))} go with local play, not "
                             f"with a driver ({type(driver).__name__}) that ticks its own world: a LocalDriver "
                             "takes the world and its hooks")
        return driver, bool(old.get("forward_input", True))
    forward_input = bool(old.get("forward_input", True))
    players = None if forward_input else ()
    hooks = {"before_tick": old.get("before_tick"), "after_tick": old.get("after_tick")}
    studio = old.get("studio")
    if studio is not None:
        return StudioDriver(studio, watcher=old.get("watcher"), paced=bool(old.get("paced", False)), players=players,
                            **hooks), forward_input
    world = old.get("world")
    if world is None:
        # A world of its own has the fewest players the game takes (its PLAYERS), as tickswap run's has.
        world = World(seed=old.get("seed", 0), players=game.players.start)
        game.build(world)
    return LocalDriver(world, players=players, **hooks), forward_input


class _Blank:
    """A view that draws nothing: what a runner shows while its new view is being made."""

    def draw(self, alpha: float) -> None:
        """Draw nothing."""

    def delete(self) -> None:
        """Nothing to free."""
