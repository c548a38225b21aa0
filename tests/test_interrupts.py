"""Ctrl-C and SIGTERM take effect between ticks: a stopped run's recording always replays."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import weakref
from pathlib import Path
from typing import Any

import pytest

from engine import World
from engine.ecs import EsperWorld
from engine.files.replay import Recorder
from engine.interrupts import TICK, Interrupted, Terminated, deferring_handlers
from engine.tools.cli import main
from engine.world.sounds import SoundRequests

ROOT = Path(__file__).resolve().parent.parent

# A churning game: spawns and despawns every tick, systems before and after the entities,
# an entity whose finalizer runs while a despawn is committed. ``stop(point)`` sends the
# process a real signal at the chosen point of the chosen tick (TICKSWAP_TEST_STOP=point:tick).
CHURN = '''\
import os
import signal

from engine import Entity

WORLD = []


def stop(point):
    tick = WORLD[0].tick_count + 1 if WORLD else 0
    if os.environ.get("TICKSWAP_TEST_STOP") == f"{point}:{tick}":
        number = signal.SIGTERM if os.environ.get("TICKSWAP_TEST_SIGNAL") == "TERM" else signal.SIGINT
        os.kill(os.getpid(), number)


class Spark(Entity):
    def __init__(self, x, life):
        super().__init__(x=x, y=0)
        self.life = life

    def update(self, world):
        self.x += 1.5
        self.life -= 1
        if self.life <= 0:
            world.despawn(self)

    def __del__(self):
        if WORLD:  # None once the interpreter is shutting down
            stop("finalizer")


class Spawner(Entity):
    def update(self, world):
        stop("update-first")
        self.x += 1
        world.spawn(Spark(self.x + self.random.random(), 2))


class Last(Entity):
    def update(self, world):
        self.angle = (self.angle + 10) % 360
        stop("update-last")


class Probe:
    def __init__(self, point):
        self.point = point

    def process(self):
        stop(self.point)


def build(world):
    WORLD[:] = [world]
    world.spawn(Spawner())
    world.spawn(Last())


def systems(world):
    world.add_processor(Probe("system-before"), 1)
    world.add_processor(Probe("system-after"), -1)
'''

GAME_POINTS = ["update-first", "update-last", "system-before", "system-after", "finalizer"]
ENGINE_POINTS = ["buffers-finish", "join", "remove", "recorder", "between"]


def _stop(point: str, tick: int | None = None) -> None:
    world = cli_world[0] if cli_world else None
    if tick is None:
        tick = world.tick_count + 1 if world is not None else 0
    if os.environ.get("TICKSWAP_TEST_STOP") == f"{point}:{tick}":
        number = signal.SIGTERM if os.environ.get("TICKSWAP_TEST_SIGNAL") == "TERM" else signal.SIGINT
        os.kill(os.getpid(), number)
        if os.environ.get("TICKSWAP_TEST_TWICE"):
            os.kill(os.getpid(), number)  # the second stops the tick by force, where it is


cli_world: list[World] = []


def _patch_engine_points(monkeypatch: pytest.MonkeyPatch) -> None:
    """The points inside the engine's own part of a tick, where a raw KeyboardInterrupt used to tear it."""
    # A tick's spawns join and its despawns leave in Spawner.settle, through esper in one batch each.
    real_init, real_join, real_remove = World.__init__, EsperWorld.create_all, EsperWorld.delete_all

    def init(self: World, *args: object, **kwargs: object) -> None:
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]
        cli_world[:] = [self]
        buffers = type(self._buffers)
        if not getattr(buffers, "_test_patched", False):
            real_finish = buffers.finish

            def finish(inner: Any, *args: Any) -> None:  # forwards to whichever buffers' finish
                real_finish(inner, *args)
                _stop("buffers-finish")  # committed, swapped: tick_count not yet counted

            monkeypatch.setattr(buffers, "finish", finish)
            monkeypatch.setattr(buffers, "_test_patched", True, raising=False)

    def join(self: EsperWorld, *args: object) -> list[int]:
        _stop("join")
        return real_join(self, *args)  # type: ignore[arg-type]

    def remove(self: EsperWorld, *args: object) -> None:
        real_remove(self, *args)  # type: ignore[arg-type]
        _stop("remove")

    real_after = Recorder.after_tick

    def after_tick(self: Recorder, world: World) -> None:
        _stop("recorder", world.tick_count)  # the tick ran, its input is not recorded yet
        real_after(self, world)

    real_take = SoundRequests.take

    def take(self: SoundRequests, ticking: bool, tick_count: int) -> object:
        _stop("between", tick_count)
        return real_take(self, ticking, tick_count)

    monkeypatch.setattr(World, "__init__", init)
    monkeypatch.setattr(EsperWorld, "create_all", join)
    monkeypatch.setattr(EsperWorld, "delete_all", remove)
    monkeypatch.setattr(Recorder, "after_tick", after_tick)
    monkeypatch.setattr(SoundRequests, "take", take)


