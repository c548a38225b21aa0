"""What an entity class declares: ``buffered()`` values and ``signal()`` flags and messages.

A declaration is read once, when the class is created, into the class's ``Layout``: the
names of its buffered fields (``x``, ``y`` and ``angle`` first), their defaults, and a
getter and a setter compiled for exactly those names. The per-world ``Buffers`` reads
and writes entities only through a layout, so no other module needs to know how the
values are kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

from engine.buffering.slots import MUTABLE_TYPES, BufferSlots, _core, mutable_in, refuse_mutable

__all__ = ["Layout", "SignalInbox", "buffered", "class_layout", "layout_of", "signal"]

T = TypeVar("T")
MOTION = ("x", "y", "angle")
"""The buffered fields every entity has, first in every layout."""


class _Buffered:
    """The marker ``buffered()`` leaves in a class body, read when the class is created."""

    __slots__ = ("default",)

    def __init__(self, default: Any) -> None:
        self.default = default

    def __repr__(self) -> str:
        return f"buffered({self.default!r})"


def buffered(default: T) -> T:
    """Declare a double-buffered value on an ``Entity`` subclass: ``hp = buffered(10)``.

    The owning entity reads its own pending value during its update; every other reader
    sees the value committed at the end of the previous tick; all writes become visible
    to others after the tick. Only the entity itself writes it during a tick: a write
    from another entity's update is refused (``BufferedWriteError``). ``previous(name)``
    gives the value committed the tick before, and ``world.snapshot()`` includes it.

    This is a declaration, not a descriptor: when the class is created the field is
    recorded and removed from the class, and ``Entity.__init__`` puts the default into
    each instance. A descriptor left on the class would make CPython skip its fast path
    for every ``self.hp`` read, which costs about 70% on attribute-heavy updates; writes
    are watched instead, by the write barrier (``engine.buffering.slots``), which reads the
    class's ``_buffered_names``. (Typed as returning ``T``, so ``self.hp`` type-checks as
    the value it holds.)
    """
    if isinstance(default, tuple(MUTABLE_TYPES)) or mutable_in(default) is not None:
        raise TypeError(
            f"buffered() default must be immutable (a number, string or tuple), got {default!r}: "
            "a mutable value would be shared between buffers and mutated in place"
        )
    return cast(T, _Buffered(default))


class _PureInbox:
    """What ``SignalInbox`` keeps, and its ``send``: the pure path's; the compiled core has the same in C
    (``_core.SignalInboxBase``), so a send costs one call. ``_name`` is the signal's name, read once."""

    __slots__ = ("_entity", "_name", "_signal")

    def __init__(self, entity: BufferSlots, declared: signal) -> None:
        self._entity = entity
        self._signal = declared
        self._name: str = declared.name

    def send(self, value: Any) -> None:
        """Contribute ``value``: combined with every other contribution and seen next tick."""
        entity = self._entity
        state = entity._wstate  # its world's (None before spawn): the buffers in one step
        if state is not None and entity.alive:
            state.signals(entity, self._name, value)


class _PureSignalField:
    """What ``signal`` keeps, and its ``__get__``: the pure path's; the compiled core has the same in C
    (``_core.SignalField``), so reading ``entity.damage`` runs no Python code once its inbox exists."""

    __slots__ = ("combine", "name")

    combine: Callable[[tuple[Any, ...]], Any] | None
    name: str

    @overload
    def __get__(self, instance: None, owner: type) -> Any: ...
    @overload
    def __get__(self, instance: BufferSlots, owner: type) -> Any: ...
    def __get__(self, instance: BufferSlots | None, owner: type) -> Any:
        if instance is None:
            return self
        if self.combine is None:
            return self.name in instance._signals
        inboxes = instance._inboxes
        if type(inboxes) is dict:
            inbox = inboxes.get(self)
            if inbox is not None:
                return inbox
        return self._inbox(instance)  # type: ignore[attr-defined]


if TYPE_CHECKING:
    _InboxBase = _PureInbox
    _SignalBase = _PureSignalField
else:  # the compiled core's, where it runs: the same semantics, in C
    _InboxBase = _PureInbox if _core is None else _core.SignalInboxBase
    _SignalBase = _PureSignalField if _core is None else _core.SignalField


