"""Entity: the Update Method, with double-buffered state.

A game object subclasses ``Entity`` and overrides ``update(world)``; the ``World`` calls
it once per tick. State that *other* entities read is buffered: each entity reads and
writes its own pending value freely during its update, while every other reader sees
the value committed at the end of the previous tick. The world swaps pending into
committed after every tick, so the outcome of a tick never depends on the order in
which entities happen to update.

Two kinds of buffered state, both declared on the class:

* ``buffered(default)`` -- a value (``x`` and ``y`` are two of these).
* ``signal()`` -- a flag raised during a tick and seen during the next one, then
  cleared (``slap()`` is one of these).

How it stays fast: a buffered value is a plain instance attribute, so ``self.x += 1``
inside ``update()`` costs exactly what it costs on any Python object. The world keeps
the committed value aside while the entity updates, and right after ``update()``
returns it puts the committed value back and keeps the pending one for the swap.
Only entities whose values changed pay for that.

Rules that follow from it: an entity writes only its *own* buffered values (to affect
another, raise a signal on it, as ``slap()`` does); buffered values should be
immutable (numbers, strings, tuples), since a list mutated in place bypasses the
buffer; and writes made outside a tick (in ``__init__``, between ticks, from a test)
are committed at once.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, ClassVar, TypeVar, cast, overload

from engine.look import DEFAULT_LOOK, Look

if TYPE_CHECKING:
    from engine.world import World

__all__ = ["Entity", "buffered", "signal"]

T = TypeVar("T")
_MUTABLE = (list, dict, set, bytearray)


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
    to others after the tick. ``previous(name)`` gives the value committed the tick
    before, and ``world.snapshot()`` includes every buffered value.

    This is a declaration, not a descriptor: when the class is created the field is
    recorded and removed from the class, and ``Entity.__init__`` puts the default into
    each instance. A descriptor left on the class would make CPython skip its fast path
    for every ``self.hp`` read, which costs about 70% on attribute-heavy updates. (Typed
    as returning ``T``, so ``self.hp`` type-checks as the value it holds.)
    """
    if isinstance(default, _MUTABLE):
        raise TypeError(
            f"buffered() default must be immutable (a number, string or tuple), got {default!r}: "
            "a mutable value would be shared between buffers and mutated in place"
        )
    return cast(T, _Buffered(default))


class signal:
    """Declare a double-buffered flag on an ``Entity`` subclass: ``hit = signal()``.

    Raise it with ``entity.hit = True`` (typically on *another* entity); it is seen as
    ``entity.hit`` being true during the next tick, by every reader in any update order,
    and cleared after that tick. ``slap()`` / ``was_slapped()`` are built on one.
    Raised outside a tick, it is seen during the next tick.
    """

    def __init__(self) -> None:
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type) -> signal: ...
    @overload
    def __get__(self, instance: Entity, owner: type) -> bool: ...
    def __get__(self, instance: Entity | None, owner: type) -> signal | bool:
        if instance is None:
            return self
        return self.name in instance._signals

    def __set__(self, instance: Entity, value: bool) -> None:
        if value is not True:
            raise ValueError(
                f"signal {self.name!r} can only be raised (set to True); it clears itself after the "
                f"tick in which it is seen, got {value!r}"
            )
        instance._raise_signal(self.name)

    def __repr__(self) -> str:
        return f"signal({self.name!r})"


