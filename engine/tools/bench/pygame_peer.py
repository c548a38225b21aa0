"""pygame-ce running the churn and bullet-hell workloads in its own process, one tick per request.

``tickswap bench churn`` and ``tickswap bench bullets`` put tickswap beside pygame-ce, the
workload written as a pygame-ce user writes it: ``pygame.sprite.Sprite`` subclasses with
``update()``, ``pygame.sprite.Group``s updated once a tick, ``sprite.kill()`` and a new
sprite added to the groups, a hub counting pings in a plain attribute, and
``pygame.sprite.spritecollide`` for what a player and its shots touch. Headless: no window,
no drawing (``SDL_VIDEODRIVER=dummy``; ``pygame.Rect``s only), since tickswap's side is
logic only too.

pygame-ce is never a dependency, and usually lives in an environment of its own (it and
pyglet each want their own window stack), so this file runs under a Python that may not
have tickswap at all: ``python path/to/pygame_peer.py WORKLOAD SIZE``. Everything at its
top level is the standard library: the workloads' schedules (who lives how long, where
each one starts, which rings are fired when), which ``churn`` and ``bullets`` import for
tickswap's side, so both sides run the same workload; the bench's end of the pipe
(``Peer``, ``interleave``); and the child's ``main``, which imports pygame.

The protocol, as ``arcade_peer``'s: the child prints ``ready NAME`` (or ``unavailable
REASON`` and exits), then answers each line ``tick`` on its standard input with ``SECONDS
ALIVE CHECK``: the CPU time of that tick alone (``time.thread_time``, as the bench times
tickswap's ticks), how many churners or bullets are alive after it, and the workload's
running count (pings the hubs have read; touches the player and its shots have found).
The bench finds the child's Python through ``TICKSWAP_PYGAME_PYTHON`` (a Python that has
pygame-ce), or uses its own where pygame is importable; otherwise its rows say "not measured".
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["BULLET_LIFETIME", "BULLET_SIZE", "BULLET_SPEED", "CHURN_LIFETIME", "EMITTERS", "FIELD", "HEADLESS", "HUBS",
           "PLAYER_SIZE", "PYTHON_VARIABLE", "SHOT_PERIOD", "SHOT_SIZE", "Against", "Peer", "bullet_plan",
           "churner_lifetime", "churner_start", "emitter_place", "interleave", "main", "off_field", "peer_python",
           "player_at", "pygame_here", "ring", "serve_ticks", "shot_velocities"]

PYTHON_VARIABLE = "TICKSWAP_PYGAME_PYTHON"
"""The environment variable naming a Python that has pygame-ce (``/path/to/venv/bin/python``)."""

HEADLESS = {"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}
"""The peer's environment: no window, no sound device, no greeting on its standard output (the pipe)."""

class Against:
    """A bench's rows, each timed against pygame-ce's (its ``"pygame"`` case) where that ran, else ``first``'s.

    ``ms`` holds each case's median milliseconds a tick; ``first_words`` names ``first`` in
    the rows when pygame-ce did not run (``"the churn world's"``).
    """

    def __init__(self, ms: dict[str, float], first: str, first_words: str) -> None:
        self.ms = ms
        self.peer_ran = "pygame" in ms
        """Whether pygame-ce answered, so the ratios are against it."""
        self.reference = ms.get("pygame", ms[first])
        """The milliseconds a tick every ratio divides."""
        self._against = "pygame-ce's" if self.peer_ran else f"{first_words} (no pygame-ce here)"

    def row(self, case: str, name: str, target: str = "") -> tuple[str, float, float, str]:
        """The row of case ``name``: its milliseconds, its ratio, its ticks a second and ``target``."""
        ms = self.ms[name]
        return case, ms, self.reference / ms, f"{1e3 / ms:,.0f} ticks/s; ratio: times {self._against} ticks/s{target}"

    def peer_row(self, peer: Peer, what: str, target: str, bench: str) -> tuple[str, float, float, str]:
        """pygame-ce's row; where it did not run, why, and how to run it (``tickswap bench BENCH``)."""
        if self.peer_ran:
            return self.row(f"{peer.name}: {what}", "pygame", target)
        return (f"pygame-ce: {peer.reason or 'stopped answering'}", math.nan, math.nan,
                f"to measure: {PYTHON_VARIABLE}=/path/to/venv/bin/python tickswap bench {bench}")


# -- the churn workload ----------------------------------------------------------------------

HUBS = 100
"""Hubs the churners signal: churner ``serial`` pings hub ``serial % HUBS``."""
CHURN_LIFETIME = 10
"""Ticks a churner lives: a tenth of them despawn each tick, and a new one is spawned for each."""