def _end_of(recording: Path) -> dict[str, object]:
    record: dict[str, object] = json.loads(recording.read_text().splitlines()[-1])
    return record


def _stopped_churn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop: str, **env: str) -> tuple[Path, Path, int]:
    """Record CHURN stopped at ``stop`` (``point:tick``, with ``TICKSWAP_TEST_*`` in ``env``): (game, recording, status).

    The stop is lifted again afterwards, so the test replays the recording as it was left.
    """
    game = tmp_path / "churn.py"
    game.write_text(CHURN)
    recording = tmp_path / "r.jsonl"
    _patch_engine_points(monkeypatch)
    monkeypatch.setenv("TICKSWAP_TEST_STOP", stop)
    for name, value in env.items():
        monkeypatch.setenv(f"TICKSWAP_TEST_{name}", value)
    status = main(["run", str(game), "--ticks", "100", "--record", str(recording)])
    monkeypatch.delenv("TICKSWAP_TEST_STOP")
    return game, recording, status


@pytest.mark.parametrize("tick", [3, 60])
@pytest.mark.parametrize("point", GAME_POINTS + ENGINE_POINTS)
def test_a_run_stopped_anywhere_in_a_tick_keeps_a_recording_that_replays(tmp_path, monkeypatch, capsys, point, tick):
    game, recording, status = _stopped_churn(tmp_path, monkeypatch, f"{point}:{tick}")
    assert status == 130
    err = capsys.readouterr().err
    assert "interrupted at tick" in err and err.count("\n") == 1, err
    end = _end_of(recording)
    # The tick the signal landed in happened completely (or, between ticks, the one before it).
    assert end["end"] == tick, end
    assert main(["replay", str(recording), "--game", str(game)]) == 0
    out = capsys.readouterr().out
    assert "all match" in out, out


@pytest.mark.parametrize("point", ["update-last", "buffers-finish"])
def test_sigterm_in_a_tick_is_143_and_the_recording_replays(tmp_path, monkeypatch, capsys, point):
    game, recording, status = _stopped_churn(tmp_path, monkeypatch, f"{point}:7", SIGNAL="TERM")
    assert status == 143
    assert "terminated at tick 7" in capsys.readouterr().err
    assert main(["replay", str(recording), "--game", str(game)]) == 0


def test_a_game_file_run_by_python_defers_a_signal_to_the_end_of_the_tick(tmp_path):
    game = tmp_path / "churn.py"
    game.write_text(CHURN + "\nif __name__ == '__main__':\n    from engine import run\n    run(build)\n")
    recording = tmp_path / "r.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TICKSWAP_TEST_STOP": "system-after:5"}
    stopped = subprocess.run([sys.executable, str(game), "--ticks", "50", "--record", str(recording)],
                             capture_output=True, text=True, timeout=120, check=False, env=env)
    assert stopped.returncode == 130 and "Traceback" not in stopped.stderr, stopped.stderr
    assert _end_of(recording)["end"] == 5
    del env["TICKSWAP_TEST_STOP"]
    replayed = subprocess.run([sys.executable, "-m", "engine.tools.cli", "replay", str(recording), "--game",
                               str(game)], capture_output=True, text=True, timeout=120, check=False, env=env)
    assert replayed.returncode == 0 and "all match" in replayed.stdout, replayed.stderr


