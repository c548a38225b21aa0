"""Joining a session, as two state machines: the host's lobby and a joiner's. Datagrams and the time in, datagrams out.

Neither touches a socket or reads the time itself: each is given the datagrams that
arrived (``receive``), asked to act on the time (``poll``, reading the injected clock)
and emptied of what it has to send (``datagrams_to_send``), in the sans-IO design of
aioquic and GGRS. ``engine.net.session.Session`` couples them to a UDP socket for real
play; a test couples them to an in-memory network on a ``VirtualClock``.

A joiner sends ``Hello`` (its game's name and digest, the engine version, its
``--ticks``, a nonce and its key) again and again until the host answers ``Welcome``
(its player number, the seed, the step, the game, the session's terms, its token and the
host's key) or ``Refuse`` (one line why). A joiner that plays several players on its machine
(``Hello.seats``, ``tickswap join --local N``) gets that many seats side by side, its
``Welcome.player`` the first: it is refused, saying how many are left, when fewer are. A
``Hello`` of one seat is the datagram it always was. The host refuses another engine version,
another ``--ticks``, or another game (the digest of a game file, the name of a registered
game) unless both sides allow it (``allow_game_mismatch``, a testing aid for planted
desyncs: the host decides). A refused joiner does not end the host's lobby: anyone may
send a ``Hello``. Once every player has joined the host sends ``Start``; a ``Hello`` that
comes after is answered with a ``Refuse`` ("the session has started") by the running
session, so a late joiner stops at once.

A host first asks a joiner to prove its address (``engine.net.cookies``, QUIC's rule): a
``Hello`` without the host's cookie for the address it came from is answered with a small
``Retry`` carrying it, and nothing else; the joiner sends the same ``Hello`` again with it
(``integrity.seal_proven``), one round trip more, and only that one is welcomed or refused.
So a ``Hello`` with a forged source address gets its victim one ``Retry``, smaller than
the ``Hello``. The host lobby and the running session read a ``Hello`` with one reader
(``read_proven_hello``), and open a welcomed peer's datagrams with one opener (``open_from_peer``).

Every datagram is an envelope (``engine.net.integrity``): a ``Hello`` carries a check, a
reply a tag keyed by the ``Hello`` it answers, and everything from a welcomed peer a tag
keyed by its link. A damaged one is counted (``DatagramCounts.damaged``) and dropped before
anything reads it. A welcomed joiner is known by its token: a datagram of its link with a
new number from a new address moves it there (its NAT rebound), one whose tag fails does not.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from engine.clock import Clock
from engine.files.game import Game
from engine.messages import shown
from engine.net.catchup import CatchupReceive, unpack
from engine.net.catchup import Start as CatchStart
from engine.net.cookies import AMPLIFICATION, Cookies
from engine.net.integrity import (
    REPLAYED,
    Link,
    Pake,
    confirmation,
    confirmation_holds,
    frame_kind,
    link_keys,
    new_id,
    open_proven,
    open_reply,
    read_header,
    rejoin_proof,
    rejoin_secret,
    reply_key,
    seal_hello,
    seal_proven,
    seal_reply,
)
from engine.net.packets import (
    Bye,
    Catchup,
    Hello,
    PacketError,
    Refuse,
    Retry,
    Start,
    Welcome,
    decode,
    encode,
    read_hello,
)
from engine.net.refusals import DatagramCounts, GuessBudget, LineBudget, LobbyTally
from engine.net.transport import Address
from engine.state.names import __version__
from engine.world import World

__all__ = ["CAUGHT_EVERY_S", "CLOSED_AFTER", "FAILED_OPENS", "GUESSING", "HELLO_EVERY_S", "KEEP_EVERY_S", "LATE",
           "MAX_SPECTATORS", "NOT_CONFIRMED",
           "REJOIN_WINDOW_S", "START_GRACE_S", "HostLobby", "JoinLobby", "Joined", "ProvenHello", "SessionError",
           "SessionOptions", "build_plain", "bye", "open_from_peer", "players_named", "read_proven_hello", "refusal"]

HELLO_EVERY_S = 0.2
"""How often a joiner repeats its ``Hello`` until the host answers."""
KEEP_EVERY_S = 0.02
"""How often the host's lobby repeats each welcomed peer's ``Welcome``: a peer waiting for the others hears
the host well within the shortest ``--disconnect-timeout`` (0.1 s)."""
CLOSED_AFTER = 10
"""A joiner gives up early once the OS has said this many times that nothing listens on the host's port
(about two seconds of ``Hello``: a host that is starting has its socket by then)."""
START_GRACE_S = 0.25
"""Every seat taken, the host waits this long before the start: a joiner that can't play its seat leaves first."""
CAUGHT_EVERY_S = 0.05
"""How often a joiner catching up says how many pieces it has (the host's progress, and a keepalive)."""
MAX_SPECTATORS = 8
"""The most spectators a host welcomes: each costs it a datagram a frame."""
LATE = "the session has started and every seat is taken: --spectate watches it"
"""A late player's refusal (the running session's): short, so it fits in the answer to any Hello tickswap sends."""
FAILED_OPENS = 3
"""Datagrams whose tag fails, on a link no datagram has opened yet, before the host refuses that joiner."""
GUESSING = "the host takes no more joins for a moment (too many joins did not prove the code): try again soon"
"""The refusal of a join while the host's guess budget is spent (``refusals.GuessBudget``)."""
NOT_CONFIRMED = ("the host's welcome does not confirm the join code: the code is wrong (check it with the host), "
                 "or someone is in the middle of the join")
