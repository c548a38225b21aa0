"""``tickswap host GAME --players N`` and ``tickswap join HOST:PORT [GAME]``: a headless network session.

Both run ``--ticks N`` confirmed ticks with the local players' ``--input`` script and end
with ``tickswap run``'s summary line (the state hash of the same ticks with every player's
input, so a session can be checked against ``tickswap run --input COMBINED``), and may
``--record`` a replay that ``tickswap replay`` plays back. The host says where it listens
(``--port 0``: any free port) on stderr before waiting for its players. Exit 0 when done,
1 on a desync or a dropped peer, 2 for bad input or a refused join.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import time
from dataclasses import replace
from typing import Any

from engine.disk.atomic import OutputError
from engine.files.game import Game
from engine.files.importer import load_game, sample_games
from engine.files.replay import Recorder
from engine.input.events import InputEvent
from engine.input.scripts import assign_unnamed, read_script_lines
from engine.interrupts import TICK, Interrupted
from engine.json_events import emit
from engine.messages import shown
from engine.net.checks import MAX_DELAYS, PacketError
from engine.net.lobby import REJOIN_WINDOW_S, SessionError
from engine.net.machine import DELAY_LEAD
from engine.net.rendezvous import is_room_code, new_code, room_code
from engine.net.session import LEFT, Session, SessionOptions
from engine.net.transport import TransportError
from engine.tools.cli.display import DisplayError, check_display, make_runner
from engine.tools.cli.options import SESSION_PORT, HostOptions, JoinOptions, PeerOptions
from engine.tools.cli.outputs import check_outputs, screenshot_at_stop, write_screenshot
from engine.tools.cli.rooms import RoomSetup, check_room_options, looks_like_code
from engine.tools.cli.worlds import build_world, check_players
from engine.tools.errors import StdoutLost, UsageError, crash_line, say, shown_name
from engine.world import World

__all__ = ["DEFAULT_PORT", "host_command", "join_command"]


DEFAULT_PORT = SESSION_PORT
"""The port a host listens on, and a joiner's HOST without :PORT asks."""


def _options(peer: PeerOptions, room: bool, code: str, rejoin_window: float = REJOIN_WINDOW_S,
             rejoin: str | None = None) -> SessionOptions:
    """The session's options; in a room, ``--emulate-rebind`` is the emulated router's (its ports move), not this."""
    emulation = replace(peer.emulation, rebind_ms=0.0) if room else peer.emulation
    return SessionOptions(input_delay=peer.input_delay, max_prediction=peer.max_prediction,
                          desync_interval=peer.desync_interval, disconnect_timeout=peer.disconnect_timeout,
                          emulation=emulation if emulation.active else None,
                          allow_game_mismatch=peer.allow_game_mismatch, lobby_timeout=peer.lobby_timeout,
                          ticks=peer.ticks, rejoin_window=rejoin_window, rejoin=rejoin, code=code)


def _check(peer: PeerOptions, game: Game | None) -> None:
    if peer.ticks is not None and (peer.frames is not None or peer.headless or peer.no_hud or peer.screenshot):
        raise UsageError("--ticks plays the ticks with no frames; it can't be combined with --frames, --headless, "
                         "--no-hud or --screenshot")
    if peer.headless and peer.frames is None:
        raise UsageError("--headless draws off-screen until --frames N (or use --ticks N): give one")
    check_outputs((("--record", peer.record),) if peer.record else (),
                  pictures=(("--screenshot", peer.screenshot),) if peer.screenshot else (),
                  inputs=(("--input", peer.input),), game=game)


def _check_display(peer: PeerOptions) -> None:
    """A peer drawing frames checks it can draw before it asks anyone to play: not after the others are in.

    A joiner may yet play the host's ``--ticks`` with no frames (it learns so at its
    welcome), so only a joiner that draws in any case (``--headless``, ``--frames``,
    ``--screenshot``) and a host that plays in frames are held to it.
    """
    if peer.ticks is None:
        check_display(peer.display)