class Entity:
    """A game object in the Update Method pattern: override ``update(world)``.

    ``x`` and ``y`` are buffered (see the module docstring): the entity reads its own
    pending position during its update, everyone else reads the committed one.
    ``prev_x`` / ``prev_y`` are the committed values of the tick before, so
    ``draw_position(alpha)`` can draw between the last two logic states.

    ``alive`` is False before the entity is spawned and from the moment it is despawned;
    ``id`` is its esper entity id (``None`` before spawn); ``world`` the world it lives in.
    Reading or slapping a despawned entity is harmless.
    """

    x: float = buffered(0.0)
    y: float = buffered(0.0)
    angle: float = buffered(0.0)
    """Rotation in degrees, counter-clockwise; buffered like ``x`` and ``y``."""
    slapped = signal()

    look: Look = DEFAULT_LOOK
    """How the renderer draws this entity (a plain value: logic never touches pyglet)."""
    saved: ClassVar[tuple[str, ...]] = ()
    """Plain attributes ``world.save()`` keeps besides the buffered ones: numbers, strings,
    tuples, lists, dicts, and references to other entities. Anything else an entity needs
    after a load, it rebuilds in ``on_load``."""

    _buffered_names: ClassVar[tuple[str, ...]]
    _buffered_defaults: ClassVar[tuple[Any, ...]]
    _buffered_get: ClassVar[attrgetter[Any]]
    _buffered_set: ClassVar[Any]  # a staticmethod: store(entity, values)
    _xy_only: ClassVar[bool]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _register_buffered_fields(cls)

    def __init__(self, x: float = 0.0, y: float = 0.0) -> None:
        # A subclass may have set its own buffered values before calling us: keep those.
        # (hasattr, not self.__dict__: touching __dict__ makes CPython 3.11 give up the
        # inline attribute storage that keeps every later self.x fast.)
        for name, default in zip(type(self)._buffered_names[2:], type(self)._buffered_defaults[2:]):
            if not hasattr(self, name):
                setattr(self, name, default)
        self.x = x
        self.y = y
        self._xy = type(self)._xy_only
        self.id: int | None = None
        self._world: Callable[[], World | None] = _no_world
        self.alive = False
        self._signals: frozenset[str] = frozenset()
        # Slots the world's swap writes into, created here so every instance has the same
        # attribute layout (CPython shares the key table and keeps attribute access fast).
        self._next_x: Any = x
        self._next_y: Any = y
        self._prev_x: Any = x
        self._prev_y: Any = y
        self._prev_rest: tuple[Any, ...] = ()
        self._prev_tick = -1

    @property
    def world(self) -> World | None:
        """The world this entity was spawned into (``None`` before spawn).

        Held weakly: esper keeps components in module globals, and an entity holding its
        world strongly from there would keep every world alive forever.
        """
        return self._world()

    def update(self, world: World) -> None:
        """Advance this entity by one tick. Override it; the default does nothing."""

    def on_load(self, world: World) -> None:
        """Called on every entity after ``World.load()``: rebuild what was not saved.

        By then every entity exists with its buffered and ``saved`` attributes; the
        constructor was not called. The default does nothing.
        """

    # -- buffered state -------------------------------------------------------------

    def previous(self, name: str) -> Any:
        """Return the value of buffered field ``name`` committed the tick before."""
        # The world's swap stamps _prev_tick; the _prev_* values describe the tick before
        # only if the entity changed in the latest tick. Otherwise previous == current.
        world = self.world
        if world is None or self._prev_tick != world.tick_count:
            return getattr(self, name)
        if name == "x":
            return self._prev_x
        if name == "y":
            return self._prev_y
        return self._prev_rest[type(self)._buffered_names.index(name) - 2]

    @property
    def prev_x(self) -> float:
        """``x`` as committed at the end of the tick before the last one."""
        return self.previous("x")  # type: ignore[no-any-return]

    @property
    def prev_y(self) -> float:
        """``y`` as committed at the end of the tick before the last one."""
        return self.previous("y")  # type: ignore[no-any-return]

    def draw_position(self, alpha: float, extrapolate: bool = False) -> tuple[float, float]:
        """Where to draw this entity ``alpha`` of the way into the next tick.

        Interpolation draws ``previous + (current - previous) * alpha``: one tick of
        latency, never wrong. Extrapolation draws ``current + (current - previous) *
        alpha``: no latency, occasionally wrong (it guesses the motion continues).
        Reading only, so rendering never changes game state.
        """
        x, y = self.x, self.y
        px, py = self.prev_x, self.prev_y
        if extrapolate:
            return x + (x - px) * alpha, y + (y - py) * alpha
        return px + (x - px) * alpha, py + (y - py) * alpha

    def draw_angle(self, alpha: float) -> float:
        """The angle to draw ``alpha`` of the way into the next tick, interpolated the short way round.

        Turning from 350 to 10 degrees passes through 0, not through 180.
        """
        current = self.angle
        turn = (current - self.previous("angle") + 180.0) % 360.0 - 180.0
        return current - turn * (1.0 - alpha)

    def snap(self) -> None:
        """Make previous = current, so a teleported or new entity is not drawn streaking."""
        self._prev_tick = -1

    def buffered_state(self) -> dict[str, Any]:
        """Return every buffered value, by name, as other entities currently see them."""
        return dict(zip(type(self)._buffered_names, type(self)._buffered_get(self)))

    # -- signals ----------------------------------------------------------------------

    def _raise_signal(self, name: str) -> None:
        if not self.alive:
            return
        world = self.world
        if world is None:
            return
        world._raise_signal(self, name)

    def slap(self) -> None:
        """Slap this entity: it sees ``was_slapped()`` during the next tick, whoever updates first."""
        self.slapped = True

    def was_slapped(self) -> bool:
        """Whether this entity was slapped during the previous tick (the committed buffer)."""
        return "slapped" in self._signals

    @classmethod
    def buffered_fields(cls) -> dict[str, Any]:
        """The buffered fields this class declares (its own and inherited), with defaults."""
        return dict(zip(cls._buffered_names, cls._buffered_defaults))

    def __repr__(self) -> str:
        state = "alive" if self.alive else ("despawned" if self.id is not None else "unspawned")
        return f"<{type(self).__name__} id={self.id} x={self.x!r} y={self.y!r} {state}>"


