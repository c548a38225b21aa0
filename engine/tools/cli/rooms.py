"""The command line's rooms: ``host --room``, ``join CODE`` and their options (the rendezvous, STUN, TURN, ICE hosts).

``add_room_options`` adds the options to ``host`` and ``join`` (``engine.tools.cli.net``);
``RoomSetup`` turns them into a rendezvous address, an ``engine.net.ice.IceConfig`` and,
for ``--emulate-nat``, an emulated router, and runs the room's setup phase: a host's room
opened (``host_room``), a joiner's path found (``join_room``). aioice is imported only
when a room is used.
"""

from __future__ import annotations

import argparse
import os
import socket
from collections.abc import Callable
from typing import Any

from engine.files.game import Game
from engine.messages import shown
from engine.net.nat import NAT_KINDS
from engine.net.rendezvous import CODE_LENGTH
from engine.net.rendezvous import DEFAULT_PORT as DEFAULT_RENDEZVOUS_PORT
from engine.tools.errors import UsageError, say, shown_name

__all__ = ["RoomSetup", "add_room_options", "check_room_options", "looks_like_code"]


def add_room_options(command: argparse.ArgumentParser) -> None:
    """The room options of ``host`` and ``join``."""
    command.add_argument("--rendezvous", metavar="HOST:PORT",
                         help="with a room code: the rendezvous (tickswap rendezvous) that passes the ICE offers; "
                         "default $TICKSWAP_RENDEZVOUS; there is no public one "
                         f"(PORT default {DEFAULT_RENDEZVOUS_PORT})")
    command.add_argument("--stun", metavar="HOST:PORT",
                         help="with a room code: the STUN server that tells this peer its public address (default: "
                         "the rendezvous, which answers STUN; 'off': none)")
    command.add_argument("--turn", metavar="USER:PASSWORD@HOST:PORT",
                         help="with a room code: a TURN relay (coturn) for when no direct path exists (symmetric "
                         "NATs); USER@HOST:PORT takes the password from $TICKSWAP_TURN_PASSWORD")
    command.add_argument("--ice-host", metavar="ADDR", action="append",
                         help="with a room code: gather host candidates on this IPv4 address only (repeatable; "
                         "default: every address of this machine but loopback)")
    command.add_argument("--emulate-nat", choices=NAT_KINDS, metavar="KIND",
                         help="with a room code: put this peer behind an emulated home router on 127.0.0.1 "
                         f"({', '.join(NAT_KINDS)}); 'rebinding' moves its ports every --emulate-rebind MS "
                         "(default 1000) once play starts")


class RoomSetup:
    """A room's parts for one command: the rendezvous, ICE's configuration, the emulated router (if any), the room.

    ``resolve(text, option, default_port)`` turns HOST[:PORT] into an IPv4 address (the
    command line's own lookup, once, at the start).
    """

    def __init__(self, args: argparse.Namespace, resolve: Callable[[str, str, int], tuple[str, int]]) -> None:
        try:
            from engine.net.ice import IceConfig, TurnServer
        except ImportError as missing:
            if missing.name != "aioice":
                raise
            raise UsageError(str(missing)) from None
        from engine.net.nat import NatBox

        text = args.rendezvous or os.environ.get("TICKSWAP_RENDEZVOUS")
        if not text:
            raise UsageError("a room needs a rendezvous: give --rendezvous HOST:PORT (or set TICKSWAP_RENDEZVOUS); "
                             "tickswap has no public one: run `tickswap rendezvous` on a machine every player can "
                             "reach")
        self.rendezvous = resolve(text, "--rendezvous", DEFAULT_RENDEZVOUS_PORT)
        self.named = text if ":" in text else f"{text}:{DEFAULT_RENDEZVOUS_PORT}"  # as the user wrote it
        stun = self.rendezvous if args.stun is None else None if args.stun == "off" else \
            resolve(args.stun, "--stun", 3478)
        turn = None
        if args.turn is not None:
            try:
                turn = TurnServer.parse(args.turn, os.environ.get("TICKSWAP_TURN_PASSWORD"),
                                        resolve=lambda where: resolve(where, "--turn", 3478))
            except ValueError as error:
                raise UsageError(f"--turn: {error}") from None
        hosts = None
        if args.ice_host:
            for host in args.ice_host:
                _ipv4(host, "--ice-host")
            hosts = tuple(args.ice_host)
        elif args.emulate_nat:
            hosts = ("127.0.0.1",)  # the emulated router lives on 127.0.0.1: so do the houses behind it
        self.box = None
        if args.emulate_nat:
            self.box = NatBox(args.emulate_nat, seed=args.emulate_seed, rebind_ms=args.emulate_rebind or 1000.0)
        self.config = IceConfig(stun=stun, turn=turn, hosts=hosts,
                                sockets=self.box.make_socket if self.box is not None else None)
        self.room: Any = None
        self.lobby_timeout = float(args.lobby_timeout)
        self.game_file = getattr(args, "game", None)

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


def check_room_options(args: argparse.Namespace, room: bool) -> None:
    """Refuse room options without a room, and ``--emulate-rebind`` in a room without a rebinding router."""
    given = [name for name, value in (("--rendezvous", args.rendezvous), ("--stun", args.stun),
                                      ("--turn", args.turn), ("--ice-host", args.ice_host),
                                      ("--emulate-nat", args.emulate_nat)) if value]
    if given and not room:
        raise UsageError(f"{', '.join(given)}: for a room (host --room, join CODE); a session at an address "
                         "needs none")
    if room and args.emulate_rebind and args.emulate_nat != "rebinding":
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
