"""Joining a session: the host waits for its players (and spectators), a joiner asks until welcomed or refused.

Before the world exists blocking is fine, so the lobby waits with short sleeps. A joiner
sends ``Hello`` (its game's name and digest, the engine version, its ``--ticks``) again
and again until the host answers ``Welcome`` (its player number, the seed, the step, the
game, and the session's terms: its length in ticks and its desync interval, the host's
both) or ``Refuse`` (one line why). The host refuses another engine version, another
``--ticks``, or another game (the digest of a game file, the name of a registered game)
unless both sides allow it (``allow_game_mismatch``, a testing aid for planted desyncs:
the host decides). A refused joiner does not end the host's lobby: anyone may send a
``Hello``. Once every player has joined the host sends ``Start``; a ``Hello`` that comes
after is answered with a ``Refuse`` ("the session has started"), so a late joiner stops at once."""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, replace
from typing import Any

from engine.files.game import Game
from engine.messages import shown
from engine.net.emulate import EmulatedTransport
from engine.net.packets import Bye, Hello, PacketError, Refuse, Start, Welcome, decode, encode, fit_refuse
from engine.net.peers import Peer
from engine.net.refusals import LobbyTally
from engine.net.transport import UdpTransport
from engine.state.names import __version__
from engine.world import World

__all__ = ["Joined", "SessionError", "SessionOptions", "accept_players", "build_plain", "bye", "enter",
           "join_host", "open_transport", "refuse_late"]

HELLO_EVERY_S = 0.2
"""How often a joiner repeats its ``Hello`` until the host answers."""
KEEP_EVERY_S = 0.02
"""How often the host's lobby repeats each welcomed peer's ``Welcome``: a peer waiting for the others hears
the host well within the shortest ``--disconnect-timeout`` (0.1 s)."""
CLOSED_AFTER = 10
"""A joiner gives up early once the OS has said this many times that nothing listens on the host's port
(about two seconds of ``Hello``: a host that is starting has its socket by then)."""
_NAP_S = 0.002


@dataclass(frozen=True)
class SessionOptions:
    """A session's settings (the CLI's ``--input-delay``, ``--max-prediction``... options)."""

    input_delay: int = 2
    max_prediction: int = 8
    """Ticks that may run ahead of the confirmed frontier on predicted input; 0 is plain lockstep."""
    desync_interval: int = 60
    """Compare state hashes every N confirmed ticks; a joiner takes the host's (sent in ``Welcome``)."""
    disconnect_timeout: float = 5.0
    emulation: Any = None
    """An ``engine.net.emulate.Emulation`` to put between this peer and the network, or ``None``."""
    allow_game_mismatch: bool = False
    """A testing aid: play even with another game file (to plant a desync); the host must allow it too."""
    lobby_timeout: float = 60.0
    ticks: int | None = None
    """The session's length in confirmed ticks (``--ticks``; ``None``: frames until a peer leaves).
    The host's is the session's: a joiner with ``None`` takes it, one with another is refused."""


def build_plain(game: Game, seed: int, players: int, ms_per_update: float) -> World:
    """The default world of a session: ``World(seed, step, players)``, ``build``, then ``systems``."""
    world = World(seed=seed, ms_per_update=ms_per_update, players=players)
    world.view_size = game.view_size
    game.build(world)
    game.add_systems(world)
    return world


def open_transport(bind: str, port: int, options: SessionOptions) -> Any:
    """A UDP socket on ``bind:port``, behind the network emulator when the options ask for one."""
    transport = UdpTransport(bind, port)
    return EmulatedTransport(transport, options.emulation) if options.emulation is not None else transport


def bye(session: int, reason: str) -> bytes:
    """A ``Bye`` datagram (the reason cut to what a packet holds)."""
    return encode(Bye(session=session, reason=reason[:300]))


