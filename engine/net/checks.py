"""The limits of the wire format and the checks every message's fields go through.

Each check raises ``PacketError`` (or an ``engine.schema.FieldError`` that ``refusing``
turns into one) naming the message and field, e.g. ``hello nonce must be a whole number``.
Kept apart from the messages so ``packets`` and ``inputs`` share one set of rules: every
field of every message is checked by the rule of its name (``RULES``, ``check_fields``).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import fields
from typing import Any

from engine.constants import MAX_INPUT_DELAY as MAX_INPUT_DELAY  # defined in the leaf; kept here for importers
from engine.constants import MAX_PLAYERS, MAX_TICKS, MS_PER_UPDATE_RANGE
from engine.constants import MAX_SEED as MAX_SEED
from engine.messages import shown
from engine.net.integrity import CONFIRM_HEX, KEY_HEX, MAGIC, MAX_BODY, MAX_DATAGRAM, PAKE_HEX
from engine.schema import ENGINE_VERSION, expect_number, expect_str, expect_whole

__all__ = ["CONFIRM", "KEY_HEX", "MAGIC", "MAX_BODY", "MAX_DATAGRAM", "MAX_DELAYS", "MAX_INPUT_DELAY", "PAKE_MESSAGE",
           "PROOF", "PROTOCOL", "PUBLIC_KEY", "RULES", "SPECTATOR", "PacketError", "check_fields", "inflate", "items",
           "number", "player", "refusing", "text", "tick"]

PROTOCOL = 2
"""The wire protocol's version; ``MAGIC`` carries it, so peers of another version never parse each other."""
SPECTATOR = 255
"""The ``sender`` of an ``Inputs`` from a spectator, who is no player."""
MAX_ID = 2**63 - 1
"""The largest session id and nonce."""
MAX_TEXT = 300
"""The longest reason a ``Refuse`` or a ``Bye`` may give, and the longest game name."""
MAX_DESYNC_INTERVAL = 100_000
"""The longest ``--desync-interval``, in ticks."""
MAX_CHUNKS = 2048
"""The most chunks one snapshot may be cut into."""
MAX_RUNS = 4 * MAX_PLAYERS
"""The most runs one ``Inputs`` may carry."""
MAX_MS = 1e13
"""The largest ``ping``/``echo`` timestamp, in milliseconds (over 300 years of a monotonic clock)."""
MAX_AHEAD = 1e6
"""The largest frames-ahead estimate, either way."""
DEPTH = 8  # the deepest a valid packet nests is 7 (an event inside a run inside an Inputs)
DIGEST = re.compile(r"[0-9a-f]{0,64}")
STATE_HASH = re.compile(r"[0-9a-f]{16}")
PROOF = re.compile(r"[0-9a-f]{32}")
"""A rejoin proof (``engine.net.integrity.rejoin_proof``) as a ``Hello`` carries it."""
MAX_DELAYS = 8
"""The most input delay changes the host may have scheduled at once (each rides on every ``Inputs``)."""
PUBLIC_KEY = re.compile(f"[0-9a-f]{{{KEY_HEX}}}")
"""A Diffie-Hellman public value of the join before SPAKE2 (``integrity.KeyPair``, deprecated): no longer sent."""
PAKE_MESSAGE = re.compile(f"[0-9a-f]{{{PAKE_HEX}}}")
"""A SPAKE2 message as a ``Hello`` or ``Welcome`` carries it (``engine.net.integrity.Pake``)."""
CONFIRM = re.compile(f"[0-9a-f]{{{CONFIRM_HEX}}}")
"""The host's key confirmation as its ``Welcome`` carries it (``engine.net.integrity.confirmation``)."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class PacketError(ValueError):
    """A datagram that is not a valid message, or a message that can't be sent; the text names the problem."""


@contextmanager
def refusing(what: str = "") -> Iterator[None]:
    """Any ``ValueError``/``TypeError`` raised inside, as a ``PacketError`` (prefixed with ``what``)."""
    try:
        yield
    except PacketError:
        raise
    except (ValueError, TypeError, RecursionError, OverflowError) as error:
        raise PacketError(f"{what}{error}") from None


