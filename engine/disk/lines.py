"""The JSON-lines files tickswap reads (recordings, input scripts): one bounded, numbered line at a time.

A recording is a header line, then one JSON object a line; an input script is a
recording's input lines. Both are read here, line by line, each line bounded before it
is decoded (``read_lines``) and parsed as one JSON object or refused naming the file, the
line and why (``parse_record``). What the lines *say* is checked above: the replay format
in ``engine.files.replay.format``, an input script in ``engine.input.scripts``, which
therefore share this reader without the input package importing the files package.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.disk.reading import NotAFile, open_regular
from engine.messages import shown_name
from engine.schema import FieldError, parse_json

__all__ = ["MAX_LINE_BYTES", "MAX_START_BYTES", "REPLAY_FORMAT", "ReplayError", "parse_record", "read_lines"]

REPLAY_FORMAT = "tickswap-replay"
"""The ``format`` field of a replay's header line (an input script that starts with one is a recording)."""
MAX_LINE_BYTES = 1 << 20
"""The longest line a replay may have (a tick with thousands of events fits easily)."""
MAX_START_BYTES = 32 * 1024 * 1024
"""The longest the save line of a recording that starts from a save may be (the only line past ``MAX_LINE_BYTES``)."""


class ReplayError(ValueError):
    """A replay file can't be used; the message names the file, the line and the problem."""


def read_lines(path: str, long_lines: frozenset[int] | set[int] = frozenset()) -> Iterator[tuple[int, str]]:
    """The file's lines, numbered from 1, each at most ``MAX_LINE_BYTES`` (checked before decoding).

    The lines numbered in ``long_lines`` (a recording's save line: the caller adds 2 once it
    has read a header with a ``start``) may be up to ``MAX_START_BYTES``.
    """
    shown = shown_name(path)
    try:
        # A FIFO, a device or a directory is refused by name, never opened in a way that blocks.
        file = open_regular(path, "the file")
    except NotAFile as error:
        raise ReplayError(str(error)) from None
    with file:
        number = 0
        while True:
            limit = MAX_START_BYTES if number + 1 in long_lines else MAX_LINE_BYTES
            try:
                raw = file.readline(limit + 1)
            except OSError as error:
                raise ReplayError(f"{shown}: cannot read it: {error.strerror or error}") from None
            if not raw:
                return
            number += 1
            if len(raw) > limit:
                raise ReplayError(f"{shown}:{number}: the line is longer than {limit} bytes")
            try:
                yield number, raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise ReplayError(f"{shown}:{number}: not UTF-8 text") from None


def parse_record(path: str, number: int, text: str) -> dict[str, Any]:
    """Line ``number`` of the file ``path`` as a JSON object; anything else raises ``ReplayError`` naming it."""
    try:
        record = parse_json(text)
    except FieldError as error:
        raise ReplayError(f"{path}:{number}: {error}") from None
    except ValueError as error:
        if not text.strip():
            raise ReplayError(f"{path}:{number}: a blank line, where a JSON object was expected "
                              "(only an input script may have blank lines)") from None
        if text.lstrip().startswith("#"):
            raise ReplayError(f"{path}:{number}: a comment, where a JSON object was expected (these files have none)") \
                from None
        reason = getattr(error, "msg", str(error))
        # Cut short is what a line that stops mid-value most likely is; anything else is an edit.
        # (A string left open runs to the end of the line, wherever it began.)
        cut = ("; the file may be cut short" if getattr(error, "pos", -1) >= len(text.rstrip())
               or reason.startswith("Unterminated string") else "")
        column = getattr(error, "colno", None)
        at = "" if column is None else f" column {column}" if reason.endswith(" at") else f" at column {column}"
        raise ReplayError(f"{path}:{number}: not valid JSON ({reason}{at}){cut}") from None
    if not isinstance(record, dict):
        raise ReplayError(f"{path}:{number}: expected a JSON object, got {text[:40]!r}")
    return record
