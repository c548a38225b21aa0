"""A running session against fake peers: bounded memory, clamped time sync, spoofs counted, the summary.

No sockets: a ``FakeTransport`` holds what the session sends and hands it the datagrams a
test forges, sealed (or not) with the fake peer's end of its link, so each defect of a
running session is shown on its own, with no timing (the session's clock is a ``VirtualClock``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

import pytest

from engine import keys
from engine.clock import VirtualClock
from engine.files.importer import load_game
from engine.input.events import InputEvent
from engine.net.desync import DesyncExchange
from engine.net.integrity import Link, frame_kind, seal_hello, seal_proven
from engine.net.lobby import bye
from engine.net.packets import SPECTATOR, Bye, Chunk, Hello, Inputs, Message, Run, decode, encode, encode_inputs
from engine.net.peers import MAX_ACK_LAG, Peer
from engine.net.session import Session, SessionOptions
from engine.net.stats import LATE_REMEMBERED, MAX_WAIT, SessionStats
from engine.net.sync import Sync
from engine.world import World

GAME = load_game(str(Path(__file__).with_name("netgame.py")))
SESSION = 77
HOST, ONE, TWO, WATCHER, STRANGER = (("127.0.0.1", port) for port in (5000, 5001, 5002, 5003, 5999))
PRESS = InputEvent("key_press", keys.RIGHT)


class FakeTransport:
    """The transport interface, in memory: ``inbox`` is received on the next poll, ``sent`` keeps what went out.

    ``links[address]`` is the far end of the link of the fake peer at ``address``:
    ``deliver`` seals a body as that peer would, ``opened`` reads what was sent to it.
    """

    address = HOST

    def __init__(self, clock: VirtualClock | None = None) -> None:
        self.inbox: list[tuple[bytes, Any]] = []
        self.sent: list[tuple[bytes, Any]] = []
        self.waits: list[float] = []
        self.counters = {"sent": 0, "emulated_lost": 3}
        self.links: dict[Any, Link] = {}
        self.clock = clock

    def send(self, data: bytes, to: Any) -> bool:
        self.sent.append((data, to))
        return True

    def receive(self, limit: int = 256) -> list[tuple[bytes, Any]]:
        taken, self.inbox = self.inbox, []
        return taken

    def wait(self, timeout_s: float) -> bool:
        self.waits.append(timeout_s)
        if self.clock is not None:
            self.clock.advance(max(timeout_s, 0.0) * 1000)
        return bool(self.inbox)

    def close(self) -> None:
        pass

    def deliver(self, address: Any, body: bytes, *, by: Any = None) -> None:
        """The fake peer ``by`` (``address`` by default) sends ``body``, sealed, from ``address``."""
        self.inbox.append((self.links[by or address].seal(body), address))

    def opened(self, address: Any) -> list[Message]:
        """Every message sent to ``address``, opened with its peer's end of the link (a failing tag: an error)."""
        messages = []
        for data, to in self.sent:
            if to == address and frame_kind(data) == b"S":
                opened = self.links[address].open(data)
                assert opened is not None and opened != "replayed", "a datagram the peer could not open"
                messages.append(decode(opened[0]))
        return messages


def _never_built(*args: object) -> World:
    """The session's builder where the test builds its world itself (never called)."""
    raise AssertionError("the test builds the session's world itself")


def running(*, host: bool = True, player: int | None = 0, players: int = 2,
            peers: tuple[tuple[Any, int | None], ...] = ((ONE, 1),)) -> tuple[Session, FakeTransport, list[str]]:
    """A session past its lobby (as ``wait_ready`` leaves it), talking to fake ``peers`` (address, player)."""
    clock = VirtualClock()
    transport, said = FakeTransport(clock), cast("list[str]", [])
    session = Session(transport, GAME, SessionOptions(input_delay=0, disconnect_timeout=3600), is_host=host,
                      say=said.append, build=_never_built, clock=clock)
    world = World(seed=3, ms_per_update=GAME.ms_per_update, players=players)
    GAME.build(world)
    session.machine.world, session.machine.player, session.machine.players, session.machine.session_id = world, player, players, SESSION
    session.machine.sync = Sync(world, players=players, local=player, input_delay=0, max_prediction=8)
    for token, (address, who) in enumerate(peers, start=1):
        keys = (os.urandom(32), os.urandom(32))  # as a join agrees them: each link its own
        ours = Link.of_host(SESSION, token, keys) if host else Link.of_joiner(SESSION, token, keys)
        transport.links[address] = Link.of_joiner(SESSION, token, keys) if host else Link.of_host(SESSION, token, keys)
        session.machine.add_peer(Peer(address, who, players, heard=1e18, max_ping_ms=3_600_000, token=token, link=ours))
    return session, transport, said


