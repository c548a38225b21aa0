"""Sessions that survive a drop, for real: ``tickswap host``/``join`` processes on 127.0.0.1, killed and started again.

What ``test_net_survive`` shows in one process on a virtual clock, here with real processes,
sockets and time: a player SIGKILLed and started again with its rejoin code, a spectator
joining late, the input delay changed at an agreed tick, and every peer (the rejoined one
too) ending on the hash of ``tickswap run`` with the same agreed disconnection, every
recording replaying. Each test is bounded by the processes' timeouts and by a short
``--ticks``; a 20 ms emulated delay each way paces the session (a round trip per 10 ticks
or so) so that a restarted peer finds it still running, whatever the machine's speed.
None sleeps: the tests wait for the peers' own lines.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from test_net_session import GAME, JOIN_CODE, TIMEOUT, Peer, hash_of, host, join, replays

PACE = ("--emulate-delay", "20", "--disconnect-timeout", "1.5")
"""Every peer's: a real round trip of 40 ms at least, so the session lasts a few seconds; a drop found in 1.5 s
(not less: a peer loading a checkpoint on a busy machine may be silent for half a second)."""
CODE = re.compile(r"--rejoin ([0-9a-f]{48})")


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    # The network tests' game, for up to four players here.
    (tmp_path / "game.py").write_text(GAME.read_text().replace("PLAYERS = range(1, 4)", "PLAYERS = range(1, 5)"))
    return tmp_path


def lines(path: Path, events: Sequence[tuple[int, int | None, str]]) -> Path:
    """A script: (tick, player or None, event) lines; an event is ``"key_press RIGHT"`` or ``"disconnect"``."""
    text = ""
    for tick, player, event in events:
        kind, _, key = event.partition(" ")
        named = "" if player is None else f'"player": {player}, '
        text += f'{{{named}"tick": {tick}, "input": [["{kind}", {f"{key!r}".replace(chr(39), chr(34)) if key else "null"}, 0, 0]]}}\n'
    path.write_text(text)
    return path


def offline_hash(tmp: Path, ticks: int, players: int, combined: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "engine.tools.cli", "run", "game.py", "--players", str(players),
                           "--ticks", str(ticks), "--input", str(combined)], cwd=tmp, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return hash_of(done.stdout)


def tick_of(err: str, pattern: str) -> int:
    found = re.search(pattern, err)
    assert found, err
    return int(found.group(1))


P0 = [(5, None, "key_press RIGHT"), (300, None, "key_release RIGHT")]
P1 = [(20, None, "key_press LEFT"), (500, None, "key_release LEFT")]
LATE = [(1600, None, "key_press RIGHT"), (1650, None, "key_release RIGHT")]
"""The rejoining player's script: all after it is back (its first process, killed early, had none)."""


def test_three_processes_one_killed_and_started_again_with_its_code_end_on_the_offline_hash(tmp: Path) -> None:
    ticks = 1800  # long enough that the rejoin lands before the delay change however busy the machine
    lines(tmp / "p0.jsonl", P0)
    lines(tmp / "p1.jsonl", P1)
    lines(tmp / "p2.jsonl", LATE)
    first, port = host(tmp, "--ticks", str(ticks), "--input", "p0.jsonl", "--record", "h.jsonl",
                       "--input-delay-at", "1500:4", *PACE, players=3)
    second = join(tmp, port, "--input", "p1.jsonl", "--record", "j1.jsonl", *PACE)
    first.wait_for("player 1 joined")
    third = join(tmp, port, *PACE)
    code = third.wait_for(CODE.pattern).group(1)
    first.wait_for("the session starts")
    third.process.send_signal(signal.SIGKILL)
    first.wait_for(r"player 2 \(127\.0\.0\.1:\d+\) sent nothing for 1\.5 s: dropped at tick \d+: the others play on")
    again = join(tmp, port, "--input", "p2.jsonl", "--record", "j2.jsonl", "--rejoin", code, *PACE)
    results = [peer.finish() for peer in (first, second, again)]
    third.finish()
    for status, out, err in results:
        assert status == 0, err
    err0 = results[0][2]
    went = tick_of(err0, r"player 2 is disconnected from tick (\d+)")
    back = tick_of(err0, r"player 2 is back from tick (\d+)")
    assert went < back < 1500, err0
    combined = lines(tmp / "all.jsonl", sorted([(t, 0, e) for t, _, e in P0] + [(t, 1, e) for t, _, e in P1]
                                               + [(went, 2, "disconnect"), (back, 2, "connect")]
                                               + [(t, 2, e) for t, _, e in LATE]))
    expected = offline_hash(tmp, ticks, 3, combined)
    assert {hash_of(out) for _, out, _ in results} == {expected}
    assert re.search(r"joined 127\.0\.0\.1:\d+ as player 2 of 3, from tick \d+ \(the session was running\)",
                     results[2][2]), results[2][2]
    for _, _, err in results:
        assert f"player 2 is back from tick {back}" in err or f"this peer (player 2) is back from tick {back}" in err
        assert "the input delay is 4 from tick 1500 (the host's change, on every peer)" in err, err
    for recording in ("h.jsonl", "j1.jsonl", "j2.jsonl"):
        replays(tmp, recording)
        assert '{"tick":1500,"input_delay":4}' in (tmp / recording).read_text()
    assert '"start":' in (tmp / "j2.jsonl").read_text().splitlines()[0], "the rejoined peer's starts from a save"


