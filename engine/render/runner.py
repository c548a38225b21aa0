"""GameRunner: a sample game, a loop, a window (or an off-screen one), input and the HUD.

The runner owns the main loop: each pass is one ``loop.frame()``, whose input step
pumps the window's events (key and mouse events go into the world's input queue, to
be handed to the next *tick*), whose render step clears, draws the view and the HUD
and flips. With a real window the loop runs on a ``RealClock`` and the display's vsync
(or ``max_fps``) paces it. Headless, it runs on a ``VirtualClock`` and every frame
advances it by one 60 Hz display refresh, so an off-screen run and its screenshot are
the same on every machine.

Standard keys in every game: Esc or Q quits, P pauses, N runs one tick while paused,
Space toggles interpolation, E toggles extrapolation, F1 toggles the HUD.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import pyglet

from engine.clock import RealClock, VirtualClock
from engine.input import InputEvent
from engine.loops import ConstantRateLoop, FixedStepLoop, RenderGatedLoop, VariableStepLoop
from engine.loops.base import _Loop
from engine.files.game import Game, load_game
from engine.loops.names import LOOPS
from engine.render.context import create_window, save_screenshot
from engine.render.entities import EntityRenderer
from engine.render.hud import Hud
from engine.world import World

__all__ = ["LOOPS", "GameRunner"]


DISPLAY_HZ = 60.0
"""The refresh rate a headless run pretends to have."""
HEADLESS_RENDER_MS = 1.0
"""What a headless render costs loops that pace themselves (constant rate, render-gated)."""


def make_game_loop(kind: str, tick: Callable[[], Any], render: Callable[[float], Any], *, ms_per_update: float,
                   clock: Any, process_input: Callable[[], Any], on_frame: Callable[[float], Any] | None = None,
                   max_fps: float | None = None) -> _Loop:
    """Build loop ``kind`` (one of ``LOOPS``) calling ``tick()`` for each update."""
    common: dict[str, Any] = {"process_input": process_input, "clock": clock, "on_frame": on_frame}
    if kind == "fixed":
        return FixedStepLoop(tick, render, ms_per_update=ms_per_update, max_fps=max_fps, **common)
    if kind == "max-fps":
        return FixedStepLoop(tick, render, ms_per_update=ms_per_update, interpolate=False, max_fps=max_fps, **common)
    if kind == "constant":
        return ConstantRateLoop(tick, render, fps=1000 / ms_per_update, **common)
    if kind == "variable":
        # A game's entities step in fixed ticks; here every frame is one tick, whatever
        # its length, which is exactly the variable loop's trade-off made visible.
        return VariableStepLoop(lambda elapsed_ms: tick(), render, target_fps=1000 / ms_per_update, **common)
    if kind == "gated":
        return RenderGatedLoop(tick, render, ms_per_update=ms_per_update, **common)
    raise ValueError(f"unknown loop {kind!r}; the loops are {', '.join(LOOPS)}")


class GameRunner:
    """Runs game ``name`` (a name, a game file's path, or a loaded ``Game``) in a window, or off-screen."""

    def __init__(self, name: str | Game, *, headless: bool = False, loop: str = "fixed", ups: float | None = None,
                 seed: int = 0, vsync: bool = True, world: World | None = None,
                 before_tick: Callable[[World], Any] | None = None, after_tick: Callable[[World], Any] | None = None,
                 forward_input: bool = True, max_fps: float | None = None, spin_ms: float = 1.0,
                 show_hud: bool = True) -> None:
        game = name if isinstance(name, Game) else load_game(name)
        self.name = game.name
        self.before_tick = before_tick
        """Called before every tick (a replay feeds its recorded input here)."""
        self.after_tick = after_tick
        """Called after every tick (recording, saving at a tick, checking a replay's hashes)."""
        self.forward_input = forward_input
        """Whether window input reaches the world (a replay plays its own; the keys still work)."""
        self.headless = headless
        self.world = world if world is not None else World(seed=seed)
        if world is None:
            game.build(self.world)
        width, height = game.setting("WIDTH", 640), game.setting("HEIGHT", 480)
        self.window = create_window(width, height, headless=headless, vsync=vsync, caption=f"tickswap: {game.name}")
        view_module = game.view()
        background = getattr(view_module, "BACKGROUND", (0, 0, 0))
        self._background = (background[0] / 255, background[1] / 255, background[2] / 255)
        make_view = getattr(view_module, "make_view", None)
        self.view: Any = (make_view(self.world) if make_view is not None
                          else EntityRenderer(self.world, looks=getattr(view_module, "LOOKS", {})))
        self.interpolate = True
        """Space toggles it: without it every frame draws the latest state (alpha 1)."""
        if max_fps is not None and loop not in ("fixed", "max-fps"):
            raise ValueError(f"max_fps paces the fixed-step loops; the {loop!r} loop paces itself or not at all")
        # Frame pacing: RealClock sleeps until spin_ms before each deadline, then spins,
        # because an OS sleep alone overshoots by up to a millisecond or more.
        self.clock: Any = VirtualClock() if headless else RealClock(spin_ms=spin_ms)
        ms_per_update = 1000 / ups if ups else game.setting("MS_PER_UPDATE", 15.625)
        self.ms_per_update = ms_per_update
        self.loop = make_game_loop(loop, self._tick, self._render, ms_per_update=ms_per_update,
                                   clock=self.clock, process_input=self._pump, max_fps=max_fps)
        # Headless, a loop that renders as often as it can would never let virtual time
        # pass: its flip stands in for a vsync'd 60 Hz one. Loops that wait for their own
        # deadlines just pay a small render cost, or two pacers would fight.
        self._render_ms = 1000 / DISPLAY_HZ if loop in ("fixed", "max-fps", "variable") else HEADLESS_RENDER_MS
        self.hud = Hud(self.window, self.loop, self.world,
                       entity_count=lambda: getattr(self.view, "entity_count", len(self.world)))
        self.hud.visible = show_hud
        self._paused = False
        self._stopped = False
        self._frame_started = time.perf_counter()
        self.window.push_handlers(
            on_key_press=self._on_key_press, on_key_release=self._on_key_release,
            on_mouse_press=self._on_mouse_press, on_mouse_release=self._on_mouse_release,
            on_mouse_motion=self._on_mouse_motion, on_close=self._on_close,
        )

    # -- input ------------------------------------------------------------------------

    def _pump(self) -> None:
        self.window.dispatch_events()

    def _on_key_press(self, symbol: int, modifiers: int) -> bool:
        from pyglet.window import key

        if self.forward_input:
            self.world.input_queue.push(InputEvent("key_press", symbol))
        if symbol in (key.ESCAPE, key.Q):
            self.stop()
        elif symbol == key.P:
            self.paused = not self.paused
        elif symbol == key.N and self.paused:
            self.step()
        elif symbol == key.SPACE:
            self.interpolate = not self.interpolate
        elif symbol == key.E:
            self.view.extrapolate = not self.view.extrapolate
        elif symbol == key.F1:
            self.hud.visible = not self.hud.visible
        return True  # handled: keeps pyglet's default Esc-closes-window out of the way

    def _forward(self, event: InputEvent) -> None:
        if self.forward_input:
            self.world.input_queue.push(event)

    def _on_key_release(self, symbol: int, modifiers: int) -> None:
        self._forward(InputEvent("key_release", symbol))

    def _on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        self._forward(InputEvent("mouse_press", button, float(x), float(y)))

    def _on_mouse_release(self, x: int, y: int, button: int, modifiers: int) -> None:
        self._forward(InputEvent("mouse_release", button, float(x), float(y)))

    def _on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        self._forward(InputEvent("mouse_motion", None, float(x), float(y)))

    def _on_close(self) -> bool:
        self.stop()
        return True

    # -- control --------------------------------------------------------------------------

    @property
    def paused(self) -> bool:
        """P toggles it. Fixed-step loops stop accumulating lag; the others skip their ticks."""
        return self._paused

    @paused.setter
    def paused(self, value: bool) -> None:
        self._paused = value
        if isinstance(self.loop, FixedStepLoop):
            self.loop.paused = value

    def _tick(self) -> None:
        # Fixed-step loops pause themselves (no lag piles up); the others keep calling,
        # and a paused game simply doesn't tick.
        # Once stopped, the rest of this frame's updates are skipped too: a replay must
        # not run past its end, nor a game past the Esc that quit it.
        if self._stopped or (self._paused and not isinstance(self.loop, FixedStepLoop)):
            return
        self._run_tick()

    def _run_tick(self) -> None:
        if self.before_tick is not None:
            self.before_tick(self.world)
        self.world.tick()
        if self.after_tick is not None:
            self.after_tick(self.world)

    def step(self) -> None:
        """Run exactly one tick while paused (N)."""
        if isinstance(self.loop, FixedStepLoop):
            self.loop.step()
        else:
            self._run_tick()

    def stop(self) -> None:
        """End ``run()`` after the current frame, with no further tick (Esc, Q, closing the window)."""
        self._stopped = True
        self.loop.stop()
        self.window.has_exit = True

    # -- drawing ---------------------------------------------------------------------------

    def _draw(self, alpha: float) -> None:
        red, green, blue = self._background
        pyglet.gl.glClearColor(red, green, blue, 1.0)
        self.window.clear()
        self.view.draw(alpha if self.interpolate else 1.0)
        flags = [name for name, on in (("paused", self._paused), ("interpolation off", not self.interpolate),
                                       ("extrapolating", getattr(self.view, "extrapolate", False))) if on]
        self.hud.note = "  ".join(flags)
        self.hud.draw(self.clock.now_ms())

    def _render(self, alpha: float) -> None:
        self._draw(alpha)
        self.window.flip()
        now = time.perf_counter()
        self.hud.frame_time((now - self._frame_started) * 1000)
        self._frame_started = now
        if self.headless:
            self.clock.advance(self._render_ms)

    def run(self, frames: int | None = None) -> int:
        """Run until ``frames`` have been shown, or the window closes; return frames shown."""
        return self.loop.run(frames=frames, until=lambda: bool(self.window.has_exit))

    def screenshot(self, path: str) -> None:
        """Draw the current state once more (drawing changes nothing) and save it as a PNG."""
        self._draw(self.loop.alpha)
        save_screenshot(path)

    def close(self) -> None:
        """Close the window and release the world's esper world."""
        delete = getattr(self.view, "delete", None)
        if delete is not None:
            delete()
        self.window.close()
        self.world.close()