def _schedule_delays(session: Session, changes: tuple[tuple[int, int], ...]) -> None:
    """The host's ``--input-delay-at``: each change agreed at its tick, told to every peer from the start."""
    for tick, delay in sorted(changes):
        session.set_input_delay(delay, at=tick)


def _check_delays(options: HostOptions) -> None:
    """``--input-delay-at`` refused before the lobby: a tick too soon for every peer to hear of it, past the end."""
    changes = sorted(options.input_delay_at)
    if len(changes) > MAX_DELAYS:
        raise UsageError(f"--input-delay-at: at most {MAX_DELAYS} changes, got {len(changes)}")
    for tick, delay in changes:
        if tick < DELAY_LEAD:
            raise UsageError(f"--input-delay-at {tick}:{delay}: the change can take effect from tick {DELAY_LEAD} on "
                             "(every peer must hear of it before it plays that tick)")
        if options.peer.ticks is not None and tick > options.peer.ticks:
            raise UsageError(f"--input-delay-at {tick}:{delay}: the session ends at tick {options.peer.ticks}")
    if len({tick for tick, _ in changes}) != len(changes):
        raise UsageError("--input-delay-at: two changes at one tick")


def _scripts(path: str | None, local: tuple[int, ...], players: int) -> dict[int, dict[int, list[InputEvent]]]:
    """The local players' scripted input, by player: every line must be theirs (read again now that they are known).

    Lines naming no player are the first local player's.
    """
    if path is None:
        return {}
    if not local:
        raise UsageError("--input: a spectator has no input")
    read = assign_unnamed(read_script_lines(path, players, only=local[0] if len(local) == 1 else None), local[0])
    strangers = sorted(set(read) - set(local))
    if strangers:
        raise UsageError(f"--input {shown_name(path)} scripts player {strangers[0]}, but this peer plays "
                         f"{_played(local)}: a peer scripts only its own players")
    return read


def _played(local: tuple[int, ...]) -> str:
    """``player 0`` or ``players 0 and 1``, ``players 0, 1 and 2``: who a peer plays, as messages say it."""
    if len(local) == 1:
        return f"player {local[0]}"
    return f"players {', '.join(map(str, local[:-1]))} and {local[-1]}"


def _builder(game_name: str) -> Any:
    def build(game: Game, seed: int, players: int, ms_per_update: float) -> World:
        return build_world(game, seed, None, players)
    return build


def _play(session: Session, peer: PeerOptions, delays: tuple[tuple[int, int], ...] = (),
          rejoin_hint: str | None = None) -> int:
    """After the lobby: the ticks (or frames), the summary; the status. Stopped or crashed, the recording is kept.

    ``delays``: the host's ``--input-delay-at`` changes; ``rejoin_hint``: a joiner's command
    up to ``--rejoin``, said if the host drops it.
    """
    world = session.world
    game = session.machine.game
    assert world is not None and game is not None and session.machine.sync is not None
    session.machine.scripts = _scripts(peer.input, session.local_players, session.players)
    if session.machine.is_host:
        _schedule_delays(session, delays)
    recorder = None
    if peer.record:
        recorder = Recorder(peer.record, game=game.name, game_digest=game.digest, seed=session.machine.seed,
                            root=game.root, ms_per_update=world.ms_per_update, players=session.players)
        recorder.start(world)
    started: list[float] = []

    def confirmed(tick: int, inputs: Any, digest: str | None) -> None:
        if not started:  # the clock starts with the session's first tick, not in the lobby
            started.append(time.perf_counter())
        if recorder is not None:
            recorder.record_tick(tick, inputs, digest)
    session.machine.on_confirmed = confirmed
    if recorder is not None:
        session.machine.on_delay = recorder.record_delay
    try:
        if session.machine.options.ticks is None:
            return _play_frames(session, peer, recorder, rejoin_hint)
        return _play_ticks(session, peer, recorder, started, rejoin_hint)
    except Interrupted as interrupt:
        return _stopped(session, peer, recorder, interrupt)
    except (UsageError, SessionError, DisplayError, OutputError, StdoutLost, TransportError,
            PacketError):
        raise  # not the game's: said as the command says them
    except BaseException as error:  # anything the game raised is its crash: one line, the others told
        line = crash_line(game.name, error)
        session.machine.crash = line
        say(line)
        return 1
    finally:
        _keep_recording(session, recorder)


