"""Networked sessions: the wire format (packets), UDP transports (transport), a network emulator (emulate),
the rollback core (sync) and the session over them (session: ``engine.net.session.Session``).

Nothing is imported here, so ``import engine.net.packets`` (or a transport) loads only what it needs.
"""

from typing import Any

__all__ = ["Session", "SessionOptions"]


def __getattr__(name: str) -> Any:
    """``engine.net.Session`` and ``engine.net.SessionOptions``, imported when first named."""
    if name in ("Session", "SessionOptions"):
        from engine.net import session

        return getattr(session, name)
    raise AttributeError(f"module 'engine.net' has no attribute {name!r}")
