"""Input scripts: the ``tickswap run --input FILE`` format, per-tick input written by hand.

A script is its own concept, not a replay: it has no header, no hashes and no end, a
person writes it, and it is forgiving where a replay is strict (blank lines, keys named
as in ``engine.keys``, several lines for one tick). Its lines are a replay's input lines,
so the reading of one line (``read_lines``, ``parse_record``) and the check of its events
(``engine.input.checks``) are shared with the replay format; a whole replay can be used
as a script. ``read_script_lines`` is the one reader; ``read_input_script`` gives player 0's
input as ``{tick: [InputEvent, ...]}`` and ``read_input_scripts`` every player's as
``{player: {tick: [...]}}``, for a test or a tool (the command line uses them too).
"""

from __future__ import annotations

import os

from engine.constants import MAX_INPUT_DELAY, MAX_PLAYERS, MAX_TICKS
from engine.disk.lines import REPLAY_FORMAT, ReplayError, parse_record, read_lines
from engine.input.checks import MAX_EVENTS_PER_TICK, check_events, named_keys
from engine.input.events import InputEvent
from engine.messages import shown_name
from engine.schema import FieldError, expect_keys, expect_whole

__all__ = ["assign_unnamed", "read_input_script", "read_input_scripts", "read_script_lines"]


def read_input_script(path: str | os.PathLike[str]) -> dict[int, list[InputEvent]]:
    """Scripted input for ``tickswap run --input FILE``: lines ``{"tick": N, "input": [...]}``.

    The same lines as a replay's input lines, with two conveniences for people writing
    them by hand: a key may be named as in ``engine.keys`` (``"LEFT"``, ``"SPACE"``,
    ``"A"``), and several lines for one tick are merged in order. A whole replay works
    too: its header, hash and end lines are skipped, and so are a session recording's input
    delay lines (``{"tick": N, "input_delay": D}``, checked). Anything else that is not an input
    line (a save, a stray ``format``) is refused; problems raise ``ReplayError`` naming the
    file and line. Returns the input of every tick that has any, by tick number: player
    0's, i.e. the lines naming no player or ``"player": 0`` (``read_input_scripts`` has every player's).
    """
    return read_input_scripts(path).get(0, {})


def assign_unnamed(scripts: dict[int | None, dict[int, list[InputEvent]]], player: int
                   ) -> dict[int, dict[int, list[InputEvent]]]:
    """``scripts`` by player, the lines naming no player given to ``player`` (0 in ``tickswap run``).

    Within a tick, ``player``'s unnamed lines come before the lines naming it.
    """
    merged: dict[int, dict[int, list[InputEvent]]] = {}
    for who in (None, *sorted(key for key in scripts if key is not None)):
        owner = player if who is None else who
        for tick, events in scripts.get(who, {}).items():
            merged.setdefault(owner, {}).setdefault(tick, []).extend(events)
    return {owner: dict(sorted(ticks.items())) for owner, ticks in merged.items()}


def read_input_scripts(path: str | os.PathLike[str], players: int | None = None, *, unnamed: int = 0
                       ) -> dict[int, dict[int, list[InputEvent]]]:
    """Every player's scripted input, by player: ``{player: {tick: [InputEvent, ...]}}``, ready to feed.

    A script for a game of several players (``tickswap run GAME --players N --input FILE``,
    ``tickswap check``) holds every player's lines: a line says ``"player": p``, and a line
    naming no player is ``unnamed``'s (player 0's, as in ``tickswap run``; within a tick,
    before the lines naming that player). With ``players``, a line naming a player outside
    0 to ``players - 1`` is refused naming the file, the line and the player. Feed tick
    ``t``'s events of player ``p`` to ``world.input_queue_of(p)`` before the tick runs.
    Otherwise as ``read_input_script`` (problems raise ``ReplayError`` naming the file and line).
    """
    return assign_unnamed(read_script_lines(path, players), unnamed)


def _more_players(player: int, allowed: range | None) -> str:
    """What a refusal of ``player`` adds where the game's ``PLAYERS`` are known: the ``--players`` that plays it."""
    if allowed is None or not allowed:
        return ""
    if player + 1 in allowed:
        return f": give --players {player + 1} (the game takes {allowed.start} to {allowed.stop - 1})"
    return f"; the game takes at most {allowed.stop - 1} (its PLAYERS)"


