"""The rollback core and two sessions in one process, over an emulated network on a ``VirtualClock`` (``netsim``).

The lobby included: each peer's ``Session`` is driven round by round, the way two render
loops would drive them, and the time moves only when the test says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from netsim import GAME, Net, reference

from engine import keys
from engine.files.importer import load_game
from engine.input.events import InputEvent
from engine.net.emulate import Emulation
from engine.net.session import Session, SessionOptions
from engine.net.sync import Sync
from engine.world import World

PRESS, RELEASE = (InputEvent("key_press", keys.RIGHT), InputEvent("key_release", keys.RIGHT))
SCRIPTS = ({5: [PRESS], 30: [RELEASE], 61: [PRESS], 62: [RELEASE]},
           {7: [InputEvent("key_press", keys.LEFT)], 50: [InputEvent("key_release", keys.LEFT)], 90: [PRESS]})
TICKS = 150
EXPECTED = reference(TICKS, SCRIPTS)


def play(host_options: SessionOptions, join_options: SessionOptions) -> tuple[Session, Session]:
    """Two peers through the lobby, then both played to ``TICKS`` confirmed ticks."""
    net = Net()
    host, join = net.host(options=host_options), net.join(options=join_options)
    net.open()
    for peer, script in zip((host, join), SCRIPTS):
        peer.script, peer.machine.target = script, TICKS
    net.play_frames(1_000_000, until=lambda: any(peer.ended for peer in (host, join))
                    or all(peer.machine.sync is not None and peer.machine.sync.emitted >= TICKS for peer in (host, join)))
    for peer in (host, join):
        assert peer.ended is None, peer.ended
        peer.machine.settle()
    return host, join


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.floats(0, 0.4), st.floats(0, 40), st.floats(0, 10), st.floats(0, 0.3),
                          st.floats(0, 0.3), st.integers(0, 2**16)), min_size=2, max_size=2),
       st.integers(0, 3), st.integers(0, 8))
def test_peers_end_bit_identical_whatever_the_network_does(networks: list[tuple[float, ...]], delay: int,
                                                           window: int) -> None:
    options = [SessionOptions(input_delay=delay, max_prediction=window, disconnect_timeout=30,
                              emulation=Emulation(loss=loss, delay_ms=ms, jitter_ms=jitter, duplicate=twice,
                                                  reorder=shuffle, seed=int(seed)))
               for loss, ms, jitter, twice, shuffle, seed in networks]
    host, join = play(*options)
    try:
        assert host.world is not None and join.world is not None
        assert host.world.tick_count == join.world.tick_count == TICKS
        assert host.world.state_hash() == join.world.state_hash() == EXPECTED
    finally:
        host.close()
        join.close()


def test_a_misprediction_rolls_back_and_re_simulates_to_the_same_state() -> None:
    with World(seed=3, players=2) as world:
        GAME.build(world)
        sync = Sync(world, players=2, local=0, input_delay=0, max_prediction=8)
        for _ in range(4):
            sync.add_local([])
            assert sync.advance(), "ticks 1-4 run on predicted input for player 1"
        assert sync.confirmed == 0 and sync.current == 4
        sync.add_local([])
        sync.add_remote(1, 1, 5, {2: (PRESS,)})  # player 1 pressed at tick 2: ticks 2-4 were mispredicted
        assert sync.advance()
        assert (sync.rollbacks, sync.resimulated) == (1, 3)
        confirmed = list(sync.confirm())
        assert [c.tick for c in confirmed] == [1, 2, 3, 4, 5] and confirmed[1].inputs == ((), (PRESS,))
        with World(seed=3, players=2) as plain:
            GAME.build(plain)
            for tick in range(1, 6):
                if tick == 2:
                    plain.input_queue_of(1).push(PRESS)
                plain.tick()
            assert world.state_hash() == plain.state_hash()


def test_lockstep_never_predicts_and_the_window_bounds_prediction() -> None:
    with World(seed=3, players=2) as world:
        GAME.build(world)
        lockstep = Sync(world, players=2, local=0, input_delay=0, max_prediction=0)
        lockstep.add_local([])
        assert not lockstep.advance(), "lockstep waits for player 1's input"
        lockstep.add_remote(1, 1, 1, {})
        assert lockstep.advance() and lockstep.current == 1
    with World(seed=3, players=2) as world:
        GAME.build(world)
        windowed = Sync(world, players=2, local=0, input_delay=0, max_prediction=2)
        ran = 0
        for _ in range(5):
            windowed.add_local([]) if windowed.needs_local() else None
            ran += windowed.advance()
        assert ran == 2, "no more than max_prediction ticks past the confirmed frontier"


def _never_built(*args: object) -> World:
    """The session's builder where the test builds its world itself (never called)."""
    raise AssertionError("the test builds the session's world itself")


