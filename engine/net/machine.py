"""One peer of a networked game as a state machine: datagrams and the time in, datagrams out (sans-IO).

``SessionMachine`` is a whole peer, from its lobby to its goodbye, with no socket, no
sleep and no clock of its own. Its owner gives it every datagram that arrived
(``receive(data, address)``), lets it act on the time once a frame (``poll()``), gives it
the frame's local input (``advance(events)``), and sends what it asks for
(``datagrams_to_send()``, as (datagram, address) pairs). The time is read from the
injected ``clock`` (``engine.clock``'s protocol): ``Session`` gives a ``RealClock`` and a
UDP socket; a test gives a ``VirtualClock`` and an in-memory network
(``engine.net.emulate.MemoryNetwork``), and a whole game over a bad network plays in
process, the same way every time. This is the design of GGRS's sessions and aioquic's
connections.

A star: the host (player 0) relays each player's input to the others; joiners (players
1..) and spectators talk only to the host. A host may play several players on its own
machine (``local_players``: 0, 1, ... on one keyboard and its pads), GGRS's local handles:
each one's input is its own player's, sent to the others like any player's. Every input is resent until acknowledged.
Peers compare the state hash of a confirmed tick every ``desync_interval`` ticks; on a
mismatch both stop, naming the tick, exchange that tick's snapshot
(``engine.net.desync``) and name the entities and fields that differ. A silent peer is
dropped (``engine.net.liveness``), and the session ends on every side saying so. A
re-simulated tick's sounds are not handed out twice.

The peer table (``peers``) is keyed by token: a peer is known by the session and its
token, never by its address. Every datagram's tag is checked first
(``engine.net.integrity``): one that fails is counted (``stats.damaged``) and never
decoded; one from a peer whose number is the newest yet moves that peer to the address it
came from (a NAT rebinding), and replies go there from then on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from engine.clock import Clock
from engine.files.game import Game
from engine.input.events import InputEvent
from engine.net.desync import DesyncExchange, start_exchange
from engine.net.integrity import frame_kind, new_id, open_hello, open_reply, read_header, reply_key, seal_reply
from engine.net.liveness import check_peers
from engine.net.lobby import LATE, HostLobby, JoinLobby, SessionError, SessionOptions, bye
from engine.net.packets import SPECTATOR, Bye, Chunk, Desync, Got, Hello, Inputs, PacketError, decode, fit_refuse
from engine.net.peers import Peer, inputs_packet
from engine.net.stats import SessionStats
from engine.net.sync import Confirmed, Sync
from engine.net.transport import Address
from engine.world import World, take_sounds
from engine.world.sounds import SoundRequest

__all__ = ["CRASHED", "LEFT", "SEND_EVERY_S", "SessionMachine"]

LEFT = "the peer closed the session"
"""A goodbye's reason when a peer leaves on purpose."""
CRASHED = "crashed: "
"""How a goodbye's reason begins when the peer's game crashed (the rest: its crash line)."""
SEND_EVERY_S = 0.01
"""The longest a peer goes without an ``Inputs`` from us (acknowledgements, pings, resends)."""


