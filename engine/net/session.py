"""``engine.net.Session``: a game played by several peers over UDP, with rollback (``engine.net.sync``).

A ``Session`` is the thin driver of a ``SessionMachine`` (``engine.net.machine``: the
whole peer, lobby included, as a state machine that takes datagrams and the time and
returns datagrams): it owns the transport (a polled, non-blocking UDP socket, behind the
network emulator when asked) and the clock (a ``RealClock``), hands the machine what
arrives and sends what it returns. No threads, no asyncio: a render loop drives it once a
frame with ``poll()`` and ``advance(local_events)``; headless sessions call
``run_ticks(n)``. Only ``wait_ready`` (the lobby, before any world exists) and ``idle``
(asked for) wait, on the socket, never by sleeping.

Give ``Session.host``/``Session.join`` a ``transport`` (an ``engine.net.emulate.MemoryNetwork``'s)
and a ``clock`` (a ``VirtualClock``) and the same session plays in one process, lobby and
all, with no socket and no real time: what the tests do.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Mapping, Sequence

from engine.clock import Clock, RealClock
from engine.constants import MAX_PLAYERS
from engine.files.game import Game
from engine.input.events import InputEvent
from engine.interrupts import TICK
from engine.net import headless
from engine.net.emulate import EmulatedTransport
from engine.net.lobby import JoinLobby, SessionError, SessionOptions, build_plain
from engine.net.machine import CRASHED, LEFT, SessionMachine
from engine.net.stats import SessionStats
from engine.net.transport import Address, Transport, UdpTransport
from engine.world import World

__all__ = ["CRASHED", "LEFT", "Session", "SessionError", "SessionOptions", "SessionStats"]

LOBBY_WAIT_S = 0.005
"""The longest the lobby waits on the socket between two looks at the time."""


class Session(SessionMachine):
    """One peer of a networked game over a transport. Make one with ``Session.host`` or ``Session.join``.

    Then ``wait_ready()``; then, once a frame, ``poll()`` and ``advance(events)``. It is a
    ``SessionMachine`` whose ``poll``, ``advance`` and ``close`` also move the datagrams
    between the machine and ``transport``.
    """

    def __init__(self, transport: Transport, game: Game | None, options: SessionOptions, *, is_host: bool,
                 say: Callable[[str], None], build: Callable[..., World], clock: Clock | None = None,
                 probe: _Probe | None = None) -> None:
        super().__init__(game, options, is_host=is_host, say=say, build=build,
                         clock=clock if clock is not None else RealClock())
        self.transport = transport
        self._probe = probe
        self._closed = False
        self._done_said = False

    # -- making one ---------------------------------------------------------------------

    @classmethod
    def host(cls, game: Game, *, players: int, seed: int = 0, port: int = 7777, bind: str = "127.0.0.1",
             options: SessionOptions | None = None, say: Callable[[str], None] = print,
             build: Callable[..., World] = build_plain, clock: Clock | None = None,
             transport: Transport | None = None, local: int = 1) -> Session:
        """Host ``game`` for ``players`` players on ``bind:port`` (0: any free port; see ``address``).

        ``local``: how many of the players play on this machine (players 0 to ``local - 1``,
        each with input of its own: ``advance({player: events})``); the joiners are the rest.
        ``transport``: another transport than a UDP socket (then ``bind`` and ``port`` are
        not used); ``clock``: another clock than the machine's real one.
        """
        if type(local) is not int or not 1 <= local < players:
            raise ValueError(f"local={local!r}: a host plays 1 to {players - 1} of its {players} players itself "
                             "(the others join)")
        options = options or SessionOptions()
        if options.emulation is not None and options.emulation.rebind_ms:
            raise ValueError("a host's port can't move (Emulation rebind_ms): it is where its joiners reach it; "
                             "emulate a rebinding on a joiner")
        clock = clock if clock is not None else RealClock()
        opened = _emulated(transport if transport is not None else UdpTransport(bind, port), options, clock)
        session = cls(opened, game, options, is_host=True, say=say, build=build, clock=clock)
        session.players, session.seed, session.player = players, seed, 0
        session.local_players = tuple(range(local))
        return session

    @classmethod
    def join(cls, address: tuple[str, int], game: Game | None, *, spectate: bool = False,
             options: SessionOptions | None = None, say: Callable[[str], None] = print,
             build: Callable[..., World] = build_plain, load: Callable[[str], Game] | None = None,
             clock: Clock | None = None, transport: Transport | None = None, local: int = 1) -> Session:
        """Join the host at ``address`` with ``game`` (``None``: the registered game the host names, via ``load``).

        ``local``: how many players play on this machine. The host gives that many seats side
        by side (or refuses, saying how many are left); once welcomed, ``local_players`` are
        they, each with input of its own (``advance({player: events})``).
        """
        if type(local) is not int or not 1 <= local < MAX_PLAYERS:
            raise ValueError(f"local={local!r}: a joiner plays 1 to {MAX_PLAYERS - 1} players on its machine")
        if local > 1 and (spectate or (options is not None and options.rejoin is not None)):
            raise ValueError(f"local={local}: a spectator plays no one, and a rejoin takes back one seat")
        options = options or SessionOptions()
        clock = clock if clock is not None else RealClock()
        probe = None
        if transport is None:
            transport = UdpTransport("127.0.0.1" if address[0] in ("127.0.0.1", "localhost") else "0.0.0.0", 0)
            probe = _Probe(address)
        session = cls(_emulated(transport, options, clock), game, options, is_host=False, say=say, build=build,
                      clock=clock, probe=probe)
        session.joining = (address, spectate, load)
        session.seats = local
        return session

    @property
    def address(self) -> tuple[str, int]:
        """Where this peer's socket is bound (the port a host on port 0 got)."""
        host, port = self.transport.address
        return str(host), int(port)

    def wait_ready(self, timeout_s: float | None = None) -> None:
        """The lobby (blocking): the host waits for its players, a joiner for its welcome; then the world is built.

        Raises ``SessionError`` when refused or when the time is up.
        """
        self.open_lobby(self.options.lobby_timeout if timeout_s is None else timeout_s)
        try:
            while not self.ready:
                self.poll()
                if not self.ready:
                    self.transport.wait(LOBBY_WAIT_S)
        finally:
            if self._probe is not None:
                self._probe.close()
                self._probe = None

    # -- once a frame -------------------------------------------------------------------

    def poll(self) -> None:
        """Receive every datagram waiting and give it to the machine; let it act on the time; send. Never blocks."""
        if self.ended is not None or self._closed:
            return
        for data, address in self.transport.receive():
            self.receive(data, address)
        lobby = self.lobby
        hellos = lobby.hellos if isinstance(lobby, JoinLobby) else 0
        super().poll()
        if isinstance(lobby, JoinLobby) and lobby.hellos != hellos and self._probe is not None:
            for _ in range(self._probe.knock()):
                lobby.port_closed()
        if lobby is not None and self.ready:
            arm = getattr(self.transport, "arm_rebinding", None)  # the emulator's NAT rebinds during play only
            if arm is not None:
                arm()
        self.flush()

    def advance(self, local_events: Sequence[InputEvent] | Mapping[int, Sequence[InputEvent]],
                elapsed_ms: float | None = None) -> int:
        """Give this frame's local events and run the tick due (the machine's ``advance``), then send."""
        ran = super().advance(local_events)
        self.flush()
        return ran

    def flush(self) -> None:
        """Send what the machine asks for, in order."""
        for data, address in self.datagrams_to_send():
            self.transport.send(data, address)

    def idle(self, timeout_s: float) -> None:
        """While this peer waits for the others, wait up to ``timeout_s`` of real time for their datagrams.

        An off-screen frame takes no real time: a waiting peer would spin through its
        ``--frames`` in a blink, on the core the others need. At once after a tick ran.
        """
        if self.stalled and timeout_s > 0:
            self.transport.wait(timeout_s)

    def run_ticks(self, ticks: int) -> None:
        """Headless: run ``ticks`` confirmed ticks as fast as the network allows, then finish together.

        ``start_ticks``, then ``step_ticks`` until ``over``. When a pass runs no tick it
        waits on the socket (``headless.NAP_S`` at most: a datagram arriving ends the wait),
        never sleeping through one.
        """
        self.start_ticks(ticks)
        while True:
            # Ctrl-C or SIGTERM waits for a whole step: landing between a tick and its hash, or
            # inside a rollback's re-run, it would leave the confirmed ticks and their hashes apart,
            # and the recording would have to end at its last hash.
            with TICK:
                ran = self.step_ticks()
            if self.over:
                return
            if not ran:
                self.transport.wait(headless.NAP_S)

    def start_ticks(self, ticks: int) -> None:
        """Play ``ticks`` confirmed ticks from now (the session's ``--ticks``), then end with the others."""
        headless.begin(self, ticks)
        self._done_said = False

    def step_ticks(self) -> int:
        """One pass of a ``start_ticks`` session: poll, run the tick due, see whether it is over; ticks run.

        Once this peer has finished (every peer holds every tick, the last tick's hash
        compared), its goodbye is sent; ``over`` is then true, as it is when the session
        ended early (``ended`` says why).
        """
        self.poll()
        ran = self.advance(()) if self.ended is None and self.desync is None else 0
        if headless.ended(self) and not self._done_said:
            self._done_said = True
            headless.goodbye(self)
            self.flush()
        return ran

    @property
    def over(self) -> bool:
        """Whether a ``start_ticks`` session is done here: finished with the others, or ended early."""
        return self.ended is not None or self.finished

    def close(self) -> None:
        """Say goodbye to the peers (if the session has not ended), send it, and release the socket and the world."""
        super().close()
        if not self._closed:
            self.flush()
            self.transport.close()
            self._closed = True
        if self._probe is not None:
            self._probe.close()