class SessionError(Exception):
    """A session could not start or stopped: ``status`` 2 for a refusal (the user's mistake), 1 otherwise."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Joined:
    """A peer the host welcomed: where it is, its player (``None``: a spectator) and its Welcome."""

    address: Any
    player: int | None
    welcome: bytes


def new_session_id() -> int:
    """A random session id: datagrams of another session (an old one on the same port) are told apart."""
    return int.from_bytes(os.urandom(4), "big") & 0x7FFFFFFF


def _ticks(ticks: int | None) -> str:
    return "frames (no --ticks)" if ticks is None else f"--ticks {ticks}"


def _refusal(hello: Hello, game: str, digest: str, terms: SessionOptions) -> str:
    if hello.engine != __version__:
        return f"the joiner runs tickswap {shown(hello.engine)}, the host {shown(__version__)}"
    if hello.ticks is not None and hello.ticks != terms.ticks:
        return (f"the joiner asks for --ticks {hello.ticks}, the host plays {_ticks(terms.ticks)} "
                "(a joiner with no --ticks plays the host's)")
    if hello.allow_mismatch and terms.allow_game_mismatch:
        return ""
    if hello.game and (hello.game != game or hello.digest != digest):
        what = "game file" if digest else "game"
        return (f"the joiner's {what} {shown(hello.game)} is not the host's {shown(game)}"
                + (" (their contents differ)" if hello.game == game else "")
                + ("; --allow-game-mismatch must be given to the host too" if hello.allow_mismatch
                   else "; --allow-game-mismatch on both sides plays anyway (a test of desync reports)"))
    if not hello.game and digest:
        return f"the host plays the game file {shown(game)}: the joiner must name it (tickswap join HOST:PORT FILE)"
    return ""


START_GRACE_S = 0.25
"""Every seat taken, the host waits this long before the start: a joiner that can't play its seat leaves first."""
MAX_SPECTATORS = 8
"""The most spectators a host welcomes: each costs it a datagram a frame."""


def accept_players(transport: Any, *, session: int, game: str, digest: str, players: int, seed: int,
                   ms_per_update: float, timeout_s: float, say: Any, terms: SessionOptions | None = None,
                   tally: LobbyTally | None = None) -> list[Joined]:
    """The host's lobby: welcome joiners (players 1.. in join order, and spectators) until every player is in.

    A joiner with another game or engine is refused (it is told, and the host says so) and
    the lobby waits on. Raises ``SessionError`` (status 1) when the players are not all in
    after ``timeout_s``. Datagrams that are not a ``Hello`` are dropped, counted in
    ``tally.garbage`` unless a welcomed peer sent them (its play may begin before the start);
    ``tally`` also keeps a flood of refusals to a few lines.
    """
    terms = terms or SessionOptions()
    tally = tally or LobbyTally(say, time.monotonic())
    joined: dict[Any, Joined] = {}
    deadline = time.monotonic() + timeout_s
    kept = time.monotonic()
    full_since: float | None = None
    while full_since is None or time.monotonic() - full_since < START_GRACE_S:
        now = time.monotonic()
        seated = sum(1 for peer in joined.values() if peer.player is not None)
        full_since = (full_since or now) if seated == players - 1 else None
        if now > deadline and full_since is None:
            tally.flush()
            raise SessionError(f"not every player joined within {timeout_s:g} s "
                               f"({1 + sum(1 for p in joined.values() if p.player is not None)} of {players})")
        if now - kept >= KEEP_EVERY_S:
            # A welcomed peer waiting for the others must hear from us, or its --disconnect-timeout drops us.
            for peer in joined.values():
                transport.send(peer.welcome, peer.address)
            kept = now
        tally.tick(now)
        for data, address in transport.receive():
            try:
                hello = decode(data)
            except PacketError:
                tally.garbage += 1 if data else 0  # an empty datagram is a joiner's probe (_Probe), not garbage
                continue
            if isinstance(hello, Bye) and address in joined and hello.session == session:
                # A joiner whose --input does not fit its seat leaves before the start: the seat is free again.
                gone = joined.pop(address)
                say(f"{'a spectator' if gone.player is None else f'player {gone.player}'} left the lobby "
                    f"before the start ({hello.reason}): waiting for another")
                continue
            if not isinstance(hello, Hello):
                tally.garbage += 0 if address in joined else 1
                continue
            if address in joined:
                transport.send(joined[address].welcome, address)  # our Welcome was lost: again
                continue
            problem = _refusal(hello, game, digest, terms)
            if not problem and hello.spectate and sum(1 for p in joined.values() if p.player is None) >= MAX_SPECTATORS:
                problem = f"the session is full ({MAX_SPECTATORS} spectators already)"
            if not problem and not hello.spectate and len({p.player for p in joined.values()} - {None}) >= players - 1:
                problem = "the session is full"
            if problem:
                tally.refuse(transport, data, hello.nonce, problem, address)
                continue
            taken = {p.player for p in joined.values()}
            player = None if hello.spectate else min(set(range(1, players)) - taken)
            welcome = encode(Welcome(session=session, nonce=hello.nonce, player=player, players=players, seed=seed,
                                     ms_per_update=ms_per_update, game=game, digest=digest, ticks=terms.ticks,
                                     desync_interval=terms.desync_interval))
            joined[address] = Joined(address, player, welcome)
            transport.send(welcome, address)
            say(f"{'a spectator' if player is None else f'player {player}'} joined from {address[0]}:{address[1]}")
        time.sleep(_NAP_S)
    tally.flush()
    say(f"all {players} players are in: the session starts")
    start = encode(Start(session=session, players=players))
    for peer in joined.values():
        transport.send(start, peer.address)
    return list(joined.values())


