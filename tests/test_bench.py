"""Benchmarks are scripts, not timed tests: here only that each one runs and prints its table."""

from __future__ import annotations

import json

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
