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
recording itself. Keys are written by name (``"LEFT"``), as scripts written by hand say
them, where the name reads back as the same code.

A peer that played several players (a host's or a joiner's ``--local N``) takes one script
for them all, its lines naming their player, as input scripts of several players do: the
recording does not say who played where, so the caller names them (``together``, the CLI's
``--peer 1,2``), and those players' lines go to ``players-1-2.jsonl`` in tick order instead.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.disk.atomic import AtomicFile, OutputError, same_output
from engine.files.replay.format import read_replay, scan
from engine.input import keys
from engine.messages import shown_name

__all__ = ["split_peers", "split_recording"]


def _named(event: list[Any]) -> list[Any]:
    """A key event with its key's name (``["key_press", "LEFT", 0, 0]``), as scripts written by hand say it.

    Only where the name reads back as the same code (``keys.code``): a script's reader takes
    either, so the input, and every hash, are the same; anything else keeps its code.
    """
    if event[0] in ("key_press", "key_release") and type(event[1]) is int:
        name = keys.name(event[1])
        if keys.code(name) == event[1]:
            return [event[0], name, *event[2:]]
    return event


def split_recording(path: str | os.PathLike[str], directory: str | os.PathLike[str]) -> dict[int, Path]:
    """Write each player's input of the recording ``path`` as ``directory/player-P.jsonl``; return them by player.

    The directory is made if missing. A recording that ``tickswap replay`` would refuse is
    refused alike (``ReplayError`` naming the file and line), before anything is written.
    """
    return {players[0]: target for players, target in split_peers(path, directory).items()}


def split_peers(path: str | os.PathLike[str], directory: str | os.PathLike[str],
                together: Sequence[Sequence[int]] = ()) -> dict[tuple[int, ...], Path]:
    """Write one input script per peer of the recording ``path`` in ``directory``; return them by the players in each.

    ``together`` names the players each peer of several played (``[[1, 2]]``: a joiner's
    ``--local 2``): their lines go to ``players-1-2.jsonl``, each naming its player, in tick
    order (within a tick, the lower player's first), the ``--input`` of that peer. Every other
    player gets ``player-P.jsonl``, naming no player, as ``split_recording`` writes. A player
    the recording does not have, or named twice, is refused (``ValueError``) before anything is
    read; a recording ``tickswap replay`` would refuse, alike (``ReplayError``).
    """
    where = os.fspath(path)
    groups = [tuple(sorted(players)) for players in together]
    named = [player for players in groups for player in players]
    twice = sorted({player for player in named if named.count(player) > 1})
    if twice:
        raise ValueError(f"player {twice[0]} is named in two peers: a player is played by one peer")
    if any(not players for players in groups):
        raise ValueError("a peer plays at least one player")
    replay = read_replay(where)
    strangers = [player for player in named if not 0 <= player < replay.players]
    if strangers:
        raise ValueError(f"player {strangers[0]}, but {shown_name(where)} has {replay.players} players "
                         f"(0 to {replay.players - 1})")
    peers = groups + [(player,) for player in range(replay.players) if player not in named]
    peer_of = {player: players for players in peers for player in players}
    lines: dict[tuple[int, ...], list[str]] = {players: [] for players in sorted(peers)}
    for _, kind, value in scan(where):
        if kind == "input":
            tick, events, player = value
            players = peer_of[player]
            line: dict[str, object] = {"tick": tick}
            if players in groups:
                line["player"] = player  # a peer of several players: each line says whose
            line["input"] = [_named(event.to_json()) for event in events]
            lines[players].append(json.dumps(line, separators=(", ", ": ")))
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"cannot make the directory {shown_name(str(folder))}: {error.strerror or error}") from None
    written: dict[tuple[int, ...], Path] = {}
    for players, peer_lines in lines.items():
        name = f"players-{'-'.join(map(str, players))}" if players in groups else f"player-{players[0]}"
        target = folder / f"{name}.jsonl"
        if same_output(target, where):
            raise OutputError(f"{shown_name(str(target))} is the recording being split: choose another directory")
        with AtomicFile(target, suffix=".jsonl") as output:
            output.open("w").write("".join(line + "\n" for line in peer_lines))
            output.commit()
        written[players] = target
    return written
