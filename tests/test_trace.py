from __future__ import annotations

import pytest

from engine.loops import Trace, TraceEvent


def test_trace_records_events_in_order_and_reports_their_kinds():
    trace = Trace()
    trace.record("render", 0.0, alpha=0.0)
    trace.record("update", 5.0, tick=1, sim_ms=5.0)
    trace.record("wait", 10.0, ms=6.0)
    assert len(trace) == 3
    assert trace.kinds() == ["render", "update", "wait"]
    assert list(trace)[1] == TraceEvent("update", 5.0, tick=1, sim_ms=5.0)
    assert trace.of_kind("wait") == [TraceEvent("wait", 10.0, ms=6.0)]


def test_a_bounded_trace_keeps_only_the_newest_events():
    trace = Trace(maxlen=3)
    for tick in range(1, 11):
        trace.record("update", float(tick), tick=tick, sim_ms=float(tick))
    assert len(trace) == 3
    assert [event.tick for event in trace] == [8, 9, 10]


def test_timeline_reads_like_the_loop_ran():
    trace = Trace()
    trace.record("input", 0.0)
    trace.record("render", 0.0, alpha=0.0)
    trace.record("update", 1.0, tick=1, sim_ms=5.0)
    trace.record("update", 2.0, tick=2, sim_ms=10.0)
    trace.record("frame", 2.0, ms=10.0)
    trace.record("wait", 3.0, ms=13.0)
    trace.record("render", 16.0, alpha=0.2)
    trace.record("behind", 40.0, ms=3.0)
    assert trace.timeline() == "R0 U5 U10 W16 R16 B40"
    assert trace.timeline(until_ms=10) == "R0 U5 U10 W16"


def test_timeline_rounds_to_whole_milliseconds_unless_asked_for_more():
    trace = Trace()
    trace.record("update", 0.0, tick=1, sim_ms=15.625)
    trace.record("update", 0.0, tick=2, sim_ms=31.25)
    assert trace.timeline() == "U16 U31"
    assert trace.timeline(decimals=3) == "U15.625 U31.25"


def test_trace_rejects_an_unknown_kind_and_a_bad_bound():
    with pytest.raises(ValueError, match="'draw'"):
        TraceEvent("draw", 0.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="maxlen"):
        Trace(maxlen=0)