def _keep_recording(session: Session, recorder: Recorder | None, torn: bool = False) -> int | None:
    """Put the recording in place up to the last confirmed tick, however the session ended (Ctrl-C, a crash).

    ``torn``: a second signal stopped a tick by force, so the recording ends at its last
    hash. Returns the tick the recording ends at (``None``: no recording).
    """
    world = session.world
    assert world is not None
    with TICK:  # a signal now waits for the recording to be in place
        with contextlib.suppress(Exception):  # a crashed game may fail again here: the recording ends where it can
            session.machine.settle()
        return recorder.close(world, torn=torn) if recorder is not None else None


def _stopped(session: Session, peer: PeerOptions, recorder: Recorder | None, interrupt: Interrupted,
             shot: str = "") -> int:
    """Ctrl-C or SIGTERM: the recording put in place, then the session line and where it stopped; 130 or 143.

    ``shot``: what became of ``--screenshot`` (``screenshot_at_stop``'s clause), said last.
    """
    world, game, sync = session.world, session.machine.game, session.machine.sync
    assert world is not None and game is not None and sync is not None
    ends = _keep_recording(session, recorder, torn=interrupt.inside_tick)
    say(session.machine.stats.summary(sync.rollbacks, sync.resimulated, session.transport.counters))
    say(f"{game.name} {interrupt.verb} at confirmed tick {sync.emitted}"
        + (" by force, in a tick" if interrupt.inside_tick else "")
        + (f"; recorded {shown_name(peer.record)} through tick {ends}" if ends is not None else "") + shot)
    return interrupt.status


def _stopped_in_lobby(peer: PeerOptions, interrupt: Interrupted) -> int:
    """Ctrl-C or SIGTERM before the session started: no tick played, so no recording; the line says so."""
    say(f"{interrupt.verb} in the lobby: the session had not started"
        + (f", nothing recorded to {shown_name(peer.record)}" if peer.record else ""))
    return interrupt.status


def _ended(session: Session, peer: PeerOptions, recorded: int | None, rejoin_hint: str | None) -> int:
    """Say why the session ended early, and where the recording ends: 0 when a peer chose to leave, else 1.

    A desync, a dropped peer or a crash is 1. ``recorded``: the tick the recording ends at
    (``None``: none), said either way: it replays up to there. A joiner the host dropped is
    told how to take its seat back (``rejoin_hint``, then ``--rejoin CODE``).
    """
    assert session.ended is not None and session.world is not None
    for line in session.ended.splitlines():
        say(line)
    kept = (f"; recorded {shown_name(peer.record)} through tick {recorded} (it replays)"
            if recorded is not None else "")
    ended = {"command": peer.command,
             "game": session.machine.game.name if session.machine.game is not None else None,
             "ticks": session.world.tick_count,
             "state": session.world.state_hash(), "ended": session.ended, "recorded_to": recorded}
    if session.machine.left:
        say(f"the session ended early, at tick {session.world.tick_count}{kept}")
        return 0  # a chosen leave: the run's summary follows, as after a whole session
    if kept:
        say(kept[2:])
    rejoin = None
    if session.rejoin_code is not None and rejoin_hint is not None and session.ended.startswith("dropped by the host"):
        say(f"to rejoin: {rejoin_hint} --rejoin {session.rejoin_code}".replace("  ", " "))
        rejoin = session.rejoin_code
    emit("summary", ok=False, rejoin_code=rejoin, **ended)
    return 1


