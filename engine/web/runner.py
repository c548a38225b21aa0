"""WebRunner: the game's loop in a web page, driven by ``requestAnimationFrame``.

The page calls ``frame(now_ms)`` once per animation frame with the browser's clock. It is
the Game Programming Patterns lag accumulator the desktop's fixed-step loop runs: the
real time since the last frame is added to ``lag``, whole ticks of ``ms_per_update`` are
run while it holds one, and what is left, as a share of a tick, is the ``alpha`` the page
draws with (``scene``: between the last two committed states). A frame that comes late (a
tab in the background) adds at most ``MAX_FRAME_MS``, so a page coming back runs a few
ticks, not minutes of them.

The DOM's keyboard, typed text, mouse and gamepad events come in through ``key``, ``text``,
``text_motion``, ``mouse``, ``pad`` and ``stick`` as the engine's ``InputEvent``s, routed to
players as a desktop window routes them (``engine.input.local.LocalPlayers``): they reach
the game at the next tick, and a recording made here holds them as ``tickswap run
--record`` would. The engine keeps F1
(the HUD, the page's), F2 (pause), F3 (one tick while paused) and F4 (interpolation), as
the desktop window does; Esc does nothing here (a page is closed by its tab).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.files.game import Game
from engine.input import keys
from engine.input.events import MAX_TEXT, InputEvent
from engine.input.local import LocalPlayers
from engine.look import Look
from engine.web.dom import dom_button, dom_key, stick_position
from engine.web.scene import map_tiles, scene
from engine.world import World, take_music, take_sounds

__all__ = ["MAX_FRAME_MS", "MAX_TICKS_PER_FRAME", "PAD_BUTTONS", "WebRunner"]

MAX_FRAME_MS = 250.0
"""The most real time one frame adds to the lag: a page back from the background doesn't run minutes of ticks."""
MAX_TICKS_PER_FRAME = 16
"""The most ticks one frame runs (what is left waits for the next frame: a slow machine slows the game down)."""
PAD_BUTTONS = (keys.PAD_A, keys.PAD_B, keys.PAD_X, keys.PAD_Y, keys.PAD_LB, keys.PAD_RB, keys.PAD_LT, keys.PAD_RT,
               keys.PAD_BACK, keys.PAD_START, keys.PAD_LSTICK, keys.PAD_RSTICK, keys.PAD_UP, keys.PAD_DOWN,
               keys.PAD_LEFT, keys.PAD_RIGHT, keys.PAD_GUIDE)
"""The engine's pad buttons by the index of the W3C "standard" gamepad mapping's buttons."""


_MOTIONS = {"ArrowUp": keys.MOTION_UP, "ArrowDown": keys.MOTION_DOWN, "ArrowLeft": keys.MOTION_LEFT,
            "ArrowRight": keys.MOTION_RIGHT, "Home": keys.MOTION_BEGINNING_OF_LINE, "End": keys.MOTION_END_OF_LINE,
            "PageUp": keys.MOTION_PREVIOUS_PAGE, "PageDown": keys.MOTION_NEXT_PAGE, "Backspace": keys.MOTION_BACKSPACE,
            "Delete": keys.MOTION_DELETE}
_MOTIONS_CTRL = {"ArrowLeft": keys.MOTION_PREVIOUS_WORD, "ArrowRight": keys.MOTION_NEXT_WORD,
                 "Home": keys.MOTION_BEGINNING_OF_FILE, "End": keys.MOTION_END_OF_FILE}


