"""``engine.net.Session``: a game played by several peers over UDP, with rollback (``engine.net.sync``).

A star: the host (player 0) relays each player's input to the others; joiners (players
1..) and spectators talk only to the host. A render loop drives a session once a frame:
``poll()`` receives, validates and applies every datagram and sends what each peer lacks
(a non-blocking stdlib socket: no threads, no asyncio), and ``advance(local_events)`` runs
the tick due. Every input is resent until acknowledged. Headless sessions call ``run_ticks(n)``.
Peers compare the state hash of a confirmed tick every ``desync_interval`` ticks; on a
mismatch both stop, naming the tick, exchange that tick's snapshot (``engine.net.desync``)
and name the entities and fields that differ. A silent peer is dropped, and the session
ends on every side saying so. A re-simulated tick's sounds are not handed out twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from engine.files.game import Game
from engine.input.events import InputEvent
from engine.net import lobby
from engine.net.desync import DesyncExchange, start_exchange
from engine.net.liveness import check_peers
from engine.net.lobby import SessionError, SessionOptions, build_plain, bye
from engine.net.packets import SPECTATOR, Bye, Chunk, Desync, Got, Hello, Inputs, PacketError, decode
from engine.net.peers import Peer, inputs_packet
from engine.net.stats import SessionStats
from engine.net.sync import Confirmed, Sync
from engine.world import World, take_sounds
from engine.world.sounds import SoundRequest

__all__ = ["Session", "SessionError", "SessionOptions", "SessionStats"]

LEFT = "the peer closed the session"  # a goodbye's reason when a peer leaves on purpose
CRASHED = "crashed: "
"""How a goodbye's reason begins when the peer's game crashed (the rest: its crash line)."""
SEND_EVERY_S = 0.01
"""The longest a peer goes without an ``Inputs`` from us (acknowledgements, pings, resends)."""


class Session:
    """One peer of a networked game. Make one with ``Session.host`` or ``Session.join``, then ``wait_ready``."""

    def __init__(self, transport: Any, game: Game | None, options: SessionOptions, *, is_host: bool,
                 say: Callable[[str], None], build: Callable[..., World]) -> None:
        self.transport = transport
        self.game = game
        self.options = options
        self.is_host = is_host
        self.say = say
        self._build = build
        self.world: World | None = None
        self.player: int | None = None
        self.players = 0
        self.seed = 0
        self.ms_per_update = 0.0  # the step, the host's: known after the lobby
        self.session_id = 0
        self.peers: list[Peer] = []
        self.sync: Sync | None = None
        self.stats = SessionStats()
        self.left = False  # the session ended because a peer chose to leave (Esc), not by a desync or silence
        self.ended: str | None = None  # why the session stopped early (a desync, a dropped peer, one that left)
        self.finished = False
        self.crash: str | None = None
        """This peer's game crashed, in one line: its goodbye says so."""
        self.on_confirmed: Callable[[int, tuple[tuple[InputEvent, ...], ...], str | None], None] | None = None
        """Called once per confirmed tick, in order: (tick, inputs by player, hash at recording hash ticks)."""
        self.script: dict[int, list[InputEvent]] = {}
        """Scripted local input by game tick (``--input``): added to the local input of that tick."""
        self.target: int | None = None
        self.desync: DesyncExchange | None = None
        self._pending: list[InputEvent] = []
        self._their_checks: dict[tuple[int, int], str] = {}
        self._checked: tuple[int, str] | None = None
        self.final_matched: set[int] = set()
        """The players whose hash of the last tick (``sync.final_tick``) matched ours: a ``--ticks`` end waits."""
        self._sounded = 0
        self._wait_frames = 0
        self._stalled = False  # the last advance ran no tick: this peer waits for the others
        self._lobby: Any = None

    # -- making one ---------------------------------------------------------------------

    @classmethod
    def host(cls, game: Game, *, players: int, seed: int = 0, port: int = 7777, bind: str = "127.0.0.1",
             options: SessionOptions | None = None, say: Callable[[str], None] = print,
             build: Callable[..., World] = build_plain) -> Session:
        """Host ``game`` for ``players`` players on ``bind:port`` (0: any free port; see ``address``)."""
        options = options or SessionOptions()
        session = cls(lobby.open_transport(bind, port, options), game, options, is_host=True, say=say, build=build)
        session.players, session.seed, session.player = players, seed, 0
        session.session_id = lobby.new_session_id()
        return session

    @classmethod
    def join(cls, address: tuple[str, int], game: Game | None, *, spectate: bool = False,
             options: SessionOptions | None = None, say: Callable[[str], None] = print,
             build: Callable[..., World] = build_plain, load: Callable[[str], Game] | None = None) -> Session:
        """Join the host at ``address`` with ``game`` (``None``: the registered game the host names, via ``load``)."""
        options = options or SessionOptions()
        bind = "127.0.0.1" if address[0] in ("127.0.0.1", "localhost") else "0.0.0.0"
        session = cls(lobby.open_transport(bind, 0, options), game, options, is_host=False, say=say, build=build)
        session._lobby = (address, spectate, load)
        return session

    @property
    def address(self) -> tuple[str, int]:
        """Where this peer's socket is bound (the port a host on port 0 got)."""
        host, port = self.transport.address
        return str(host), int(port)

    def wait_ready(self, timeout_s: float | None = None) -> None:
        """The lobby (blocking): the host waits for its players, a joiner for its welcome; then the world is built."""
        lobby.enter(self, self.options.lobby_timeout if timeout_s is None else timeout_s)
        self.world = self._build(self.game, self.seed, self.players, self.ms_per_update)
        self.sync = Sync(self.world, players=self.players, local=self.player, input_delay=self.options.input_delay,
                         max_prediction=self.options.max_prediction, desync_interval=self.options.desync_interval)
        now = time.monotonic()
        for peer in self.peers:
            peer.heard, peer.max_ping_ms = now, self.options.disconnect_timeout * 1000

    # -- once a frame -------------------------------------------------------------------

    def poll(self) -> None:
        """Receive, validate and apply every datagram waiting; send each peer what it lacks. Never blocks."""
        if self.sync is None or self.ended is not None:
            return
        now = time.monotonic()
        for data, address in self.transport.receive():
            self._receive(data, address, now)
        if self.desync is not None:
            self.ended = self.desync.step(now) or self.ended  # the report, once the swap is done
            return
        check_peers(self, now)
        self._send(now)

    def idle(self, timeout_s: float) -> None:
        """While this peer waits for the others, wait up to ``timeout_s`` of real time for their datagrams.

        An off-screen frame takes no real time: a waiting peer would spin through its
        ``--frames`` in a blink, on the core the others need. At once after a tick ran.
        """
        if self._stalled and self.sync is not None and self.ended is None and timeout_s > 0:
            self.transport.wait(timeout_s)

    def advance(self, local_events: Sequence[InputEvent]) -> int:
        """Give this frame's local events and run the tick due (rollbacks re-run apart); returns ticks run."""
        sync = self.sync
        if sync is None or self.ended is not None or self.desync is not None:
            return 0
        self._pending.extend(local_events)
        if self._wait_frames > 0:  # the time-sync recommendation: let the others catch up
            self._wait_frames -= 1
            self._stalled = True
            return 0
        self._give_local()
        rollbacks = sync.rollbacks
        ran = sync.advance()
        self._stalled = not ran
        if sync.rollbacks != rollbacks:
            self.stats.rollback_times.append(time.monotonic())
        if not ran:
            self._note_wait()
        elif self.target is None and sync.current % 60 == 0:
            self._wait_frames = self.recommend_wait()
        self._confirm()
        self._send(time.monotonic())
        return 1 if ran else 0

    def _give_local(self) -> None:
        sync = self.sync
        assert sync is not None
        while sync.needs_local() and (self.target is None or sync.next_local_tick <= self.target):
            tick = sync.next_local_tick
            sync.add_local([*self._pending, *self.script.get(tick, ())])
            self._pending = []

    def _note_wait(self) -> None:
        sync = self.sync
        assert sync is not None
        if self.target is not None and sync.current >= self.target:
            self.stats.waiting_on = None
            return
        slowest = min(range(self.players), key=lambda p: sync.known[p])
        self.stats.waiting_on = slowest if slowest != self.player else None
        if self.stats.waiting_on is not None:
            self.stats.waits[slowest] = self.stats.waits.get(slowest, 0) + 1

    def _confirm(self) -> None:
        sync = self.sync
        assert sync is not None
        for confirmed in sync.confirm():
            self._confirmed(confirmed)
        keep = min([sync.emitted + 1] + [min(peer.acks) + 1 for peer in self.peers])
        sync.forget_before(keep)

    def _confirmed(self, confirmed: Confirmed) -> None:
        sync = self.sync
        assert sync is not None
        tick = confirmed.tick
        if sync.is_check_tick(tick):
            digest = sync.confirmed_hash(tick)
            if digest is not None:
                self._checked = (tick, digest[:16])
                sync.forget_hashes_before(tick)
                for (player, their_tick), theirs in list(self._their_checks.items()):
                    if their_tick == tick:
                        self._compare(player, tick, theirs)
        if self.on_confirmed is not None:
            self.on_confirmed(tick, confirmed.inputs, confirmed.digest)

    def _compare(self, player: int, tick: int, theirs: str) -> None:
        self._their_checks.pop((player, tick), None)
        mine = self._checked[1] if self._checked is not None and self._checked[0] == tick else None
        if mine is not None and mine == theirs and self.sync is not None and tick == self.sync.final_tick:
            self.final_matched.add(player)
        if mine is not None and mine != theirs and self.desync is None:
            peer = next((p for p in self.peers if p.key == player), None)
            if peer is not None:
                self._start_desync(peer, tick, theirs)

    # -- receiving ----------------------------------------------------------------------

    def _receive(self, data: bytes, address: Any, now: float) -> None:
        peer = next((p for p in self.peers if p.address == address), None)
        late = lobby.refuse_late(self.transport, data, address) if peer is None and self.is_host else False
        if isinstance(late, Hello):
            self.stats.refused_late(address, late.nonce)  # a refused join, said in the session's line
        if late:
            return
        try:
            if peer is None:
                raise PacketError("an unknown sender")
            packet = decode(data)
            if getattr(packet, "session", None) != self.session_id and not isinstance(packet, Hello):
                raise PacketError("another session")
        except PacketError:
            self.stats.dropped_packets += 1
            return
        if isinstance(packet, (Desync, Chunk, Got)) and (peer.player is None or (
                self.desync is not None and peer.address != self.desync.address)):
            # A spectator has no state to compare; in a swap only the peer it is with may speak.
            self.stats.dropped_packets += 1
            return
        peer.heard = now
        if isinstance(packet, Inputs):
            self._take_inputs(peer, packet, now)
        elif isinstance(packet, Bye):
            self._takebye(peer, packet.reason)
        elif isinstance(packet, (Desync, Chunk, Got)):
            if self.desync is None and isinstance(packet, Desync) and self.sync is not None:
                self._start_desync(peer, packet.tick)
            if self.desync is not None:
                self.desync.take(packet)
        elif isinstance(packet, Hello) and peer.welcome:
            self.transport.send(peer.welcome, address)  # our Welcome was lost and the joiner asks again

    def _take_inputs(self, peer: Peer, packet: Inputs, now: float) -> None:
        sync = self.sync
        assert sync is not None
        expected = SPECTATOR if peer.player is None else peer.player
        # A joiner speaks only for itself (a spectator for no one); the host for every player but this one.
        if packet.sender != expected or len(packet.acks) != self.players or not all(
                (run.player == peer.player) if self.is_host else (run.player != self.player) for run in packet.runs):
            self.stats.dropped_packets += 1  # a spoof or a mix-up: nothing of it is used
            return
        for run in packet.runs:
            cut = sync.cut_off
            sync.add_remote(run.player, run.first, run.last, dict(run.events))
            if sync.cut_off != cut:
                self.stats.dropped_packets += 1  # a run far past our own tick: a flood, kept out of memory
        peer.take(packet, now, sync.known)
        self.stats.took_ping(peer.last_ping_ms if packet.echo > 0 else None)
        if packet.checked is not None and peer.player is not None:
            self._take_check(peer.player, *packet.checked)

    def _take_check(self, player: int, tick: int, theirs: str) -> None:
        sync = self.sync
        assert sync is not None
        if self._checked is not None and self._checked[0] == tick:
            self._compare(player, tick, theirs)
        elif tick > sync.emitted and sync.is_check_tick(tick) and len(self._their_checks) < 16:
            self._their_checks[(player, tick)] = theirs  # a tick no peer checks is never compared: not kept

    def _takebye(self, peer: Peer, reason: str) -> None:
        if reason == "done" or reason.startswith("done "):
            peer.done = True
            final = reason.split()[1:]  # the host's hash of the last tick rides on its goodbye
            if len(final) == 2 and final[0].isdigit() and peer.player is not None and self.sync is not None:
                self._take_check(peer.player, int(final[0]), final[1])
            if not self.is_host and self.sync is not None and self.target is not None \
                    and self.sync.emitted >= self.target and self.desync is None:
                self.finished = True
            return
        if peer.player is None:
            self.say(f"the spectator at {peer.address[0]}:{peer.address[1]} left: {reason}")
            self.peers.remove(peer)
            return
        crashed = reason.startswith(CRASHED)
        # A relayed goodbye ("player 2 left: ...") is a leave too: leaving is no failure, on any side.
        self.left = reason == LEFT or reason.endswith(f" left: {LEFT}")
        if crashed:
            reason = f"player {peer.player}'s game crashed: {reason[len(CRASHED):]}"
        elif self.is_host or reason == LEFT:
            reason = f"{'the host' if peer.player == 0 else f'player {peer.player}'} left: {reason}"
        self._end(reason, tell=True)

    # -- sending ------------------------------------------------------------------------

    def _send(self, now: float) -> None:
        sync = self.sync
        assert sync is not None
        for peer in self.peers:
            if now - peer.sent < SEND_EVERY_S and not peer.behind(sync, self._send_players(peer)):
                continue
            packet = inputs_packet(sync, peer, session=self.session_id, sender=self._sender(),
                                   players=self._send_players(peer), checked=self._checked, now_ms=now * 1000,
                                   spectator=peer.player is None)
            self.transport.send(packet, peer.address)
            peer.sent = now
            peer.sent_known = list(sync.known)

    def _sender(self) -> int:
        return SPECTATOR if self.player is None else self.player

    def _send_players(self, peer: Peer) -> tuple[int, ...]:
        if not self.is_host:
            return () if self.player is None else (self.player,)
        return tuple(p for p in range(self.players) if p != peer.player)

    # -- time, silence, the end ---------------------------------------------------------

    def _end(self, why: str, *, tell: bool) -> None:
        if self.ended is None:
            self.ended = why
            if tell:
                for peer in self.peers:
                    for _ in range(3):
                        self.transport.send(bye(self.session_id, why), peer.address)

    def _start_desync(self, peer: Peer, tick: int, theirs: str | None = None) -> None:
        assert self.sync is not None
        mine = self._checked[1] if self._checked is not None and self._checked[0] == tick else None
        self.desync = start_exchange(self, peer, tick, self.sync.snapshots.get(tick), (mine, theirs))

    def take_sounds(self) -> list[SoundRequest]:
        """The sounds of ticks not handed out before: a re-simulated tick's sounds are dropped, not played twice."""
        if self.world is None:
            return []
        fresh = [request for request in take_sounds(self.world) if request.tick > self._sounded]
        self._sounded = max([self._sounded, *(request.tick for request in fresh)])
        return fresh

    def hud_text(self) -> str:
        """One short line for the HUD: ping, frames ahead, rollbacks a second, who is waited on."""
        self._refresh_stats()
        return self.stats.hud_text()

    def _refresh_stats(self) -> None:
        if self.sync is not None:
            self.stats.refresh(self.peers, self.sync, time.monotonic())

    def recommend_wait(self) -> int:
        """GGRS's ``WaitRecommendation``: frames to skip when this peer runs ahead of the others (0: none)."""
        self._refresh_stats()
        return self.stats.recommend_wait()

    def run_ticks(self, ticks: int) -> None:
        """Headless: run ``ticks`` confirmed ticks as fast as the network allows, then finish together."""
        from engine.net.headless import run_ticks

        run_ticks(self, ticks)

    def settle(self) -> None:
        """At the end: hand out every confirmed tick, then put the world back at the last one (no prediction left)."""
        if self.sync is not None:
            self._confirm()
            self.sync.rewind_to_confirmed()

    def close(self) -> None:
        """Say goodbye to the peers (if the session has not ended) and release the socket and the world.

        When ``crash`` is set (this peer's game crashed) the others are told so (``CRASHED``),
        not that it left.
        """
        if self.ended is None and not self.finished and self.sync is not None:
            reason = LEFT if self.crash is None else CRASHED + self.crash
            for peer in self.peers:
                for _ in range(3):  # a lost goodbye would cost the others their --disconnect-timeout
                    self.transport.send(bye(self.session_id, reason), peer.address)
        self.transport.close()
        if self.world is not None:
            self.world.close()


