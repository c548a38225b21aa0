"""The command line's rooms: ``host --room``, ``join CODE`` and their options (the rendezvous, STUN, TURN, ICE hosts).

``engine.tools.cli.options`` reads the options (a ``RoomOptions`` in a ``PeerOptions``);
``RoomSetup`` turns them into a rendezvous address, an ``engine.net.ice.IceConfig`` and,
for ``--emulate-nat``, an emulated router, and runs the room's setup phase: a host's room
opened (``host_room``), a joiner's path found (``join_room``). aioice is imported only
when a room is used.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from typing import Any

from engine.files.game import Game
from engine.json_events import emit
from engine.messages import shown
from engine.net.rendezvous import CODE_LENGTH
from engine.net.rendezvous import DEFAULT_PORT as DEFAULT_RENDEZVOUS_PORT
from engine.tools.cli.options import PeerOptions
from engine.tools.errors import UsageError, say, shown_name

__all__ = ["RoomSetup", "check_room_options", "looks_like_code"]


class RoomSetup:
    """A room's parts for one command: the rendezvous, ICE's configuration, the emulated router (if any), the room.

    ``game_file``: the game as the command named it (told to the joiners of a host's room);
    ``resolve(text, option, default_port)`` turns HOST[:PORT] into an IPv4 address (the
    command line's own lookup, once, at the start).
    """

    def __init__(self, peer: PeerOptions, game_file: str | None,
                 resolve: Callable[[str, str, int], tuple[str, int]]) -> None:
        try:
            from engine.net.ice import IceConfig, TurnServer
        except ImportError as missing:
            if missing.name != "aioice":
                raise
            raise UsageError(str(missing)) from None
        from engine.net.nat import NatBox

        options = peer.room
        text = options.rendezvous or os.environ.get("TICKSWAP_RENDEZVOUS")
        if not text:
            raise UsageError("a room needs a rendezvous: give --rendezvous HOST:PORT (or set TICKSWAP_RENDEZVOUS); "
                             "tickswap has no public one: run `tickswap rendezvous` on a machine every player can "
                             "reach")
        self.rendezvous = resolve(text, "--rendezvous", DEFAULT_RENDEZVOUS_PORT)
        self.named = text if ":" in text else f"{text}:{DEFAULT_RENDEZVOUS_PORT}"  # as the user wrote it
        stun = self.rendezvous if options.stun is None else None if options.stun == "off" else \
            resolve(options.stun, "--stun", 3478)
        turn = None
        if options.turn is not None:
            try:
                turn = TurnServer.parse(options.turn, os.environ.get("TICKSWAP_TURN_PASSWORD"),
                                        resolve=lambda where: resolve(where, "--turn", 3478))
            except ValueError as error:
                raise UsageError(f"--turn: {error}") from None
        hosts = None
        if options.ice_hosts:
            for host in options.ice_hosts:
                _ipv4(host, "--ice-host")
            hosts = options.ice_hosts
        elif options.emulate_nat:
            hosts = ("127.0.0.1",)  # the emulated router lives on 127.0.0.1: so do the houses behind it
        self.box = None
        if options.emulate_nat:
            self.box = NatBox(options.emulate_nat, seed=peer.emulation.seed,
                              rebind_ms=peer.emulation.rebind_ms or 1000.0)
        self.config = IceConfig(stun=stun, turn=turn, hosts=hosts,
                                sockets=self.box.make_socket if self.box is not None else None)
        self.room: Any = None
        self.lobby_timeout = float(peer.lobby_timeout)
        self.game_file = game_file

    def where(self) -> str:
        """The rendezvous as HOST:PORT, as the user named it (the players are told that, not an address)."""
        return self.named

    def host_room(self, code: str, players: int, game: Game) -> None:
        """Open the room (``SessionError`` when the rendezvous refuses or says nothing) and say its code."""
        from engine.net.room import SILENT_S, HostRoom

        self.room = HostRoom(self.rendezvous, code, self.config, say=say, capacity=players - 1 + 8)
        say(f"opening room {code} at the rendezvous {self.where()}")
        self.room.open(min(SILENT_S, self.lobby_timeout))
        file = f" {shown_name(self.game_file or game.name)}" if game.digest else ""  # a sample: the host names it
        say(f"room {code} is open: the other players join with `tickswap join {code}{file} --rendezvous "
            f"{self.where()}`")
        emit("room", code=code, rendezvous=self.where())

    def join_room(self, code: str) -> tuple[tuple[str, int], Any]:
        """Find the host of room ``code`` (the setup phase, ICE to the end): its address and the transport to it."""
        from engine.net.room import JoinRoom

        say(f"looking for room {code} at the rendezvous {self.where()}")
        joiner = JoinRoom(self.rendezvous, code, self.config, say=say, timeout_s=self.lobby_timeout)
        try:
            path = joiner.run()
        finally:
            joiner.close()
        say(f"a path to the host of room {code}: {path.describe()}")
        return path.remote_address, path.transport

    def started(self) -> None:
        """Play starts: the room closes at the rendezvous, and an emulated rebinding router starts moving."""
        if self.room is not None:
            self.room.close_room()
        if self.box is not None:
            self.box.arm()

    def close(self) -> None:
        """Let the room (if the session did not) and the emulated router go."""
        if self.room is not None and getattr(self.room, "is_open", False):
            self.room.close()
        if self.box is not None:
            self.box.close()
            if self.box.table.moves:
                say(f"the emulated {self.box.table.kind} router moved its ports {self.box.table.moves} times")


def check_room_options(peer: PeerOptions, room: bool) -> None:
    """Refuse room options without a room, and ``--emulate-rebind`` in a room without a rebinding router."""
    given = peer.room.given
    if given and not room:
        raise UsageError(f"{', '.join(given)}: for a room (host --room, join CODE); a session at an address "
                         "needs none")
    if room and peer.emulation.rebind_ms and peer.room.emulate_nat != "rebinding":
        raise UsageError("--emulate-rebind: in a room the port is the one ICE agreed on; emulate a router that moves "
                         "it with --emulate-nat rebinding (its ports move every --emulate-rebind MS)")


def _ipv4(text: str, option: str) -> str:
    try:
        socket.inet_pton(socket.AF_INET, text)
    except (OSError, ValueError):
        raise UsageError(f"{option} {shown(text)} is not an IPv4 address (four numbers)") from None
    return text


def looks_like_code(text: str) -> bool:
    """Whether ``text`` has a room code's form (6 letters and digits), whatever its characters."""
    return len(text.strip()) == CODE_LENGTH and text.strip().isalnum()
