"""``tickswap package pong --web`` in headless Chromium: the same game, bit for bit, in a browser.

The folder is served on 127.0.0.1 (``tickswap serve``'s server) and driven through the
DevTools protocol over Chromium's pipe (``tests/cdp.py``, the standard library only). The
tests skip, saying why, where Chromium (Debian's ``chromium``) or Pyodide's npm package
can't be had; CI installs both. One browser and one folder serve the module's tests; each
page load starts Pyodide afresh (about 10 to 20 s here).

The screenshot is the canvas's own pixels (``toDataURL``), compared with ``tickswap run
--headless --screenshot``'s EGL picture of the same tick: at least 99% of the pixels within
8 levels (of 255) on every channel. Pictures are drawn from the same looks at the same places
with bilinear sampling as the desktop's, tiles with nearest, rectangles snapped to the pixels
whose centres they cover; text is where the two differ (the browser's sans-serif font is not
pyglet's): pong's score, the platformer's HUD line. Below the text pong matches to the pixel,
the platformer but for about 200 pixels of its scaled pictures' edges (the browser's bilinear
filter rounds differently from the GPU's), patrol but for about 250 pixels at the antialiased
edges of its circles and diamonds (the GPU cuts them out in a shader, Canvas 2D fills a path);
``SAMPLES`` holds those bounds.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cdp import Browser, find_chromium
from pngpixels import rgb_pixels
from webgames import write_script
from webpyodide import pyodide_or_skip

from engine.tools.cli import main
from engine.tools.cli.serve import web_server
from engine.tools.ship.web import web_folder

STATE = re.compile(r"state ([0-9a-f]{16})")
TOLERANCE = 8
"""The most a channel of a pixel may differ from the EGL screenshot's (of 255)."""
SHARE = 0.99
"""The least share of pixels within ``TOLERANCE``: text is drawn by another font engine."""

_RESULT = """new Promise(done => { const wait = () => {
  const t = window.tickswap; if (t && (t.result || t.error)) done(JSON.stringify(t)); else setTimeout(wait, 50); };
  wait(); })"""
_READY = """new Promise(done => { const wait = () => {
  const t = window.tickswap; if (t && (t.firstFrameMs !== null || t.error)) done(JSON.stringify(t));
  else setTimeout(wait, 50); }; wait(); })"""
_CANVAS = """new Promise(done => requestAnimationFrame(() => requestAnimationFrame(
  () => done(document.getElementById('game').toDataURL('image/png')))))"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Browser, str, Path]]:
    """The browser, the address the web builds are served under (``ADDRESS/GAME-web/``) and their folder."""
    chromium = find_chromium()
    if chromium is None:
        pytest.skip("Chromium is not installed (apt-get install chromium; or set TICKSWAP_CHROMIUM)")
    pyodide = pyodide_or_skip()
    root = tmp_path_factory.mktemp("web")
    for game in ("pong", "patrol", "platformer"):
        web_folder(game, root / f"{game}-web", pyodide)
    server = web_server(root, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    browser = Browser(chromium)
    try:
        yield browser, f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        browser.close()
        server.shutdown()
        server.server_close()
        thread.join()


def _page(browser: Browser, address: str, game: str, query: str = "hud=0", wait: str = _READY) -> dict[str, Any]:
    """The page of ``game``'s web build, opened once (Pyodide starts) and kept for the next test of that game."""
    if getattr(browser, "game", None) != game:
        browser.open(f"{address}/{game}-web/index.html?{query}")
        browser.game = game  # type: ignore[attr-defined]
    state: dict[str, Any] = json.loads(browser.evaluate(wait, timeout=180))
    assert state["error"] is None, state["error"]
    return state


def _run(browser: Browser, options: dict[str, Any]) -> dict[str, Any]:
    """A new run in the open page (``window.tickswap.begin``, as the replay button starts one), to its result."""
    browser.evaluate(f"window.tickswap.begin({json.dumps(options)})")
    state: dict[str, Any] = json.loads(browser.evaluate(_RESULT, timeout=180))
    assert state["error"] is None, state["error"]
    return state


# (game, ticks, rows of text at the top (the score, the HUD), the most pixels below them that may differ);
# pong last: the tests after these use its page.
SAMPLES = [("patrol", 200, 0, 400), ("platformer", 300, 40, 400), ("pong", 240, 80, 0)]


