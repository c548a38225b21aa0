"""Crowd: many entities of one kind as arrays, for when there are too many for objects.

The Update Method pays a Python call per entity per tick, which is fine for hundreds or
thousands. For a hundred thousand particles, a ``Crowd`` keeps its members as columns of
numpy arrays (a structure of arrays) and updates them all at once with vectorized code.
It lives in the same ``World`` and follows the same rules:

* A crowd is an ``Entity``: its ``update(world)`` runs once per tick at its place in the
  spawn order, as one step of the Update Method system.
* Its state is double-buffered. Each field has three preallocated arrays: *previous*,
  *current* (committed, what everyone reads) and *next* (what this tick writes).
  ``update`` reads ``current(name)`` and writes ``next(name)``; after the tick the world
  rotates the three by reference (previous <- current <- next), copying nothing. A field
  not written during a tick does not rotate, so it costs nothing. If the tick fails,
  ``next`` is simply not swapped in.
* Members spawned or despawned during a tick join or leave after it; despawned members
  are compacted away with one vectorized pass. Members spawned by several entities in one
  tick join in their spawners' spawn order (each spawner's in its own order), as entities'
  spawns get their ids: the rows never depend on the update order.
* ``draw_positions(alpha, out)`` interpolates (or extrapolates) every member's position
  in one vectorized expression, written straight into the renderer's vertex buffer.
* Members ask about one another from committed state, in one vectorized call each:
  ``near_pairs(radius)`` and ``overlapping_pairs()`` (pairs of member indices, sorted)
  and ``members_near(x, y, radius)``, for boids and many-to-many games
  (``engine.spatial.pairs_near`` is the grid that answers).

``next(name)`` hands out the buffer to be written *completely* (``np.add(current_x,
velocity, out=next_x)``); for a partial write use ``next(name, keep=True)``, which starts
as a copy of the current values.
"""

from __future__ import annotations

import base64
import hashlib
import math
from operator import itemgetter
from typing import Any, ClassVar

from engine.errors import numpy_missing

try:
    import numpy as np
    import numpy.typing as npt
except ImportError as missing:
    raise numpy_missing("Crowd", missing) from missing

from engine.buffering.own import OwnBuffers
from engine.deprecation import warn_deprecated
from engine.entity import Entity
from engine.look import Look
from engine.spatial import member_box, pairs_near, pairs_overlapping
from engine.world.access import updating_entity

__all__ = ["Crowd"]

Array = np.ndarray[Any, Any]
_SENDER = itemgetter(0)


