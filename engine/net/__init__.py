"""Networked sessions: rollback netcode in the design of GGPO and GGRS, sans-IO.

The layers, lowest first: ``integrity`` (every datagram's envelope: its tag, and the keys
agreed at join), ``packets`` and ``inputs`` (the messages), ``sync`` (the rollback core),
``lobby`` (joining, as two state machines), ``machine`` (``SessionMachine``: a whole peer
as a state machine that takes datagrams and the time and returns datagrams), and
``session`` (``Session``: the thin driver that couples a machine to a polled UDP socket,
``transport``, and a real clock). ``emulate`` makes networks bad on demand, and
``MemoryNetwork`` plays sessions in one process on a ``VirtualClock``.

Across the internet: ``room`` (``HostRoom``, ``JoinRoom``: meeting by a room code at a
``rendezvous``, then ``ice``'s ICE through home routers, with aioice, in a setup phase),
``offer`` (what the two sides swap), ``relay`` (the polled TURN client a relayed path plays
through, speaking ``stun``), and ``nat`` (``NatBox``: emulated home routers on 127.0.0.1, for tests).

Nothing is imported here, so ``import engine.net.packets`` (or a transport) loads only what it needs.
"""

from typing import Any

__all__ = ["Emulation", "HostRoom", "IceConfig", "JoinRoom", "MemoryNetwork", "NatBox", "RendezvousServer", "Session",
           "SessionMachine", "SessionOptions", "TurnServer"]

def __getattr__(name: str) -> Any:
    """``engine.net.Session``, ``SessionOptions``, ``SessionMachine``, ``Emulation``, ``MemoryNetwork`` and the
    room's names (``HostRoom``, ``JoinRoom``, ``IceConfig``, ``TurnServer``, ``NatBox``, ``RendezvousServer``):
    imported when first named (aioice only with ICE's)."""
    if name in ("Session", "SessionOptions"):
        from engine.net import session

        return getattr(session, name)
    if name == "SessionMachine":
        from engine.net import machine

        return machine.SessionMachine
    if name in ("Emulation", "MemoryNetwork"):
        from engine.net import emulate

        return getattr(emulate, name)
    if name in ("HostRoom", "JoinRoom"):
        from engine.net import room

        return getattr(room, name)
    if name in ("IceConfig", "TurnServer"):
        from engine.net import ice

        return getattr(ice, name)
    if name == "NatBox":
        from engine.net import nat

        return nat.NatBox
    if name == "RendezvousServer":
        from engine.net import rendezvous

        return rendezvous.RendezvousServer
    raise AttributeError(f"module 'engine.net' has no attribute {name!r}")
