"""``tickswap host GAME --players N`` and ``tickswap join HOST:PORT [GAME]``: a headless network session.

Both run ``--ticks N`` confirmed ticks with the local players' ``--input`` script and end
with ``tickswap run``'s summary line (the state hash of the same ticks with every player's
input, so a session can be checked against ``tickswap run --input COMBINED``), and may
``--record`` a replay that ``tickswap replay`` plays back. The host says where it listens
(``--port 0``: any free port) on stderr before waiting for its players. Exit 0 when done,
1 on a desync or a dropped peer, 2 for bad input or a refused join.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys
import time
from typing import Any

from engine.constants import MAX_INPUT_DELAY, MAX_PLAYERS
from engine.disk.atomic import OutputError
from engine.display import Display
from engine.files.game import Game
from engine.files.importer import load_game, sample_games
from engine.files.replay import Recorder
from engine.input.events import InputEvent
from engine.input.scripts import assign_unnamed, read_script_lines
from engine.interrupts import TICK, Interrupted
from engine.json_events import add_json_option, emit
from engine.messages import shown
from engine.net.checks import MAX_DELAYS, PacketError
from engine.net.emulate import MIN_REBIND_MS, Emulation
from engine.net.integrity import REJOIN_CODE_HEX, read_rejoin_code
from engine.net.lobby import REJOIN_WINDOW_S, SessionError
from engine.net.machine import DELAY_LEAD
from engine.net.rendezvous import is_room_code, new_code, room_code
from engine.net.session import LEFT, Session, SessionOptions
from engine.net.transport import TransportError
from engine.tools.cli.display import DisplayError, check_display, make_runner
from engine.tools.cli.numbers import whole
from engine.tools.cli.outputs import check_outputs, screenshot_at_stop, write_screenshot
from engine.tools.cli.rooms import RoomSetup, add_room_options, check_room_options, looks_like_code
from engine.tools.cli.worlds import build_world, check_players
from engine.tools.errors import StdoutLost, UsageError, crash_line, say, shown_name
from engine.world import World

__all__ = ["add_host_options", "add_join_options", "add_session_commands", "host_command", "join_command"]


DEFAULT_PORT = 7777
"""The port a host listens on, and a joiner's HOST without :PORT asks."""


def _real(low: float, high: float, name: str) -> Any:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {shown(text)}") from None
        if not low <= value <= high:  # NaN fails too
            raise argparse.ArgumentTypeError(f"expected a number from {low:g} to {high:g}, got {shown(text)}")
        return value
    parse.__name__ = name
    return parse


def _rebind_ms(text: str) -> float:
    value: float = _real(0.0, 1e9, "ms")(text)
    if 0 < value < MIN_REBIND_MS:
        raise argparse.ArgumentTypeError(f"expected 0 (never) or at least {MIN_REBIND_MS:g} ms, got {shown(text)}")
    return value


