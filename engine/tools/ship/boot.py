"""The entry of a packaged game: read the bundle's manifest, load the game as ``tickswap run`` does, run it.

A bundle made by ``tickswap package`` starts here (its entry script is two lines that call
``main``). The program takes ``tickswap run``'s options, and ``--host``/``--join`` first for
a network session, as ``python game.py`` does (``engine.tools.cli.run_with_options``):
``./dist/mygame/mygame --ticks 300``, ``--headless --frames 60 --screenshot x.png``,
``--record r.jsonl``. Its statuses and one-line messages are ``tickswap run``'s.

The game's files lie in the bundle under ``GAME_DIR`` as they lay beside the game
(``engine.tools.ship.tree``), so ``load_game`` loads them as ``tickswap run`` did: the same
module name and digest, the same class names, the same state hashes. An installed game is
found by its name through the registration its tree carries.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from engine.files.game import Game, GameError
from engine.files.importer import load_game
from engine.messages import shown, shown_name
from engine.tools.cli import run_with_options
from engine.tools.errors import say
from engine.tools.ship.tree import GAME_DIR, KINDS, MANIFEST

__all__ = ["Manifest", "bundle_root", "main", "read_manifest"]

MAX_MANIFEST_BYTES = 64 * 1024


@dataclass(frozen=True)
class Manifest:
    """What a bundle's manifest says: how its game is loaded (``kind``) and which (``game``)."""

    kind: str
    """``file``, ``package`` or ``installed``."""
    game: str
    """The game's path under ``GAME_DIR`` (``/``-separated), or an installed game's name."""


def bundle_root() -> Path:
    """Where the running bundle's files lie: PyInstaller's ``sys._MEIPASS``, else beside the executable."""
    root = getattr(sys, "_MEIPASS", None)
    return Path(root) if isinstance(root, str) else Path(sys.executable).resolve().parent


def read_manifest(root: Path) -> Manifest:
    """The manifest of the bundle at ``root``, checked whole: ``GameError`` naming the problem in one line."""
    path = root / MANIFEST
    try:
        with open(path, "rb") as file:
            text = file.read(MAX_MANIFEST_BYTES + 1)
    except OSError as error:
        raise GameError(f"this program is not a complete tickswap bundle: {shown_name(path)}: "
                        f"{error.strerror or error}") from None
    if len(text) > MAX_MANIFEST_BYTES:
        raise GameError(f"{shown_name(path)}: larger than {MAX_MANIFEST_BYTES} bytes: not a bundle's manifest")
    try:
        data: Any = json.loads(text)
    except (ValueError, UnicodeDecodeError) as error:
        raise GameError(f"{shown_name(path)}: not JSON ({error})") from None
    if not isinstance(data, dict) or set(data) != {"format", "kind", "game", "engine"}:
        raise GameError(f"{shown_name(path)}: expected the keys engine, format, game and kind, got {shown(data)}")
    if data["format"] != 1:
        raise GameError(f"{shown_name(path)}: format {shown(data['format'])} is not one this engine reads (1)")
    kind, game = data["kind"], data["game"]
    if kind not in KINDS:
        raise GameError(f"{shown_name(path)}: kind must be one of {', '.join(KINDS)}, got {shown(kind)}")
    if not isinstance(game, str) or not game or len(game) > 4096 or "\0" in game:
        raise GameError(f"{shown_name(path)}: game must be a name or a path, got {shown(game)}")
    if kind != "installed":
        parts = PurePosixPath(game).parts
        if game.startswith("/") or "\\" in game or ".." in parts or not parts:
            raise GameError(f"{shown_name(path)}: game must be a path inside the bundle, got {shown(game)}")
    return Manifest(kind, game)


def main(argv: list[str] | None = None, root: Path | None = None) -> int:
    """Run the bundle's game with ``tickswap run``'s options (``argv``, default the command line); its status.

    ``root`` is where the bundle's files lie (default ``bundle_root()``): a test starts a
    staged tree with it, without PyInstaller.
    """
    root = bundle_root() if root is None else root
    program = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "game"
    program = program[:-4] if program.lower().endswith(".exe") else program
    try:
        manifest = read_manifest(root)
    except GameError as error:
        say(str(error))
        return 2
    games = root / GAME_DIR

    def load() -> Game:
        if manifest.kind == "installed":
            # The game's package lies in GAME_DIR with its registration: found by name, as tickswap run finds it.
            if str(games) not in sys.path:
                sys.path.insert(0, str(games))
            return load_game(manifest.game)
        return load_game(os.fspath(games.joinpath(*PurePosixPath(manifest.game).parts)))

    return run_with_options(program, program, load, argv)