def churner_lifetime(serial: int) -> int:
    """Ticks left to the first churners: staggered 1 to ``CHURN_LIFETIME``, so a tenth go every tick from the first."""
    return 1 + serial % CHURN_LIFETIME


def churner_start(serial: int) -> tuple[float, float, float, float]:
    """(x, y, vx, vy) of churner ``serial``: spread over the field, drifting up to a pixel a tick."""
    return (float(serial * 37 % 800), float(serial * 91 % 600),
            (serial % 7 - 3) * 0.25, (serial % 5 - 2) * 0.25)


# -- the bullet-hell workload -----------------------------------------------------------------

FIELD = (800.0, 600.0)
"""Width and height of the field: a bullet or shot that leaves it is despawned."""
BULLET_LIFETIME = 100
"""Ticks a bullet lives if it stays on the field."""
BULLET_SPEED = 3.0
"""A bullet's speed, in pixels a tick."""
BULLET_SIZE = 6.0
"""A bullet's square box, in pixels."""
PLAYER_SIZE = 16.0
"""The player's square box, in pixels."""
SHOT_SIZE = 6.0
"""A player shot's square box, in pixels."""
SHOT_PERIOD = 6
"""The player fires a fan of shots every ``SHOT_PERIOD`` ticks."""
EMITTERS = 8
"""Emitters on a circle round the middle of the field, each firing rings in turn."""