class SignalInbox(_InboxBase):
    """A valued signal as read on one entity: ``.value`` to receive, ``.send(v)`` to contribute.

    ``target.damage.send(5)`` (or ``target.damage += 5``, which means the same) adds a
    contribution to the *next* buffer; during the next tick ``self.damage.value`` is all
    the contributions of the tick before, combined (``sum`` of them, a ``tuple`` of them,
    ...). Contributions are combined in a canonical order: the senders' spawn order, then
    the order in which one sender sent them, so a float sum is bit-identical whatever
    the update order. ``bool(inbox)`` is whether anything arrived.
    """

    __slots__ = ()

    @property
    def value(self) -> Any:
        """The contributions that arrived in the previous tick, combined."""
        received = self._entity._signals.get(self._signal.name)
        return self._signal.empty if received is None else received

    def __iadd__(self, value: Any) -> SignalInbox:
        # ``target.damage += 5`` must count 5 once, never read-modify-write the total.
        self.send(value)
        return self

    def __bool__(self) -> bool:
        return self._signal.name in self._entity._signals

    def __repr__(self) -> str:
        return f"<{self._signal.name} of {self._entity!r}: {self.value!r}>"

    def _misused(self, *_: Any) -> Any:
        # The inbox is not its value: ``self.y -= self.bumps`` or ``runner.bumps(5)`` would
        # otherwise fail with "unsupported operand type(s) ... 'SignalInbox'", naming nothing.
        name = self._signal.name
        raise TypeError(f"{type(self._entity).__name__}.{name} is a valued signal: read what arrived "
                        f"with self.{name}.value, contribute with entity.{name}.send(value) (or +=)")

    __call__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _misused
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __neg__ = _misused
    __lt__ = __le__ = __gt__ = __ge__ = __float__ = __int__ = __index__ = __iter__ = _misused


class signal(_SignalBase):
    """Declare a double-buffered signal on an ``Entity`` subclass.

    ``hit = signal()`` is a flag: raise it with ``entity.hit = True`` (typically on
    *another* entity); during the next tick ``entity.hit`` is true for every reader in
    any update order, and after that tick it clears. ``slap()`` is one of these.

    ``damage = signal(sum)`` or ``hits = signal(tuple)`` carries values from many
    senders: ``target.damage.send(5)`` (or ``target.damage += 5``) contributes, and
    during the next tick ``self.damage.value`` is ``combine`` applied to every
    contribution of the tick before, in a canonical order (see ``SignalInbox``). With
    no contribution, ``value`` is ``combine(())`` (0 for ``sum``, ``()`` for ``tuple``).

    A signal raised during tick N is seen during tick N+1; one raised between ticks N
    and N+1 lands in tick N+1's next buffer and is seen during tick N+2, as in Game
    Programming Patterns' ``harry->slap(); stage.update();``.
    """

    def __init__(self, combine: Callable[[tuple[Any, ...]], Any] | None = None) -> None:
        if combine is not None and not callable(combine):
            raise TypeError(f"signal(combine) takes a function of the contributions such as sum or tuple, "
                            f"got {combine!r}")
        self.combine = combine
        self.empty: Any = False if combine is None else combine(())
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    if TYPE_CHECKING:  # reading is _SignalBase's __get__ (in C where the core runs)
        @overload
        def __get__(self, instance: None, owner: type) -> signal: ...
        @overload
        def __get__(self, instance: BufferSlots, owner: type) -> Any: ...
        def __get__(self, instance: BufferSlots | None, owner: type) -> Any: ...

    def _inbox(self, instance: BufferSlots) -> SignalInbox:
        # One inbox per entity and signal, made on first read and kept: a read or a send allocates nothing.
        inboxes = instance._inboxes
        if inboxes is None:
            inboxes = instance._inboxes = {}
        inbox = inboxes.get(self)
        if inbox is None:
            inbox = inboxes[self] = SignalInbox(instance, self)
        return inbox

    def __set__(self, instance: BufferSlots, value: Any) -> None:
        if self.combine is not None:
            if isinstance(value, SignalInbox) and value._entity is instance and value._signal is self:
                return  # the store half of ``target.damage += 5``; the send already happened
            raise TypeError(
                f"{type(instance).__name__}.{self.name} is a valued signal: contribute with "
                f"entity.{self.name}.send(value) (or +=), read with self.{self.name}.value; got {value!r}"
            )
        if value is not True:
            raise ValueError(
                f"signal {self.name!r} can only be raised (set to True); it clears itself after the "
                f"tick in which it is seen, got {value!r}"
            )
        state = instance._wstate  # its world's (None before spawn)
        if state is not None and instance.alive:
            state.signals(instance, self.name, True)

    def __repr__(self) -> str:
        return f"signal({self.name!r})" if self.combine is None else f"signal({self.name!r}, {self.combine!r})"