class WebRunner:
    """Runs ``world`` of ``game`` in a page: ``frame`` per animation frame, input in, the frame and sounds out.

    ``before_tick`` and ``after_tick`` are called around every tick (a script's or a replay's
    input, a recording); ``stop_at`` stops the ticks at that tick count (a scripted run whose
    hash is read); ``forward_input=False`` keeps the page's input from the game (a replay).
    """

    def __init__(self, game: Game, world: World, *, ms_per_update: float | None = None,
                 before_tick: Callable[[World], Any] | None = None, after_tick: Callable[[World], Any] | None = None,
                 forward_input: bool = True, stop_at: int | None = None) -> None:
        self.game = game
        self.world = world
        view = game.view()
        self.looks: Mapping[type, Look] = dict(getattr(view, "LOOKS", {}))
        self.background = tuple(getattr(view, "BACKGROUND", (0, 0, 0)))[:3]
        self.custom_view = getattr(view, "make_view", None) is not None
        """The game draws itself with pyglet (``make_view``): the page draws its looks only, and says so."""
        self.view_size = game.view_size
        world.view_size = self.view_size
        self.ms_per_update = ms_per_update or game.ms_per_update
        world.ms_per_update = self.ms_per_update
        self.before_tick, self.after_tick = before_tick, after_tick
        self.forward_input = forward_input
        self.stop_at = stop_at
        self.local_players = LocalPlayers(tuple(range(world.players)), game.player_keys)
        self.lag = 0.0
        self.last_ms: float | None = None
        self.paused = False
        self.interpolate = True
        self.stopped: str | None = None
        """Why the ticks stopped (a crash, the end of a replay or of a scripted run), or ``None``."""
        self.tick_ms = 0.0
        """The real time spent in ticks (their ticks/s is ``ticks_run / tick_ms``)."""
        self.ticks_run = 0
        self._sounds: list[list[Any]] = []
        self._music: list[list[Any]] = []
        self._mouse_buttons = 0

    # -- the loop ------------------------------------------------------------------------

    def step(self) -> None:
        """Run one tick, with its hooks; a crash stops the ticks and is kept in ``stopped``."""
        world = self.world
        started = time.perf_counter()
        try:
            if self.before_tick is not None:
                self.before_tick(world)
            world.tick()
            if self.after_tick is not None:
                self.after_tick(world)
        except Exception as error:  # shown on the page; the world stays as the tick left it
            self.stopped = f"{type(error).__name__}: {error}"
        self.tick_ms += (time.perf_counter() - started) * 1000.0
        self.ticks_run += 1
        self._sounds.extend([request.sound, request.volume] for request in take_sounds(world))
        self._music.extend([request.path, request.loop, request.volume] for request in take_music(world))
        if self.stop_at is not None and world.tick_count >= self.stop_at and self.stopped is None:
            self.stopped = f"stopped at tick {world.tick_count}"

    def frame(self, now_ms: float) -> float:
        """One animation frame at the browser's ``now_ms``: the ticks due, then the ``alpha`` to draw with."""
        elapsed = 0.0 if self.last_ms is None else min(MAX_FRAME_MS, max(0.0, now_ms - self.last_ms))
        self.last_ms = now_ms
        if self.stopped is not None or self.paused:
            return 1.0
        self.lag += elapsed
        ran = 0
        while self.lag >= self.ms_per_update and ran < MAX_TICKS_PER_FRAME and self.stopped is None:
            self.step()
            self.lag -= self.ms_per_update
            ran += 1
        if ran == MAX_TICKS_PER_FRAME:
            self.lag = min(self.lag, self.ms_per_update)
        if self.stopped is not None:
            return 1.0
        return min(1.0, self.lag / self.ms_per_update) if self.interpolate else 1.0

    def run_ticks(self, count: int) -> None:
        """Run ``count`` ticks now, back to back (a scripted run's ``--ticks``), or until the ticks stop."""
        for _ in range(count):
            if self.stopped is not None:
                break
            self.step()

    # -- input -------------------------------------------------------------------------

    def _forward(self, event: InputEvent, pad: int | None = None) -> None:
        if self.forward_input:
            for player, routed in self.local_players.route(event, pad):
                self.world.input_queue_of(player).push(routed)

    def key(self, down: bool, code: str, modifiers: int = 0) -> bool:
        """A DOM key (``KeyboardEvent.code``) went down or up; whether the engine knows it (the page then keeps
        the browser from acting on it too)."""
        symbol = dom_key(code)
        if symbol is None:
            return False
        if symbol not in keys.RESERVED:
            self._forward(InputEvent("key_press" if down else "key_release", symbol, modifiers=modifiers))
        elif down and symbol == keys.F2:
            self.paused = not self.paused
        elif down and symbol == keys.F3 and self.paused and self.stopped is None:
            self.step()
        elif down and symbol == keys.F4:
            self.interpolate = not self.interpolate
        return True

    def text(self, text: str) -> None:
        """Text typed (a DOM ``keydown``'s ``key`` of one character): ``"text"`` events of its printable characters."""
        printable = "".join(character for character in str(text)[:1024] if character.isprintable())
        for start in range(0, len(printable), MAX_TEXT):
            self._forward(InputEvent("text", printable[start:start + MAX_TEXT]))

    def text_motion(self, code: str, ctrl: bool = False) -> None:
        """An editing key (a DOM ``KeyboardEvent.code``): a ``"text_motion"`` event, as pyglet gives the desktop's
        (the arrows, Home and End, Page Up and Down, Backspace, Delete; with Ctrl, by word or to the file's ends)."""
        motion = _MOTIONS_CTRL.get(code) if ctrl else None
        motion = motion if motion is not None else _MOTIONS.get(code)
        if motion is not None:
            self._forward(InputEvent("text_motion", motion))

    def mouse(self, kind: str, button: int, x: float, y: float, modifiers: int = 0,
              scroll_x: float = 0.0, scroll_y: float = 0.0) -> None:
        """A DOM mouse event in window coordinates (bottom-left origin, the game's view size): ``kind`` is
        ``press``, ``release``, ``motion`` or ``scroll``."""
        if kind in ("press", "release"):
            which = dom_button(button)
            if which is None:
                return
            self._mouse_buttons = (self._mouse_buttons | which) if kind == "press" else (self._mouse_buttons & ~which)
            self._forward(InputEvent("mouse_press" if kind == "press" else "mouse_release", which, x, y,
                                     modifiers=modifiers))
        elif kind == "motion":
            if self._mouse_buttons:
                self._forward(InputEvent("mouse_drag", self._mouse_buttons, x, y, modifiers=modifiers))
            else:
                self._forward(InputEvent("mouse_motion", None, x, y, modifiers=modifiers))
        elif kind == "scroll":
            self._forward(InputEvent("mouse_scroll", None, x, y, modifiers=modifiers, scroll_x=scroll_x,
                                     scroll_y=scroll_y))

    def pad(self, slot: int, button: int, down: bool) -> None:
        """Button ``button`` (the standard mapping's index) of the gamepad in ``slot`` went down or up."""
        if 0 <= button < len(PAD_BUTTONS):
            self._forward(InputEvent("key_press" if down else "key_release", PAD_BUTTONS[button]), slot)

    def stick(self, slot: int, stick: int, x: float, y: float) -> None:
        """A stick of the gamepad in ``slot`` moved to (x, y), y up (the page asks ``quantised`` first)."""
        self._forward(InputEvent("stick", stick, *stick_position(x, y)), slot)

    @staticmethod
    def quantised(x: float, y: float) -> tuple[float, float]:
        """A stick's position as the game will see it (``engine.web.dom.stick_position``): the page sends a move
        only when this changes, as the desktop's pads do."""
        return stick_position(x, y)

    # -- out ---------------------------------------------------------------------------

    def draw_json(self, alpha: float) -> str:
        """The frame ``alpha`` into the next tick, as JSON for the page (``engine.web.scene``), with the HUD's line."""
        frame = scene(self.world, self.looks, alpha, self.view_size)
        rate = self.ticks_run / self.tick_ms * 1000.0 if self.tick_ms else 0.0
        frame["hud"] = (f"tick {self.world.tick_count}  {rate:,.0f} ticks/s in Python"
                        + ("  paused" if self.paused else "") + (f"  {self.stopped}" if self.stopped else ""))
        return json.dumps(frame)

    def map_json(self, map_id: int) -> str:
        """The tiles of a spawned tile map, as JSON (the page draws them once into a picture of its own)."""
        return json.dumps(map_tiles(self.world, map_id))

    def take_sounds_json(self) -> str:
        """The sounds the ticks since the last call asked for, as JSON ``[[path, volume], ...]``; then forgotten."""
        sounds, self._sounds = self._sounds, []
        return json.dumps(sounds)

    def take_music_json(self) -> str:
        """The changes of music since the last call, as JSON ``[[path or null, loop, volume], ...]``; then forgotten."""
        music, self._music = self._music, []
        return json.dumps(music)

    def state_hash(self) -> str:
        """The world's state hash now (``World.state_hash``): the same as ``tickswap run``'s after the same ticks."""
        return self.world.state_hash()
