"""Checkpoints: ``World.checkpoint()`` keeps a world's whole state in memory; ``World.rollback`` puts it back.

What rollback netcode re-simulates from, and what ``tickswap check --rollback N`` tests.
A checkpoint is taken between ticks (a tick has nothing pending then: no deferred spawn
or despawn, no raised signal), and keeps, exactly:

* the signals raised outside a tick (in ``build``), which the next tick delivers;
* every live entity, the same objects, in update order, with what its buffers hold
  (``engine.buffering.kept``: committed and previous values, signals, its ``random``) and
  a copy of the plain attributes its class lists in ``saved``;
* the members of every entity with buffers of its own (a ``Crowd``, through ``OwnBuffers``);
* the id counter, ``tick_count``, ``world.random``, the step's ``elapsed_ms``, every
  player's input queue and last tick's input, and the current music.

A rollback makes the world hold exactly that again: an entity despawned since comes back
(the same object, under its id), one spawned since leaves as if never spawned. What a
checkpoint cannot keep: plain attributes not listed in ``saved``, esper components other
than the entity itself (a save refuses them too), module-level variables, and anything
outside the world. A game whose outcome depends on them re-simulates differently, which
``tickswap check --rollback N`` finds. Sounds asked for by re-simulated ticks are asked
for again: a rollback does not take back what was heard.

The world's parts each keep their own share (the spawner its order and ids, the music
its track, the buffers an entity's slots); this module only gathers them.
"""

from __future__ import annotations

import random
import sys
import weakref
from collections.abc import Callable
from typing import Any

from engine.buffering import Host, PureBuffers
from engine.buffering.own import OwnBuffers, keep_own, put_back_own
from engine.buffering.slots import BufferSlots
from engine.input.events import TickInput
from engine.world.music import music_of
from engine.world.players import players_of
from engine.world.spawner import spawner_of

__all__ = ["Checkpoint", "roll_back", "take_checkpoint"]


class Checkpoint:
    """A world's state at the end of tick ``tick``, kept in memory by ``World.checkpoint()``.

    Opaque: only ``World.rollback`` reads it, and only the world that took it. Rolling
    back to it any number of times gives the same state each time.
    """

    __slots__ = ("_data", "_nbytes", "_world", "tick")

    def __init__(self, world: Host, tick: int, data: tuple[Any, ...]) -> None:
        self.tick = tick
        """The ``tick_count`` the world had when the checkpoint was taken."""
        self._world = weakref.ref(world)
        self._data = data
        self._nbytes: int | None = None

    def nbytes(self) -> int:
        """About how much memory the checkpoint holds of its own, in bytes (measured once, then remembered).

        What a ring of checkpoints is bounded by (``engine.studio``). An estimate: the
        containers and values it keeps, counted once each, with long lists measured on an
        even sample and scaled; the entities themselves are the world's, not counted
        (though a despawned one is kept alive by the checkpoint that holds it).
        """
        if self._nbytes is None:
            self._nbytes = _size_of(self._data, set())
        return self._nbytes

    def __repr__(self) -> str:
        return f"<Checkpoint tick={self.tick}>"


_SAMPLE = 64
"""A list longer than this is measured on this many evenly spaced items, scaled to its length."""


def _size_of(value: Any, seen: set[int]) -> int:
    """``Checkpoint.nbytes``'s walk: ``value`` and what it holds, each object once; entities, classes and functions
    (shared with the world, not kept by the checkpoint) count nothing."""
    if id(value) in seen:  # shared (a tick count every entity holds, a constant): held once
        return 0
    seen.add(id(value))
    kind = type(value)
    if kind in _PLAIN:
        return 0 if kind is int and -5 <= value <= 256 else sys.getsizeof(value)  # small ints are Python's own
    if isinstance(value, (type, BufferSlots)) or callable(value):
        return 0
    nbytes = getattr(value, "nbytes", None)  # a numpy array (a crowd's kept columns): its buffer
    if type(nbytes) is int:
        return nbytes + 112
    size = sys.getsizeof(value, 64)
    if isinstance(value, random.Random):
        return size + 2600  # its Mersenne Twister state: 624 words, and the object
    if isinstance(value, dict):
        pairs = list(value.items())
        return size + _sampled(pairs, lambda pair: _size_of(pair[0], seen) + _size_of(pair[1], seen))
    if isinstance(value, (list, tuple, set, frozenset)):
        return size + _sampled(list(value), lambda item: _size_of(item, seen))
    return size


