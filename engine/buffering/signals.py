"""Signals in the Double Buffer: raised during one tick, combined in a canonical order, seen the next.

A signal (``hit = signal()``) or a contribution to a valued signal (``damage.send(5)``)
goes into the *next* buffer when it is raised, with its sender. While the tick can still
be abandoned, the world has this tick's contributions combined (``combine_signals``), in
their senders' spawn order, so a float sum is the same bits in every update order; after
the tick ``swap_signals`` makes them what their receivers see during the next tick, and
clears what they saw during this one. ``SignalBuffers`` is that half of ``PureBuffers``.

The next buffer is four parallel lists (receiver, name, sender id, value), not a tuple per
contribution: raising a signal makes nothing the cyclic collector must track (a churning
world raises thousands a tick, and every tracked object made counts towards a collection).
Contributions are raised in update order, which is spawn order unless the order was
shuffled: then they are in the canonical order already, and nothing is sorted. With the
compiled core a send appends in C (``_core.SignalSink``, made again whenever the lists are
replaced: ``_new_pending``) and the contributions are grouped in C (``_core.group_signals``,
the loop of ``_grouped``).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice
from operator import le
from typing import Any

from engine.buffering.access import NO_SIGNALS
from engine.buffering.fields import layout_of
from engine.buffering.slots import BufferSlots, _set
from engine.errors import EntityUpdateError

__all__ = ["SignalBuffers"]

Pending = tuple[BufferSlots, str, int, Any]
"""One contribution as a checkpoint keeps it: (receiver, signal's name, sender's id or -1, value)."""


class SignalBuffers:
    """The signal half of a world's Double Buffer (``PureBuffers`` runs the rest of the tick)."""

    @property
    def sender(self) -> BufferSlots | None:
        """The entity whose ``update()`` is running, or ``None``: signals record their sender."""
        raise NotImplementedError  # the buffers' (PureBuffers.sender)

    def __init__(self) -> None:
        self._to: list[BufferSlots] = []
        self._names: list[str] = []
        self._from: list[int] = []
        self._values: list[Any] = []
        self._pending_mark = 0
        self._combined_early = False  # this tick's were combined before the commit (PureBuffers._combine_early)
        self._signalled: list[BufferSlots] = []
        self._combined_signals: list[tuple[BufferSlots, dict[str, Any]]] = []
        # The contributions the last swap delivered, with their senders: kept (references, no copy) only so an
        # inspector can say who sent what an entity sees now (``senders_of``).
        self._delivered: tuple[list[BufferSlots], list[str], list[int], list[Any]] = ([], [], [], [])

    def raise_signal(self, target: BufferSlots, name: str, value: Any) -> None:
        """Put a signal (or one contribution to a valued signal) into the next buffer."""
        sender = self.sender
        self._to.append(target)
        self._names.append(name)
        self._from.append(-1 if sender is None or sender.id is None else sender.id)
        self._values.append(value)

    def _new_pending(self) -> None:
        """The four lists of the next buffer were replaced: what sends into them must append to the new ones.
        (The pure path's ``raise_signal`` reads them from here at each send; the compiled path's sink holds them.)"""

    def _canonical(self) -> range | list[int]:
        """The indices of the pending contributions in the canonical order: by sender id, each sender's in
        the order it sent them (a stable order). Already so, in the common case: then no sort."""
        senders = self._from
        if all(map(le, senders, islice(senders, 1, None))):
            return range(len(senders))
        return sorted(range(len(senders)), key=senders.__getitem__)

    def _grouped(self, ranked: range | list[int]) -> dict[BufferSlots, dict[str, list[Any]]]:
        """The contributions at ``ranked``'s indices, of receivers still alive: receiver -> name -> values, in
        that order (the compiled path's ``CompiledBuffers._grouped`` is this loop in C)."""
        to, names, values = self._to, self._names, self._values
        received: dict[BufferSlots, dict[str, list[Any]]] = {}
        for index in ranked:
            target = to[index]
            if not target.alive:
                continue
            signals = received.get(target)
            if signals is None:
                signals = received[target] = {}
            name = names[index]
            arrived = signals.get(name)
            if arrived is None:
                signals[name] = [values[index]]
            else:
                arrived.append(values[index])
        return received

    def combine_signals(self, tick: int) -> None:
        """Combine this tick's valued signals, before anything is committed for good.

        A combine function is the game's code (``signal(sum)`` given a string raises), so
        it runs while the tick can still be abandoned: called by the world inside the
        tick's guarded part, it raises ``EntityUpdateError`` naming the receiver, the
        signal and the tick, and ``abort`` then drops what it prepared. ``finish`` swaps
        in what it prepared and calls no game code for signals. With no system after the Update
        Method system the buffers combine them before their commit (``PureBuffers._combine_early``),
        and the world's call then has nothing left to do.
        """
        to = self._to
        if not to or self._combined_early:  # nothing to combine, or combined before the commit already
            return
        self._combined_signals = []
        received = self._grouped(self._canonical())
        for target, signals in received.items():
            declared = layout_of(target).signals
            combined = {}
            for name, contributions in signals.items():
                try:
                    combined[name] = _combined(declared[name].combine, contributions)
                except Exception as error:
                    message = (f"{type(target).__name__} (id {target.id})'s signal {name!r} could not combine what "
                               f"it received in tick {tick}: {type(error).__name__}: {error}; the tick was rolled back")
                    raise EntityUpdateError(target, tick, error, message) from error
            self._combined_signals.append((target, combined))

    def _swap_signals(self) -> None:
        put = _set  # past the pure path's barrier: no buffered field's slot
        for entity in self._signalled:
            put(entity, "_signals", NO_SIGNALS)
        self._signalled = []
        self._delivered = (self._to, self._names, self._from, self._values)
        self._to, self._names, self._from, self._values = [], [], [], []
        self._new_pending()
        for target, combined in self._combined_signals:
            put(target, "_signals", combined)
            self._signalled.append(target)
        self._combined_signals = []

    def _drop_signals(self) -> None:
        """The tick failed: forget what it raised and what was combined of it."""
        mark = self._pending_mark
        del self._to[mark:], self._names[mark:], self._from[mark:], self._values[mark:]
        self._combined_signals = []

    def kept_signals(self) -> list[Pending]:
        """Between ticks, for a checkpoint: the signals raised outside a tick, which the next tick's swap delivers."""
        return list(zip(self._to, self._names, self._from, self._values))

    def put_back_signals(self, pending: list[Pending], entities: list[BufferSlots],
                         signalled: list[BufferSlots] | None = None) -> None:
        """A rollback: ``pending`` (from ``kept_signals``) waits again, and ``entities`` with committed signals
        are those the next swap clears (``signalled``, where the rollback has found them already)."""
        self._to = [each[0] for each in pending]
        self._names = [each[1] for each in pending]
        self._from = [each[2] for each in pending]
        self._values = [each[3] for each in pending]
        self._new_pending()
        self._combined_signals = []
        self._delivered = ([], [], [], [])  # who sent them is not kept by a checkpoint: unknown until the next tick
        self._signalled = [entity for entity in entities if entity._signals] if signalled is None else signalled

    def senders_of(self, entity: BufferSlots) -> dict[str, tuple[int, ...]] | None:
        """Who sent each signal ``entity`` sees now (raised in the last tick): name -> sender ids in canonical
        order (-1: raised outside any update, by a system or ``build``); ``None`` when that is not known (after a
        rollback or a load, before the next tick)."""
        to, names, senders, _values = self._delivered
        if not to and entity._signals:
            return None
        found: dict[str, list[int]] = {}
        for index in sorted(range(len(to)), key=senders.__getitem__):
            if to[index] is entity:
                found.setdefault(names[index], []).append(senders[index])
        return {name: tuple(ids) for name, ids in found.items()}

    def committed_signals(self, entity: BufferSlots, signals: dict[str, Any]) -> None:
        """Set an entity's committed signals (a loaded save)."""
        entity._signals = dict(signals) or NO_SIGNALS
        if signals:
            self._signalled.append(entity)


def _combined(combine: Callable[[tuple[Any, ...]], Any] | None, values: list[Any]) -> Any:
    return True if combine is None else combine(tuple(values))