def _play_ticks(session: Session, peer: PeerOptions, recorder: Recorder | None, started: list[float],
                rejoin_hint: str | None) -> int:
    """``--ticks``: the session's confirmed ticks, then the summary line (``tickswap run``'s, and the session's)."""
    world, game, sync = session.world, session.machine.game, session.machine.sync
    assert world is not None and game is not None and sync is not None
    ticks = session.machine.options.ticks  # the host's --ticks: the session's length
    assert ticks is not None
    if peer.ticks is None:
        ignored = peer.frames or peer.headless or peer.no_hud or peer.screenshot
        say(f"the host plays --ticks {ticks}: so does this peer, with no frames"
            + (" (--headless/--frames/--no-hud/--screenshot ignored)" if ignored else ""))
    session.run_ticks(ticks)
    seconds = time.perf_counter() - started[0] if started else 0.0
    recorded = _keep_recording(session, recorder)
    say(session.machine.stats.summary(sync.rollbacks, sync.resimulated, session.transport.counters))
    status = 0 if session.ended is None else _ended(session, peer, recorded, rejoin_hint)
    if status:
        return status
    ran = world.tick_count
    entities = f"{len(world)} {'entity' if len(world) == 1 else 'entities'}"
    played = ran - sync.start  # a late joiner played from the tick it started at
    here = f"{played} here, from tick {sync.start}: " if sync.start else ""
    state = world.state_hash()
    text = (f"{game.name}: {ran} ticks in {seconds * 1000:.1f} ms ({here}{played / seconds if seconds else 0:,.0f} "
            "ticks/s), "
            f"{entities}, state {state[:16]}" + (f", recorded {shown_name(peer.record)}" if peer.record else ""))
    print(text, flush=True)
    emit("summary", command=peer.command,
         game=game.name, ok=True, ticks=ran, state=state, text=text)
    return 0


def _play_frames(session: Session, peer: PeerOptions, recorder: Recorder | None, rejoin_hint: str | None) -> int:
    """In a window (or off-screen): the runner's loop drives the session once a frame until Esc, the end, --frames.

    The session ends when the first peer stops (its --frames, Esc): each peer draws at its
    own pace, so frame counts (and the hash, of the last confirmed tick) differ between peers.
    """
    world, game, sync = session.world, session.machine.game, session.machine.sync
    assert world is not None and game is not None and sync is not None
    runner = make_runner(peer.display, game, world, driver=session)
    try:
        try:
            frames = runner.run(frames=peer.frames)
        except Interrupted as interrupt:  # stopped: the last frame is drawn while the window is still open
            shot = screenshot_at_stop(runner, peer.screenshot, interrupt) if peer.screenshot else ""
            return _stopped(session, peer, recorder, interrupt, shot)
        if peer.screenshot:
            write_screenshot(runner, peer.screenshot)
        recorded = _keep_recording(session, recorder)
        state = world.state_hash()
        summary = (f"{game.name}: {frames} frames, {world.tick_count} confirmed ticks, state {state[:16]}"
                   + (f", screenshot {shown_name(peer.screenshot)}" if peer.screenshot else "")
                   + (f", recorded {shown_name(peer.record)}" if peer.record else ""))
    finally:
        runner.view.delete()
        runner.window.close()
    say(session.machine.stats.summary(sync.rollbacks, sync.resimulated, session.transport.counters))
    if session.ended is not None and _ended(session, peer, recorded, rejoin_hint):
        return 1
    print(summary, flush=True)
    emit("summary", command=peer.command,
         game=game.name, ok=True, frames=frames, ticks=world.tick_count, state=state, text=summary)
    return 0


def _check_script(peer: PeerOptions, player: int | None, local: int = 1) -> tuple[int, ...]:
    """Read ``--input`` before the socket opens: a damaged file, a bad key, a line naming another player.

    Returns the players the script names (none: it names none): a joiner's lines may name as
    many players as it plays (``--local``), and the seats the host gives must hold them. A
    player no joiner can be (0, the host's, or past ``MAX_PLAYERS - 1``) is refused here,
    before anyone is asked.
    """
    if not peer.input:
        return ()
    local = local if player is None else 1
    named = sorted(p for p in read_script_lines(peer.input, only=player if local == 1 else None,
                                                joining=player is None) if p is not None)
    if len(named) > local:
        raise UsageError(f"--input {shown_name(peer.input)} scripts players {', '.join(map(str, named))}: "
                         f"a peer scripts only its own {'player' if local == 1 else f'{local} players'}")
    return tuple(named)


