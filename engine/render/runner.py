"""GameRunner: a sample game, a loop, a window (or an off-screen one), input and the HUD.

The runner owns the main loop: each pass is one ``loop.frame()``, whose input step
pumps the window's events (key and mouse events go into the world's input queue, to
be handed to the next *tick*), whose render step clears, draws the view and the HUD
and flips. With a real window the loop runs on a ``RealClock`` and the display's vsync
(or ``max_fps``) paces it. Headless, it runs on a ``VirtualClock`` and every frame
advances it by one 60 Hz display refresh, so an off-screen run and its screenshot are
the same on every machine.

The engine keeps only Esc (quit) and F1 to F5: F1 toggles the HUD, F2 pauses, F3 runs
one tick while paused, F4 toggles interpolation, F5 extrapolation. Every other key,
mouse drags, the wheel, the modifiers and typed text (``"text"`` and ``"text_motion"``
events) go to the game (``world.input``), untouched.
Sounds and music the world asked for during a tick are played right after it (silent
headless). The first connected game controller (``engine.render.pads``) reaches the game
as ``keys.PAD_*`` buttons and ``"stick"`` events, like keys; headless there are none.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import pyglet

from engine.clock import RealClock, VirtualClock
from engine.files.game import Game
from engine.files.importer import load_game
from engine.input import keys
from engine.input.events import MAX_TEXT, InputEvent
from engine.interrupts import TICK
from engine.loops import LOOPS, FixedStepLoop, make_loop
from engine.messages import shown
from engine.render.context import create_window, save_screenshot
from engine.render.entities import EntityRenderer
from engine.render.hud import Hud
from engine.render.music import MusicPlayer
from engine.render.pads import PadReader
from engine.render.sound import SoundPlayer
from engine.render.view import View
from engine.world import World, take_music, take_sounds
from engine.world.sounds import SoundRequest

__all__ = ["Driver", "GameRunner"]


class Driver(Protocol):
    """What drives a runner's ticks instead of ``world.tick``: a network session (``engine.net.Session``).

    The runner hands it the window's events, polls it once a frame, shows its ``hud_text``
    and stops when it has ``ended``.
    """

    @property
    def ended(self) -> str | None:
        """Why the session stopped (a desync, a dropped peer), or ``None`` while it runs."""

    def poll(self) -> None:
        """Receive and send what the network has, without blocking (once a frame)."""

    def advance(self, local: Sequence[InputEvent]) -> int:
        """Run the ticks due now with the local player's new events; how many ran."""

    def idle(self, timeout_s: float) -> None:
        """Off-screen, once a frame: wait up to ``timeout_s`` of real time when there is nothing to run yet."""

    def hud_text(self) -> str:
        """A short line for the HUD (ping, frames ahead, rollbacks)."""

    def take_sounds(self) -> list[SoundRequest]:
        """The sounds of ticks not handed out before (a re-simulated tick's are not played twice)."""


DISPLAY_HZ = 60.0
"""The refresh rate a headless run pretends to have."""
HEADLESS_RENDER_MS = 1.0
"""What a headless render costs loops that pace themselves (constant rate, render-gated)."""


