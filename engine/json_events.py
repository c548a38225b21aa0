"""``--json``: what a command says, as one JSON object a line, for the harness that runs it.

A test harness, a tournament runner or a CI job that drives ``tickswap`` wants the state
hash, the port a host bound, a room's code and a peer's drop as data, not lines of prose to
pick apart. With ``--json`` (``run``, ``replay``, ``check``, ``host``, ``join``, and a
packaged game or ``python game.py``, which take ``run``'s options) the command writes one
JSON object per event on stdout, each with an ``"event"`` field, and every line meant for
people goes to stderr instead. The events:

- ``{"event": "listening", "host": ..., "port": ...}``: a host bound its port;
- ``{"event": "room", "code": ...}``: a host opened a room at the rendezvous;
- ``{"event": "joined", "player": ..., "players": ..., "here": [...]}``: a joiner was given its seat
  (``here``: every player it plays, several with ``--local N``);
- ``{"event": "peer", "player": ..., "tick": ..., "connected": false|true}``: a player
  dropped (or came back), said by every peer at the same confirmed tick;
- ``{"event": "check", "check": ..., "ok": ..., "text": ...}``: one part of ``tickswap check``;
- ``{"event": "summary", "command": ..., "ok": ..., "text": ..., ...}``: how a run, a replay or
  a session ended (``ticks``, and ``state``, the full state hash, where there is a world);

Keys are written in a fixed order and nothing else goes to stdout, so ``json.loads`` of each
line is the whole interface. ``emit`` does nothing unless a command turned the output on
(``json_output``): the engine's code says its events unconditionally, and only the command
line decides whether anyone hears them.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = ["add_json_option", "emit", "json_output", "listening"]

_sinks: list[TextIO] = []
"""Where events go while a command runs with ``--json`` (a stack: a command inside a command keeps its own)."""


def add_json_option(parser: Any) -> None:
    """Give a command ``--json`` (its events as JSON lines on stdout, people's lines on stderr)."""
    parser.add_argument("--json", action="store_true",
                        help="write events (the summary, the port bound, a room code, a peer's drop and return, the "
                             "final state) as one JSON object a line on stdout; everything else goes to stderr")


def listening() -> bool:
    """Whether events are being written (a command runs with ``--json``)."""
    return bool(_sinks)


def emit(event: str, **fields: Any) -> None:
    """Write ``{"event": event, **fields}`` as one line, when a command runs with ``--json``; else nothing."""
    if not _sinks:
        return
    sink = _sinks[-1]
    sink.write(json.dumps({"event": event, **fields}, ensure_ascii=False, allow_nan=False) + "\n")
    sink.flush()


@contextlib.contextmanager
def json_output(enabled: bool) -> Iterator[None]:
    """While the block runs, events go to stdout as JSON lines and anything printed goes to stderr (when
    ``enabled``; otherwise the block runs as it is)."""
    if not enabled:
        yield
        return
    _sinks.append(sys.stdout)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _sinks.pop()