def _leave_the_seat(session: Session) -> None:
    """Leave after the welcome, before the start: a goodbye the host's lobby takes as a seat freed."""
    session.machine.goodbye(LEFT)  # three times: a lost goodbye would leave the host one player short
    session.flush()
    session.machine.finished = True  # nothing more to say on close


def host_command(options: HostOptions, game: Game | None = None) -> int:
    """``tickswap host GAME --players N``: wait for the players, play, print the summary (``game``: already loaded)."""
    peer = options.peer
    if game is None:
        assert options.game is not None, "a command without a game's name passes the game"
        game = load_game(options.game)
    _check(peer, game)
    players = check_players(game, options.players)
    if options.players is None and players < 2 and 2 in game.players:
        players = 2  # the fewest a session has
    if players < 2:
        raise UsageError(f"--players {players}: a session needs 2 players or more")
    room = options.room is not None
    check_room_options(peer, room)
    if peer.emulation.rebind_ms and peer.room.emulate_nat != "rebinding":
        raise UsageError("--emulate-rebind: a host's port is where its joiners reach it and can't move; give it to "
                         "a joiner (a home router moves a joiner's port, and the host follows it)")
    if room and (options.port is not None or options.bind is not None):
        raise UsageError("--port and --bind are for a host that joiners reach at its address; with --room the "
                         "paths are found by ICE (--ice-host chooses the addresses)")
    try:
        code = room_code(options.room) if options.room else new_code() if room else ""
    except ValueError as error:
        raise UsageError(f"--room: {error}") from None
    if room and options.code is not None:
        raise UsageError("--code: with --room, the room code is the join code (--room CODE chooses it)")
    try:
        join_code = code if room else room_code(options.code) if options.code is not None else new_code()
    except ValueError as error:
        raise UsageError(f"--code: {error}") from None
    _check_delays(options)
    local = options.local
    if not local < players:
        raise UsageError(f"--local {local}: with --players {players} no seat is left for a joiner (a host plays at "
                         f"most {players - 1} of its players itself); give --players {local + 1} or more")
    # The host is players 0 to local - 1: a line naming another is refused before anyone joins.
    if local == 1:
        _check_script(peer, 0)
    elif peer.input:
        _scripts(peer.input, tuple(range(local)), players)
    # Its mistakes are the user's: said before the display's.
    setup = RoomSetup(peer, options.game, _address) if room else None
    try:
        _check_display(peer)  # a host that can't draw says so before anyone joins, not after they are all in
    except DisplayError:
        if setup is not None:
            setup.close()  # an emulated router's sockets and thread
        raise
    session: Session | None = None
    try:
        try:
            if setup is not None:
                setup.host_room(code, players, game)
            session = Session.host(game, players=players, seed=options.seed,
                                   port=DEFAULT_PORT if options.port is None else options.port,
                                   bind=options.bind or "127.0.0.1",
                                   options=_options(peer, room, join_code, rejoin_window=options.rejoin_window),
                                   say=say,
                                   build=_builder(game.name),
                                   transport=setup.room if setup is not None else None, local=local)
        except TransportError as error:  # a port in use, an address not this machine's: the user's to change
            raise UsageError(str(error)) from None
        try:
            here = f" ({_played(session.local_players)} here)" if local > 1 else ""
            if setup is None:
                host, port = session.address
                say(f"hosting {game.name} for {players} players{here} on {host}:{port}")
                # A game file is named by the joiner too (a registered game needs no word): the command as it works.
                file_word = f" {game.name}" if game.digest else ""
                say(f"join code {join_code}: give it to the players, who join with tickswap join {host}:{port} "
                    f"{join_code}{file_word}")
                emit("listening", host=host, port=port, game=game.name, players=players, join_code=join_code)
            elif here:
                say(f"hosting {game.name} for {players} players{here} in room {code}")
            session.wait_ready()
        except Interrupted as interrupt:
            return _stopped_in_lobby(peer, interrupt)
        if setup is not None:
            setup.started()
        return _play(session, peer, options.input_delay_at)
    except SessionError as error:
        say(str(error))
        return error.status
    except Interrupted as interrupt:  # in the room's opening, before any session
        return _stopped_in_lobby(peer, interrupt)
    finally:
        if session is not None:
            session.close()
        if setup is not None:
            setup.close()


