"""The tickswap command: listing, headless runs, and user errors without tracebacks."""

from __future__ import annotations

import pytest

from engine.files.importer import sample_games
from engine.tools.cli import main


def test_list_prints_one_line_per_game_name_first(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == sorted(sample_games())
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)


def test_run_ticks_prints_a_summary_and_is_deterministic(capsys):
    assert main(["run", "patrol", "--ticks", "200"]) == 0
    first = capsys.readouterr().out
    assert main(["run", "patrol", "--ticks", "200"]) == 0
    second = capsys.readouterr().out
    assert "200 ticks" in first
    assert first.split("state ")[1] == second.split("state ")[1]


def test_the_seed_changes_the_game(capsys):
    main(["run", "patrol", "--ticks", "300", "--seed", "1"])
    one = capsys.readouterr().out.split("state ")[1]
    main(["run", "patrol", "--ticks", "300", "--seed", "2"])
    two = capsys.readouterr().out.split("state ")[1]
    assert one != two


def test_an_unknown_game_lists_the_known_ones_and_exits_2(capsys):
    assert main(["run", "tennis", "--ticks", "3"]) == 2
    err = capsys.readouterr().err
    assert "'tennis'" in err and "patrol" in err and "Traceback" not in err


@pytest.mark.parametrize("bad", ["-3", "many", "1.5"])  # 0 is the world before its first tick (test_outputs.py)
def test_a_bad_tick_count_exits_2_naming_the_value(capsys, bad):
    with pytest.raises(SystemExit) as caught:
        main(["run", "patrol", "--ticks", bad])
    assert caught.value.code == 2
    assert bad in capsys.readouterr().err


def test_asking_for_a_window_without_a_display_suggests_headless(capsys, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["run", "patrol", "--frames", "1"]) == 2
    err = capsys.readouterr().err
    assert "--headless" in err and "Traceback" not in err


def test_ticks_cannot_be_combined_with_rendering_options(capsys):
    assert main(["run", "patrol", "--ticks", "5", "--frames", "3"]) == 2
    assert "--ticks" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["run", "patrol", "--loop", "warp"], ["run", "patrol", "--ups", "0"],
                                  ["run", "patrol", "--frames", "x"]])
def test_bad_rendering_options_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_a_game_file_without_build_is_refused_by_name(tmp_path, capsys):
    path = tmp_path / "empty.py"
    path.write_text("x = 1\n")
    assert main(["run", str(path), "--ticks", "3"]) == 2
    assert "build(world)" in capsys.readouterr().err


def test_without_egl_headless_says_so_in_one_line_and_exits_2():
    import os
    import subprocess
    import sys

    # Pointing libglvnd at no vendor library is how a machine without EGL looks.
    env = {**os.environ, "__EGL_VENDOR_LIBRARY_FILENAMES": "/nonexistent/egl_vendor.json"}
    result = subprocess.run([sys.executable, "-m", "engine.tools.cli", "run", "patrol", "--headless", "--frames", "3"],
                            capture_output=True, text=True, env=env, timeout=120)
    if result.returncode == 0:
        pytest.skip("EGL still worked with no vendor library: a machine without EGL can't be simulated here")
    assert result.returncode == 2
    assert "off-screen rendering (EGL) is unavailable" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.usefixtures("offscreen")
@pytest.mark.parametrize("command", [
    ["run", "patrol", "--headless", "--frames", "30", "--screenshot", "out.png"],
    ["run", "patrol", "--ticks", "30", "--headless", "--screenshot", "out.png"],
    ["replay", "r.jsonl", "--headless", "--screenshot", "out.png"],
])
def test_every_command_that_writes_a_screenshot_names_it_in_its_line(tmp_path, command):
    import subprocess
    import sys

    def tickswap(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "engine.tools.cli", *words], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)

    recorded = tickswap("run", "patrol", "--ticks", "40", "--record", "r.jsonl")
    assert recorded.returncode == 0, recorded.stderr
    done = tickswap(*command)
    assert done.returncode == 0, done.stderr
    assert ", screenshot out.png" in done.stdout, done.stdout  # host and join: test_net_cli's frames sessions
    assert (tmp_path / "out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
