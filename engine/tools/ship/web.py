"""``tickswap package GAME --web OUT``: a static folder that plays the game in a browser, on Pyodide.

The folder holds (``web_folder``):

- ``index.html`` and ``tickswap-web.js``: the page and the browser runner's JavaScript
  (``engine/web/static/``), which load Pyodide, unpack the app and drive ``engine.web``;
- ``pyodide/``: Pyodide's runtime (``PYODIDE_FILES``, copied from the npm package ``pyodide``:
  CPython compiled to WebAssembly, and its standard library);
- ``app.zip``: what Python imports, unpacked into ``/app`` at start (``app_archive``): the
  engine's Python files (not its compiled cores, nor ``engine/render``, which needs pyglet),
  the pure-Python distributions it needs (``PURE_DISTRIBUTIONS``: esper, and pytiled-parser
  with what it needs), and the game's tree staged exactly as ``tickswap package`` stages it
  for a desktop bundle (``engine.tools.ship.tree``: the same files, manifest and names), so
  the browser runs the same game: the same state hashes, saves and recordings;
- ``tickswap-web.json``: which game and engine, and the Pyodide version.

Nothing in it needs a server of ours: any static host serves it (``tickswap serve DIR``
serves it on 127.0.0.1 for a try). numpy is not shipped (Pyodide fetches it from its CDN);
a game that needs it says so in one line when it loads.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.errors import GameError
from engine.files.importer import load_game
from engine.messages import shown, shown_name
from engine.state.names import __version__
from engine.tools.ship.tree import game_tree, stage

__all__ = ["APP_ARCHIVE", "CHECK_TICKS", "PURE_DISTRIBUTIONS", "PYODIDE_FILES", "WEB_CHECK", "WebFolder", "app_archive",
           "check_web", "find_pyodide", "web_folder"]

APP_ARCHIVE = "app.zip"
"""The archive of what Python imports in the browser, unpacked into ``/app``."""
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
"""The files of Pyodide's npm package a page needs (the ES module, the WebAssembly and its glue, the
standard library, and the lock file ``loadPyodide`` reads)."""
PURE_DISTRIBUTIONS = ("esper", "pytiled-parser", "attrs", "typing-extensions")
"""The distributions the engine's logic imports, all pure Python, shipped as their source files."""
DEFAULT_PYODIDE = Path.home() / ".cache" / "tickswap-web" / "node_modules" / "pyodide"
"""Where ``find_pyodide`` looks when neither ``--pyodide`` nor ``TICKSWAP_PYODIDE`` says."""
STATIC = Path(__file__).resolve().parents[2] / "web" / "static"
"""The page and its JavaScript (``engine/web/static``)."""
STATIC_FILES = ("index.html", "tickswap-web.js")
_LEFT_OUT = ("engine/render/",)
"""Engine directories not shipped: the pyglet renderer (the browser draws through ``engine.web``)."""
_INSTALL = "npm install --prefix ~/.cache/tickswap-web pyodide@314"
WEB_CHECK = Path(__file__).resolve().parent / "web_check.mjs"
"""The Node program that runs the app in Pyodide (``check_web``; the tests run it too)."""
CHECK_TICKS = 64
"""The ticks ``check_web`` runs in Pyodide and here, as the desktop bundle's check does."""


@dataclass(frozen=True)
class WebFolder:
    """What ``web_folder`` made: where, how many bytes in all, and of which parts."""

    path: Path
    total_bytes: int
    pyodide_bytes: int
    app_bytes: int
    game_files: int


def find_pyodide(given: str | os.PathLike[str] | None = None) -> Path:
    """The directory of Pyodide's runtime files: ``given``, else ``$TICKSWAP_PYODIDE``, else ``DEFAULT_PYODIDE``.

    ``GameError`` naming what is missing and how to get it (the npm package ``pyodide``).
    """
    where = Path(given) if given else Path(os.environ.get("TICKSWAP_PYODIDE") or DEFAULT_PYODIDE)
    missing = [name for name in PYODIDE_FILES if not (where / name).is_file()]
    if missing:
        raise GameError(f"no Pyodide runtime at {shown_name(where)} (missing {', '.join(missing)}): "
                        f"install it with `{_INSTALL}`, or give --pyodide DIR (the npm package's directory)")
    return where