def _session_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--ticks", type=whole(1, 10**9),
                         help="play N confirmed ticks headless, as fast as the network allows (no window); the "
                         "host's is the session's: a joiner without it plays the host's, one with another is refused")
    command.add_argument("--headless", action="store_true", help="draw off-screen (EGL); give --frames N")
    command.add_argument("--frames", type=whole(1, 10**9), help="stop after N frames")
    command.add_argument("--no-hud", action="store_true", help="hide the HUD (F1 shows it)")
    command.add_argument("--input", metavar="FILE", help="the local player's scripted input (lines with no "
                         "player, or naming this peer's player)")
    command.add_argument("--record", metavar="FILE", help="record the confirmed ticks as a replay")
    add_json_option(command)
    command.add_argument("--screenshot", metavar="PNG", help="save the last frame as a PNG (with --frames or a window)")
    command.add_argument("--input-delay", type=whole(0, 30), default=2, help="local input delay in ticks (default 2)")
    command.add_argument("--max-prediction", type=whole(0, 60), default=8,
                         help="ticks run ahead of remote input, predicted (default 8; 0: lockstep)")
    command.add_argument("--desync-interval", type=whole(1, 100_000), default=60,
                         help="compare state hashes every N ticks (default 60; the host's is the session's)")
    command.add_argument("--disconnect-timeout", type=_real(0.1, 3600, "seconds"), default=5.0,
                         help="drop a peer silent this many seconds (default 5)")
    command.add_argument("--lobby-timeout", type=_real(0.1, 3600, "seconds"), default=60.0,
                         help="give up if the session has not started after this many seconds (default 60): "
                         "the host waiting for its players, a joiner for a host to answer")
    for name, high, what in (("loss", 1.0, "drop this share of datagrams"), ("delay", 10_000.0, "delay them (ms)"),
                             ("jitter", 10_000.0, "vary the delay by up to this (ms)"),
                             ("duplicate", 1.0, "send this share twice"), ("reorder", 1.0, "reorder this share"),
                             ("flip", 1.0, "flip one bit in this share"), ("truncate", 1.0, "cut this share short")):
        command.add_argument(f"--emulate-{name}", type=_real(0.0, high, "emulated_ms_or_share"), default=0.0,
                             help=f"network emulator: {what}")
    command.add_argument("--emulate-rebind", type=_rebind_ms, default=0.0, metavar="MS",
                         help="network emulator, a joiner's: once play starts, move its source port about every MS "
                         f"ms, as a NAT rebinding does (0: never; at least {MIN_REBIND_MS:g})")
    command.add_argument("--emulate-seed", type=whole(0, 2**31), default=0, help="the emulator's seed")
    command.add_argument("--allow-game-mismatch", action="store_true",
                         help="testing aid: play even if the game files differ (to plant a desync); "
                         "both the host and the joiner must give it")
    add_room_options(command)


