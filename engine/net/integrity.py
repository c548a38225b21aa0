"""Every datagram's envelope: a tag checked before anything is decoded, and the keys agreed at join.

UDP delivers damaged datagrams now and then (a bit flipped on a bad link, a datagram cut
short), and anyone may send one to a host's port. A damaged datagram that still parses
would be played: a key code 65362 read as 65363 is a desync nobody caused. So every
datagram is an envelope whose tag is checked first; one that fails is dropped and counted,
never decoded. Four envelopes (all integers big-endian):

``hello``    ``MAGIC b"H" check(16) body``
    A joiner's ``Hello``, sent before any key exists: ``check`` is BLAKE2s of the body
    (unkeyed, personalised), so a bit flip or a cut is caught. It proves nothing about
    the sender: anyone may ask to join.
``proven``   ``MAGIC b"C" cookie(16) check(16) body``
    The same ``Hello`` with the host's cookie for the sender's address in front
    (``engine.net.cookies``): proof that the sender receives at the address it sends from.
    A host answers a ``Hello`` without one with a small ``Retry`` carrying the cookie, and
    nothing more (QUIC's address validation), so a spoofed ``Hello`` amplifies nothing.
``reply``    ``MAGIC b"R" tag(16) body``
    The host's ``Welcome`` or ``Refuse``, tagged with a key drawn from the exact ``Hello``
    it answers (``reply_key``): a joiner takes only the answer to its own ``Hello``, and
    an off-path sender, who never saw that ``Hello``, cannot forge one.
``session``  ``MAGIC b"S" session(8) token(8) seq(8) tag(16) body``
    Everything after the welcome. ``session`` and ``token`` say which peer sent it (a
    peer is its token, never its address: ``Peer.token``); ``seq`` counts up per
    direction; the tag is keyed BLAKE2s over the header and body with that link's key
    for that direction, so a datagram cannot be reflected back to its sender either.

How the link key is agreed. Both sides were given the same join code out of band (the
code ``tickswap host`` prints, or the room code). The joiner's ``Hello`` carries its SPAKE2
message over that code (``Pake``: the ``spake2`` package, as magic-wormhole uses it), the
host's ``Welcome`` its own (a fresh one per ``Hello``), the joiner's token and a key
confirmation (``confirmation``: HMAC-SHA256). Both sides finish the exchange and draw the
link's two keys from the shared secret with HKDF-SHA256 (``link_keys``, ``cryptography``'s).
What this defends against, and what not:

- Damage (bit flips, truncation, a datagram of another session or another program): always
  caught; the chance a damaged datagram passes is 2**-128.
- Blind forgery (a sender who does not see the traffic, e.g. spoofing source addresses
  from elsewhere on the internet): it does not know the key, so its datagrams are dropped,
  and a forged datagram from a new address never moves a peer there.
- A passive eavesdropper on the path (someone who reads the traffic, such as a shared
  Wi-Fi): it sees both messages but cannot compute the key from them, even with the code,
  so it cannot forge datagrams either. It can read the game traffic: nothing is encrypted.
- An active attacker on the path *during the join* without the code, one that answers the
  joiner in the host's place (or the host in the joiner's): its key differs from each
  side's. The joiner finds the host's confirmation does not hold and stops; the host finds
  the joiner's datagrams do not open and refuses it (``engine.net.lobby``). Each exchange
  is one guess at the code (``engine.net.refusals.GuessBudget`` bounds them). Such an
  attacker can still drop or delay anything, which no key prevents; one who has the code
  (it is a password to the seats) is a player like any other.
- A player dropped from a session of 3 or more takes its seat back with a proof, not an
  address: at its first join both sides drew a rejoin secret from the shared value
  (``rejoin_secret``), which the joiner keeps as its rejoin code. A new process joins
  afresh (a new key) and its ``Hello`` carries ``rejoin_proof``: keyed by that secret over
  the seat's token, its nonce and its new SPAKE2 message, so whoever sees the ``Hello`` can't
  put their own key in it, and it serves one attempt. Who holds the code holds the seat.
- A replayed datagram (an old one sent again, from any address): each direction's numbers
  are taken once, in a sliding window (``REPLAY_WINDOW``, as DTLS and IPsec do), so a copy,
  or one older than the window, is dropped and counted (``replayed dropped``): it neither
  keeps a dead peer alive nor moves a peer. Only a datagram numbered above any before moves
  a peer to its address. Someone on the path who copies a fresh datagram and gets its copy
  in first moves the peer to itself until the peer's next datagram (about 10 ms): no more
  than dropping its datagrams would do.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
import warnings
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["CONFIRM_HEX", "COOKIE_BYTES", "KEY_HEX", "MAGIC", "MAX_BODY", "MAX_DATAGRAM", "OVERHEAD", "PAKE_HEX",
           "REJOIN_CODE_HEX", "REPLAYED", "REPLAY_WINDOW", "REPLY_OVERHEAD", "KeyPair", "Link", "Pake", "SessionHeader",
           "confirmation", "confirmation_holds", "frame_kind", "link_keys", "new_id", "open_hello", "open_proven",
           "open_reply", "proof_holds", "read_header", "read_rejoin_code", "rejoin_code", "rejoin_proof",
           "rejoin_secret", "reply_key", "seal_hello", "seal_proven", "seal_reply"]

MAGIC = b"TSW2"
"""The first bytes of every datagram: tickswap's wire protocol, version 2 (the version with envelopes)."""
TAG_BYTES = 16
"""A tag (or a hello's check) is BLAKE2s cut to 16 bytes: a damaged datagram passes once in 2**128."""
_HEADER = struct.Struct(">4sc QQQ")
_KIND_END = len(MAGIC) + 1
OVERHEAD = _HEADER.size + TAG_BYTES
"""The bytes a session envelope adds to a message's body (the largest envelope of the three)."""
REPLY_OVERHEAD = len(MAGIC) + 1 + TAG_BYTES
"""The bytes a hello or reply envelope adds to a message's body."""
MAX_DATAGRAM = 1200
"""The largest datagram sent or accepted, in bytes (under the smallest common path MTU, so never fragmented)."""
MAX_BODY = MAX_DATAGRAM - OVERHEAD
"""The largest message body an envelope may hold."""

