"""Faults: crashes close cleanly with a message, Ctrl-C exits cleanly, long soaks leak nothing."""

from __future__ import annotations

import os
import signal

import pyglet
import pytest

from engine import FixedStepLoop, VirtualClock, World
from engine.tools.cli import main
from engine.tools.soak import soak


@pytest.mark.usefixtures("offscreen")
def test_an_exception_in_rendering_closes_the_window_and_says_where(capsys, monkeypatch):
    from engine.render.entities import EntityRenderer

    def broken(self, alpha):
        raise ValueError("shader exploded")

    monkeypatch.setattr(EntityRenderer, "draw", broken)
    windows_before = len(pyglet.app.windows)
    assert main(["run", "bouncy", "--headless", "--frames", "10"]) == 1
    err = capsys.readouterr().err
    assert "ValueError: shader exploded" in err and "test_faults.py" in err and "in broken" in err
    assert "Traceback" not in err
    assert len(pyglet.app.windows) == windows_before, "the window was closed"


@pytest.mark.usefixtures("offscreen")
def test_ctrl_c_exits_cleanly_with_status_130(capsys, monkeypatch):
    ticks = {"n": 0}
    real_tick = World.tick

    def interrupted(self, elapsed_ms=None):
        ticks["n"] += 1
        if ticks["n"] == 50:
            os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C, in the middle of tick 50
        real_tick(self, elapsed_ms)

    monkeypatch.setattr(World, "tick", interrupted)
    # The signal waits for the tick it landed in: tick 50 happens completely (engine.interrupts).
    assert main(["run", "patrol", "--ticks", "1000"]) == 130
    assert "interrupted at tick 50" in capsys.readouterr().err
    ticks["n"] = 0
    assert main(["run", "patrol", "--headless", "--frames", "200"]) == 130
    assert "interrupted at tick 50" in capsys.readouterr().err


def test_a_ctrl_c_in_the_middle_of_a_tick_rolls_it_back():
    from engine import Entity

    class Sleeper(Entity):
        def update(self, world):
            self.x += 1
            raise KeyboardInterrupt

    with World() as world:
        sleeper = world.spawn(Sleeper())
        before = world.state_hash()
        with pytest.raises(KeyboardInterrupt):
            world.tick()
        assert world.state_hash() == before and sleeper.x == 0 and world.tick_count == 0


def test_a_stall_of_hours_costs_at_most_the_catch_up_cap():
    clock = VirtualClock()
    ticks = []
    loop = FixedStepLoop(lambda: ticks.append(1), lambda alpha: None, clock=clock)
    clock.advance(8 * 3600 * 1000)  # a laptop lid closed overnight
    loop.frame()
    assert len(ticks) == 5 and loop.dropped_ms > 8 * 3600 * 1000 - 100


def test_a_short_soak_keeps_memory_flat_and_leaks_no_esper_entities():
    rows = soak(4000, entities=300, churn=10, checkpoints=8, report=lambda line: None)
    assert all(live == in_esper == 301 for _, live, in_esper, _, _ in rows)
    blocks = [row[3] for row in rows[1:]]
    assert max(blocks) - min(blocks) < 200, f"allocated blocks drifted: {blocks}"


def test_the_soak_script_judges_its_own_run(capsys):
    from engine.tools.soak import main as soak_main

    assert soak_main(["--ticks", "1500", "--entities", "100"]) == 0
    assert "esper entities equal live entities at every checkpoint: yes" in capsys.readouterr().out


def test_sigterm_stops_like_ctrl_c_keeps_the_recording_and_exits_143(tmp_path, capsys, monkeypatch):
    real_tick = World.tick
    before = signal.getsignal(signal.SIGTERM)

    def terminated(self, elapsed_ms=None):
        if self.tick_count == 40:
            os.kill(os.getpid(), signal.SIGTERM)  # lands in tick 41, which happens completely
        real_tick(self, elapsed_ms)

    monkeypatch.setattr(World, "tick", terminated)
    record = tmp_path / "r.jsonl"
    assert main(["run", "patrol", "--ticks", "1000", "--record", str(record)]) == 143
    assert "terminated at tick 41" in capsys.readouterr().err
    assert '"end":41' in record.read_text().splitlines()[-1]
    assert signal.getsignal(signal.SIGTERM) is before, "the handler is put back"
