"""Networked sessions: rollback netcode in the design of GGPO and GGRS, sans-IO.

The layers, lowest first: ``integrity`` (every datagram's envelope: its tag, and the keys
agreed at join), ``packets`` and ``inputs`` (the messages), ``sync`` (the rollback core),
``lobby`` (joining, as two state machines), ``machine`` (``SessionMachine``: a whole peer
as a state machine that takes datagrams and the time and returns datagrams), and
``session`` (``Session``: the thin driver that couples a machine to a polled UDP socket,
``transport``, and a real clock). ``emulate`` makes networks bad on demand, and
``MemoryNetwork`` plays sessions in one process on a ``VirtualClock``.

Nothing is imported here, so ``import engine.net.packets`` (or a transport) loads only what it needs.
"""

from typing import Any

__all__ = ["Emulation", "MemoryNetwork", "Session", "SessionMachine", "SessionOptions"]

def __getattr__(name: str) -> Any:
    """``engine.net.Session``, ``SessionOptions``, ``SessionMachine``, ``Emulation``, ``MemoryNetwork``: imported when
    first named."""
    if name in ("Session", "SessionOptions"):
        from engine.net import session

        return getattr(session, name)
    if name == "SessionMachine":
        from engine.net import machine

        return machine.SessionMachine
    if name in ("Emulation", "MemoryNetwork"):
        from engine.net import emulate

        return getattr(emulate, name)
    raise AttributeError(f"module 'engine.net' has no attribute {name!r}")
