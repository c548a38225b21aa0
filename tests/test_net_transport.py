"""UDP transports on 127.0.0.1 (real sockets, bounded by a deadline), the in-memory network and the seeded emulator."""

from __future__ import annotations

import errno
import socket
import time

import pytest

from engine.net.emulate import REORDER_MS, EmulatedTransport, Emulation, MemoryNetwork
from engine.net.packets import MAX_DATAGRAM
from engine.net.transport import Address, TransportError, UdpTransport


def _receive_all(transport, count, deadline_s=2.0):
    """Poll (no sleeping) until ``count`` datagrams arrived or the deadline passed."""
    got: list[tuple[bytes, Address]] = []
    deadline = time.monotonic() + deadline_s
    while len(got) < count and time.monotonic() < deadline:
        got.extend(transport.receive())
    return got


def test_two_transports_exchange_datagrams_without_blocking():
    with UdpTransport() as a, UdpTransport() as b:
        assert a.receive() == []  # nothing waiting: returns at once
        for index in range(5):
            assert a.send(b"ping %d" % index, b.address)
        got = _receive_all(b, 5)
        assert sorted(data for data, _ in got) == [b"ping %d" % index for index in range(5)]
        assert {sender for _, sender in got} == {a.address}
        assert a.counters["sent"] == 5 and b.counters["received"] == 5


def test_receive_takes_at_most_limit_and_leaves_the_rest():
    with UdpTransport() as a, UdpTransport() as b:
        for index in range(4):
            a.send(bytes([index]), b.address)
        first: list[tuple[bytes, Address]] = []
        deadline = time.monotonic() + 2.0
        while not first and time.monotonic() < deadline:
            first = b.receive(limit=1)
        assert len(first) == 1
        assert len(first) + len(_receive_all(b, 3)) == 4


def test_a_datagram_over_the_limit_is_dropped_and_counted():
    with UdpTransport() as b, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw:
        raw.sendto(b"x" * (MAX_DATAGRAM + 1), b.address)
        raw.sendto(b"y" * MAX_DATAGRAM, b.address)
        got = _receive_all(b, 1)
        assert [data for data, _ in got] == [b"y" * MAX_DATAGRAM]
        assert b.counters["oversize"] == 1


def test_a_taken_port_is_a_transport_error_naming_the_address():
    with UdpTransport() as a:
        port = a.address[1]
        with pytest.raises(TransportError, match=f"127.0.0.1:{port}") as caught:
            UdpTransport("127.0.0.1", port)
        assert isinstance(caught.value, OSError) and caught.value.errno == errno.EADDRINUSE
    with pytest.raises(TransportError, match="256.1.1.1:0"):
        UdpTransport("256.1.1.1", 0)
    with pytest.raises(TransportError, match="127.0.0.1:70000"):
        UdpTransport("127.0.0.1", 70000)


def test_sending_to_a_closed_port_never_raises():
    with UdpTransport() as a:
        gone = UdpTransport()
        address = gone.address
        gone.close()
        for _ in range(3):
            a.send(b"anyone?", address)
            a.receive()
        assert a.counters["sent"] + a.counters["send_refused"] + a.counters["send_failed"] == 3


class _Failing:
    """A socket whose sends fail as a full buffer, a closed port and an unreachable network do."""

    def __init__(self):
        self.errors = [BlockingIOError(errno.EAGAIN, "full"), ConnectionRefusedError(errno.ECONNREFUSED, "refused"),
                       OSError(errno.ENETUNREACH, "unreachable")]

    def sendto(self, data, to):
        raise self.errors.pop(0)

    def close(self):
        pass


def test_a_full_buffer_a_refused_port_and_an_unreachable_network_are_counted_not_raised():
    transport = UdpTransport()
    real = transport._socket
    transport._socket = _Failing()  # type: ignore[assignment]  # a stand-in socket whose sends fail
    try:
        assert [transport.send(b"x", ("127.0.0.1", 9)) for _ in range(3)] == [False, False, False]
        assert (transport.counters["send_blocked"], transport.counters["send_refused"],
                transport.counters["send_failed"], transport.counters["sent"]) == (1, 1, 1, 0)
    finally:
        transport._socket = real
        transport.close()


def test_a_closed_transport_refuses_use_and_an_oversize_send_is_a_value_error():
    transport = UdpTransport()
    with pytest.raises(ValueError, match="1201 bytes"):
        transport.send(b"x" * 1201, ("127.0.0.1", 9))
    transport.close()
    transport.close()
    with pytest.raises(TransportError, match="closed"):
        transport.receive()


class _Clock:
    """A clock (``engine.clock``'s protocol) a test sets by hand, in seconds: ``now``."""

    def __init__(self):
        self.now = 100.0

    def now_ns(self):
        return round(self.now * 1e9)

    def now_ms(self):
        return self.now * 1000

    def sleep_ms(self, ms):
        self.now += ms / 1000


