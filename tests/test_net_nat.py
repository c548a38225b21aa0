"""The NAT emulator: each kind maps and filters as RFC 4787 says; a rebinding router moves; a private address is private."""

from __future__ import annotations

import socket

import pytest

from engine import VirtualClock
from engine.net.nat import MAX_MAPPINGS, NatBox, NatTable

INSIDE = ("127.0.0.1", 5000)
STUN = ("127.0.0.1", 3478)
PEER = ("127.0.0.1", 6000)
STRANGER = ("127.0.0.1", 7000)


@pytest.mark.parametrize("kind, same_port, stranger_in, peer_other_port_in", [
    ("full-cone", True, True, True),
    ("port-restricted", True, False, False),
    ("symmetric", False, False, False),
    ("rebinding", True, False, False),
])
def test_each_kind_maps_and_filters_as_its_name_says(kind: str, same_port: bool, stranger_in: bool,
                                                     peer_other_port_in: bool) -> None:
    table = NatTable(kind, clock=VirtualClock())
    to_stun = table.outbound(INSIDE, STUN)
    to_peer = table.outbound(INSIDE, PEER)
    assert (to_stun == to_peer) is same_port  # one outside port for every far address, or one each
    assert table.inbound(to_peer, PEER) == INSIDE  # an answer from where it sent always comes in
    assert (table.inbound(to_peer, STRANGER) is not None) is stranger_in
    assert (table.inbound(to_peer, ("127.0.0.1", PEER[1] + 1)) is not None) is peer_other_port_in
    if kind == "symmetric":
        assert table.inbound(to_stun, PEER) is None  # the STUN mapping lets only the STUN server answer
    assert table.inbound(999, PEER) is None  # no such outside port


def test_a_rebinding_router_moves_every_mapping_once_armed_and_not_before() -> None:
    clock = VirtualClock()
    table = NatTable("rebinding", clock=clock, seed=4, rebind_ms=200)
    key = table.outbound(INSIDE, PEER)
    clock.advance(1000)
    assert table.poll() == [] and table.outbound(INSIDE, PEER) == key  # not armed: play has not started
    table.arm()
    due = table.next_due()
    assert due is not None and 0.1 <= due - clock.now_ns() / 1e9 <= 0.3  # half to one and a half of 200 ms
    clock.advance(300)
    assert table.poll() == [key] and table.moves == 1
    assert table.inbound(key, PEER) is None  # the old port is gone
    moved = table.outbound(INSIDE, PEER)
    assert moved != key and table.inbound(moved, PEER) == INSIDE


def test_the_table_is_bounded() -> None:
    table = NatTable("symmetric", clock=VirtualClock())
    keys = [table.outbound(INSIDE, ("127.0.0.1", 10000 + n)) for n in range(MAX_MAPPINGS + 10)]
    assert len(table.keys) == MAX_MAPPINGS and keys[0] not in table.keys and keys[-1] in table.keys


def test_wrong_settings_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="NAT kind 'cone' is not one of full-cone, port-restricted"):
        NatTable("cone")
    with pytest.raises(ValueError, match="NAT rebind_ms is a time in ms from 50, got 10"):
        NatTable("rebinding", rebind_ms=10)


def test_a_box_on_real_sockets_routes_out_filters_in_and_keeps_the_inside_private() -> None:
    box = NatBox("port-restricted")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as server, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as stranger:
        server.bind(("127.0.0.1", 0))
        stranger.bind(("127.0.0.1", 0))
        inside = box.make_socket()
        try:
            inside.bind(("127.0.0.1", 0))
            inside.sendto(b"out", server.getsockname())
            server.settimeout(5.0)
            data, outside = server.recvfrom(100)
            assert data == b"out" and outside != inside.getsockname()  # it left by the router's own port
            stranger.sendto(b"direct", inside.getsockname())  # the private address: nothing from outside
            stranger.sendto(b"filtered", outside)  # never sent to: a port-restricted router drops it
            server.sendto(b"answer", outside)  # after the others: when it is in, they were dealt with
            inside.settimeout(5.0)
            assert inside.recvfrom(100) == (b"answer", server.getsockname())
            assert box.destinations == {server.getsockname()}
            assert box.forwarded["filtered"] == 1
        finally:
            inside.close()
            box.close()


def test_what_the_house_sent_before_its_router_closed_still_goes_out() -> None:
    # A host's goodbye sent just before it left (issue 39's room flake): the box's thread had
    # not run since, and closing dropped the datagrams waiting at its gateway.
    box = NatBox("port-restricted")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as server:
        server.bind(("127.0.0.1", 0))
        inside = box.make_socket()
        try:
            inside.bind(("127.0.0.1", 0))
            with box._lock:  # the box's thread cannot forward them before the close
                for number in range(3):
                    inside.sendto(b"bye %d" % number, server.getsockname())
        finally:
            box.close()
            inside.close()
        server.settimeout(5.0)
        assert [server.recvfrom(100)[0] for _ in range(3)] == [b"bye 0", b"bye 1", b"bye 2"]
