"""``tickswap package``'s work: plan the bundle, run PyInstaller, put the bundle in place, check that it runs.

Everything that can be refused is refused before PyInstaller starts: no PyInstaller
(``pip install 'tickswap[ship]'``), a game that does not load, a name that is no file name,
an output that exists and is not a bundle of ours (one with ``_internal/tickswap-game.json``,
or a one-file program holding it). PyInstaller works in a temporary directory (its
``build/`` and spec never land beside the game) and writes the bundle beside its place, under
a hidden name; only a finished bundle replaces the old one, so a failed or interrupted
build leaves what was there.

Then the bundle is run once, from an empty directory with an environment of only ``PATH``
(no ``PYTHONPATH``, no virtual environment): ``--ticks CHECK_TICKS``, and its state hash
compared with ``tickswap run``'s of the same game. Exit 1 when they differ or the bundle
fails, saying so in one line.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.machinery import ModuleSpec
from pathlib import Path

from engine.files.game import Game
from engine.files.importer import load_game
from engine.messages import capped, shown, shown_name
from engine.tools.errors import UsageError, say
from engine.tools.ship.tree import GAME_DIR, MANIFEST, GameTree, game_tree, imports_of, stage

__all__ = ["CHECK_TICKS", "BuildFailed", "Bundle", "PackageOptions", "check_bundle", "package", "require_pyinstaller"]

CHECK_TICKS = 64
"""The ticks the finished bundle runs to check that it gives ``tickswap run``'s state hash."""
MIN_PYINSTALLER = (6, 0)
"""PyInstaller's oldest version the spec is written for (``contents_directory``)."""
NOT_OURS_HINT = "remove it, or give another --out or --name"
CHECK_SECONDS = 300
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_STATE = re.compile(r", state ([0-9a-f]{16})")
_EXCLUDED = ["pytest", "_pytest", "hypothesis", "PyInstaller"]

SPEC = '''# Written by tickswap package (engine.tools.ship.build); plan.json beside it says what goes in.
import json
import os
import sys

with open(os.path.join(SPECPATH, "plan.json"), encoding="utf-8") as file:
    plan = json.load(file)
a = Analysis([plan["entry"]], pathex=plan["paths"], binaries=[tuple(item) for item in plan["binaries"]],
             datas=[tuple(item) for item in plan["datas"]], hiddenimports=plan["hidden"],
             hookspath=plan["hooks"], excludes=plan["excludes"])
pyz = PYZ(a.pure)
console = not plan["windowed"]
if plan["onefile"]:
    made = EXE(pyz, a.scripts, a.binaries, a.datas, [], name=plan["name"], console=console, upx=False,
               strip=False)
else:
    exe = EXE(pyz, a.scripts, [], exclude_binaries=True, name=plan["name"], console=console, upx=False,
              strip=False, contents_directory="_internal")
    made = COLLECT(exe, a.binaries, a.datas, name=plan["name"], upx=False, strip=False)
if plan["windowed"] and sys.platform == "darwin":
    BUNDLE(made, name=plan["name"] + ".app", bundle_identifier=None)
'''

ENTRY = '''# The entry of a game packaged by tickswap package: run it with tickswap run's options.
from engine.tools.ship.boot import main

raise SystemExit(main())
'''


class BuildFailed(Exception):
    """PyInstaller failed, or the bundle does not run as ``tickswap run`` does: one line, exit status 1."""


@dataclass(frozen=True)
class PackageOptions:
    """What ``tickswap package`` was asked for (its options, checked as parsed)."""

    game: str
    out: Path = Path("dist")
    name: str | None = None
    onefile: bool = False
    windowed: bool = False
    hidden_imports: tuple[str, ...] = ()
    binaries: tuple[Path, ...] = ()
    check: bool = True
    web: Path | None = None
    """``--web OUT``: instead of a program, the static folder that plays the game in a browser."""
    pyodide: Path | None = None
    """``--pyodide DIR``: with ``web``, the npm package pyodide's directory (else the default's)."""


@dataclass
class Bundle:
    """A finished bundle: where it is, its program, and what the check found."""

    path: Path
    """The one-folder directory (``dist/mygame``), or the one-file program."""
    program: Path
    """The program to run (``dist/mygame/mygame``, ``.exe`` on Windows)."""
    game_files: int
    """How many of the game's own files it holds."""
    missing: list[str] = field(default_factory=list)
    """Modules the game imports that are not installed here, so the bundle lacks them."""
    state: str | None = None
    """The state hash (16 hex digits) the bundle and ``tickswap run`` agreed on, when checked."""


