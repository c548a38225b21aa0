"""Rooms: a host opens one under a short code at a rendezvous, joiners come by the code, ICE finds each path.

``HostRoom`` is the host's side, and the host session's transport: while the lobby runs it
keeps the room posted at the rendezvous (``engine.net.rendezvous``), gathers an ICE agent
for the next joiner, and when a joiner's answer comes, checks the paths to it
(``engine.net.ice``), all on an asyncio loop that runs only inside the lobby's own waits.
Each joiner found adds a path: the transport receives from every path and sends each
datagram by the path its address last came from (a joiner's address may move: a NAT
rebinding), so the session above sees one transport, as always. When the game starts the
host calls ``close_room``: the room is closed at the rendezvous, the loop ends, and only
the polled sockets of the paths are left.

``JoinRoom`` is a joiner's setup phase: gather, post its answer under the code, take the
host's offer, check the paths, and hand over the selected one (``IcePath``), whose
transport and address the joiner's session then uses like any other.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import select
from collections import OrderedDict
from collections.abc import Callable

from engine.clock import Clock, RealClock
from engine.net.cookies import COOKIE_BYTES
from engine.net.ice import IceAgent, IceConfig, IceLoop, IcePath, open_inbox
from engine.net.lobby import MAX_SPECTATORS, SessionError
from engine.net.offer import IceError, Offer
from engine.net.rendezvous import (
    BUSY,
    FULL,
    NO_ROOM,
    OK,
    POST_EVERY_S,
    PROVE,
    TAKEN,
    close_request,
    join_request,
    open_request,
    read_reply,
    room_code,
)
from engine.net.transport import Address

__all__ = ["JOIN_EVERY_S", "MAX_CONNECTING", "SILENT_S", "HostRoom", "JoinRoom"]

JOIN_EVERY_S = 0.25
"""How often a joiner posts its answer until the rendezvous hands it the host's offer."""
SILENT_S = 10.0
"""How long the rendezvous may be silent before a host that is opening its room, or a joiner, gives up."""
MAX_CONNECTING = 4
"""The most joiners a host checks paths to at once (the next must wait: the rendezvous says it is busy)."""
MAX_ROUTES = 256
"""The most peer addresses a host's room remembers the path of."""


def _where(address: Address) -> str:
    return f"{address[0]}:{address[1]}"


class _Room:
    """What both ends of a room hold: its code, the rendezvous that keeps it, the ICE loop, and who to tell."""

    def __init__(self, rendezvous: Address, code: str, config: IceConfig, say: Callable[[str], None],
                 clock: Clock | None) -> None:
        self.code = room_code(code)
        self.rendezvous = rendezvous
        self.config = config
        self.say = say
        self._clock = clock if clock is not None else RealClock()
        self.loop = IceLoop(config)