class SessionMachine:
    """One peer of a networked game, sans-IO (see the module docstring).

    Host: set ``players`` and ``seed`` (``player`` is 0; ``local_players`` the players it
    plays here, ``(0,)`` unless told), then ``open_lobby``. Joiner:
    ``joining`` is the host's address, whether to spectate and how to load a registered
    game the host names; ``open_lobby`` too. Once the lobby is done (``ready``) the world
    is built and ``advance`` plays it.
    """

    def __init__(self, game: Game | None, options: SessionOptions, *, is_host: bool, say: Callable[[str], None],
                 build: Callable[..., World], clock: Clock) -> None:
        self.game = game
        self.options = options
        self.is_host = is_host
        self.say = say
        self.clock = clock
        self._build = build
        self.world: World | None = None
        self.player: int | None = None
        self._local_players: tuple[int, ...] = ()  # set for a host that plays several; else (player,)
        self.players = 0
        self.seed = 0
        self.ms_per_update = 0.0  # the step, the host's: known after the lobby
        self.session_id = new_id() if is_host else 0
        self.peers: dict[int, Peer] = {}
        """The peer table, by token (a joiner's holds the host alone)."""
        self.departed: set[int] = set()
        """Tokens of peers gone (left the lobby, or dropped): their late datagrams are let go, uncounted."""
        self.sync: Sync | None = None
        self.stats = SessionStats()
        self.left = False  # the session ended because a peer chose to leave (Esc), not by a desync or silence
        self.ended: str | None = None  # why the session stopped early (a desync, a dropped peer, one that left)
        self.finished = False
        self.crash: str | None = None
        """This peer's game crashed, in one line: its goodbye says so."""
        self.on_confirmed: Callable[[int, tuple[tuple[InputEvent, ...], ...], str | None], None] | None = None
        """Called once per confirmed tick, in order: (tick, inputs by player, hash at recording hash ticks)."""
        self.scripts: dict[int, dict[int, list[InputEvent]]] = {}
        """Scripted local input by player, then game tick (``--input``): added to that player's input of that tick."""
        self._script: dict[int, list[InputEvent]] = {}  # ``script``: the first local player's, whoever that will be
        self.target: int | None = None
        """The last tick of a ``--ticks`` session (``engine.net.headless``), or ``None`` in frames."""
        self.finished_at: float | None = None
        """When this peer confirmed its last tick (``engine.net.headless``): it lingers a while for the others."""
        self.desync: DesyncExchange | None = None
        self.joining: tuple[Address, bool, Callable[[str], Game] | None] | None = None
        """A joiner's (host address, spectate, load): what its lobby asks for."""
        self._lobby: HostLobby | JoinLobby | None = None
        self._answers = b""  # a joiner's Hello's reply key: the host's Welcome, repeated while it waits, is tagged so
        self._pending: dict[int, list[InputEvent]] = {}
        self._their_checks: dict[tuple[int, int], str] = {}
        self._checked: tuple[int, str] | None = None
        self.final_matched: set[int] = set()
        """The players whose hash of the last tick (``sync.final_tick``) matched ours: a ``--ticks`` end waits."""
        self._sounded = 0
        self._wait_frames = 0
        self._stalled = False  # the last advance ran no tick: this peer waits for the others
        self._outbox: list[tuple[bytes, Address]] = []

    def now(self) -> float:
        """The injected clock's time, in seconds."""
        return self.clock.now_ns() / 1e9

    @property
    def local_players(self) -> tuple[int, ...]:
        """The players this peer plays: a host's 0 to N-1 when told (``Session.host(local=N)``), else ``player``
        alone; none for a spectator. ``advance`` takes each one's events."""
        if self._local_players:
            return self._local_players
        return () if self.player is None else (self.player,)

    @local_players.setter
    def local_players(self, players: tuple[int, ...]) -> None:
        self._local_players = tuple(players)

    @property
    def script(self) -> dict[int, list[InputEvent]]:
        """The first local player's scripted input by game tick, unless ``scripts`` names that player.

        It may be set before the player is known (a joiner before its welcome).
        """
        first = self.local_players[0] if self.local_players else -1
        return self.scripts.get(first, self._script)

    @script.setter
    def script(self, script: dict[int, list[InputEvent]]) -> None:
        self._script = script
        self.scripts.pop(self.local_players[0] if self.local_players else -1, None)

    def _scripted(self, player: int, tick: int) -> list[InputEvent]:
        if player in self.scripts:
            return self.scripts[player].get(tick, [])
        return self._script.get(tick, []) if player == self.local_players[0] else []

    # -- the lobby --------------------------------------------------------------------------

    def open_lobby(self, timeout_s: float) -> None:
        """Start the lobby: the host waits ``timeout_s`` for its players, a joiner as long for the host's answer."""
        if self.is_host:
            game = self.game
            assert game is not None
            self._lobby = HostLobby(session=self.session_id, game=game.name, digest=game.digest or "",
                                    players=self.players, seed=self.seed, ms_per_update=game.ms_per_update,
                                    terms=self.options, timeout_s=timeout_s, clock=self.clock, say=self.say,
                                    local=max(1, len(self.local_players)))
            return
        if self.joining is None:
            raise ValueError("a joiner's lobby needs the host's address (SessionMachine.joining)")
        address, spectate, _ = self.joining
        self.say(f"waiting for the host at {address[0]}:{address[1]} (up to {timeout_s:g} s)")
        game = self.game
        self._lobby = JoinLobby(address, game=game.name if game else "", digest=(game.digest or "") if game else "",
                                spectate=spectate, allow_mismatch=self.options.allow_game_mismatch,
                                timeout_s=timeout_s, clock=self.clock, ticks=self.options.ticks)

    @property
    def lobby(self) -> HostLobby | JoinLobby | None:
        """The lobby while it runs (``None`` before ``open_lobby`` and once the session has begun)."""
        return self._lobby

    @property
    def ready(self) -> bool:
        """Whether the lobby is done and the world built: ``advance`` plays."""
        return self.sync is not None

    def _begin(self) -> None:
        """Take the lobby's outcome (the peer table, the terms) and build the world."""
        lobby = self._lobby
        if lobby is not None:
            self._outbox.extend(lobby.datagrams_to_send())  # the host's Start goes out, not with the lobby
        if isinstance(lobby, HostLobby):
            self.stats.dropped_packets += lobby.tally.garbage  # the summary's "garbage dropped" counts the lobby's too
            self.stats.damaged += lobby.tally.damaged
            self.departed |= lobby.departed
            for joined in lobby.joined.values():
                self.add_peer(Peer(joined.address, joined.player, self.players, token=joined.token, link=joined.link,
                                   welcome=joined.welcome, answers=joined.answers))
            assert self.game is not None
            self.ms_per_update = self.game.ms_per_update
        elif isinstance(lobby, JoinLobby):
            welcomed, link = lobby.welcome, lobby.link
            assert welcomed is not None and link is not None and self.joining is not None
            load = self.joining[2]
            if self.game is None:
                if welcomed.digest or load is None:
                    raise SessionError(f"the host plays the game file {welcomed.game!r}: name it "
                                       "(tickswap join HOST:PORT FILE)", 2)
                self.game = load(welcomed.game)
            options = self.options
            if welcomed.desync_interval != options.desync_interval:
                self.say(f"the session compares state hashes every {welcomed.desync_interval} ticks (the host's "
                         f"--desync-interval), not {options.desync_interval}")
            self.options = replace(options, ticks=welcomed.ticks, desync_interval=welcomed.desync_interval)
            self.player, self.players, self.seed = welcomed.player, welcomed.players, welcomed.seed
            self.session_id = welcomed.session
            self._answers = lobby.answers
            self.stats.damaged += lobby.damaged
            self.add_peer(Peer(lobby.host, 0, self.players, token=link.token, link=link))
            self.ms_per_update = welcomed.ms_per_update
        self._lobby = None
        self.world = self._build(self.game, self.seed, self.players, self.ms_per_update)
        self.sync = Sync(self.world, players=self.players, local=self.local_players or None,
                         input_delay=self.options.input_delay,
                         max_prediction=self.options.max_prediction, desync_interval=self.options.desync_interval)
        now = self.now()
        for peer in self.peers.values():
            peer.heard, peer.max_ping_ms = now, self.options.disconnect_timeout * 1000

    # -- the peer table -----------------------------------------------------------------------

    def add_peer(self, peer: Peer) -> None:
        """Put ``peer`` in the table under its token (a token already there is a ``ValueError``)."""
        if peer.token in self.peers:
            raise ValueError(f"token {peer.token} is already in the peer table")
        self.peers[peer.token] = peer

    def remove_peer(self, peer: Peer) -> None:
        """Take ``peer`` out of the table; its datagrams still on their way are let go, uncounted."""
        self.peers.pop(peer.token, None)
        self.departed.add(peer.token)

    def _to(self, peer: Peer, body: bytes) -> None:
        """Seal ``body`` for ``peer``'s link and send it to where the peer is now."""
        assert peer.link is not None
        self._outbox.append((peer.link.seal(body), peer.address))

    def goodbye(self, reason: str) -> None:
        """Say ``Bye`` (with ``reason``) to every peer, three times: a lost goodbye costs them their timeout."""
        for peer in self.peers.values():
            for _ in range(3):
                self._to(peer, bye(self.session_id, reason))

    def datagrams_to_send(self) -> list[tuple[bytes, Address]]:
        """What to send now, in order, as (datagram, address); taken (the next call returns only what is new)."""
        if self._lobby is not None:
            self._outbox.extend(self._lobby.datagrams_to_send())
        taken, self._outbox = self._outbox, []
        return taken

    # -- once a frame -------------------------------------------------------------------

    def poll(self) -> None:
        """Act on the time: the lobby's (resends, the start), or the session's (drops, resends, a desync's swap)."""
        lobby = self._lobby
        if lobby is not None:
            lobby.poll()
            done = lobby.welcome is not None if isinstance(lobby, JoinLobby) else lobby.started
            if done:
                self._begin()
            return
        if self.sync is None or self.ended is not None:
            return
        now = self.now()
        if self.desync is not None:
            self.ended = self.desync.step(now) or self.ended  # the report, once the swap is done
            return
        check_peers(self, now)
        self._send(now)

    def advance(self, local_events: Sequence[InputEvent] | Mapping[int, Sequence[InputEvent]]) -> int:
        """Give this frame's local events and run the tick due (rollbacks re-run apart); returns ticks run.

        ``local_events``: the first local player's events, or ``{player: events}`` for several
        (a window with two players on its keyboard); a player not played here is a ``ValueError``.
        """
        sync = self.sync
        if sync is None or self.ended is not None or self.desync is not None:
            return 0
        given = local_events if isinstance(local_events, Mapping) else (
            {self.player: local_events} if local_events and self.player is not None else {})
        strangers = sorted(set(given) - set(self.local_players))
        if strangers:
            raise ValueError(f"advance: player {strangers[0]!r} is not played here (this peer plays "
                             f"{list(self.local_players)})")
        for player, events in given.items():
            self._pending.setdefault(player, []).extend(events)
        if self._wait_frames > 0:  # the time-sync recommendation: let the others catch up
            self._wait_frames -= 1
            self._stalled = True
            return 0
        self._give_local()
        rollbacks = sync.rollbacks
        ran = sync.advance()
        self._stalled = not ran
        now = self.now()
        if sync.rollbacks != rollbacks:
            self.stats.rollback_times.append(now)
        if not ran:
            self._note_wait()
        elif self.target is None and sync.current % 60 == 0:
            self._wait_frames = self.recommend_wait()
        self._confirm()
        self._send(now)
        return 1 if ran else 0

    @property
    def stalled(self) -> bool:
        """Whether the last ``advance`` ran no tick: this peer waits for the others (its owner may wait too)."""
        return self._stalled and self.sync is not None and self.ended is None

    def _give_local(self) -> None:
        sync = self.sync
        assert sync is not None
        while sync.needs_local() and (self.target is None or sync.next_local_tick <= self.target):
            tick = sync.next_local_tick
            sync.add_local({player: [*self._pending.get(player, ()), *self._scripted(player, tick)]
                            for player in self.local_players})
            self._pending = {}

    def _note_wait(self) -> None:
        sync = self.sync
        assert sync is not None
        if self.target is not None and sync.current >= self.target:
            self.stats.waiting_on = None
            return
        slowest = min(range(self.players), key=lambda p: sync.known[p])
        self.stats.waiting_on = slowest if slowest not in self.local_players else None
        if self.stats.waiting_on is not None:
            self.stats.waits[slowest] = self.stats.waits.get(slowest, 0) + 1

    def _confirm(self) -> None:
        sync = self.sync
        assert sync is not None
        for confirmed in sync.confirm():
            self._confirmed(confirmed)
        keep = min([sync.emitted + 1] + [min(peer.acks) + 1 for peer in self.peers.values()])
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
            peer = next((p for p in self.peers.values() if p.player == player), None)
            if peer is not None:
                self._start_desync(peer, tick, theirs)

    # -- receiving ----------------------------------------------------------------------

    def receive(self, data: bytes, address: Address) -> None:
        """Take one datagram that arrived from ``address``: checked whole, then used, or dropped and counted.

        In the lobby the lobby takes it (a refusal raises ``SessionError``); once the
        session has ended nothing more is read.
        """
        if self._lobby is not None:
            self._lobby.receive(data, address)
            return
        if self.sync is None or self.ended is not None:
            return
        if not data:
            return  # a late joiner's knock on the port (engine.net.session's probe): no packet, no garbage
        kind = frame_kind(data)
        if kind == b"S":
            self._from_peer(data, address)
        elif kind == b"H" and self.is_host:
            self._late_hello(data, address)
        elif kind == b"R" and not self.is_host:
            self._welcome_again(data)
        else:
            self.stats.dropped_packets += 1

    def _late_hello(self, data: bytes, address: Address) -> None:
        """A ``Hello`` after the lobby: a welcomed joiner's again (its ``Welcome`` again), or a late joiner's (refused).

        Without the refusal a late joiner would ask until its lobby timeout. One small reply
        per ``Hello``, never larger than it, so a forged sender gains nothing by it; it is
        counted as a late join, not as garbage.
        """
        body = open_hello(data)
        if body is None:
            self.stats.damaged += 1
            return
        try:
            hello = decode(body)
        except PacketError:
            self.stats.dropped_packets += 1
            return
        if not isinstance(hello, Hello):
            self.stats.dropped_packets += 1
            return
        answers = reply_key(data)
        again = next((peer for peer in self.peers.values() if peer.answers == answers), None)
        if again is not None:
            self._outbox.append((again.welcome, address))  # our Welcome was lost and the joiner asks again
            return
        answer = fit_refuse(hello.nonce, LATE, len(data) - len(seal_reply(answers, b"")))
        if answer is not None:  # a Hello too small for any Refuse is answered with nothing
            self._outbox.append((seal_reply(answers, answer), address))
        self.stats.refused_late(address, hello.nonce)

    def _welcome_again(self, data: bytes) -> None:
        """A joiner hears the host's ``Welcome`` again while the host's lobby waits for the others: it is there."""
        if open_reply(self._answers, data) is None:
            self.stats.damaged += 1
            return
        for peer in self.peers.values():
            peer.heard = self.now()

    def _from_peer(self, data: bytes, address: Address) -> None:
        header = read_header(data)
        if header is None:
            self.stats.damaged += 1
            return
        if header.session != self.session_id:
            self.stats.dropped_packets += 1  # another session's (an old one on this port)
            return
        if header.token in self.departed:
            return  # a peer gone: its last datagrams (goodbyes) arrive after it
        peer = self.peers.get(header.token)
        opened = peer.link.open(data) if peer is not None and peer.link is not None else None
        if peer is None or opened is None:
            self.stats.damaged += 1  # damaged on the way, or forged: nothing of it is read
            return
        body, newest = opened
        if newest and address != peer.address:
            self.stats.moved += 1  # its NAT rebound it: answer where it is now, and forget the old address
            peer.address = address
        try:
            packet = decode(body)
            if getattr(packet, "session", None) != self.session_id:
                raise PacketError("another session")
        except PacketError:
            self.stats.dropped_packets += 1
            return
        if isinstance(packet, (Desync, Chunk, Got)) and (peer.player is None or (
                self.desync is not None and peer.token != self.desync.token)):
            # A spectator has no state to compare; in a swap only the peer it is with may speak.
            self.stats.dropped_packets += 1
            return
        now = self.now()
        peer.heard = now
        if isinstance(packet, Inputs):
            self._take_inputs(peer, packet, now)
        elif isinstance(packet, Bye):
            self._take_bye(peer, packet.reason)
        elif isinstance(packet, (Desync, Chunk, Got)):
            if self.desync is None and isinstance(packet, Desync) and self.sync is not None:
                self._start_desync(peer, packet.tick)
            if self.desync is not None:
                self.desync.take(packet)

    def _take_inputs(self, peer: Peer, packet: Inputs, now: float) -> None:
        sync = self.sync
        assert sync is not None
        expected = SPECTATOR if peer.player is None else peer.player
        # A joiner speaks only for itself (a spectator for no one); the host for every player but this one.
        if packet.sender != expected or len(packet.acks) != self.players or not all(
                (run.player == peer.player) if self.is_host else (run.player not in self.local_players)
                for run in packet.runs):
            self.stats.dropped_packets += 1  # a peer's mix-up: nothing of it is used
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

    def _take_bye(self, peer: Peer, reason: str) -> None:
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
            self.remove_peer(peer)
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
        for peer in self.peers.values():
            if now - peer.sent < SEND_EVERY_S and not peer.behind(sync, self._send_players(peer)):
                continue
            packet = inputs_packet(sync, peer, session=self.session_id, sender=self._sender(),
                                   players=self._send_players(peer), checked=self._checked, now_ms=now * 1000,
                                   spectator=peer.player is None)
            self._to(peer, packet)
            peer.sent = now
            peer.sent_known = list(sync.known)

    def _sender(self) -> int:
        return SPECTATOR if self.player is None else self.player

    def _send_players(self, peer: Peer) -> tuple[int, ...]:
        if not self.is_host:
            return self.local_players
        return tuple(p for p in range(self.players) if p != peer.player)

    # -- the end ----------------------------------------------------------------------------

    def _end(self, why: str, *, tell: bool) -> None:
        if self.ended is None:
            self.ended = why
            if tell:
                self.goodbye(why)

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
            self.stats.refresh(list(self.peers.values()), self.sync, self.now())

    def recommend_wait(self) -> int:
        """GGRS's ``WaitRecommendation``: frames to skip when this peer runs ahead of the others (0: none)."""
        self._refresh_stats()
        return self.stats.recommend_wait()

    def summary(self, counters: dict[str, int]) -> str:
        """The ``session:`` line: rollbacks, what was dropped, ping, stalls (``counters``: the transport's)."""
        sync = self.sync
        return self.stats.summary(sync.rollbacks if sync else 0, sync.resimulated if sync else 0, counters)

    def settle(self) -> None:
        """At the end: hand out every confirmed tick, then put the world back at the last one (no prediction left)."""
        if self.sync is not None:
            self._confirm()
            self.sync.rewind_to_confirmed()

    def close(self) -> None:
        """Say goodbye to the peers (if the session has not ended) and release the world.

        When ``crash`` is set (this peer's game crashed) the others are told so (``CRASHED``),
        not that it left. The goodbyes wait in ``datagrams_to_send``.
        """
        if self.ended is None and not self.finished and self.sync is not None:
            self.goodbye(LEFT if self.crash is None else CRASHED + self.crash)
        if self.world is not None:
            self.world.close()
