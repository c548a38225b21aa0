"""Entity: the Update Method, with double-buffered state.

A game object subclasses ``Entity`` and overrides ``update(world)``; the ``World`` calls
it once per tick. State that *other* entities read is buffered: each entity reads and
writes its own pending value freely during its update, while every other reader sees
the value committed at the end of the previous tick. The world swaps pending into
committed after every tick, so the outcome of a tick never depends on the order in
which entities happen to update.

Two kinds of buffered state, both declared on the class:

* ``buffered(default)`` -- a value (``x``, ``y`` and ``angle`` are three of these).
* ``signal()`` -- a flag raised during a tick and seen during the next one, then
  cleared (``slap()`` is one of these); ``signal(sum)``, ``signal(tuple)``... carry
  values from many senders, combined in an order that does not depend on updates.

A buffered value is read as a plain slot or instance attribute, so ``self.x`` inside
``update()`` costs what it costs on any Python object; every *write* to one goes through
the Double Buffer's write barrier (``engine.buffering``), which makes it mean the right
thing for every reader (see there).

Rules that follow from it: an entity writes only its *own* buffered values during a
tick (a write to another's is refused with ``BufferedWriteError`` at the line that makes
it; raise a signal on it instead, as ``slap()`` does); buffered values should be immutable (numbers, strings,
tuples), since a list mutated in place bypasses the buffer; writes made outside a tick
(in ``__init__``, between ticks, from a test) and from systems are committed at once.
Plain attributes are the entity's own and are not buffered or rolled back: an
``update()`` that fails after changing one leaves it changed.
"""

from __future__ import annotations

import math
import random
import weakref
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, cast

from engine.buffering import access as _access
from engine.buffering.buffers import fill_missing, init_entity
from engine.buffering.fields import Layout, buffered, register, signal
from engine.buffering.shown import FOLLOW, HIDDEN, LookShown, PartsShown, bump
from engine.buffering.slots import SLOT_NAMES, BufferSlots, Host
from engine.deprecation import warn_deprecated
from engine.look import Look, Part, checked_parts
from engine.messages import shown

__all__ = ["LOOK", "PARTS", "Entity", "attach", "buffered", "detach", "entities_of_host", "signal"]


def _own_look(kind: type, value: Any) -> Any:
    """An instance's own look as its slot holds it (``HIDDEN`` for ``None``, ``None`` to follow its class
    again: ``del entity.look``); anything else refused by name."""
    if type(value) is Look:
        return value
    if value is None:
        return HIDDEN
    if value is FOLLOW:
        return None
    if not isinstance(value, Look):
        raise TypeError(f"{kind.__name__}.look must be a Look or None, got {shown(value)}")
    return value


def _own_parts(kind: type, value: Any) -> tuple[Part, ...] | None:
    return None if value is FOLLOW else checked_parts(kind.__name__, value)


LOOK = LookShown("look", _own_look, plain=Look)
"""``Entity.look``: what an entity shows, its class's or its own (``engine.buffering.shown``)."""
PARTS = PartsShown("parts", _own_parts, empty=())
"""``Entity.parts``: the looks an entity shows besides its own, its class's or its own."""
_SHOWN = {"look": LOOK, "parts": PARTS}


def _class_value(kind: type, name: str, value: Any) -> Any:
    """A class's own look or parts (``look = Look(...)`` in its body, or ``Kind.look = ...`` later), checked."""
    if name == "parts":
        return checked_parts(kind.__name__, value)
    if value is not None and not isinstance(value, Look):
        hint = (": an entity's look is state the engine keeps; set self.look in update() rather than computing it"
                if hasattr(type(value), "__get__") else "")
        raise TypeError(f"{kind.__name__}.look must be a Look or None, got {shown(value)}{hint}")
    return value


