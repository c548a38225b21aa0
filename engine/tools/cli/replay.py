"""``tickswap replay FILE``: play a recording back and verify every state hash it holds.

Without a window the replay is verified as fast as the ticks run; with ``--headless`` or
``--window`` it is drawn while verifying. Its game is a registered one by name, or the
game the user names with ``--game`` (a file, or an installed game's name): a replay never
runs a file by itself.
"""

from __future__ import annotations

import os
from typing import Any

from engine.disk.atomic import OutputError
from engine.files.game import Game
from engine.files.importer import load_game, sample_games
from engine.files.replay import (
    ReplayDriver,
    ReplayError,
    ReplayResult,
    Verification,
    read_replay,
    read_start,
    verify,
)
from engine.interrupts import Interrupted
from engine.json_events import emit, listening
from engine.tools.cli.display import DisplayError, make_runner
from engine.tools.cli.options import ReplayOptions
from engine.tools.cli.outputs import check_outputs, write_screenshot
from engine.tools.cli.worlds import add_systems, build_world
from engine.tools.errors import UsageError, crash_line, refused, say, shown_name
from engine.world import World
from engine.world.driver import Driver
from engine.world.save import load_world_data

__all__ = ["replay_command", "split_command"]


def _replay_game(replay: Any, chosen: str | None) -> Game:
    """The replay's game: the one the user names with ``--game`` (a game file or an installed game's name), else
    the registered game the recording names.

    A game is one game however it is loaded, so a recording of ``tickswap run NAME`` replays
    with ``--game path/to/its/logic.py`` and one of a game file with ``--game NAME`` where
    that game is installed. A game file is never run because a replay names it, not even
    one lying beside the replay with the recorded digest: whoever sent the replay can send
    that file too, so a matching digest shows only that the file fits the header, not that
    the user chose to run it. The refusal says which ``--game`` to pass.
    """
    recording = shown_name(replay.path)
    if chosen is not None:
        # The user named this game: it may be run whatever its content; hashes say whether it still fits.
        if chosen in sample_games() and not chosen.endswith(".py") and os.sep not in chosen:
            return load_game(chosen)
        if not chosen.endswith(".py") and os.sep not in chosen and not os.path.lexists(chosen):
            raise UsageError(f"--game {shown_name(chosen)}: no such game file, and no installed game of that name "
                             f"(installed: {', '.join(sorted(sample_games())) or 'none'})")
        return load_game(chosen if chosen.endswith(".py") or os.sep in chosen else os.path.join(".", chosen))
    if replay.game_digest is None:
        if replay.game not in sample_games():
            # Only a registered game by name: never a file or directory the header happens to name.
            raise UsageError(f"{recording}:1: the replay's game {replay.game!r} is not an installed game; "
                             f"installed: {', '.join(sorted(sample_games()))} (or pass its file with --game)")
        return load_game(replay.game)
    beside = os.path.join(os.path.dirname(os.path.abspath(replay.path)), replay.game)
    relative = os.path.relpath(beside)
    suggestion = shown_name((beside if relative.startswith("..") else relative) if os.path.lexists(beside)
                              else replay.game)
    raise UsageError(f"{recording} is a recording of the game file {shown_name(replay.game)}, which a replay never "
                     f"runs by itself: to run that game, pass --game {suggestion}")


def start_world(replay: Any, game: Game) -> World:
    """The world a recording that starts from a save starts from: its save line, checked whole, then loaded.

    As ``tickswap run --load`` loads a save file: the game's classes only, then its
    ``systems(world)`` again; a ``build`` that adds systems is refused (a save holds none).
    """
    build_world(game, replay.seed, "a recording that starts from a save", replay.players).close()
    notes: list[str] = []
    world = load_world_data(read_start(replay), f"{shown_name(replay.path)}:2", game, notes, world_class=World)
    for note in notes:
        say(note)
    if world.players != replay.players:
        world.close()
        raise UsageError(f"{shown_name(replay.path)}:2: the save has {world.players} players, the header "
                         f"{replay.players}")
    return add_systems(game, world)