class HostRoom(_Room):
    """A host's room under ``code`` at the ``rendezvous``, and the transport of the host's session (see the module).

    ``open(timeout_s)`` waits until the rendezvous confirms the room. ``paths`` are the
    joiners found so far; ``failed`` counts those ICE found no path to. ``capacity``: the
    most paths it takes (players and spectators). A problem of the room (the code taken,
    the rendezvous gone silent while opening) is raised as ``SessionError`` from the call
    that finds it (``open``, ``receive``).
    """

    def __init__(self, rendezvous: Address, code: str, config: IceConfig, *, say: Callable[[str], None],
                 clock: Clock | None = None, capacity: int = 7 + MAX_SPECTATORS) -> None:
        super().__init__(rendezvous, code, config, say, clock)
        self.capacity = capacity
        self.paths: list[IcePath] = []
        self.failed = 0
        self.opened = False
        self._routes: OrderedDict[Address, IcePath] = OrderedDict()
        self._secret = secrets.token_bytes(16)
        self._address: Address = (config.bind_host, 0)
        self._counts = {"unrouted": 0}
        self._task = self.loop.create_task(self._serve())

    def __repr__(self) -> str:
        return f"HostRoom({self.code} at {_where(self.rendezvous)}, {len(self.paths)} paths)"

    # -- the room -------------------------------------------------------------------------------

    def open(self, timeout_s: float) -> None:
        """Wait (at most ``timeout_s``) until the rendezvous has confirmed the room; ``SessionError`` otherwise."""
        start = self._clock.now_ns() / 1e9
        while not self.opened:
            self._check()
            if self._clock.now_ns() / 1e9 - start > timeout_s:
                raise SessionError(f"no answer from the rendezvous at {_where(self.rendezvous)} within {timeout_s:g} s")
            self.loop.step(0.01)

    @property
    def is_open(self) -> bool:
        """Whether joiners may still find the room (``close_room`` not called)."""
        return not self.loop.is_closed()

    def close_room(self) -> None:
        """Close the room at the rendezvous and end the setup phase: joiners in progress are let go."""
        if self.loop.is_closed():
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            self.loop.run_until_complete(asyncio.wait({self._task}, timeout=3.0))
        self.loop.shut()

    def _check(self) -> None:
        """Raise what ended the room's work (a ``SessionError``), if anything did."""
        if not self._task.done() or self._task.cancelled():
            return
        error = self._task.exception()
        if isinstance(error, SessionError):
            raise error
        if error is not None:
            raise SessionError(f"the room {self.code} stopped: {error}")

    async def _serve(self) -> None:
        inbox = await open_inbox(self.loop, self.rendezvous)
        sockname = inbox.transport.get_extra_info("sockname") if inbox.transport else None
        if sockname:
            self._address = (str(sockname[0]), int(sockname[1]))
        agent: IceAgent | None = None
        gathering: asyncio.Task[IceAgent] | None = None
        connecting: set[asyncio.Task[None]] = set()
        offer_id = 0
        cookie = b""  # the rendezvous's proof of our address, once it asks (PROVE)
        heard = next_post = self.loop.time()
        said_silent = False
        try:
            while True:
                if agent is None and gathering is None and len(connecting) < MAX_CONNECTING \
                        and len(self.paths) < self.capacity:
                    gathering = asyncio.ensure_future(self._gather())
                if gathering is not None and gathering.done():
                    agent, gathering = gathering.result(), None  # raises IceError: nothing to offer at all
                    offer_id += 1
                now = self.loop.time()
                if now >= next_post:
                    offer = agent.offer.encode() if agent is not None and agent.offer is not None else b""
                    inbox.send(open_request(self.code, self._secret, offer_id if offer else 0, offer, cookie))
                    next_post = now + POST_EVERY_S
                data = await inbox.get(max(0.0, next_post - now))
                reply = read_reply(data) if data else None
                if reply is None or reply.kind != b"o" or reply.code != self.code:
                    if self.loop.time() - heard > SILENT_S:
                        if not self.opened:
                            raise SessionError(f"no answer from the rendezvous at {_where(self.rendezvous)} "
                                               f"within {SILENT_S:g} s")
                        if not said_silent:
                            self.say(f"the rendezvous at {_where(self.rendezvous)} stopped answering: no more "
                                     f"players can find room {self.code}")
                            said_silent = True
                    continue
                heard, said_silent = self.loop.time(), False
                if reply.status == TAKEN:
                    raise SessionError(f"room code {self.code} is taken at the rendezvous: choose another, or give "
                                       "--room alone for a fresh one", 2)
                if reply.status == PROVE and len(reply.blob) == COOKIE_BYTES:
                    cookie, next_post = reply.blob, self.loop.time()  # post again at once, with it
                    continue
                if reply.status == FULL:
                    raise SessionError(f"the rendezvous at {_where(self.rendezvous)} holds as many rooms as it may: "
                                       "try again later")
                if reply.status != OK:
                    continue
                self.opened = True
                if agent is None or reply.offer_id != offer_id or not reply.blob:
                    continue
                try:
                    answer = Offer.decode(reply.blob)
                except IceError as error:
                    self.say(f"a joiner's answer at the rendezvous is no ICE offer ({error}): it was not let in")
                    await agent.close()
                    agent = None
                    continue
                task = asyncio.ensure_future(self._connect(agent, answer))
                connecting.add(task)
                task.add_done_callback(connecting.discard)
                agent = None
        finally:
            inbox.send(close_request(self.code, self._secret))
            inbox.send(close_request(self.code, self._secret))
            if agent is not None:
                await agent.close()
            inbox.close()

    async def _gather(self) -> IceAgent:
        agent = await IceAgent.create(self.loop, controlling=True)
        await agent.gather()
        return agent

    async def _connect(self, agent: IceAgent, answer: Offer) -> None:
        try:
            path = await agent.connect(answer, self._clock)
        except IceError as error:
            self.failed += 1
            self.say(f"a joiner could not be reached: {error}")
            return
        self.paths.append(path)
        self._route(path.remote_address, path)
        self.say(f"a joiner found room {self.code}: {path.describe()}")

    def _route(self, address: Address, path: IcePath) -> None:
        self._routes[address] = path
        self._routes.move_to_end(address)
        while len(self._routes) > MAX_ROUTES:
            self._routes.popitem(last=False)

    # -- the transport --------------------------------------------------------------------------

    @property
    def address(self) -> Address:
        """Where the room talks to the rendezvous from (each path has its own address)."""
        return self._address

    @property
    def counters(self) -> dict[str, int]:
        """Every path's counters added up, and the datagrams with no path to send them by (``unrouted``)."""
        total: dict[str, int] = dict(self._counts)
        for path in self.paths:
            for name, count in path.transport.counters.items():
                total[name] = total.get(name, 0) + count
        return total

    def send(self, data: bytes, to: Address) -> bool:
        """Send ``data`` by the path ``to`` last came from; counted as ``unrouted`` when there is none."""
        path = self._routes.get(to)
        if path is None:
            self._counts["unrouted"] += 1
            return False
        return path.transport.send(data, to)

    def receive(self, limit: int = 256) -> list[tuple[bytes, Address]]:
        """Let the room work a moment (while open), then take what every path received."""
        if not self.loop.is_closed():
            self.loop.step(0)
            self._check()
        received: list[tuple[bytes, Address]] = []
        for path in list(self.paths):
            for data, source in path.transport.receive(limit):
                if self._routes.get(source) is not path:
                    self._route(source, path)
                received.append((data, source))
        return received

    def wait(self, timeout_s: float) -> bool:
        """While open, let the room work ``timeout_s``; after, wait on the paths' sockets. Whether one is readable."""
        if not self.loop.is_closed():
            self.loop.step(timeout_s)
            timeout_s = 0.0
        descriptors = [path.transport.fileno() for path in self.paths]
        if not descriptors:
            return False
        try:
            readable, _, _ = select.select(descriptors, [], [], max(0.0, timeout_s))
        except (OSError, ValueError):
            return False
        return bool(readable)

    def close(self) -> None:
        """Close the room (if open) and every path."""
        self.close_room()
        for path in self.paths:
            path.transport.close()