class _EntityClass(type):
    """The class of every ``Entity`` class: ``Kind.look = ...`` and ``Kind.parts = ...`` set the class's
    default (which every instance without its own shows), not an attribute hiding the engine's."""

    def __setattr__(cls, name: str, value: Any) -> None:
        field = _SHOWN.get(name)
        if field is None:
            type.__setattr__(cls, name, value)
            return
        type.__setattr__(cls, field.class_attribute, _class_value(cls, name, value))
        bump()

    def __delattr__(cls, name: str) -> None:
        field = _SHOWN.get(name)
        if field is None:
            type.__delattr__(cls, name)
            return
        if field.class_attribute not in vars(cls):
            raise AttributeError(f"{cls.__name__} sets no {name} of its own (it shows its base class's)")
        type.__delattr__(cls, field.class_attribute)
        bump()


class Entity(BufferSlots, metaclass=_EntityClass):
    """A game object in the Update Method pattern: override ``update(world)``.

    ``x``, ``y`` and ``angle`` (degrees, counter-clockwise) are buffered (see the module
    docstring): the entity reads its own pending values during its update, everyone
    else reads the committed ones. ``prev_x`` / ``prev_y`` are the committed values of the
    tick before, so ``draw_position(alpha)`` can draw between the last two logic states.

    ``alive`` is False before the entity is spawned and from the moment it is despawned;
    ``id`` is its esper entity id (``None`` before spawn); ``world`` the world it lives in.
    Reading or slapping a despawned entity is harmless.

    The world is typed ``Any`` here (``update(world)``, ``on_load(world)``, ``world``), and
    is always a ``World``: the entity sits below the world in the import graph, and an
    override annotated ``world: World`` stays a valid override.
    """

    _layout: ClassVar[Layout]

    x: float = buffered(0.0)
    y: float = buffered(0.0)
    angle: float = buffered(0.0)
    slapped = signal()

    # Typed as the value it reads as (a class body's ``look = Look(...)`` type-checks too); it is a descriptor.
    look: Look | None = LOOK  # type: ignore[assignment]
    """How the renderer draws this entity (a ``Look``: a plain value, logic never touches
    pyglet); ``None`` draws nothing. Declared on the class (``look = Look(...)``), it is what
    every instance shows until it sets its own; it may change at any time, per class
    (``Skeleton.look = ...``) or per instance (``self.look = HURT``), and the next frame shows
    the new one. Set on an instance it is state, like a buffered field: during a tick others
    (and collisions) see the committed one, it is saved, loaded, rolled back and in the
    state hash; ``del self.look`` follows the class again (``engine.buffering.shown``)."""
    _class_look: ClassVar[Look | None] = None
    parts: tuple[Part, ...] = PARTS  # type: ignore[assignment]
    """More looks drawn with this entity, a tuple of ``Part`` (a health bar, a turret); ``()``
    by default. Declared and changed like ``look``, and state like it when set on an instance."""
    _class_parts: ClassVar[tuple[Part, ...]] = ()
    hitbox: tuple[float, float] | None = None
    """Width and height of the box ``world.overlapping`` tests; ``None``: the look's size."""
    static: ClassVar[bool] = False
    """``True`` for entities that never move (tiles, walls): collision queries keep them in a
    grid of their own, built once instead of every tick. Only speed depends on it: one that
    moves, changes its look or is despawned is still found where it is (the grid is rebuilt)."""
    saved: ClassVar[tuple[str, ...]] = ()
    """Plain attributes ``world.save()`` keeps besides the buffered ones: numbers, strings,
    tuples, lists, dicts, and references to other entities. Anything else an entity needs
    after a load, it rebuilds in ``on_load``. A subclass's ``saved`` adds to its base
    classes' (as buffered fields are inherited): ``Banner(Part)`` with ``saved = ("text",)``
    keeps ``Part``'s names too, bases first."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        saved = vars(cls).get("saved")
        if isinstance(saved, str) or (saved is not None and not all(isinstance(name, str) for name in saved)):
            raise TypeError(f"{cls.__name__}.saved must be a tuple of attribute names, got {saved!r}"
                            + (f": write saved = ({saved!r},)" if isinstance(saved, str) else ""))
        # Inherited like fields: overriding `saved` must not silently drop a base's names,
        # or a save made while a subclass lives would not load.
        names = [name for base in reversed(cls.__mro__[1:]) for name in vars(base).get("saved", ())]
        cls.saved = tuple(dict.fromkeys([*names, *(saved or ())]))
        for hook in _OLD_HOOKS:
            if hook in vars(cls) and not getattr(vars(cls)[hook], "deprecated_alias", False):
                warn_deprecated(f"{cls.__name__}.{hook} (the 0.2 hook of an entity with buffers of its own, no longer "
                                "called)", "engine.Crowd for members kept in arrays of its own", stacklevel=3)
        for name in _SHOWN:
            if name in vars(cls):  # the class's default: kept beside the engine's descriptor, not over it
                value = _class_value(cls, name, vars(cls)[name])
                type.__delattr__(cls, name)
                type.__setattr__(cls, _SHOWN[name].class_attribute, value)
        _refuse_attribute_hooks(cls)
        cls._layout = register(cls, cls.__mro__[1:])

    def __init__(self, x: float = 0.0, y: float = 0.0, angle: float = 0.0) -> None:
        layout = type(self)._layout
        # A subclass may have set its own buffered values before calling us: keep those.
        # (hasattr's rule, not self.__dict__: touching __dict__ makes CPython give up the inline
        # attribute storage that keeps every later self.x fast.)
        fill_missing(self, layout.initial)
        self.x = x
        self.y = y
        # An angle a subclass set before calling us stands, unless one is given (-0.0 is one).
        if angle != 0.0 or math.copysign(1.0, angle) < 0.0:
            self.angle = angle
        self.id: int | None = None
        self._world: Callable[[], Any] = _no_world
        self.alive = False
        init_entity(self, layout)

    @property
    def world(self) -> Any:
        """The world this entity was spawned into (``None`` before spawn).

        Held weakly: esper keeps components in module globals, and an entity holding its
        world strongly from there would keep every world alive forever.
        """
        return self._world()

    def update(self, world: Any) -> None:
        """Advance this entity by one tick. Override it; the default does nothing."""

    def on_load(self, world: Any) -> None:
        """Called on every entity after ``World.load()``: rebuild what was not saved.

        By then every entity exists with its buffered and ``saved`` attributes; the
        constructor was not called. The default does nothing.
        """

    # -- buffered state -------------------------------------------------------------

    def previous(self, name: str) -> Any:
        """Return the value of buffered field ``name`` committed the tick before."""
        return _access.previous(self, name)

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
        turn: float = (current - self.previous("angle") + 180.0) % 360.0 - 180.0
        return current - turn * (1.0 - alpha)

    def snap(self) -> None:
        """Make previous = current, so a teleported or new entity is not drawn streaking.

        Inside the entity's own ``update()`` it applies to the values that tick commits:
        after the swap, previous = current = the new position.
        """
        _access.snap(self)

    def buffered_state(self) -> dict[str, Any]:
        """Return every buffered value, by name, as other entities currently see them."""
        layout = type(self)._layout
        return dict(zip(layout.names, layout.get(self)))

    @property
    def random(self) -> random.Random:
        """A random generator private to this entity (the ``random.Random`` interface).

        Seeded from the world's seed and this entity's id, so its draws don't depend on
        the update order (``world.random`` drawn from inside updates would). Saved, loaded
        and rolled back with the entity; made on first use, so an entity that never draws
        pays nothing. Only after spawn.
        """
        generator = _access.random_of(self)
        if generator is None:
            raise RuntimeError(f"{self!r} has no random generator before it is spawned (or, spawned during a "
                               "tick, before it joins after the tick): its seed comes from the world's seed and its id")
        return generator

    # -- signals ----------------------------------------------------------------------

    def slap(self) -> None:
        """Slap this entity: it sees ``was_slapped()`` during the next tick, whoever updates first."""
        self.slapped = True

    def was_slapped(self) -> bool:
        """Whether this entity was slapped during the previous tick (the committed buffer)."""
        return "slapped" in _access.signals_of(self)

    @classmethod
    def buffered_fields(cls) -> dict[str, Any]:
        """The buffered fields this class declares (its own and inherited), with defaults."""
        return dict(zip(cls._layout.names, cls._layout.defaults))

    def __repr__(self) -> str:
        if not _access.has_buffers(self):  # a subclass's __init__ has not called Entity.__init__ (yet)
            return f"<{type(self).__name__}, not initialised as an Entity: its __init__ must call super().__init__()>"
        state = "alive" if self.alive else ("despawned" if self.id is not None else "unspawned")
        return f"<{type(self).__name__} id={self.id} x={self.x!r} y={self.y!r} {state}>"

    # -- deprecated: 0.2's hooks of an entity with buffers of its own, until 0.6 (docs/changelog.md) --

    def commit_buffers(self, tick: int) -> None:
        """Deprecated, and never called: an entity's own buffers are a ``Crowd``'s. Does nothing, as it did."""
        warn_deprecated("Entity.commit_buffers()", "engine.Crowd for members kept in arrays of its own")

    def abort_buffers(self) -> None:
        """Deprecated, and never called: an entity's own buffers are a ``Crowd``'s. Does nothing, as it did."""
        warn_deprecated("Entity.abort_buffers()", "engine.Crowd for members kept in arrays of its own")

    commit_buffers.deprecated_alias = True  # type: ignore[attr-defined]
    abort_buffers.deprecated_alias = True  # type: ignore[attr-defined]


_OLD_HOOKS = ("commit_buffers", "abort_buffers")


_ATTRIBUTE_HOOKS = ("__getattribute__", "__getattr__", "__setattr__", "__delattr__")
# What the buffers keep on every entity besides x, y and angle (which ``register`` guards).
_RESERVED = frozenset(SLOT_NAMES) - {"x", "y", "angle", "__dict__", "__weakref__"}


def _refuse_attribute_hooks(cls: type) -> None:
    """Refuse what would make the two paths of the double buffer read different values.

    Every write to an entity goes through the Double Buffer's write barrier (the base type's
    ``tp_setattro`` in the compiled core, ``__setattr__`` on the pure path), and the core reads
    the buffers' slots directly: an attribute hook would bypass the barrier, and a property
    over one of the buffers' own attributes would be seen by one path and not the other.
    """
    for name in _ATTRIBUTE_HOOKS:
        if name in vars(cls):
            raise TypeError(
                f"{cls.__name__} overrides {name}: the double buffer reads and writes an entity's "
                f"attributes directly, so an Entity subclass may not override {', '.join(_ATTRIBUTE_HOOKS)}; "
                "use a method or a property with a name of its own")
    for name in sorted(_RESERVED & set(vars(cls))):
        raise TypeError(f"{cls.__name__}.{name} replaces the engine's own attribute {name!r}, which the double "
                        "buffer keeps on every entity; choose another name")


def _no_world() -> None:
    return None


def entities_of_host(world: Host) -> Sequence[Entity]:
    """A world's live entities, in update order, as the entities they are: ``Host`` (the one protocol of a world,
    in ``engine.buffering``, below this module) can only call them ``BufferSlots``, ``Entity``'s base class."""
    return cast("Sequence[Entity]", world.entities)


def attach(entity: Entity, world: object, state: object) -> None:
    """Make ``world`` the world ``entity.world`` names, and ``state`` its world's ``TickState`` (the
    write barrier's: ``engine.buffering.slots``): the world's spawner calls this on spawn.

    The world is held weakly (see ``Entity.world``).
    """
    entity._world = weakref.ref(world)
    entity._wstate = state


def detach(entity: Entity) -> None:
    """Make ``entity.world`` ``None`` again: a spawn its failed tick took back never happened."""
    entity._world = _no_world
    entity._wstate = None


Entity._layout = register(Entity, ())
