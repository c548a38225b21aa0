"""The slots the Double Buffer keeps on every entity, the write barrier, and the compiled core.

The compiled core (``_core``, built from ``_core.c`` where a C compiler exists) is
loaded here, once, unless ``TICKSWAP_PURE=1``; ``ACCELERATED`` says whether it was.
Every write to an entity's buffered field goes through ``barrier`` (the rule: one's own
update writes its pending value, another's is refused at the write, a system's is
committed at once), which ``BufferSlots`` runs on every write: in C as its base type's
``tp_setattro`` where the core runs, in ``__setattr__`` on the pure path.
Whether entities keep the buffers' values in fixed slots or as plain instance
attributes depends on it and on the Python version (see ``_LAYOUT``): the choice is
made before ``Entity`` is defined, which is why it lives in a module of its own.

``engine.buffering`` is a leaf of the import graph: it imports nothing from the entity,
the world, or anything built on them. It is typed against ``BufferSlots`` (``Entity``'s
base class) and ``Host``, the world as the parts it is made of see it (the one protocol
of a world); ``World`` implements it.
"""

from __future__ import annotations

import importlib
import os
import random
import re
import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from engine import compiled

__all__ = ["ACCELERATED", "MUTABLE_TYPES", "SLOT_NAMES", "BufferSlots", "Host", "TickState", "barrier",
           "compile_stores", "hold", "mutable_in", "refuse_mutable"]


# By its full name: the core is an extension module of its own, a leaf, and this module is
# imported while the package's __init__ is still running.
_core = compiled.load(lambda: importlib.import_module("engine.buffering._core"))
ACCELERATED = _core is not None
"""Whether the compiled core runs the tick (False: the pure-Python path, same results)."""

# CPython lays a class's slots out in the sorted order of their names, whatever the order here.
_SLOTS = ("x", "y", "angle", "alive", "_motion_only", "_bx", "_by", "_ba", "_nx", "_ny", "_na", "_px", "_py", "_pa",
          "_prev_tick", "_bfull", "_nfull", "_prest", "_signals", "_random", "_random_mark", "_look", "_parts",
          "_blook", "_bparts", "_wstate", "_wmark", "_smark", "_inboxes", "__dict__", "__weakref__")
# The compiled core reads the slots, so with it entities always have them. Without it, the
# pure path is fastest with them up to 3.12, and without them from 3.13 on, where any slot
# in a base class costs every instance CPython's inline attribute storage (a user's
# ``self.patrolling_left`` gets about a third slower). ``TICKSWAP_LAYOUT=slots|dict``
# overrides the choice for the pure path (to measure it).
SLOT_NAMES = _SLOTS
"""Every attribute the buffers keep on an entity (slots or not: see ``_LAYOUT``)."""
_LAYOUT = "slots" if ACCELERATED else os.environ.get(
    "TICKSWAP_LAYOUT", "slots" if sys.version_info < (3, 13) else "dict")


class TickState:
    """What the write barrier asks of a world's Double Buffer at every write to a buffered field.

    One per world; every entity it holds points to it (``_wstate``) from its spawn on. The
    pure path's; the compiled core has the same type in C (``_core.TickState``), which its
    barrier reads without a call.

    ``ticking`` says whether a tick runs; ``updating`` is the entity whose ``update()`` runs
    (``None`` between updates: a system, or the engine); ``token`` is a new object every
    tick, which an entity's ``_wmark`` (its own update wrote) and ``_smark`` (a system wrote
    it) name when they happened in this tick; ``written`` lists ``(entity, values at the
    tick's start)`` for what systems wrote; ``tick`` is the tick's number and ``refuse``
    makes the error for a foreign write (``refuse(writer, written, field)``); ``refused``
    keeps the first one made, so a game that catches it still has its tick refused.
    ``members`` is the tick's update order (whoever was in the world when it began; a write to
    one of them from another's update is refused, despawned in the tick or not).
    ``signals(receiver, name, value)`` raises a signal into the world's next buffer: what a
    signal's send calls, reaching the buffers from the entity in one step; ``buffers`` is the
    world's Double Buffer itself (``PureBuffers``), which the rest of an entity's buffered state
    reaches the same way (no route through the world).
    """

    __slots__ = ("buffers", "members", "refuse", "refused", "signals", "tick", "ticking", "token", "updating",
                 "written")

    def __init__(self, refuse: Any) -> None:
        self.refuse = refuse
        self.buffers: Any = None
        self.members: Any = None
        self.signals: Any = None
        self.refused: BaseException | None = None
        self.tick = 0
        self.ticking = False
        self.token: object = object()
        self.updating: Any = None
        self.written: list[tuple[Any, tuple[Any, ...]]] = []