def read_script_lines(path: str | os.PathLike[str], players: int | None = None, *, only: int | None = None,
                      joining: bool = False, allowed: range | None = None
                      ) -> dict[int | None, dict[int, list[InputEvent]]]:
    """Every player's scripted input as written: ``{player: {tick: [...]}}``, ``None`` for lines naming no player.

    What ``read_input_scripts`` reads, before the lines naming no player are given to one:
    a network peer gives them to its own player, and checks whose lines the file holds.

    A line may say ``"player": p`` (0 to ``MAX_PLAYERS - 1``): a script for a game of several
    players holds every player's lines. Lines naming no player are player 0's in ``tickswap
    run`` and the local player's in a network session; which players a world has is the
    caller's to say: with ``players``, a line naming a player outside 0 to ``players - 1`` is
    refused naming the file, the line and the player. With ``only`` (a network peer's own
    player), a line naming another player is refused alike: a peer scripts only itself. With
    ``joining`` (a joiner before its welcome: its player is the host's to give), a line naming
    player 0, the host's, is refused alike: no joiner is ever player 0; and so is a script
    that mixes lines naming no player with lines naming one: that is ``tickswap run``'s
    combined script, whose unnamed lines are player 0's, not a joiner's own. With ``allowed``
    (the player counts the game takes), a player past ``players`` is refused saying the
    ``--players`` that would play it, where the game takes that many.
    Otherwise as ``read_input_script``.
    """
    where = os.fspath(path)
    if not where:
        raise ReplayError("the input file name is empty")
    shown = shown_name(where)
    scripts: dict[int | None, dict[int, list[InputEvent]]] = {}
    last = 0
    total = 0
    is_replay = False
    unnamed_at: int | None = None  # the first line naming no player, and the first naming one (a joiner's check)
    named_at: tuple[int, int] | None = None
    for number, text in read_lines(where):
        if not text.strip():
            continue  # a script is written by hand: blank lines are no damage
        record = parse_record(shown, number, text)
        if number == 1 and record.get("format") == REPLAY_FORMAT:
            is_replay = True
            continue
        if is_replay and ("end" in record or set(record) == {"tick", "hash"}):
            continue
        if is_replay and "input_delay" in record:
            # A session's recording says where the host changed the input delay: how the peers
            # exchanged their input, not input; a replay reads past it as well (checked as it checks it).
            try:
                expect_keys(record, "an input delay line", ("tick", "input_delay"))
                expect_whole(record["tick"], "tick", 1, MAX_TICKS)
                expect_whole(record["input_delay"], "input_delay", 0, MAX_INPUT_DELAY)
            except FieldError as error:
                raise ReplayError(f"{shown}:{number}: {error}") from None
            continue
        if "format" in record:
            what = "a tickswap save" if record.get("format") == "tickswap-save" else "not an input script"
            raise ReplayError(f"{shown}:{number}: {what}: an input file holds lines "
                              '{"tick": N, "input": [[type, key, x, y], ...]} (or is a replay)')
        try:
            expect_keys(record, "an input line", ("tick", "input"), ("player",))
            player = expect_whole(record["player"], "player", 0, MAX_PLAYERS - 1) if "player" in record else None
            if player is not None and players is not None and player >= players:
                raise FieldError(f"player {player}, but the game runs with {players} "
                                 f"player{'s' if players != 1 else ''} (0 to {players - 1})"
                                 + _more_players(player, allowed))
            if player == 0 and joining:
                raise FieldError("player 0, but player 0 is the host: a joiner is player 1 or more")
            if player is not None and only is not None and player != only:
                raise FieldError(f"player {player}, but this peer is player {only} (lines with no player are "
                                 "this peer's; `tickswap replay REC --split DIR` writes each peer's script)")
            if joining:
                unnamed_at = number if unnamed_at is None and player is None else unnamed_at
                named_at = (number, player) if named_at is None and player is not None else named_at
                if unnamed_at is not None and named_at is not None:
                    raise FieldError(f"line {unnamed_at} names no player and line {named_at[0]} names player "
                                     f"{named_at[1]}: that is tickswap run's combined script, whose lines naming no "
                                     "player are player 0's (the host's); a joiner's script holds only its own lines "
                                     "(all naming no player, or each naming one of its players: both of a "
                                     "--local 2 joiner's)")
            script = scripts.setdefault(player, {})
            tick = expect_whole(record["tick"], "tick", 1, MAX_TICKS)
            if tick < last:
                raise FieldError(f"tick {tick} comes after tick {last}: lines are out of order")
            events = check_events(named_keys(record["input"], "input"), "input")
            total += len(events)
            if total > 1_000_000:
                raise FieldError("more than 1,000,000 events")
            if len(script.get(tick, ())) + len(events) > MAX_EVENTS_PER_TICK:
                raise FieldError(f"more than {MAX_EVENTS_PER_TICK} events for tick {tick}")
        except FieldError as error:
            raise ReplayError(f"{shown}:{number}: {error}") from None
        # Two lines for one tick are one tick's input, in order (a replay never writes them).
        script.setdefault(tick, []).extend(events)
        last = tick
    return scripts