def join_host(transport: Any, address: Any, *, game: str, digest: str, spectate: bool, allow_mismatch: bool,
              timeout_s: float, ticks: int | None = None) -> Welcome:
    """The joiner's lobby: ``Hello`` until welcomed (or refused); the host's ``Welcome``, validated: the terms.

    Raises ``SessionError``: status 2 when refused (the host's reason), 1 when no host
    answers within ``timeout_s``, or sooner when the OS says ``CLOSED_AFTER`` times that
    nothing listens on that port (a few tries first: the host may be starting).
    """
    nonce = int.from_bytes(os.urandom(4), "big") & 0x7FFFFFFF
    hello = encode(Hello(game=game, digest=digest, engine=__version__, spectate=spectate, nonce=nonce,
                         allow_mismatch=allow_mismatch, ticks=ticks))
    where = f"{address[0]}:{address[1]}"
    start = time.monotonic()
    with _Probe(address) as probe:
        return _ask(transport, address, hello, nonce, start, timeout_s, where, probe)


def _ask(transport: Any, address: Any, hello: bytes, nonce: int, start: float, timeout_s: float, where: str,
         probe: _Probe) -> Welcome:
    sent = 0.0
    while True:
        now = time.monotonic()
        if now > start + timeout_s:
            raise SessionError(f"no host answered at {where} within {timeout_s:g} s")
        if probe.closed >= CLOSED_AFTER:
            raise SessionError(f"no host answered at {where}: nothing listens on that port (the OS said so "
                               f"{probe.closed} times in {now - start:.1f} s)")
        if now - sent >= HELLO_EVERY_S:
            transport.send(hello, address)
            probe.knock()
            sent = now
        for data, sender in transport.receive():
            if sender != address:
                continue
            try:
                packet = decode(data)
            except PacketError:
                continue
            if isinstance(packet, Refuse) and packet.nonce == nonce:
                raise SessionError(f"the host refused: {packet.reason}", 2)
            if isinstance(packet, Welcome) and packet.nonce == nonce:
                # Play may begin: the host sends no input before every player is in, so the first
                # ticks wait for it (a lost Start costs nothing).
                return packet
        time.sleep(_NAP_S)