class Layout:
    """The buffered fields of one entity class, and the compiled ways to read and write them.

    ``names`` starts with ``x``, ``y``, ``angle``; ``rest`` are the class's own fields.
    ``get(entity)`` returns every value as a tuple, ``set(entity, values)`` stores them,
    both compiled for the class (one C call, one unpacking assignment) because the
    buffers call them for every changed entity, twice a tick.
    """

    def __init__(self, names: tuple[str, ...], defaults: tuple[Any, ...], signals: dict[str, signal]) -> None:
        self.names = names
        self.defaults = defaults
        self.rest = names[len(MOTION):]
        self.initial = tuple((name, default) for name, default in zip(names, defaults, strict=True)
                             if name not in ("x", "y"))
        """``(name, default)`` of every field ``Entity.__init__`` fills in (x and y are its arguments)."""
        self.signals = signals
        self.get: Callable[[Any], tuple[Any, ...]] = attrgetter(*names)
        self.set = _make_setter(names)
        self.get_rest: Callable[[Any], tuple[Any, ...]] | None = None
        self.set_rest: Callable[[Any, tuple[Any, ...]], None] | None = None
        if self.rest:
            getter = attrgetter(*self.rest)
            # attrgetter of one name returns the value itself, not a 1-tuple.
            self.get_rest = getter if len(self.rest) > 1 else (lambda entity: (getter(entity),))
            self.set_rest = _make_setter(self.rest)

    def check_immutable(self, entity: Any) -> None:
        """Refuse (``TypeError``, by name) an entity whose buffered values hold a mutable one: at spawn."""
        if self.rest:
            values = self.get(entity)
            if any(map(mutable_in, values)):
                self.refuse_mutable(entity, values)

    def refuse_mutable(self, entity: Any, values: tuple[Any, ...]) -> None:
        """Raise ``TypeError`` naming the first of ``values`` (the entity's, in layout order) that is or holds a
        mutable one (``slots.refuse_mutable``'s words).

        A buffered value is shared by the committed, pending and previous buffers, so one
        mutated in place would change all three: only immutable values may be buffered.
        Called, on both paths, only for an entity whose new values hold one of ``MUTABLE_TYPES``.
        """
        for name, value in zip(self.names, values):
            refuse_mutable(entity, name, value)

    def index(self, name: str) -> int:
        """Position of buffered field ``name``; ``KeyError`` naming the fields if it is not one."""
        try:
            return self.names.index(name)
        except ValueError:
            known = ", ".join(self.names)
            raise KeyError(f"{name!r} is not a buffered field; the buffered fields are {known}") from None


def _make_setter(names: tuple[str, ...]) -> Callable[[Any, tuple[Any, ...]], None]:
    """Compile ``def store(entity, values): entity.x, entity.y, entity.hp = values``.

    One unpacking assignment compiled for the class runs in plain bytecode, several times
    faster than a loop of ``setattr`` calls. The names are identifiers from a class body.
    """
    if not all(name.isidentifier() for name in names):
        raise TypeError(f"buffered field names must be identifiers, got {names!r}")
    targets = ", ".join(f"entity.{name}" for name in names)
    namespace: dict[str, Any] = {}
    exec(f"def store(entity, values):\n    {targets}, = values\n", namespace)
    store: Callable[[Any, tuple[Any, ...]], None] = namespace["store"]
    return store


def register(cls: type, bases: Iterable[type]) -> Layout:
    """Read the ``buffered()`` and ``signal()`` declarations of ``cls`` into its ``Layout``.

    The ``buffered()`` markers are taken off the class (see ``buffered``). Redeclaring an
    inherited buffered field as a plain class attribute is refused: it would silently
    stop being buffered.
    """
    fields: dict[str, Any] = {}
    signals: dict[str, signal] = {}
    for base in reversed(list(bases)):
        layout = vars(base).get("_layout")
        if isinstance(layout, Layout):
            fields.update(zip(layout.names, layout.defaults))
            signals.update(layout.signals)
    for name, value in list(vars(cls).items()):
        if isinstance(value, _Buffered):
            fields[name] = value.default
            delattr(cls, name)
        elif isinstance(value, signal):
            signals[name] = value
        elif name in fields and not name.startswith("__"):
            raise TypeError(
                f"{cls.__name__}.{name} replaces the buffered field {name!r} of a base class; "
                f"declare it as {name} = buffered(default) to change its default"
            )
    clash = set(fields) & set(signals)
    if clash:
        raise TypeError(f"{cls.__name__}: {', '.join(sorted(clash))} declared both buffered and signal")
    names = MOTION + tuple(name for name in fields if name not in MOTION)
    # What the write barrier asks at every write to an entity of the class (engine.buffering.slots).
    type.__setattr__(cls, "_buffered_names", frozenset(names))
    return Layout(names, tuple(fields.get(name, 0.0) for name in names), signals)


def layout_of(entity: Any) -> Layout:
    """The ``Layout`` of an entity's class."""
    return cast(Layout, type(entity)._layout)


def class_layout(kind: type) -> Layout:
    """The ``Layout`` of an entity class (its buffered fields and signals, as ``register`` read them)."""
    return cast(Layout, kind._layout)  # type: ignore[attr-defined]