def peer_at(session: Session, address: Any) -> Peer:
    return next(peer for peer in session.machine.peers.values() if peer.address == address)


def inputs(sender: int, tick: int, acks: tuple[int, ...], runs: tuple[Run, ...] = (), *, session: int = SESSION,
           echo: float = 0.0) -> bytes:
    return encode_inputs(Inputs(session=session, sender=sender, tick=tick, acks=acks, runs=runs, ping=1.0,
                                echo=echo))


def byes_to(transport: FakeTransport, address: Any) -> list[str]:
    return [packet.reason for packet in transport.opened(address) if isinstance(packet, Bye)]


def play(session: Session, transport: FakeTransport, ticks: int, *, one_acks: bool,
         watcher: bool = False) -> None:
    """Host ``ticks`` ticks: player 1 sends each tick's input (acknowledging ours or not), a spectator never acks."""
    sync = session.machine.sync
    assert sync is not None
    for tick in range(1, ticks + 1):
        acks = tuple(sync.known) if one_acks else (0, 0)
        transport.deliver(ONE, inputs(1, tick, acks, (Run(1, tick, tick),)))
        if watcher:
            transport.deliver(WATCHER, inputs(SPECTATOR, 0, (0, 0)))
        session.poll()
        session.advance(())
        if session.ended is not None:
            return


def test_a_spectator_that_never_acknowledges_is_dropped_alone_and_told_why() -> None:
    session, transport, said = running(peers=((ONE, 1), (WATCHER, None)))
    play(session, transport, MAX_ACK_LAG + 20, one_acks=True, watcher=True)
    assert session.ended is None, "the players play on"
    assert [peer.player for peer in session.machine.peers.values()] == [1]
    assert any(f"the spectator at 127.0.0.1:5003 fell {MAX_ACK_LAG + 1} ticks behind" in line for line in said), said
    reasons = byes_to(transport, WATCHER)
    assert reasons and "this spectator fell" in reasons[0] and "dropped by the host" in reasons[0]
    assert session.machine.sync is not None and len(session.machine.sync._events[1]) <= 16, "its inputs are no longer kept"
    # The spectator, told so, ends naming why (the command line prints it and exits 1).
    watcher, heard, _ = running(host=False, player=None, peers=((HOST, 0),))
    heard.deliver(HOST, encode(Bye(session=SESSION, reason=reasons[0])))
    watcher.poll()
    assert watcher.ended == reasons[0]


def test_a_player_that_keeps_sending_but_never_acknowledges_is_bounded_too() -> None:
    session, transport, said = running()
    play(session, transport, MAX_ACK_LAG + 50, one_acks=False)
    assert session.ended is not None and "player 1 (127.0.0.1:5001) fell" in session.ended, session.ended
    assert session.machine.sync is not None and session.machine.sync.current <= MAX_ACK_LAG + 2
    assert byes_to(transport, ONE), "player 1 is told"


class _NoWalking(dict[int, Any]):
    def __iter__(self) -> Any:
        raise AssertionError("the whole log was walked to send a run")


def test_a_run_to_send_costs_the_run_not_the_whole_log() -> None:
    with World(seed=3, players=2) as world:
        sync = Sync(world, players=2, local=0)
        sync._events[1] = _NoWalking({tick: (PRESS,) for tick in range(0, 10_000, 3)})
        assert sync.run_of(1, 5, 10) == {6: (PRESS,), 9: (PRESS,)}