def test_check_stopped_in_a_tick_is_130_in_one_line(tmp_path, monkeypatch, capsys):
    game = tmp_path / "churn.py"
    game.write_text(CHURN)
    monkeypatch.setenv("TICKSWAP_TEST_STOP", "update-last:4")
    assert main(["check", str(game), "--ticks", "20", "--orders", "1"]) == 130
    err = capsys.readouterr().err
    assert err == "tickswap: interrupted\n"


def test_a_signal_waits_for_the_gate_and_a_second_one_does_not():
    with deferring_handlers():
        with pytest.raises(Interrupted), TICK:
            os.kill(os.getpid(), signal.SIGINT)
            reached = True  # the first signal only recorded: the held block goes on
        assert reached
        with pytest.raises(Terminated), TICK:
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGTERM)  # the user insists: an endless tick must still stop
            pytest.fail("the second signal was not raised at once")
    assert TICK.pending is None and not TICK.held


class _Finalized:
    """Takes a signal in its finalizer, where CPython can only print an exception and drop it."""

    def __init__(self, number: int) -> None:
        self.number = number

    def __del__(self) -> None:
        signal.raise_signal(self.number)


class _Target:
    """Something a weak reference can watch."""


def _lost_in_a_finalizer(number: int) -> None:
    _Finalized(number)  # dropped at once


def _lost_in_a_weakref_callback(number: int) -> None:
    # As the import machinery's callbacks do while a joiner imports its crypto lazily.
    target = _Target()
    reference = weakref.ref(target, lambda _: signal.raise_signal(number))
    del target
    assert reference() is None


@pytest.mark.parametrize("where", [_lost_in_a_finalizer, _lost_in_a_weakref_callback])
@pytest.mark.parametrize(("number", "kind"), [(signal.SIGINT, Interrupted), (signal.SIGTERM, Terminated)])
def test_a_signal_raised_where_python_cannot_raise_it_is_raised_at_the_next_check(where, number, kind, capsys):
    with deferring_handlers():
        where(number)
        with pytest.raises(kind), TICK:  # the next tick: entering the gate raises it
            pytest.fail("the signal was lost in the callback")
        with pytest.raises(kind), TICK:  # lost inside a tick, it waits for the tick's end as a signal does
            where(number)
            TICK.check()
            reached = True
        assert reached
        where(number)
        with pytest.raises(kind):  # a lobby's wait, between ticks
            TICK.check()
        TICK.check()  # raised once
    assert "Exception ignored" not in capsys.readouterr().err


def test_without_the_handlers_a_tick_is_interrupted_as_python_always_did():
    # Python's own handler, set here: a suite started with SIGINT ignored (a background job,
    # some CI runners) has none, since Python then leaves SIGINT ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt) as caught, TICK:
            os.kill(os.getpid(), signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert not isinstance(caught.value, Interrupted)


@pytest.mark.parametrize(("tick", "last_hash"), [(30, 0), (70, 60)])
@pytest.mark.parametrize("point", ["buffers-finish", "remove", "recorder"])
def test_a_second_signal_inside_a_tick_ends_the_recording_at_its_last_hash(tmp_path, monkeypatch, capsys, point,
                                                                            tick, last_hash):
    game, recording, status = _stopped_churn(tmp_path, monkeypatch, f"{point}:{tick}", TWICE="1")
    assert status == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "by force, in a tick" in err, err
    assert f"the recording ends at tick {last_hash}, its last hash before the stop" in err, err
    assert _end_of(recording)["end"] == last_hash
    assert main(["replay", str(recording), "--game", str(game)]) == 0
    assert "all match" in capsys.readouterr().out


def test_the_no_handler_case_passes_when_the_suite_starts_with_sigint_ignored():
    # A background job or a CI runner may start pytest with SIGINT ignored (SIG_IGN is inherited).
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"{__file__}::test_without_the_handlers_a_tick_is_interrupted_as_python_always_did"],
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert done.returncode == 0, done.stdout[-2000:]
