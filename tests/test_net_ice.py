"""Two peers behind emulated home routers meet by a room code and end bit-identical: directly, and through TURN.

Real UDP on 127.0.0.1 (``icesim``): a rendezvous in a thread, a ``NatBox`` per house, and
for TURN the system's coturn started by the test (skipped with a message where it is not
installed). Host candidates are gathered on 127.0.0.1 only, and STUN and TURN are asked on
127.0.0.1 only: the tests assert every candidate gathered and every address a router sent
to is 127.0.0.1.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import cast

import pytest
from icesim import Coturn, Meeting, Rendezvous, meet, rendezvous, scripts
from netsim import GAME, reference

from engine.net.ice import IceConfig
from engine.net.lobby import SessionError
from engine.net.nat import NatBox
from engine.net.rendezvous import new_code
from engine.net.room import HostRoom, JoinRoom
from engine.net.session import Session, SessionOptions
from engine.world import World

TICKS = 300


@pytest.fixture(scope="module")
def served() -> Iterator[Rendezvous]:
    with rendezvous() as running:
        yield running


def assert_on_the_offline_hash(meeting: Meeting) -> None:
    offline = reference(TICKS, scripts())
    assert meeting.host.world is not None and meeting.joiner.world is not None
    assert meeting.host.world.state_hash() == meeting.joiner.world.state_hash() == offline
    assert meeting.host.machine.stats.damaged == meeting.joiner.machine.stats.damaged == 0


def assert_only_loopback(meeting: Meeting) -> None:
    """Every candidate gathered or offered, and every address a router sent to, is on 127.0.0.1."""
    for path in (meeting.host_path, meeting.joiner_path):
        assert {c.host for c in path.gathered + path.offered} == {"127.0.0.1"}, path.gathered + path.offered
    for box in meeting.boxes:
        assert box.destinations and {host for host, _ in box.destinations} == {"127.0.0.1"}


def test_behind_full_cone_and_port_restricted_routers_the_peers_meet_directly(served: Rendezvous) -> None:
    meeting = meet(("full-cone", "port-restricted"), served)
    assert_on_the_offline_hash(meeting)
    assert_only_loopback(meeting)
    for path in (meeting.host_path, meeting.joiner_path):
        assert {c.kind for c in path.gathered} == {"host", "srflx"}  # STUN from the rendezvous, no TURN given
        assert not path.relayed and path.local.kind == "host" and path.remote.kind in ("srflx", "prflx")
    # The joiner's host address is private behind its router: the host reached it at the router's port.
    assert meeting.host_path.remote_address != meeting.joiner_path.local.address


def test_two_port_restricted_routers_are_punched_through(served: Rendezvous) -> None:
    meeting = meet(("port-restricted", "port-restricted"), served)
    assert_on_the_offline_hash(meeting)
    assert not meeting.host_path.relayed and not meeting.joiner_path.relayed


def test_two_symmetric_routers_meet_through_the_turn_relay(served: Rendezvous, coturn: Coturn) -> None:
    meeting = meet(("symmetric", "symmetric"), served, turn=coturn.turn)
    assert_on_the_offline_hash(meeting)
    assert_only_loopback(meeting)
    for path in (meeting.host_path, meeting.joiner_path):
        assert {c.kind for c in path.gathered} == {"host", "srflx", "relay"}
        assert path.relayed
    relayed = [path for path in (meeting.host_path, meeting.joiner_path) if path.local.kind == "relay"]
    assert relayed, "one side at least sends through its own relay"
    counters = relayed[0].transport.counters
    assert counters["relay_channel_data"] > TICKS // 2 and counters["relay_dropped"] == 0
    assert coturn.turn.address in set().union(*(box.destinations for box in meeting.boxes))


def test_a_rebinding_joiner_is_followed_through_the_hosts_relay_which_binds_its_new_ports(served: Rendezvous,
                                                                                          coturn: Coturn) -> None:
    # The host, behind a symmetric router, relays; the joiner's router moves its port every 150 ms or so.
    meeting = meet(("symmetric", "rebinding"), served, turn=coturn.turn, joiner_turn=False, rebind_ms=150)
    assert_on_the_offline_hash(meeting)
    assert meeting.host_path.local.kind == "relay" and meeting.joiner_path.remote.kind == "relay"
    assert meeting.boxes[1].table.moves >= 2
    assert meeting.host.machine.stats.moved >= 2, "the host followed the joiner to its new ports"
    counters = meeting.host_path.transport.counters
    assert counters["relay_requests"] >= 2 + meeting.host.machine.stats.moved  # a channel bound for each new port


def test_a_full_cone_router_lets_a_symmetric_ones_fresh_port_in_directly(served: Rendezvous) -> None:
    meeting = meet(("full-cone", "symmetric"), served)
    assert_on_the_offline_hash(meeting)
    assert not meeting.host_path.relayed and meeting.host_path.remote.kind == "prflx"  # learned in the checks


def test_a_rebinding_joiner_is_followed_on_a_direct_path(served: Rendezvous) -> None:
    meeting = meet(("full-cone", "rebinding"), served, rebind_ms=150)
    assert_on_the_offline_hash(meeting)
    assert not meeting.host_path.relayed and meeting.boxes[1].table.moves >= 2
    assert meeting.host.machine.stats.moved >= 2


@pytest.mark.parametrize("kinds", [("symmetric", "symmetric"), ("symmetric", "port-restricted")])
def test_routers_that_need_a_relay_find_no_path_without_one_and_say_so_in_bounded_time(
        served: Rendezvous, kinds: tuple[str, str]) -> None:
    boxes = [NatBox(kind, seed=n) for n, kind in enumerate(kinds)]
    configs = [IceConfig(stun=served.address, hosts=("127.0.0.1",), sockets=box.make_socket, timeout_s=2.0)
               for box in boxes]
    said: list[str] = []
    code = new_code()
    room = HostRoom(served.address, code, configs[0], say=said.append)
    joining = JoinRoom(served.address, code, configs[1], say=said.append, timeout_s=30)
    try:
        room.open(10)
        with pytest.raises(SessionError, match=f"no path to the host of room {code}: ICE found no path to the "
                                               r"other side within 2 s \(2 candidates here, 2 there; neither side has a "
                                               r"TURN relay, "
                                               r"which symmetric routers need\)"):
            for _ in range(5000):
                room.receive()
                room.wait(0.002)
                joining.step(0.005)
        assert room.paths == []
    finally:
        room.close()
        joining.close()
        for box in boxes:
            box.close()


def test_a_code_no_host_opened_is_refused_by_the_rendezvous(served: Rendezvous) -> None:
    box = NatBox("full-cone")
    joining = JoinRoom(served.address, "ABCDEF", IceConfig(stun=served.address, hosts=("127.0.0.1",),
                                                             sockets=box.make_socket), say=print, timeout_s=30)
    try:
        with pytest.raises(SessionError, match=f"the rendezvous at 127.0.0.1:{served.address[1]} has no room ABCDEF: "
                                               "check the code"):
            joining.run()
    finally:
        joining.close()
        box.close()


def test_three_players_meet_in_one_room_each_joiner_by_a_path_of_its_own(served: Rendezvous) -> None:
    """The host's room takes joiners one offer at a time; its transport sends each datagram by its joiner's path."""
    boxes = [NatBox(kind, seed=n) for n, kind in enumerate(("port-restricted", "full-cone", "port-restricted"))]
    configs = [IceConfig(stun=served.address, hosts=("127.0.0.1",), sockets=box.make_socket) for box in boxes]
    code = new_code()
    room = HostRoom(served.address, code, configs[0], say=lambda line: None)
    joinings = [JoinRoom(served.address, code, config, say=lambda line: None, timeout_s=60) for config in configs[1:]]
    peers: list[Session] = []
    deadline = time.monotonic() + 60
    try:
        room.open(10)
        host = Session.host(GAME, players=3, seed=3, options=SessionOptions(ticks=TICKS, code=code), transport=room,
                            say=lambda line: None)
        host.open_lobby(60)
        peers.append(host)
        paths: dict[int, object] = {}
        while len(paths) < 2 or not all(peer.ready for peer in peers):
            assert time.monotonic() < deadline, "the room of three did not fill within 60 s"
            for peer in peers:
                peer.poll()
            room.wait(0.002)
            for n, joining in enumerate(joinings):
                if n not in paths:
                    path = joining.step(0.003)
                    if path is not None:
                        paths[n] = path
                        joiner = Session.join(path.remote_address, GAME, transport=path.transport,
                                              options=SessionOptions(code=code), say=lambda line: None)
                        joiner.open_lobby(60)
                        peers.append(joiner)
        room.close_room()
        three = [*scripts(), {20: scripts()[0][5]}]
        for peer in peers:
            assert peer.player is not None
            peer.script = three[peer.player]
            peer.start_ticks(TICKS)
        while not all(peer.over for peer in peers):
            assert time.monotonic() < deadline, "the session of three did not end within 60 s"
            for peer in peers:
                if not peer.over:
                    peer.step_ticks()
            room.wait(0.001)
        assert len(room.paths) == 2 and {peer.player for peer in peers} == {0, 1, 2}
        worlds = [peer.world for peer in peers]
        assert all(world is not None for world in worlds)
        assert len({cast(World, world).state_hash() for world in worlds}) == 1
        assert cast(World, host.world).state_hash() == reference(TICKS, three)
    finally:
        for peer in peers:
            peer.close()
        room.close()
        for joining in joinings:
            joining.close()
        for box in boxes:
            box.close()


def test_the_handed_over_transport_answers_the_peers_late_checks_and_passes_the_game_through() -> None:
    from engine.net import stun
    from engine.net.emulate import MemoryNetwork
    from engine.net.ice import IceTransport

    network = MemoryNetwork()
    ours, theirs = network.transport(), network.transport()
    transport = IceTransport(ours, "ours", "p" * 22, "them")

    def check(username: str, password: str) -> bytes:
        return stun.build(stun.BINDING, stun.REQUEST, [(stun.USERNAME, username.encode())], key=password.encode(),
                          fingerprint=True)

    theirs.send(check("ours:them", "p" * 22), ours.address)  # the peer's last check, after our hand-over
    theirs.send(check("ours:them", "q" * 22), ours.address)  # a check with the wrong password
    theirs.send(check("ours:else", "p" * 22), ours.address)  # someone else's
    theirs.send(b"TSW2 a game datagram", ours.address)
    assert transport.receive() == [(b"TSW2 a game datagram", theirs.address)]
    (answer, _), = theirs.receive()
    message = stun.parse(answer)
    assert message is not None and message.klass == stun.SUCCESS
    assert message.address(stun.XOR_MAPPED_ADDRESS) == theirs.address and message.integrity_ok(b"p" * 22)
    assert transport.counters["ice_answered"] == 1 and transport.counters["ice_dropped"] == 2


def test_a_turn_server_is_named_with_its_credentials() -> None:
    from engine.net.ice import TurnServer

    assert TurnServer.parse("alice:s3cret@127.0.0.1:3478") == TurnServer(("127.0.0.1", 3478), "alice", "s3cret")
    assert TurnServer.parse("alice@127.0.0.1:3478", password="from-env").password == "from-env"
    for text, problem in (("127.0.0.1:3478", "is not USER:PASSWORD@HOST:PORT"),
                          ("alice@127.0.0.1:3478", "has no password"),
                          ("alice:pw@turn.example.org:3478", "'turn.example.org' is not an IPv4 address"),
                          ("alice:pw@127.0.0.1:99999", "is not HOST:PORT with a port from 1 to 65535")):
        with pytest.raises(ValueError, match=problem):
            TurnServer.parse(text)
    assert "s3cret" not in repr(TurnServer.parse("alice:s3cret@127.0.0.1:3478"))  # a password is not shown


def test_the_relays_refreshes_on_the_sessions_clock_are_taken_by_a_real_coturn(served: Rendezvous,
                                                                               coturn: Coturn) -> None:
    """After the hand-over the relay's time is the session's clock: 5 virtual minutes of refreshes, coturn agrees."""
    from engine import VirtualClock
    from engine.net.relay import RelayTransport

    clock = VirtualClock()
    boxes = [NatBox("symmetric", seed=n) for n in range(2)]
    configs = [IceConfig(stun=served.address, turn=coturn.turn if n == 0 else None, hosts=("127.0.0.1",),
                         sockets=box.make_socket) for n, box in enumerate(boxes)]
    code = new_code()
    room = HostRoom(served.address, code, configs[0], say=lambda line: None, clock=clock)
    joining = JoinRoom(served.address, code, configs[1], say=lambda line: None, timeout_s=60)
    deadline = time.monotonic() + 60
    try:
        room.open(10)
        found = None
        while found is None or not room.paths:
            assert time.monotonic() < deadline, "no path within 60 s"
            room.receive()
            room.wait(0.002)
            found = found or joining.step(0.005)
        room.close_room()
        host, joiner = room.paths[0], found
        relay = host.transport.inner
        assert isinstance(relay, RelayTransport)

        def exchange(word: bytes) -> None:
            """The joiner sends ``word`` to the host's relay and the host answers: both arrive."""
            joiner.transport.send(word, joiner.remote_address)
            heard: list[tuple[bytes, tuple[str, int]]] = []
            while not heard:
                assert time.monotonic() < deadline, f"{word!r} did not arrive"
                heard = [(data, source) for data, source in host.transport.receive() if data == word]
                host.transport.wait(0.005)
            host.transport.send(word + b" back", heard[0][1])
            while word + b" back" not in [data for data, _ in joiner.transport.receive()]:
                assert time.monotonic() < deadline, f"{word!r} was not answered"
                joiner.transport.wait(0.005)
            while relay.relay.pending:  # the refreshes this minute asked for, answered before the next
                assert time.monotonic() < deadline, "coturn did not answer the relay's requests"
                host.transport.receive()
                host.transport.wait(0.005)

        exchange(b"first")
        for minute in range(1, 6):
            clock.advance(60_000)
            exchange(f"minute {minute}".encode())
        counters = relay.counters
        assert counters["relay_requests"] >= 2 + 2 + 1, counters  # at the hand-over, then 2 refreshes, a channel's
        assert counters["relay_refused"] == counters["relay_dropped"] == counters["relay_retries"] == 0, counters
        assert relay.relay.lost is None and relay.relay.lifetime_s > 0
    finally:
        for path in room.paths:
            path.transport.close()
        room.close()
        joining.close()
        for box in boxes:
            box.close()


@pytest.mark.parametrize(("stun_silent", "said"), [
    (True, "room ABCDEF: no path of this machine gathered within 1 s (its STUN or TURN server did not answer; "
           "the rendezvous at 127.0.0.1:{port} is the STUN server unless --stun names one)"),
    (False, "no answer from the rendezvous at 127.0.0.1:{port} within "),
])
def test_a_silent_rendezvous_is_named_within_the_joiners_time_limit(stun_silent: bool, said: str) -> None:
    # A newcomer's trial: nothing at the rendezvous's port, --lobby-timeout 3, and the joiner said
    # after 9.6 s that the room "stayed busy with other joiners".
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind(("127.0.0.1", 0))
        port = silent.getsockname()[1]
        config = IceConfig(stun=silent.getsockname() if stun_silent else None, hosts=("127.0.0.1",))
        joining = JoinRoom(silent.getsockname(), "ABCDEF", config, say=lambda line: None, timeout_s=1.0)
        try:
            with pytest.raises(SessionError) as refused:
                joining.run()
        finally:
            joining.close()
    assert str(refused.value).startswith(said.format(port=port)), refused.value
    assert "busy" not in str(refused.value)
