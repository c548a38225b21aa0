"""One recording, per-peer inputs: a session recording split into each player's input script.

A networked session's recording (``tickswap host ... --record``) holds every player's
input, each line naming its player. To play a peer's part again (``tickswap join ...
--input FILE``, a test's ``read_input_scripts``), that peer needs its own script: the lines
of its player, naming no player (a peer's unnamed lines are its own). ``split_recording``
writes them, one file a player, ``player-P.jsonl`` in a directory, from a recording
checked whole first (``read_replay``); a recording's input lines are keyed by the game tick
they apply to, which is what a script's ticks are, so the split is exact (an input delay
or its change is the session's, not the script's). A player with no input gets an empty
file, so every peer of the session has one. Files are written atomically, never over the
recording itself.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from engine.disk.atomic import AtomicFile, OutputError, same_output
from engine.files.replay.format import read_replay, scan
from engine.messages import shown_name

__all__ = ["split_recording"]


def split_recording(path: str | os.PathLike[str], directory: str | os.PathLike[str]) -> dict[int, Path]:
    """Write each player's input of the recording ``path`` as ``directory/player-P.jsonl``; return them by player.

    The directory is made if missing. A recording that ``tickswap replay`` would refuse is
    refused alike (``ReplayError`` naming the file and line), before anything is written.
    """
    where = os.fspath(path)
    replay = read_replay(where)
    lines: dict[int, list[str]] = {player: [] for player in range(replay.players)}
    for _, kind, value in scan(where):
        if kind == "input":
            tick, events, player = value
            lines[player].append(json.dumps({"tick": tick, "input": [event.to_json() for event in events]},
                                            separators=(", ", ": ")))
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"cannot make the directory {shown_name(str(folder))}: {error.strerror or error}") from None
    written: dict[int, Path] = {}
    for player, player_lines in lines.items():
        target = folder / f"player-{player}.jsonl"
        if same_output(target, where):
            raise OutputError(f"{shown_name(str(target))} is the recording being split: choose another directory")
        with AtomicFile(target, suffix=".jsonl") as output:
            output.open("w").write("".join(line + "\n" for line in player_lines))
            output.commit()
        written[player] = target
    return written