class _Recorder:
    """A transport that records what is sent and when (by the fake clock)."""

    def __init__(self, clock):
        self.clock = clock
        self.sent = []
        self.waits = []
        self.counters = {"sent": 0}
        self.address = ("127.0.0.1", 1)
        self.closed = False

    def send(self, data, to):
        self.sent.append((self.clock.now, data))
        self.counters["sent"] += 1
        return True

    def receive(self, limit=256):
        return []

    def wait(self, timeout_s):
        self.waits.append((self.clock.now, timeout_s))
        return False

    def close(self):
        self.closed = True


def _schedule(emulation, count=200, step_s=0.005, **options):
    clock = _Clock()
    inner = _Recorder(clock)
    emulated = EmulatedTransport(inner, emulation, clock, **options)
    for index in range(count):
        emulated.send(b"%d" % index, ("127.0.0.1", 2))
        clock.now += step_s
    clock.now += 30.0
    emulated.flush()
    return inner.sent, emulated.counters


def test_the_same_seed_gives_the_same_schedule_and_another_seed_another():
    bad = dict(loss=0.2, delay_ms=40.0, jitter_ms=15.0, duplicate=0.1, reorder=0.1)
    first, counters = _schedule(Emulation(**bad, seed=3))
    assert first == _schedule(Emulation(**bad, seed=3))[0]
    assert first != _schedule(Emulation(**bad, seed=4))[0]
    assert 0 < counters["emulated_lost"] < 200 and counters["emulated_duplicated"] > 0
    assert counters["emulated_reordered"] > 0 and counters["held"] == 0


def test_no_emulation_sends_at_once_and_full_loss_sends_nothing():
    sent, _ = _schedule(Emulation(), count=10)
    assert [data for _, data in sent] == [b"%d" % index for index in range(10)]
    assert [when for when, _ in sent] == pytest.approx([100.0 + 0.005 * index for index in range(10)])
    sent, counters = _schedule(Emulation(loss=1.0), count=50)
    assert sent == [] and counters["emulated_lost"] == 50


def test_a_delayed_datagram_is_held_until_due():
    clock = _Clock()
    inner = _Recorder(clock)
    emulated = EmulatedTransport(inner, Emulation(delay_ms=50.0), clock)
    emulated.send(b"late", ("127.0.0.1", 2))
    clock.now += 0.049
    assert emulated.receive() == [] and inner.sent == [] and emulated.counters["held"] == 1
    clock.now += 0.002
    assert emulated.flush() == 1 and [data for _, data in inner.sent] == [b"late"]


