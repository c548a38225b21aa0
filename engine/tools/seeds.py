"""Per-process values, checked: run the game in fresh processes with different ``PYTHONHASHSEED``s; compare.

Python seeds ``hash()`` of a ``str`` (and of ``bytes``) per process, so the order of a
set of strings, of a dict built from such a set, and ``id()`` (a memory address) differ
from one process to the next, and are the same for every world of one process. Two peers
of a network session, a recording and its replay, a run and a later run are different
processes: a game whose logic reads such a value desyncs, though the order check and the
rollback check, which compare worlds of one process, agree.

``check_hash_seeds(game)`` runs the game in ``processes`` fresh interpreters
(``sys.executable -m engine.tools.seeds``), process k with ``PYTHONHASHSEED=k``, all with
the same seed, input and ticks, each printing its state hash after every tick. The first
tick whose hashes differ is named; the check then runs that tick again in the two
processes that differed and compares their ``snapshot()``s, naming the entities and
fields, as the other checks do. Both are fresh processes, so a module-level counter or a
game's own global state (found by the order check) is the same in both: what differs is
per process (hash seeds, ``id()``, memory addresses) or the time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.errors import located
from engine.files.game import Game
from engine.files.importer import load_game
from engine.input.scripts import assign_unnamed, read_script_lines
from engine.state.differences import EntityDifference, compare_snapshots
from engine.tools.check import difference_report
from engine.tools.inputs import DEFAULT_KEYS, random_input, random_keys, setup_of, whole_numbers
from engine.world import World

__all__ = ["HINT", "SeedResult", "check_hash_seeds", "inputs_of"]

HINT = ("the game reads a value Python seeds per process: hash() of a str, the order of a set (or of a dict built "
        "from one), id() or the time; iterate sorted(...), key by ids or names, never by id()")
"""What the report tells a game to do when two processes differ."""

TIMEOUT_S = 300.0
"""The longest one process of the check may run: a game that hangs stops the check, named."""


@dataclass
class SeedResult:
    """What ``check_hash_seeds`` found. ``ok`` is true when every process gave the same hash every tick."""

    ticks: int
    processes: int
    tick: int | None = None
    """The first tick whose state hash differed between two processes (None if none did)."""
    seeds: tuple[int, int] = (0, 0)
    """The ``PYTHONHASHSEED``s of the two processes that differed."""
    differences: list[EntityDifference] = field(default_factory=list)
    note: str = ""
    """What else differed, or why the check stopped (a crash, a time-out)."""

    @property
    def ok(self) -> bool:
        """Whether every process agreed on every tick."""
        return self.tick is None and not self.note

    def describe(self) -> str:
        """One line when all agree, else the tick, the two hash seeds, one line per entity, and what to do."""
        if self.ok:
            return (f"same in every process: {self.processes} processes, PYTHONHASHSEED 1 to {self.processes}, "
                    f"agreed for {self.ticks} ticks")
        if self.tick is None:
            return self.note
        return difference_report(f"differs between processes: after tick {self.tick}, the state under "
                                 f"PYTHONHASHSEED={self.seeds[0]} differs from PYTHONHASHSEED={self.seeds[1]}",
                                 self.differences, self.note, HINT)


def inputs_of(game: Game, players: int, seed: int, input_path: str | None, no_input: bool) -> Any:
    """The input ``tickswap check`` feeds: the game's keys at random (each player a stream), a script's, or none."""
    if input_path:
        # Lines naming no player are player 0's, as in tickswap run; other players refused.
        scripts = assign_unnamed(read_script_lines(input_path, players, allowed=game.players), 0)
        return [scripts.get(player, {}) for player in range(players)]
    if no_input:
        return None
    if random_keys(game) != DEFAULT_KEYS:
        return [random_input(seed, keys=random_keys(game), player=player) for player in range(players)]
    return "random"


def check_hash_seeds(game: Game, *, ticks: int = 300, seed: int = 0, players: int | None = None,
                     input_path: str | None = None, no_input: bool = False, processes: int = 3) -> SeedResult:
    """Run ``game`` in ``processes`` fresh processes, ``PYTHONHASHSEED`` 1 to ``processes``; compare every tick.

    ``game`` comes from ``load_game`` (a process loads it again by its path or name: a
    plain ``build`` function can't be sent to another process). The input is
    ``tickswap check``'s: seeded random input, ``input_path``'s script, or none.
    Returns a ``SeedResult``; nothing is raised for a difference.
    """
    whole_numbers(ticks=ticks)
    whole_numbers(2, processes=processes)
    players = players if players is not None else game.players.start
    words = [str(game.path) if game.path is not None else game.name, "--ticks", str(ticks), "--seed", str(seed),
             "--players", str(players)] + (["--input", input_path] if input_path else []) \
        + (["--no-input"] if no_input and not input_path else [])
    seeds = list(range(1, processes + 1))
    outputs = _run_all(words, seeds)
    failed = next(((hash_seed, note) for hash_seed, (_, note) in zip(seeds, outputs) if note), None)
    runs = [hashes for hashes, _ in outputs]
    reference = runs[0]
    for tick in range(1, max(len(hashes) for hashes in runs) + 1):
        for index, hashes in enumerate(runs[1:], 1):
            if tick <= len(reference) and tick <= len(hashes) and reference[tick - 1] != hashes[tick - 1]:
                return _explained(words, tick, (seeds[0], seeds[index]))
    if failed is not None:
        return SeedResult(ticks, processes, note=f"the process with PYTHONHASHSEED={failed[0]} {failed[1]}")
    return SeedResult(ticks, processes)


def _run_all(words: Sequence[str], seeds: Sequence[int]) -> list[tuple[list[str], str]]:
    """Each process's per-tick hashes and, when it failed, why; the processes run side by side."""
    started = []
    for hash_seed in seeds:
        environment = dict(os.environ, PYTHONHASHSEED=str(hash_seed))
        started.append(subprocess.Popen([sys.executable, "-m", "engine.tools.seeds", *words], env=environment,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    results = []
    for process in started:
        try:
            out, err = process.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            err = f"ran past {TIMEOUT_S:g} s and was stopped"
        lines = [line for line in out.splitlines() if line]
        note = "" if process.returncode == 0 else (err.strip().splitlines() or [f"exit {process.returncode}"])[-1]
        results.append((lines, note if process.returncode == 0 or note.startswith("ran past") else f"failed: {note}"))
    return results


def _explained(words: Sequence[str], tick: int, seeds: tuple[int, int]) -> SeedResult:
    """Run ``tick`` again in the two processes that differed, and name what differs in their snapshots."""
    ticks = int(words[words.index("--ticks") + 1])
    processes_words = [*words, "--snapshot-at", str(tick)]
    outputs = _run_all(processes_words, seeds)
    try:
        first, second = (json.loads(lines[-1]) for lines, _ in outputs)
    except (IndexError, ValueError):
        return SeedResult(ticks, 0, tick, seeds, note="their snapshots could not be taken again")
    differences = compare_snapshots(first, second, (f"PYTHONHASHSEED={seeds[0]}", f"PYTHONHASHSEED={seeds[1]}"))
    note = ("" if differences else "their snapshots of that tick, taken again, are the same: what differs is outside "
            "them (world.random) or not the same from run to run (the time)")
    return SeedResult(ticks, 0, tick, seeds, differences, note)


def main(argv: list[str] | None = None) -> int:
    """One process of the check: print the state hash after every tick (or one tick's snapshot)."""
    from engine.tools.cli.options import seeds_options

    args = seeds_options(argv)
    game = load_game(args.game)
    setup = setup_of(game, None, args.players, inputs_of(game, args.players, args.seed, args.input, args.no_input),
                     args.seed)
    try:
        with World(seed=args.seed, players=setup.players) as world:
            setup.build(world)
            last = args.snapshot_at or args.ticks
            for tick in range(1, last + 1):
                setup.feed(world, setup.events_at(tick))
                world.tick()
                if args.snapshot_at is None:
                    # One line a tick, flushed: a crash later leaves the ticks before it compared.
                    print(world.state_hash(), flush=True)
            if args.snapshot_at is not None:
                print(json.dumps(world.snapshot(), sort_keys=True))
    except Exception as error:
        # The checking process reports the last line: the game's failure and its line, no traceback.
        print(located(error), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