class Crowd(Entity, OwnBuffers):
    """A fixed-capacity crowd whose members are rows of float32 numpy arrays.

    Subclasses declare ``fields`` (name -> columns per member; ``position`` with 2
    columns is required, for drawing) and override ``update(world)`` with vectorized
    code. ``look`` is how each member is drawn. The engine drives it through the
    ``OwnBuffers`` protocol (``engine.buffering.own``): commit, abort, save, restore, draw.
    """

    fields: ClassVar[dict[str, int]] = {"position": 2, "velocity": 2}
    """Per-member state: field name -> number of float32 columns."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        clash = set(cls.fields) & set(cls._layout.names)
        if clash:
            raise TypeError(f"{cls.__name__}: member fields and buffered fields share names {sorted(clash)}")

    def __init__(self, capacity: int, look: Look | None = None) -> None:
        super().__init__()
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"Crowd capacity must be a positive int, got {capacity!r}")
        if self.fields.get("position") != 2:
            raise TypeError(f"{type(self).__name__}.fields needs 'position': 2 (for drawing), got {self.fields!r}")
        if look is not None:
            self.look = look
        self.capacity = capacity
        self.count = 0
        """Live members (committed); rows ``[0, count)`` of every array."""
        self._arrays: dict[str, list[Array]] = {
            name: [np.zeros((capacity, columns), dtype=np.float32) for _ in range(3)]
            for name, columns in self.fields.items()
        }  # [previous, current, next] per field
        self._written: set[str] = set()
        self._rotated_at: dict[str, int] = {}
        self._spawns: list[tuple[int, dict[str, Array]]] = []  # (the spawner's id, the batch), in call order
        self._waiting = 0  # the members of _spawns: counted as they come, not summed at each spawn (towers' 60 a tick)
        self._despawn_mask: Array | None = None

    # -- reading and writing ------------------------------------------------------------

    def current(self, name: str) -> Array:
        """The committed values of field ``name`` (rows ``[0, count)``): what everyone reads."""
        view = self._arrays[name][1][: self.count]
        view.flags.writeable = False
        return view

    def previous(self, name: str) -> Any:
        """Committed the tick before: a member field's array, or (``x``, ``y``, ...) a buffered value.

        A member field that did not change in the last tick has previous == current.
        """
        if name not in self.fields:
            return super().previous(name)
        world = self.world
        if world is not None and self._rotated_at.get(name) == world.tick_count:
            return self._arrays[name][0][: self.count]
        return self.current(name)

    def next(self, name: str, keep: bool = False) -> Array:
        """The buffer this tick writes for field ``name``; swapped in after the tick.

        Write every row of it, or pass ``keep=True`` to start from a copy of the current
        values (for a partial write).
        """
        buffers = self._arrays[name]
        target = buffers[2][: self.count]
        if keep:
            np.copyto(target, buffers[1][: self.count])
        self._written.add(name)
        return target

    # -- members ------------------------------------------------------------------------

    def spawn_members(self, **values: Any) -> None:
        """Add members: one array (rows = members) per field; missing fields start at zero.

        During a tick they join after it; outside a tick at once. Raises ``ValueError``
        if they would not fit in ``capacity``.
        """
        rows = {len(np.atleast_2d(value)) for value in values.values()}
        if len(rows) != 1:
            raise ValueError(f"spawn_members needs the same number of rows for every field, got {sorted(rows)}")
        unknown = set(values) - set(self.fields)
        if unknown:
            raise ValueError(f"{type(self).__name__} has no fields {sorted(unknown)}; "
                             f"its fields are {sorted(self.fields)}")
        batch = {name: np.asarray(value, dtype=np.float32).reshape(-1, self.fields[name])
                 for name, value in values.items()}
        pending, added = self._waiting, rows.pop()
        if self.count + pending + added > self.capacity:
            raise ValueError(f"{type(self).__name__} is full: capacity {self.capacity}, {self.count} members "
                             f"and {pending} waiting to join")
        world = self.world
        if world is not None and world.ticking:
            sender = updating_entity(world)
            sender_id = getattr(sender, "id", None)
            self._spawns.append((-1 if sender_id is None else sender_id, batch))
            self._waiting = pending + added
        else:
            self._join(batch)

    def despawn_members(self, which: npt.ArrayLike) -> None:
        """Remove members by index array or boolean mask (over ``[0, count)``; a list will do): after the tick,
        or at once."""
        mask = np.zeros(self.count, dtype=bool)
        mask[np.asarray(which)] = True
        world = self.world
        if world is not None and world.ticking:
            self._despawn_mask = mask if self._despawn_mask is None else (self._despawn_mask | mask)
        else:
            self._leave(mask)

    def _join(self, batch: dict[str, Array]) -> None:
        rows = len(next(iter(batch.values())))
        start, end = self.count, self.count + rows
        for name, buffers in self._arrays.items():
            values = batch.get(name)
            for buffer in buffers:  # a new member starts with previous = current = next
                buffer[start:end] = 0.0 if values is None else values
        self.count = end

    def _leave(self, mask: Array) -> None:
        # Rows by index, once: numpy's take is many times faster than a boolean mask on
        # (rows, 2) arrays, and particles leave every tick from every field's three buffers.
        rows = np.flatnonzero(~mask)
        kept = len(rows)
        count = self.count
        for buffers in self._arrays.values():
            for buffer in buffers:
                buffer[:kept] = buffer[:count].take(rows, axis=0)  # the method: numpy's np.take wrapper costs more
        self.count = kept

    # -- the world's swap -------------------------------------------------------------------

    def _commit_own(self, tick: int) -> None:
        """After a tick: rotate written fields (by reference), then apply member changes."""
        for name in self._written:
            previous, current, upcoming = self._arrays[name]
            self._arrays[name] = [current, upcoming, previous]
            self._rotated_at[name] = tick
        self._written.clear()
        if self._despawn_mask is not None:
            self._leave(self._despawn_mask)
            self._despawn_mask = None
        # In the canonical order, as entities spawned in a tick get their ids: their spawners' ids
        # (a stable sort keeps each spawner's own order), so the rows never depend on update order.
        for _sender, batch in sorted(self._spawns, key=_SENDER):
            self._join(batch)
        self._spawns.clear()
        self._waiting = 0

    def _abort_own(self) -> None:
        """The tick failed: forget what it wrote and what it asked to join or leave."""
        self._written.clear()
        self._spawns.clear()
        self._waiting = 0
        self._despawn_mask = None

    # -- drawing and state -------------------------------------------------------------------

    def draw_positions(self, alpha: float, out: Array, extrapolate: bool = False) -> int:
        """Write every member's drawn position into ``out`` (rows ``[0, count)``); return count.

        ``previous + (current - previous) * alpha``, or ``current + (current - previous) *
        alpha`` when extrapolating: one vectorized pass, no Python per member.
        """
        count = self.count
        current = self._arrays["position"][1][:count]
        previous: Array = self.previous("position")
        target = out[:count]
        np.subtract(current, previous, out=target)
        target *= alpha
        target += current if extrapolate else previous
        return count

    def _member_positions(self) -> Array:
        """The committed positions (rows ``[0, count)``), for ``world.overlapping_members``."""
        return self.current("position")

    # -- queries among the crowd's own members ------------------------------------------------

    def near_pairs(self, radius: float, *, both_ways: bool = False) -> tuple[Array, Array]:
        """The pairs of members within ``radius`` of each other: ``(i, j)``, two int64 arrays of member indices.

        What boids and other many-to-many games ask of their own members, without a grid of
        their own: each pair once with ``i < j``, sorted by ``i`` then ``j``; with
        ``both_ways=True`` every pair twice, as ``(i, j)`` and ``(j, i)``, still sorted by ``i``,
        so each member's neighbours are a run of ``j`` and per-member sums are one call
        (``np.bincount(i, weights=x[j], minlength=self.count)``). Within means
        ``dx * dx + dy * dy <= radius * radius`` in float64 (from the float32 positions); a
        member is never its own neighbour, and one at NaN or infinity is nobody's.

        Read from committed state (``current("position")``, members spawned this tick not yet
        among them), like every collision query: the same answer in every update order, and
        sorted, so even the arrays are. A grid sorted with numpy, about as costly as the pairs it
        finds, never a loop over every pair of members.
        """
        if isinstance(radius, bool) or not isinstance(radius, (int, float)) or not radius >= 0:
            raise ValueError(f"{type(self).__name__}.near_pairs: radius must be a number >= 0, got {radius!r}")
        if not isinstance(both_ways, bool):
            raise TypeError(f"{type(self).__name__}.near_pairs: both_ways must be True or False, got {both_ways!r}")
        return pairs_near(self.current("position"), float(radius), both_ways)

    def overlapping_pairs(self, *, both_ways: bool = False) -> tuple[Array, Array]:
        """The pairs of members whose boxes overlap: ``(i, j)``, two int64 arrays of member indices.

        Each member's box is the one ``world.overlapping_members`` gives it (the crowd's
        ``hitbox``, else its look's size, centred on the member); boxes that only touch do not
        overlap, and a crowd whose look is in screen space has no pairs. Sorted and shaped as
        ``near_pairs``'s (``i < j``, or both ways), from committed state: the same in every
        update order. For bodies that push each other apart or bump: ``i, j =
        self.overlapping_pairs()``, then one vectorised response over the pairs.
        """
        if not isinstance(both_ways, bool):
            raise TypeError(f"{type(self).__name__}.overlapping_pairs: both_ways must be True or False, "
                            f"got {both_ways!r}")
        box = member_box(self)
        if box is None:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty.copy()
        return pairs_overlapping(self.current("position"), box[0], box[1], both_ways)

    def members_near(self, x: float, y: float, radius: float) -> Array:
        """The indices of the members within ``radius`` of (x, y), ascending, as an int64 array.

        One member's neighbours are ``self.members_near(*self.current("position")[k], r)``
        (itself among them); an entity asking about a crowd (a hawk among boids) asks the same.
        Within as in ``near_pairs`` (a member, or a point, at NaN or infinity is near nobody);
        from committed state, the same in every update order. One vectorised pass over the
        members: for every member's neighbours at once, ask ``near_pairs``.
        """
        for name, value in (("x", x), ("y", y), ("radius", radius)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{type(self).__name__}.members_near: {name} must be a number, got {value!r}")
        if not radius >= 0:
            raise ValueError(f"{type(self).__name__}.members_near: radius must be a number >= 0, got {radius!r}")
        x, y, radius = float(x), float(y), float(radius)
        if not (math.isfinite(x) and math.isfinite(y)):
            return np.zeros(0, dtype=np.int64)  # a point at NaN or infinity: near nobody, as such a member is
        positions = self.current("position").astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            dx, dy = positions[:, 0] - x, positions[:, 1] - y
            within = (dx * dx + dy * dy <= radius * radius) & np.isfinite(positions).all(axis=1)
        return np.flatnonzero(within).astype(np.int64)

    def draw_field(self, name: str, alpha: float, out: Array) -> int:
        """Write member field ``name`` interpolated ``alpha`` of the way into the last tick into ``out``; return count.

        ``previous + (current - previous) * alpha`` in one vectorized pass, as
        ``draw_positions`` does for positions: the renderer draws a crowd's ``scale`` and
        ``opacity`` fields (when it has them) with it.
        """
        count = self.count
        current = self._arrays[name][1][:count]
        previous: Array = self.previous(name)
        target = out[:count]
        np.subtract(current, previous, out=target)
        target *= alpha
        target += previous
        return count

    def buffered_state(self) -> dict[str, Any]:
        """The crowd's own buffered values plus a digest of each committed array.

        Digests keep ``world.snapshot()`` small (a hundred thousand floats are not JSON a
        person reads) while ``state_hash`` still changes if any member changes by a bit.
        """
        state = super().buffered_state()
        state["members"] = self.count
        for name, buffers in sorted(self._arrays.items()):
            state[f"{name}_sha256"] = hashlib.sha256(buffers[1][: self.count].tobytes()).hexdigest()
        return state

    def _saved_own(self) -> dict[str, Any]:
        """The capacity and committed members, for ``world.save``: each field's rows as base64 bytes."""
        return {"capacity": self.capacity, "count": self.count,
                "fields": {name: base64.b64encode(buffers[1][: self.count].tobytes()).decode()
                           for name, buffers in self._arrays.items()}}

    def _keep_own(self) -> Any:
        """Copies of the previous and committed rows of every field, the count and when each field last changed."""
        count = self.count
        fields = {name: (kept[0][:count].copy(), kept[1][:count].copy()) for name, kept in self._arrays.items()}
        return count, dict(self._rotated_at), fields

    def _put_back_own(self, kept: Any) -> None:
        """A rollback: the members as ``_keep_own`` found them (pending member changes are none between ticks)."""
        count, rotated_at, fields = kept
        for name, (previous, current) in fields.items():
            buffers = self._arrays[name]
            buffers[0][:count] = previous
            buffers[1][:count] = current
        self.count = count
        self._rotated_at = dict(rotated_at)
        self._abort_own()

    def _restore_own(self, data: dict[str, Any]) -> None:
        """Build a crowd made with ``__new__`` (by ``World.load``) from what ``_saved_own`` returned."""
        Crowd.__init__(self, data["capacity"])
        self._put_saved_rows(data)

    def _put_saved_rows(self, data: dict[str, Any]) -> None:
        """Write a save's members into both buffers of every field (one loop for the load and its 0.2 alias)."""
        count = int(data["count"])
        for name, encoded in data["fields"].items():
            values = np.frombuffer(base64.b64decode(encoded), dtype=np.float32).reshape(count, self.fields[name])
            for buffer in self._arrays[name]:
                buffer[:count] = values
        self.count = count

    # -- deprecated: 0.2's names of the crowd's own buffers, until 0.6 (docs/changelog.md) -------

    def commit_buffers(self, tick: int) -> None:
        """Deprecated: the engine commits a crowd itself after every tick. Commits it as after tick ``tick``."""
        warn_deprecated("Crowd.commit_buffers()", "nothing: the world commits its crowds after every tick")
        self._commit_own(tick)

    def abort_buffers(self) -> None:
        """Deprecated: the engine aborts a crowd's tick itself. Forgets what the tick wrote."""
        warn_deprecated("Crowd.abort_buffers()", "nothing: a failed tick aborts its crowds")
        self._abort_own()

    def arrays_for_save(self) -> dict[str, Any]:
        """Deprecated: ``world.save(path)`` saves a crowd. The committed members, as a save holds them."""
        warn_deprecated("Crowd.arrays_for_save()", "world.save(path)")
        return self._saved_own()

    def restore_arrays(self, data: dict[str, Any]) -> None:
        """Deprecated: ``World.load(path)`` restores a crowd. Puts back what ``arrays_for_save`` returned."""
        warn_deprecated("Crowd.restore_arrays()", "World.load(path)")
        self._put_saved_rows(data)

    commit_buffers.deprecated_alias = True  # type: ignore[attr-defined]
    abort_buffers.deprecated_alias = True  # type: ignore[attr-defined]
