"""Networked sessions: the wire format (packets), UDP transports (transport) and a network emulator (emulate).

Nothing is imported here, so ``import engine.net.packets`` (or a transport) loads only what it needs.
"""