@pytest.mark.parametrize("game, ticks, text_rows, below", SAMPLES)
def test_a_sample_in_the_browser_reaches_tickswap_runs_hash_and_screenshot(
        sites: tuple[Browser, str, Path], game: str, ticks: int, text_rows: int, below: int, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest) -> None:
    browser, address, root = sites
    script = write_script(game, root / f"{game}-web" / "in.jsonl")  # beside the page: ?script=in.jsonl
    state = loaded = _page(browser, address, game, f"script=in.jsonl&ticks={ticks}&hud=0", _RESULT)
    assert state["result"]["tick"] == ticks
    assert main(["run", game, "--ticks", str(ticks), "--input", str(script)]) == 0
    assert STATE.findall(capsys.readouterr().out) == [state["result"]["state"][:16]]
    print(f"{game}: first frame {loaded['firstFrameMs']:.0f} ms after navigation (Pyodide loaded at "
          f"{loaded['pyodideMs']:.0f} ms); {state['result']['ticksPerSecond']:.0f} ticks/s in the browser; "
          f"a frame's drawing {state['drawMs'] / max(1, state['frames']):.2f} ms over {state['frames']} frames")
    web = rgb_pixels(base64.b64decode(browser.evaluate(_CANVAS).split(",", 1)[1]))
    request.getfixturevalue("offscreen")  # skips here, saying why, where no EGL draws the desktop's screenshot
    shot = tmp_path / "egl.png"
    assert main(["run", game, "--ticks", str(ticks), "--input", str(script), "--headless", "--no-hud",
                 "--screenshot", str(shot)]) == 0
    egl = rgb_pixels(shot)
    assert web.shape == egl.shape
    differs = np.abs(web.astype(np.int16) - egl.astype(np.int16)).max(axis=2) > TOLERANCE
    assert differs.mean() <= 1 - SHARE, f"{differs.mean():.2%} of the pixels differ by more than {TOLERANCE}"
    # Below the text, the pictures, tiles and shapes: (almost) every pixel within tolerance.
    assert differs[text_rows:].sum() <= below, f"{differs[text_rows:].sum()} pixels below the text differ"


def test_keys_sent_through_the_browser_reach_the_game_and_its_recording_replays(
        sites: tuple[Browser, str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    browser, address, _ = sites
    _page(browser, address, "pong")
    browser.evaluate("window.tickswap.begin({record: true})")
    # SPACE starts the match; W held moves the left paddle: the DOM's own key events, through the page.
    browser.key("keyDown", "Space", " ", 32)
    browser.key("keyUp", "Space", " ", 32)
    browser.key("keyDown", "KeyW", "w", 87)
    browser.evaluate("new Promise(done => setTimeout(done, 500))")
    browser.key("keyUp", "KeyW", "w", 87)
    browser.evaluate("new Promise(done => setTimeout(done, 200))")
    recording = browser.evaluate("document.getElementById('download').click(), window.tickswap.recording")
    assert isinstance(recording, str), recording
    lines = [json.loads(line) for line in recording.splitlines()]
    events = [event for line in lines for event in line.get("input", ())]
    assert ["key_press", 32, 0.0, 0.0] in events and ["key_press", 119, 0.0, 0.0] in events, events
    assert ["key_release", 119, 0.0, 0.0] in events
    path = tmp_path / "browser.jsonl"
    path.write_text(recording)
    assert main(["replay", str(path)]) == 0
    assert "all match" in capsys.readouterr().out


def test_a_desktop_recording_replays_in_the_browser(sites: tuple[Browser, str, Path], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    browser, address, _ = sites
    script = write_script("pong", tmp_path / "pong.jsonl")
    desk = tmp_path / "desk.jsonl"
    assert main(["run", "pong", "--ticks", "200", "--input", str(script), "--record", str(desk)]) == 0
    expected = STATE.findall(capsys.readouterr().out)
    _page(browser, address, "pong")
    state = _run(browser, {"replay": desk.read_text()})
    assert state["result"]["replay"] == "4 hashes checked, all match", state["result"]
    assert [state["result"]["state"][:16]] == expected