def _no_world() -> None:
    return None


def _register_buffered_fields(cls: type[Entity]) -> None:
    """Record the ``buffered()`` fields of ``cls`` (x and y first) and take them off the class."""
    fields: dict[str, Any] = {}
    for base in reversed(cls.__mro__[1:]):
        if "_buffered_names" in vars(base):
            fields.update(zip(vars(base)["_buffered_names"], vars(base)["_buffered_defaults"]))
    for name, value in list(vars(cls).items()):
        if isinstance(value, _Buffered):
            fields[name] = value.default
            delattr(cls, name)
        elif name in fields and not name.startswith("__"):
            raise TypeError(
                f"{cls.__name__}.{name} replaces the buffered field {name!r} of a base class; "
                f"declare it as {name} = buffered(default) to change its default"
            )
    names = ("x", "y") + tuple(name for name in fields if name not in ("x", "y"))
    cls._buffered_names = names
    cls._buffered_defaults = tuple(fields[name] for name in names)
    cls._buffered_get = attrgetter(*names)
    cls._buffered_set = staticmethod(_make_setter(names))
    cls._xy_only = names == ("x", "y")


def _make_setter(names: tuple[str, ...]) -> Callable[[Any, tuple[Any, ...]], None]:
    """Compile ``def store(entity, values): entity.x, entity.y, entity.hp = values``.

    The world stores every buffered value of a changed entity twice a tick; one unpacking
    assignment compiled for the class does it in plain bytecode, several times faster
    than a loop of ``setattr`` calls. The names are identifiers from a class body.
    """
    if not all(name.isidentifier() for name in names):
        raise TypeError(f"buffered field names must be identifiers, got {names!r}")
    targets = ", ".join(f"entity.{name}" for name in names)
    namespace: dict[str, Any] = {}
    exec(f"def store(entity, values):\n    {targets}, = values\n", namespace)
    store: Callable[[Any, tuple[Any, ...]], None] = namespace["store"]
    return store


_register_buffered_fields(Entity)
