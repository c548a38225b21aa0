"""Joining a session: the host waits for its players (and spectators), a joiner asks until welcomed or refused.

Before the world exists blocking is fine, so the lobby waits with short sleeps. A joiner
sends ``Hello`` (its game's name and digest, the engine version) again and again until
the host answers ``Welcome`` (its player number, the seed, the step, the game) or
``Refuse`` (one line why). The host refuses another engine version, or another game
(the digest of a game file, the name of a registered game) unless the joiner asks to
play anyway (``allow_mismatch``, a testing aid for planted desyncs). A refusal ends the
host's session too: a session whose peers disagree on the game cannot be played. Once
every player has joined the host sends ``Start`` (again, until each peer is heard from).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

from engine.files.game import Game
from engine.messages import shown
from engine.net.emulate import EmulatedTransport
from engine.net.packets import Bye, Hello, PacketError, Refuse, Start, Welcome, decode, encode
from engine.net.transport import UdpTransport
from engine.state.names import __version__
from engine.world import World

__all__ = ["Joined", "SessionError", "SessionOptions", "Welcomed", "accept_players", "build_plain", "bye",
           "join_host", "open_transport"]

HELLO_EVERY_S = 0.2
"""How often a joiner repeats its ``Hello`` until the host answers."""
_NAP_S = 0.002


@dataclass(frozen=True)
class SessionOptions:
    """A session's settings (the CLI's ``--input-delay``, ``--max-prediction``... options)."""

    input_delay: int = 2
    max_prediction: int = 8
    """Ticks that may run ahead of the confirmed frontier on predicted input; 0 is plain lockstep."""
    desync_interval: int = 60
    disconnect_timeout: float = 5.0
    emulation: Any = None
    """An ``engine.net.emulate.Emulation`` to put between this peer and the network, or ``None``."""
    allow_game_mismatch: bool = False
    """A testing aid: join even with another game file (to plant a desync)."""
    lobby_timeout: float = 60.0


def build_plain(game: Game, seed: int, players: int, ms_per_update: float) -> World:
    """The default world of a session: ``World(seed, step, players)``, ``build``, then ``systems``."""
    world = World(seed=seed, ms_per_update=ms_per_update, players=players)
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


@dataclass(frozen=True)
class Welcomed:
    """What a joiner learnt from the host's ``Welcome``."""

    session: int
    player: int | None
    players: int
    seed: int
    ms_per_update: float
    game: str
    digest: str


def new_session_id() -> int:
    """A random session id: datagrams of another session (an old one on the same port) are told apart."""
    return int.from_bytes(os.urandom(4), "big") & 0x7FFFFFFF


def _refusal(hello: Hello, game: str, digest: str) -> str:
    if hello.engine != __version__:
        return f"the joiner runs tickswap {shown(hello.engine)}, the host {shown(__version__)}"
    if hello.allow_mismatch:
        return ""
    if hello.game and (hello.game != game or hello.digest != digest):
        what = "game file" if digest else "game"
        return (f"the joiner's {what} {shown(hello.game)} is not the host's {shown(game)}"
                + (" (their contents differ)" if hello.game == game else ""))
    if not hello.game and digest:
        return f"the host plays the game file {shown(game)}: the joiner must name it (tickswap join HOST:PORT FILE)"
    return ""


MAX_SPECTATORS = 8
"""The most spectators a host welcomes: each costs it a datagram a frame."""


def accept_players(transport: Any, *, session: int, game: str, digest: str, players: int, seed: int,
                   ms_per_update: float, timeout_s: float, say: Any) -> list[Joined]:
    """The host's lobby: welcome joiners (players 1.. in join order, and spectators) until every player is in.

    A joiner with another game or engine is refused (it is told, and the host says so) and
    the lobby waits on. Raises ``SessionError`` (status 1) when the players are not all in
    after ``timeout_s``. Datagrams that are not a ``Hello`` are dropped.
    """
    joined: dict[Any, Joined] = {}
    deadline = time.monotonic() + timeout_s
    while sum(1 for peer in joined.values() if peer.player is not None) < players - 1:
        if time.monotonic() > deadline:
            raise SessionError(f"not every player joined within {timeout_s:g} s "
                               f"({1 + sum(1 for p in joined.values() if p.player is not None)} of {players})")
        for data, address in transport.receive():
            try:
                hello = decode(data)
            except PacketError:
                continue
            if not isinstance(hello, Hello):
                continue
            if address in joined:
                transport.send(joined[address].welcome, address)  # our Welcome was lost: again
                continue
            problem = _refusal(hello, game, digest)
            if problem:
                for _ in range(3):  # the joiner must hear it: a lost refusal would leave it asking
                    transport.send(encode(Refuse(nonce=hello.nonce, reason=problem)), address)
                # Anyone may send a Hello: a refusal is said, and the lobby waits on for the right players.
                say(f"refused a join from {address[0]}:{address[1]}: {problem}")
                continue
            if hello.spectate and sum(1 for p in joined.values() if p.player is None) >= MAX_SPECTATORS:
                transport.send(encode(Refuse(nonce=hello.nonce, reason=f"the session has {MAX_SPECTATORS} "
                                             "spectators already")), address)
                continue
            player = None if hello.spectate else 1 + sum(1 for p in joined.values() if p.player is not None)
            welcome = encode(Welcome(session=session, nonce=hello.nonce, player=player, players=players, seed=seed,
                                     ms_per_update=ms_per_update, game=game, digest=digest))
            joined[address] = Joined(address, player, welcome)
            transport.send(welcome, address)
            say(f"{'a spectator' if player is None else f'player {player}'} joined from {address[0]}:{address[1]}")
        time.sleep(_NAP_S)
    start = encode(Start(session=session, players=players))
    for peer in joined.values():
        transport.send(start, peer.address)
    return list(joined.values())


def join_host(transport: Any, address: Any, *, game: str, digest: str, spectate: bool, allow_mismatch: bool,
              timeout_s: float) -> Welcomed:
    """The joiner's lobby: ``Hello`` until welcomed (or refused).

    Raises ``SessionError``: status 2 when refused (the host's reason), 1 when the host
    does not answer within ``timeout_s``.
    """
    nonce = int.from_bytes(os.urandom(4), "big") & 0x7FFFFFFF
    hello = encode(Hello(game=game, digest=digest, engine=__version__, spectate=spectate, nonce=nonce,
                         allow_mismatch=allow_mismatch))
    deadline = time.monotonic() + timeout_s
    sent = 0.0
    while True:
        now = time.monotonic()
        if now > deadline:
            raise SessionError(f"the host {address[0]}:{address[1]} did not answer within {timeout_s:g} s")
        if now - sent >= HELLO_EVERY_S:
            transport.send(hello, address)
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
                return Welcomed(packet.session, packet.player, packet.players, packet.seed,
                                packet.ms_per_update, packet.game, packet.digest)
        time.sleep(_NAP_S)