def require_pyinstaller() -> str:
    """PyInstaller's version; ``UsageError`` saying how to install it where it is missing or too old."""
    try:
        import PyInstaller
    except ImportError:
        raise UsageError("package needs PyInstaller, which is not installed: "
                         "pip install 'tickswap[ship]'") from None
    version = str(getattr(PyInstaller, "__version__", "0"))
    numbers = tuple(int(part) for part in re.findall(r"\d+", version)[:2])
    if numbers < MIN_PYINSTALLER:
        raise UsageError(f"package needs PyInstaller {'.'.join(map(str, MIN_PYINSTALLER))} or newer, "
                         f"found {version}: pip install -U 'tickswap[ship]'")
    return version


def _exe(name: str) -> str:
    return name + ".exe" if sys.platform == "win32" else name


def _holds_manifest(path: Path) -> bool:
    """Whether ``path`` is a bundle ``tickswap package`` made: a folder with our manifest, or a program holding it."""
    if path.is_dir():
        return (path / "_internal" / MANIFEST).is_file() or any(path.glob(f"Contents/*/{MANIFEST}"))
    try:
        from PyInstaller.archive.readers import CArchiveReader

        return MANIFEST in CArchiveReader(str(path)).toc
    except Exception:  # not a PyInstaller program at all, or unreadable: not ours
        return False


def _check_target(target: Path) -> None:
    if (target.exists() or target.is_symlink()) and (target.is_symlink() or not _holds_manifest(target)):
        raise UsageError(f"{shown_name(target)} exists and is not a bundle tickswap package made: {NOT_OURS_HINT}")


def _products(name: str, onefile: bool, windowed: bool) -> list[str]:
    """What PyInstaller makes in its dist directory: the folder or the program, and a macOS ``.app`` when windowed."""
    made = [_exe(name) if onefile else name]
    if windowed and sys.platform == "darwin":
        made.append(name + ".app")
    return made


def _plan(options: PackageOptions, tree: GameTree, name: str, work: Path, hidden: list[str]) -> dict[str, object]:
    """What the spec builds (``plan.json``): the entry, where modules are found, what is frozen and copied."""
    # The directories that hold the engine and the game's imports: PyInstaller can't see through an
    # editable install's finder, so it is told where they lie.
    paths = [str(Path(__file__).resolve().parents[3])]
    for module in hidden:
        if module.partition(".")[0] in sys.stdlib_module_names:
            continue  # PyInstaller knows where the standard library is
        spec = _spec(module.partition(".")[0])
        origin = spec.origin if spec is not None else None
        if spec is not None and spec.submodule_search_locations:
            origin = next(iter(spec.submodule_search_locations))
        if origin and os.path.isabs(origin):
            where = str(Path(origin).resolve().parent)
            if where not in paths:
                paths.append(where)
    return {
        "entry": str(work / "tickswap_entry.py"),
        "name": name,
        "paths": paths,
        "hidden": sorted(set(hidden)),
        "datas": [[str(work / "stage" / GAME_DIR), GAME_DIR], [str(work / "stage" / MANIFEST), "."]],
        "binaries": [[str(path), "."] for path in options.binaries],
        "hooks": [str(Path(__file__).resolve().parent / "hooks")],
        # The game's own modules are files in the bundle, never frozen; a name something else here answers
        # to (the standard library's, an installed package's) is left to it.
        "excludes": _EXCLUDED + sorted(local for local in tree.local if _spec(local) is None),
        "onefile": options.onefile,
        "windowed": options.windowed,
    }


def _spec(name: str) -> ModuleSpec | None:
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def _check_options(options: PackageOptions) -> None:
    if options.name is not None and not _NAME.fullmatch(options.name):
        raise UsageError(f"--name: expected a file name of letters, digits, '.', '_' and '-' (at most 64), "
                         f"got {shown(options.name)}")
    for binary in options.binaries:
        if not binary.is_file():
            raise UsageError(f"--add-binary: no file {shown_name(binary)}")
    for module in options.hidden_imports:
        if not all(part.isidentifier() for part in module.split(".")):
            raise UsageError(f"--hidden-import: expected a module name such as mypackage.sub, got {shown(module)}")
    if options.out.exists() and not options.out.is_dir():
        raise UsageError(f"--out {shown_name(options.out)} is a file, not a directory")


def _run_pyinstaller(spec: Path, work: Path, distpath: Path, log: Path) -> None:
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
               "--distpath", str(distpath), "--workpath", str(work / "build"), str(spec)]
    with open(log, "wb") as output:
        status = subprocess.run(command, stdout=output, stderr=subprocess.STDOUT, cwd=work, check=False).returncode
    if status != 0:
        lines = log.read_text(errors="replace").splitlines()
        errors = [line for line in lines if "ERROR" in line or "Error" in line] or lines or ["(no output)"]
        raise BuildFailed(f"PyInstaller failed (exit {status}): {capped(errors[-1].strip(), 300)}")


