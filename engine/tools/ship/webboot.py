"""The page's start: the web build's game loaded as a desktop bundle loads it, and a ``WebRunner`` of it.

``tickswap-web.js`` unpacks ``app.zip`` into ``/app`` and calls ``start`` with what the
page's address asks for: a plain run (the keyboard plays; ``record`` keeps a recording the
page can hand out with ``recording``), a scripted run (``script``: an input script's text,
fed as ``tickswap run --input`` feeds it, up to ``ticks``), or a replay (``replay``: a
recording's text, played and checked hash by hash, as ``tickswap replay`` does). The game
is found by the bundle's manifest (``engine.tools.ship.boot``) and its world built by
``tickswap run``'s own ``build_world``: the same game, bit for bit.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path, PurePosixPath

from engine.files.game import Game
from engine.files.importer import load_game
from engine.files.replay import Playback, Recorder, read_replay
from engine.input.scripts import read_input_scripts
from engine.tools.cli.replay import start_world
from engine.tools.cli.worlds import build_world
from engine.tools.ship.boot import read_manifest
from engine.tools.ship.tree import GAME_DIR
from engine.web import WebRunner
from engine.world import World

__all__ = ["WebSession", "start"]

MAX_TEXT = 64 * 1024 * 1024
"""The most characters of a script or recording the page hands over."""


def _game(root: Path) -> Game:
    manifest = read_manifest(root)
    games = root / GAME_DIR
    if manifest.kind == "installed":
        if str(games) not in sys.path:
            sys.path.insert(0, str(games))
        return load_game(manifest.game)
    return load_game(os.fspath(games.joinpath(*PurePosixPath(manifest.game).parts)))


def _written(text: str, name: str) -> str:
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise ValueError(f"the {name} must be text of at most {MAX_TEXT} characters")
    handle, path = tempfile.mkstemp(prefix="tickswap-", suffix=f"-{name}.jsonl")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(text)
    return path


class WebSession:
    """One page's run: its ``runner``, and the recording it keeps (``record``) or the replay it checks."""

    def __init__(self, root: Path, *, seed: int = 0, script: str | None = None, ticks: int | None = None,
                 record: bool = False, replay: str | None = None) -> None:
        self.game = _game(root)
        self.recorder: Recorder | None = None
        self.recording_path: str | None = None
        self.replay_result: str | None = None
        game = self.game
        if replay is not None:
            recording = read_replay(_written(replay, "replay"))
            world = (build_world(game, recording.seed, players=recording.players) if not recording.start
                     else start_world(recording, game))
            playback = Playback(recording)
            end = recording.end

            def checked(world: World) -> None:
                matched = playback.check(world)
                if matched is False:
                    self.replay_result = f"tick {world.tick_count}: the state differs from the recording's"
                    raise RuntimeError(self.replay_result)
                if world.tick_count == end:
                    ok = playback.matches_end(world)
                    self.replay_result = (f"{playback.checked} hashes checked, all match" if ok
                                          else f"tick {end}: the end differs from the recording's")

            self.runner = WebRunner(game, world, ms_per_update=recording.ms_per_update, before_tick=playback.feed,
                                    after_tick=checked, forward_input=False, stop_at=end)
            return
        world = build_world(game, seed)
        feed = None
        if script is not None:
            scripts = read_input_scripts(_written(script, "input"), world.players)

            def feed(world: World) -> None:
                for player, lines in scripts.items():
                    queue = world.input_queue_of(player)
                    for event in lines.get(world.tick_count + 1, ()):
                        queue.push(event)

        after = None
        if record:
            handle, self.recording_path = tempfile.mkstemp(prefix="tickswap-", suffix="-recording.jsonl")
            os.close(handle)
            self.recorder = Recorder(self.recording_path, game=game.name, game_digest=game.digest, seed=seed,
                                     ms_per_update=game.ms_per_update, players=world.players)
            self.recorder.start(world)
            after = self.recorder.after_tick
        self.runner = WebRunner(game, world, before_tick=feed, after_tick=after, stop_at=ticks)

    def recording(self) -> str:
        """The recording so far, ended at this tick (``tickswap replay`` replays it); recording stops here."""
        if self.recorder is None or self.recording_path is None:
            raise ValueError("no recording is being kept: open the page with ?record (a recording ends when it is "
                             "downloaded)")
        self.recorder.close(self.runner.world)
        self.recorder = None
        self.runner.after_tick = None
        return Path(self.recording_path).read_text(encoding="utf-8")


def start(root: str = "/app", *, seed: int = 0, script: str | None = None, ticks: int | None = None,
          record: bool = False, replay: str | None = None) -> WebSession:
    """The page's session of the web build unpacked at ``root`` (see the module)."""
    return WebSession(Path(root), seed=seed, script=script, ticks=ticks, record=record, replay=replay)