MUTABLE_TYPES = frozenset((list, dict, set, bytearray))
"""The mutable built-in types a buffered field refuses (exactly these: the check costs one set lookup per value,
on both paths; the core compares the same four types)."""
_DEPTH = 64
"""How deep ``mutable_in`` looks into tuples of tuples (a value nested deeper is a game's own data structure,
not a buffered value written in an update; the core looks exactly as deep)."""


def mutable_in(value: Any, depth: int = _DEPTH) -> type | None:
    """The type of the first list, dict, set or bytearray ``value`` is or holds through tuples, else ``None``.

    A buffered value is shared by the committed, pending and previous buffers (and by every
    checkpoint), so a list inside a tuple mutated in place would change them all at once, in
    the past too: it is refused as a list is. Frozensets and strings cannot hold one.
    """
    kind = type(value)
    if kind in MUTABLE_TYPES:
        return kind
    if isinstance(value, tuple) and depth > 0:
        for item in value:  # each item as ``mutable_in(item, depth - 1)`` looks at it, a call only for a tuple
            kind = type(item)
            if kind in _LEAVES:
                continue
            if kind in MUTABLE_TYPES:
                return kind
            if depth > 1 and isinstance(item, tuple):
                found = mutable_in(item, depth - 1)
                if found is not None:
                    return found
    return None


_LEAVES = frozenset((int, float, str, bool, type(None), complex, bytes))
"""Types whose values neither are nor hold a list, dict, set or bytearray (``mutable_in`` of one is ``None``)."""


def refuse_mutable(entity: Any, name: str, value: Any) -> None:
    """Raise ``TypeError`` if ``value``, written to buffered field ``name`` of ``entity``, is or holds a mutable one.

    The words are the same on both paths (the core's barrier says them too) and wherever it is
    found (at the line that writes, at a spawn, at the end of an update).
    """
    kind = mutable_in(value)
    if kind is None:
        return
    what = kind.__name__
    if type(value) is kind:
        raise TypeError(f"{type(entity).__name__}.{name} is buffered and was set to a {what}: buffered values "
                        f"are immutable, so use a tuple or a frozenset (tuple(...) of the {what})")
    raise TypeError(f"{type(entity).__name__}.{name} is buffered and was set to a {type(value).__name__} holding a "
                    f"{what}: buffered values are immutable all the way down, so use a tuple or a frozenset inside "
                    f"it too (tuple(...) of the {what})")


_BASELINE = {"x": "_bx", "y": "_by", "angle": "_ba"}
"""The slot that holds the committed value of each of x, y and angle: always, but while the entity's
own update runs (its pending value is in the field's slot then) and between the commit of a tick whose
later systems may still write and that tick's end (the tick's start is kept there for previous values)."""


def _before(entity: Any, token: object) -> tuple[Any, ...]:
    """``entity``'s buffered values as the tick began: what a system's first write must keep."""
    if entity._motion_only:
        return (entity._bx, entity._by, entity._ba)
    if entity._wmark is token:  # its own update wrote already: the tuple it set aside is the tick's start
        return entity._bfull  # type: ignore[no-any-return]
    return type(entity)._layout.get(entity)  # type: ignore[no-any-return]


def hold(entity: Any, token: object) -> None:
    """The first write this tick of an updating entity with buffered fields of its own: its committed values
    set aside as one tuple (its x, y and angle are in the baseline slots already).

    The tuple is read first, then the slots set (the mark first), and what they held is let go
    of last: a finalizer it runs finds the entity marked, and its write is the entity's own, as in
    the core.
    """
    values = type(entity)._layout.get(entity)
    spent = (entity._wmark, entity._bfull)
    _set(entity, "_wmark", token)  # past the barrier (a Python call each on the pure path): not buffered names
    _set(entity, "_bfull", values)
    del spent


