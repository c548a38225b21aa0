"""STUN messages (RFC 8489), the few a polled peer needs: built and read here, every byte checked.

After ICE has handed its socket over, the game loop still speaks a little STUN: the TURN
client's requests and indications (``engine.net.relay``: Refresh, ChannelBind,
CreatePermission, Send, Data) and the answers to the other side's late connectivity
checks (``engine.net.ice.IceTransport``); the rendezvous answers binding requests. This
module builds and reads those messages with no dependency, so they do not rest on what
one version of aioice happens to expose.

``parse`` reads a datagram as a message only when all of it holds: the 20-byte header
(two zero bits, a method and class, the length, the magic cookie, the transaction id),
a length that is the rest of the datagram, and attributes that fit exactly, each padded to
4 bytes; otherwise ``None``. An attribute is kept as raw bytes (the first of each type)
and read on demand (``address``, ``text``, ``number``, ``error_code``), each reader
checking its own format. ``integrity_ok`` checks MESSAGE-INTEGRITY (HMAC-SHA1) as RFC 8489
says: over the message up to the attribute, its length field covering it.
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import ipaddress
import secrets
import struct
from dataclasses import dataclass, field

from engine.net.transport import Address

__all__ = ["BINDING", "CHANNEL_BIND", "CHANNEL_NUMBER", "COOKIE", "CREATE_PERMISSION", "DATA", "DATA_ATTRIBUTE",
           "ERROR", "ERROR_CODE", "INDICATION", "LIFETIME", "MESSAGE_INTEGRITY", "NONCE", "REALM", "REFRESH",
           "REQUEST", "SEND", "SUCCESS", "USERNAME", "XOR_MAPPED_ADDRESS", "XOR_PEER_ADDRESS", "Message", "build",
           "is_stun", "parse"]

COOKIE = 0x2112A442
"""The magic cookie every RFC 5389/8489 message carries at bytes 4 to 8."""
BINDING, REFRESH, SEND, DATA, CREATE_PERMISSION, CHANNEL_BIND = 0x001, 0x004, 0x006, 0x007, 0x008, 0x009
"""The methods used: binding (STUN), and TURN's refresh, send, data, permission and channel bind."""
REQUEST, INDICATION, SUCCESS, ERROR = 0x000, 0x010, 0x100, 0x110
"""The classes, as their bits in the message type."""
USERNAME, MESSAGE_INTEGRITY, ERROR_CODE, CHANNEL_NUMBER, LIFETIME = 0x0006, 0x0008, 0x0009, 0x000C, 0x000D
XOR_PEER_ADDRESS, DATA_ATTRIBUTE, REALM, NONCE, XOR_MAPPED_ADDRESS = 0x0012, 0x0013, 0x0014, 0x0015, 0x0020
FINGERPRINT = 0x8028
_HEADER = struct.Struct(">HHI12s")
_FINGERPRINT_XOR = 0x5354554E


def is_stun(data: bytes) -> bool:
    """Whether ``data`` looks like a STUN message at a glance (two zero bits, the cookie): ``parse`` decides."""
    return len(data) >= 20 and data[0] < 0x40 and data[4:8] == struct.pack(">I", COOKIE)


@dataclass(frozen=True)
class Message:
    """A STUN message read by ``parse``: method, class, transaction id, raw attributes (the first of each type)."""

    method: int
    klass: int
    transaction: bytes
    attributes: dict[int, bytes] = field(default_factory=dict)
    raw: bytes = b""
    integrity_at: int | None = None
    """Where MESSAGE-INTEGRITY begins in ``raw`` (``None``: the message has none)."""

    def address(self, kind: int = XOR_PEER_ADDRESS) -> Address | None:
        """An XOR'd IPv4 address attribute (XOR-PEER-ADDRESS by default), or ``None`` when absent or not one."""
        value = self.attributes.get(kind)
        if value is None or len(value) != 8 or value[1] != 1:
            return None
        port = struct.unpack_from(">H", value, 2)[0] ^ (COOKIE >> 16)
        raw = bytes(a ^ b for a, b in zip(value[4:8], struct.pack(">I", COOKIE)))
        return str(ipaddress.IPv4Address(raw)), port

    def text(self, kind: int) -> str | None:
        """A UTF-8 attribute (USERNAME, REALM), or ``None`` when absent or not UTF-8."""
        value = self.attributes.get(kind)
        if value is None:
            return None
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def number(self, kind: int) -> int | None:
        """A 32-bit attribute (LIFETIME), or ``None`` when absent or not 4 bytes."""
        value = self.attributes.get(kind)
        return struct.unpack(">I", value)[0] if value is not None and len(value) == 4 else None

    @property
    def error_code(self) -> int | None:
        """The ERROR-CODE's number (class times 100 plus number, as 438), or ``None``."""
        value = self.attributes.get(ERROR_CODE)
        if value is None or len(value) < 4:
            return None
        return (value[2] & 0x07) * 100 + value[3]

    def integrity_ok(self, key: bytes) -> bool:
        """Whether MESSAGE-INTEGRITY is there and holds with ``key`` (HMAC-SHA1, RFC 8489 section 14.5)."""
        at = self.integrity_at
        if at is None:
            return False
        expected = self.attributes[MESSAGE_INTEGRITY]
        return hmac.compare_digest(expected, _integrity(self.raw[:at], key))