# RFC 3526, group 14: a 2048-bit safe prime, generator 2 (the prime is 2**2048 - 2**1984 - 1 + 2**64 *
# (floor(2**1918 * pi) + 124476); a test recomputes it).
GROUP_PRIME = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
    "15728E5A8AACAA68FFFFFFFFFFFFFFFF", 16)
GROUP_GENERATOR = 2
KEY_HEX = 512
"""A public value on the wire: 512 hex digits (2048 bits)."""
_EXPONENT_BITS = 256  # twice the 128-bit strength of the group, as RFC 3526 advises for exponents


PAKE_HEX = 66
"""A SPAKE2 message on the wire: 66 hex digits (33 bytes: a side byte and an Ed25519 group element)."""
CONFIRM_HEX = 64
"""A key confirmation on the wire: 64 hex digits (HMAC-SHA256)."""
_IDS = {"idA": b"tickswap joiner", "idB": b"tickswap host"}


class Pake:
    """One side of one join's key agreement: SPAKE2 (the ``spake2`` package, as magic-wormhole uses it) over the code.

    The joiner and the host each make one (``host=True`` for the host's side, one per
    ``Hello``: a SPAKE2 side is used once) from the join code both were given out of band
    (the room code, or the code ``tickswap host`` prints). Each sends ``message_hex``;
    ``finish`` with the other's gives the shared secret, the same on both sides only when
    both used the same code and nobody stood between them. Someone in the middle of the
    join who does not know the code gets one guess at it per join it takes part in, and
    learns nothing else: the key confirmation (``confirmation``) tells both sides.
    """

    def __init__(self, code: str, *, host: bool) -> None:
        # Imported where a join starts, not with the engine: the packets, the checks and the command
        # line import this module, and a build without these libraries (the browser's, where Pyodide
        # has no wheel of them offline) plays every game that never joins a session.
        from spake2 import SPAKE2_A, SPAKE2_B

        password = code.encode("utf-8")
        self._side = SPAKE2_B(password, **_IDS) if host else SPAKE2_A(password, **_IDS)
        self.message_hex = self._side.start().hex()
        """This side's SPAKE2 message (``PAKE_HEX`` hex digits)."""

    def finish(self, their_hex: str) -> bytes | None:
        """The shared secret (32 bytes) from the other side's message; ``None`` for one no honest side sends.

        Called once: a second call, like a message of the same side, is ``None``.
        """
        from spake2.spake2 import SPAKEError

        try:
            return bytes(self._side.finish(bytes.fromhex(their_hex)))
        except (ValueError, SPAKEError):
            return None