def text(value: Any, where: str, limit: int = MAX_TEXT) -> str:
    """A one-line string of at most ``limit`` characters that UTF-8 can carry (no lone surrogates)."""
    expect_str(value, where, limit)
    if _CONTROL.search(value):
        raise PacketError(f"{where} must be one line without control characters, got {shown(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise PacketError(f"{where} is not valid text, got {shown(value)}") from None
    return str(value)


def number(instance: object, name: str, where: str, low: float, high: float) -> None:
    """Check a number field and store it as a float, so a decoded ``5`` and a built ``5.0`` are the same message."""
    object.__setattr__(instance, name, expect_number(getattr(instance, name), where, low, high))


def player(value: Any, where: str) -> int:
    """A player number, 0 to ``MAX_PLAYERS - 1``."""
    return expect_whole(value, where, 0, MAX_PLAYERS - 1)


def tick(value: Any, where: str, low: int = 0) -> int:
    """A tick, ``low`` to ``MAX_TICKS`` (a replay's bound)."""
    return expect_whole(value, where, low, MAX_TICKS)


def items(value: Any, where: str, limit: int) -> tuple[Any, ...]:
    """A tuple of at most ``limit`` items (a list is refused: a message holds tuples)."""
    if not isinstance(value, tuple) or len(value) > limit:
        raise PacketError(f"{where} must be a tuple of at most {limit} items, got {shown(value)}")
    return value


def inflate(pieces: Iterable[bytes], limit: int, what: str) -> bytes:
    """The whole zlib stream ``pieces`` hold, inflated to at most ``limit`` bytes: a peer's catch-up or snapshot.

    Another machine's bytes: inflating stops at ``limit``, so a zlib bomb costs no more
    memory than that. ``PacketError`` names ``what`` and the problem: not zlib data, more
    than ``limit`` bytes, or a stream cut short or with bytes after its end.
    """
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(b"".join(pieces), limit)
    except zlib.error as error:
        raise PacketError(f"{what} is not zlib data ({error})") from None
    if inflater.unconsumed_tail:
        raise PacketError(f"{what} inflates past {limit:,} bytes")
    if not inflater.eof or inflater.unused_data:
        raise PacketError(f"{what} is cut short, or has bytes after its end")
    return data


Rule = Callable[[Any, str], Any]
"""How one field is checked: the value, and its name as a refusal says it (``welcome session``); returns the value
as the message keeps it (a number as a float, so a decoded ``5`` and a built ``5.0`` are one message)."""


def _whole(low: int, high: int) -> Rule:
    return lambda value, where: expect_whole(value, where, low, high)


def _optional(rule: Rule) -> Rule:
    """``rule``, or ``None`` (the field is not set)."""
    return lambda value, where: None if value is None else rule(value, where)


def _hex(digits: int, pattern: re.Pattern[str], what: str = "") -> Rule:
    """Exactly ``digits`` hex digits, or ``""`` (not sent)."""
    described = f"{what}, {digits} hex digits" if what else f"{digits} hex digits"
    return lambda value, where: value if value == "" else expect_str(value, f"{where} ({described})", digits, pattern)


def _flag(value: Any, where: str) -> bool:
    if type(value) is not bool:
        raise PacketError(f"{where} must be true or false, got {shown(value)}")
    return value


def _number(low: float, high: float) -> Rule:
    return lambda value, where: expect_number(value, where, low, high)


def _sender(value: Any, where: str) -> int:
    if value == SPECTATOR and type(value) is int:
        return SPECTATOR
    return player(value, f"{where} (a player, or {SPECTATOR} for a spectator)")


def _acks(value: Any, where: str) -> tuple[int, ...]:
    acks = items(value, where, MAX_PLAYERS)
    for ack in acks:
        expect_whole(ack, where, -1, MAX_TICKS)
    return acks


def _checked(value: Any, where: str) -> tuple[int, str] | None:
    if value is None:
        return None
    if not (isinstance(value, tuple) and len(value) == 2):
        raise PacketError(f"{where} must be (tick, state hash) or None, got {shown(value)}")
    tick(value[0], f"{where} tick")
    expect_str(value[1], f"{where} hash (16 hex digits)", 16, STATE_HASH)
    return value


def _delays(value: Any, where: str) -> tuple[tuple[int, int], ...]:
    changes = items(value, where, MAX_DELAYS)
    for change in changes:
        if not (isinstance(change, tuple) and len(change) == 2):
            raise PacketError(f"{where} must be (tick, delay) pairs, got {shown(change)}")
        tick(change[0], f"{where} tick", 1)
        expect_whole(change[1], f"{where} delay", 0, MAX_INPUT_DELAY)
    return changes


def _bytes(value: Any, where: str) -> bytes:
    if not isinstance(value, bytes) or len(value) > MAX_BODY:
        raise PacketError(f"{where} must be at most {MAX_BODY} bytes, got {shown(value)}")
    return value


RULES: dict[str, Rule] = {
    "session": _whole(0, MAX_ID),
    "nonce": _whole(0, MAX_ID),
    "token": _whole(0, MAX_ID),
    "tick": lambda value, where: tick(value, where),
    "ticks": _optional(lambda value, where: tick(value, where, 1)),
    "catchup": _optional(lambda value, where: tick(value, where)),
    "player": _optional(lambda value, where: player(value, where)),
    "players": _whole(1, MAX_PLAYERS),
    "seats": _whole(1, MAX_PLAYERS - 1),
    "seed": _whole(0, MAX_SEED),
    "ms_per_update": _number(*MS_PER_UPDATE_RANGE),
    "desync_interval": _whole(1, MAX_DESYNC_INTERVAL),
    "game": lambda value, where: text(value, where),
    "digest": lambda value, where: expect_str(value, f"{where} (hex, at most 64 digits)", 64, DIGEST),
    "engine": lambda value, where: expect_str(value, f"{where} (a version)", 64, ENGINE_VERSION),
    "spectate": _flag,
    "allow_mismatch": _flag,
    "key": _hex(PAKE_HEX, PAKE_MESSAGE, "a SPAKE2 message"),
    "confirm": _hex(CONFIRM_HEX, CONFIRM),
    "rejoin": _optional(lambda value, where: expect_whole(value, f"{where} (a token)", 0, MAX_ID)),
    "proof": _hex(32, PROOF),
    "cookie": lambda value, where: expect_str(value, f"{where} (32 hex digits)", 32, PROOF),
    "reason": lambda value, where: text(value, where),
    "have": _whole(0, MAX_CHUNKS),
    "index": _whole(0, MAX_CHUNKS - 1),
    "total": _whole(1, MAX_CHUNKS),
    "data": _bytes,
    "sender": _sender,
    "acks": _acks,
    "runs": lambda value, where: items(value, where, MAX_RUNS),
    "ping": _number(0.0, MAX_MS),
    "echo": _number(0.0, MAX_MS),
    "ahead": _number(-MAX_AHEAD, MAX_AHEAD),
    "checked": _checked,
    "delays": _delays,
}
"""The rule of every field of every message, by the field's name: a field means one thing in every message
(``engine.net.packets``, ``engine.net.inputs``), so a ``session`` or a ``key`` is checked the same wherever it is."""


def check_fields(message: Any, kind: str) -> None:
    """Check each field of the dataclass ``message`` by the rule of its name (``RULES``), in the order declared.

    A refusal names ``kind`` and the field (``bye reason must be ...``). What the rule
    returns is what the message keeps (a number as a float). A check between fields (a
    ``Welcome``'s player is one of its players) is the message's own, after these.
    """
    for field in fields(message):
        object.__setattr__(message, field.name, RULES[field.name](getattr(message, field.name), f"{kind} {field.name}"))
