"""``tickswap rendezvous --port P``: the small server where the two sides of a room code swap their ICE offers.

It passes offers (candidates and ICE credentials) and answers STUN binding requests;
it never carries a game datagram. It runs until Ctrl-C or SIGTERM, then says what it
did in one line (exit 130 or 143). See ``engine.net.rendezvous`` for what it keeps and
its limits, and docs/guides/playing-together.md for a systemd service.
"""

from __future__ import annotations

from engine.interrupts import Interrupted
from engine.net.rendezvous import RendezvousServer
from engine.net.transport import TransportError
from engine.tools.cli.options import RendezvousOptions
from engine.tools.errors import UsageError, say

__all__ = ["rendezvous_command"]

def rendezvous_command(args: RendezvousOptions) -> int:
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
