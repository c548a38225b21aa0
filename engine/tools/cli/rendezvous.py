"""``tickswap rendezvous --port P``: the small server where the two sides of a room code swap their ICE offers.

It passes offers (candidates and ICE credentials) and answers STUN binding requests;
it never carries a game datagram. It runs until Ctrl-C or SIGTERM, then says what it
did in one line (exit 130 or 143). See ``engine.net.rendezvous`` for what it keeps and
its limits, and docs/guides/playing-together.md for a systemd service.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.interrupts import Interrupted
from engine.messages import shown
from engine.net.rendezvous import DEFAULT_PORT, RendezvousServer
from engine.net.transport import TransportError
from engine.tools.cli.numbers import whole
from engine.tools.errors import UsageError, say

__all__ = ["add_rendezvous_command", "rendezvous_command"]

def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {shown(text)}") from None
    if not 0 < value <= 10_000:  # NaN fails too
        raise argparse.ArgumentTypeError(f"expected a number above 0, at most 10000, got {shown(text)}")
    return value


def add_rendezvous_command(commands: Any) -> None:
    """Add ``rendezvous`` to the ``tickswap`` parser's subcommands."""
    command = commands.add_parser(
        "rendezvous", help="run a rendezvous: room codes meet here (ICE offers and STUN only, no game traffic)",
        description="Pass ICE offers between the two sides of a room code, and answer STUN binding requests. No game "
                    "datagram goes through it. Runs until Ctrl-C or SIGTERM.")
    command.add_argument("--port", type=whole(0, 65535), default=DEFAULT_PORT,
                         help=f"UDP port (default {DEFAULT_PORT}; 0: any free one, said on stderr)")
    command.add_argument("--bind", default="0.0.0.0",
                         help="address to listen on (default 0.0.0.0: every address of this machine)")
    command.add_argument("--max-rooms", type=whole(1, 1_000_000), default=4096,
                         help="the most rooms open at once (default 4096, about 10 MB at most)")
    command.add_argument("--rate", type=_rate, default=20.0,
                         help="datagrams a second taken from one IP address (default 20; twice that at once)")


def rendezvous_command(args: argparse.Namespace) -> int:
    """Serve until stopped; the status (130 or 143 when stopped by a signal, as it always is)."""
    try:
        server = RendezvousServer(args.bind, args.port, max_rooms=args.max_rooms, rate=args.rate,
                                  burst=2 * args.rate)
    except TransportError as error:
        raise UsageError(str(error)) from None
    host, port = server.address
    say(f"rendezvous on {host}:{port} (at most {args.max_rooms} rooms, {args.rate:g} datagrams a second from one "
        "address)")
    try:
        while True:
            server.serve(1.0)
    except Interrupted as interrupt:
        counts = server.machine.counters
        say(f"rendezvous {interrupt.verb}: {counts['open']} posts, {counts['join']} joins, {counts['stun']} STUN "
            f"answers, {counts['malformed']} malformed and {counts['rate_limited']} rate-limited datagrams dropped, "
            f"{server.machine.rooms} rooms open")
        return interrupt.status
    finally:
        server.close()