def _hkdf(shared: bytes, info: bytes, length: int) -> bytes:
    """``length`` bytes drawn from the join's shared secret with HKDF-SHA256 (RFC 5869, ``cryptography``'s)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=b"tickswap 3 " + info).derive(shared)


def _names(session: int, token: int, hello: bytes) -> bytes:
    return struct.pack(">QQ", session, token) + hashlib.sha256(hello).digest()


def confirmation(shared: bytes, session: int, token: int, hello: bytes, host_message: str) -> str:
    """The host's key confirmation in its ``Welcome``: HMAC-SHA256 over the join (``CONFIRM_HEX`` hex digits).

    Keyed by a key drawn from the shared secret, over the session, the token, the exact
    ``Hello`` and the host's SPAKE2 message: a joiner whose secret differs (another code, or
    someone in the middle) finds it does not hold, and stops, saying so.
    """
    key = _hkdf(shared, b"confirm" + _names(session, token, hello), 32)
    return hmac.new(key, _names(session, token, hello) + host_message.encode("ascii"), "sha256").hexdigest()


def confirmation_holds(shared: bytes, session: int, token: int, hello: bytes, host_message: str,
                       confirm: str) -> bool:
    """Whether ``confirm`` is the host's ``confirmation`` of this join (compared in constant time)."""
    expected = confirmation(shared, session, token, hello, host_message)
    return hmac.compare_digest(confirm.encode("ascii", "replace"), expected.encode("ascii"))


def new_id() -> int:
    """A random 63-bit id (a session id, a token, a nonce), from ``secrets``: unguessable from outside."""
    return secrets.randbits(63)


def _blake(data: bytes, *, key: bytes = b"", person: bytes, size: int = TAG_BYTES) -> bytes:
    return hashlib.blake2s(data, key=key, person=person, digest_size=size).digest()


@dataclass(frozen=True)
class KeyPair:
    """A Diffie-Hellman private exponent and its public value ``GROUP_GENERATOR ** private mod GROUP_PRIME``."""

    private: int = field(repr=False)
    public: int

    @classmethod
    def new(cls) -> KeyPair:
        """A fresh pair (about a few milliseconds: one modular exponentiation). Deprecated: joins use ``Pake``."""
        warnings.warn("engine.net.integrity.KeyPair is deprecated (the join agrees its key with SPAKE2 over the "
                      "join code): use engine.net.integrity.Pake", DeprecationWarning, stacklevel=2)
        private = secrets.randbits(_EXPONENT_BITS) | 1 << (_EXPONENT_BITS - 1)
        return cls(private, pow(GROUP_GENERATOR, private, GROUP_PRIME))

    @property
    def public_hex(self) -> str:
        """The public value as the wire carries it (``KEY_HEX`` lowercase hex digits)."""
        return f"{self.public:0{KEY_HEX}x}"

    def shared(self, their_public_hex: str) -> bytes | None:
        """The shared secret with the peer whose public value is given; ``None`` for a value no honest peer sends.

        1 and p - 1 (and anything out of range) would make the secret guessable: refused.
        """
        try:
            theirs = int(their_public_hex, 16)
        except ValueError:
            return None
        if len(their_public_hex) != KEY_HEX or not 2 <= theirs <= GROUP_PRIME - 2:
            return None
        return pow(theirs, self.private, GROUP_PRIME).to_bytes(256, "big")


def link_keys(shared: bytes, session: int, token: int, hello: bytes) -> tuple[bytes, bytes]:
    """The two keys of a link, (to the host, to the joiner), from the shared secret and what names the link.

    Drawn with HKDF-SHA256: the session, the token and the ``Hello`` bind the keys to this
    one join, so two joins never share a key.
    """
    keys = _hkdf(shared, b"link" + _names(session, token, hello), 64)
    return keys[:32], keys[32:]


REJOIN_CODE_HEX = 48
"""A rejoin code: the seat's token (16 hex digits), then its rejoin secret (32)."""


def rejoin_secret(shared: bytes, session: int, token: int, hello: bytes) -> bytes:
    """The secret a player proves it is itself with when it asks for its seat back (16 bytes).

    Drawn like the link's keys from the join's shared value, so only the host and that
    joiner know it; it outlives the link: a joiner whose process died keeps it as its rejoin
    code (``rejoin_code``) and gives it to the new process, which joins afresh (a new key)
    and proves with it that it is the dropped player (``rejoin_proof``).
    """
    return _hkdf(shared, b"rejoin" + _names(session, token, hello), 16)