def _among(entity: Any, members: Any) -> bool:
    """Whether ``entity`` is one of ``members`` (the tick's update order), by identity."""
    return members is not None and any(member is entity for member in members)


def barrier(state: TickState, entity: Any, name: str, value: Any) -> bool:
    """The Double Buffer's rule at a write to buffered ``name`` of ``entity`` during a tick.

    Its own update: a pending write (a list, dict, set or bytearray written to a field of the
    class's own is refused at that line; one with fields of its own sets its committed tuple aside
    at its first; the settle puts the committed values back when the update returns, keeping
    what it wrote as pending). Another entity's update: refused, here, at the line that writes
    (``BufferedWriteError``), if the entity was in the world when the tick began (despawned in
    it or not: the refusal never depends on who updated first); one spawned in this tick, or
    gone before it, is written at once. A system (nobody updating): written at once, its values at the tick's start kept
    for previous values and for an abort. Returns whether it is the entity's own pending write.
    The pure path calls it from ``BufferSlots.__setattr__``; the core's barrier does the same in C.
    """
    updating = state.updating
    token = state.token
    if updating is entity:
        if name not in _BASELINE and (type(value) in MUTABLE_TYPES or isinstance(value, tuple)):
            refuse_mutable(entity, name, value)
        if not entity._motion_only and entity._wmark is not token:
            hold(entity, token)
        return True
    if updating is not None and entity.id is not None and (entity.alive or _among(entity, state.members)):
        error = state.refuse(updating, entity, name)
        if state.refused is None:
            state.refused = error
        raise error
    if entity._smark is not token:
        state.written.append((entity, _before(entity, token)))
        entity._smark = token
    return False


if TYPE_CHECKING:
    _CoreBase = object
else:  # the barrier in C where the core runs (its tp_setattro), else BufferSlots.__setattr__ below
    _CoreBase = object if _core is None else _core.Barrier


_set: Any = object.__setattr__ if _core is None else setattr
"""A write past the pure path's barrier (``BufferSlots.__setattr__``): what the barrier itself stores with,
and what ``hold`` stores its bookkeeping with (``setattr`` where the core's barrier is the base type's)."""


class BufferSlots(_CoreBase):
    """The slots the buffers keep on every entity: ``Entity``'s base class.

    Fixed slots, not instance attributes (with the compiled core, and on the pure path
    before Python 3.13; see ``_LAYOUT``), so the compiled core reads them at a fixed
    offset and CPython's specialised bytecode reads them from Python as fast as any
    attribute (``LOAD_ATTR_SLOT``). ``x``, ``y`` and ``angle`` are the committed values
    (the updating entity's own pending ones during its update); ``_b*`` the baseline, the
    committed values again (see ``_BASELINE``), ``_n*`` the pending values of an
    entity that changed, ``_p*`` the previous ones; ``_look`` and ``_parts`` what the entity
    shows of its own, ``_blook`` and ``_bparts`` their committed values (``engine.buffering.shown``);
    ``_wstate`` its world's ``TickState``.
    Subclasses get a ``__dict__`` as usual, so users' entities stay plain classes.
    Only ``engine.buffering`` reads or writes these (``Entity`` only declares them).

    **The write barrier.** Every write to a buffered field goes through ``barrier``: with the
    compiled core, the base type's ``tp_setattro`` (``_core.Barrier``) tells a buffered field
    from a plain attribute and applies it in C; on the pure path ``__setattr__`` does.
    Reads are never intercepted.
    """

    if _LAYOUT == "slots":
        __slots__ = _SLOTS

    if _core is None:
        def __setattr__(self, name: str, value: Any) -> None:
            if name in type(self)._buffered_names:
                state = getattr(self, "_wstate", None)
                if state is not None and state.updating is self and state.ticking:
                    # Its own update's write, as barrier says, on its shortest paths: its x, y or angle (all a
                    # motion-only entity has) pending at once; a field of its own, once its committed tuple
                    # is set aside (its mark), pending after the check of a mutable value.
                    if self._motion_only:
                        _set(self, name, value)
                        return
                    if self._wmark is state.token:
                        if name not in _BASELINE and (type(value) in MUTABLE_TYPES or isinstance(value, tuple)):
                            refuse_mutable(self, name, value)
                        _set(self, name, value)
                        return
                own = state is not None and state.ticking and barrier(state, self, name, value)
                if (not own and state is not None and name not in _BASELINE
                        and (type(value) in MUTABLE_TYPES or isinstance(value, tuple))):
                    # A system's write, or one between ticks, is committed at once: a mutable value would be
                    # shared by reference with every checkpoint (a spawn refuses one too), as the core says.
                    refuse_mutable(self, name, value)
                baseline = _BASELINE.get(name)
                if baseline is not None and not own:  # committed at once: the baseline slot holds it too
                    _set(self, baseline, value)
            _set(self, name, value)

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
    _random_mark: Any
    _look: Any
    _blook: Any
    _parts: Any
    _bparts: Any
    _wstate: Any
    _wmark: Any
    _smark: Any
    _inboxes: dict[Any, Any] | None
    _buffered_names: ClassVar[frozenset[str]] = frozenset()

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