class _NotHere(argparse.Action):
    """An option of the other side of a session, refused in one line saying whose it is (not ``see --help``)."""

    def __init__(self, option_strings: list[str], dest: str, whose: str = "", **kwargs: Any) -> None:
        self.whose = whose
        super().__init__(option_strings, dest, nargs="?", help=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        parser.error(f"{option_string} is {self.whose}")


def _delay_at(text: str) -> tuple[int, int]:
    tick, colon, delay = text.partition(":")
    if not colon or not tick.isdigit() or not delay.isdigit():
        raise argparse.ArgumentTypeError(f"expected TICK:DELAY (e.g. 600:4), got {shown(text)}")
    if not 1 <= int(tick) <= 10**9 or not 0 <= int(delay) <= MAX_INPUT_DELAY:
        raise argparse.ArgumentTypeError(f"expected a tick from 1 and a delay from 0 to {MAX_INPUT_DELAY}, got "
                                         f"{shown(text)}")
    return int(tick), int(delay)


def _rejoin(text: str) -> str:
    if read_rejoin_code(text) is None:
        raise argparse.ArgumentTypeError(f"expected the {REJOIN_CODE_HEX}-digit rejoin code this player was given "
                                         f"when it first joined, got {shown(text)}")
    return text.strip().lower()


def add_session_commands(commands: Any) -> None:
    """Add ``host`` and ``join`` to the ``tickswap`` parser's subcommands."""
    add_host_options(commands.add_parser("host", help="host a network session of a game"), game=True)
    add_join_options(commands.add_parser("join", help="join a network session"), game=True)


def add_host_options(host: argparse.ArgumentParser, *, game: bool) -> None:
    """``host``'s arguments (``game``: with the game's name or file first; ``python game.py --host`` has none)."""
    if game:
        host.add_argument("game", help="a game's name or the path of a game file")
    host.add_argument("--players", type=whole(1, MAX_PLAYERS),
                      help="how many players (2 or more; default: the fewest the game's PLAYERS allows, at least 2)")
    host.add_argument("--port", type=whole(0, 65535),
                      help=f"UDP port (default {DEFAULT_PORT}; 0: any free one; not with --room)")
    host.add_argument("--bind", help="address to listen on (default 127.0.0.1; not with --room)")
    host.add_argument("--room", nargs="?", const="", metavar="CODE",
                      help="open a room at the rendezvous instead of listening on a port: prints a short code "
                      "(or uses CODE) that joiners give to `tickswap join CODE`; ICE finds the path through routers")
    host.add_argument("--code", metavar="CODE",
                      help="the join code joiners give (tickswap join HOST:PORT CODE): 6 letters and digits, no 0, O, "
                      "1, I or L (default: a fresh one, printed); with --room, the room code is the join code")
    host.add_argument("--seed", type=whole(0, 2**63), default=0, help="seed of the world (default 0)")
    host.add_argument("--local", type=whole(1, MAX_PLAYERS - 1), default=1, metavar="N",
                      help="how many of the players play on this machine, players 0 to N-1 (default 1): the "
                      "keyboard is split between them (the game's PLAYER_KEYS, or WASD and the arrows) and every "
                      "pad is one of them; the joiners are the others")
    host.add_argument("--rejoin-window", type=_real(0.0, 86_400.0, "seconds_or_0_never"), default=REJOIN_WINDOW_S,
                      help=f"with 3 players or more, a dropped player may rejoin within this many seconds (default "
                      f"{REJOIN_WINDOW_S:g}; 0: never)")
    host.add_argument("--input-delay-at", metavar="TICK:DELAY", type=_delay_at, action="append",
                      help="change every peer's input delay to DELAY from TICK on (at least 64 ticks in; may be "
                      "given several times)")
    for option in ("--spectate", "--rejoin"):
        host.add_argument(option, action=_NotHere, whose="a joiner's (tickswap join HOST:PORT ... " + option + ")")
    _session_options(host)


def add_join_options(join: argparse.ArgumentParser, *, game: bool) -> None:
    """``join``'s arguments (``game``: with the optional game after HOST:PORT)."""
    join.add_argument("address", help=f"HOST:PORT of the host (IPv4 or a name; PORT default {DEFAULT_PORT}), or a "
                      "room code (6 letters and digits, as the host printed: give --rendezvous too)")
    join.add_argument("code", nargs="?", help="after HOST:PORT, the join code the host printed (the key exchange is "
                      "bound to it: no one without it joins, or stands in the middle); after a room code, none")
    if game:
        join.add_argument("game", nargs="?", help="the game file (default: the registered game the host names)")
    join.add_argument("--spectate", action="store_true", help="watch: confirmed input only, no player (a running "
                      "session too: it starts from the host's last confirmed tick)")
    join.add_argument("--rejoin", metavar="CODE", type=_rejoin,
                      help="take back the seat of a player the host dropped, with the rejoin code it was given when "
                      "it first joined (within the host's --rejoin-window)")
    for option in ("--players", "--port", "--bind", "--seed", "--rejoin-window", "--input-delay-at", "--code"):
        join.add_argument(option, action=_NotHere, dest=f"host_only_{option[2:]}",
                          whose="the host's: a joiner plays the session the host set up (tickswap host GAME "
                          f"{option} ...)")
    join.add_argument("--local", type=whole(1, MAX_PLAYERS - 1), default=1, metavar="N",
                      help="how many players play on this machine (default 1): the host gives N seats side by side "
                      "(or refuses, saying how many are left); the keyboard is split between them as the host's is")
    _session_options(join)


def _options(args: argparse.Namespace, room: bool = False, code: str | None = None) -> SessionOptions:
    """The session's options; in a room, ``--emulate-rebind`` is the emulated router's (its ports move), not this."""
    emulation = Emulation(loss=args.emulate_loss, delay_ms=args.emulate_delay, jitter_ms=args.emulate_jitter,
                          duplicate=args.emulate_duplicate, reorder=args.emulate_reorder, seed=args.emulate_seed,
                          flip=args.emulate_flip, truncate=args.emulate_truncate,
                          rebind_ms=0.0 if room else args.emulate_rebind)
    return SessionOptions(input_delay=args.input_delay, max_prediction=args.max_prediction,
                          desync_interval=args.desync_interval, disconnect_timeout=args.disconnect_timeout,
                          emulation=emulation if emulation.active else None,
                          allow_game_mismatch=args.allow_game_mismatch, lobby_timeout=args.lobby_timeout,
                          ticks=args.ticks, rejoin_window=getattr(args, "rejoin_window", REJOIN_WINDOW_S),
                          rejoin=getattr(args, "rejoin", None), code=code)


def session_display(args: argparse.Namespace) -> Display:
    """How ``host`` and ``join`` show a session: off-screen (``--headless``) or in a window, with or without the HUD."""
    return Display(headless=args.headless, show_hud=not args.no_hud)


def _check(args: argparse.Namespace, game: Game | None) -> None:
    if args.ticks is not None and (args.frames is not None or args.headless or args.no_hud or args.screenshot):
        raise UsageError("--ticks plays the ticks with no frames; it can't be combined with --frames, --headless, "
                         "--no-hud or --screenshot")
    if args.headless and args.frames is None:
        raise UsageError("--headless draws off-screen until --frames N (or use --ticks N): give one")
    check_outputs((("--record", args.record),) if args.record else (),
                  pictures=(("--screenshot", args.screenshot),) if args.screenshot else (),
                  inputs=(("--input", args.input),), game=game)


def _check_display(args: argparse.Namespace) -> None:
    """A peer drawing frames checks it can draw before it asks anyone to play: not after the others are in.

    A joiner may yet play the host's ``--ticks`` with no frames (it learns so at its
    welcome), so only a joiner that draws in any case (``--headless``, ``--frames``,
    ``--screenshot``) and a host that plays in frames are held to it.
    """
    if args.ticks is None:
        check_display(session_display(args))


def _schedule_delays(session: Session, args: argparse.Namespace) -> None:
    """The host's ``--input-delay-at``: each change agreed at its tick, told to every peer from the start."""
    for tick, delay in sorted(getattr(args, "input_delay_at", None) or ()):
        session.set_input_delay(delay, at=tick)


def _check_delays(args: argparse.Namespace) -> None:
    """``--input-delay-at`` refused before the lobby: a tick too soon for every peer to hear of it, past the end."""
    changes = sorted(args.input_delay_at or ())
    if len(changes) > MAX_DELAYS:
        raise UsageError(f"--input-delay-at: at most {MAX_DELAYS} changes, got {len(changes)}")
    for tick, delay in changes:
        if tick < DELAY_LEAD:
            raise UsageError(f"--input-delay-at {tick}:{delay}: the change can take effect from tick {DELAY_LEAD} on "
                             "(every peer must hear of it before it plays that tick)")
        if args.ticks is not None and tick > args.ticks:
            raise UsageError(f"--input-delay-at {tick}:{delay}: the session ends at tick {args.ticks}")
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


def _play(session: Session, args: argparse.Namespace) -> int:
    """After the lobby: the ticks (or frames), the summary; the status. Stopped or crashed, the recording is kept."""
    world = session.world
    game = session.game
    assert world is not None and game is not None and session.sync is not None
    session.scripts = _scripts(args.input, session.local_players, session.players)
    if session.is_host:
        _schedule_delays(session, args)
    recorder = None
    if args.record:
        recorder = Recorder(args.record, game=game.name, game_digest=game.digest, seed=session.seed, root=game.root,
                            ms_per_update=world.ms_per_update, players=session.players)
        recorder.start(world)
    started: list[float] = []

    def confirmed(tick: int, inputs: Any, digest: str | None) -> None:
        if not started:  # the clock starts with the session's first tick, not in the lobby
            started.append(time.perf_counter())
        if recorder is not None:
            recorder.record_tick(tick, inputs, digest)
    session.on_confirmed = confirmed
    if recorder is not None:
        session.on_delay = recorder.record_delay
    try:
        if session.options.ticks is None:
            return _play_frames(session, args, recorder)
        return _play_ticks(session, args, recorder, started)
    except Interrupted as interrupt:
        return _stopped(session, args, recorder, interrupt)
    except (UsageError, SessionError, DisplayError, OutputError, StdoutLost, TransportError,
            PacketError):
        raise  # not the game's: said as the command says them
    except BaseException as error:  # anything the game raised is its crash: one line, the others told
        line = crash_line(game.name, error)
        session.crash = line
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
            session.settle()
        return recorder.close(world, torn=torn) if recorder is not None else None


def _stopped(session: Session, args: argparse.Namespace, recorder: Recorder | None, interrupt: Interrupted,
             shot: str = "") -> int:
    """Ctrl-C or SIGTERM: the recording put in place, then the session line and where it stopped; 130 or 143.

    ``shot``: what became of ``--screenshot`` (``screenshot_at_stop``'s clause), said last.
    """
    world, game, sync = session.world, session.game, session.sync
    assert world is not None and game is not None and sync is not None
    ends = _keep_recording(session, recorder, torn=interrupt.inside_tick)
    say(session.stats.summary(sync.rollbacks, sync.resimulated, session.transport.counters))
    say(f"{game.name} {interrupt.verb} at confirmed tick {sync.emitted}"
        + (" by force, in a tick" if interrupt.inside_tick else "")
        + (f"; recorded {shown_name(args.record)} through tick {ends}" if ends is not None else "") + shot)
    return interrupt.status


def _stopped_in_lobby(args: argparse.Namespace, interrupt: Interrupted) -> int:
    """Ctrl-C or SIGTERM before the session started: no tick played, so no recording; the line says so."""
    say(f"{interrupt.verb} in the lobby: the session had not started"
        + (f", nothing recorded to {shown_name(args.record)}" if args.record else ""))
    return interrupt.status


def _ended(session: Session, args: argparse.Namespace, recorded: int | None) -> int:
    """Say why the session ended early, and where the recording ends: 0 when a peer chose to leave, else 1.

    A desync, a dropped peer or a crash is 1. ``recorded``: the tick the recording ends at
    (``None``: none), said either way: it replays up to there.
    """
    assert session.ended is not None and session.world is not None
    for line in session.ended.splitlines():
        say(line)
    kept = (f"; recorded {shown_name(args.record)} through tick {recorded} (it replays)"
            if recorded is not None else "")
    ended = {"command": args.command if isinstance(getattr(args, "command", None), str) else "session",
             "game": session.game.name if session.game is not None else None, "ticks": session.world.tick_count,
             "state": session.world.state_hash(), "ended": session.ended, "recorded_to": recorded}
    if session.left:
        say(f"the session ended early, at tick {session.world.tick_count}{kept}")
        return 0  # a chosen leave: the run's summary follows, as after a whole session
    if kept:
        say(kept[2:])
    rejoin = None
    if session.rejoin_code is not None and session.ended.startswith("dropped by the host"):
        code = f" {session.options.code}" if not is_room_code(args.address) and session.options.code else ""
        say(f"to rejoin: tickswap join {args.address}{code} {getattr(args, 'game', None) or ''} --rejoin "
            f"{session.rejoin_code}".replace("  ", " "))
        rejoin = session.rejoin_code
    emit("summary", ok=False, rejoin_code=rejoin, **ended)
    return 1


def _play_ticks(session: Session, args: argparse.Namespace, recorder: Recorder | None, started: list[float]) -> int:
    """``--ticks``: the session's confirmed ticks, then the summary line (``tickswap run``'s, and the session's)."""
    world, game, sync = session.world, session.game, session.sync
    assert world is not None and game is not None and sync is not None
    ticks = session.options.ticks  # the host's --ticks: the session's length
    assert ticks is not None
    if args.ticks is None:
        ignored = args.frames or args.headless or args.no_hud or args.screenshot
        say(f"the host plays --ticks {ticks}: so does this peer, with no frames"
            + (" (--headless/--frames/--no-hud/--screenshot ignored)" if ignored else ""))
    session.run_ticks(ticks)
    seconds = time.perf_counter() - started[0] if started else 0.0
    recorded = _keep_recording(session, recorder)
    say(session.stats.summary(sync.rollbacks, sync.resimulated, session.transport.counters))
    status = 0 if session.ended is None else _ended(session, args, recorded)
    if status:
        return status
    ran = world.tick_count
    entities = f"{len(world)} {'entity' if len(world) == 1 else 'entities'}"
    played = ran - sync.start  # a late joiner played from the tick it started at
    here = f"{played} here, from tick {sync.start}: " if sync.start else ""
    state = world.state_hash()
    text = (f"{game.name}: {ran} ticks in {seconds * 1000:.1f} ms ({here}{played / seconds if seconds else 0:,.0f} "
            "ticks/s), "
            f"{entities}, state {state[:16]}" + (f", recorded {shown_name(args.record)}" if args.record else ""))
    print(text, flush=True)
    emit("summary", command=args.command if isinstance(getattr(args, "command", None), str) else "session",
         game=game.name, ok=True, ticks=ran, state=state, text=text)
    return 0


def _play_frames(session: Session, args: argparse.Namespace, recorder: Recorder | None) -> int:
    """In a window (or off-screen): the runner's loop drives the session once a frame until Esc, the end, --frames.

    The session ends when the first peer stops (its --frames, Esc): each peer draws at its
    own pace, so frame counts (and the hash, of the last confirmed tick) differ between peers.
    """
    world, game, sync = session.world, session.game, session.sync
    assert world is not None and game is not None and sync is not None
    runner = make_runner(session_display(args), game, world, driver=session)
    try:
        try:
            frames = runner.run(frames=args.frames)
        except Interrupted as interrupt:  # stopped: the last frame is drawn while the window is still open
            shot = screenshot_at_stop(runner, args.screenshot, interrupt) if args.screenshot else ""
            return _stopped(session, args, recorder, interrupt, shot)
        if args.screenshot:
            write_screenshot(runner, args.screenshot)
        recorded = _keep_recording(session, recorder)
        state = world.state_hash()
        summary = (f"{game.name}: {frames} frames, {world.tick_count} confirmed ticks, state {state[:16]}"
                   + (f", screenshot {shown_name(args.screenshot)}" if args.screenshot else "")
                   + (f", recorded {shown_name(args.record)}" if args.record else ""))
    finally:
        runner.view.delete()
        runner.window.close()
    say(session.stats.summary(sync.rollbacks, sync.resimulated, session.transport.counters))
    if session.ended is not None and _ended(session, args, recorded):
        return 1
    print(summary, flush=True)
    emit("summary", command=args.command if isinstance(getattr(args, "command", None), str) else "session",
         game=game.name, ok=True, frames=frames, ticks=world.tick_count, state=state, text=summary)
    return 0


def _check_script(args: argparse.Namespace, player: int | None) -> tuple[int, ...]:
    """Read ``--input`` before the socket opens: a damaged file, a bad key, a line naming another player.

    Returns the players the script names (none: it names none): a joiner's lines may name as
    many players as it plays (``--local``), and the seats the host gives must hold them. A
    player no joiner can be (0, the host's, or past ``MAX_PLAYERS - 1``) is refused here,
    before anyone is asked.
    """
    if not args.input:
        return ()
    local = getattr(args, "local", 1) if player is None else 1
    named = sorted(p for p in read_script_lines(args.input, only=player if local == 1 else None,
                                                joining=player is None) if p is not None)
    if len(named) > local:
        raise UsageError(f"--input {shown_name(args.input)} scripts players {', '.join(map(str, named))}: "
                         f"a peer scripts only its own {'player' if local == 1 else f'{local} players'}")
    return tuple(named)


def _leave_the_seat(session: Session) -> None:
    """Leave after the welcome, before the start: a goodbye the host's lobby takes as a seat freed."""
    session.goodbye(LEFT)  # three times: a lost goodbye would leave the host one player short
    session.flush()
    session.finished = True  # nothing more to say on close


def host_command(args: argparse.Namespace, game: Game | None = None) -> int:
    """``tickswap host GAME --players N``: wait for the players, play, print the summary (``game``: already loaded)."""
    game = game if game is not None else load_game(args.game)
    _check(args, game)
    players = check_players(game, args.players)
    if args.players is None and players < 2 and 2 in game.players:
        players = 2  # the fewest a session has
    if players < 2:
        raise UsageError(f"--players {players}: a session needs 2 players or more")
    room = args.room is not None
    check_room_options(args, room)
    if args.emulate_rebind and args.emulate_nat != "rebinding":
        raise UsageError("--emulate-rebind: a host's port is where its joiners reach it and can't move; give it to "
                         "a joiner (a home router moves a joiner's port, and the host follows it)")
    if room and (args.port is not None or args.bind is not None):
        raise UsageError("--port and --bind are for a host that joiners reach at its address; with --room the "
                         "paths are found by ICE (--ice-host chooses the addresses)")
    try:
        code = room_code(args.room) if room and args.room else new_code() if room else ""
    except ValueError as error:
        raise UsageError(f"--room: {error}") from None
    if room and args.code is not None:
        raise UsageError("--code: with --room, the room code is the join code (--room CODE chooses it)")
    try:
        join_code = code if room else room_code(args.code) if args.code is not None else new_code()
    except ValueError as error:
        raise UsageError(f"--code: {error}") from None
    _check_delays(args)
    local = args.local
    if not local < players:
        raise UsageError(f"--local {local}: with --players {players} no seat is left for a joiner (a host plays at "
                         f"most {players - 1} of its players itself); give --players {local + 1} or more")
    # The host is players 0 to local - 1: a line naming another is refused before anyone joins.
    if local == 1:
        _check_script(args, 0)
    elif args.input:
        _scripts(args.input, tuple(range(local)), players)
    setup = RoomSetup(args, _address) if room else None  # its mistakes are the user's: said before the display's
    try:
        _check_display(args)  # a host that can't draw says so before anyone joins, not after they are all in
    except DisplayError:
        if setup is not None:
            setup.close()  # an emulated router's sockets and thread
        raise
    session: Session | None = None
    try:
        try:
            if setup is not None:
                setup.host_room(code, players, game)
            session = Session.host(game, players=players, seed=args.seed,
                                   port=DEFAULT_PORT if args.port is None else args.port,
                                   bind=args.bind or "127.0.0.1", options=_options(args, room, join_code), say=say,
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
            return _stopped_in_lobby(args, interrupt)
        if setup is not None:
            setup.started()
        return _play(session, args)
    except SessionError as error:
        say(str(error))
        return error.status
    except Interrupted as interrupt:  # in the room's opening, before any session
        return _stopped_in_lobby(args, interrupt)
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


def join_command(args: argparse.Namespace, game: Game | None = None, command: str | None = None) -> int:
    """``tickswap join HOST:PORT|CODE [GAME]``: join, play, print the summary (``game``: already loaded).

    ``command`` is how the user started this join, up to the address (``python jam.py --join``,
    a packaged game's ``jam --join``): the rejoin hint repeats it, so that it is a command the
    host takes (``tickswap join ADDRESS`` alone names no game file).
    """
    room = is_room_code(args.address)
    if not room and (args.rendezvous or args.emulate_nat) and looks_like_code(args.address):
        try:
            room_code(args.address)
        except ValueError as error:  # room options, and a code mistyped: say what is wrong with the code
            raise UsageError(f"join: {error}") from None
    check_room_options(args, room)
    address = None if room else _host_or_code(args.address)
    game_file = getattr(args, "game", None)
    if room:  # a room's code is its join code: a second word is the game
        if game_file is not None:
            raise UsageError(f"join {args.address}: a room code is the join code; then only the game, got "
                             f"{shown(args.code)} and {shown(game_file)}")
        game_file, join_code = args.code, room_code(args.address)
        if hasattr(args, "game"):
            args.game = game_file
    else:
        if args.code is None:
            raise UsageError(f"join {args.address}: give the join code the host printed (tickswap join "
                             f"{args.address} CODE{' GAME' if hasattr(args, 'game') else ''})")
        try:
            join_code = room_code(args.code)
        except ValueError as error:
            raise UsageError(f"join {args.address} {args.code}: {str(error).replace('room code', 'the join code')}; "
                             "check it with the host") from None
    game = game if game is not None else load_game(game_file) if game_file else None
    _check(args, game)
    if args.spectate and args.input is not None:
        raise UsageError("--input: a spectator has no input")
    if args.spectate and args.rejoin is not None:
        raise UsageError("--rejoin: a spectator has no seat to take back (a rejoin code is a player's)")
    if args.local > 1 and (args.spectate or args.rejoin is not None):
        why = "a spectator plays no one" if args.spectate else "a rejoin takes back one seat"
        raise UsageError(f"--local {args.local}: {why}")
    named = _check_script(args, None)  # the player is the host's to give: checked against it after the welcome
    setup = RoomSetup(args, _address) if room else None  # its mistakes are the user's: said before the display's
    cannot_draw: DisplayError | None = None
    if args.ticks is None:
        # Asked before joining: a peer that can't draw says so before it asks, if it draws whatever the
        # host plays; else it learns at its welcome whether it must (the host plays frames) and leaves the seat.
        try:
            check_display(session_display(args))
        except DisplayError as error:
            if args.frames is not None or args.headless or args.screenshot:
                if setup is not None:
                    setup.close()  # an emulated router's sockets and thread
                raise
            cannot_draw = error
    transport = None
    session: Session | None = None
    try:
        try:
            if setup is not None:
                address, transport = setup.join_room(room_code(args.address))
            assert address is not None
            session = Session.join(address, game, spectate=args.spectate, options=_options(args, room, join_code),
                                   say=say, build=_builder(game_file or ""), load=_registered, transport=transport,
                                   local=args.local)
            session.wait_ready()
        except Interrupted as interrupt:
            return _stopped_in_lobby(args, interrupt)
        who = "a spectator" if session.player is None else _played(session.local_players)
        if not set(named) <= set(session.local_players):
            _leave_the_seat(session)
            raise UsageError(f"--input {shown_name(args.input)} scripts {_played(named)}, but the host gave this "
                             f"peer {who}: left before the start, the seat{'s are' if len(named) > 1 else ' is'} "
                             "free again")
        if session.options.ticks is None and cannot_draw is not None:
            _leave_the_seat(session)  # the host plays in frames, which this peer can't draw: the seat is free again
            raise DisplayError(f"{cannot_draw}: left before the start, the seat is free again")
        late = f", from tick {session.sync.start} (the session was running)" if session.late and session.sync else ""
        where = f"room {room_code(args.address)}" if room else f"{address[0]}:{address[1]}"
        say(f"joined {where} as {who} of {session.players}{late}")
        emit("joined", address=where, player=session.player, players=session.players,
             start=session.sync.start if session.late and session.sync else 0, here=list(session.local_players))
        code = session.rejoin_code
        if code is not None and session.players >= 3 and not room:  # a room closes when play starts
            game_word = f" {game_file}" if game_file else ""
            again = (f"{command} {args.address} {join_code}" if command is not None
                     else f"tickswap join {args.address} {join_code}{game_word}")
            say(f"if this peer drops, it takes its seat back with: {again} "
                f"--rejoin {code} (within the host's --rejoin-window; keep the code to yourself)")
        if setup is not None:
            setup.started()
        return _play(session, args)
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