def rejoin_code(token: int, secret: bytes) -> str:
    """The code a player gives to rejoin its seat: its token and rejoin secret in hex (``REJOIN_CODE_HEX`` digits)."""
    return f"{token:016x}{secret.hex()}"


def read_rejoin_code(code: str) -> tuple[int, bytes] | None:
    """The token and secret of a rejoin code; ``None`` for anything that is not one."""
    text = code.strip().lower()
    if len(text) != REJOIN_CODE_HEX or any(digit not in "0123456789abcdef" for digit in text):
        return None
    token = int(text[:16], 16)
    return (token, bytes.fromhex(text[16:])) if token < 2**63 else None  # a token is a 63-bit id (new_id)


def rejoin_proof(secret: bytes, token: int, nonce: int, key: str) -> str:
    """The proof a rejoining ``Hello`` carries: keyed by the seat's secret over its token, nonce and new public value.

    Binding the new key means no one who sees the ``Hello`` can put their own key in it, and
    binding the nonce ties it to this one attempt (32 hex digits).
    """
    return _blake(struct.pack(">QQ", token, nonce) + key.encode("ascii"), key=secret, person=b"tswproof").hex()


def proof_holds(secret: bytes, token: int, nonce: int, key: str, proof: str) -> bool:
    """Whether ``proof`` is ``rejoin_proof(secret, token, nonce, key)`` (compared in constant time)."""
    return hmac.compare_digest(proof.encode("ascii"), rejoin_proof(secret, token, nonce, key).encode("ascii"))


# -- the hello and the reply ------------------------------------------------------------------------


def seal_hello(body: bytes) -> bytes:
    """A ``Hello``'s datagram: the body behind a check that catches damage (no key exists yet)."""
    return MAGIC + b"H" + _blake(body, person=b"tswhello") + body


def open_hello(data: bytes) -> bytes | None:
    """The body of a hello envelope whose check holds; ``None`` when damaged."""
    check, body = data[_KIND_END:_KIND_END + TAG_BYTES], data[_KIND_END + TAG_BYTES:]
    if len(check) < TAG_BYTES or not hmac.compare_digest(check, _blake(body, person=b"tswhello")):
        return None
    return body


def reply_key(hello: bytes) -> bytes:
    """The key of the answers to the hello datagram ``hello``: only who saw that ``Hello`` knows it."""
    return _blake(hello, person=b"tswreply", size=32)


def seal_reply(key: bytes, body: bytes) -> bytes:
    """A ``Welcome`` or ``Refuse`` datagram, tagged with its ``Hello``'s ``reply_key``."""
    return MAGIC + b"R" + _blake(body, key=key, person=b"tswreply") + body


def open_reply(key: bytes, data: bytes) -> bytes | None:
    """The body of a reply envelope whose tag holds under ``key``; ``None`` when damaged, forged or not ours."""
    tag, body = data[_KIND_END:_KIND_END + TAG_BYTES], data[_KIND_END + TAG_BYTES:]
    if len(tag) < TAG_BYTES or not hmac.compare_digest(tag, _blake(body, key=key, person=b"tswreply")):
        return None
    return body


COOKIE_BYTES = 16
"""The address proof a proven ``Hello`` carries (``engine.net.cookies``)."""


def seal_proven(hello: bytes, cookie: bytes) -> bytes:
    """The hello datagram ``hello`` with the host's cookie for this address in front: ``MAGIC b"C" cookie hello...``.

    The ``Hello`` inside is byte for byte the one first sent (its check, its body): the
    reply key and the link's keys are drawn from that one (``open_proven`` gives it back),
    so a joiner that proves its address again (a cookie expired, its NAT moved) is still
    the same join.
    """
    if len(cookie) != COOKIE_BYTES or frame_kind(hello) != b"H":
        raise ValueError("seal_proven: a 16-byte cookie and a hello datagram")
    return MAGIC + b"C" + cookie + hello[_KIND_END:]


def open_proven(data: bytes) -> tuple[bytes, bytes] | None:
    """The cookie and the hello datagram of a proven ``Hello``; ``None`` when too short to hold them."""
    if len(data) < _KIND_END + COOKIE_BYTES + TAG_BYTES:
        return None
    end = _KIND_END + COOKIE_BYTES
    return data[_KIND_END:end], MAGIC + b"H" + data[end:]


