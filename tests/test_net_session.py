"""Network sessions for real: ``tickswap host`` and ``tickswap join`` as separate processes on 127.0.0.1.

Only what needs real processes, sockets and time is here (most session behaviour is shown
in one process, on a virtual clock: ``test_net_play``). Every test has a time bound (the
processes' timeouts); none sleeps. The host listens on a free port (``--port 0``) and says
which on stderr, where the test reads it. The game is ``tests/netgame.py`` (a mover per
player), copied beside each test's files. The helpers serve the other real-process tests.
"""

from __future__ import annotations

import queue
import re
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from netsim import CODE as JOIN_CODE

GAME = Path(__file__).with_name("netgame.py")
TIMEOUT = 120
SUMMARY = re.compile(r"^game\.py: (\d+) ticks in .* ms \(.* ticks/s[^)]*\), \d+ entit(?:y|ies), state ([0-9a-f]{16})", re.M)
SCRIPTS = {
    0: [(5, "key_press", "RIGHT"), (40, "key_release", "RIGHT"), (150, "key_press", "LEFT"),
        (151, "key_release", "LEFT")],
    1: [(7, "key_press", "LEFT"), (90, "key_release", "LEFT"), (91, "key_press", "RIGHT"),
        (260, "key_release", "RIGHT")],
    2: [(3, "key_press", "RIGHT"), (200, "key_release", "RIGHT")],
}


