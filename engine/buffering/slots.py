"""The slots the Double Buffer keeps on every entity, and the compiled core that reads them.

The compiled core (``_core``, built from ``_core.c`` where a C compiler exists) is
loaded here, once, unless ``TICKSWAP_PURE=1``; ``ACCELERATED`` says whether it was.
Whether entities keep the buffers' values in fixed slots or as plain instance
attributes depends on it and on the Python version (see ``_LAYOUT``): the choice is
made before ``Entity`` is defined, which is why it lives in a module of its own.

``engine.buffering`` is a leaf of the import graph: it imports nothing from the entity,
the world, or anything built on them. It is typed against ``BufferSlots`` (``Entity``'s
base class) and ``Host``, the little of a world the buffers and an entity's buffered
state need; ``World`` implements it.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

__all__ = ["ACCELERATED", "SLOT_NAMES", "BufferSlots", "Host", "WorldBuffers"]


def _import_core() -> Any:
    """The compiled core, or ``None`` where it was not built or ``TICKSWAP_PURE`` is set."""
    if os.environ.get("TICKSWAP_PURE", "") not in ("", "0"):
        return None
    try:
        # By its full name: the core is an extension module of its own, a leaf, and this
        # module is imported while the package's __init__ is still running.
        return importlib.import_module("engine.buffering._core")
    except ImportError:
        return None


_core = _import_core()
ACCELERATED = _core is not None
"""Whether the compiled core runs the tick (False: the pure-Python path, same results)."""

# In this order on purpose (not sorted): what the tick reads together sits together.
_SLOTS = ("x", "y", "angle", "alive", "_motion_only", "_bx", "_by", "_ba", "_nx", "_ny", "_na", "_px", "_py", "_pa",
          "_prev_tick", "_bfull", "_nfull", "_prest", "_signals", "_random", "_random_mark", "_look", "_blook",
          "_parts", "_bparts", "__dict__", "__weakref__")
# The compiled core reads the slots, so with it entities always have them. Without it, the
# pure path is fastest with them up to 3.12, and without them from 3.13 on, where any slot
# in a base class costs every instance CPython's inline attribute storage (a user's
# ``self.patrolling_left`` gets about a third slower). ``TICKSWAP_LAYOUT=slots|dict``
# overrides the choice for the pure path (to measure it).
SLOT_NAMES = _SLOTS
"""Every attribute the buffers keep on an entity (slots or not: see ``_LAYOUT``)."""
_LAYOUT = "slots" if ACCELERATED else os.environ.get(
    "TICKSWAP_LAYOUT", "slots" if sys.version_info < (3, 13) else "dict")


class BufferSlots:
    """The slots the buffers keep on every entity: ``Entity``'s base class.

    Fixed slots, not instance attributes (with the compiled core, and on the pure path
    before Python 3.13; see ``_LAYOUT``), so the compiled core reads them at a fixed
    offset and CPython's specialised bytecode reads them from Python as fast as any
    attribute (``LOAD_ATTR_SLOT``). ``x``, ``y`` and ``angle`` are the committed values
    (the updating entity's own pending ones during its update); ``_b*`` the baseline,
    ``_n*`` the pending values of an entity that changed, ``_p*`` the previous ones;
    ``_look`` and ``_parts`` what the entity shows of its own (``engine.buffering.shown``).
    Subclasses get a ``__dict__`` as usual, so users' entities stay plain classes.
    Only ``engine.buffering`` reads or writes these (``Entity`` only declares them).
    """

    if _LAYOUT == "slots":
        __slots__ = _SLOTS

    x: float
    y: float
    angle: float
    alive: bool
    _motion_only: bool
    _bx: Any
    _by: Any
    _ba: Any
    _nx: Any
    _ny: Any
    _na: Any
    _px: Any
    _py: Any
    _pa: Any
    _prev_tick: int
    _bfull: tuple[Any, ...]
    _nfull: tuple[Any, ...]
    _prest: tuple[Any, ...]
    _signals: dict[str, Any]
    _random: random.Random | None
    _random_mark: int
    _look: Any
    _blook: Any
    _parts: Any
    _bparts: Any

    if TYPE_CHECKING:
        # What the buffers read of every entity besides their slots; ``Entity`` defines them.
        id: int | None
        _layout: ClassVar[Any]
        _class_look: ClassVar[Any]
        _class_parts: ClassVar[Any]

        @property
        def world(self) -> Host | None:
            """The world the entity lives in (``None`` before spawn)."""

        def update(self, world: Any) -> None:
            """The entity's Update Method."""


class WorldBuffers(Protocol):
    """What an entity's buffered state asks of its world's buffers (``PureBuffers`` has it all)."""

    @property
    def sender(self) -> BufferSlots | None:
        """The entity whose ``update()`` is running, or ``None``."""

    def raise_signal(self, target: BufferSlots, name: str, value: Any) -> None:
        """Put a signal (or one contribution to a valued signal) into the next buffer."""

    def snap(self, entity: BufferSlots, ticking: bool) -> None:
        """previous = current; inside a tick, for the values that tick commits."""

    def random_for(self, entity: BufferSlots, seed: Any, ticking: bool) -> random.Random:
        """The entity's random generator, made on first use."""

    def shown_changed(self, entity: BufferSlots, field: Any) -> None:
        """The entity's own update set a shown field (``engine.buffering.shown``) for the first time this tick."""

    def write_shown(self, entity: BufferSlots, field: Any, raw: Any) -> None:
        """A shown field set during a tick from outside the entity's own update."""


class Host(Protocol):
    """The world, as the buffers see it: ``World`` implements it (its ``buffers`` are its Double Buffer)."""

    @property
    def tick_count(self) -> int:
        """Ticks completed so far."""

    @property
    def ticking(self) -> bool:
        """Whether a tick is in progress."""

    @property
    def seed(self) -> Any:
        """The world's seed, which every entity's generator is seeded from."""

    @property
    def buffers(self) -> WorldBuffers:
        """The world's Double Buffer."""


_SLOTTED = frozenset(vars(BufferSlots).get("__slots__", ()))
if _core is not None:
    _core.configure(BufferSlots)
