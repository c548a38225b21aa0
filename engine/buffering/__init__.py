"""The Double Buffer's one owner: declarations, and the per-world buffers every tick goes through.

``fields`` reads what entity classes declare (``buffered()``, ``signal()``) into a
``Layout`` per class; ``buffers`` keeps each world's committed, pending and previous
values, signals and per-entity random generators, and runs the Update Method system
over them. The world, the renderer and saves call these; none of them touches the
attributes the buffers keep on entities.
"""

from __future__ import annotations

from engine.buffering.buffers import Buffers as Buffers
from engine.buffering.buffers import ForeignWrites as ForeignWrites
from engine.buffering.buffers import previous as previous
from engine.buffering.buffers import previous_motion as previous_motion
from engine.buffering.buffers import restore_state as restore_state
from engine.buffering.buffers import saved_state as saved_state
from engine.buffering.fields import Layout as Layout
from engine.buffering.fields import SignalInbox as SignalInbox
from engine.buffering.fields import buffered as buffered
from engine.buffering.fields import layout_of as layout_of
from engine.buffering.fields import signal as signal

__all__ = ["Buffers", "ForeignWrites", "Layout", "SignalInbox", "buffered", "layout_of", "previous",
           "previous_motion", "restore_state", "saved_state", "signal"]