def test_four_players_one_dropped_for_good_and_a_late_spectator_end_on_the_offline_hash(tmp: Path) -> None:
    # Long enough for the spectator to come late but not too late: at about 200 ticks a second (8 ticks
    # predicted per 40 ms round trip), 500 ticks left a loaded machine a second after the 1.5 s drop to
    # start the spectator's process, and it sometimes found the session over.
    ticks = 2000
    lines(tmp / "p0.jsonl", P0)
    lines(tmp / "p1.jsonl", P1)
    first, port = host(tmp, "--ticks", str(ticks), "--input", "p0.jsonl", "--record", "h.jsonl", "--rejoin-window",
                       "0", *PACE, players=4)
    second = join(tmp, port, "--input", "p1.jsonl", *PACE)
    first.wait_for("player 1 joined")
    third = join(tmp, port, *PACE)
    first.wait_for("player 2 joined")
    fourth = join(tmp, port, *PACE)
    first.wait_for("the session starts")
    third.process.send_signal(signal.SIGKILL)
    first.wait_for(r"player 2 \(127\.0\.0\.1:\d+\) sent nothing for 1\.5 s: dropped at tick \d+: the others play "
                   r"on$")  # no rejoin window: no word of a code
    watcher = join(tmp, port, "--spectate", "--record", "w.jsonl", *PACE)
    results = [peer.finish() for peer in (first, second, fourth, watcher)]
    third.finish()
    for status, _, err in results:
        assert status == 0, err
    went = tick_of(results[0][2], r"player 2 is disconnected from tick (\d+)")
    combined = lines(tmp / "all.jsonl", sorted([(t, 0, e) for t, _, e in P0] + [(t, 1, e) for t, _, e in P1]
                                               + [(went, 2, "disconnect")]))
    assert {hash_of(out) for _, out, _ in results} == {offline_hash(tmp, ticks, 4, combined)}
    assert re.search(r"a spectator joined the running session from 127\.0\.0\.1:\d+: it starts from tick \d+",
                     results[0][2]), results[0][2]
    for recording in ("h.jsonl", "w.jsonl"):
        replays(tmp, recording)


def test_a_peer_that_drops_its_partner_for_silence_says_its_session_line_and_where_its_recording_ends(
        tmp: Path) -> None:
    # Issue 30's third finding: the drop line alone, no session line, nothing said of the recording.
    first, port = host(tmp, "--ticks", "1000000", "--record", "h.jsonl", "--disconnect-timeout", "0.5")
    second = join(tmp, port, "--disconnect-timeout", "0.5")
    first.wait_for("the session starts")
    second.process.send_signal(signal.SIGSTOP)
    status, _, err = first.finish()
    second.process.send_signal(signal.SIGKILL)
    second.finish()
    assert status == 1, err
    assert re.search(r"player 1 \(127\.0\.0\.1:\d+\) sent nothing for 0\.5 s: dropped\n", err), err
    assert re.search(r"tickswap: session: .*\n", err), err
    assert re.search(r"recorded h\.jsonl through tick \d+ \(it replays\)", err), err
    replays(tmp, "h.jsonl")