def test_sounds_of_re_simulated_ticks_are_handed_out_once() -> None:
    source = Path(__file__).with_name("netgame.py").read_text().replace(
        "        self.y += self.random.random()", "        self.y += self.random.random()\n"
        "        if held.pressed(keys.RIGHT):\n            world.play('beep.wav')")
    path = Path(__file__).parent / "_netgame_sound_probe.py"
    try:
        path.write_text(source)
        game = load_game(str(path))
        session = Session(None, game, SessionOptions(), is_host=True, say=lambda line: None,  # type: ignore[arg-type]
                          build=_never_built)  # no transport: the test hands the datagrams over itself
        with World(seed=3, players=2) as world:
            game.build(world)
            session.machine.world = world
            sync = session.machine.sync = Sync(world, players=2, local=0, input_delay=0, max_prediction=8)
            sync.add_local([PRESS])
            sync.advance()  # tick 1: player 0 holds RIGHT: a beep
            sync.add_local([])
            sync.advance()  # tick 2: another
            first = session.take_sounds()
            sync.add_remote(1, 1, 2, {1: (PRESS,)})  # tick 1 mispredicted: ticks 1-2 run again, beeping again
            sync.add_local([])
            sync.advance()
            assert sync.rollbacks == 1
            again = session.take_sounds()
        assert [request.tick for request in first] == [1, 2], "player 0's beeps"
        # Re-simulated, ticks 1 and 2 asked again (now both players beep): not handed out twice.
        assert [request.tick for request in again] == [3, 3], "ticks 1 and 2 were heard already"
    finally:
        path.unlink(missing_ok=True)


def test_a_peer_snapshot_that_is_a_zlib_bomb_or_damaged_is_named_not_parsed_or_raised() -> None:
    import json
    import zlib

    import pytest

    from engine.net.desync import snapshot_limit, unpack_snapshot

    own = {"entities": [{"id": 1, "class": "game.Mover", "state": {"x": 1.0}}], "tick": 30}
    bomb = zlib.compress(b'{"entities":[' + b"{}," * 3_000_000 + b"{}]}", 9)
    with pytest.raises(ValueError, match="inflates past"):
        unpack_snapshot([bomb], snapshot_limit(own))
    damaged: list[Any]
    for damaged in ([1, 2], [{}], [{"id": "x", "class": "a"}], [{"id": 1, "class": 3}],
                    [{"id": 1, "class": "a"}, {"id": 1, "class": "a"}]):
        piece = zlib.compress(json.dumps({"entities": damaged}).encode())
        with pytest.raises(ValueError, match=r"damaged at entities\[\d\]"):
            unpack_snapshot([piece], snapshot_limit(own))
    whole = zlib.compress(json.dumps(own).encode())
    with pytest.raises(ValueError, match="the peer's snapshot is cut short"):  # checked whole, as a catch-up is
        unpack_snapshot([whole[:-4]], snapshot_limit(own))
    assert unpack_snapshot([whole], snapshot_limit(own)) == own