def _integrity(head: bytes, key: bytes) -> bytes:
    """HMAC-SHA1 of the message up to MESSAGE-INTEGRITY, its length field set as if the attribute ended it."""
    length = len(head) - 20 + 24
    return hmac.new(key, head[:2] + struct.pack(">H", length) + head[4:], hashlib.sha1).digest()


def parse(data: bytes) -> Message | None:
    """``data`` as a STUN message, checked whole (see the module docstring), or ``None``."""
    if not is_stun(data) or len(data) > 65535:
        return None
    kind, length, _, transaction = _HEADER.unpack_from(data)
    if length != len(data) - 20 or length % 4:
        return None
    attributes: dict[int, bytes] = {}
    integrity_at = None
    at = 20
    while at < len(data):
        if at + 4 > len(data):
            return None
        attribute, size = struct.unpack_from(">HH", data, at)
        end = at + 4 + size
        if end + (-size % 4) > len(data):
            return None
        if integrity_at is None or attribute == FINGERPRINT:  # what follows MESSAGE-INTEGRITY is not covered
            attributes.setdefault(attribute, data[at + 4:end])
        if attribute == MESSAGE_INTEGRITY and integrity_at is None:
            if size != 20:
                return None
            integrity_at = at
        if attribute == FINGERPRINT:
            crc = binascii.crc32(data[:2] + struct.pack(">H", end - 20) + data[4:at]) ^ _FINGERPRINT_XOR
            if size != 4 or struct.unpack_from(">I", data, at + 4)[0] != crc:
                return None
        at = end + (-size % 4)
    method = (kind & 0x000F) | ((kind & 0x00E0) >> 1) | ((kind & 0x3E00) >> 2)
    return Message(method, kind & 0x0110, transaction, attributes, bytes(data), integrity_at)


def xor_address(address: Address) -> bytes:
    """An IPv4 address and port as an XOR'd address attribute's value."""
    raw = ipaddress.IPv4Address(address[0]).packed
    return struct.pack(">BBH", 0, 1, address[1] ^ (COOKIE >> 16)) + bytes(
        a ^ b for a, b in zip(raw, struct.pack(">I", COOKIE)))


def build(method: int, klass: int, attributes: list[tuple[int, bytes]], *, transaction: bytes | None = None,
          key: bytes | None = None, fingerprint: bool = False) -> bytes:
    """A message: the attributes in order, then MESSAGE-INTEGRITY with ``key`` and FINGERPRINT when asked."""
    transaction = transaction if transaction is not None else secrets.token_bytes(12)
    kind = (method & 0x000F) | ((method & 0x0070) << 1) | ((method & 0x0F80) << 2) | klass
    body = b"".join(struct.pack(">HH", attribute, len(value)) + value + bytes(-len(value) % 4)
                    for attribute, value in attributes)
    message = _HEADER.pack(kind, len(body), COOKIE, transaction) + body
    if key is not None:
        message = message[:2] + struct.pack(">H", len(body) + 24) + message[4:]
        message += struct.pack(">HH", MESSAGE_INTEGRITY, 20) + _integrity(message, key)
    if fingerprint:
        message = message[:2] + struct.pack(">H", len(message) - 20 + 8) + message[4:]
        crc = binascii.crc32(message) ^ _FINGERPRINT_XOR
        message += struct.pack(">HHI", FINGERPRINT, 4, crc)
    return message