def pyodide_version(where: Path) -> str:
    """The version the npm package at ``where`` says it is (``unknown`` without its package.json)."""
    try:
        data = json.loads((where / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "unknown"
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) and len(version) < 40 else "unknown"


def _engine_files() -> Iterator[tuple[str, Path]]:
    """The engine's Python files (and ``py.typed``), by their path in the archive, sorted."""
    root = Path(__file__).resolve().parents[2]
    for path in sorted(root.rglob("*")):
        relative = "engine/" + path.relative_to(root).as_posix()
        if (path.is_file() and (path.suffix == ".py" or path.name == "py.typed") and "__pycache__" not in relative
                and not relative.startswith(_LEFT_OUT)):
            yield relative, path


def _distribution_files(name: str) -> Iterator[tuple[str, Path]]:
    """A pure-Python distribution's files (its source and metadata), by their path under site-packages."""
    try:
        distribution = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        raise GameError(f"the web build ships {name}, which is not installed here (pip install {name})") from None
    for file in sorted(distribution.files or (), key=str):
        relative = file.as_posix()
        if relative.startswith("..") or "__pycache__" in relative or relative.endswith(".pyc"):
            continue
        if relative.endswith((".so", ".pyd", ".dylib", ".dll")):
            raise GameError(f"{name} has compiled code ({relative}): the browser runs only pure Python")
        if ".dist-info/" in relative and relative.rpartition("/")[2] in ("RECORD", "INSTALLER", "direct_url.json",
                                                                          "REQUESTED"):
            continue
        path = Path(str(distribution.locate_file(file)))
        if path.is_file():
            yield relative, path


def app_archive(given: str, target: Path) -> int:
    """Write ``target`` (a zip): the engine, the pure distributions and the game ``given`` staged; its game files.

    The game is loaded here first (``GameError`` for one that doesn't load) and staged as a
    desktop bundle stages it, under ``tickswap-game/`` with ``tickswap-game.json``.
    """
    game = load_game(given)
    tree = game_tree(given, game, [target.resolve()])
    with tempfile.TemporaryDirectory(prefix="tickswap-web-") as work:
        staged = Path(work)
        stage(tree, game, staged)
        entries: list[tuple[str, Path]] = list(_engine_files())
        for name in PURE_DISTRIBUTIONS:
            entries.extend(_distribution_files(name))
        entries.extend((path.relative_to(staged).as_posix(), path) for path in sorted(staged.rglob("*"))
                       if path.is_file())
        seen: set[str] = set()
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
            for name, path in entries:
                if name in seen:
                    raise GameError(f"two files would be {shown(name)} in the web build: the game's tree holds a "
                                    "module of the engine's or a library's name")
                seen.add(name)
                # A fixed date: the same game gives the same archive, byte for byte.
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, path.read_bytes())
    return len(tree.files)


def _size(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


def web_folder(given: str, out: Path, pyodide: str | os.PathLike[str] | None = None) -> WebFolder:
    """Write the static folder of the game ``given`` at ``out`` (see the module); what was made.

    ``out`` must not exist, or be an earlier web build (its ``tickswap-web.json``), which is replaced.
    """
    runtime = find_pyodide(pyodide)
    out = out.resolve()
    if out.exists() and not (out / "tickswap-web.json").is_file():
        raise GameError(f"{shown_name(out)} exists and is not a web build of tickswap's: give another --web folder")
    building = out.parent / f".{out.name}.building-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    try:
        files = app_archive(given, building / APP_ARCHIVE)
        (building / "pyodide").mkdir()
        for name in PYODIDE_FILES:
            shutil.copyfile(runtime / name, building / "pyodide" / name)
        for name in STATIC_FILES:
            shutil.copyfile(STATIC / name, building / name)
        manifest = {"format": 1, "game": given if not os.path.exists(given) else Path(given).name,
                    "engine": __version__, "pyodide": pyodide_version(runtime)}
        (building / "tickswap-web.json").write_text(json.dumps(manifest, sort_keys=True) + "\n", encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        building.rename(out)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return WebFolder(out, _size(out), _size(out / "pyodide"), (out / APP_ARCHIVE).stat().st_size, files)


def check_web(folder: Path, given: str, ticks: int = CHECK_TICKS) -> str | None:
    """Run the web build at ``folder`` for ``ticks`` ticks in Pyodide under Node and compare its state hash with
    ``tickswap run``'s here: the hash, or ``None`` where Node is not installed. ``GameError`` when they differ.
    """
    node = shutil.which("node")
    if node is None:
        return None
    from engine.tools.cli.worlds import build_world

    game = load_game(given)
    world = build_world(game, 0)
    for _ in range(ticks):
        world.tick()
    expected = world.state_hash()[:16]
    world.close()
    with tempfile.TemporaryDirectory(prefix="tickswap-web-check-") as host:
        try:
            done = subprocess.run([node, str(WEB_CHECK), str(folder / "pyodide"), str(folder / APP_ARCHIVE), host,
                                   json.dumps([["game", "--ticks", str(ticks)]])], capture_output=True, text=True,
                                  timeout=600)
        except subprocess.TimeoutExpired:
            raise GameError("the web build's check in Pyodide under Node took more than 10 minutes") from None
    found = re.findall(r"state ([0-9a-f]{16})", done.stdout)
    if done.returncode != 0 or found != [expected]:
        said = (done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or ["no output"])[-1]
        raise GameError(f"the web build is not the same game: after {ticks} ticks in Pyodide its state is "
                        f"{found[0] if found else 'unknown'}, tickswap run's {expected} ({said[:300]})")
    return expected
