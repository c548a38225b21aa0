from __future__ import annotations

import math

import pytest

from engine import RealClock, VirtualClock


def test_virtual_clock_starts_where_told_and_moves_only_when_advanced():
    clock = VirtualClock(start_ms=250.0)
    assert clock.now_ms() == 250.0
    assert clock.now_ns() == 250_000_000
    clock.advance(15.625)
    assert clock.now_ns() == 265_625_000
    assert clock.now_ms() == 265.625


@pytest.mark.parametrize("bad", [-1.0, -1e-9, math.nan, math.inf, -math.inf])
def test_virtual_clock_refuses_to_go_backwards_or_to_nowhere(bad):
    clock = VirtualClock()
    with pytest.raises(ValueError, match=r"advance.*" + repr(bad).replace("(", r"\(")):
        clock.advance(bad)
    assert clock.now_ns() == 0


def test_virtual_clock_refuses_non_numbers():
    with pytest.raises(TypeError, match="'soon'"):
        VirtualClock().advance("soon")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="start_ms"):
        VirtualClock(start_ms=-5)


def test_virtual_clock_sleep_advances_instead_of_blocking():
    clock = VirtualClock()
    clock.sleep_ms(40)
    assert clock.now_ms() == 40.0
    clock.sleep_ms(0)
    clock.sleep_ms(-3)
    assert clock.now_ms() == 40.0


def test_any_positive_wait_moves_time_by_at_least_one_nanosecond():
    clock = VirtualClock()
    for _ in range(10):
        before = clock.now_ns()
        clock.sleep_ms(1e-12)
        assert clock.now_ns() > before


def test_virtual_clock_carries_fractions_so_an_hour_of_sixtieths_lands_on_the_hour():
    clock = VirtualClock()
    for _ in range(60 * 3600):
        clock.advance(1000 / 60)
    assert abs(clock.now_ns() - 3_600_000_000_000) <= 1


def test_virtual_clock_repr_shows_the_time():
    clock = VirtualClock(start_ms=12.5)
    assert repr(clock) == "VirtualClock(now_ms=12.5)"


def test_virtual_clock_advance_ns_is_exact_and_refuses_negative():
    clock = VirtualClock()
    clock.advance_ns(3)
    assert clock.now_ns() == 3
    with pytest.raises(ValueError, match="-1"):
        clock.advance_ns(-1)


def test_real_clock_reading_backwards_is_clamped():
    readings = iter([1_000, 5_000, 4_000, 3_000, 9_000])
    clock = RealClock(lambda: next(readings))
    assert [clock.now_ns() for _ in range(4)] == [5_000, 5_000, 5_000, 9_000]


def test_real_clock_sleeps_coarsely_then_spins_to_the_deadline():
    now = [0]
    slept: list[float] = []

    def source() -> int:
        now[0] += 10_000  # every reading costs 10 microseconds
        return now[0]

    def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += round(seconds * 1e9)

    clock = RealClock(source, spin_ms=1.0, sleep=fake_sleep)
    start = clock.now_ns()
    clock.sleep_ms(5.0)
    assert len(slept) == 1 and slept[0] == pytest.approx(0.004, abs=1e-4)
    assert start + 5_000_000 <= now[0] <= start + 5_000_000 + 20_000


def test_real_clock_really_waits_at_least_as_long_as_asked():
    clock = RealClock()
    start = clock.now_ns()
    clock.sleep_ms(2.0)
    assert clock.now_ns() - start >= 2_000_000


def test_real_clock_validates_its_arguments():
    with pytest.raises(TypeError, match="time_source"):
        RealClock(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="spin_ms"):
        RealClock(spin_ms=-1)