"""How a joiner stops when the host's key confirmation fails (a wrong code, or a man in the middle)."""
REJOIN_WINDOW_S = 60.0
"""How long after a drop a player may take its seat back (``--rejoin-window``'s default)."""


@dataclass(frozen=True)
class SessionOptions:
    """A session's settings (the CLI's ``--input-delay``, ``--max-prediction``... options)."""

    input_delay: int = 2
    max_prediction: int = 8
    """Ticks that may run ahead of the confirmed frontier on predicted input; 0 is plain lockstep."""
    desync_interval: int = 60
    """Compare state hashes every N confirmed ticks; a joiner takes the host's (sent in ``Welcome``)."""
    disconnect_timeout: float = 5.0
    emulation: Any = None
    """An ``engine.net.emulate.Emulation`` to put between this peer and the network, or ``None``."""
    allow_game_mismatch: bool = False
    """A testing aid: play even with another game file (to plant a desync); the host must allow it too."""
    lobby_timeout: float = 60.0
    ticks: int | None = None
    """The session's length in confirmed ticks (``--ticks``; ``None``: frames until a peer leaves).
    The host's is the session's: a joiner with ``None`` takes it, one with another is refused."""
    rejoin_window: float = REJOIN_WINDOW_S
    """The host's: how many seconds after a drop a player may rejoin (with 3 players or more; 0: never)."""
    rejoin: str | None = None
    """A joiner's: the rejoin code of the seat it takes back (``SessionMachine.rejoin_code``, said at its join)."""
    code: str | None = None
    """The join code both sides give (the room code, or the one ``tickswap host`` prints): the key exchange is bound
    to it (SPAKE2), so a joiner without it, or someone in the middle, is refused. A host without one draws one."""


def build_plain(game: Game, seed: int, players: int, ms_per_update: float) -> World:
    """The default world of a session: ``World(seed, step, players)``, ``build``, then ``systems``."""
    world = World(seed=seed, ms_per_update=ms_per_update, players=players)
    world.view_size = game.view_size
    game.build(world)
    game.add_systems(world)
    return world


def bye(session: int, reason: str) -> bytes:
    """A ``Bye``'s body (the reason cut to what a packet holds), for a link to seal."""
    return encode(Bye(session=session, reason=reason[:300]))