def test_duplicates_and_reordering_are_observable():
    sent, counters = _schedule(Emulation(duplicate=1.0), count=5)
    assert [data for _, data in sent] == [b"%d" % (index // 2) for index in range(10)]
    sent, counters = _schedule(Emulation(reorder=0.5, seed=1), count=40, step_s=0.001)
    order = [int(data) for _, data in sent]
    assert sorted(order) == list(range(40)) and order != sorted(order)
    late = [when for when, data in sent if int(data) == order[-1]]
    assert late[0] >= 100.0 + REORDER_MS / 1000


def test_the_held_heap_is_bounded_and_overflow_is_counted():
    sent, counters = _schedule(Emulation(delay_ms=1000.0), count=10, step_s=0.0, held_limit=4)
    assert len(sent) == 4 and counters["held_overflow"] == 6


@pytest.mark.parametrize("field, value", [("loss", 1.5), ("loss", -0.1), ("duplicate", float("nan")),
                                          ("reorder", True), ("delay_ms", 10_001), ("jitter_ms", -1),
                                          ("delay_ms", "5"), ("seed", -1), ("seed", 1.0), ("flip", 2),
                                          ("truncate", -1), ("rebind_ms", 10), ("rebind_ms", -1)])
def test_an_emulation_out_of_range_is_refused_by_name(field, value):
    with pytest.raises(ValueError, match=f"Emulation {field}"):
        Emulation(**{field: value})


def test_an_emulated_udp_transport_delivers_over_real_sockets():
    with UdpTransport() as receiver:
        emulated = EmulatedTransport(UdpTransport(), Emulation(duplicate=1.0, seed=5))
        try:
            emulated.send(b"twice", receiver.address)
            assert [data for data, _ in _receive_all(receiver, 2)] == [b"twice", b"twice"]
            assert emulated.counters["sent"] == 2 and emulated.address[0] == "127.0.0.1"
        finally:
            emulated.close()


def test_an_emulated_wait_ends_when_the_next_held_datagram_is_due_and_sends_it():
    clock = _Clock()
    inner = _Recorder(clock)
    emulated = EmulatedTransport(inner, Emulation(delay_ms=40.0), clock)
    assert emulated.wait(0.5) is False
    emulated.send(b"late", ("127.0.0.1", 2))
    clock.now += 0.010
    emulated.wait(0.5)
    assert [timeout for _, timeout in inner.waits] == [0.5, pytest.approx(0.030)], "no longer than until it is due"
    assert inner.sent == [], "not due yet"
    clock.now += 0.030
    emulated.wait(0.5)
    assert [data for _, data in inner.sent] == [b"late"], "sent once due, by the wait itself"


def test_wait_says_whether_a_datagram_is_waiting_and_takes_none():
    with UdpTransport() as a, UdpTransport() as b:
        assert b.wait(0.0) is False, "nothing sent: no wait, nothing waiting"
        assert a.send(b"hello", b.address)
        assert b.wait(5.0) is True, "returns once it arrives, long before the bound"
        assert b.receive() == [(b"hello", a.address)], "waiting took nothing"
        assert b.wait(-1.0) is False
    with pytest.raises(TransportError, match="closed"):
        b.wait(0.0)


def test_closing_sends_what_is_still_held_in_due_order_then_closes():
    clock = _Clock()
    inner = _Recorder(clock)
    emulated = EmulatedTransport(inner, Emulation(delay_ms=80.0, jitter_ms=30.0, seed=2), clock)
    for index in range(5):
        emulated.send(b"bye %d" % index, ("127.0.0.1", 2))
    assert inner.sent == [], "all held: their delay has not passed"
    due = sorted(emulated._held)
    emulated.close()
    assert [data for _, data in inner.sent] == [data for _, _, data, _ in due], "a goodbye is not lost to the delay"
    assert inner.closed and emulated.counters["held"] == 0


def test_bit_flips_and_cuts_damage_the_datagrams_the_seed_chose_and_are_counted():
    sent, counters = _schedule(Emulation(flip=0.3, truncate=0.2, seed=4), count=200)
    data = [payload for _, payload in sent]
    originals = [b"%d" % index for index in range(200)]
    assert len(data) == 200, "damaged, not lost"
    flipped = [(got, want) for got, want in zip(data, originals) if len(got) == len(want) and got != want]
    cut = [(got, want) for got, want in zip(data, originals) if len(got) < len(want)]
    assert 30 < len(flipped) <= counters["emulated_flipped"] and 0 < len(cut) <= counters["emulated_truncated"]
    for got, want in flipped:  # one bit, no more
        assert sum(bin(a ^ b).count("1") for a, b in zip(got, want)) == 1
    for got, want in cut:  # a prefix (with a flipped bit, when both befell it)
        assert sum(bin(a ^ b).count("1") for a, b in zip(got, want)) <= 1
    assert data == [payload for _, payload in _schedule(Emulation(flip=0.3, truncate=0.2, seed=4), count=200)[0]]


def test_a_memory_network_delivers_by_address_and_loses_what_goes_to_a_port_no_one_holds():
    network = MemoryNetwork()
    a, b = network.transport(), network.transport(7777)
    assert b.address == ("127.0.0.1", 7777) and a.address == ("127.0.0.1", 40000)
    assert a.send(b"hi", b.address) and b.receive() == [(b"hi", a.address)]
    assert not a.send(b"anyone?", ("127.0.0.1", 9)) and a.counters["send_refused"] == 1
    with pytest.raises(TransportError, match="7777"):
        network.transport(7777)
    b.close()
    assert not a.send(b"gone", ("127.0.0.1", 7777)), "a closed transport's port is free and deaf"
    with pytest.raises(TransportError, match="closed"):
        b.receive()


def test_a_rebinding_moves_the_source_port_and_the_old_one_hears_nothing_more():
    network = MemoryNetwork()
    host, joiner = network.transport(7777), network.transport()
    old = joiner.address
    joiner.rebind()
    assert joiner.address != old and old not in network.bound
    joiner.send(b"from the new port", host.address)
    assert host.receive() == [(b"from the new port", joiner.address)]
    assert not host.send(b"to the old port", old)
    with UdpTransport() as real, UdpTransport() as peer:
        before = real.address
        real.rebind()
        assert real.address[0] == "127.0.0.1" and real.address != before
        real.send(b"moved", peer.address)
        assert _receive_all(peer, 1) == [(b"moved", real.address)]


def test_the_emulators_rebindings_start_when_armed_at_seeded_moments():
    def moments(seed):
        clock = _Clock()
        network = MemoryNetwork()
        emulated = EmulatedTransport(network.transport(), Emulation(rebind_ms=200.0, seed=seed), clock)
        ports = [emulated.address[1]]
        for step in range(300):
            clock.now += 0.01
            if step == 100:
                emulated.arm_rebinding()
            emulated.flush()
            if emulated.address[1] != ports[-1]:
                ports.append(emulated.address[1])
                assert step >= 100 + 10, "none before it was armed, and none sooner than half the mean"
        return len(ports) - 1, emulated.counters["emulated_rebinds"]

    assert moments(1) == moments(1) and 5 <= moments(1)[0] <= 20 and moments(1)[0] == moments(1)[1]
    with pytest.raises(TypeError, match="no rebind"):
        EmulatedTransport(_Recorder(_Clock()), Emulation(rebind_ms=100.0))


def test_next_due_says_when_the_earliest_held_datagram_goes_out():
    clock = _Clock()
    emulated = EmulatedTransport(_Recorder(clock), Emulation(delay_ms=40.0), clock)
    assert emulated.next_due() is None
    emulated.send(b"late", ("127.0.0.1", 2))
    assert emulated.next_due() == pytest.approx(100.04)
