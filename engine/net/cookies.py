"""Address proofs: a stateless cookie a sender must echo before a host or a rendezvous sends it much (QUIC's rule).

UDP's source address is the sender's word: anyone can send a ``Hello`` (or open a
rendezvous room) with a victim's address, and whatever is answered goes to the victim.
Before this, one spoofed spectator ``Hello`` made a host send its victim a ``Welcome``
every 20 ms for a minute (about 3,000 times the bytes it sent). So, as QUIC does
(RFC 9000, section 8.1), an address that has not shown it receives there is answered
with at most ``AMPLIFICATION`` times the bytes it sent: a small ``Retry`` (a host) or a
``PROVE`` status (a rendezvous) carrying a cookie, and nothing else. The sender proves
the address by sending the cookie back; only then does it get a ``Welcome``, a catch-up,
a refusal said in full, or a room.

A cookie is keyed BLAKE2s, with a secret drawn when the host or rendezvous starts, over
the address and the current time window (``WINDOW_S``): the host keeps no state per
unproven address (a flood of spoofed ``Hello`` costs it nothing but the answers), and a
cookie holds for one to two windows, from that address only.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

__all__ = ["AMPLIFICATION", "COOKIE_BYTES", "WINDOW_S", "Cookies"]

AMPLIFICATION = 3
"""The most bytes sent to an unproven address per byte it sent (QUIC's limit, RFC 9000 section 8)."""
COOKIE_BYTES = 16
"""A cookie's size: guessing one for an address it was not sent to succeeds once in 2**128."""
WINDOW_S = 30.0
"""A cookie is made for a window of this many seconds, and holds in that window and the next."""


def _address_bytes(address: Any) -> bytes:
    return f"{address[0]}|{address[1]}".encode("utf-8", "replace")


class Cookies:
    """Makes and checks the cookies of one host or rendezvous (its secret drawn here, with ``secrets``)."""

    def __init__(self, secret: bytes | None = None) -> None:
        self._secret = secret if secret is not None else secrets.token_bytes(32)

    def _make(self, address: Any, window: int) -> bytes:
        data = window.to_bytes(8, "big", signed=True) + _address_bytes(address)
        return hashlib.blake2s(data, key=self._secret, person=b"tswcooki", digest_size=COOKIE_BYTES).digest()

    def cookie(self, address: Any, now: float) -> bytes:
        """The cookie to send to ``address`` at time ``now`` (seconds, the owner's clock)."""
        return self._make(address, int(now // WINDOW_S))

    def holds(self, cookie: bytes, address: Any, now: float) -> bool:
        """Whether ``cookie`` was made for ``address`` in this window or the last (compared in constant time)."""
        if len(cookie) != COOKIE_BYTES:
            return False
        window = int(now // WINDOW_S)
        return any(hmac.compare_digest(cookie, self._make(address, at)) for at in (window, window - 1))