def _put_in_place(made: Path, target: Path) -> None:
    """Replace ``target`` (a bundle of ours, or nothing) with ``made``: the old one is moved aside, then removed."""
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    if target.exists():
        os.replace(target, old)
    try:
        os.replace(made, target)
    except OSError:
        if old.exists():
            os.replace(old, target)  # the old bundle back: nothing is lost
        raise
    if old.exists():
        shutil.rmtree(old) if old.is_dir() else old.unlink()


def _program_of(path: Path, name: str, onefile: bool) -> Path:
    return path if onefile else path / _exe(name)


def _state_of(command: Sequence[str], env: dict[str, str] | None, what: str) -> str:
    """The state hash a run's summary line gives; ``BuildFailed`` naming ``what`` when it fails or says none."""
    with tempfile.TemporaryDirectory(prefix="tickswap-check-") as elsewhere:
        try:
            done = subprocess.run(list(command), cwd=elsewhere, env=env, capture_output=True, text=True,
                                  errors="replace", timeout=CHECK_SECONDS, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise BuildFailed(f"{what} did not run: {capped(str(error), 300)}") from None
    found = _STATE.search(done.stdout)
    if done.returncode != 0 or found is None:
        said = (done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or ["(nothing)"])[-1]
        raise BuildFailed(f"{what} failed (exit {done.returncode}): {capped(said, 300)}")
    return found.group(1)


def check_bundle(program: Path, given: str, game: Game, ticks: int = CHECK_TICKS) -> str:
    """Run the bundle's ``program`` and ``tickswap run`` of the same game for ``ticks`` ticks; their state hash.

    The bundle runs from an empty directory with only ``PATH`` (and the system's few
    variables a program needs) in its environment: no Python of ours can be found.
    ``BuildFailed`` when either fails or the hashes differ.
    """
    kept = ("PATH", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP", "TICKSWAP_PURE")
    bare = {key: os.environ[key] for key in kept if key in os.environ}
    reference = given if game.path is None else str(game.path)
    expected = _state_of([sys.executable, "-m", "engine.tools.cli", "run", reference, "--ticks", str(ticks)],
                         None, f"tickswap run {shown_name(reference)} --ticks {ticks}")
    got = _state_of([str(program), "--ticks", str(ticks)], bare, f"the bundle ({shown_name(program)} --ticks {ticks})")
    if got != expected:
        raise BuildFailed(f"the bundle {shown_name(program)} is not the same game: after {ticks} ticks its state is "
                          f"{got}, tickswap run's is {expected}")
    return got


def package(options: PackageOptions) -> Bundle:
    """Build the bundle ``options`` ask for, put it in place and check it (see the module); what was made.

    ``UsageError`` (or ``GameError``) for a mistake found before the build, ``BuildFailed``
    when the build or the check fails.
    """
    require_pyinstaller()
    _check_options(options)
    game = load_game(options.game)
    out = options.out.resolve()
    tree = game_tree(options.game, game, [out])
    name = options.name or tree.default_name
    products = _products(name, options.onefile, options.windowed)
    for product in products:
        _check_target(out / product)
    found, missing = imports_of(tree)
    if missing:
        say(f"note: {game.name} imports {', '.join(missing)}, not installed here, so the bundle has "
            f"{'it' if len(missing) == 1 else 'them'} not either")
    work = Path(tempfile.mkdtemp(prefix="tickswap-package-"))
    building = out / f".{name}.building-{os.getpid()}"
    try:
        staged = work / "stage"
        staged.mkdir()
        stage(tree, game, staged)
        (work / "tickswap_entry.py").write_text(ENTRY, encoding="utf-8")
        plan = _plan(options, tree, name, work, [*found, *options.hidden_imports])
        (work / "plan.json").write_text(json.dumps(plan, indent=1), encoding="utf-8")
        spec = work / f"{name}.spec"
        spec.write_text(SPEC, encoding="utf-8")
        out.mkdir(parents=True, exist_ok=True)
        log = work / "pyinstaller.log"
        try:
            _run_pyinstaller(spec, work, building, log)
        except BuildFailed:
            kept = out / f"{name}-pyinstaller.log"
            shutil.copyfile(log, kept)
            raise BuildFailed(f"{sys.exc_info()[1]} (its log: {shown_name(kept)})") from None
        for product in products:
            _put_in_place(building / product, out / product)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(building, ignore_errors=True)
    target = out / products[0]
    bundle = Bundle(target, _program_of(target, name, options.onefile), len(tree.files), missing)
    if options.check:
        bundle.state = check_bundle(bundle.program, options.game, game)
    return bundle
