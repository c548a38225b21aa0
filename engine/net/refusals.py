"""The host lobby's tally: refused ``Hello`` said in few lines, and the datagrams it dropped counted.

Anyone may send a ``Hello``, so a flood of bad ones must not flood the host's terminal
nor be answered with more bytes than it sent. The first ``SAID_IN_FULL`` refusals of an
address (for the first ``ADDRESSES_SAID`` addresses) are said in full and answered with
the ``Refuse`` three times (a joiner must hear it); the rest are counted, said once a
second (and at the start) in one line, and answered once with a ``Refuse`` no larger
than the ``Hello`` (``fit_refuse``). Garbage (what is not a packet, or not for the
lobby) is counted for the session's summary line, ``garbage dropped``; a datagram whose
check or tag failed (``engine.net.integrity``) in its ``damaged or forged dropped``. Both
are ``DatagramCounts``, the one counter of what a peer dropped: the lobbies and the
running session count into the same object (the session's ``SessionStats``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.net.integrity import REPLY_OVERHEAD, seal_reply
from engine.net.packets import fit_refuse

__all__ = ["ADDRESSES_SAID", "GUESS_BURST", "GUESS_EVERY_S", "LINES_AT_ONCE", "LINE_EVERY_S", "SAID_IN_FULL",
           "SAY_EVERY_S", "DatagramCounts", "GuessBudget", "LineBudget", "LobbyTally"]

SAID_IN_FULL = 3
"""Refusals said in full per address; more from it are only counted."""
ADDRESSES_SAID = 32
"""Addresses whose refusals are said in full (a forged flood may come from any number): bounds the lines and memory."""
SAY_EVERY_S = 1.0
"""How often the held-back refusals are said, in one line."""


def where(address: Any) -> str:
    """``HOST:PORT`` of a UDP address."""
    return f"{address[0]}:{address[1]}"


@dataclass
class DatagramCounts:
    """What a peer dropped, and followed, of the datagrams it received: counted in one place, lobby and play alike.

    The host's lobby, a joiner's lobby and the running session count into the same object
    (the session's ``SessionStats`` is one), so the session line says every datagram dropped,
    whichever phase it came in.
    """

    garbage: int = 0
    """Datagrams dropped as garbage: no tickswap envelope, no packet (for the lobby), another session's, a peer's
    mix-up or flood (a prober's empty knock on the port aside)."""
    damaged: int = 0
    """Datagrams dropped because their check or tag failed (``engine.net.integrity``): damaged, or forged."""
    replayed: int = 0
    """Datagrams dropped because their number was taken before or is too old (``integrity.REPLAY_WINDOW``)."""
    moved: int = 0
    """How many times a peer's datagrams came from a new address (a NAT rebinding) and were followed there."""


class LobbyTally:
    """What the host's lobby refused: a few lines for any flood (what it dropped is its ``DatagramCounts``)."""

    def __init__(self, say: Callable[[str], None], now: float) -> None:
        self._say = say
        self._said: dict[str, int] = {}
        self._held = 0
        self._held_from: dict[str, int] = {}
        self._last = now

    def refuse(self, send: Callable[[bytes, Any], object], hello: bytes, answers: bytes, nonce: int, reason: str,
               address: Any) -> None:
        """Answer a ``Hello`` with ``Refuse``: in full the first few times for an address, then counted and small.

        ``hello`` is the ``Hello``'s datagram, ``answers`` its reply key; ``send(datagram, address)`` sends.
        """
        key = where(address)
        said = self._said.get(key)
        if said is None and len(self._said) < ADDRESSES_SAID:
            said = self._said[key] = 0
        if said is not None and said < SAID_IN_FULL:
            self._said[key] = said + 1
            answer = fit_refuse(nonce, reason)
            if answer is not None:
                for _ in range(3):  # the joiner must hear it: a lost refusal would leave it asking
                    send(seal_reply(answers, answer), address)
            # Anyone may send a Hello: a refusal is said, and the lobby waits on for the right players.
            self._say(f"refused a join from {key}: {reason}")
            return
        small = fit_refuse(nonce, reason, len(hello) - REPLY_OVERHEAD)
        if small is not None:
            send(seal_reply(answers, small), address)
        self._held += 1
        if key in self._held_from or len(self._held_from) < ADDRESSES_SAID:
            self._held_from[key] = self._held_from.get(key, 0) + 1

    def tick(self, now: float) -> None:
        """Say the held-back refusals once ``SAY_EVERY_S`` has passed since the last time."""
        if now - self._last >= SAY_EVERY_S:
            self.flush()
            self._last = now

    def flush(self) -> None:
        """Say the refusals held back since the last line, if any, in one line."""
        if not self._held:
            return
        if len(self._held_from) == 1 and sum(self._held_from.values()) == self._held:
            source = f"from {next(iter(self._held_from))}"
        else:
            most = max(sorted(self._held_from), key=self._held_from.__getitem__)
            source = f"from several addresses ({most} most)"
        self._say(f"{self._held} more refused Hello{'' if self._held == 1 else 's'} {source}")
        self._held = 0
        self._held_from = {}


class _Bucket:
    """A token bucket: ``size`` tokens at once, then one more every ``every_s`` seconds, never more than ``size``."""

    def __init__(self, size: int, every_s: float, now: float) -> None:
        self._size = float(size)
        self._every_s = every_s
        self._tokens = float(size)
        self._when = now

    def take(self, now: float) -> bool:
        """Whether a token is there now (it is taken if so)."""
        self._tokens = min(self._size, self._tokens + (now - self._when) / self._every_s)
        self._when = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True

    def give_back(self) -> None:
        """One token back (never past ``size``)."""
        self._tokens = min(self._size, self._tokens + 1.0)


LINES_AT_ONCE = 8
"""Spectator lines (joined, left, dropped) said at once before they are rate-limited."""
LINE_EVERY_S = 10.0
"""Past those, one more spectator line every this many seconds; the rest are counted and said in one line."""


class LineBudget:
    """Lines about spectators, rate-limited: anyone with an address may come and go as a spectator, again and again.

    A token bucket: ``LINES_AT_ONCE`` lines at once, then one every ``LINE_EVERY_S``; a line
    past the budget is counted, and the count said in one line when the budget allows
    (``tick``). Over a long game a stream of phantom spectators costs a line every ten
    seconds, not two per spectator.
    """

    def __init__(self, say: Callable[[str], None], now: float) -> None:
        self._say = say
        self._bucket = _Bucket(LINES_AT_ONCE, LINE_EVERY_S, now)
        self.held = 0
        """Lines counted, not said, since the last summary."""

    def say(self, line: str, now: float) -> None:
        """Say ``line`` if the budget allows, else count it."""
        self.tick(now)
        if not self.held and self._bucket.take(now):
            self._say(line)
        else:
            self.held += 1

    def tick(self, now: float) -> None:
        """Say the count of the lines held back, once the budget allows."""
        if self.held and self._bucket.take(now):
            self._say(f"{self.held} more spectator line{'' if self.held == 1 else 's'} (joined, left, dropped) not "
                      "said one by one")
            self.held = 0


GUESS_BURST = 10
"""Joins a host answers at once with a key exchange before they are rate-limited (each is a guess at the code)."""
GUESS_EVERY_S = 1.0
"""Past the burst, one more key exchange every this many seconds; a join whose key is confirmed gives its back."""


class GuessBudget:
    """The host's bound on online guesses of the join code: every key exchange it answers is one guess.

    Someone in the middle of a join, or anyone who can reach the host, learns from one
    exchange whether one guess of the code was right, and nothing more (SPAKE2). So the host
    answers at most ``GUESS_BURST`` exchanges at once and then one every ``GUESS_EVERY_S``
    (a token bucket, for the whole host: an attacker has many addresses); an honest joiner,
    whose first datagram on its new link proves it had the code, gives its token back
    (``refund``). A code of 6 characters from 31 (887,503,681 codes) then takes 14 years on
    average to guess online; a session's lobby waits a minute, a game a few hours.
    """

    def __init__(self, now: float) -> None:
        self._bucket = _Bucket(GUESS_BURST, GUESS_EVERY_S, now)
        self.refused = 0
        """Exchanges refused because the budget was spent."""

    def take(self, now: float) -> bool:
        """Whether one more exchange may be answered now (it is counted if so)."""
        if self._bucket.take(now):
            return True
        self.refused += 1
        return False

    def refund(self) -> None:
        """A joiner proved it had the code: its exchange was no guess."""
        self._bucket.give_back()