def split_command(options: ReplayOptions) -> int:
    """``tickswap replay FILE --split DIR [--peer P,Q]``: each peer's input script, from a recording checked whole."""
    assert options.split is not None
    if options.game or options.screenshot or options.drawn:
        raise UsageError("--split writes the recording's input scripts without replaying it: it takes no --game, "
                         "--headless, --window or --screenshot")
    from engine.files.replay.split import split_peers

    try:
        written = split_peers(options.file, options.split, options.peers)
    except ReplayError:
        raise  # the recording's own problem, said as a replay says it
    except ValueError as error:
        raise UsageError(f"--peer: {error}") from None
    except OutputError as error:
        return refused(str(error))
    for players, path in written.items():
        who = (f"player {players[0]}" if len(players) == 1
               else f"players {', '.join(map(str, players[:-1]))} and {players[-1]}")
        print(f"split {shown_name(options.file)}: {who}'s input in {shown_name(str(path))}")
        if len(players) == 1:
            emit("split", player=players[0], path=str(path))
        else:
            emit("split", players=list(players), path=str(path))
    return 0


def replay_command(options: ReplayOptions) -> int:
    """``tickswap replay FILE``: verify every state hash (0 when all match, 1 naming the first mismatch)."""
    if options.peers:
        raise UsageError("--peer goes with --split (the players one peer played, for its script): a replay plays "
                         "every player")
    if options.screenshot and not options.drawn:
        raise UsageError("--screenshot needs --headless or --window: a replay verified without drawing has no frame")
    pictures = [("--screenshot", options.screenshot)] if options.screenshot else []
    check_outputs(pictures=pictures, inputs=[("the replay", options.file)])
    replay = read_replay(options.file)
    game = _replay_game(replay, options.game)
    check_outputs(pictures=pictures, inputs=[("the replay", options.file)], game=game)
    changed = None
    advice = ""  # said only where it does not replay the same
    if replay.game != game.name:
        # The header names the game that made the recording: a mismatch then says which, not that a
        # header may have been edited.
        changed = f"it is a recording of {shown_name(replay.game)} (its header), replayed with {game.name}"
        advice = f": replay it with --game {shown_name(replay.game)}"
    elif replay.game_digest is not None and game.digest is None:
        changed = f"it was recorded with the game file {shown_name(replay.game)}, replayed with {game.name}"
    also = ""  # a renamed file that also changed: said where it replays the same (else the name says enough)
    if replay.game_digest is not None and game.digest is not None and replay.game_digest != game.digest:
        digest = (f"the game file changed since it was recorded (digest {game.digest[:12]}, recorded "
                  f"{replay.game_digest[:12]})")
        if changed is None:
            changed = digest
        else:
            also = f", and {digest}"
    if replay.players not in game.players:
        raise UsageError(f"{shown_name(replay.path)}:1: the recording has {replay.players} players; {game.name} is "
                         f"played by {game.played_by()} (its PLAYERS)")
    world = build_world(game, replay.seed, players=replay.players) if not replay.start else start_world(replay, game)
    runner: Any = None
    shot = ""  # the screenshot, named in the line that ends the replay as --record's file is in a run's
    try:
        if not options.drawn:
            result = verify(replay, world)
        else:
            # Drawn, the window's runner steps the same verification verify() steps, once per update it owes.
            verification = Verification(replay, world)
            driver: Driver = ReplayDriver(verification)  # the type checker holds it to the protocol
            runner = make_runner(options.display, game, world, ups=1000 / replay.ms_per_update, driver=driver)
            runner.run()
            if options.screenshot:
                write_screenshot(runner, options.screenshot)
                shot = f", screenshot {shown_name(options.screenshot)}"
            if verification.result is None:  # the window was closed (Esc) before the replay's end
                say(f"replay stopped at tick {world.tick_count} of {replay.end}{shot}")
                result = ReplayResult(False, world.tick_count, verification.playback.checked)
            else:
                result = verification.result
    except Interrupted as interrupt:
        say(f"replay of {shown_name(options.file)} {interrupt.verb} at tick {world.tick_count}")
        return interrupt.status
    except (DisplayError, OutputError) as error:
        return refused(str(error))
    except BaseException as error:
        say(f"the replay crashed: {crash_line(game.name, error)}" + (f"; {changed}{advice}" if changed else ""))
        return 1
    finally:
        final_state = world.state_hash() if listening() else ""  # the hash only a --json summary says
        if runner is not None:
            runner.close()
        else:
            world.close()
    status = _said(replay, result, shown_name(options.file), shot, game, (changed, advice, also),
                   options.game or replay.game)
    emit("summary", command="replay", game=game.name, ok=status == 0, ticks=result.ticks, checked=result.checked,
         first_mismatch=result.first_mismatch, state=final_state)
    return status


