"""A non-blocking UDP socket for a session: send and receive datagrams, never wait, never crash on the network.

A game frame must not stall on the network, so the socket never blocks: ``receive``
takes what has arrived (at most ``limit`` datagrams) and returns, and ``send`` hands a
datagram to the kernel or, when it can't (a full buffer, a peer whose port is closed, an
unreachable network), counts the failure in ``counters`` and returns. UDP may lose a
datagram anyway; the session's protocol resends, so a failed send is a lost packet,
not an error. Only setting the socket up raises: ``TransportError`` names the address.
"""

from __future__ import annotations

import select
import socket
from typing import Protocol

from engine.net.checks import MAX_DATAGRAM

__all__ = ["Address", "Transport", "TransportError", "UdpTransport"]

Address = tuple[str, int]
"""An IPv4 address and port, as ``socket`` gives them."""
_COUNTERS = ("sent", "received", "bytes_sent", "bytes_received", "send_blocked", "send_refused", "send_failed",
             "oversize", "receive_failed")


class TransportError(OSError):
    """The socket can't be set up (the address is taken or not this machine's), or was closed; names host:port."""


class Transport(Protocol):
    """What a session needs of a transport: ``UdpTransport`` and ``EmulatedTransport`` both are one."""

    @property
    def address(self) -> Address:
        """The host and port datagrams are received on."""
        ...

    @property
    def counters(self) -> dict[str, int]:
        """Datagrams sent, received and lost, by name."""
        ...

    def send(self, data: bytes, to: Address) -> bool:
        """Send one datagram without waiting; a failure is counted, never raised."""
        ...

    def receive(self, limit: int = 256) -> list[tuple[bytes, Address]]:
        """The datagrams waiting, at most ``limit``, without waiting."""
        ...

    def wait(self, timeout_s: float) -> bool:
        """Wait at most ``timeout_s`` seconds for a datagram to arrive; whether one is waiting now."""
        ...

    def close(self) -> None:
        """Let the socket go."""
        ...


