"""What one side of ICE tells the other: its credentials and candidates, checked whole as data.

An ``Offer`` travels through the rendezvous (``engine.net.rendezvous``) from a host to a
joiner and back (the joiner's is its answer). It is plain ASCII text: a first line
``tickswap-ice 1 UFRAG PWD``, then one line per candidate, ``FOUNDATION PRIORITY HOST PORT
KIND``, at most ``MAX_CANDIDATES``. Only IPv4 addresses written as four numbers are
candidates (no names: nothing is looked up), and no related address is sent (it would
tell the other side more of the LAN than ICE needs). ``Offer.decode`` checks every line
and field before building anything and names the first that is wrong; the rendezvous
checks the same (``check_offer``) before it keeps an offer. No aioice here: the
rendezvous does not need it.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

from engine.messages import shown
from engine.net.transport import Address

__all__ = ["CANDIDATE_KINDS", "MAX_CANDIDATES", "OFFER_HEADER", "Candidate", "IceError", "Offer", "check_offer"]

CANDIDATE_KINDS = ("host", "srflx", "relay")
"""The kinds of candidate signalled: a host address, a server-reflexive one (STUN), a relayed one (TURN)."""
MAX_CANDIDATES = 12
"""The most candidates an ``Offer`` carries (relayed and reflexive ones first, then host addresses)."""
_ICE_CHARS = re.compile(r"[A-Za-z0-9+/]+")


class IceError(Exception):
    """ICE found no path, or what the other side sent is not an offer; one line naming what."""


@dataclass(frozen=True)
class Candidate:
    """One address a side may be reached at: its kind (``CANDIDATE_KINDS``, or ``prflx`` learned in a check)."""

    foundation: str
    priority: int
    host: str
    port: int
    kind: str

    @property
    def address(self) -> Address:
        """(host, port)."""
        return self.host, self.port

    def line(self) -> str:
        """The candidate as one line of an ``Offer``."""
        return f"{self.foundation} {self.priority} {self.host} {self.port} {self.kind}"

    @classmethod
    def parse(cls, line: str, number: int) -> Candidate:
        """A candidate line (``number``: its place, for the message); ``IceError`` names the field that is wrong."""
        fields = line.split(" ")
        if len(fields) != 5:
            raise IceError(f"candidate {number}: expected 5 fields (foundation priority host port kind), "
                           f"got {len(fields)}")
        foundation, priority, host, port, kind = fields
        if not 1 <= len(foundation) <= 32 or not _ICE_CHARS.fullmatch(foundation):
            raise IceError(f"candidate {number}: foundation {shown(foundation)} is not 1 to 32 ICE characters")
        if not priority.isdigit() or not 1 <= int(priority) < 2**32:
            raise IceError(f"candidate {number}: priority {shown(priority)} is not a whole number from 1 to 2**32-1")
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise IceError(f"candidate {number}: host {shown(host)} is not an IPv4 address") from None
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise IceError(f"candidate {number}: port {shown(port)} is not a port from 1 to 65535")
        if kind not in CANDIDATE_KINDS:
            raise IceError(f"candidate {number}: kind {shown(kind)} is not one of {', '.join(CANDIDATE_KINDS)}")
        return cls(foundation, int(priority), host, int(port), kind)


OFFER_HEADER = "tickswap-ice 1"
"""The first words of an offer: its format and version."""


@dataclass(frozen=True)
class Offer:
    """What one side tells the other through the rendezvous: its ICE credentials and candidates.

    As bytes (``encode``): a first line ``tickswap-ice 1 UFRAG PWD``, then one line per
    candidate (``Candidate.line``). ``decode`` checks all of it before building anything.
    """

    ufrag: str
    pwd: str = field(repr=False)
    candidates: tuple[Candidate, ...]

    def encode(self) -> bytes:
        """The offer as the rendezvous carries it."""
        return "\n".join([f"{OFFER_HEADER} {self.ufrag} {self.pwd}", *(c.line() for c in self.candidates)]).encode()

    @classmethod
    def decode(cls, data: bytes) -> Offer:
        """An offer from its bytes; ``IceError`` names the line and field that is wrong."""
        try:
            text = data.decode("ascii")
        except UnicodeDecodeError:
            raise IceError("the offer is not ASCII text") from None
        lines = text.split("\n")
        head = lines[0].split(" ")
        if len(head) != 4 or " ".join(head[:2]) != OFFER_HEADER:
            raise IceError(f"the offer does not begin with {OFFER_HEADER!r} UFRAG PWD")
        ufrag, pwd = head[2], head[3]
        if not 4 <= len(ufrag) <= 32 or not _ICE_CHARS.fullmatch(ufrag):
            raise IceError(f"the offer's ufrag {shown(ufrag)} is not 4 to 32 ICE characters")
        if not 22 <= len(pwd) <= 64 or not _ICE_CHARS.fullmatch(pwd):
            raise IceError("the offer's password is not 22 to 64 ICE characters")
        if not 1 <= len(lines) - 1 <= MAX_CANDIDATES:
            raise IceError(f"the offer has {len(lines) - 1} candidates: expected 1 to {MAX_CANDIDATES}")
        candidates = tuple(Candidate.parse(line, number) for number, line in enumerate(lines[1:], 1))
        return cls(ufrag, pwd, candidates)


def check_offer(data: bytes) -> str | None:
    """What is wrong with ``data`` as an offer, in one line, or ``None`` when it is one."""
    try:
        Offer.decode(data)
    except IceError as error:
        return str(error)
    return None
