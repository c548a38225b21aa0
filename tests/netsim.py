"""Sessions in one process: several ``Session``\\ s on a ``MemoryNetwork`` and one ``VirtualClock``.

Every peer is a real ``engine.net.Session`` (the driver and its state machine, lobby and
all) whose transport is an in-memory one, behind the seeded emulator when its options ask,
and whose clock is the test's. A round gives each peer what a frame would (``poll``, then
``advance``); the time moves a millisecond when some peer ran a tick, and otherwise
straight to the next datagram due (at most ``IDLE_STEP_S``): a session over 100 ms of
delay plays in a fraction of a second of real time, and the same way every time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine.clock import VirtualClock
from engine.files.importer import load_game
from engine.input.events import InputEvent
from engine.net.emulate import EmulatedTransport, MemoryNetwork, MemoryTransport
from engine.net.lobby import HostLobby, SessionOptions, build_plain
from engine.net.session import Session
from engine.world import World

GAME = load_game(str(Path(__file__).with_name("netgame.py")))
BUSY_STEP_MS = 1.0
"""A round in which a tick ran takes a millisecond (the time of a frame's work)."""
IDLE_STEP_S = 0.010
"""The longest a round with nothing to do moves the time (the sessions' timers are 10 ms and longer)."""
HOST_PORT = 7777
CODE = "TESTCD"
"""The join code of every session here unless a test gives another (``SessionOptions.code``)."""


def host_lobby(session: Session) -> HostLobby:
    """A host's lobby while it runs (typed: a test reads its table of the welcomed)."""
    lobby = session.machine.lobby
    assert isinstance(lobby, HostLobby), lobby
    return lobby


def inbox(session: Session) -> list[tuple[bytes, tuple[str, int]]]:
    """The inbox of a session's memory transport: a test puts a datagram there as if from any address."""
    transport = session.transport
    assert isinstance(transport, MemoryTransport), transport
    return transport.inbox


def coded(options: SessionOptions | None) -> SessionOptions:
    """``options`` with the join code ``CODE`` unless they name one."""
    options = options if options is not None else SessionOptions()
    return options if options.code is not None else replace(options, code=CODE)


@dataclass
class Net:
    """A memory network, its clock, and the peers on it (``said[i]``: what peer i said)."""

    clock: VirtualClock = field(default_factory=VirtualClock)
    network: MemoryNetwork = field(default_factory=MemoryNetwork)
    peers: list[Session] = field(default_factory=list)
    said: list[list[str]] = field(default_factory=list)

    def host(self, game: Any = GAME, *, players: int = 2, seed: int = 3, options: SessionOptions | None = None,
             build: Callable[..., World] = build_plain, local: int = 1) -> Session:
        """The host (port 7777), added to the peers; it plays players 0 to ``local - 1`` itself."""
        said: list[str] = []
        session = Session.host(game, players=players, seed=seed, options=coded(options), say=said.append, build=build,
                               clock=self.clock, transport=self.network.transport(HOST_PORT), local=local)
        self.peers.append(session)
        self.said.append(said)
        return session

    def join(self, game: Any = GAME, *, spectate: bool = False, options: SessionOptions | None = None,
             build: Callable[..., World] = build_plain, load: Callable[[str], Any] | None = None,
             local: int = 1) -> Session:
        """A joiner of the host at port 7777, added to the peers (``local``: the players it plays)."""
        said: list[str] = []
        session = Session.join((self.network.host, HOST_PORT), game, spectate=spectate, options=coded(options),
                               say=said.append, build=build, load=load, clock=self.clock,
                               transport=self.network.transport(), local=local)
        self.peers.append(session)
        self.said.append(said)
        return session

    def step(self, ran: bool) -> None:
        """Move the time: a millisecond after work, else to the next datagram due (``IDLE_STEP_S`` at most)."""
        if ran:
            self.clock.advance(BUSY_STEP_MS)
            return
        now = self.clock.now_ns() / 1e9
        dues = [due for peer in self.peers if isinstance(peer.transport, EmulatedTransport)
                for due in [peer.transport.next_due()] if due is not None]
        until = min([now + IDLE_STEP_S, *dues])
        self.clock.advance(max(BUSY_STEP_MS, (until - now) * 1000))

    def open(self, peers: Sequence[Session] | None = None, timeout_s: float = 60.0, rounds: int = 100_000) -> None:
        """Run every peer's lobby until ``peers`` (all by default) are ready (a lobby's error is raised)."""
        peers = list(self.peers if peers is None else peers)
        for peer in self.peers:
            if peer.machine.lobby is None and not peer.ready and not peer._closed:
                peer.open_lobby(timeout_s)
        for _ in range(rounds):
            if all(peer.ready for peer in peers):
                return
            for peer in self.peers:
                if not peer._closed:
                    peer.poll()
            self.step(False)
        raise AssertionError(f"the lobbies were not done in {rounds} rounds")

    def play_ticks(self, ticks: int, peers: Sequence[Session] | None = None, rounds: int = 2_000_000,
                   between: Callable[[int], None] | None = None) -> None:
        """Every peer plays a ``--ticks`` session of ``ticks`` to its end (as ``Session.run_ticks``), each then closed.

        ``between(round)`` is called after every round (a test's meddling: a rebinding, a forged datagram).
        """
        playing = list(self.peers if peers is None else peers)
        for peer in playing:
            peer.start_ticks(ticks)
        for count in range(rounds):
            if not playing:
                return
            ran = False
            for peer in list(playing):
                if peer._closed:  # killed (``kill``): it says nothing more
                    playing.remove(peer)
                    continue
                ran = bool(peer.step_ticks()) or ran
                if peer.over:
                    peer.close()
                    playing.remove(peer)
            if between is not None:
                between(count)
            self.step(ran)
        raise AssertionError(f"the session did not end in {rounds} rounds")

    def play_session(self, ticks: int, rounds: int = 2_000_000, between: Callable[[int], None] | None = None) -> None:
        """As ``play_ticks`` for every peer, and peers added while it plays (``between``) join the running session.

        A peer added later runs its lobby (``poll``) until ready (caught up), then plays
        its ``--ticks`` session like the others (``start_ticks``). Ends when every peer is
        over (or killed); a lobby's error is raised.
        """
        started: set[int] = set()
        for peer in self.peers:
            peer.start_ticks(ticks)
            started.add(id(peer))
        for count in range(rounds):
            ran = False
            active = 0
            for peer in list(self.peers):
                if peer._closed:
                    continue
                active += 1
                if id(peer) not in started:
                    if peer.machine.lobby is None and not peer.ready:
                        peer.open_lobby(60.0)
                    peer.poll()
                    if peer.ready:
                        peer.start_ticks(ticks)
                        started.add(id(peer))
                    continue
                ran = bool(peer.step_ticks()) or ran
                if peer.over:
                    peer.close()
            if between is not None:
                between(count)
            if not active:
                return
            self.step(ran)
        raise AssertionError(f"the session did not end in {rounds} rounds")

    def kill(self, peer: Session) -> None:
        """Stop ``peer`` as SIGKILL would: its port closes, no goodbye is said, it is never polled again."""
        peer.transport.close()
        peer._closed = True

    def rejoining(self, peer: Session, options: SessionOptions, script: Any,
                  at: int = 150) -> tuple[Callable[[int], None], list[Session]]:
        """A ``between`` for ``play_session`` that kills ``peer`` at round ``at`` and, once the host has dropped
        it, joins again with its rejoin code playing ``script``; the list holds that new session once joined."""
        host, code, seat = self.peers[0], peer.rejoin_code, peer.player
        back: list[Session] = []

        def meddle(round_: int) -> None:
            if round_ == at:
                self.kill(peer)
            if round_ > at and seat in host.machine.dropped and not back:
                again = self.join(options=replace(options, rejoin=code))
                again.script = script
                back.append(again)

        return meddle, back

    def play_frames(self, frames: int,
                    inputs: Callable[[int, int], Sequence[InputEvent] | Mapping[int, Sequence[InputEvent]]] | None = None,
                    until: Callable[[], bool] | None = None) -> None:
        """``frames`` rounds of a session in frames (as a window drives one), or fewer once ``until()`` holds."""
        for frame in range(frames):
            ran = False
            for index, peer in enumerate(self.peers):
                if peer._closed:
                    continue
                peer.poll()
                ran = bool(peer.advance(inputs(index, frame) if inputs else ())) or ran
            if until is not None and until():
                return
            self.step(ran)


def reference(ticks: int, scripts: Sequence[dict[int, list[InputEvent]]], *, seed: int = 3, game: Any = GAME) -> str:
    """The state hash of ``ticks`` ticks played in one world with every player's script (the offline run)."""
    return offline(ticks, scripts, seed=seed, game=game).hash


@dataclass
class Offline:
    """What an offline run ended with: its state hash and each player's last ``connected``."""

    hash: str
    connected: list[bool]


def offline(ticks: int, scripts: Sequence[dict[int, list[InputEvent]]], *, seed: int = 3, game: Any = GAME
            ) -> Offline:
    """``ticks`` ticks played in one world with every player's script (the offline run)."""
    with World(seed=seed, ms_per_update=game.ms_per_update, players=len(scripts)) as world:
        game.build(world)
        for tick in range(1, ticks + 1):
            for player, script in enumerate(scripts):
                for event in script.get(tick, ()):
                    world.input_queue_of(player).push(event)
            world.tick()
        return Offline(world.state_hash(), [world.input_of(player).connected for player in range(len(scripts))])