def _address(text: str, what: str = "join", default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """HOST[:PORT] with HOST resolved once, here, to an IPv4 address: replies come from an address, never a name."""
    if text.startswith("[") or text.count(":") > 1:
        raise UsageError(f"{what} {shown(text)}: only IPv4 is supported (an IPv4 address or a host name, then :PORT)")
    host, colon, port = text.partition(":")
    port = port if colon else str(default_port)
    if not host or not port.isdigit():
        raise UsageError(f"{what}: expected HOST:PORT (or HOST, port {default_port}), got {shown(text)}")
    if not 0 < int(port) < 65536:
        raise UsageError(f"{what} {shown(text)}: the port {shown(port)} is out of range: expected 1 to 65535")
    try:
        found = socket.getaddrinfo(host, int(port), socket.AF_INET, socket.SOCK_DGRAM)
    except (OSError, UnicodeError) as error:
        raise UsageError(f"{what}: can't find the host {host!r}: {getattr(error, 'strerror', None) or error}") from None
    return str(found[0][4][0]), int(port)


def _host_or_code(text: str) -> tuple[str, int]:
    """A joiner's HOST[:PORT]; one that looks like a mistyped room code is refused as such when no host has its name."""
    try:
        return _address(text)
    except UsageError:
        if looks_like_code(text):
            raise UsageError(f"join {shown(text)}: no host has that name, and it is no room code (codes have only "
                             "letters and digits, never 0, O, 1, I or L)") from None
        raise


def _registered(name: str) -> Game:
    if name not in sample_games():
        raise SessionError(f"the host plays {name!r}, which is not a registered game here: name the game file", 2)
    return load_game(name)


def _rejoin_hint(options: JoinOptions, room: bool, join_code: str, game_file: str | None) -> str:
    """What a joiner the host dropped is told to run, up to ``--rejoin CODE``.

    A room's code is its join code (said once); a game file joining as itself names no game.
    """
    code = "" if room else f" {join_code}"
    return f"tickswap join {options.address}{code} {(game_file if options.names_game else None) or ''}"


def join_command(options: JoinOptions, game: Game | None = None, command: str | None = None) -> int:
    """``tickswap join HOST:PORT|CODE [GAME]``: join, play, print the summary (``game``: already loaded).

    ``command`` is how the user started this join, up to the address (``python jam.py --join``,
    a packaged game's ``jam --join``): the rejoin hint repeats it, so that it is a command the
    host takes (``tickswap join ADDRESS`` alone names no game file).
    """
    peer = options.peer
    room = is_room_code(options.address)
    if not room and (peer.room.rendezvous or peer.room.emulate_nat) and looks_like_code(options.address):
        try:
            room_code(options.address)
        except ValueError as error:  # room options, and a code mistyped: say what is wrong with the code
            raise UsageError(f"join: {error}") from None
    check_room_options(peer, room)
    address = None if room else _host_or_code(options.address)
    game_file = options.game
    if room:  # a room's code is its join code: a second word is the game
        if game_file is not None:
            raise UsageError(f"join {options.address}: a room code is the join code; then only the game, got "
                             f"{shown(options.code)} and {shown(game_file)}")
        game_file, join_code = options.code, room_code(options.address)
    else:
        if options.code is None:
            raise UsageError(f"join {options.address}: give the join code the host printed (tickswap join "
                             f"{options.address} CODE{' GAME' if options.names_game else ''})")
        try:
            join_code = room_code(options.code)
        except ValueError as error:
            raise UsageError(f"join {options.address} {options.code}: "
                             f"{str(error).replace('room code', 'the join code')}; check it with the host") from None
    rejoin_hint = _rejoin_hint(options, room, join_code, game_file)
    game = game if game is not None else load_game(game_file) if game_file else None
    _check(peer, game)
    if options.spectate and peer.input is not None:
        raise UsageError("--input: a spectator has no input")
    if options.spectate and options.rejoin is not None:
        raise UsageError("--rejoin: a spectator has no seat to take back (a rejoin code is a player's)")
    if options.local > 1 and (options.spectate or options.rejoin is not None):
        why = "a spectator plays no one" if options.spectate else "a rejoin takes back one seat"
        raise UsageError(f"--local {options.local}: {why}")
    # The players are the host's to give: checked against them after the welcome.
    named = _check_script(peer, None, options.local)
    # Its mistakes are the user's: said before the display's.
    setup = RoomSetup(peer, game_file if options.names_game else None, _address) if room else None
    cannot_draw: DisplayError | None = None
    if peer.ticks is None:
        # Asked before joining: a peer that can't draw says so before it asks, if it draws whatever the
        # host plays; else it learns at its welcome whether it must (the host plays frames) and leaves the seat.
        try:
            check_display(peer.display)
        except DisplayError as error:
            if peer.frames is not None or peer.headless or peer.screenshot:
                if setup is not None:
                    setup.close()  # an emulated router's sockets and thread
                raise
            cannot_draw = error
    transport = None
    session: Session | None = None
    try:
        try:
            if setup is not None:
                address, transport = setup.join_room(room_code(options.address))
            assert address is not None
            session = Session.join(address, game, spectate=options.spectate,
                                   options=_options(peer, room, join_code, rejoin=options.rejoin), say=say,
                                   build=_builder(game_file or ""), load=_registered, transport=transport,
                                   local=options.local)
            session.wait_ready()
        except Interrupted as interrupt:
            return _stopped_in_lobby(peer, interrupt)
        who = "a spectator" if session.player is None else _played(session.local_players)
        if not set(named) <= set(session.local_players):
            _leave_the_seat(session)
            raise UsageError(f"--input {shown_name(peer.input)} scripts {_played(named)}, but the host gave this "
                             f"peer {who}: left before the start, the seat{'s are' if len(named) > 1 else ' is'} "
                             "free again")
        if session.machine.options.ticks is None and cannot_draw is not None:
            _leave_the_seat(session)  # the host plays in frames, which this peer can't draw: the seat is free again
            raise DisplayError(f"{cannot_draw}: left before the start, the seat is free again")
        machine = session.machine
        late = f", from tick {machine.sync.start} (the session was running)" if machine.late and machine.sync else ""
        where = f"room {room_code(options.address)}" if room else f"{address[0]}:{address[1]}"
        say(f"joined {where} as {who} of {session.players}{late}")
        emit("joined", address=where, player=session.player, players=session.players,
             start=machine.sync.start if machine.late and machine.sync else 0, here=list(session.local_players))
        code = session.rejoin_code
        if code is not None and session.players >= 3 and not room:  # a room closes when play starts
            game_word = f" {game_file}" if game_file else ""
            again = (f"{command} {options.address} {join_code}" if command is not None
                     else f"tickswap join {options.address} {join_code}{game_word}")
            say(f"if this peer drops, it takes its seat back with: {again} "
                f"--rejoin {code} (within the host's --rejoin-window; keep the code to yourself)")
        if setup is not None:
            setup.started()
        return _play(session, peer, rejoin_hint=rejoin_hint)
    except SessionError as error:
        say(str(error))
        return error.status
    finally:
        if session is not None:
            session.close()
        elif transport is not None:
            transport.close()
        if setup is not None:
            setup.close()
        sys.stdout.flush()
