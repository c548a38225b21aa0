"""``engine.net.Session``: a game played by several peers over UDP, with rollback (``engine.net.sync``).

A ``Session`` is the I/O shell around a ``SessionMachine`` (``engine.net.machine``: the
whole peer, lobby included, as a state machine that takes datagrams and the time and
returns datagrams), which it holds as ``machine``: it owns the transport (a polled,
non-blocking UDP socket, behind the network emulator when asked) and the clock (a
``RealClock``), hands the machine what arrives and sends what it returns. What a game's
code and the window's runner read of a peer (its world, its players, why it ended) the
session says itself; the rest of the peer's state is ``session.machine``'s. No threads, no
asyncio: a render loop drives it once a frame with ``poll()`` and ``advance(local_events)``; headless sessions call
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
from engine.deprecation import MOVED_REMOVED_IN, warn_deprecated
from engine.files.game import Game
from engine.input.events import InputEvent
from engine.interrupts import TICK
from engine.net import headless
from engine.net.emulate import EmulatedTransport
from engine.net.lobby import HostLobby, JoinLobby, SessionError, SessionOptions, build_plain
from engine.net.machine import CRASHED, LEFT, SessionMachine
from engine.net.peers import Peer
from engine.net.stats import SessionStats
from engine.net.transport import Address, Transport, UdpTransport
from engine.world import World
from engine.world.sounds import SoundRequest

__all__ = ["CRASHED", "LEFT", "Session", "SessionError", "SessionOptions", "SessionStats"]

LOBBY_WAIT_S = 0.005
"""The longest the lobby waits on the socket between two looks at the time."""


class Session:
    """One peer of a networked game over a transport. Make one with ``Session.host`` or ``Session.join``.

    Then ``wait_ready()``; then, once a frame, ``poll()`` and ``advance(events)``. It holds
    the peer's ``SessionMachine`` (``machine``) and moves the datagrams between it and
    ``transport`` in ``poll``, ``advance`` and ``close``. It is the window runner's
    ``Driver`` (``ended``, ``local_players``, ``hud_text``, ``take_sounds``), and says what a
    game's code reads of its peer (``world``, ``player``, ``players``, ``ready``,
    ``rejoin_code``); the peer table, the stats and the rest are ``machine``'s.
    """

    def __init__(self, transport: Transport, game: Game | None, options: SessionOptions, *, is_host: bool,
                 say: Callable[[str], None], build: Callable[..., World], clock: Clock | None = None,
                 probe: _Probe | None = None) -> None:
        self.machine = SessionMachine(game, options, is_host=is_host, say=say, build=build,
                                      clock=clock if clock is not None else RealClock())
        """The peer itself, sans-IO (``engine.net.machine``): its lobby, peer table, rollback, stats."""
        self.transport = transport
        self._probe = probe
        self._closed = False
        self._done_said = False

    def __setattr__(self, name: str, value: object) -> None:
        # An attribute of the machine's (``scripts``, ``on_confirmed``) set on the session by
        # mistake is refused at once, never kept beside the machine's and silently unused.
        machine = self.__dict__.get("machine")
        if machine is not None and not hasattr(type(self), name) and hasattr(machine, name):
            raise AttributeError(f"Session.{name} is the machine's: set session.machine.{name}")
        super().__setattr__(name, value)

    # -- what a game and the runner read of the peer ------------------------------------------

    @property
    def world(self) -> World | None:
        """The peer's world, once the lobby is done (``None`` before)."""
        return self.machine.world

    @property
    def player(self) -> int | None:
        """This peer's (first) player: the host's 0, a joiner's once welcomed; ``None`` for a spectator."""
        return self.machine.player

    @property
    def players(self) -> int:
        """How many players the session has (a joiner knows once welcomed)."""
        return self.machine.players

    @property
    def local_players(self) -> tuple[int, ...]:
        """The players this peer plays (``SessionMachine.local_players``): its window's keyboard and pads are theirs."""
        return self.machine.local_players

    @property
    def ended(self) -> str | None:
        """Why the session stopped early (a desync, a dropped peer, one that left), or ``None``."""
        return self.machine.ended

    @property
    def ready(self) -> bool:
        """Whether the lobby is done and the world built: ``advance`` plays."""
        return self.machine.ready

    @property
    def stalled(self) -> bool:
        """Whether the last ``advance`` ran no tick: this peer waits for the others."""
        return self.machine.stalled

    @property
    def rejoin_code(self) -> str | None:
        """This player's rejoin code (``SessionMachine.rejoin_code``): ``None`` for the host and spectators."""
        return self.machine.rejoin_code

    @property
    def script(self) -> dict[int, list[InputEvent]]:
        """The first local player's scripted input by game tick (``SessionMachine.script``); may be set before the
        lobby is done."""
        return self.machine.script

    @script.setter
    def script(self, script: dict[int, list[InputEvent]]) -> None:
        self.machine.script = script

    def open_lobby(self, timeout_s: float) -> None:
        """Start the lobby without waiting (``wait_ready`` waits): then ``poll`` until ``ready``."""
        self.machine.open_lobby(timeout_s)

    def set_input_delay(self, delay: int, at: int | None = None) -> int:
        """The host's: every peer's input delay is ``delay`` from tick ``at`` (``SessionMachine.set_input_delay``)."""
        return self.machine.set_input_delay(delay, at)

    def hud_text(self) -> str:
        """One short line for the HUD: ping, frames ahead, rollbacks a second, who is waited on."""
        return self.machine.hud_text()

    def take_sounds(self) -> list[SoundRequest]:
        """The sounds of ticks not handed out before: a re-simulated tick's are not played twice."""
        return self.machine.take_sounds()

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
        machine = session.machine
        machine.players, machine.seed, machine.player = players, seed, 0
        machine.local_players = tuple(range(local))
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
        session.machine.joining = (address, spectate, load)
        session.machine.seats = local
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
        self.machine.open_lobby(self.machine.options.lobby_timeout if timeout_s is None else timeout_s)
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
        TICK.check()  # a Ctrl-C lost in a callback (a joiner imports its crypto while it waits) stops the wait
        machine = self.machine
        if machine.ended is not None or self._closed:
            return
        for data, address in self.transport.receive():
            machine.receive(data, address)
        lobby = machine.lobby
        hellos = lobby.hellos if isinstance(lobby, JoinLobby) else 0
        machine.poll()
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
        ran = self.machine.advance(local_events)
        self.flush()
        return ran

    def flush(self) -> None:
        """Send what the machine asks for, in order."""
        for data, address in self.machine.datagrams_to_send():
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
        headless.begin(self.machine, ticks)
        self._done_said = False

    def step_ticks(self) -> int:
        """One pass of a ``start_ticks`` session: poll, run the tick due, see whether it is over; ticks run.

        Once this peer has finished (every peer holds every tick, the last tick's hash
        compared), its goodbye is sent; ``over`` is then true, as it is when the session
        ended early (``ended`` says why).
        """
        self.poll()
        ran = self.advance(()) if self.ended is None and self.machine.desync is None else 0
        if headless.ended(self.machine) and not self._done_said:
            self._done_said = True
            headless.goodbye(self.machine)
            self.flush()
        return ran

    @property
    def over(self) -> bool:
        """Whether a ``start_ticks`` session is done here: finished with the others, or ended early."""
        return self.ended is not None or self.machine.finished

    def close(self) -> None:
        """Say goodbye to the peers (if the session has not ended), send it, and release the socket and the world."""
        self.machine.close()
        if not self._closed:
            self.flush()
            self.transport.close()
            self._closed = True
        if self._probe is not None:
            self._probe.close()


    # -- moved to the machine (0.5): each still works, warning -----------------------------

    def _moved(self, name: str) -> SessionMachine:
        warn_deprecated(f"Session.{name}", f"Session.machine.{name}", stacklevel=4, removed_in=MOVED_REMOVED_IN)
        return self.machine

    def add_peer(self, peer: Peer) -> None:
        """Deprecated (goes in 0.6): ``session.machine.add_peer``."""
        self._moved("add_peer").add_peer(peer)

    def remove_peer(self, peer: Peer) -> None:
        """Deprecated (goes in 0.6): ``session.machine.remove_peer``."""
        self._moved("remove_peer").remove_peer(peer)

    def lose_player(self, peer: Peer, why: str) -> None:
        """Deprecated (goes in 0.6): ``session.machine.lose_player``."""
        self._moved("lose_player").lose_player(peer, why)

    def goodbye(self, reason: str) -> None:
        """Deprecated (goes in 0.6): ``session.machine.goodbye`` (then ``flush``)."""
        self._moved("goodbye").goodbye(reason)

    def datagrams_to_send(self) -> list[tuple[bytes, Address]]:
        """Deprecated (goes in 0.6): ``session.machine.datagrams_to_send`` (``flush`` sends them)."""
        return self._moved("datagrams_to_send").datagrams_to_send()

    def receive(self, data: bytes, address: Address) -> None:
        """Deprecated (goes in 0.6): ``session.machine.receive`` (``poll`` receives from the transport)."""
        self._moved("receive").receive(data, address)

    def now(self) -> float:
        """Deprecated (goes in 0.6): ``session.machine.now``."""
        return self._moved("now").now()

    def recommend_wait(self) -> int:
        """Deprecated (goes in 0.6): ``session.machine.recommend_wait``."""
        return self._moved("recommend_wait").recommend_wait()

    def settle(self) -> None:
        """Deprecated (goes in 0.6): ``session.machine.settle``."""
        self._moved("settle").settle()

    def summary(self, counters: dict[str, int]) -> str:
        """Deprecated (goes in 0.6): ``session.machine.summary``."""
        return self._moved("summary").summary(counters)

    @property
    def lobby(self) -> HostLobby | JoinLobby | None:
        """Deprecated (goes in 0.6): ``session.machine.lobby``."""
        return self._moved("lobby").lobby

    @property
    def stats(self) -> SessionStats:
        """Deprecated (goes in 0.6): ``session.machine.stats``."""
        return self._moved("stats").stats


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