_SETTERS: dict[str, Any] = ({name: vars(BufferSlots)[name].__set__ for name in _SLOTS if not name.startswith("__")}
                            if _core is None and _LAYOUT == "slots" else {})
"""Each slot's own setter (its member descriptor's ``__set__``), where the pure path keeps the slots: a
store past the barrier in about half the time of ``object.__setattr__``, which finds the slot by name.
(Empty with the dict layout, and with the core, whose barrier is the base type's: ``_set`` then.)"""
_PUT = re.compile(r"put\(entity, ['\"](\w+)['\"], ")


def compile_stores(source: str, namespace: dict[str, Any]) -> dict[str, Any]:
    """``exec`` ``source`` (the buffers' own passes, which store with ``put(entity, "name", value)``) in
    ``namespace``, with ``put`` the store past the barrier (``_set``) and each store to a slot in
    ``_SETTERS`` that slot's own setter: one source for every layout. Returns ``namespace``."""
    def setter(found: re.Match[str]) -> str:
        name = found.group(1)
        return f"set{name}(entity, " if name in _SETTERS else found.group(0)

    namespace["put"] = _set
    namespace.update((f"set{name}", store) for name, store in _SETTERS.items())
    exec(_PUT.sub(setter, source), namespace)
    return namespace


class Host(Protocol):
    """The world as the parts it is made of see it: ``engine.world.World`` implements it, and it is the one
    protocol of a world in the engine.

    The parts ``World`` is composed of (the Double Buffer and an entity's buffered state, the
    spawner, checkpoints, snapshots, saves and loads, a tick profile) are typed against this,
    not the class: the class imports them, and ``engine.buffering`` sits below the entity and
    the world. So it names no type above this package: the entities are ``BufferSlots``
    (``Entity``'s base class; a part that reads more of them says so where it reads them),
    and a player's input queue is reached through the world's ``Players`` part
    (``engine.world.players.players_of``), not through this.
    """

    tick_count: int
    """Ticks completed so far (a rollback, a load set it)."""
    elapsed_ms: float
    """The game time the current (or last) tick covers."""
    speed_factor: float
    """``elapsed_ms / ms_per_update``."""
    view_size: tuple[int, int]
    """The window's ``(width, height)`` (a load sets the game's)."""
    profile: Any
    """The ``engine.world.TickProfile`` timing the ticks, or ``None`` (set between ticks)."""

    @property
    def ticking(self) -> bool:
        """Whether a tick is in progress."""

    @property
    def seed(self) -> Any:
        """The world's seed, which every entity's generator is seeded from."""

    @property
    def random(self) -> random.Random:
        """The world's own generator."""

    @property
    def players(self) -> int:
        """How many players the world has."""

    @property
    def last_id(self) -> int:
        """The highest id handed out so far."""

    @property
    def entities(self) -> Sequence[BufferSlots]:
        """Live entities in update order."""

    def esper_context(self) -> AbstractContextManager[None]:
        """Make the world's esper world current for a block."""

    def close(self) -> None:
        """Release the world."""


if _core is not None:
    _core.configure(BufferSlots)