class UdpTransport:
    """A non-blocking IPv4 UDP socket bound to ``host:port`` (port 0: any free port, see ``address``).

    ``counters`` counts ``sent``, ``received``, ``bytes_sent``, ``bytes_received``, and the
    datagrams lost here: ``send_blocked`` (the send buffer was full), ``send_refused`` (the
    peer's port is closed), ``send_failed`` (another error: an unreachable network),
    ``oversize`` (a datagram over ``MAX_DATAGRAM`` bytes arrived and was dropped) and
    ``receive_failed``.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        where = f"{host}:{port}"
        if not isinstance(host, str) or type(port) is not int or not 0 <= port <= 65535:
            raise TransportError(f"can't listen for UDP on {where}: the port is a whole number from 0 to 65535")
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self._socket.setblocking(False)
            self._socket.bind((host, port))
            self._address: Address = self._socket.getsockname()
        except (OSError, OverflowError, UnicodeError) as error:
            self._socket.close()
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            refused = TransportError(f"can't listen for UDP on {where}: {reason}")
            refused.errno = error.errno if isinstance(error, OSError) else None
            raise refused from None
        self._closed = False
        self._adopted = False
        self.counters: dict[str, int] = dict.fromkeys(_COUNTERS, 0)

    @classmethod
    def adopt(cls, sock: socket.socket) -> UdpTransport:
        """A transport over a UDP socket already bound elsewhere (ICE's selected one), made non-blocking.

        The transport owns the socket from then on (``close`` closes it). What ICE found is
        kept as it is: the port, and whatever the socket is (a ``engine.net.nat.GatewaySocket``
        behind an emulated router). An adopted socket can't ``rebind``: its port is the one
        ICE agreed on with the peer.
        """
        transport = cls.__new__(cls)
        try:
            sock.setblocking(False)
            address = sock.getsockname()
        except OSError as error:
            raise TransportError(f"can't use the UDP socket {sock!r}: {error.strerror or error}") from None
        transport._socket = sock
        transport._address = (str(address[0]), int(address[1]))
        transport._closed = False
        transport._adopted = True
        transport.counters = dict.fromkeys(_COUNTERS, 0)
        return transport

    def fileno(self) -> int:
        """The socket's descriptor, for a ``select`` over several transports."""
        self._check_open()
        return self._socket.fileno()

    def __repr__(self) -> str:
        return f"UdpTransport({self._address[0]}:{self._address[1]}{', closed' if self._closed else ''})"

    def __enter__(self) -> UdpTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def address(self) -> Address:
        """The host and port this socket is bound to (the port the system chose, for port 0)."""
        return self._address

    def send(self, data: bytes, to: Address) -> bool:
        """Send one datagram to ``to``; whether the kernel took it (a failure is counted, never raised).

        ``to`` must be an IP address, not a name: resolving a name could block the frame.
        A datagram over ``MAX_DATAGRAM`` bytes is a ``ValueError`` (``packets.encode`` never makes one).
        """
        self._check_open()
        if len(data) > MAX_DATAGRAM:
            raise ValueError(f"a datagram of {len(data)} bytes is over the {MAX_DATAGRAM} a transport sends")
        try:
            self._socket.sendto(data, to)
        except BlockingIOError:
            self.counters["send_blocked"] += 1
            return False
        except ConnectionRefusedError:  # an ICMP "port unreachable" from an earlier datagram
            self.counters["send_refused"] += 1
            return False
        except OSError:
            self.counters["send_failed"] += 1
            return False
        self.counters["sent"] += 1
        self.counters["bytes_sent"] += len(data)
        return True

    def receive(self, limit: int = 256) -> list[tuple[bytes, Address]]:
        """The datagrams waiting, oldest first, at most ``limit`` of them; ``[]`` when none (never waits).

        A datagram over ``MAX_DATAGRAM`` bytes is dropped and counted: no valid packet is that long.
        """
        self._check_open()
        received: list[tuple[bytes, Address]] = []
        # Bounded by attempts, not datagrams kept: a flood of oversize ones can't hold the frame.
        for _ in range(max(0, limit)):
            try:
                data, sender = self._socket.recvfrom(MAX_DATAGRAM + 1)
            except BlockingIOError:
                break
            except (ConnectionRefusedError, ConnectionResetError):
                # A peer's closed port, reported on a later call (Windows does): not a datagram.
                self.counters["send_refused"] += 1
                continue
            except OSError:
                self.counters["receive_failed"] += 1
                break
            if len(data) > MAX_DATAGRAM:
                self.counters["oversize"] += 1
                continue
            self.counters["received"] += 1
            self.counters["bytes_received"] += len(data)
            received.append((data, (str(sender[0]), int(sender[1]))))
        return received

    def wait(self, timeout_s: float) -> bool:
        """Wait at most ``timeout_s`` seconds (0 or less: not at all) for a datagram; whether one is waiting now.

        The one call that blocks, and only when asked: an off-screen peer with nothing to do
        waits here instead of spinning through frames (``Session.idle``).
        """
        self._check_open()
        try:
            readable, _, _ = select.select([self._socket], [], [], max(0.0, timeout_s))
        except (OSError, ValueError):  # interrupted, or a descriptor select can't watch: don't wait
            return False
        return bool(readable)

    def rebind(self) -> None:
        """Move to a new socket on a free port of the same host, closing the old one (the emulator's NAT rebinding).

        What arrives at the old port from then on is lost, as it is when a home router
        forgets a mapping; the peers learn the new port from the next datagram sent.
        """
        self._check_open()
        if self._adopted:
            raise TransportError(f"the UDP socket on {self._address[0]}:{self._address[1]} was agreed on by ICE and "
                                 "can't move (a NAT emulator's 'rebinding' kind moves it from outside)")
        fresh = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            fresh.setblocking(False)
            fresh.bind((self._address[0], 0))
        except OSError as error:
            fresh.close()
            raise TransportError(f"can't move the UDP socket on {self._address[0]}:{self._address[1]} to another "
                                 f"port: {error.strerror or error}") from None
        self._socket.close()
        self._socket = fresh
        self._address = fresh.getsockname()

    def close(self) -> None:
        """Close the socket (again: nothing); sending or receiving after it is a ``TransportError``."""
        if not self._closed:
            self._closed = True
            self._socket.close()

    def _check_open(self) -> None:
        if self._closed:
            raise TransportError(f"the UDP socket on {self._address[0]}:{self._address[1]} is closed")