def frame_kind(data: bytes) -> bytes | None:
    """``b"H"``, ``b"C"``, ``b"R"`` or ``b"S"`` for an envelope of that kind (before any check); ``None`` for others.

    ``b"C"`` is a ``Hello`` that carries the host's cookie: its sender proved its address.
    """
    if len(data) < _KIND_END or not data.startswith(MAGIC):
        return None
    kind = data[len(MAGIC):_KIND_END]
    return kind if kind in (b"H", b"C", b"R", b"S") else None


# -- the session's envelope -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionHeader:
    """What a session envelope says before its tag is checked: which session and peer, and its number."""

    session: int
    token: int
    seq: int


def read_header(data: bytes) -> SessionHeader | None:
    """The header of a session envelope (not yet checked: anyone can write one); ``None`` when too short."""
    if len(data) < OVERHEAD or frame_kind(data) != b"S":
        return None
    _, _, session, token, seq = _HEADER.unpack_from(data)
    return SessionHeader(session, token, seq)


REPLAY_WINDOW = 1024
"""How many numbers back from the highest received a link still takes a datagram (each once), as DTLS and IPsec do.

A datagram numbered at or below ``highest - REPLAY_WINDOW``, or one whose number was taken
already, is a replay (or a copy the network made): dropped and counted, never used. 1024
numbers are about three seconds of a peer's datagrams at their busiest (one a frame and a
resend every 10 ms), far more than any reordering the path does: an honest datagram that
arrives later than that is one the protocol has resent since."""
REPLAYED: Literal["replayed"] = "replayed"
"""What ``Link.open`` returns for a datagram whose tag holds but whose number was seen already or is too old."""
_WINDOW_MASK = (1 << REPLAY_WINDOW) - 1


@dataclass
class Link:
    """Both directions between a joiner and the host: the token that names it, a key for each way, the numbers.

    ``sent`` is the last number this side sent; ``highest`` the highest it received in a
    datagram whose tag held; ``seen`` the sliding window below it (bit ``i``: number
    ``highest - i`` was taken). A datagram is taken once: a replay, even from a new address,
    is refused (``REPLAYED``), so it neither keeps a silent peer alive nor moves it; a
    session moves a peer to a new address only for a datagram numbered above ``highest``.
    """

    session: int
    token: int
    send_key: bytes = field(repr=False)
    receive_key: bytes = field(repr=False)
    sent: int = 0
    highest: int = 0
    seen: int = field(default=1, repr=False)  # number 0 is never sent: taken as seen

    @classmethod
    def of_joiner(cls, session: int, token: int, keys: tuple[bytes, bytes]) -> Link:
        """The joiner's side of a link (it sends with the key "to the host")."""
        return cls(session, token, keys[0], keys[1])

    @classmethod
    def of_host(cls, session: int, token: int, keys: tuple[bytes, bytes]) -> Link:
        """The host's side of a link (it sends with the key "to the joiner")."""
        return cls(session, token, keys[1], keys[0])

    def seal(self, body: bytes) -> bytes:
        """The session datagram of ``body``: the header with the next number, then the tag, then the body."""
        self.sent += 1
        header = _HEADER.pack(MAGIC, b"S", self.session, self.token, self.sent)
        return header + _blake(header + body, key=self.send_key, person=b"tswsess") + body

    def open(self, data: bytes) -> tuple[bytes, bool] | Literal["replayed"] | None:
        """The body of a datagram of this link whose tag holds, and whether it is the newest yet.

        ``None``: refused (damaged, forged, another link's); ``REPLAYED``: its tag holds but
        its number was taken before or is ``REPLAY_WINDOW`` or more below the highest. The
        tag covers the header, so a datagram of another session, token or number fails too.
        """
        header, tag, body = data[:_HEADER.size], data[_HEADER.size:OVERHEAD], data[OVERHEAD:]
        if len(tag) < TAG_BYTES or not hmac.compare_digest(tag, _blake(header + body, key=self.receive_key,
                                                                          person=b"tswsess")):
            return None
        _, _, session, token, seq = _HEADER.unpack(header)
        if (session, token) != (self.session, self.token):
            return None
        if seq > self.highest:
            ahead = seq - self.highest
            # A jump past the window clears it (never a shift by a huge count: a peer's number is its word).
            self.seen = ((self.seen << ahead) | 1) & _WINDOW_MASK if ahead < REPLAY_WINDOW else 1
            self.highest = seq
            return body, True
        age = self.highest - seq
        if age >= REPLAY_WINDOW or self.seen >> age & 1:
            return REPLAYED
        self.seen |= 1 << age
        return body, False
