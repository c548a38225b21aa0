"""ICE (RFC 8445) with ``aioice``, in a setup phase: two peers behind routers find a path, then play on a polled socket.

Each side gathers its candidates, the addresses it may be reached at: ``host`` (an
address of the machine's own: a LAN address behind a router), ``srflx`` (server
reflexive: the address the router shows the world, learned from a STUN server) and
``relay`` (an address on a TURN server that relays to us: what is left when both routers
are symmetric). The two sides swap their candidates and credentials (an ``Offer``,
through the rendezvous), and ``aioice`` checks the pairs until one works in both
directions. That is the only asyncio in tickswap, and it ends there: the selected pair's
socket is taken over (a plain socket for a host candidate; for a relayed one the socket
that talks to the TURN server and the allocation, as ``engine.net.relay.RelayTransport``)
and given to the session as an ``IceTransport``, polled like any other, which also answers
the peer's connectivity checks that arrive after the hand-over.

Every socket ICE opens is made through ``IceConfig.sockets`` (plain by default; an
``engine.net.nat.NatBox``'s inside sockets in tests) by ``IceLoop``, an event loop that
keeps a record of each endpoint. ``IceConfig.hosts`` lists the addresses host candidates
are gathered on; by default every IPv4 address of the machine but loopback (aioice's
choice), so tests give ``("127.0.0.1",)`` and no datagram leaves the machine.

What aioice does not offer publicly and is read here: the pair it nominated
(``Connection._nominated``; read in one place, ``_selected``) and which addresses it
gathers on (its module function ``get_host_addresses``, consulted through a context
variable while this module is loaded, so it answers ``IceConfig.hosts`` for the agent
gathering). Both hold for aioice 0.10 to 0.13.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

try:
    import aioice
    import aioice.ice
except ImportError as missing:
    # aioice is the ``internet`` extra: only a room (``host --room``, ``join CODE``) meets through ICE.
    raise ImportError("a room code (ICE through home routers) needs aioice: pip install 'tickswap[internet]'",
                      name="aioice") from missing

from engine.clock import Clock
from engine.messages import shown
from engine.net import stun
from engine.net.offer import CANDIDATE_KINDS, MAX_CANDIDATES, Candidate, IceError, Offer
from engine.net.relay import RelayTransport, TurnAllocation
from engine.net.transport import Address, Transport, TransportError, UdpTransport

__all__ = ["CANDIDATE_KINDS", "MAX_CANDIDATES", "Candidate", "IceAgent", "IceConfig", "IceError", "IceLoop",
           "IcePath", "IceTransport", "Offer", "TurnServer", "ipv4_address"]

GATHER_TIMEOUT_S = 5.0
"""How long aioice waits for a STUN or TURN server while gathering (its own limit)."""


def ipv4_address(text: str, what: str) -> Address:
    """``HOST:PORT`` with HOST an IPv4 address written as four numbers (no name: no lookup in a datagram's path).

    A ``ValueError`` names ``what`` and the value.
    """
    host, colon, port = text.rpartition(":")
    if not colon or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{what} {shown(text)} is not HOST:PORT with a port from 1 to 65535")
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        raise ValueError(f"{what} {shown(text)}: {shown(host)} is not an IPv4 address (four numbers)") from None
    return host, int(port)


@dataclass(frozen=True)
class TurnServer:
    """A TURN server and the credentials it knows us by (coturn's ``user=NAME:PASSWORD``)."""

    address: Address
    username: str
    password: str = field(repr=False)

    @classmethod
    def parse(cls, text: str, password: str | None = None,
              resolve: Callable[[str], Address] | None = None) -> TurnServer:
        """``USER:PASSWORD@HOST:PORT`` (or ``USER@HOST:PORT`` and ``password`` apart); a ``ValueError`` names it.

        ``resolve`` turns ``HOST:PORT`` into an address (by default only an IPv4 address is taken: no lookup).
        """
        credentials, at, where = text.rpartition("@")
        if not at or not credentials:
            raise ValueError(f"TURN server {shown(text)} is not USER:PASSWORD@HOST:PORT")
        user, colon, secret = credentials.partition(":")
        if not colon:
            if password is None:
                raise ValueError(f"TURN server {shown(text)} has no password: USER:PASSWORD@HOST:PORT, or "
                                 "USER@HOST:PORT with TICKSWAP_TURN_PASSWORD set")
            secret = password
        if not user or not secret or any(ord(c) < 32 for c in user + secret):
            raise ValueError(f"TURN server {shown(text)}: the user and the password must not be empty")
        return cls(resolve(where) if resolve is not None else ipv4_address(where, "TURN server"), user, secret)


@dataclass(frozen=True)
class IceConfig:
    """Where ICE looks for addresses: a STUN server, a TURN server, the host addresses, how sockets are made.

    ``hosts``: the addresses host candidates are gathered on (``None``: every IPv4 address
    of the machine but loopback); ``sockets``: makes each socket ICE and the room open
    (``None``: plain UDP sockets); ``timeout_s``: how long the connectivity checks may take.
    """

    stun: Address | None = None
    turn: TurnServer | None = None
    hosts: tuple[str, ...] | None = None
    sockets: Callable[[], socket.socket] | None = None
    timeout_s: float = 15.0

    def make_socket(self) -> socket.socket:
        """A new, unbound UDP socket of this configuration's kind."""
        return self.sockets() if self.sockets is not None else socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    @property
    def bind_host(self) -> str:
        """Where a socket that only talks to a server (STUN, TURN, the rendezvous) is bound."""
        return self.hosts[0] if self.hosts else "0.0.0.0"


# -- the event loop that makes every socket ----------------------------------------------------


_GATHER_HOSTS: contextvars.ContextVar[tuple[str, ...] | None] = contextvars.ContextVar("tickswap_ice_hosts",
                                                                                        default=None)
_aioice_host_addresses = aioice.ice.get_host_addresses


def _host_addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
    """aioice's ``get_host_addresses``, answering the gathering agent's ``IceConfig.hosts`` when it gave some."""
    hosts = _GATHER_HOSTS.get()
    return list(hosts) if hosts is not None else _aioice_host_addresses(use_ipv4, use_ipv6)


aioice.ice.get_host_addresses = _host_addresses


@dataclass
class Endpoint:
    """A UDP endpoint aioice (or the room) opened: its socket, asyncio transport and protocol, its far address."""

    sock: socket.socket
    transport: asyncio.DatagramTransport
    protocol: Any
    far: Address | None


class IceLoop(asyncio.SelectorEventLoop):
    """The event loop of the setup phase: each datagram endpoint's socket is made by ``config`` and recorded.

    A host candidate's socket is bound where aioice asks (one of ``IceConfig.hosts``); a
    socket that talks to one server (TURN, the rendezvous) is bound on ``bind_host`` and
    connected there. ``endpoints`` lists them all, in order.
    """

    def __init__(self, config: IceConfig) -> None:
        super().__init__()
        self.config = config
        self.endpoints: list[Endpoint] = []

    async def create_datagram_endpoint(self, protocol_factory: Any, local_addr: Any = None,
                                       remote_addr: Any = None, **kwargs: Any) -> tuple[Any, Any]:
        """Make the socket through the configuration, then let asyncio run it (no other option is used)."""
        sock = self.config.make_socket()
        try:
            if remote_addr is not None:
                sock.bind((self.config.bind_host, 0))
                sock.connect((str(remote_addr[0]), int(remote_addr[1])))
            else:
                host = str(local_addr[0]) if local_addr else self.config.bind_host
                if self.config.hosts is not None and host not in self.config.hosts:
                    raise OSError(f"{host} is not one of the ICE host addresses {', '.join(self.config.hosts)}")
                sock.bind((host, int(local_addr[1]) if local_addr else 0))
            transport, protocol = await super().create_datagram_endpoint(protocol_factory, sock=sock)
        except BaseException:
            sock.close()
            raise
        far = (str(remote_addr[0]), int(remote_addr[1])) if remote_addr is not None else None
        self.endpoints.append(Endpoint(sock, transport, protocol, far))
        return transport, protocol

    def step(self, timeout_s: float) -> None:
        """Run the loop for ``timeout_s`` seconds (0: one pass over what is ready)."""
        self.run_until_complete(asyncio.sleep(max(0.0, timeout_s)))

    def shut(self) -> None:
        """Cancel what still runs, close every endpoint and the loop itself."""
        if self.is_closed():
            return
        pending = [task for task in asyncio.all_tasks(self) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            self.run_until_complete(asyncio.wait(pending, timeout=2.0))
        for endpoint in self.endpoints:
            endpoint.transport.close()
        self.step(0)
        self.run_until_complete(self.shutdown_default_executor())
        self.close()


class Inbox(asyncio.DatagramProtocol):
    """A datagram endpoint talking to one server (the rendezvous): ``send``, and ``get`` what came, in order."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[bytes] = asyncio.Queue(maxsize=64)  # what is not read in time is dropped
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep the transport."""
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: Any) -> None:
        """Queue it (a full queue drops it: the sender repeats itself)."""
        if not self._queue.full():
            self._queue.put_nowait(data)

    def send(self, data: bytes) -> None:
        """Send one datagram to the server."""
        if self.transport is not None and not self.transport.is_closing():
            self.transport.sendto(data)

    async def get(self, timeout_s: float) -> bytes | None:
        """The next datagram, waiting at most ``timeout_s``; ``None`` when none came."""
        try:
            return await asyncio.wait_for(self._queue.get(), timeout_s)
        except asyncio.TimeoutError:
            return None

    def close(self) -> None:
        """Close the endpoint."""
        if self.transport is not None:
            self.transport.close()


async def open_inbox(loop: IceLoop, server: Address) -> Inbox:
    """An ``Inbox`` to ``server``, its socket made by the loop's configuration."""
    _, inbox = await loop.create_datagram_endpoint(Inbox, remote_addr=server)
    assert isinstance(inbox, Inbox)
    return inbox


# -- the agent ------------------------------------------------------------------------------------


def to_aioice(candidate: Candidate) -> aioice.Candidate:
    """The same candidate as aioice's."""
    return aioice.Candidate(foundation=candidate.foundation, component=1, transport="udp",
                            priority=candidate.priority, host=candidate.host, port=candidate.port, type=candidate.kind)


def of_aioice(candidate: aioice.Candidate) -> Candidate:
    """aioice's candidate as ours (the related address left out: it says more about the LAN than is needed)."""
    return Candidate(str(candidate.foundation)[:32], int(candidate.priority), str(candidate.host),
                     int(candidate.port), str(candidate.type))


def _selected(connection: aioice.Connection) -> Any:
    """The candidate pair aioice nominated (aioice keeps it private: its ``_nominated`` by component)."""
    nominated = getattr(connection, "_nominated", None)
    pair = nominated.get(1) if isinstance(nominated, dict) else None
    if pair is None:
        raise IceError("aioice completed without a nominated pair (an aioice this tickswap does not know?)")
    return pair


class IceAgent:
    """One side of one ICE connection, on an ``IceLoop``: ``gather``, then ``connect`` to the other side's offer.

    Make it inside the loop (``await IceAgent.create(...)``). ``controlling``: the host's
    side (it nominates the pair). ``gathered`` lists the candidates found; ``offer`` is what
    to send (at most ``MAX_CANDIDATES``).
    """

    def __init__(self, loop: IceLoop, *, controlling: bool) -> None:
        config = loop.config
        self.loop = loop
        self.config = config
        self.connection = aioice.Connection(
            ice_controlling=controlling, stun_server=config.stun,
            turn_server=config.turn.address if config.turn else None,
            turn_username=config.turn.username if config.turn else None,
            turn_password=config.turn.password if config.turn else None, use_ipv4=True, use_ipv6=False)
        self.gathered: tuple[Candidate, ...] = ()
        self.offer: Offer | None = None

    @classmethod
    async def create(cls, loop: IceLoop, *, controlling: bool) -> IceAgent:
        """A new agent (made in the running loop, as aioice's queues want)."""
        return cls(loop, controlling=controlling)

    async def gather(self) -> Offer:
        """Gather the candidates (host, STUN, TURN), and make the offer; ``IceError`` when none was found."""
        token = _GATHER_HOSTS.set(self.config.hosts)
        try:
            await self.connection.gather_candidates()
        finally:
            _GATHER_HOSTS.reset(token)
        found = [of_aioice(c) for c in self.connection.local_candidates
                 if c.type in CANDIDATE_KINDS and c.component == 1]
        self.gathered = tuple(c for c in found if _is_ipv4(c.host))
        if not self.gathered:
            raise IceError("ICE found no address of this machine to offer (no IPv4 address, no STUN or TURN answer)")
        ranked = sorted(self.gathered, key=lambda c: (c.kind == "host", -c.priority))
        self.offer = Offer(self.connection.local_username, self.connection.local_password,
                           tuple(ranked[:MAX_CANDIDATES]))
        return self.offer

    async def connect(self, remote: Offer, clock: Clock | None = None) -> IcePath:
        """Check the pairs with the other side's ``remote`` offer until one is nominated; hand its socket over.

        Raises ``IceError`` when every pair failed, or when ``IceConfig.timeout_s`` passed.
        The agent is closed either way (its other sockets and allocations let go).
        """
        connection = self.connection
        connection.remote_username, connection.remote_password = remote.ufrag, remote.pwd
        for candidate in remote.candidates:
            await connection.add_remote_candidate(to_aioice(candidate))
        await connection.add_remote_candidate(None)
        relayed = any(c.kind == "relay" for c in self.gathered + remote.candidates)
        hint = "" if relayed else "; neither side has a TURN relay, which symmetric routers need"
        try:
            await asyncio.wait_for(connection.connect(), self.config.timeout_s)
        except asyncio.TimeoutError:
            await self.close()
            raise IceError(f"ICE found no path to the other side within {self.config.timeout_s:g} s "
                           f"({len(self.gathered)} candidates here, {len(remote.candidates)} there{hint})") from None
        except ConnectionError:
            await self.close()
            raise IceError(f"ICE found no path to the other side: every pair of its {len(self.gathered)} "
                           f"candidates here and {len(remote.candidates)} there failed{hint}") from None
        try:
            path = self._take_over(remote, clock)
        finally:
            await self.close()
        return path

    def _take_over(self, remote: Offer, clock: Clock | None) -> IcePath:
        pair = _selected(self.connection)
        local = of_aioice(pair.local_candidate)
        far = (str(pair.remote_addr[0]), int(pair.remote_addr[1]))
        known = next((c for c in remote.candidates if c.address == far), None)
        remote_candidate = known or Candidate("prflx", 1, far[0], far[1], "prflx")
        inner: Transport
        if local.kind == "relay":
            turn = next((e for e in self.loop.endpoints if e.far is not None and
                         getattr(e.protocol, "relayed_address", None) is not None and
                         tuple(e.protocol.relayed_address) == local.address), None)
            if turn is None:
                raise IceError(f"the relayed candidate {local.host}:{local.port} has no TURN allocation here")
            allocation = TurnAllocation.of_aioice(turn.protocol)
            inner = RelayTransport(turn.sock.dup(), allocation, clock)
            turn.transport.close()  # closed first, aioice does not give the allocation back on close
        else:
            endpoint = next((e for e in self.loop.endpoints if e.protocol is pair.protocol), None)
            if endpoint is None:
                raise IceError(f"the host candidate {local.host}:{local.port} has no socket here")
            inner = UdpTransport.adopt(endpoint.sock.dup())
        transport = IceTransport(inner, self.connection.local_username, self.connection.local_password, remote.ufrag)
        return IcePath(local=local, remote=remote_candidate, remote_address=far, transport=transport,
                       gathered=self.gathered, offered=remote.candidates)

    async def close(self) -> None:
        """Let aioice go: its sockets closed, its other TURN allocations given back (2 s at most)."""
        with contextlib.suppress(asyncio.TimeoutError, OSError, ConnectionError):
            await asyncio.wait_for(self.connection.close(), 2.0)


def _is_ipv4(host: str) -> bool:
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class IcePath:
    """The pair ICE selected: our candidate, the other side's, where to send, and the transport taken over.

    ``gathered`` are the candidates this side found, ``offered`` the other side's.
    """

    local: Candidate
    remote: Candidate
    remote_address: Address
    transport: IceTransport
    gathered: tuple[Candidate, ...]
    offered: tuple[Candidate, ...]

    @property
    def relayed(self) -> bool:
        """Whether the game's datagrams go through a TURN relay (ours or the other side's)."""
        return self.local.kind == "relay" or self.remote.kind == "relay"

    def describe(self) -> str:
        """One line: the pair, and whether it is direct or relayed."""
        how = "through a TURN relay" if self.relayed else "directly"
        return (f"{self.local.kind} {self.local.host}:{self.local.port} to {self.remote.kind} "
                f"{self.remote.host}:{self.remote.port} ({how})")


# -- the polled transport after the hand-over ------------------------------------------------------


class IceTransport:
    """The selected pair's transport, polled: datagrams pass as they are, but ICE's own checks are answered here.

    The other side may still check the pair after this side handed it over (the controlled
    side's last check, or a consent check); each binding request with our credentials is
    answered with the address it came from, as aioice would. Any other STUN message is
    dropped and counted (``ice_dropped``); the game never sees one.
    """

    def __init__(self, inner: Transport, ufrag: str, pwd: str, remote_ufrag: str) -> None:
        self.inner = inner
        self._username = f"{ufrag}:{remote_ufrag}"
        self._pwd = pwd.encode()
        self._counts = {"ice_answered": 0, "ice_dropped": 0}

    def __repr__(self) -> str:
        return f"IceTransport({self.inner!r})"

    @property
    def address(self) -> Address:
        """The inner transport's address (our host address, or our relayed address)."""
        return self.inner.address

    @property
    def counters(self) -> dict[str, int]:
        """The inner transport's counters, and the checks answered and dropped (a new dict each time)."""
        return {**self.inner.counters, **self._counts}

    def fileno(self) -> int:
        """The socket's descriptor, for a ``select`` over several transports."""
        fileno = getattr(self.inner, "fileno", None)
        if fileno is None:
            raise TransportError(f"{self.inner!r} has no descriptor")
        return int(fileno())

    def send(self, data: bytes, to: Address) -> bool:
        """Send through the pair (see ``Transport.send``)."""
        return self.inner.send(data, to)

    def receive(self, limit: int = 256) -> list[tuple[bytes, Address]]:
        """The datagrams for the game; the checks among them answered, other STUN dropped."""
        taken = []
        for data, source in self.inner.receive(limit):
            if stun.is_stun(data):
                self._check(data, source)
            else:
                taken.append((data, source))
        return taken

    def _check(self, data: bytes, source: Address) -> None:
        message = stun.parse(data)
        if (message is None or message.method != stun.BINDING or message.klass != stun.REQUEST
                or message.text(stun.USERNAME) != self._username or not message.integrity_ok(self._pwd)):
            self._counts["ice_dropped"] += 1
            return
        answer = stun.build(stun.BINDING, stun.SUCCESS, [(stun.XOR_MAPPED_ADDRESS, stun.xor_address(source))],
                            transaction=message.transaction, key=self._pwd, fingerprint=True)
        self.inner.send(answer, source)
        self._counts["ice_answered"] += 1

    def wait(self, timeout_s: float) -> bool:
        """Wait on the inner transport."""
        return self.inner.wait(timeout_s)

    def close(self) -> None:
        """Close the inner transport (a relay gives its allocation back)."""
        self.inner.close()
