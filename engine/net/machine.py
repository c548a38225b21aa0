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
dropped (``engine.net.liveness``). A re-simulated tick's sounds are not handed out twice.

Sessions that survive a drop. In a session of 3 players or more, a player the host drops
(silent, too far behind, or gone with a goodbye) does not end it: the host writes that
player's input from then on, as it relays everyone's: a ``"disconnect"`` event at the tick
after the last input it holds of that player, then nothing. Every peer gets that input
from the host like any other, so all agree at which tick the player went, and a recording
holds it (``TickInput.connected`` is false from there). Within ``rejoin_window`` seconds
the player may come back: a fresh join that proves, with the secret drawn at its first
join (its rejoin code), that it is that player; the host gives it the seat back with a
``"connect"`` at the tick after the last input it wrote for it. A spectator may join a
running session too. Both start from the host's last confirmed tick, sent as a save, and
the input since (``engine.net.catchup``), and end on the same hashes as everyone. In a
session of 2 a drop still ends it (no one is left to play with), and so does the host's
(the star's centre: nobody relays without it). The host may change the input delay of
every peer at an agreed tick (``set_input_delay``); every peer's recording says so.

The peer table (``peers``) is keyed by token: a peer is known by the session and its
token, never by its address. Every datagram's tag is checked first
(``engine.net.integrity``): one that fails is counted (``stats.damaged``) and never
decoded; one from a peer whose number is the newest yet moves that peer to the address it
came from (a NAT rebinding), and replies go there from then on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from engine.clock import Clock
from engine.constants import MAX_INPUT_DELAY
from engine.files.game import Game
from engine.input.events import PRESENCE, InputEvent
from engine.json_events import emit
from engine.net.catchup import CatchupSend, pack
from engine.net.catchup import Start as CatchStart
from engine.net.checks import MAX_DELAYS
from engine.net.cookies import Cookies
from engine.net.desync import DesyncExchange, start_exchange
from engine.net.integrity import (
    REJOIN_CODE_HEX,
    Link,
    Pake,
    confirmation,
    frame_kind,
    link_keys,
    new_id,
    open_reply,
    proof_holds,
    read_rejoin_code,
    rejoin_code,
    rejoin_secret,
    reply_key,
    seal_reply,
)
from engine.net.liveness import check_peers
from engine.net.lobby import (
    GUESSING,
    LATE,
    MAX_SPECTATORS,
    HostLobby,
    JoinLobby,
    SessionError,
    SessionOptions,
    bye,
    open_from_peer,
    players_named,
    read_proven_hello,
    refusal,
)
from engine.net.packets import (
    SPECTATOR,
    Bye,
    Catchup,
    Caught,
    Chunk,
    Desync,
    Got,
    Hello,
    Inputs,
    PacketError,
    Run,
    Welcome,
    decode,
    encode,
    fit_refuse,
)
from engine.net.peers import Peer, inputs_packet
from engine.net.refusals import GuessBudget, LineBudget
from engine.net.rendezvous import new_code
from engine.net.stats import SessionStats
from engine.net.sync import Confirmed, Sync
from engine.net.transport import Address
from engine.world import World, system_count, take_sounds
from engine.world.save import SaveError, load_world_text, save_text
from engine.world.sounds import SoundRequest

__all__ = ["CRASHED", "DELAY_LEAD", "LEFT", "NO_SEAT", "SEND_EVERY_S", "Seat", "SessionMachine"]

LEFT = "the peer closed the session"
"""A goodbye's reason when a peer leaves on purpose."""
CRASHED = "crashed: "
"""How a goodbye's reason begins when the peer's game crashed (the rest: its crash line)."""
SEND_EVERY_S = 0.01
"""The longest a peer goes without an ``Inputs`` from us (acknowledgements, pings, resends)."""
DELAY_LEAD = 64
"""How many ticks past the host's own input an input delay change takes effect at the soonest.

No peer can have run that far: a peer runs at most its prediction window (60 at most from
the command line) past the host's input it holds, and the change rides on every datagram
that carries the host's input from then on, so every peer hears of it before the tick."""
NO_SEAT = "no dropped player of this session has that rejoin code"
"""The refusal of a rejoin whose code is wrong: the same whether its token or its proof is."""
_DISCONNECT = (InputEvent("disconnect"),)
_CONNECT = (InputEvent("connect"),)


@dataclass
class Seat:
    """A player the host dropped from a session that goes on: its old token, rejoin secret, when and at which tick."""

    player: int
    token: int
    secret: bytes
    since: float
    tick: int
    """The tick of its ``"disconnect"``: the game reads it as disconnected from there."""
    closed: bool = False
    """The rejoin window has passed (said once): the seat stays empty."""


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
        self.dropped: dict[int, Seat] = {}
        """The host's: players dropped from a session that goes on, by player; the host writes their input."""
        self.on_delay: Callable[[int, int], None] | None = None
        """Called when a confirmed tick is the first of an agreed input delay (tick, delay), before ``on_confirmed``."""
        self.delay_changes: dict[int, int] = {}
        """The input delay changes agreed this session (the host's, told to every peer): ``{from tick: delay}``."""
        self.origin = 0
        """The tick the session began at (its ``--ticks`` count from there): a late joiner starts later."""
        self.late = False
        """This peer joined the session while it ran (a late spectator, or a player rejoining)."""
        if is_host and not options.code:
            self.options = options = replace(options, code=new_code())  # a host draws its join code, and says it
        self.guesses = GuessBudget(self.now())
        """The host's bound on key exchanges, each an online guess at the join code (``refusals.GuessBudget``)."""
        self.spectator_lines = LineBudget(say, self.now())
        """Lines about spectators that come and go, rate-limited (``engine.net.refusals.LineBudget``)."""
        self.cookies = Cookies()
        """The host's address proofs (``engine.net.cookies``): its lobby and its running session ask every joiner's."""
        self._build_adds_systems: bool | None = None
        self._built_apart = False  # the game's build has run in a world apart (_build_apart)
        self._returning: dict[int, int | None] = {}
        """The host's rejoined players not yet heard playing, by player: the tick their "connect" was confirmed
        (``None``: not yet). A rejoiner proves it is back with its first input, sent once its world is loaded:
        until then the host does not say it is back (its new process may fail to load, and exit)."""
        self._caught: bytes | None = None  # a late joiner's last Caught, said again if the host sends a piece again
        self._refused_rejoins: set[tuple[Address, int]] = set()
        self.rejoin_secret = b""
        """A joiner's: the secret of its rejoin code (``rejoin_code``), drawn at its join."""
        self.seats = 1
        """A joiner's: how many players it plays on this machine (``Session.join(local=N)``): the seats its ``Hello``
        asks for, side by side; once welcomed, ``local_players`` are they."""

    def now(self) -> float:
        """The injected clock's time, in seconds."""
        return self.clock.now_ns() / 1e9

    @property
    def local_players(self) -> tuple[int, ...]:
        """The players this peer plays: a host's 0 to N-1 when told (``Session.host(local=N)``), a joiner's seats
        once welcomed (``Session.join(local=N)``), else ``player`` alone; none for a spectator. ``advance`` takes
        each one's events."""
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
                                    local=max(1, len(self.local_players)), cookies=self.cookies,
                                    lines=self.spectator_lines, guesses=self.guesses, counts=self.stats)
            return
        if self.joining is None:
            raise ValueError("a joiner's lobby needs the host's address (SessionMachine.joining)")
        address, spectate, _ = self.joining
        rejoin = None
        if self.options.rejoin is not None:
            rejoin = read_rejoin_code(self.options.rejoin)
            if rejoin is None:
                raise ValueError(f"a rejoin code is {REJOIN_CODE_HEX} hex digits (said when the player first joined), "
                                 f"got {self.options.rejoin!r}")
            if spectate:
                raise ValueError("a spectator has no seat to rejoin: a rejoin code is a player's")
        if (spectate or rejoin is not None) and self.game is not None:
            self._build_apart(0, self.game.players.start)  # it joins a running session: see _build_apart
        self.say(f"waiting for the host at {address[0]}:{address[1]} (up to {timeout_s:g} s)")
        game = self.game
        self._lobby = JoinLobby(address, game=game.name if game else "", digest=(game.digest or "") if game else "",
                                spectate=spectate, allow_mismatch=self.options.allow_game_mismatch,
                                timeout_s=timeout_s, clock=self.clock, ticks=self.options.ticks, rejoin=rejoin,
                                code=self.options.code or "", counts=self.stats, seats=self.seats)

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
        start: CatchStart | None = None
        if isinstance(lobby, HostLobby):
            self.departed |= lobby.departed
            for joined in lobby.joined.values():
                self.add_peer(Peer(joined.address, joined.player, self.players, token=joined.token, link=joined.link,
                                   welcome=joined.welcome, answers=joined.answers,
                                   rejoin_secret=joined.rejoin_secret, seats=joined.seats))
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
            if welcomed.player is not None and welcomed.seats > 1:
                self.local_players = tuple(range(welcomed.player, welcomed.player + welcomed.seats))
            self.session_id = welcomed.session
            self._answers = lobby.answers
            self.add_peer(Peer(lobby.host, 0, self.players, token=link.token, link=link))
            self.ms_per_update = welcomed.ms_per_update
            self.rejoin_secret = lobby.rejoin_secret
            start = lobby.start
            if lobby.catching is not None:
                self._caught = lobby.catching.caught()
        self._lobby = None
        if start is None:
            self.world = self._build(self.game, self.seed, self.players, self.ms_per_update)
        else:
            self.world = self._load(start)
        self.sync = Sync(self.world, players=self.players, local=self.local_players or None,
                         input_delay=self.options.input_delay,
                         max_prediction=self.options.max_prediction, desync_interval=self.options.desync_interval)
        self.origin = self.sync.start
        if start is not None:
            self._catch_up(start)
        now = self.now()
        for peer in self.peers.values():
            peer.heard, peer.max_ping_ms = now, self.options.disconnect_timeout * 1000
            # The host holds everything a late joiner started with (it sent it): never sent back to it.
            peer.acks = list(self.sync.known)

    def _load(self, start: CatchStart) -> World:
        """A late joiner's world: the host's save of its last confirmed tick, checked whole, then the game's systems."""
        game = self.game
        assert game is not None
        where = f"the host's world of tick {start.tick}"
        ms_per_update = self.ms_per_update

        def make(**kwargs: object) -> World:
            return World(ms_per_update=ms_per_update, **kwargs)  # type: ignore[arg-type]
        self._build_apart(self.seed, self.players)
        try:
            world = load_world_text(start.save, where, game, world_class=make)
        except SaveError as error:
            raise SessionError(f"{error}: this peer can't join the running session") from None
        if world.players != self.players:
            world.close()
            raise SessionError(f"{where} has {world.players} players, the session {self.players}")
        game.add_systems(world)
        return world

    def _build_apart(self, seed: int, players: int) -> None:
        """Run the game's build once, in a world apart, before a late joiner loads the host's save.

        As ``tickswap run --load`` does: what ``build`` prepares in this process is then there
        for the save, which names it by content, never by a path (the maps it reads with
        ``TileMap.load``: a save's map is found among them). A spectator or a rejoiner does it
        before it asks the host (``open_lobby``): the host hears from it all through its
        catch-up, never a silence while a map is read.
        """
        game = self.game
        if self._built_apart or game is None:
            return
        with World(seed=seed, ms_per_update=self.ms_per_update or game.ms_per_update, players=players) as apart:
            apart.view_size = game.view_size
            game.build(apart)
        self._built_apart = True

    def _catch_up(self, start: CatchStart) -> None:
        """A late joiner's ``Sync``, from the catch-up: every player's input since its tick, the delays agreed."""
        sync = self.sync
        assert sync is not None
        for run in start.runs:
            sync.preload(run.player, run.first, run.last, dict(run.events))
        if start.input_delay is not None and self.player is not None:
            sync.input_delay = start.input_delay
        for tick, delay in start.delays:
            self._agree_delay(tick, delay)
        self.late = True
        self.origin = 0  # the session's --ticks count from its first tick, which the host played

    @property
    def rejoin_code(self) -> str | None:
        """This player's rejoin code (a joiner's, once welcomed): what a new process gives to take the seat back.

        ``None`` for the host and spectators. It holds the secret drawn at this join: whoever
        has it can take this seat once the host has dropped it, so it is shown to its player only.
        """
        if self.is_host or self.player is None or not self.rejoin_secret or len(self.local_players) > 1:
            return None  # a joiner of several seats is not given one: a rejoin takes back one seat
        host = next(iter(self.peers.values()), None)
        if host is None or host.link is None:
            return None
        return rejoin_code(host.link.token, self.rejoin_secret)

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
            done = lobby.done if isinstance(lobby, JoinLobby) else lobby.started
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
        self.spectator_lines.tick(now)
        if self.dropped:
            self._close_seats(now)
        self._send(now)

    def advance(self, local_events: Sequence[InputEvent] | Mapping[int, Sequence[InputEvent]],
                elapsed_ms: float | None = None) -> int:
        """Give this frame's local events and run the tick due (rollbacks re-run apart); returns ticks run.

        ``local_events``: the first local player's events, or ``{player: events}`` for several
        (a window with two players on its keyboard); a player not played here is a ``ValueError``.
        ``elapsed_ms`` (a variable-step loop's tick length) is not used: the peers agree on the fixed step.
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
        self._author()
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

    def _author(self) -> None:
        """The host writes a dropped player's input: nothing, up to its own input (its ``"disconnect"`` came first)."""
        sync = self.sync
        if not self.dropped or sync is None or self.player is None:
            return
        upto = sync.known[self.player]
        if self.target is not None:
            upto = min(upto, self.target)
        for player in self.dropped:
            if sync.known[player] < upto:
                sync.add_remote(player, sync.known[player] + 1, upto, {})

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
        delay = self.delay_changes.get(tick)
        if delay is not None:
            self.say(f"the input delay is {delay} from tick {tick} (the host's change, on every peer)")
            if self.on_delay is not None:
                self.on_delay(tick, delay)
        for player, events in enumerate(confirmed.inputs):
            for event in events:
                if event.type in PRESENCE:
                    self._said_presence(player, event.type, tick)
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

    def _said_presence(self, player: int, kind: str, tick: int) -> None:
        """Say a confirmed ``"disconnect"`` or ``"connect"``: every peer says it at the same tick."""
        who = f"this peer (player {player})" if player in self.local_players else f"player {player}"
        emit("peer", player=player, tick=tick, connected=kind != "disconnect")
        if kind == "disconnect":
            self.say(f"{who} is disconnected from tick {tick}: the game reads it as disconnected "
                     "(world.input_of(player).connected is false)")
        elif player in self._returning:
            self._returning[player] = tick  # said when its first input comes (_take_inputs), if it comes
        else:
            self.say(f"{who} is back from tick {tick}")

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
        elif kind in (b"H", b"C") and self.is_host:
            self._late_hello(data, address)
        elif kind == b"R" and not self.is_host:
            self._welcome_again(data)
        else:
            self.stats.garbage += 1

    def _late_hello(self, data: bytes, address: Address) -> None:
        """A ``Hello`` after the lobby: a welcomed joiner's again (its ``Welcome`` again), or a late joiner's.

        A spectator, or a dropped player that proves it is itself (``Hello.rejoin`` and its
        proof) within the rejoin window, is welcomed and caught up (``_welcome_late``). Any
        other is refused, so that it does not ask until its lobby timeout: one small reply per
        ``Hello``, never larger than it, so a forged sender gains nothing by it; it is
        counted as a late join, not as garbage.
        """
        proven = read_proven_hello(data, address, self.cookies, self.now(),
                                   lambda datagram, to: self._outbox.append((datagram, to)), self.stats)
        if proven is None:
            return  # dropped (counted), or answered with a Retry (its cookie) alone: nothing more until proven
        hello, data, answers = proven.hello, proven.data, proven.answers
        again = next((peer for peer in self.peers.values() if peer.answers == answers), None)
        if again is not None:
            self._outbox.append((again.welcome, address))  # our Welcome was lost and the joiner asks again
            return
        seat, problem = self._late_problem(hello)
        if not problem:
            problem = self._welcome_late(hello, data, address, seat)
            if not problem:
                return
        answer = fit_refuse(hello.nonce, problem, len(data) - len(seal_reply(answers, b"")))
        if answer is not None:  # a Hello too small for any Refuse is answered with nothing
            self._outbox.append((seal_reply(answers, answer), address))
        self.stats.refused_late(address, hello.nonce)
        if (hello.rejoin is not None or hello.spectate) and len(self._refused_rejoins) < 64 \
                and (address, hello.nonce) not in self._refused_rejoins:
            self._refused_rejoins.add((address, hello.nonce))  # said once per attempt: a joiner asks again and again
            what = "rejoin" if hello.rejoin is not None else "late spectator"
            self.say(f"refused a {what} from {address[0]}:{address[1]}: {problem}")

    def _late_problem(self, hello: Hello) -> tuple[Seat | None, str]:
        """Whether a ``Hello`` may join the running session: the seat it takes back, and why not (``""``: it may)."""
        game = self.game
        assert game is not None and self.sync is not None
        if hello.rejoin is None and not hello.spectate:
            return None, self._no_seat()  # a player late: no seat, whatever else may be wrong with it
        problem = refusal(hello, game.name, game.digest or "", self.options)
        if problem:
            return None, problem
        if self.desync is not None or self.finished:
            return None, "the session is ending"
        if hello.rejoin is not None:
            seat = next((seat for seat in self.dropped.values() if seat.token == hello.rejoin), None)
            if seat is None or not proof_holds(seat.secret, seat.token, hello.nonce, hello.key, hello.proof):
                # One answer for a wrong token and a wrong proof: it tells no one whether a token is a dropped seat's.
                return None, NO_SEAT
            if seat.closed or self.now() - seat.since > self.options.rejoin_window:
                return None, (f"player {seat.player}'s seat closed {self.options.rejoin_window:g} s after its drop "
                              "(the host's --rejoin-window)")
            if self.target is not None and self.sync.known[seat.player] >= self.target:
                return None, "the session is at its last tick"
            return seat, ""
        if sum(1 for peer in self.peers.values() if peer.player is None) >= MAX_SPECTATORS:
            return None, f"the session is full ({MAX_SPECTATORS} spectators already)"
        return None, ""

    def _no_seat(self) -> str:
        """Why a player arriving late gets no seat: every seat is taken, or kept for the player that dropped."""
        open_seats = ", ".join(str(player) for player, seat in sorted(self.dropped.items()) if not seat.closed)
        if open_seats:
            return (f"the session has started; player {open_seats}'s seat is kept for that player, who rejoins with "
                    "its rejoin code (--rejoin CODE); --spectate watches")
        return LATE

    def _welcome_late(self, hello: Hello, data: bytes, address: Address, seat: Seat | None) -> str:
        """Welcome a late spectator, or a dropped player back: its catch-up of the last confirmed tick follows.

        Returns why not (``""``: welcomed): the game's state can't be sent (too large, not
        saveable), or its ``build`` adds systems a save can't hold.
        """
        sync, game = self.sync, self.game
        assert sync is not None and game is not None
        if not self.guesses.take(self.now()):
            return GUESSING
        pake = Pake(self.options.code or "", host=True)
        shared = pake.finish(hello.key)
        if shared is None:
            return "the joiner's key is not a SPAKE2 message this host can answer"
        if self._adds_systems():
            return (f"{game.name}'s build(world) adds systems, which the save a late joiner starts from can't hold: "
                    "add them in systems(world)")
        self._confirm()
        tick = sync.emitted
        try:
            save = sync.at_confirmed(lambda world: save_text(world, {"game": game.name, "game_digest": game.digest},
                                                             where="a late joiner", root=game.root))
        except SaveError as error:
            return f"the game's state can't be sent: {error}"
        player = None if seat is None else seat.player
        handover = None
        if seat is not None:  # the seat back: a "connect" after the last input the host wrote for it
            handover = sync.known[seat.player] + 1
            sync.add_remote(seat.player, handover, handover, {handover: _CONNECT})
        runs = tuple(Run(player=p, first=tick + 1, last=sync.known[p],
                         events=tuple(sync.run_of(p, tick + 1, sync.known[p]).items()))
                     for p in range(self.players) if sync.known[p] > tick)
        start = CatchStart(tick, save, runs, self._pending_delays(), self._agreed_delay())
        try:
            pieces = pack(start)
        except PacketError as error:
            if seat is not None and handover is not None:  # not taken back after all: it stays disconnected
                sync.add_remote(seat.player, handover + 1, handover + 1, {handover + 1: _DISCONNECT})
            return str(error)
        token = new_id()
        while token in self.peers or token in self.departed:
            token = new_id()
        welcome = Welcome(session=self.session_id, nonce=hello.nonce, player=player, players=self.players,
                          seed=self.seed, ms_per_update=self.ms_per_update, game=game.name, digest=game.digest or "",
                          ticks=self.options.ticks, desync_interval=self.options.desync_interval, token=token,
                          key=pake.message_hex, catchup=tick,
                          confirm=confirmation(shared, self.session_id, token, data, pake.message_hex))
        answers = reply_key(data)
        peer = Peer(address, player, self.players, token=token,
                    link=Link.of_host(self.session_id, token, link_keys(shared, self.session_id, token, data)),
                    welcome=seal_reply(answers, encode(welcome)), answers=answers,
                    rejoin_secret=rejoin_secret(shared, self.session_id, token, data) if seat is not None else b"")
        peer.acks = [tick] * self.players  # what the catch-up gives it: its Inputs go on from there
        for run in runs:
            peer.acks[run.player] = run.last
        peer.heard, peer.max_ping_ms = self.now(), self.options.disconnect_timeout * 1000
        peer.catchup = CatchupSend(self.session_id, tick, pieces)
        self.add_peer(peer)
        self._outbox.append((peer.welcome, address))
        where = f"{address[0]}:{address[1]}"
        if seat is not None:
            del self.dropped[seat.player]
            self._returning[seat.player] = None
            self.say(f"player {seat.player} rejoined from {where}: it starts from tick {tick} ({len(pieces)} "
                     f"datagrams) and takes its seat back at tick {handover}")
        else:
            self.spectator_lines.say(f"a spectator joined the running session from {where}: it starts from tick "
                                     f"{tick} ({len(pieces)} datagrams)", self.now())
        return ""

    def _adds_systems(self) -> bool:
        """Whether the game's ``build`` adds systems (a loaded world would lack them): tried once, in a world apart."""
        if self._build_adds_systems is None:
            game = self.game
            assert game is not None
            with World(seed=self.seed, ms_per_update=self.ms_per_update, players=self.players) as probe:
                game.build(probe)
                self._build_adds_systems = system_count(probe) > 0
        return self._build_adds_systems

    def _welcome_again(self, data: bytes) -> None:
        """A joiner hears the host's ``Welcome`` again while the host's lobby waits for the others: it is there."""
        if open_reply(self._answers, data) is None:
            self.stats.damaged += 1
            return
        if any(peer.link is not None and peer.link.highest > 0 for peer in self.peers.values()):
            # The host's lobby is over (its datagrams come on the link): a Welcome now is a copy, maybe
            # replayed by someone who captured it, and it carries no number: it keeps no one alive.
            self.stats.replayed += 1
            return
        for peer in self.peers.values():
            peer.heard = self.now()

    def _from_peer(self, data: bytes, address: Address) -> None:
        peer, body, first = open_from_peer(data, address, self.session_id, self.peers, self.departed, self.stats)
        if body is None:
            return
        assert peer is not None
        if first and self.is_host:
            self.guesses.refund()  # a late joiner's first datagram: it had the join code, its exchange was no guess
        try:
            packet = decode(body)
            if getattr(packet, "session", None) != self.session_id:
                raise PacketError("another session")
        except PacketError:
            self.stats.garbage += 1
            return
        if isinstance(packet, (Desync, Chunk, Got)) and (peer.player is None or (
                self.desync is not None and peer.token != self.desync.token)):
            # A spectator has no state to compare; in a swap only the peer it is with may speak.
            self.stats.garbage += 1
            return
        now = self.now()
        peer.heard = now
        if isinstance(packet, Caught):
            if self.is_host and peer.catchup is not None:
                peer.catchup.take(packet)
            return
        if isinstance(packet, Catchup):
            if not self.is_host and self._caught is not None:
                self._to(peer, self._caught)  # our last Caught was lost: we have it all
            return
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
        # A joiner speaks only for its own players (a spectator for no one); the host for every player but ours.
        if packet.sender != expected or len(packet.acks) != self.players or not all(
                (run.player in peer.plays) if self.is_host else (run.player not in self.local_players)
                for run in packet.runs):
            self.stats.garbage += 1  # a peer's mix-up: nothing of it is used
            return
        if self.is_host and (packet.delays or any(event.type in PRESENCE for run in packet.runs
                                                  for _, events in run.events for event in events)):
            # A player's presence and the input delay are the host's to say (it writes them for everyone).
            self.stats.garbage += 1
            return
        if self.is_host and peer.player in self._returning:  # its world is loaded: it plays
            confirmed = self._returning.pop(peer.player)
            if confirmed is not None:
                self.say(f"player {peer.player} is back from tick {confirmed}")
        for run in packet.runs:
            cut = sync.cut_off
            sync.add_remote(run.player, run.first, run.last, dict(run.events))
            if sync.cut_off != cut:
                self.stats.garbage += 1  # a run far past our own tick: a flood, kept out of memory
        for tick, delay in packet.delays:
            if self.delay_changes.get(tick) != delay and len(self.delay_changes) < 4 * MAX_DELAYS:
                self._agree_delay(tick, delay)
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
            self.spectator_lines.say(f"the spectator at {peer.address[0]}:{peer.address[1]} left: {reason}", self.now())
            self.remove_peer(peer)
            return
        crashed = reason.startswith(CRASHED)
        if self.is_host and not crashed and self._survives():
            self._drop(peer, "left" if reason == LEFT else f"left ({reason})")
            return
        # A relayed goodbye ("player 2 left: ...") is a leave too: leaving is no failure, on any side.
        self.left = reason == LEFT or reason.endswith(f" left: {LEFT}")
        if crashed:
            reason = f"player {peer.player}'s game crashed: {reason[len(CRASHED):]}"
        elif self.is_host or reason == LEFT:
            reason = f"{'the host' if peer.player == 0 else f'player {peer.player}'} left: {reason}"
        self._end(reason, tell=True)

    # -- players that go, players that come back ------------------------------------------

    def _survives(self) -> bool:
        """Whether the session goes on without a player (the host's view): 3 players or more."""
        return self.is_host and self.players >= 3 and self.sync is not None

    def lose_player(self, peer: Peer, why: str) -> None:
        """Player ``peer`` is gone (``why``: silent, too far behind): dropped alone if the session survives, or the end.

        The host of a session of 3 or more drops it and plays on (``_drop``); otherwise (a
        session of 2, or the host itself gone) the session ends on every side, naming it.
        """
        where = f"{peer.address[0]}:{peer.address[1]}"
        if self._survives():
            self._drop(peer, why)
            return
        who = "the host" if not self.is_host else f"player {peer.player}"
        self._end(f"{who} ({where}) {why}", tell=True)

    def _drop(self, peer: Peer, why: str) -> None:
        """Drop player ``peer`` and play on: its input is the host's to write, a ``"disconnect"`` first.

        The ``"disconnect"`` goes at the tick after the last input of that player the host
        holds: no peer holds a later one (every input reaches the others through the host), so
        every peer plays it at that tick. The dropped peer is told, and may rejoin within
        ``options.rejoin_window`` seconds. A joiner of several seats drops with all of them,
        each disconnected at its own tick; it is given no rejoin code, so its seats stay empty.
        """
        sync = self.sync
        assert sync is not None and peer.player is not None
        player = peer.player
        ticks = {seat: sync.known[seat] + 1 for seat in peer.plays}
        for seat, at in ticks.items():
            sync.add_remote(seat, at, at, {at: _DISCONNECT})
        tick = ticks[player]
        if player in self._returning:
            del self._returning[player]
            why = f"{why}: it never played after rejoining (its process failed to start or load, or was stopped)"
        window = self.options.rejoin_window if peer.seats == 1 else 0.0
        back = f"; it may rejoin within {window:g} s with its rejoin code" if window > 0 else ""
        for _ in range(3):  # it may still hear us (a stalled process): it stops, saying why
            self._to(peer, bye(self.session_id, f"dropped by the host at tick {tick}: this peer {why}{back}"))
        self.remove_peer(peer)
        for seat, at in ticks.items():
            self.dropped[seat] = Seat(seat, peer.token, peer.rejoin_secret, self.now(), at, closed=window <= 0)
        where = f"{peer.address[0]}:{peer.address[1]}"
        who = players_named(peer.plays)
        # Two players on the host's keyboard still have a game: only a host left alone ends it.
        if len(self.local_players) < 2 and not any(other.player is not None for other in self.peers.values()):
            self.left = why.startswith("left")  # the last one chose to leave: no failure, as in a session of 2
            self._end(f"{who} ({where}) {why}, and no other player is left", tell=True)
            return
        self.say(f"{who} ({where}) {why} at tick {tick}: the others play on{back}")

    def _close_seats(self, now: float) -> None:
        """Say once when a dropped player's rejoin window has passed: its seat stays empty."""
        for seat in self.dropped.values():
            if not seat.closed and now - seat.since > self.options.rejoin_window:
                seat.closed = True
                self.say(f"player {seat.player} did not rejoin within {self.options.rejoin_window:g} s: its seat "
                         "stays empty")

    # -- the input delay, agreed --------------------------------------------------------------

    def set_input_delay(self, delay: int, at: int | None = None) -> int:
        """The host's: make ``delay`` every peer's input delay from tick ``at`` (default: the soonest); returns it.

        Every peer changes at that tick (``Sync.schedule_delay``), and every peer's recording
        says so. The tick must be at least ``DELAY_LEAD`` ticks past the host's own input, so
        that no peer has run it before it hears of the change. ``ValueError`` for a joiner, a
        delay out of 0 to 30, a tick too soon, or more than 8 changes still to come.
        """
        if not self.is_host:
            raise ValueError("set_input_delay: the input delay is the host's to change (it reaches every peer)")
        sync = self.sync
        if sync is None:
            raise ValueError("set_input_delay: the session has not started (give the starting delay as input_delay)")
        if type(delay) is not int or not 0 <= delay <= MAX_INPUT_DELAY:
            raise ValueError(f"set_input_delay: a delay is a whole number of ticks from 0 to {MAX_INPUT_DELAY}, "
                             f"got {delay!r}")
        soonest = sync.known[sync.local if sync.local is not None else 0] + DELAY_LEAD
        tick = soonest if at is None else at
        if type(tick) is not int or tick < soonest:
            raise ValueError(f"set_input_delay: tick {at!r} is too soon: the soonest is {soonest} ({DELAY_LEAD} ticks "
                             "past the host's input, so that every peer hears of it first)")
        if len(self._pending_delays()) >= MAX_DELAYS:
            raise ValueError(f"set_input_delay: {MAX_DELAYS} changes are already to come")
        self._agree_delay(tick, delay)
        return tick

    def _agree_delay(self, tick: int, delay: int) -> None:
        self.delay_changes[tick] = delay
        if self.sync is not None:
            self.sync.schedule_delay(tick, delay)

    def _pending_delays(self) -> tuple[tuple[int, int], ...]:
        """The agreed changes whose tick is not yet confirmed here: told in every datagram until then."""
        emitted = self.sync.emitted if self.sync is not None else 0
        return tuple(sorted((tick, delay) for tick, delay in self.delay_changes.items() if tick > emitted))

    def _agreed_delay(self) -> int | None:
        """The last delay agreed at a confirmed tick (``None``: none yet, each peer keeps its own)."""
        emitted = self.sync.emitted if self.sync is not None else 0
        past = [tick for tick in self.delay_changes if tick <= emitted]
        return self.delay_changes[max(past)] if past else None

    # -- sending ------------------------------------------------------------------------

    def _send(self, now: float) -> None:
        sync = self.sync
        assert sync is not None
        delays = self._pending_delays()[-MAX_DELAYS:] if self.is_host else ()
        for peer in self.peers.values():
            if peer.catchup is not None:
                if not peer.catchup.done:  # its world first; its Inputs once it has it all
                    for body in peer.catchup.step(now):
                        self._to(peer, body)
                    continue
                peer.catchup = None
                peer.sent = -1.0
            if now - peer.sent < SEND_EVERY_S and not peer.behind(sync, self._send_players(peer)):
                continue
            packet = inputs_packet(sync, peer, session=self.session_id, sender=self._sender(),
                                   players=self._send_players(peer), checked=self._checked, now_ms=now * 1000,
                                   spectator=peer.player is None, delays=delays)
            self._to(peer, packet)
            peer.sent = now
            peer.sent_known = list(sync.known)

    def _sender(self) -> int:
        return SPECTATOR if self.player is None else self.player

    def _send_players(self, peer: Peer) -> tuple[int, ...]:
        if not self.is_host:
            return self.local_players
        return tuple(p for p in range(self.players) if p not in peer.plays)

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