def test_a_rejoin_code_given_to_a_spectator_or_misspelt_is_refused_before_asking(tmp: Path) -> None:
    for args, said in ((("--spectate", "--rejoin", "1" * 48), "--rejoin: a spectator has no seat to take back"),
                       (("--rejoin", "xyz"), "expected the 48-digit rejoin code this player was given")):
        peer = Peer(tmp, "join", "127.0.0.1:9", JOIN_CODE, "game.py", "--ticks", "10", *args)
        status, _, err = peer.finish()
        assert status == 2 and said in err and "waiting for the host" not in err, err


def test_a_host_only_option_given_to_join_says_whose_it_is(tmp: Path) -> None:
    # Issue 30's sixth finding: it said "unrecognized arguments: --players 2 (see tickswap --help)".
    peer = Peer(tmp, "join", "127.0.0.1:9", "game.py", "--players", "2")
    status, _, err = peer.finish()
    assert status == 2, err
    assert err.strip() == ("tickswap join: --players is the host's: a joiner plays the session the host set up "
                           "(tickswap host GAME --players ...) (see tickswap join --help)")


def no_display(tmp: Path, *args: str) -> subprocess.Popen[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY")}
    return subprocess.Popen([sys.executable, "-m", "engine.tools.cli", *args], cwd=tmp, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a machine without a display is Linux's")
def test_a_host_that_cannot_open_its_window_says_so_before_it_listens(tmp: Path) -> None:
    # Issue 30's second finding: it welcomed its joiner ("all 2 players are in"), then failed with "no display".
    out, err = no_display(tmp, "host", "game.py", "--players", "2", "--port", "0").communicate(timeout=TIMEOUT)
    assert err.strip() == "tickswap: no display to open a window on (DISPLAY is not set); try --headless", err
    assert "hosting" not in err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a machine without a display is Linux's")
def test_a_joiner_that_cannot_draw_the_hosts_frames_leaves_before_the_start_and_the_host_waits_on(
        offscreen: None, tmp: Path) -> None:
    first, port = host(tmp, "--headless", "--frames", "200")
    joiner = no_display(tmp, "join", f"127.0.0.1:{port}", JOIN_CODE, "game.py")
    _, err = joiner.communicate(timeout=TIMEOUT)
    assert joiner.returncode == 2, err
    assert "no display to open a window on (DISPLAY is not set); try --headless: left before the start, the seat is " \
           "free again" in err, err
    first.wait_for("player 1 left the lobby before the start")
    second = join(tmp, port, "--headless", "--frames", "200")
    (status1, _, err1), (status2, _, err2) = first.finish(), second.finish()
    assert (status1, status2) == (0, 0), err1 + err2


def test_a_joiner_given_the_combined_script_is_refused_as_the_host_refuses_it(tmp: Path) -> None:
    # Issue 30's first finding: player 0's lines (naming no player) were merged into player 1's, and it played.
    combined = lines(tmp / "all.jsonl", [(5, None, "key_press RIGHT"), (7, 1, "key_press LEFT")])
    for role in (("host", "game.py", "--players", "2", "--port", "0"), ("join", "127.0.0.1:9", JOIN_CODE, "game.py")):
        peer = Peer(tmp, *role, "--ticks", "10", "--input", str(combined))
        status, _, err = peer.finish()
        assert status == 2 and "all.jsonl:2: " in err and len(err.strip().splitlines()) == 1, err
        assert "hosting" not in err and "waiting for the host" not in err, "refused before asking anyone"
    assert "line 1 names no player and line 2 names player 1: that is tickswap run's combined script" in err


MAPPED = '''
from pathlib import Path

from engine import TileMap

HERE = Path(__file__).parent


def build(world):
    world.spawn(TileMap.load(HERE / "level.tmj"))  # as the tiles guide says: the map read in build
    for player in range(world.players):
        world.spawn(Mover(player))
'''


def test_a_late_spectator_of_a_game_that_loads_its_map_in_build_joins_and_ends_on_the_hosts_hash(
        tmp: Path) -> None:
    # Issue 39's defect 2: the joiner loaded the host's save without running build, so the
    # map the save names by content was "not loaded in this process".
    from mapfiles import tmj

    tmj(tmp, [[1, 0], [0, 1]])
    text = (tmp / "game.py").read_text()
    (tmp / "game.py").write_text(text[:text.index("def build(")] + MAPPED)
    lines(tmp / "p0.jsonl", P0)
    first, port = host(tmp, "--ticks", "4000", "--input", "p0.jsonl", *PACE)  # long enough for a slow start
    second = join(tmp, port, *PACE)
    first.wait_for("the session starts")
    watcher = join(tmp, port, "--spectate", "--record", "w.jsonl", *PACE)
    results = [peer.finish() for peer in (first, second, watcher)]
    for status, _, err in results:
        assert status == 0, err
    assert len({hash_of(out) for _, out, _ in results}) == 1
    replays(tmp, "w.jsonl")


UNMAPPED = '''
from pathlib import Path

from engine import Entity, TileMap, buffered

HERE = Path(__file__).parent


class Level(Entity):
    """Reads its map in its first update, not in build: a process that did not play that tick never read it."""

    started = buffered(False)

    def update(self, world):
        if not self.started:
            self.started = True
            world.spawn(TileMap.load(HERE / "level.tmj"))


def build(world):
    world.spawn(Level())
    for player in range(world.players):
        world.spawn(Mover(player))
'''


def test_a_rejoiner_that_fails_to_load_is_not_said_to_be_back(tmp: Path) -> None:
    # Issue 39's defect 2: the rejoiner exited 1, and the host said "player 2 is back".
    from mapfiles import tmj

    tmj(tmp, [[1, 0], [0, 1]])
    text = (tmp / "game.py").read_text()
    (tmp / "game.py").write_text(text[:text.index("def build(")] + UNMAPPED)
    first, port = host(tmp, "--ticks", "1200", *PACE, players=3)
    second = join(tmp, port, *PACE)
    first.wait_for("player 1 joined")
    third = join(tmp, port, *PACE)
    code = third.wait_for(CODE.pattern).group(1)
    first.wait_for("the session starts")
    third.process.send_signal(signal.SIGKILL)
    first.wait_for(r"player 2 \(127\.0\.0\.1:\d+\) sent nothing for 1\.5 s: dropped at tick \d+")
    again = join(tmp, port, "--rejoin", code, *PACE)
    failed = again.finish()
    results = [peer.finish() for peer in (first, second)]
    third.finish()
    assert failed[0] == 1 and "is not loaded in this process" in failed[2], failed[2]
    for status, _, err in results:
        assert status == 0, err
    err = results[0][2]
    assert "player 2 is back" not in err, err
    assert re.search(r"player 2 \(127\.0\.0\.1:\d+\) sent nothing for 1\.5 s: dropped: it never played after rejoining "
                     r"\(its process failed to start or load, or was stopped\) at tick \d+: the others play on", err), err


HINT = re.compile(r"if this peer drops, it takes its seat back with: (.*) \(within the host's --rejoin-window")


def test_the_rejoin_hint_of_a_game_file_joining_itself_is_a_command_the_host_takes(tmp: Path) -> None:
    # Issue 39's defect 5: after `python game.py --join HOST:PORT` the hint said
    # `tickswap join HOST:PORT --rejoin CODE`, without the game, which the host refused.
    import shlex

    game = tmp / "game.py"
    game.write_text(game.read_text() + "\n\nif __name__ == '__main__':\n    from engine import run\n\n"
                    "    raise SystemExit(run(build))\n")
    first, port = host(tmp, "--ticks", "1500", *PACE, players=3)
    second = join(tmp, port, *PACE)
    first.wait_for("player 1 joined")
    third = Peer(tmp, "--join", f"127.0.0.1:{port}", JOIN_CODE, *PACE, program=("game.py",))
    hint = third.wait_for(HINT.pattern).group(1)
    words = shlex.split(hint)
    assert words[:5] == ["python", "game.py", "--join", f"127.0.0.1:{port}", JOIN_CODE] and words[5] == "--rejoin", hint
    first.wait_for("the session starts")
    third.process.send_signal(signal.SIGKILL)
    first.wait_for(r"player 2 \(127\.0\.0\.1:\d+\) sent nothing for 1\.5 s: dropped at tick \d+")
    again = Peer(tmp, *words[2:], *PACE, program=(words[1],))
    results = [peer.finish() for peer in (first, second, again)]
    third.finish()
    for status, _, err in results:
        assert status == 0, err
    assert re.search(r"player 2 rejoined from 127\.0\.0\.1:\d+", results[0][2]), results[0][2]
    assert len({hash_of(out) for _, out, _ in results}) == 1
