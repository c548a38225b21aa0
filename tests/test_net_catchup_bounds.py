"""A malicious host's catch-up is refused in bounded CPU and memory (issue 38, break 4).

A late spectator starts from what the host sends it. Before these bounds, a 12-datagram
catch-up whose input runs went to tick 2**31 - 1 kept the spectator busy for minutes
(``Sync.preload`` walked every tick), and a 30 MiB list of floats where the save goes
peaked at 320 MB before it was refused. Now the runs are held to the session's tick window
(``MAX_CATCHUP_TICKS``), the save to ``MAX_CATCHUP_SAVE`` bytes measured before it is
parsed, and inflating stops at ``MAX_CATCHUP_BYTES``: each is refused in well under a
second, the memory it costs measured here.
"""

from __future__ import annotations

import json
import time
import tracemalloc
import zlib

import pytest

from engine.net.catchup import (
    MAX_CATCHUP_BYTES,
    MAX_CATCHUP_SAVE,
    MAX_CATCHUP_TICKS,
    PIECE_BYTES,
    Start,
    pack,
    unpack,
)
from engine.net.checks import PacketError
from engine.net.packets import Run

MEMORY_CAP = 3 * MAX_CATCHUP_BYTES
"""The most a refused catch-up may cost (the pieces, and inflating up to the limit): about 13 MiB."""


def pieces_of(data: bytes) -> list[bytes]:
    packed = zlib.compress(data, 9)
    return [packed[at:at + PIECE_BYTES] for at in range(0, len(packed), PIECE_BYTES)]


def head(tick: int, runs: list[list[object]]) -> bytes:
    return json.dumps({"tick": tick, "runs": runs, "delays": [], "input_delay": None}).encode()


def refused_within_bounds(pieces: list[bytes], match: str) -> tuple[float, int]:
    """Refuse ``pieces``; the CPU seconds and the peak bytes it took (asserted under 1 s and ``MEMORY_CAP``)."""
    tracemalloc.start()
    started = time.process_time()
    try:
        with pytest.raises(PacketError, match=match):
            unpack(pieces, players=2)
        spent = time.process_time() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    print(f"refused in {spent * 1000:.0f} ms CPU, {peak / 2**20:.1f} MiB peak: {match}")
    assert spent < 1.0 and peak < MEMORY_CAP, (spent, peak)
    return spent, peak


def test_runs_to_tick_2_31_are_refused_at_once() -> None:
    # The 12-datagram catch-up of the issue: runs to the last tick there is, events at its ends.
    far = 2**31 - 1
    pieces = pieces_of(head(30, [[0, 31, far, [[far, [["key_press", 65, 0, 0]]]]],
                                 [1, 31, far, []]]) + b"\n{}")
    assert len(pieces) <= 12
    refused_within_bounds(pieces, rf"reaches tick {far}, more than {MAX_CATCHUP_TICKS} ticks past its tick 30")


def test_a_run_just_inside_the_window_is_taken() -> None:
    start = Start(30, "{}", (Run(1, 31, 30 + MAX_CATCHUP_TICKS),))
    assert unpack(pack(start), players=2) == start
    with pytest.raises(PacketError, match="more than a late join may carry"):
        pack(Start(30, "{}", (Run(1, 31, 31 + MAX_CATCHUP_TICKS),)))


def test_a_30_mib_list_of_floats_as_the_save_is_refused_before_it_is_parsed() -> None:
    floats = b"[" + b"1.5," * (30 * 2**20 // 4) + b"0]"
    refused_within_bounds(pieces_of(head(30, []) + b"\n" + floats), "inflates past")


def test_a_save_over_its_cap_is_refused_by_its_size_and_one_at_the_cap_is_read() -> None:
    over = b"x" * (MAX_CATCHUP_SAVE + 1)
    refused_within_bounds(pieces_of(head(30, []) + b"\n" + over), f"a save of {MAX_CATCHUP_SAVE + 1:,} bytes")
    at_cap = unpack(pieces_of(head(30, []) + b"\n" + b"x" * MAX_CATCHUP_SAVE), players=2)
    assert len(at_cap.save) == MAX_CATCHUP_SAVE
    with pytest.raises(PacketError, match="more than the"):
        pack(Start(30, "x" * (MAX_CATCHUP_SAVE + 1), ()))


def test_a_float_list_in_the_head_is_refused_by_its_size_before_it_is_parsed() -> None:
    # The head (ticks, runs, delays) is parsed; it is at most MAX_CATCHUP_HEAD bytes, measured first.
    refused_within_bounds(pieces_of(b'{"tick": 30, "runs": [' + b"1.5," * 2**20 + b'0]}\n{}'), "no head of at most")