def _apart(replay: Any, tick: int, name: str, game_word: str, game: Game) -> str:
    """Where a replay whose first hash checked (at ``tick``) differs went apart, and how to find what differs.

    Only that the runs part before ``tick`` is known: an input line or the header edited,
    or another game or engine. ``tickswap check`` runs its own input, so it does not help
    here; saving the state at ``tick`` from this recording and from the original does (a
    diff of the two saves names the entity and field).
    """
    since = f"tick {replay.start} (its save)" if replay.start else "the start"
    where = (f"; it is the first hash checked, so the runs part between {since} and tick {tick}: an input line "
             "before it edited, or the header (seed, step), or another game or engine")
    if replay.start:
        return where
    options = (f" --seed {replay.seed}" + (f" --players {replay.players}" if replay.players != 1 else "")
               + (f" --ups {1000 / replay.ms_per_update:g}" if replay.ms_per_update != game.ms_per_update else ""))
    command = f"tickswap run {shown_name(game_word)} --input {name}{options} --ticks {tick} --save-at {tick} here.json"
    return (f"{where}. To see what: {command} saves the state at tick {tick}; the same from the original "
            "recording, then a diff of the two saves names the entity and field")


def _said(replay: Any, result: ReplayResult, name: str, shot: str, game: Game,
          differences: tuple[str | None, str, str], game_word: str = "GAME") -> int:
    """Say how the replay went, in one line; its exit status. ``differences``: what differs between the
    recording's game and this one, the advice said where it does not replay the same, and what a renamed file
    that also changed adds where it does; ``game_word``: how the user names the game (a hint's command)."""
    changed, advice, also = differences
    if result.ok and result.crash is not None:
        print(f"replay {name}: the recording ends where the game crashed at tick {replay.crashed}: reproduced "
              f"({result.checked} {'hash' if result.checked == 1 else 'hashes'} matched before it; "
              f"{crash_line(game.name, result.crash)}){shot}")
        return 0
    if replay.crashed is not None and result.first_mismatch is None and result.ticks >= replay.end:
        print(f"replay {name}: the recorded game crashed at tick {replay.crashed}, but this one does not{shot}")
        return 1
    if result.ok:
        hashes = "hash" if result.checked == 1 else "hashes"
        start = f" (from tick {replay.start}, its save)" if replay.start else ""
        print(f"replay {name}: {result.ticks - replay.start} ticks of {game.name}{start}, {result.checked} {hashes} "
              f"checked, all match{shot}")
        if changed:
            say(f"note: {changed}{also}, but it replays the same")
        return 0
    if result.first_mismatch is not None:
        matched = max(0, result.checked - 1)
        # None matched: all that is known is that the runs part before the first hash checked.
        hint = _apart(replay, result.first_mismatch, name, game_word, game) if matched == 0 and not changed else ""
        print(f"replay {name}: the state differs at tick {result.first_mismatch} "
              f"(the first mismatch; {matched} {'hash' if matched == 1 else 'hashes'} matched before it)"
              + shot + (f"; {changed}{advice}" if changed else "") + hint)
    return 1