class SessionError(Exception):
    """A session could not start or stopped: ``status`` 2 for a refusal (the user's mistake), 1 otherwise."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def _ticks(ticks: int | None) -> str:
    return "frames (no --ticks)" if ticks is None else f"--ticks {ticks}"


def refusal(hello: Hello, game: str, digest: str, terms: SessionOptions) -> str:
    """Why the host refuses ``hello`` (another engine, ``--ticks`` or game), or ``""`` when it may join."""
    if hello.engine != __version__:
        return f"the joiner runs tickswap {shown(hello.engine)}, the host {shown(__version__)}"
    if hello.ticks is not None and hello.ticks != terms.ticks:
        return (f"the joiner asks for --ticks {hello.ticks}, the host plays {_ticks(terms.ticks)} "
                "(a joiner with no --ticks plays the host's)")
    if hello.allow_mismatch and terms.allow_game_mismatch:
        return ""
    # Two game files are the same game when their contents are (a copy renamed "arena(1).py" by a
    # download plays); a registered game, which has no digest, by its name.
    same = hello.digest == digest if hello.digest and digest else (hello.game == game and hello.digest == digest)
    if hello.game and not same:
        theirs = "game file" if hello.digest else "game"
        ours = "game file" if digest else "game"
        return (f"the joiner's {theirs} {shown(hello.game)} is not the host's {ours} {shown(game)}"
                + (" (their contents differ)" if hello.digest and digest else "")
                + ("; --allow-game-mismatch must be given to the host too" if hello.allow_mismatch
                   else "; --allow-game-mismatch on both sides plays anyway (a test of desync reports)"))
    if not hello.game and digest:
        return (f"the host plays the game file {shown(game)}: the joiner must name it "
                "(tickswap join HOST:PORT CODE FILE)")
    return ""


@dataclass(frozen=True)
class ProvenHello:
    """A ``Hello`` whose sender proved its address (it echoed the host's cookie): what may be answered in full."""

    hello: Hello
    data: bytes
    """The ``Hello``'s datagram as first sent (no cookie): its reply key and the link's keys are drawn from it."""
    answers: bytes
    """``reply_key(data)``: the key of every answer to it."""


def read_proven_hello(data: bytes, address: Address, cookies: Cookies, now: float,
                      send: Callable[[bytes, Address], object], counts: DatagramCounts) -> ProvenHello | None:
    """Read a ``Hello`` (plain or proven) from ``address``: the host lobby's and the running session's one reader.

    Returns the ``ProvenHello`` when its cookie holds for ``address``; else ``None``, with
    what it was counted in ``counts``: ``damaged`` (its check fails), ``garbage`` (no
    ``Hello`` in it), or nothing when it is unproven (no cookie, or one not made for this
    address now). An unproven ``Hello`` is answered with a ``Retry`` carrying the cookie,
    through ``send``, only when that is at most ``AMPLIFICATION`` times its size: nothing
    else ever goes to an unproven address.
    """
    base, cookie = data, b""
    if frame_kind(data) == b"C":
        opened = open_proven(data)
        if opened is None:
            counts.damaged += 1
            return None
        cookie, base = opened
    hello = read_hello(base)
    if isinstance(hello, str):
        if hello == "damaged":
            counts.damaged += 1
        else:
            counts.garbage += 1
        return None
    answers = reply_key(base)
    if not cookies.holds(cookie, address, now):
        retry = seal_reply(answers, encode(Retry(nonce=hello.nonce, cookie=cookies.cookie(address, now).hex())))
        if len(retry) <= AMPLIFICATION * len(data):
            send(retry, address)
        return None
    return ProvenHello(hello, base, answers)


class _Linked(Protocol):
    """A peer as ``open_from_peer`` sees it: where it is now and the link its datagrams are sealed by."""

    address: Address

    @property
    def link(self) -> Link | None:
        """The link its datagrams are sealed by (``None``: none yet)."""


_L = TypeVar("_L", bound=_Linked)


def open_from_peer(data: bytes, address: Address, session: int, peers: Mapping[int, _L], departed: set[int],
                   counts: DatagramCounts) -> tuple[_L | None, bytes | None, bool]:
    """Open a datagram of a welcomed peer's link: the host lobby's and the running session's one opener.

    Returns ``(peer, body, first)``. ``body`` is the opened body, or ``None`` when the
    datagram is dropped: counted in ``counts`` (``damaged``: no header, no such peer, or
    its tag fails; ``garbage``: another session's; ``replayed``: its number was taken
    before) or, for a peer in ``departed``, let go uncounted. ``peer`` is the peer its
    token names when the body opened or its tag failed (``None`` otherwise). ``first``:
    this is the first datagram its link opened (it proves the joiner had the join code).
    A body with the newest number yet from a new address moves the peer there (``moved``).
    """
    header = read_header(data)
    if header is None:
        counts.damaged += 1
        return None, None, False
    if header.session != session:
        counts.garbage += 1  # another session's (an old one on this port)
        return None, None, False
    if header.token in departed:
        return None, None, False  # a peer gone: its last datagrams (goodbyes) arrive after it
    peer = peers.get(header.token)
    link = peer.link if peer is not None else None
    first = link is not None and link.highest == 0
    opened = link.open(data) if link is not None else None
    if opened is None:
        counts.damaged += 1  # damaged on the way, or forged: nothing of it is read
        return peer, None, False
    if opened == REPLAYED:
        counts.replayed += 1  # taken before: it keeps no one alive and moves no one
        return None, None, False
    assert peer is not None
    body, newest = opened
    if newest and address != peer.address:
        counts.moved += 1  # its NAT rebound it: answer where it is now, and forget the old address
        peer.address = address
    return peer, body, first


@dataclass
class Joined:
    """A peer the host welcomed: its token and link, where it is now, its player (``None``: a spectator).

    ``welcome`` is the reply datagram, sent again while the peer waits and whenever its
    ``Hello`` (told by ``answers``, the ``Hello``'s reply key) comes again.
    """

    token: int
    link: Link
    address: Address
    player: int | None
    welcome: bytes
    answers: bytes
    rejoin_secret: bytes = b""
    """What the joiner proves it is itself with if it drops and asks for its seat back (``integrity.rejoin_secret``)."""
    heard: float = 0.0
    """When its last datagram came (its ``Hello`` again, or early play): a silent spectator's place expires."""
    confirmed: bool = False
    """A datagram of its link opened: it had the join code (its key is the host's). Unconfirmed, it expires."""
    failures: int = 0
    """Datagrams of its token whose tag failed before any opened (``FAILED_OPENS`` of them: refused)."""
    seats: int = 1
    """How many players it plays: ``player`` to ``player + seats - 1`` (a joiner's ``--local N``)."""

    @property
    def who(self) -> str:
        """How the host names it in a line: ``"a spectator"``, ``"player 1"`` or ``"players 1 and 2"``."""
        return "a spectator" if self.player is None else players_named(range(self.player, self.player + self.seats))


def players_named(players: range | tuple[int, ...]) -> str:
    """``"player 2"``, or ``"players 1 and 2"``, ``"players 1, 2 and 3"``: the players one peer plays, in a line."""
    if len(players) == 1:
        return f"player {players[0]}"
    return f"players {', '.join(map(str, players[:-1]))} and {players[-1]}"


def _seconds(clock: Clock) -> float:
    return clock.now_ns() / 1e9


class HostLobby:
    """The host's lobby: welcome joiners (players 1.. in join order, and spectators) until every player is in.

    ``local``: how many players the host plays itself (0 to ``local - 1``); joiners are the
    players after them.

    A joiner with another game or engine is refused (it is told, and the host says so) and
    the lobby waits on. ``poll`` raises ``SessionError`` (status 1) when the players are
    not all in after ``timeout_s``; once they are, and ``START_GRACE_S`` has passed with
    every seat still taken, it sends ``Start`` to each and ``started`` is true. What is not
    an envelope, or no envelope for the lobby, is counted in ``counts.garbage`` (a welcomed
    peer's early play aside); an envelope whose check or tag fails in ``counts.damaged``.
    ``counts`` is the session's own (``SessionStats``) when given: one count, lobby and play.
    """

    def __init__(self, *, session: int, game: str, digest: str, players: int, seed: int, ms_per_update: float,
                 terms: SessionOptions, timeout_s: float, clock: Clock, say: Callable[[str], None],
                 local: int = 1, cookies: Cookies | None = None, lines: LineBudget | None = None,
                 guesses: GuessBudget | None = None, counts: DatagramCounts | None = None) -> None:
        if type(local) is not int or not 1 <= local < players:
            raise ValueError(f"a host plays 1 to {players - 1} of the {players} players itself, got {local!r}")
        self.session = session
        self.local = local
        self.game, self.digest, self.players, self.seed, self.ms_per_update = game, digest, players, seed, ms_per_update
        self.terms = terms
        self.clock = clock
        self.say = say
        if not terms.code:
            raise ValueError("a host's lobby needs the join code (SessionOptions.code)")
        self.cookies = cookies if cookies is not None else Cookies()
        """The address proofs this host asks of every joiner (``engine.net.cookies``): the session's, when given."""
        now = _seconds(clock)
        self.tally = LobbyTally(say, now)
        self.counts = counts if counts is not None else DatagramCounts()
        """What the lobby dropped (garbage, damaged, replayed) and followed (moved): the session's, when given."""
        self.lines = lines if lines is not None else LineBudget(say, now)
        """The spectator lines' budget (``refusals.LineBudget``): the session's, when given."""
        self.guesses = guesses if guesses is not None else GuessBudget(now)
        """The bound on key exchanges, each a guess at the code (``refusals.GuessBudget``): the session's if given."""
        self.joined: dict[int, Joined] = {}
        """The welcomed peers by token (the peer table the session starts with)."""
        self.departed: set[int] = set()
        """Tokens of peers that left before the start: their last goodbyes are let go, uncounted."""
        self.started = False
        self._deadline = now + timeout_s
        self._timeout_s = timeout_s
        self._kept = now
        self._full_since: float | None = None
        self._outbox: list[tuple[bytes, Address]] = []

    def datagrams_to_send(self) -> list[tuple[bytes, Address]]:
        """What to send now, in order, as (datagram, address); taken (a second call returns only what is new)."""
        taken, self._outbox = self._outbox, []
        return taken

    def _send(self, data: bytes, address: Address) -> None:
        self._outbox.append((data, address))

    def _seated(self, confirmed: bool = False) -> int:
        """Seats taken (``confirmed``: by joiners that proved the join code, whom the session may start with)."""
        return sum(peer.seats for peer in self.joined.values()
                   if peer.player is not None and (peer.confirmed or not confirmed))

    def _seats_for(self, wanted: int, now: float) -> tuple[int | None, str]:
        """The first of ``wanted`` free seats side by side (players ``local..``), or ``None`` and why not."""
        taken = {player for peer in self.joined.values() if peer.player is not None
                 for player in range(peer.player, peer.player + peer.seats)}
        free = [player for player in range(self.local, self.players) if player not in taken]
        waiting = self._proving(now) if wanted > len(free) else ""
        if waiting:
            short = ("no seat is free" if not free
                     else f"{len(free)} of the {wanted} seats asked for {'is' if len(free) == 1 else 'are'} free")
            return None, f"{short} now: {waiting}"
        if not free:
            return None, "the session is full"
        if wanted > len(free):
            return None, (f"the joiner asks for {wanted} seats (--local {wanted}), {len(free)} "
                          f"{'is' if len(free) == 1 else 'are'} left of the {self.players} players")
        first = next((player for player in free if all(player + k in free for k in range(wanted))), None)
        if first is None:
            return None, (f"the joiner asks for {wanted} seats side by side; the {len(free)} left are apart "
                          f"({players_named(tuple(free))}): try again once the others are in, or with fewer")
        return first, ""

    def _proving(self, now: float) -> str:
        """Which seats joiners hold that have not proved the join code yet, and when to try again; or ``""``.

        Such a seat is not taken for good: its joiner proves the code within
        ``--disconnect-timeout``, or leaves (a joiner that finds its code wrong says so at
        once), or its place is freed then. So the refusal says when to ask again, not "full".
        """
        held = [peer for peer in self.joined.values() if peer.player is not None and not peer.confirmed]
        seats = tuple(sorted(player for peer in held if peer.player is not None
                             for player in range(peer.player, peer.player + peer.seats)))
        if not seats:
            return ""
        wait = max(1, math.ceil(max(self.terms.disconnect_timeout - (now - peer.heard) for peer in held)))
        return (f"{players_named(seats)} {'is' if len(seats) == 1 else 'are'} held by a joiner still proving the join "
                f"code, freed within {wait} s if it can't: try again then")

    def poll(self) -> None:
        """Act on the time: keep the welcomed in touch, say held-back refusals, start, or give up."""
        if self.started:
            return
        now = _seconds(self.clock)
        full = self._seated(confirmed=True) == self.players - self.local  # never with a seat of one without the code
        self._full_since = (self._full_since if self._full_since is not None else now) if full else None
        if now > self._deadline and self._full_since is None:
            self.tally.flush()
            raise SessionError(f"not every player joined within {self._timeout_s:g} s "
                               f"({self.local + self._seated()} of {self.players})")
        self._expire_spectators(now)
        if now - self._kept >= KEEP_EVERY_S:
            # A welcomed peer waiting for the others must hear from us, or its --disconnect-timeout drops us.
            for peer in self.joined.values():
                self._send(peer.welcome, peer.address)
            self._kept = now
        self.tally.tick(now)
        if self._full_since is not None and now - self._full_since >= START_GRACE_S:
            self.tally.flush()
            self.say(f"all {self.players} players are in: the session starts")
            start = encode(Start(session=self.session, players=self.players))
            for peer in self.joined.values():
                self._send(peer.link.seal(start), peer.address)
            self.started = True

    def _expire_spectators(self, now: float) -> None:
        """Free the place of a spectator silent for ``--disconnect-timeout`` (a phantom holds no place for long),
        and the seat of a joiner that never proved the join code in that time."""
        timeout = self.terms.disconnect_timeout
        for peer in [peer for peer in self.joined.values()
                     if (peer.player is None or not peer.confirmed) and now - peer.heard > timeout]:
            del self.joined[peer.token]
            self.departed.add(peer.token)
            where = f"{peer.address[0]}:{peer.address[1]}"
            if not peer.confirmed:
                self.say(f"{peer.who} at {where} never "
                         f"proved the join code within {timeout:g} s (a wrong code, or someone in the middle of the "
                         "join): refused, its place is free")
            else:
                self.lines.say(f"the spectator at {where} sent nothing for {timeout:g} s: its place is free", now)

    def _refuse_unconfirmed(self, peer: Joined) -> None:
        """A joiner whose datagrams fail under the key agreed: it did not have the code (or someone is between us)."""
        del self.joined[peer.token]
        self.departed.add(peer.token)
        self.say(f"refused {peer.who} at "
                 f"{peer.address[0]}:{peer.address[1]}: its datagrams fail under the key agreed (a wrong join code, "
                 "or someone in the middle of the join)")

    def receive(self, data: bytes, address: Address) -> None:
        """Take one datagram that arrived from ``address``: a ``Hello``, or a welcomed peer's datagram."""
        if not data:
            return  # a joiner's probe knocking on the port (engine.net.session): no packet, no garbage
        kind = frame_kind(data)
        if kind in (b"H", b"C"):
            self._hello(data, address)
        elif kind == b"S":
            self._from_joined(data, address)
        else:
            self.counts.garbage += 1

    def _hello(self, received: bytes, address: Address) -> None:
        proven = read_proven_hello(received, address, self.cookies, _seconds(self.clock), self._send, self.counts)
        if proven is None:
            return  # dropped (counted), or answered with a Retry (its cookie): nothing more until it proves its address
        hello, data, answers = proven.hello, proven.data, proven.answers
        again = next((peer for peer in self.joined.values() if peer.answers == answers), None)
        if again is not None:
            again.heard = _seconds(self.clock)
            self._send(again.welcome, address)  # our Welcome was lost (or its NAT moved it): again, where it asks
            return
        problem = refusal(hello, self.game, self.digest, self.terms)
        spectators = sum(1 for peer in self.joined.values() if peer.player is None)
        if not problem and hello.spectate and spectators >= MAX_SPECTATORS:
            problem = f"the session is full ({MAX_SPECTATORS} spectators already)"
        first: int | None = None
        if not problem and not hello.spectate:
            first, problem = self._seats_for(hello.seats, _seconds(self.clock))
        now = _seconds(self.clock)
        if not problem and not self.guesses.take(now):
            problem = GUESSING
        pake = Pake(self.terms.code or "", host=True) if not problem else None
        shared = pake.finish(hello.key) if pake is not None else None
        if not problem and shared is None:
            problem = "the joiner's key is not a SPAKE2 message this host can answer"
        if problem or shared is None or pake is None:
            self.tally.refuse(self._send, data, answers, hello.nonce, problem, address)
            return
        token = new_id()
        while token in self.joined or token in self.departed:
            token = new_id()
        player = None if hello.spectate else first
        seats = 1 if hello.spectate else hello.seats
        welcome = Welcome(session=self.session, nonce=hello.nonce, player=player, players=self.players, seed=self.seed,
                          ms_per_update=self.ms_per_update, game=self.game, digest=self.digest, ticks=self.terms.ticks,
                          desync_interval=self.terms.desync_interval, token=token, key=pake.message_hex,
                          confirm=confirmation(shared, self.session, token, data, pake.message_hex), seats=seats)
        link = Link.of_host(self.session, token, link_keys(shared, self.session, token, data))
        joined = Joined(token, link, address, player, seal_reply(answers, encode(welcome)), answers,
                        rejoin_secret(shared, self.session, token, data), heard=now, seats=seats)
        self.joined[token] = joined
        self._send(joined.welcome, address)  # "joined" is said once it proves the join code (``_from_joined``)

    def _from_joined(self, data: bytes, address: Address) -> None:
        peer, body, _ = open_from_peer(data, address, self.session, self.joined, self.departed, self.counts)
        if body is None:
            if peer is not None and not peer.confirmed:  # its tag failed before any of its datagrams opened
                peer.failures += 1
                if peer.failures >= FAILED_OPENS:
                    self._refuse_unconfirmed(peer)
            return
        assert peer is not None
        peer.heard = _seconds(self.clock)
        if not peer.confirmed:
            peer.confirmed = True
            self.guesses.refund()  # it had the code: its key exchange was no guess
            # Said now, not at its Hello: one with a wrong code (or a man in the middle) never joined.
            if peer.player is None:
                self.lines.say(f"a spectator joined from {address[0]}:{address[1]}", peer.heard)
            else:
                self.say(f"{peer.who} joined from {address[0]}:{address[1]}")
        try:
            packet = decode(body)
        except PacketError:
            self.counts.garbage += 1
            return
        if isinstance(packet, Bye) and packet.session == self.session:
            # A joiner whose --input does not fit its seat leaves before the start: the seat is free again.
            del self.joined[peer.token]
            self.departed.add(peer.token)
            self.say(f"{peer.who} left the lobby before the start ({packet.reason}): waiting for another")
        # Anything else is a welcomed peer's play begun early: its resends come again after the start.


class JoinLobby:
    """A joiner's lobby: ``Hello`` until welcomed (or refused); then ``welcome`` (the terms) and ``link`` are set.

    ``poll`` raises ``SessionError``: status 1 when no host answered within ``timeout_s``,
    or sooner once the transport's owner has said ``CLOSED_AFTER`` times (``port_closed``)
    that nothing listens on the host's port. ``receive`` raises it with status 2 when the
    host refuses (its reason). Only a reply tagged for this ``Hello`` counts, from
    wherever it comes (the host's NAT may have moved it); ``host`` is where it came from.

    Joining a session already running (a late spectator, or ``rejoin``: a dropped player's
    token and rejoin secret, from its rejoin code), the ``Welcome`` says which confirmed tick
    the joiner starts from (``catchup``), and the lobby then gathers the host's ``Catchup``
    pieces on the new link, saying how many it has (``Caught``) as it goes, until ``start``
    holds them all, checked (``engine.net.catchup.unpack``). ``done`` says when play may begin.
    Replies whose tag failed and datagrams of the new link taken before are ``counts``' (the
    session's ``SessionStats`` when given).
    """

    def __init__(self, address: Address, *, game: str, digest: str, spectate: bool, allow_mismatch: bool,
                 timeout_s: float, clock: Clock, ticks: int | None = None,
                 rejoin: tuple[int, bytes] | None = None, code: str = "", counts: DatagramCounts | None = None,
                 seats: int = 1) -> None:
        if not code:
            raise ValueError("a joiner needs the host's join code (SessionOptions.code): the room code, or the one "
                             "tickswap host prints")
        self.host = address
        self.clock = clock
        self.pake = Pake(code, host=False)
        """This join's side of the key exchange, bound to the join code (``integrity.Pake``)."""
        self.nonce = new_id()
        key = self.pake.message_hex
        proof = rejoin_proof(rejoin[1], rejoin[0], self.nonce, key) if rejoin is not None else ""
        self.hello = seal_hello(encode(Hello(game=game, digest=digest, engine=__version__, spectate=spectate,
                                             nonce=self.nonce, allow_mismatch=allow_mismatch, ticks=ticks,
                                             key=key, rejoin=rejoin[0] if rejoin else None, proof=proof,
                                             seats=seats)))
        self.seats = seats
        """How many seats this joiner asks for (``Hello.seats``): the players it plays here."""
        self.rejoin_secret = b""
        """What this joiner proves it is itself with if it drops (its rejoin code's secret), once welcomed."""
        self.catching: CatchupReceive | None = None
        """The host's catch-up being gathered (a session already running), or ``None``."""
        self.start: CatchStart | None = None
        """The catch-up, whole and checked: the world to start from and the input since."""
        self.sending = self.hello
        """What this joiner sends: its ``Hello``, with the host's cookie once a ``Retry`` brought it."""
        self.answers = reply_key(self.hello)
        """The key of the host's replies to this ``Hello`` (and of its ``Welcome`` repeated while the lobby waits)."""
        self.welcome: Welcome | None = None
        self.link: Link | None = None
        self.hellos = 0
        """How many ``Hello`` were sent: the transport's owner knocks on the port with each (``port_closed``)."""
        self.counts = counts if counts is not None else DatagramCounts()
        """Replies whose tag failed (``damaged``: damaged, or forged by one who never saw the ``Hello``) and datagrams
        of the new link taken before (``replayed``: ``integrity.REPLAYED``), dropped, never used."""
        self._closed = 0
        self._start = _seconds(clock)
        self._timeout_s = timeout_s
        self._sent: float | None = None
        self._outbox: list[tuple[bytes, Address]] = []

    @property
    def where(self) -> str:
        """``HOST:PORT`` of the host asked."""
        return f"{self.host[0]}:{self.host[1]}"

    def datagrams_to_send(self) -> list[tuple[bytes, Address]]:
        """What to send now, as (datagram, address); taken."""
        taken, self._outbox = self._outbox, []
        return taken

    def port_closed(self) -> None:
        """The OS said once more that nothing listens on the host's port."""
        self._closed += 1

    @property
    def done(self) -> bool:
        """Whether play may begin: welcomed, and for a session already running, its catch-up here and checked."""
        return self.welcome is not None and (self.catching is None or self.start is not None)

    def poll(self) -> None:
        """Act on the time: ``Hello`` again every ``HELLO_EVERY_S`` (then ``Caught`` while catching up), or give up."""
        now = _seconds(self.clock)
        if self.welcome is not None:
            catching = self.catching
            if catching is None or self.start is not None:
                return
            if now > self._start + self._timeout_s:
                raise SessionError(f"the host at {self.where} welcomed this peer, but its world of tick "
                                   f"{catching.tick} did not arrive within {self._timeout_s:g} s")
            if now - catching.said >= CAUGHT_EVERY_S:  # how many pieces are here: the host's progress, and a keepalive
                catching.said = now
                self._tell(catching.caught())
            return
        if now > self._start + self._timeout_s:
            # A host older than 0.5 can't read a Hello asking for several seats: it says nothing to one.
            older = " (a host before tickswap 0.5 does not answer a join of several seats)" if self.seats > 1 else ""
            raise SessionError(f"no host answered at {self.where} within {self._timeout_s:g} s{older}")
        if self._closed >= CLOSED_AFTER:
            raise SessionError(f"no host answered at {self.where}: nothing listens on that port (the OS said so "
                               f"{self._closed} times in {now - self._start:.1f} s)")
        if self._sent is None or now - self._sent >= HELLO_EVERY_S:
            self._outbox.append((self.sending, self.host))
            self.hellos += 1
            self._sent = now

    def _tell(self, body: bytes) -> None:
        assert self.link is not None
        self._outbox.append((self.link.seal(body), self.host))

    def _piece(self, data: bytes, address: Address) -> None:
        """A datagram on the new link while catching up: a ``Catchup`` piece, or the host's goodbye."""
        catching, link, welcome = self.catching, self.link, self.welcome
        assert catching is not None and link is not None and welcome is not None
        header = read_header(data)
        opened = link.open(data) if header is not None else None
        if opened is None:
            self.counts.damaged += 1
            return
        if opened == REPLAYED:
            self.counts.replayed += 1
            return
        body, newest = opened
        if newest:
            self.host = address
        try:
            packet = decode(body)
        except PacketError:
            return
        if isinstance(packet, Bye):
            raise SessionError(f"the host ended the join: {packet.reason}")
        if not isinstance(packet, Catchup) or self.start is not None:
            return  # play begun early (an Inputs): it is sent again once this peer plays
        catching.take(packet)
        if catching.complete:
            try:
                self.start = unpack(catching.whole(), welcome.players)
            except PacketError as error:
                raise SessionError(str(error)) from None
            if self.start.tick != catching.tick:
                raise SessionError(f"the host's catch-up is of tick {self.start.tick}, its welcome said "
                                   f"{catching.tick}")
            catching.said = _seconds(self.clock)
            self._tell(catching.caught())

    def _leave_unconfirmed(self, welcome: Welcome, shared: bytes, address: Address) -> None:
        """Say goodbye on the link of a welcome that does not confirm the code, so that the host frees the seat now.

        With a wrong code this joiner's key is not the host's, so the host can open none of
        these: ``FAILED_OPENS`` of them are its sign that the joiner lacked the code, and it
        refuses that seat at once instead of holding it for ``--disconnect-timeout`` (a
        joiner retrying with the right code would find it taken). Two more cover a loss.
        They reveal nothing a key confirmation does not: a tag under a key no one else has.
        They wait in ``datagrams_to_send`` (``Session.close`` sends them).
        """
        link = Link.of_joiner(welcome.session, welcome.token, link_keys(shared, welcome.session, welcome.token,
                                                                        self.hello))
        for _ in range(FAILED_OPENS + 2):
            self._outbox.append((link.seal(bye(welcome.session, "the join code is wrong")), address))

    def receive(self, data: bytes, address: Address) -> None:
        """Take one datagram: the host's ``Welcome`` (the lobby is done) or ``Refuse`` (``SessionError``, status 2)."""
        if self.welcome is not None and self.catching is not None and frame_kind(data) == b"S":
            self._piece(data, address)
            return
        if self.welcome is not None or frame_kind(data) != b"R":
            return
        body = open_reply(self.answers, data)
        if body is None:
            self.counts.damaged += 1
            return
        try:
            packet = decode(body)
        except PacketError:
            return
        if isinstance(packet, Retry) and packet.nonce == self.nonce:
            # The host asks us to prove our address: the same Hello with its cookie, at once (one round trip more).
            self.sending = seal_proven(self.hello, bytes.fromhex(packet.cookie))
            self._outbox.append((self.sending, self.host))
            self._sent = _seconds(self.clock)
            return
        if isinstance(packet, Refuse) and packet.nonce == self.nonce:
            raise SessionError(f"the host refused: {packet.reason}", 2)
        if isinstance(packet, Welcome) and packet.nonce == self.nonce:
            if packet.player is not None and packet.seats != self.seats:
                raise SessionError(f"the host gave {packet.seats} seats, this joiner asked for {self.seats}", 2)
            shared = self.pake.finish(packet.key)
            if shared is None or not confirmation_holds(shared, packet.session, packet.token, self.hello, packet.key,
                                                        packet.confirm):
                if shared is not None:
                    self._leave_unconfirmed(packet, shared, address)
                raise SessionError(NOT_CONFIRMED, 2)
            self.link = Link.of_joiner(packet.session, packet.token,
                                       link_keys(shared, packet.session, packet.token, self.hello))
            self.rejoin_secret = rejoin_secret(shared, packet.session, packet.token, self.hello)
            # Play may begin: the host sends no input before every player is in, so the first
            # ticks wait for it (a lost Start costs nothing). A running session's world comes first.
            self.welcome, self.host = packet, address
            if packet.catchup is not None:
                self.catching = CatchupReceive(packet.session, packet.catchup)