def test_a_forged_echo_gives_a_ping_within_the_disconnect_timeout() -> None:
    peer = Peer(ONE, 1, 2, max_ping_ms=5000.0)
    peer.take(Inputs(session=SESSION, sender=1, tick=0, acks=(0, 0), echo=1.0), now=100_000.0, known=(0, 0))
    assert peer.ping_ms == peer.last_ping_ms == 5000.0, "an echo from long ago: clamped to the timeout"
    ahead = Peer(ONE, 1, 2, max_ping_ms=5000.0)
    ahead.take(Inputs(session=SESSION, sender=1, tick=0, acks=(0, 0), echo=9e8), now=10.0, known=(0, 0))
    assert ahead.ping_ms == 0.0, "an echo from the future: no negative ping"


def test_the_hud_names_whom_this_peer_is_ahead_of_and_calls_it_an_estimate() -> None:
    from types import SimpleNamespace

    one, two = Peer(ONE, 1, 3), Peer(TWO, 2, 3)
    one.tick, two.tick = 95, 90  # player 2 is the one furthest behind
    sync: Any = SimpleNamespace(current=100, rollbacks=0, world=SimpleNamespace(ms_per_update=15.625))
    stats = SessionStats()
    stats.refresh([one, two], sync, now=0.0)
    assert (stats.frames_ahead, stats.ahead_of) == (10.0, 2)
    assert "est. 10.0 ticks ahead of player 2," in stats.hud_text()
    two.tick = 104
    stats.refresh([two], sync, now=0.0)
    assert "est. 4.0 ticks behind player 2," in stats.hud_text()
    assert "ahead" not in SessionStats().hud_text(), "no figure before any player is heard from"


@pytest.mark.parametrize("frames_ahead", [3.0, 9.0, 1e5])
def test_a_wait_recommendation_is_a_few_frames_at_most(frames_ahead: float) -> None:
    wait = SessionStats(frames_ahead=frames_ahead).recommend_wait()
    assert 1 <= wait <= MAX_WAIT
    session, transport, _ = running()
    transport.deliver(ONE, inputs(1, 0, (0, 0)))  # player 1 says it is at tick 0 for ever
    play(session, transport, 200, one_acks=True)
    peer_at(session, ONE).tick = 0
    assert session.machine.recommend_wait() == MAX_WAIT


def test_spoofed_datagrams_are_dropped_counted_and_never_used() -> None:
    session, transport, _ = running(players=3, peers=((ONE, 1), (TWO, 2), (WATCHER, None)))
    sync = session.machine.sync
    assert sync is not None
    one = peer_at(session, ONE)
    session.machine.desync = DesyncExchange(lambda body: None, one.token, SESSION, 30, None, who="player 1", timeout_s=3600,
                                    now=0.0)
    run = Run(1, 1, 5, ((2, (PRESS,)),))
    chunk = encode(Chunk(session=SESSION, tick=30, index=0, total=1, data=b"x"))
    mixed_up = [  # each sealed by a welcomed peer's own link: what it says is refused, not how it came
        (ONE, inputs(1, 5, (0, 0, 0), (run,), session=SESSION + 1)),  # another session in the body
        (ONE, inputs(2, 5, (0, 0, 0), (Run(2, 1, 5),))),  # player 1 speaking as player 2
        (ONE, inputs(1, 5, (0, 0, 0), (run, Run(2, 1, 5)))),  # player 1 speaking for player 2 too
        (WATCHER, inputs(SPECTATOR, 5, (0, 0, 0), (run,))),  # a spectator giving input
        (ONE, inputs(1, 5, (0, 0))),  # acks for another number of players
        (WATCHER, chunk),  # a spectator's snapshot
        (TWO, chunk),  # not the swap's peer
    ]
    for address, body in mixed_up:
        transport.deliver(address, body)
    forger = Link(SESSION, one.token, os.urandom(32), os.urandom(32))  # knows the token, not the key
    transport.inbox.append((forger.seal(inputs(1, 5, (0, 0, 0), (run,))), STRANGER))
    session.poll()
    assert session.machine.stats.garbage == len(mixed_up) and session.machine.stats.damaged == 1
    assert sync.known == [0, 0, 0] and session.machine.desync.theirs == {}
    assert all(peer.acks == [0, 0, 0] for peer in session.machine.peers.values())
    assert one.address == ONE, "a forged datagram from a new address moves nobody"
    # A joiner: the host relays the others' input, never this player's own.
    joiner, joined, _ = running(host=False, player=1, peers=((HOST, 0),))
    joined.deliver(HOST, inputs(0, 5, (0, 0), (Run(0, 1, 5), Run(1, 1, 5, ((2, (PRESS,)),)))))
    joiner.poll()
    assert joiner.machine.stats.garbage == 1 and joiner.machine.sync is not None and joiner.machine.sync.known == [0, 0]