class GameRunner:
    """Runs game ``name`` (a name, a game file's path, or a loaded ``Game``) in a window, or off-screen."""

    def __init__(self, name: str | Game, *, headless: bool = False, loop: str = "fixed", ups: float | None = None,
                 seed: int = 0, vsync: bool = True, world: World | None = None,
                 before_tick: Callable[[World], Any] | None = None, after_tick: Callable[[World], Any] | None = None,
                 forward_input: bool = True, max_fps: float | None = None, spin_ms: float = 1.0,
                 show_hud: bool = True, driver: Driver | None = None) -> None:
        game = name if isinstance(name, Game) else load_game(name)
        self.name = game.name
        self.before_tick = before_tick
        """Called before every tick (a replay feeds its recorded input here)."""
        self.after_tick = after_tick
        """Called after every tick (recording, saving at a tick, checking a replay's hashes)."""
        self.forward_input = forward_input
        """Whether window input reaches the world (a replay plays its own; the keys still work)."""
        self.headless = headless
        self.driver = driver
        """What runs the ticks instead of ``world.tick`` (a network session), or ``None``."""
        self._local: list[InputEvent] = []  # the window's events for the driver's next tick
        self.world = world if world is not None else World(seed=seed)
        if world is None:
            game.build(self.world)
        width, height = game.view_size
        self.world.view_size = (width, height)  # a world given (a replay's, a save's) maps the mouse like this window
        self.window = create_window(width, height, headless=headless, vsync=vsync, caption=f"tickswap: {game.name}")
        view_module = game.view()
        background = getattr(view_module, "BACKGROUND", (0, 0, 0))
        self._background = (background[0] / 255, background[1] / 255, background[2] / 255)
        make_view = getattr(view_module, "make_view", None)
        view = (make_view(self.world) if make_view is not None
                else EntityRenderer(self.world, looks=getattr(view_module, "LOOKS", {}), window=self.window))
        if not isinstance(view, View):  # refused here by name, not as an AttributeError in the first frame
            self.window.close()
            raise ValueError(f"{game.name}: make_view(world) returned {shown(view)}; it must return a View "
                             "(an object with draw(alpha) and delete())")
        self.view: View = view
        self.interpolate = True
        """F4 toggles it: without it every frame draws the latest state (alpha 1)."""
        self.sound = SoundPlayer(silent=headless)
        """Plays what the world asks for after each tick; headless it only keeps the log (``sound.played``)."""
        self.music = MusicPlayer(silent=headless)
        """Streams the music the world asks for (headless it only keeps the log, ``music.asked``)."""
        self.pads = None if headless else PadReader(self._forward)
        """The game controller, read with the window's events (none headless)."""
        # Frame pacing: RealClock sleeps until spin_ms before each deadline, then spins,
        # because an OS sleep alone overshoots by up to a millisecond or more.
        self.clock: Any = VirtualClock() if headless else RealClock(spin_ms=spin_ms)
        ms_per_update = 1000 / ups if ups else game.ms_per_update
        self.ms_per_update = ms_per_update
        self.sound.ms_per_update = ms_per_update  # a limited sound's plays are timed in ticks
        self.world.ms_per_update = ms_per_update  # speed_factor is 1.0 exactly at this step
        self.loop = make_loop(loop, self._tick, self._render, ms_per_update=ms_per_update,
                              clock=self.clock, process_input=self._pump, max_fps=max_fps)
        # Headless, a loop that renders as often as it can would never let virtual time
        # pass: its flip stands in for a vsync'd 60 Hz one. Loops that wait for their own
        # deadlines just pay a small render cost, or two pacers would fight.
        self._render_ms = 1000 / DISPLAY_HZ if LOOPS[loop].renders_freely else HEADLESS_RENDER_MS
        self.hud = Hud(self.window, self.loop, self.world)
        self.hud.visible = show_hud
        self._paused = False
        self._stopped = False
        self._frame_started = time.perf_counter()
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

    # -- input ------------------------------------------------------------------------

    def _pump(self) -> None:
        self.window.dispatch_events()
        if self.pads is not None:
            self.pads.poll()
        if self.driver is not None:
            if self.headless:  # a virtual frame is no real time: don't outrun the peers' real ones
                self.driver.idle(self._render_ms / 1000.0)
            with TICK:  # a signal waits for the datagrams applied whole, as for a tick
                self.driver.poll()
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
        elif symbol == keys.F2 and self.driver is None:  # a session's peers don't wait for one player's pause
            self.paused = not self.paused
        elif symbol == keys.F3 and self.paused:
            self.step()
        elif symbol == keys.F4:
            self.interpolate = not self.interpolate
        elif symbol == keys.F5 and hasattr(self.view, "extrapolate"):
            self.view.extrapolate = not self.view.extrapolate
        return True  # handled: keeps pyglet's default Esc-closes-window out of the way

    def _forward(self, event: InputEvent) -> None:
        if not self.forward_input:
            return
        if self.driver is not None:
            self._local.append(event)
        else:
            self.world.input_queue.push(event)

    def _on_key_release(self, symbol: int, modifiers: int) -> None:
        if symbol not in keys.RESERVED:
            self._forward(InputEvent("key_release", symbol, modifiers=modifiers))

    def _on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        self._forward(InputEvent("mouse_press", button, float(x), float(y), modifiers))

    def _on_mouse_release(self, x: int, y: int, button: int, modifiers: int) -> None:
        self._forward(InputEvent("mouse_release", button, float(x), float(y), modifiers))

    def _on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        self._forward(InputEvent("mouse_motion", None, float(x), float(y)))

    def _on_mouse_drag(self, x: int, y: int, dx: int, dy: int, buttons: int, modifiers: int) -> None:
        # pyglet sends drags instead of motions while a button is held.
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
        """F2 toggles it. Fixed-step loops stop accumulating lag; the others skip their ticks."""
        return self._paused

    @paused.setter
    def paused(self, value: bool) -> None:
        self._paused = value
        if isinstance(self.loop, FixedStepLoop):
            self.loop.paused = value

    def _tick(self, elapsed_ms: float | None = None) -> None:
        # Fixed-step loops pause themselves (no lag piles up); the others keep calling,
        # and a paused game simply doesn't tick.
        # Once stopped, the rest of this frame's updates are skipped too: a replay must
        # not run past its end, nor a game past the Esc that quit it.
        if self._stopped or (self._paused and not isinstance(self.loop, FixedStepLoop)):
            return
        self._run_tick(elapsed_ms)

    def _run_tick(self, elapsed_ms: float | None = None) -> None:
        if self.driver is not None:
            # The session decides which ticks run (none while waiting for a peer, several after a
            # rollback) and hands out only effects of ticks it has not handed out before.
            local, self._local = self._local, []
            with TICK:
                self.driver.advance(local)
            self.sound.play(self.driver.take_sounds())
            self.music.play(take_music(self.world))
            return
        with TICK:  # a signal waits for the tick and its hooks: a recording always ends where the world is
            if self.before_tick is not None:
                self.before_tick(self.world)
            self.world.tick(elapsed_ms)
            if self.after_tick is not None:
                self.after_tick(self.world)
        # Effects after the tick, from what the tick asked for: a replay asks again.
        self.sound.play(take_sounds(self.world))
        self.music.play(take_music(self.world))

    def step(self) -> None:
        """Run exactly one tick while paused (F3)."""
        if isinstance(self.loop, FixedStepLoop):
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
        flags = [name for name, on in (("paused", self._paused), ("interpolation off", not self.interpolate),
                                       ("extrapolating", getattr(self.view, "extrapolate", False))) if on]
        if self.driver is not None:
            flags.append(self.driver.hud_text())
        self.hud.note = "  ".join(flags)
        self.hud.draw(self.clock.now_ms())

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
        """Close the window and release the world's esper world."""
        self.view.delete()
        self.music.stop()
        if self.pads is not None:
            self.pads.close()
        self.window.close()
        self.world.close()
