"""The engine's shared limits and defaults, in one leaf module.

The step, the most players, how often a recording hashes the state and the other numbers
that the world, the loops, input, files and the network must agree on live here, so that
each of them imports them downward; this module imports nothing from ``engine``. The
modules that first defined them (``engine.files.game``, ``engine.files.replay.format``,
``engine.net.checks``) still export the same names.
"""

from __future__ import annotations

__all__ = ["DEFAULT_MS_PER_UPDATE", "DEFAULT_VIEW_SIZE", "DISPLAY_HZ", "HASH_EVERY", "MAX_INPUT_DELAY", "MAX_KEYS",
           "MAX_PLAYERS", "MAX_SEED", "MAX_TICKS", "MAX_WINDOW_SIDE", "MS_PER_UPDATE_RANGE"]

DEFAULT_MS_PER_UPDATE = 15.625
"""The default step: 64 updates a second. It is exact in binary floating point and in
integer nanoseconds, and is not a multiple of a 60 Hz display's frame, so frames don't
alternate between two updates and none."""
MS_PER_UPDATE_RANGE = (0.001, 60_000.0)
"""The steps a game (``MS_PER_UPDATE``) may have, in milliseconds: those a replay can record."""
MAX_PLAYERS = 8
"""The most players a game (and a session) may have."""
MAX_KEYS = 256
"""The most keys a game's ``KEYS`` may list."""
MAX_WINDOW_SIDE = 16384
"""The largest ``WIDTH`` or ``HEIGHT`` a game may ask for."""
DEFAULT_VIEW_SIZE = (640, 480)
"""The window of a game that names no ``WIDTH`` and ``HEIGHT``, and a world's ``view_size`` until told."""
DISPLAY_HZ = 60.0
"""The refresh rate an off-screen run pretends to have: its frames advance a virtual clock by one such
refresh each (the command line reads it before any window exists, to know how far a ``--frames`` run goes)."""
HASH_EVERY = 60
"""A recording (and a session's desync check by default) hashes the state every this many ticks."""
MAX_TICKS = 2**31 - 1
"""The highest tick number a replay, a script or a datagram may name."""
MAX_INPUT_DELAY = 30
"""The largest input delay, in ticks (``--input-delay``'s bound, and a recording's ``input_delay``)."""
MAX_SEED = 2**64 - 1
"""The largest seed a run, a recording or a session may use."""