def test_a_strangers_goodbye_after_the_start_is_let_go_uncounted_and_garbage_counted() -> None:
    session, transport, _ = running()
    gone = Link(SESSION, 99, os.urandom(32), os.urandom(32))
    session.machine.departed.add(99)  # a joiner that left the lobby: its goodbye's copies arrive after the start
    transport.inbox.append((gone.seal(bye(SESSION, "the peer closed the session")), STRANGER))
    session.poll()
    assert session.machine.stats.garbage == session.machine.stats.damaged == 0 and session.ended is None
    transport.inbox.append((b"TSW1 not a packet", STRANGER))
    session.poll()
    assert session.machine.stats.garbage == 1, "garbage is still garbage"


def test_the_summary_shows_measured_pings_both_losses_and_counts_in_words() -> None:
    session, transport, _ = running()
    transport.deliver(ONE, inputs(1, 0, (0, 0), echo=1.0))
    session.poll()
    assert session.machine.stats.pings == 1 and session.machine.stats.last_ping_ms is not None
    stats = SessionStats(garbage=4, waits={1: 1, 2: 3})
    for ping in (10.0, 20.0):
        stats.took_ping(ping)
    assert stats.summary(1, 8, {"emulated_lost": 7}) == (
        "session: 1 rollback (8 ticks re-simulated), 4 garbage dropped, 7 lost by the emulator, "
        "ping 15 ms mean, 20 ms last, stalled once waiting for player 1's input, "
        "stalled 3 times waiting for player 2's input")
    assert SessionStats().summary(0, 0, {}) == "session: 0 rollbacks (0 ticks re-simulated), no ping measured", (
        "no garbage and no emulator: neither is said")
    assert SessionStats().summary(0, 0, {"emulated_lost": 0}) == (
        "session: 0 rollbacks (0 ticks re-simulated), 0 lost by the emulator, no ping measured"), (
        "with an emulator, its 0 is said: nothing was lost")


def proven(hello: bytes, address: Any, session: Session) -> bytes:
    """``hello`` with the host's cookie for ``address``: sent from an address that proved it receives there."""
    return seal_proven(hello, session.machine.cookies.cookie(address, session.machine.now()))


def test_a_late_join_after_the_start_is_counted_as_refused_not_as_garbage() -> None:
    session, transport, _ = running()
    late = proven(seal_hello(encode(Hello(game="game.py", digest="", engine="1.0", spectate=True, nonce=9))), STRANGER,
                  session)
    # A late spectator: its knock on the port (an empty datagram), its Hello, the Hello again (it missed the Refuse).
    transport.inbox.extend([(b"", STRANGER), (late, STRANGER), (late, STRANGER)])
    session.poll()
    assert session.machine.stats.garbage == 0 and session.machine.stats.late_joins == 1
    assert session.machine.stats.summary(0, 0, {}) == "session: 0 rollbacks (0 ticks re-simulated), refused 1 late join, " \
        "no ping measured"
    another = proven(seal_hello(encode(Hello(game="game.py", digest="", engine="1.0", spectate=False, nonce=10))),
                     STRANGER, session)
    transport.inbox.extend([(another, STRANGER), (b"TSW1 not a packet", STRANGER)])
    session.poll()
    assert (session.machine.stats.late_joins, session.machine.stats.garbage) == (2, 1)
    assert "1 garbage dropped, refused 2 late joins" in session.machine.stats.summary(0, 0, {})


def test_late_joins_are_remembered_within_bounds_and_a_flood_still_counts() -> None:
    stats = SessionStats()
    for nonce in range(LATE_REMEMBERED + 10):
        stats.refused_late(STRANGER, nonce)
    stats.refused_late(STRANGER, 0)  # remembered: the same join asking again
    stats.refused_late(STRANGER, LATE_REMEMBERED + 5)  # past the bound: counted again, memory kept
    assert stats.late_joins == LATE_REMEMBERED + 11 and len(stats.late_seen) == LATE_REMEMBERED