_PLAIN = frozenset({int, float, str, bool, type(None), bytes})


def _sampled(items: list[Any], measure: Callable[[Any], int]) -> int:
    """The summed size of ``items``: measured whole if short, else on ``_SAMPLE`` evenly spaced ones, scaled."""
    if len(items) <= _SAMPLE:
        return sum(measure(item) for item in items)
    step = len(items) / _SAMPLE
    return sum(measure(items[int(index * step)]) for index in range(_SAMPLE)) * len(items) // _SAMPLE


def _copied(value: Any) -> Any:
    """A copy of a ``saved`` value deep enough that later changes don't reach it; entities stay themselves."""
    kind = type(value)
    if kind is list:
        return [_copied(item) for item in value]
    if kind is dict:
        return {key: _copied(item) for key, item in value.items()}
    if kind is set:
        return {_copied(item) for item in value}
    if kind is tuple:
        return tuple(_copied(item) for item in value)
    return value  # immutable (numbers, strings, frozensets of them) or an entity: kept by reference


def take_checkpoint(world: Host, buffers: PureBuffers) -> Checkpoint:
    """``World.checkpoint``: refused during a tick (see the module docstring for what is kept; ``buffers``: its own)."""
    if world.ticking:
        raise RuntimeError("World.checkpoint() is taken between ticks, not during tick "
                           f"{world.tick_count + 1}")
    order, live, last_id, token = spawner_of(world).kept()
    kept, kinds = buffers.keep_entities(live)
    # Per class, not per entity: a session checkpoints every tick, and most classes keep nothing more.
    more = {kind for kind in kinds if kind.saved or issubclass(kind, OwnBuffers)}
    extras = []  # (entity, saved, own) of the entities whose class keeps more than buffers
    for entity in live if more else ():
        kind = type(entity)
        if kind in more:
            has_own = issubclass(kind, OwnBuffers)
            extras.append((entity, {name: _copied(getattr(entity, name)) for name in kind.saved
                                    if hasattr(entity, name)},
                           keep_own(entity) if has_own else None))  # type: ignore[arg-type]
    entities = (live, kept, extras)
    data = (order, last_id, token, entities, world.random.getstate(), world.elapsed_ms, world.speed_factor,
            players_of(world).kept(), music_of(world).kept(), buffers.kept_signals())
    return Checkpoint(world, world.tick_count, data)


def roll_back(world: Host, checkpoint: Checkpoint, buffers: PureBuffers) -> TickInput:
    """``World.rollback``: the world holds exactly what it held when ``checkpoint`` was taken (``buffers``: its own);
    returns player 0's last input then, which is ``world.input`` again."""
    if not isinstance(checkpoint, Checkpoint):
        raise TypeError(f"World.rollback takes a Checkpoint from World.checkpoint(), got {checkpoint!r}")
    if checkpoint._world() is not world:
        raise ValueError(f"{checkpoint!r} was taken of another world: a world rolls back only to its own checkpoints")
    if world.ticking:
        raise RuntimeError(f"World.rollback() is called between ticks, not during tick {world.tick_count + 1}")
    order, last_id, token, entities, random_state, elapsed_ms, speed_factor, inputs, music, pending = checkpoint._data
    live, kept, extras = entities
    buffers.restore_classes(live, kept)  # first: it may refuse, and then nothing may have changed
    spawner_of(world).put_back(order, last_id, token)
    signalled = buffers.put_back_entities(live, kept)
    for entity, saved, own in extras:
        for name in type(entity).saved:
            if name in saved:
                setattr(entity, name, _copied(saved[name]))
            elif hasattr(entity, name):  # absent then: absent again, as the snapshot saw it
                delattr(entity, name)
        if own is not None:
            put_back_own(entity, own)
    buffers.put_back_signals(pending, live, signalled)
    world.tick_count = checkpoint.tick
    world.random.setstate(random_state)
    world.elapsed_ms, world.speed_factor = elapsed_ms, speed_factor
    last_input = players_of(world).put_back(inputs)
    music_of(world).put_back(music, checkpoint.tick)
    return last_input

