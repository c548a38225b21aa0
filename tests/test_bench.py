"""Benchmarks are scripts, not timed tests: here only that each one runs and prints its table."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.tools.bench import BENCHMARKS
from engine.tools.cli import main


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_each_benchmark_runs_quickly_and_prints_a_table_with_ratios(capsys, name, request):
    if name.startswith("render") or name in ("frame", "particles"):
        request.getfixturevalue("offscreen")
    assert main(["bench", name, "--quick"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("  ")]
    measured = [row for row in rows if "not measured" not in row]
    assert len(measured) >= 2
    assert all(" ms " in row and "x" in row for row in measured)
    # A peer that is not installed is said in words, never as "nan ms  nanx".
    assert all("nan" not in row for row in rows)


def test_bench_json_has_every_figure():
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["bench", "loop", "--quick", "--json"]) == 0
    data = json.loads(out.getvalue())
    assert set(data) == {"loop"} and all({"case", "ms", "ratio", "target"} <= set(row) for row in data["loop"])


def test_bench_with_no_names_runs_every_benchmark(capsys, offscreen):
    assert main(["bench", "--quick"]) == 0
    out = capsys.readouterr().out
    titles = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert len(titles) == len(BENCHMARKS)


def test_an_unknown_benchmark_is_refused_by_name(capsys):
    import pytest

    with pytest.raises(SystemExit) as caught:
        main(["bench", "speed"])
    assert caught.value.code == 2 and "'speed'" in capsys.readouterr().err


def test_python_m_engine_tools_bench_runs_the_same_command():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "engine.tools.bench", "loop", "--quick"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Loop overhead: an empty frame") and "FixedStepLoop.frame()" in done.stdout


def test_the_crowd_tick_is_compared_with_the_same_update_fused_in_numpy():
    from engine.tools.bench import bench_crowd

    rows = {case: (ms, ratio) for case, ms, ratio, _ in bench_crowd(1000, 2)}
    floor = next(ms for case, (ms, _) in rows.items() if "fused in numpy" in case)
    crowd_ms, crowd_ratio = next(value for case, value in rows.items() if case.startswith("Crowd tick"))
    # The floor reads two arrays and writes one, as the crowd does; a copy reads only one.
    assert crowd_ratio == pytest.approx(crowd_ms / floor)


def test_the_frame_through_the_renderer_is_compared_with_a_floor_frame_that_runs_the_updates(offscreen):
    from engine.tools.bench import bench_frame

    rows = {case: (ms, ratio) for case, ms, ratio, _ in bench_frame((100,), 2)}
    floor_frame = next(ms for case, (ms, _) in rows.items() if "floor frame" in case)
    renderer_ms, renderer_ratio = next(value for case, value in rows.items() if "EntityRenderer" in case)
    assert renderer_ratio == pytest.approx(renderer_ms / floor_frame)
    # A frame between two ticks only moves alpha: compared with the drawing floor, no tick on either side.
    floor_ms = next(ms for case, (ms, _) in rows.items() if "one vertex buffer, positions in numpy, drawn" in case)
    between_ms, between_ratio = rows["100: frame between ticks, EntityRenderer.draw only"]
    assert between_ratio == pytest.approx(between_ms / floor_ms)


def test_the_particles_family_sets_a_full_fountain_beside_a_plain_crowd_of_as_many(offscreen):
    from engine.tools.bench import bench_particles

    rows = {case: (ms, ratio) for case, ms, ratio, _ in bench_particles(1000, 2)}
    assert len(rows) == 6
    # As many born as die each tick: the fountain holds the plain crowd's count.
    assert "particles, 1,000 fading and shrinking, frame" in rows
    for name in ("frame", "vertex buffer written", "tick"):
        plain = next(ms for case, (ms, _) in rows.items() if case.startswith("plain") and name in case)
        ours, ratio = next(value for case, value in rows.items() if case.startswith("particles,") and name in case)
        assert ratio == pytest.approx(ours / plain)


# -- issue 37: churn and the bullet hell, beside pygame-ce in its own Python ------------------------


@pytest.fixture
def no_pygame(monkeypatch):
    """The peer's Python is not set and this one has no pygame: the peer's rows say not measured."""
    from engine.tools.bench import pygame_peer

    monkeypatch.delenv(pygame_peer.PYTHON_VARIABLE, raising=False)
    monkeypatch.setattr(pygame_peer, "pygame_here", lambda: False)


def _sane(rows, tickswap_rows):
    """The peer's row first, said in words; then tickswap's, every figure positive, the first the reference."""
    import math

    assert len(rows) == 1 + tickswap_rows
    peer, *ours = rows
    assert math.isnan(peer[1]) and "TICKSWAP_PYGAME_PYTHON" in peer[0] + peer[3]
    assert all(case.startswith("tickswap: ") and ms > 0 and ratio > 0 and "ticks/s" in target
               for case, ms, ratio, target in ours)
    assert ours[0][2] == 1.0  # without the peer, the ratios are against tickswap's whole workload


def test_churn_runs_tiny_and_says_pygame_is_not_measured_without_it(no_pygame):
    from engine.tools.bench import bench_churn

    rows = bench_churn(200, 2, 1)
    _sane(rows, 3)
    assert "pygame-ce not installed: set TICKSWAP_PYGAME_PYTHON" in rows[0][0]


def test_the_bullet_hell_runs_tiny_and_says_pygame_is_not_measured_without_it(no_pygame):
    from engine.tools.bench import bench_bullets

    rows = bench_bullets(100, 2, 10)
    _sane(rows, 2)


def test_a_peer_python_that_cannot_run_or_has_no_pygame_is_said_not_measured(monkeypatch, tmp_path):
    import importlib.util
    import sys

    from engine.tools.bench import pygame_peer

    monkeypatch.setenv(pygame_peer.PYTHON_VARIABLE, str(tmp_path / "no-such-python"))
    peer = pygame_peer.Peer("churn", 10)
    assert peer.tick() is None and "cannot be run" in peer.reason and "no-such-python" in peer.reason
    if importlib.util.find_spec("pygame") is not None:
        pytest.skip("pygame is importable in the test's own Python: no Python without it at hand")
    monkeypatch.setenv(pygame_peer.PYTHON_VARIABLE, sys.executable)
    peer = pygame_peer.Peer("churn", 10)
    assert peer.tick() is None and "pygame not usable" in peer.reason and "ModuleNotFoundError" in peer.reason
    from engine.tools.bench import bench_churn

    assert "pygame not usable" in bench_churn(100, 1, 1)[0][0]


def test_both_workloads_are_deterministic_and_hold_their_counts():
    from engine.tools.bench.bullets import bullets_world, live_bullets
    from engine.tools.bench.churn import churn_world
    from engine.tools.bench.pygame_peer import HUBS

    def churned(ticks):
        with churn_world(300) as world:
            for _ in range(ticks):
                world.tick()
                assert len(world.entities) == 300 + HUBS  # a tenth go and as many come, every tick
            last: Any = world.entities[-1]
            return world.state_hash(), last.serial

    def bullet_hell(ticks):
        with bullets_world(200) as world:
            for _ in range(ticks):
                world.tick()
            player: Any = world.entities[0]
            return world.state_hash(), live_bullets(world), player.grazes

    first = churned(25)
    assert first == churned(25) and first[1] >= 300  # successors were spawned
    hell = bullet_hell(60)
    assert hell == bullet_hell(60) and hell[1] > 100


def test_the_pygame_peer_runs_the_same_workloads_in_its_own_python():
    from engine.tools.bench import bench_churn
    from engine.tools.bench.bullets import bullets_world, live_bullets
    from engine.tools.bench.churn import churn_world
    from engine.tools.bench.pygame_peer import HUBS, Peer, peer_python

    python, why = peer_python()
    if python is None:
        pytest.skip(why)

    def peer_figures(workload, size, ticks):
        peer = Peer(workload, size)
        try:
            assert peer.name, peer.reason
            figures = [peer.tick() for _ in range(ticks)]
            assert all(each is not None for each in figures), peer.reason
            return [each[1:] for each in figures if each is not None]
        finally:
            peer.close()

    churn = peer_figures("churn", 200, 12)
    assert churn == peer_figures("churn", 200, 12)  # deterministic there too
    with churn_world(200) as world:
        for _ in range(12):
            world.tick()
        hubs: list[Any] = world.entities[:HUBS]
        assert churn[-1] == (len(world.entities) - HUBS, sum(hub.heard for hub in hubs))
    bullets = peer_figures("bullets", 100, 40)
    with bullets_world(100) as world:
        for _ in range(40):
            world.tick()
        assert bullets[-1][0] == live_bullets(world)  # the same rings, fired and expired alike
    rows = bench_churn(200, 2, 1)
    assert rows[0][1] > 0 and "same work on both sides" in rows[0][3]


def test_a_target_says_whether_this_run_met_it():
    # A figure beside a bare "<= 1.3x" was read as met when it was over: every target says which.
    from engine.tools.bench.base import verdict

    assert verdict(1.77, 1.3, words="bare") == "OVER target <= 1.3x bare"
    assert verdict(1.2, 1.3) == "ok, within target <= 1.3x"
    assert verdict(0.46, 1.0, at_least=True, words="pygame-ce") == "UNDER target >= 1x pygame-ce"
    assert verdict(1.1, 1.0, at_least=True) == "ok, at target >= 1x"