class _Probe:
    """A connected UDP socket beside the joiner's: Linux tells a connected socket (only) that a port is closed.

    It sends an empty datagram (a host drops it as no packet) with each ``Hello`` and
    counts the "port unreachable" answers. Any other trouble with it only turns it off.
    """

    def __init__(self, address: Any) -> None:
        self.closed = 0
        self._socket: socket.socket | None = None
        try:
            self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self._socket.setblocking(False)
            self._socket.connect(address)
        except OSError:
            self.close()

    def knock(self) -> None:
        """Learn whether the last knock was refused, and knock again."""
        if self._socket is None:
            return
        try:
            self._socket.recv(1)  # the refusal of the last knock is reported here, if any
        except ConnectionRefusedError:
            self.closed += 1
        except OSError:  # nothing came back (BlockingIOError), or a network error: no word on the port
            pass
        try:
            self._socket.send(b"")
        except ConnectionRefusedError:
            self.closed += 1
        except OSError:
            pass

    def close(self) -> None:
        """Release the socket."""
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def __enter__(self) -> _Probe:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


LATE = "the session has started (spectators join before it)"
"""A late joiner's refusal: short, so it fits in the answer to any Hello tickswap sends (see ``refuse_late``)."""


def refuse_late(transport: Any, data: bytes, address: Any) -> Hello | bool:
    """After the lobby: answer a stranger's ``Hello`` with ``Refuse`` (the session has started), and return it.

    Without it a late joiner would ask until its lobby timeout. One small reply per
    ``Hello``, never larger than it, so a forged sender gains nothing by it. The caller
    counts the ``Hello`` returned as a late join, not as garbage. A stranger's ``Bye`` and
    an empty datagram are let go too (True), uncounted: the goodbye of one that left the
    lobby or was refused, whose copies arrive after the start, and a late joiner's knock on
    the port (``_Probe``) are no garbage to report. False: none of these (garbage).
    """
    if not data:
        return True
    try:
        hello = decode(data)
    except PacketError:
        return False
    if isinstance(hello, Bye):
        return True
    if not isinstance(hello, Hello):
        return False
    answer = fit_refuse(hello.nonce, LATE, len(data))
    if answer is not None:  # a Hello too small for any Refuse is answered with nothing
        transport.send(answer, address)
    return hello


def enter(session: Any, timeout: float) -> None:
    """``Session.wait_ready``'s lobby: welcome the players (host) or be welcomed (joiner), then take the terms.

    A joiner takes the host's seed, players, step, ``ticks`` and ``desync_interval``
    (saying so when its own ``desync_interval`` differed): the session's options hold them after.
    """
    if session.is_host:
        game = session.game
        tally = LobbyTally(session.say, time.monotonic())
        joined = accept_players(session.transport, session=session.session_id, game=game.name,
                                digest=game.digest or "", players=session.players, seed=session.seed,
                                ms_per_update=game.ms_per_update, timeout_s=timeout, say=session.say,
                                terms=session.options, tally=tally)
        session.stats.dropped_packets += tally.garbage  # the summary's "garbage dropped" counts the lobby's too
        session.peers = [Peer(j.address, j.player, session.players, welcome=j.welcome) for j in joined]
        session.ms_per_update = game.ms_per_update
        return
    address, spectate, load = session._lobby
    options = session.options
    session.say(f"waiting for the host at {address[0]}:{address[1]} (up to {timeout:g} s)")
    welcomed = join_host(session.transport, address, game=session.game.name if session.game else "",
                         digest=(session.game.digest or "") if session.game else "", spectate=spectate,
                         allow_mismatch=options.allow_game_mismatch, timeout_s=timeout, ticks=options.ticks)
    if session.game is None:
        if welcomed.digest or load is None:
            raise SessionError(f"the host plays the game file {welcomed.game!r}: name it "
                               "(tickswap join HOST:PORT FILE)", 2)
        session.game = load(welcomed.game)
    if welcomed.desync_interval != options.desync_interval:
        session.say(f"the session compares state hashes every {welcomed.desync_interval} ticks (the host's "
                    f"--desync-interval), not {options.desync_interval}")
    session.options = replace(options, ticks=welcomed.ticks, desync_interval=welcomed.desync_interval)
    session.player, session.players, session.seed = welcomed.player, welcomed.players, welcomed.seed
    session.session_id = welcomed.session
    session.peers = [Peer(address, 0, session.players)]
    session.ms_per_update = welcomed.ms_per_update