def _emulated(transport: Transport, options: SessionOptions, clock: Clock) -> Transport:
    """``transport`` behind the network emulator when the options ask for one."""
    if options.emulation is None:
        return transport
    return EmulatedTransport(transport, options.emulation, clock)


class _Probe:
    """A connected UDP socket beside the joiner's: Linux tells a connected socket (only) that a port is closed.

    It sends an empty datagram (a host drops it as no packet) with each ``Hello`` and
    counts the "port unreachable" answers. Any other trouble with it only turns it off.
    """

    def __init__(self, address: Address) -> None:
        self._socket: socket.socket | None = None
        try:
            self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self._socket.setblocking(False)
            self._socket.connect(address)
        except OSError:
            self.close()

    def knock(self) -> int:
        """Learn whether the last knock was refused, and knock again; how many refusals that heard (0 to 2)."""
        if self._socket is None:
            return 0
        refused = 0
        try:
            self._socket.recv(1)  # the refusal of the last knock is reported here, if any
        except ConnectionRefusedError:
            refused += 1
        except OSError:  # nothing came back (BlockingIOError), or a network error: no word on the port
            pass
        try:
            self._socket.send(b"")
        except ConnectionRefusedError:
            refused += 1
        except OSError:
            pass
        return refused

    def close(self) -> None:
        """Release the socket."""
        if self._socket is not None:
            self._socket.close()
            self._socket = None
