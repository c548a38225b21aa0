"""The Double Buffer's one owner: declarations, and the per-world buffers every tick goes through.

``fields`` reads what entity classes declare (``buffered()``, ``signal()``) into a
``Layout`` per class; ``slots`` declares where the buffers keep their values on every
entity, the write barrier every write to a buffered field goes through (a write to
another entity's state is refused at the line that makes it), and ``Host``, what the
buffers need of a world; ``buffers`` keeps each world's committed, pending and previous
values and per-entity random generators, and runs the Update Method system over them,
with ``signals`` (raised, combined, swapped); ``compiled`` does the same with the
compiled core, and the renderer's gather; ``own`` is the protocol of an entity with
buffers of its own (a ``Crowd``). The world, the renderer and saves call these; none of
them touches the attributes the buffers keep on entities.

A leaf of the engine's imports: nothing here imports the entity, the world, or anything
built on them (only ``engine.errors``, itself a leaf, for the errors a tick ends in).

A compiled core (``_core``, built from ``_core.c`` where a C compiler exists) does the
tick's per-entity bookkeeping and the renderer's gather; without it, or with the
environment variable ``TICKSWAP_PURE=1``, the pure-Python path gives the same results
bit for bit. ``ACCELERATED`` says which one runs.
"""

from __future__ import annotations

from engine.buffering.access import previous as previous
from engine.buffering.access import restore_state as restore_state
from engine.buffering.access import saved_state as saved_state
from engine.buffering.buffers import PureBuffers as PureBuffers
from engine.buffering.compiled import Buffers as Buffers
from engine.buffering.compiled import CompiledBuffers as CompiledBuffers
from engine.buffering.compiled import gather_motion as gather_motion
from engine.buffering.compiled import gather_pair as gather_pair
from engine.buffering.fields import Layout as Layout
from engine.buffering.fields import SignalInbox as SignalInbox
from engine.buffering.fields import buffered as buffered
from engine.buffering.fields import layout_of as layout_of
from engine.buffering.fields import signal as signal
from engine.buffering.own import OwnBuffers as OwnBuffers
from engine.buffering.slots import ACCELERATED as ACCELERATED
from engine.buffering.slots import Host as Host

__all__ = ["ACCELERATED", "Buffers", "CompiledBuffers", "Host", "Layout", "OwnBuffers", "PureBuffers",
           "SignalInbox", "buffered", "gather_motion", "gather_pair", "layout_of", "previous", "restore_state",
           "saved_state", "signal"]