class JoinRoom(_Room):
    """A joiner's way into room ``code``: ``step`` until it gives the ``IcePath`` to the host (or raises).

    ``run()`` steps to the end. Problems are ``SessionError``: no answer from the
    rendezvous, no such room, no path found (status 1), an offer that is not one.
    """

    def __init__(self, rendezvous: Address, code: str, config: IceConfig, *, say: Callable[[str], None],
                 clock: Clock | None = None, timeout_s: float = 60.0) -> None:
        super().__init__(rendezvous, code, config, say, clock)
        self.timeout_s = timeout_s
        self.path: IcePath | None = None
        self._task = self.loop.create_task(self._join())

    def step(self, timeout_s: float) -> IcePath | None:
        """Let the joining work for up to ``timeout_s``; the path once found (then the loop is closed)."""
        if self.path is not None or self.loop.is_closed():
            return self.path
        self.loop.run_until_complete(asyncio.wait({self._task}, timeout=max(0.0, timeout_s)))
        if not self._task.done():
            return None
        try:
            self.path = self._task.result()
        except IceError as error:
            raise SessionError(f"no path to the host of room {self.code}: {error}") from None
        finally:
            self.loop.shut()
        return self.path

    def run(self) -> IcePath:
        """Step until the path is found; ``SessionError`` if it is not."""
        while True:
            path = self.step(0.05)
            if path is not None:
                return path

    def close(self) -> None:
        """Give up (if not done): the loop and its sockets closed."""
        if not self.loop.is_closed():
            self.loop.shut()

    async def _join(self) -> IcePath:
        # ``timeout_s`` bounds the whole search, gathering included (it waits on the STUN server,
        # the rendezvous by default, up to GATHER_TIMEOUT_S when it is silent).
        deadline = self.loop.time() + self.timeout_s
        inbox = await open_inbox(self.loop, self.rendezvous)
        agent: IceAgent | None = None
        try:
            agent = await IceAgent.create(self.loop, controlling=False)
            try:
                offer = await asyncio.wait_for(agent.gather(), max(0.0, deadline - self.loop.time()))
            except asyncio.TimeoutError:
                raise SessionError(f"room {self.code}: no path of this machine gathered within {self.timeout_s:g} s "
                                   f"(its STUN or TURN server did not answer; the rendezvous at "
                                   f"{_where(self.rendezvous)} is the STUN server unless --stun names one)") from None
            nonce = secrets.randbits(63) or 1
            request = join_request(self.code, nonce, offer.encode())
            asked = heard = next_send = self.loop.time()
            missing, said_busy, answered = 0, False, False
            while True:
                now = self.loop.time()
                silent = now - heard > SILENT_S
                if now >= deadline or silent:
                    if not answered:  # not one reply: whatever the time limit, the rendezvous is the cause
                        raise SessionError(f"no answer from the rendezvous at {_where(self.rendezvous)} within "
                                           f"{round(now - asked, 1):g} s")
                    if silent:
                        raise SessionError(f"the rendezvous at {_where(self.rendezvous)} stopped answering for "
                                           f"{SILENT_S:g} s")
                    raise SessionError(f"room {self.code} did not let this player in within {self.timeout_s:g} s"
                                       + (" (it stayed busy with other joiners)" if said_busy else ""))
                if now >= next_send:
                    inbox.send(request)
                    next_send = now + JOIN_EVERY_S
                data = await inbox.get(max(0.0, next_send - now))
                reply = read_reply(data) if data else None
                if reply is None or reply.kind != b"j" or reply.code != self.code or reply.nonce != nonce:
                    continue
                heard = self.loop.time()
                answered = True
                if reply.status == NO_ROOM:
                    missing += 1
                    if missing >= 3:
                        raise SessionError(f"the rendezvous at {_where(self.rendezvous)} has no room {self.code}: "
                                           "check the code (the host may also have started, or left)")
                elif reply.status == BUSY and not said_busy:
                    self.say(f"room {self.code} is letting another player in: waiting")
                    said_busy = True
                elif reply.status == OK:
                    try:
                        host = Offer.decode(reply.blob)
                    except IceError as error:
                        raise SessionError(f"the offer of room {self.code} is no ICE offer: {error}") from None
                    break
            self.say(f"found room {self.code}: checking the paths to the host ({len(offer.candidates)} candidates "
                     f"here, {len(host.candidates)} there)")
            path = await agent.connect(host, self._clock)
            agent = None  # connect closed it
            return path
        finally:
            if agent is not None:
                await agent.close()
            inbox.close()
