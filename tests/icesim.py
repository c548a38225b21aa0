"""Two houses on 127.0.0.1: a rendezvous, emulated routers, and a real coturn, for the ICE tests.

Everything is real UDP on 127.0.0.1 and bounded in time: ``Rendezvous`` runs a
``RendezvousServer`` in a thread; ``coturn`` starts the system's ``turnserver`` with a
temporary configuration (listening and relaying on 127.0.0.1 only) or says why it can't;
``meet`` puts a host and a joiner behind a ``NatBox`` each, lets them meet by a room code
and play a ``--ticks`` session to its end, and returns what happened. No test sleeps: each
wait is on a socket, with a deadline.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from netsim import GAME

from engine.input.events import EventType, InputEvent
from engine.net.ice import IceConfig, IcePath, TurnServer
from engine.net.lobby import SessionOptions
from engine.net.nat import NatBox
from engine.net.rendezvous import RendezvousServer, new_code
from engine.net.room import HostRoom, JoinRoom
from engine.net.session import Session

DEADLINE_S = 60.0
"""The longest any meeting or session here may take before the test fails."""


class Rendezvous:
    """A ``RendezvousServer`` on 127.0.0.1, served by a thread until ``close``."""

    def __init__(self) -> None:
        self.server = RendezvousServer("127.0.0.1", 0)
        self.address = self.server.address
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop:
            self.server.serve(0.05)

    def close(self) -> None:
        self._stop = True
        self._thread.join(5)
        self.server.close()


@contextmanager
def rendezvous() -> Iterator[Rendezvous]:
    served = Rendezvous()
    try:
        yield served
    finally:
        served.close()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _stun_answers(address: tuple[str, int], deadline: float) -> bool:
    """Ask ``address`` a STUN binding request until it answers (or the deadline passes)."""
    request = struct.pack(">HHI", 1, 0, 0x2112A442) + secrets.token_bytes(12)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.settimeout(0.2)
        while time.monotonic() < deadline:
            probe.sendto(request, address)
            try:
                data, _ = probe.recvfrom(2048)
            except (TimeoutError, ConnectionRefusedError):
                continue
            if data[8:20] == request[8:20]:
                return True
    return False


class Coturn:
    """The system's coturn (``turnserver``) on 127.0.0.1, with a user of its own; ``close`` stops it."""

    def __init__(self, binary: str) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="tickswap-coturn-"))
        self.port = _free_port()
        self.turn = TurnServer(("127.0.0.1", self.port), "tickswap", secrets.token_hex(8))
        config = self.directory / "turnserver.conf"
        config.write_text("\n".join([
            "listening-ip=127.0.0.1", "relay-ip=127.0.0.1", f"listening-port={self.port}",
            "realm=tickswap.test", "lt-cred-mech", f"user={self.turn.username}:{self.turn.password}",
            "fingerprint", "no-tls", "no-dtls", "no-tcp", "no-tcp-relay", "no-cli", "relay-threads=1",
            "allow-loopback-peers",  # every peer here is on 127.0.0.1: a test setting, never a server's
            f"userdb={self.directory / 'turndb'}", f"pidfile={self.directory / 'turnserver.pid'}",
            f"log-file={self.directory / 'turn.log'}", "simple-log", "no-stdout-log", ""]))
        self.process = subprocess.Popen([binary, "-c", str(config)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        if not _stun_answers(self.turn.address, time.monotonic() + 15):
            self.close()
            raise RuntimeError(f"coturn did not answer on 127.0.0.1:{self.port} within 15 s")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        shutil.rmtree(self.directory, ignore_errors=True)


def coturn_binary() -> str | None:
    """Where ``turnserver`` is, or ``None`` (``TICKSWAP_NO_COTURN=1`` says none, to test the skip)."""
    if os.environ.get("TICKSWAP_NO_COTURN"):
        return None
    return shutil.which("turnserver") or next(
        (path for path in ("/usr/bin/turnserver", "/usr/sbin/turnserver") if os.path.exists(path)), None)


NO_COTURN = ("coturn is not installed (Debian: apt-get install -y coturn; .ci/run installs it when it runs as root): "
             "the TURN tests are skipped")

PRESS: EventType = "key_press"
RELEASE: EventType = "key_release"


def scripts() -> list[dict[int, list[InputEvent]]]:
    """Each player's input: enough moves that a wrong input shows in the hash."""
    from engine import keys

    return [{5: [InputEvent(PRESS, keys.RIGHT)], 40: [InputEvent(RELEASE, keys.RIGHT)],
             90: [InputEvent(PRESS, keys.LEFT)], 150: [InputEvent(RELEASE, keys.LEFT)]},
            {12: [InputEvent(PRESS, keys.LEFT)], 70: [InputEvent(RELEASE, keys.LEFT)],
             100: [InputEvent(PRESS, keys.RIGHT)], 260: [InputEvent(RELEASE, keys.RIGHT)]}]


@dataclass
class Meeting:
    """What a meeting by room code gave: the two sessions (closed), their paths, the routers, what each said."""

    host: Session
    joiner: Session
    host_path: IcePath
    joiner_path: IcePath
    boxes: list[NatBox]
    said: list[list[str]] = field(default_factory=lambda: [[], []])


def _until(condition, what: str, deadline: float, step) -> None:
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not done within {DEADLINE_S:g} s")
        step()


def meet(kinds: tuple[str, str], served: Rendezvous, *, turn: TurnServer | None = None, joiner_turn: bool = True,
         ticks: int = 300, ice_timeout_s: float = 10.0, rebind_ms: float = 1000.0, seed: int = 3) -> Meeting:
    """A host behind a ``kinds[0]`` router and a joiner behind a ``kinds[1]`` one meet by a room code and play.

    ``turn``: the TURN server both use (the host only, when not ``joiner_turn``).
    """
    deadline = time.monotonic() + DEADLINE_S
    boxes = [NatBox(kind, seed=n, rebind_ms=rebind_ms) for n, kind in enumerate(kinds)]
    configs = [IceConfig(stun=served.address, turn=turn if n == 0 or joiner_turn else None, hosts=("127.0.0.1",),
                         sockets=box.make_socket, timeout_s=ice_timeout_s) for n, box in enumerate(boxes)]
    said: list[list[str]] = [[], []]
    code = new_code()
    room = HostRoom(served.address, code, configs[0], say=said[0].append)
    joining = JoinRoom(served.address, code, configs[1], say=said[1].append, timeout_s=DEADLINE_S)
    host: Session | None = None
    joiner: Session | None = None
    try:
        room.open(10)
        host = Session.host(GAME, players=2, seed=seed, options=SessionOptions(ticks=ticks, code=code), transport=room,
                            say=said[0].append)
        host.open_lobby(DEADLINE_S)
        found: list[IcePath] = []

        def step_meeting() -> None:
            host.poll()
            room.wait(0.002)
            path = joining.step(0.005)
            if path is not None:
                found.append(path)
        _until(lambda: bool(found), "the joiner's path", deadline, step_meeting)
        joiner = Session.join(found[0].remote_address, GAME, options=SessionOptions(code=code), transport=found[0].transport,
                              say=said[1].append)
        joiner.open_lobby(DEADLINE_S)

        def step_lobbies() -> None:
            host.poll()
            joiner.poll()
            room.wait(0.002)
        _until(lambda: host.ready and joiner.ready, "the lobbies", deadline, step_lobbies)
        room.close_room()
        for box in boxes:
            box.arm()
        for peer, script in zip((host, joiner), scripts()):
            peer.script = script
            peer.start_ticks(ticks)

        def step_play() -> None:
            for peer in (host, joiner):
                if not peer.over:
                    peer.step_ticks()
            joiner.transport.wait(0.001)
        _until(lambda: host.over and joiner.over, "the session", deadline, step_play)
        assert len(room.paths) == 1
        return Meeting(host, joiner, room.paths[0], found[0], boxes, said)
    finally:
        for opened in (host, joiner):
            if opened is not None:
                opened.close()
        room.close()
        joining.close()
        for box in boxes:
            box.close()