def test_idle_waits_for_the_network_only_while_the_session_is_stalled() -> None:
    session, transport, _ = running()
    session.idle(0.016)
    assert transport.waits == [], "before any advance there is nothing to wait for"
    for _ in range(8):  # max_prediction: eight ticks run ahead of player 1 without its input
        assert session.advance(()) == 1
        session.idle(0.016)
    assert transport.waits == [], "a peer running ticks never waits"
    assert session.advance(()) == 0, "the ninth would predict too far: the session waits for player 1"
    session.idle(0.016)
    session.idle(0.0)
    assert transport.waits == [0.016], "a stalled peer waits once a frame, for as long as asked"
    session.machine.ended = "the peer left"
    session.idle(0.016)
    assert transport.waits == [0.016], "an ended session never waits"


def test_a_one_bit_flip_that_still_parses_is_dropped_and_counted_not_played() -> None:
    # The finding: 65362 (LEFT) flipped to 65363 (RIGHT) still parses, and the host played it.
    session, transport, _ = running()
    sync = session.machine.sync
    assert sync is not None
    left = InputEvent("key_press", keys.LEFT)
    sealed = transport.links[ONE].seal(inputs(1, 3, (0, 0), (Run(1, 1, 3, ((2, (left,)),)),)))
    at = sealed.index(b"65361") + 4  # keys.LEFT is 65361: its last digit, one bit from 65360 and 65363 ('1' ^ 2)
    damaged = sealed[:at] + bytes([sealed[at] ^ 0x02]) + sealed[at + 1:]
    assert damaged.count(b"65363") == 1, "the damaged datagram still holds a valid key code"
    transport.inbox.append((damaged, ONE))
    session.poll()
    assert session.machine.stats.damaged == 1 and sync.known == [0, 0] and sync.events_of(1, 2) == ()
    transport.inbox.append((sealed, ONE))  # the undamaged resend is taken
    session.poll()
    assert sync.known[1] == 3 and sync.events_of(1, 2) == (left,)
    assert "1 damaged or forged dropped" in session.machine.summary({})


def test_a_peer_is_followed_to_a_new_address_only_by_its_newest_well_sealed_datagram() -> None:
    session, transport, _ = running()
    one = peer_at(session, ONE)
    moved, elsewhere = ("127.0.0.1", 6001), ("127.0.0.1", 6002)
    early = transport.links[ONE].seal(inputs(1, 0, (0, 0)))
    forger = Link(SESSION, one.token, os.urandom(32), os.urandom(32))
    transport.inbox.append((forger.seal(inputs(1, 0, (0, 0))), moved))  # forged, from a new address
    session.poll()
    assert one.address == ONE and session.machine.stats.damaged == 1, "a bad tag changes nothing"
    transport.deliver(moved, inputs(1, 0, (0, 0)), by=ONE)  # its NAT rebound it: a new port, its newest datagram
    session.poll()
    assert one.address == moved and session.machine.stats.moved == 1
    transport.inbox.append((early, elsewhere))  # an older datagram replayed from a third address
    session.poll()
    assert one.address == moved, "a replay is used as a resend, and moves nothing"
    transport.sent.clear()
    session.advance(())
    assert {to for _, to in transport.sent} == {moved}, "replies go to the new address; the old one is forgotten"
    assert "followed 1 address change" in session.machine.summary({})


def test_a_player_saying_its_own_presence_or_a_delay_is_dropped_as_a_mix_up() -> None:
    # A player's "disconnect" and "connect", and the input delay, are the host's to write for everyone.
    session, transport, _ = running()
    sync = session.machine.sync
    assert sync is not None
    gone = Run(1, 1, 3, ((2, (InputEvent("disconnect"),)),))
    transport.deliver(ONE, inputs(1, 3, (0, 0), (gone,)))
    transport.deliver(ONE, encode_inputs(Inputs(session=SESSION, sender=1, tick=3, acks=(0, 0), runs=(Run(1, 1, 3),),
                                                ping=1.0, delays=((100, 5),))))
    session.poll()
    assert session.machine.stats.garbage == 2 and sync.known == [0, 0] and not session.machine.delay_changes
