"""Outputs: every file written atomically, distinct, with its mode and links kept; nothing lost."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import Entity, World
from engine.tools.cli import main
from engine.world.save import SaveError

ROOT = Path(__file__).resolve().parent.parent


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_recording_over_a_file_when_the_disk_fills_keeps_the_old_file(tmp_path):
    old = tmp_path / "old.jsonl"
    assert main(["run", "patrol", "--ticks", "10", "--record", str(old)]) == 0
    before = old.read_bytes()
    # ulimit -f: writing past 8 KiB fails with EFBIG, as a full disk fails with ENOSPC.
    command = f"ulimit -f 8; exec {sys.executable} -m engine.tools.cli run patrol --ticks 40000 --record {old}"
    result = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 2, result
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert "cannot write" in result.stderr and "intact" in result.stderr
    assert old.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["old.jsonl"], "no temporary file left"


@pytest.mark.parametrize("argv", [
    ["--record", "{a}", "--save-at", "5", "{a}"],
    ["--headless", "--record", "{a}", "--screenshot", "{png}"],
    ["--record", "{link}", "--save-at", "5", "{a}"],
    ["--ticks", "10", "--save-at", "5", "{save}", "--load", "{save}"],
    ["--ticks", "10", "--record", "{script}", "--input", "{script}"],
    ["--ticks", "10", "--record", "{game}"],
])
def test_two_outputs_on_one_file_or_an_output_over_an_input_are_refused_before_the_run(tmp_path, capsys, argv):
    save = tmp_path / "s.json"
    assert main(["run", "patrol", "--ticks", "6", "--save-at", "5", str(save)]) == 0
    script = tmp_path / "in.jsonl"
    script.write_text('{"tick": 1, "input": [["key_press", 1, 0, 0]]}\n')
    (tmp_path / "link.png").symlink_to(tmp_path / "a.png")
    capsys.readouterr()
    names = {"a": str(tmp_path / "a.png"), "png": str(tmp_path / "a.png"), "link": str(tmp_path / "link.png"),
             "save": str(save), "script": str(script), "game": str(tmp_path / "g.py")}
    (tmp_path / "g.py").write_text("def build(world):\n    pass\n")
    filled = [part.format(**names) for part in argv]
    if "--ticks" not in filled and "--headless" not in filled:
        filled += ["--ticks", "10"]
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir() if path.is_file()}
    assert main(["run", str(tmp_path / "g.py") if "{game}" in argv else "patrol", *filled]) == 2
    assert "same file" in one_line(capsys)
    after = {path.name: path.read_bytes() for path in tmp_path.iterdir() if path.is_file()}
    assert after == before, "nothing was written"


@pytest.mark.parametrize("argv", [
    ["--headless", "--screenshot", "keep.jpg"],
    ["--headless", "--screenshot", ""],
    ["--ticks", "5", "--record", ""],
    ["--ticks", "5", "--load", ""],
    ["--ticks", "5", "--save-at", "3", ""],
    ["--ticks", "5", "--input", ""],
    ["--ticks", "5", "--record", "no/such/dir/r.jsonl"],
])
def test_a_bad_output_name_is_refused_before_the_run_and_nothing_is_touched(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    keep = tmp_path / "keep.jpg"
    keep.write_bytes(b"my photo")
    try:
        status = main(["run", "patrol", *argv])
    except SystemExit as exit:
        status = int(str(exit.code))
    assert status == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert keep.read_bytes() == b"my photo"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["keep.jpg"]


def test_a_save_through_a_symlink_keeps_the_link_and_the_mode(tmp_path):
    real = tmp_path / "real.json"
    link = tmp_path / "link.json"
    with World() as world:
        world.spawn(Entity(x=1))
        world.save(real)
        os.chmod(real, 0o600)
        link.symlink_to(real)
        world.spawn(Entity(x=2))
        world.save(link)
    assert link.is_symlink() and link.resolve() == real
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert len(World.load(link).entities) == 2


def test_world_save_raises_save_error_not_raw_errors(tmp_path):
    class Odd(Entity):
        saved = ("loop",)

        def __init__(self) -> None:
            super().__init__(x=np.float32(1.5))  # type: ignore[arg-type]  # a numpy float, on purpose
            self.loop: list[object] = []
            self.loop.append(self.loop)

    with World() as world:
        world.spawn(Entity(x=np.float32(2.5)))  # type: ignore[arg-type]  # a numpy float, on purpose
        world.save(tmp_path / "float32.json")
        assert World.load(tmp_path / "float32.json").entities[0].x == 2.5
        with pytest.raises(SaveError, match="cannot write"):
            world.save(tmp_path / "no" / "dir.json")
        with pytest.raises(SaveError, match="empty"):
            world.save("")
        with pytest.raises(SaveError, match="directory"):
            world.save(tmp_path)
        world.spawn(Odd())
        with pytest.raises(SaveError, match="nested too deeply"):
            world.save(tmp_path / "odd.json")
        assert not (tmp_path / "odd.json").exists()


def test_a_huge_integer_or_a_nan_is_handled_when_saving(tmp_path):
    class Big(Entity):
        saved = ("n", "f")

        def __init__(self, n: int) -> None:
            super().__init__(x=float("nan"))
            self.n = n
            self.f = float("-inf")

    with World() as world:
        world.spawn(Big(10**12))
        world.save(tmp_path / "nan.json")
        copy = World.load(tmp_path / "nan.json").entities[0]
        assert isinstance(copy, Big)
        assert copy.x != copy.x and copy.f == float("-inf") and copy.n == 10**12
        world.spawn(Big(10**60))
        with pytest.raises(SaveError, match="digits"):
            world.save(tmp_path / "big.json")


@pytest.mark.usefixtures("offscreen")
def test_a_screenshot_replaces_an_existing_file_only_when_whole(tmp_path, capsys):
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"old")
    os.chmod(shot, 0o640)
    assert main(["run", "bouncy", "--headless", "--frames", "3", "--screenshot", str(shot)]) == 0
    assert shot.read_bytes().startswith(b"\x89PNG") and stat.S_IMODE(shot.stat().st_mode) == 0o640
    assert sorted(path.name for path in tmp_path.iterdir()) == ["shot.png"]


@pytest.mark.usefixtures("offscreen")
def test_replay_headless_takes_a_screenshot(tmp_path, capsys):
    recording = tmp_path / "r.jsonl"
    assert main(["run", "bouncy", "--ticks", "70", "--record", str(recording)]) == 0
    shot = tmp_path / "end.png"
    assert main(["replay", str(recording), "--headless", "--screenshot", str(shot)]) == 0
    assert "all match" in capsys.readouterr().out and shot.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("name", [".png", ".PNG", "shots/.png"])
def test_a_screenshot_named_only_png_is_refused_before_the_run_not_written_as_a_hidden_file(tmp_path, capsys, name):
    (tmp_path / "shots").mkdir()
    shot = tmp_path / name
    assert main(["run", "bouncy", "--headless", "--frames", "3", "--screenshot", str(shot)]) == 2
    assert f"--screenshot {shot}: a file named only '.png' is hidden; name it something.png" in one_line(capsys)
    assert not shot.exists()


@pytest.mark.usefixtures("offscreen")
def test_ticks_0_draws_the_world_before_its_first_tick(tmp_path, capsys):
    shot = tmp_path / "first.png"
    assert main(["run", "bouncy", "--ticks", "0", "--headless", "--screenshot", str(shot)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("bouncy: 0 ticks") and f"screenshot {shot}" in out, out
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert main(["run", "bouncy", "--ticks", "0"]) == 0
    assert capsys.readouterr().out.split("state ")[1][:16] == out.split("state ")[1][:16]