def bullet_plan(bullets: int) -> tuple[int, int]:
    """(bullets a ring, ticks between an emitter's rings) keeping about ``bullets`` alive.

    ``EMITTERS`` emitters fire a ring every ``period`` ticks and a bullet lives
    ``BULLET_LIFETIME`` ticks, so ``ring * EMITTERS * BULLET_LIFETIME / period`` are alive
    once the first ones expire (a few fewer: some leave the field first).
    """
    ring_size = max(4, bullets // 200)
    period = max(1, round(ring_size * EMITTERS * BULLET_LIFETIME / max(1, bullets)))
    return ring_size, period


def emitter_place(n: int) -> tuple[float, float]:
    """Where emitter ``n`` stands: on a circle of 120 px round the middle of the field."""
    angle = 2.0 * math.pi * n / EMITTERS
    return FIELD[0] / 2 + 120.0 * math.cos(angle), FIELD[1] / 2 + 120.0 * math.sin(angle)


def ring(emitter: int, fired: int, size: int) -> list[tuple[float, float]]:
    """The velocities of emitter ``emitter``'s ``fired``-th ring: ``size`` bullets evenly round, turning each ring."""
    turn = fired * 0.17 + emitter * 0.5
    return [(BULLET_SPEED * math.cos(turn + 2.0 * math.pi * k / size),
             BULLET_SPEED * math.sin(turn + 2.0 * math.pi * k / size)) for k in range(size)]


def player_at(t: int) -> tuple[float, float]:
    """The player's position at its ``t``-th tick: weaving through the rings, near the emitters."""
    return FIELD[0] / 2 + 200.0 * math.cos(t * 0.02), FIELD[1] / 2 + 90.0 * math.sin(t * 0.05)


def shot_velocities() -> list[tuple[float, float]]:
    """The fan of three shots the player fires every ``SHOT_PERIOD`` ticks."""
    return [(-1.0, 8.0), (0.0, 8.0), (1.0, 8.0)]


def off_field(x: float, y: float) -> bool:
    """Whether a point has left the field (bullets and shots are despawned there)."""
    return not (0.0 <= x < FIELD[0] and 0.0 <= y < FIELD[1])


# -- the bench's end: finding the peer's Python, driving it tick by tick ---------------------


def pygame_here() -> bool:
    """Whether this Python can import pygame (then, without ``TICKSWAP_PYGAME_PYTHON``, the peer runs under it)."""
    return importlib.util.find_spec("pygame") is not None


def peer_python() -> tuple[str | None, str]:
    """(the Python to run the peer with, or None; why that one, or why none).

    ``TICKSWAP_PYGAME_PYTHON`` when it is set (pygame-ce's own environment); else this
    Python if it can import pygame; else None, and the reason the rows give.
    """
    chosen = os.environ.get(PYTHON_VARIABLE, "").strip()
    if chosen:
        return chosen, f"{PYTHON_VARIABLE}={chosen}"
    if pygame_here():
        return sys.executable, "this Python"
    return None, (f"pygame-ce not installed: set {PYTHON_VARIABLE} to a Python that has it "
                  "(python -m venv pgvenv && pgvenv/bin/pip install pygame-ce)")


class Peer:
    """pygame-ce's side of one workload, in a child process: ``tick()`` runs one tick there and returns its figures.

    ``name`` says what runs (``pygame-ce 2.5.8, Python 3.11.7``) once it is ready; if it
    could not start, ``reason`` says why and ``tick()`` returns None. A child that stops
    answering is closed and said so in ``reason``, so a bench never hangs on a dead peer.
    """

    def __init__(self, workload: str, size: int) -> None:
        self.name = ""
        self.reason = ""
        self.ticks = 0
        self._process: subprocess.Popen[str] | None = None
        python, why = peer_python()
        if python is None:
            self.reason = why
            return
        env = {**os.environ, **HEADLESS}
        try:
            self._process = subprocess.Popen([python, str(Path(__file__).resolve()), workload, str(size)],
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        except OSError as error:
            self.reason = f"{why} cannot be run ({type(error).__name__}: {error})"
            return
        said = self._read().split(maxsplit=1)
        if said and said[0] == "ready" and len(said) == 2:
            self.name = said[1].strip()
        else:
            detail = said[1].strip() if len(said) > 1 else "no answer"
            self.reason = f"pygame not usable with {why} ({detail})"
            self.close()

    def _read(self) -> str:
        assert self._process is not None and self._process.stdout is not None
        return self._process.stdout.readline()

    def tick(self) -> tuple[float, int, int] | None:
        """Run one tick in the child: (its CPU seconds, alive after it, the running count), or None if it is gone."""
        if self._process is None:
            return None
        assert self._process.stdin is not None
        try:
            self._process.stdin.write("tick\n")
            self._process.stdin.flush()
            answer = self._read().split()
        except OSError:
            answer = []
        if len(answer) != 3:
            self.reason = f"{self.name or 'pygame'} stopped answering after {self.ticks} ticks"
            self.name = ""
            self.close()
            return None
        self.ticks += 1
        return float(answer[0]), int(answer[1]), int(answer[2])

    def close(self) -> None:
        """End the child (closing its input ends it) and wait for it."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):  # a child that died has closed its end already
                process.stdin.close()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def interleave(cases: dict[str, Callable[[], Any]], peer: Peer, warm: int,
               ticks: int) -> tuple[dict[str, float], list[tuple[int, int]]]:
    """Tick every case and the peer once a round, ``warm`` rounds untimed then ``ticks`` timed.

    Returns the median CPU seconds of a timed tick per case (``"pygame"`` among them while
    the peer answered every tick) and the peer's (alive, count) after each timed tick. Each
    tickswap tick is timed here as the child times its own: ``time.thread_time`` round the
    whole tick, so the other work on a shared machine is charged to neither side.
    """
    times: dict[str, list[float]] = {name: [] for name in cases}
    peer_times: list[float] = []
    figures: list[tuple[int, int]] = []
    for round_ in range(warm + ticks):
        for name, case in cases.items():
            start = time.thread_time()
            case()
            if round_ >= warm:
                times[name].append(time.thread_time() - start)
        answer = peer.tick()
        if answer is not None and round_ >= warm:
            peer_times.append(answer[0])
            figures.append((answer[1], answer[2]))
    medians = {name: statistics.median(values) for name, values in times.items()}
    if peer.name and len(peer_times) == ticks and ticks:
        medians["pygame"] = statistics.median(peer_times)
    return medians, figures


# -- the child's end: the workloads in pygame-ce ----------------------------------------------

Built = tuple[Callable[[], Any], Callable[[], int], Callable[[], int]]
"""A workload built in pygame: (one tick, how many are alive, the running count)."""


def _churn(pygame: Any, count: int) -> Built:
    """The churn workload as a pygame-ce user writes it: one Group of hubs and churners, updated once a tick."""
    everything = pygame.sprite.Group()
    hubs: list[Any] = []

    class Hub(pygame.sprite.Sprite):  # type: ignore[misc]
        def __init__(self, n: int) -> None:
            super().__init__(everything)
            self.rect = pygame.Rect(n * 8, 0, 8, 8)
            self.pings = 0
            self.heard = 0

        def update(self) -> None:
            # Updated before the churners (added first): reads what was sent last tick, as a signal is read.
            self.heard += self.pings
            self.pings = 0

    class Churner(pygame.sprite.Sprite):  # type: ignore[misc]
        def __init__(self, serial: int, left: int) -> None:
            super().__init__(everything)
            self.serial, self.left = serial, left
            self.x, self.y, self.vx, self.vy = churner_start(serial)
            self.rect = pygame.Rect(0, 0, 4, 4)
            self.rect.center = (self.x, self.y)
            self.hub = hubs[serial % HUBS]

        def update(self) -> None:
            self.x += self.vx
            self.y += self.vy
            self.rect.center = (self.x, self.y)
            self.hub.pings += 1
            self.left -= 1
            if not self.left:
                self.kill()
                Churner(self.serial + count, CHURN_LIFETIME)

    hubs.extend(Hub(n) for n in range(HUBS))
    for serial in range(count):
        Churner(serial, churner_lifetime(serial))
    return everything.update, lambda: len(everything) - HUBS, lambda: sum(hub.heard for hub in hubs)


def _bullets(pygame: Any, count: int) -> Built:
    """The bullet hell as a pygame-ce user writes it: emitters, bullets, a player and shots in Groups."""
    everything, bullets = pygame.sprite.Group(), pygame.sprite.Group()
    collide = pygame.sprite.spritecollide
    ring_size, period = bullet_plan(count)

    def box(size: float, x: float, y: float) -> Any:
        rect = pygame.Rect(0, 0, int(size), int(size))
        rect.center = (x, y)
        return rect

    class Bullet(pygame.sprite.Sprite):  # type: ignore[misc]
        def __init__(self, x: float, y: float, vx: float, vy: float) -> None:
            super().__init__(everything, bullets)
            self.x, self.y, self.vx, self.vy = x, y, vx, vy
            self.age = 0
            self.rect = box(BULLET_SIZE, x, y)

        def update(self) -> None:
            self.x += self.vx
            self.y += self.vy
            self.rect.center = (self.x, self.y)
            self.age += 1
            if self.age >= BULLET_LIFETIME or off_field(self.x, self.y):
                self.kill()

    class Emitter(pygame.sprite.Sprite):  # type: ignore[misc]
        def __init__(self, n: int) -> None:
            super().__init__(everything)
            self.n, self.timer, self.fired = n, n % period, 0
            self.x, self.y = emitter_place(n)
            self.rect = box(PLAYER_SIZE, self.x, self.y)

        def update(self) -> None:
            if self.timer:
                self.timer -= 1
                return
            self.timer = period - 1
            for vx, vy in ring(self.n, self.fired, ring_size):
                Bullet(self.x, self.y, vx, vy)
            self.fired += 1

    class Player(pygame.sprite.Sprite):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(everything)
            self.t, self.grazes, self.hits, self.shot_hits = 0, 0, 0, 0
            self.rect = box(PLAYER_SIZE, *player_at(0))

        def update(self) -> None:
            self.hits += self.shot_hits
            self.shot_hits = 0
            self.grazes += len(collide(self, bullets, False))
            self.t += 1
            x, y = player_at(self.t)
            self.rect.center = (x, y)
            if self.t % SHOT_PERIOD == 0:
                for vx, vy in shot_velocities():
                    Shot(x, y, vx, vy, self)

    class Shot(pygame.sprite.Sprite):  # type: ignore[misc]
        def __init__(self, x: float, y: float, vx: float, vy: float, player: Player) -> None:
            super().__init__(everything)
            self.x, self.y, self.vx, self.vy, self.player = x, y, vx, vy, player
            self.rect = box(SHOT_SIZE, x, y)

        def update(self) -> None:
            touched = collide(self, bullets, False)
            if touched:
                self.player.shot_hits += len(touched)
                self.kill()
                return
            self.x += self.vx
            self.y += self.vy
            self.rect.center = (self.x, self.y)
            if off_field(self.x, self.y):
                self.kill()

    player = Player()
    for n in range(EMITTERS):
        Emitter(n)
    return everything.update, lambda: len(bullets), lambda: player.grazes + player.hits


def main(argv: list[str]) -> int:
    """Build the workload named by ``argv`` (``churn|bullets SIZE``), say ``ready``, then one tick per ``tick`` line."""
    workload, size = argv[0], int(argv[1])
    for name, value in HEADLESS.items():
        os.environ.setdefault(name, value)
    try:
        import pygame
    except Exception as error:  # not installed here: say so in one line
        print(f"unavailable {type(error).__name__}: {error}".replace("\n", " "), flush=True)
        return 0
    kind = "pygame-ce" if getattr(pygame, "IS_CE", False) else "pygame (not pygame-ce)"
    tick, alive, count = {"churn": _churn, "bullets": _bullets}[workload](pygame, size)
    print(f"ready {kind} {pygame.version.ver}, Python {platform.python_version()}", flush=True)
    serve_ticks(tick, lambda: f"{alive()} {count()}")
    return 0


def serve_ticks(tick: Callable[[], object], figures: Callable[[], str]) -> None:
    """A peer's side of the pipe: one ``tick()`` per ``tick`` line on stdin, answered with its CPU seconds and
    ``figures()``; anything else ends it. (Standard library only: the Arcade peer shares it.)"""
    for line in sys.stdin:
        if line.strip() != "tick":
            break
        start = time.thread_time()
        tick()
        elapsed = time.thread_time() - start
        print(f"{elapsed!r} {figures()}", flush=True)


if __name__ == "__main__":
    # Run as a script, this file's folder is first on sys.path: its neighbours (world.py, loop.py...)
    # must not shadow any module pygame imports.
    if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        sys.path.pop(0)
    raise SystemExit(main(sys.argv[1:]))