class Peer:
    """One ``tickswap`` process; its stderr lines are gathered as they come (a thread reads them)."""

    def __init__(self, cwd: Path, *args: str, program: tuple[str, ...] = ("-m", "engine.tools.cli")) -> None:
        self.process = subprocess.Popen([sys.executable, *program, *args], cwd=cwd, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue[str] = queue.Queue()
        self.err: list[str] = []
        self.out: list[str] = []
        self._readers = [threading.Thread(target=self._read, daemon=True),
                         threading.Thread(target=self._read_out, daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.err.append(line)
            self.lines.put(line)

    def _read_out(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.out.append(line)

    def wait_for(self, pattern: str) -> re.Match[str]:
        """The first stderr line matching ``pattern`` (the test fails if none comes within the timeout)."""
        while True:
            line = self.lines.get(timeout=TIMEOUT)
            found = re.search(pattern, line)
            if found:
                return found

    def finish(self) -> tuple[int, str, str]:
        """Wait for the process: its status, stdout and stderr."""
        try:
            self.process.wait(timeout=TIMEOUT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
        for reader in self._readers:
            reader.join(TIMEOUT)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()  # read to the end by now; else each test leaves two open files (ResourceWarning)
        return self.process.returncode, "".join(self.out), "".join(self.err)


def script(path: Path, players: dict[int, list[tuple[int, str, str]]], named: bool) -> Path:
    """An input script: each player's lines, in tick order; a player's lines name it when ``named``."""
    lines = sorted((tick, player, kind, key) for player, events in players.items() for tick, kind, key in events)
    path.write_text("".join((f'{{"player": {player}, ' if named else "{") + f'"tick": {tick}, "input": '
                            f'[["{kind}", "{key}", 0, 0]]}}\n' for tick, player, kind, key in lines))
    return path


def host(tmp: Path, *args: str, players: int = 2) -> tuple[Peer, int]:
    """A host on a free port, and that port."""
    peer = Peer(tmp, "host", "game.py", "--players", str(players), "--port", "0", "--code", JOIN_CODE, *args)
    return peer, int(peer.wait_for(r"on 127\.0\.0\.1:(\d+)").group(1))


def join(tmp: Path, port: int, *args: str, game: str = "game.py") -> Peer:
    return Peer(tmp, "join", f"127.0.0.1:{port}", JOIN_CODE, game, *args)


def hash_of(out: str) -> str:
    found = SUMMARY.search(out)
    assert found, out
    return found.group(2)


def plain_run(tmp: Path, ticks: int, players: int) -> str:
    """The hash of ``tickswap run`` with every player's script combined."""
    combined = script(tmp / "all.jsonl", {p: SCRIPTS[p] for p in range(players)}, named=True)
    done = subprocess.run([sys.executable, "-m", "engine.tools.cli", "run", "game.py", "--players", str(players),
                           "--ticks", str(ticks), "--input", str(combined)], cwd=tmp, capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    return hash_of(done.stdout)


def replays(tmp: Path, recording: str) -> None:
    done = subprocess.run([sys.executable, "-m", "engine.tools.cli", "replay", recording, "--game", "game.py"],
                          cwd=tmp, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0 and "all match" in done.stdout, done.stdout + done.stderr


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    shutil.copy(GAME, tmp_path / "game.py")
    for player in SCRIPTS:
        script(tmp_path / f"p{player}.jsonl", {player: SCRIPTS[player]}, named=False)
    return tmp_path


def two_peers(tmp: Path, ticks: int, *options: str) -> tuple[str, str, str, str]:
    """Host and joiner with their scripts and recordings; both must end well. Their outputs and errors."""
    first, port = host(tmp, "--ticks", str(ticks), "--input", "p0.jsonl", "--record", "h.jsonl", *options)
    second = join(tmp, port, "--ticks", str(ticks), "--input", "p1.jsonl", "--record", "j.jsonl", *options)
    (status1, out1, err1), (status2, out2, err2) = first.finish(), second.finish()
    assert (status1, status2) == (0, 0), err1 + err2
    return out1, out2, err1, err2


def test_two_processes_over_a_damaging_network_and_a_rebinding_end_on_a_plain_runs_hash_and_replay(tmp: Path
                                                                                                   ) -> None:
    # Real sockets under the emulator: bit flips, cuts and duplicates both ways, and the joiner's source port
    # moving (a NAT rebinding) every 100 ms or so; the host follows it, and no damaged datagram is played. The
    # 5 ms delay each way makes 600 ticks take 60 round trips (8 ticks of prediction, 2 of delay) at least:
    # the port moves before the end.
    damage = ("--emulate-flip", "0.05", "--emulate-truncate", "0.02", "--emulate-duplicate", "0.1",
              "--emulate-delay", "5")
    first, port = host(tmp, "--ticks", "600", "--input", "p0.jsonl", "--record", "h.jsonl", *damage,
                       "--emulate-seed", "1")
    second = join(tmp, port, "--ticks", "600", "--input", "p1.jsonl", "--record", "j.jsonl", *damage,
                  "--emulate-rebind", "100", "--emulate-seed", "2")
    (status1, out1, err1), (status2, out2, err2) = first.finish(), second.finish()
    assert (status1, status2) == (0, 0), err1 + err2
    assert hash_of(out1) == hash_of(out2) == plain_run(tmp, 600, 2)
    assert re.search(r"session: .*\d+ damaged or forged dropped", err1), err1
    assert re.search(r"this peer's port moved (once|twice|\d+ times) by the emulator", err2), err2
    assert re.search(r"followed \d+ address changes?", err1), err1
    replays(tmp, "h.jsonl")
    replays(tmp, "j.jsonl")


# -- sessions drawn frame by frame (off-screen through EGL), as in a window ------------------

FRAMES = re.compile(r"^game\.py: (\d+) frames, (\d+) confirmed ticks, state ([0-9a-f]{16})", re.M)


SLOW_WINDOW = """
import sys, time
import engine.tools.cli.net as net
made = net.make_runner
def late(*args, **kwargs):
    time.sleep(2.0)
    return made(*args, **kwargs)
net.make_runner = late
from engine.tools.cli import main
sys.argv[0] = "tickswap"
raise SystemExit(main())
"""
"""Run ``tickswap`` with its window opened 2 s late, as a loaded machine's EGL may (the peer's own process waits)."""


def test_two_peers_play_frame_by_frame_and_one_leaving_ends_the_other_without_failure(tmp: Path) -> None:
    # The host opens its window 2 s late. An off-screen frame is no real time, so a joiner
    # that did not wait for it (Session.idle) drew its 1,500 frames in about a second and
    # confirmed nothing: the failure a loaded CI machine once showed.
    (tmp / "slow.py").write_text(SLOW_WINDOW)
    peer = Peer(tmp, "host", "game.py", "--players", "2", "--port", "0", "--code", JOIN_CODE, "--headless", "--frames",
                "100000", "--input", "p0.jsonl", "--record", "h.jsonl", program=("slow.py",))
    first, port = peer, int(peer.wait_for(r"on 127\.0\.0\.1:(\d+)").group(1))
    second = join(tmp, port, "--headless", "--frames", "1500", "--input", "p1.jsonl", "--record", "j.jsonl")
    status2, out2, err2 = second.finish()
    status1, out1, err1 = first.finish()
    assert (status1, status2) == (0, 0), err1 + err2
    left, stayed = FRAMES.search(out2), FRAMES.search(out1)
    assert left and stayed, out1 + out2
    assert int(left.group(1)) == 1500, "the joiner drew its 1500 frames"
    assert int(stayed.group(1)) < 100000, "the host stopped when its only other player left"
    assert "player 1 left: the peer closed the session" in err1
    assert int(left.group(2)) > 0 and int(stayed.group(2)) > 0, "ticks were confirmed (how many: the race's)"
    for recording in ("h.jsonl", "j.jsonl"):
        replays(tmp, recording)


def test_headless_frames_need_a_frame_count(tmp: Path) -> None:
    peer = join(tmp, 9, "--headless")
    status, _out, err = peer.finish()
    assert status == 2 and "--headless draws off-screen until --frames N" in err


def test_a_game_file_hosts_and_joins_itself_with_the_same_hash_as_tickswap(tmp: Path) -> None:
    game = tmp / "game.py"
    game.write_text(game.read_text() + "\n\nif __name__ == '__main__':\n    from engine import run\n\n"
                    "    raise SystemExit(run(build))\n")
    hosting = subprocess.Popen([sys.executable, "game.py", "--host", "--players", "2", "--port", "0", "--ticks", "300",
                                "--code", JOIN_CODE,
                                "--input", "p0.jsonl"], cwd=tmp, text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert hosting.stderr is not None
    line = hosting.stderr.readline()
    port = re.search(r"on 127\.0\.0\.1:(\d+)", line)
    assert port, line
    joining = subprocess.run([sys.executable, "game.py", "--join", f"127.0.0.1:{port.group(1)}", JOIN_CODE, "--ticks", "300",
                              "--input", "p1.jsonl"], cwd=tmp, capture_output=True, text=True, timeout=TIMEOUT)
    out, err = hosting.communicate(timeout=TIMEOUT)
    assert (hosting.returncode, joining.returncode) == (0, 0), err + joining.stderr
    assert hash_of(out) == hash_of(joining.stdout) == plain_run(tmp, 300, 2)


def test_a_port_in_use_is_one_line_and_exit_2(tmp: Path) -> None:
    taken = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    taken.bind(("127.0.0.1", 0))
    try:
        peer = Peer(tmp, "host", "game.py", "--players", "2", "--port", str(taken.getsockname()[1]), "--ticks", "5")
        status, _out, err = peer.finish()
    finally:
        taken.close()
    assert status == 2 and "can't listen for UDP on 127.0.0.1:" in err and "Traceback" not in err, err


# -- a Session holds its machine (issue 40) ------------------------------------------------------


def test_a_session_holds_its_machine_and_the_machine_s_members_warn_naming_it() -> None:
    import warnings

    from netsim import Net

    from engine.net import SessionMachine
    from engine.net.peers import Peer as NetPeer

    net = Net()
    host = net.host()
    # The I/O shell holds the sans-IO peer; it is not one (a subclass would hand out all its internals).
    assert isinstance(host.machine, SessionMachine) and not isinstance(host, SessionMachine)
    assert not hasattr(host, "peers") and not hasattr(host, "sync")
    with pytest.raises(AttributeError, match=r"set session\.machine\.scripts"):
        host.scripts = {}  # the machine's: set on the session, it would do nothing
    assert (host.world, host.player, host.players, host.local_players, host.ended, host.ready) == (
        None, 0, 2, (0,), None, False)
    stranger = NetPeer(("127.0.0.1", 9), 1, 2, token=5)
    moved = {
        "now": lambda: host.now(),
        "lobby": lambda: host.lobby,
        "summary": lambda: host.summary({}),
        "recommend_wait": lambda: host.recommend_wait(),
        "datagrams_to_send": lambda: host.datagrams_to_send(),
        "receive": lambda: host.receive(b"", ("127.0.0.1", 9)),
        "settle": lambda: host.settle(),
        "goodbye": lambda: host.goodbye("testing"),
        "add_peer": lambda: host.add_peer(stranger),
        "remove_peer": lambda: host.remove_peer(stranger),
        "lose_player": lambda: host.lose_player(stranger, "silent"),
        "stats": lambda: host.stats,
    }
    for name, use in moved.items():
        with pytest.warns(DeprecationWarning, match=rf"Session\.{name} is deprecated .*use Session\.machine\.{name}"):
            use()
    assert 5 in host.machine.departed, "the old names still reach the machine"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # what a game reads and the runner drives warns nothing
        host.open_lobby(1.0)
        host.poll()
        host.script = {}
        assert host.hud_text() == host.machine.hud_text() and host.take_sounds() == []
        assert host.rejoin_code is None and not host.stalled
    host.close()
