"""Paths: a line of points measured along its length, and entities that walk one.

``Path(points, closed=False)`` is a value: its ``length``, the point ``point_at(distance)``
along it and the heading ``angle_at(distance)`` there. ``Path.from_object`` makes one of a
Tiled polyline or polygon (``TileMap.objects``), in world coordinates: a tower defense's
route is drawn in Tiled, not typed in as numbers.

``Follower`` is an entity that walks a path at a speed (pixels per tick), one step at
the start of each of its updates (``Advancing``): ``self.follow(route, speed=1.5)``. Where
it is along the path is its own buffered state (the field ``route``), so a walk is saved,
loaded, rolled back and replayed like any move, and other entities read how far it got
(``path_distance``) as committed, in any update order: "shoot the enemy furthest along"
needs nothing more.

Distances and headings use only IEEE operations (square roots and ``engine.portable``'s
arctangent), so a walk gives the same bits on every machine.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable
from itertools import pairwise
from typing import Any

from engine.advancing import Advancing
from engine.entity import buffered
from engine.messages import shown
from engine.portable import DEGREES, atan2

__all__ = ["Follower", "Path"]

MAX_POINTS = 100_000
"""The most points one path may have."""


def _point(value: Any, index: int) -> tuple[float, float]:
    """``value`` as an ``(x, y)`` of finite floats, or ``ValueError`` naming point ``index``."""
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(
            isinstance(item, (int, float)) and not isinstance(item, bool) and math.isfinite(item) for item in value):
        return float(value[0]), float(value[1])
    raise ValueError(f"Path point {index} must be (x, y), two finite numbers, got {shown(value)}")


class Path:
    """A polyline through ``points`` (``(x, y)`` pairs, at least two), or a polygon with ``closed=True``.

    A closed path goes on from its last point back to its first (give the first point
    once: a closing point equal to the first adds a segment of length 0, harmless).
    Distances are measured along the segments from the first point. Immutable: a value
    to keep in a module, pass around and compare.
    """

    __slots__ = ("_angles", "_ends", "closed", "length", "points")

    points: tuple[tuple[float, float], ...]
    closed: bool
    length: float
    _ends: tuple[float, ...]
    _angles: tuple[float, ...]

    def __init__(self, points: Iterable[tuple[float, float]], closed: bool = False) -> None:
        if isinstance(points, (str, bytes)) or not isinstance(points, Iterable):
            raise TypeError(f"Path takes a sequence of (x, y) points, got {shown(points)}")
        kept = []
        for index, value in enumerate(points):
            if index >= MAX_POINTS:
                raise ValueError(f"Path has more than {MAX_POINTS:,} points")
            kept.append(_point(value, index))
        if len(kept) < 2:
            raise ValueError(f"Path needs at least two points, got {len(kept)}")
        if not isinstance(closed, bool):
            raise TypeError(f"Path closed must be True or False, got {shown(closed)}")
        corners = [*kept, kept[0]] if closed else kept
        ends = [0.0]
        angles = []
        for (x0, y0), (x1, y1) in pairwise(corners):
            dx, dy = x1 - x0, y1 - y0
            ends.append(ends[-1] + math.sqrt(dx * dx + dy * dy))
            angles.append(atan2(dy, dx) * DEGREES if dx or dy else None)
        if not math.isfinite(ends[-1]):
            raise ValueError("Path is too long to measure (its length overflows a float)")
        # A segment of length 0 has no heading of its own: it takes the one before it (or after).
        last = next((angle for angle in angles if angle is not None), 0.0)
        for index, angle in enumerate(angles):
            last = angles[index] = last if angle is None else angle
        object.__setattr__(self, "points", tuple(kept))
        object.__setattr__(self, "closed", closed)
        object.__setattr__(self, "length", ends[-1])
        """The length along every segment (a closed path's included), in world units."""
        object.__setattr__(self, "_ends", tuple(ends))
        object.__setattr__(self, "_angles", tuple(angles))

    @classmethod
    def from_object(cls, map_object: Any, closed: bool | None = None) -> Path:
        """The path of a Tiled polyline or polygon: ``Path.from_object(level.object_named("route"))``.

        Reads the object's ``points`` (world coordinates, y up, a polygon's first point
        not repeated). A polygon makes a closed path, a polyline an open one; ``closed``
        overrides that. An object with no points (a rectangle, a point) is refused, naming it.
        """
        points = getattr(map_object, "points", None)
        name = getattr(map_object, "name", None)
        label = f"map object {name!r}" if name else f"map object {shown(map_object)}"
        if not points:
            raise ValueError(f"Path.from_object: {label} has no points: a path is a Tiled polyline or polygon")
        if closed is None:
            closed = bool(getattr(map_object, "closed", False)) or getattr(map_object, "shape", None) == "polygon"
        try:
            return cls(points, closed)
        except (TypeError, ValueError) as error:
            raise ValueError(f"Path.from_object: {label}: {error}") from None

    def _segment(self, distance: float) -> tuple[int, float]:
        """The segment ``distance`` falls on and the distance into it (clamped, or wrapped when closed)."""
        if not math.isfinite(distance):
            raise ValueError(f"Path distance must be a finite number, got {shown(distance)}")
        length = self.length
        if self.closed and length > 0.0:
            distance %= length
        else:
            distance = min(max(distance, 0.0), length)
        ends = self._ends
        index = min(bisect_right(ends, distance) - 1, len(ends) - 2)
        return index, distance - ends[index]

    def point_at(self, distance: float) -> tuple[float, float]:
        """The point ``distance`` along the path from its first point.

        An open path holds its ends (below 0: the first point; past ``length``: the last);
        a closed one goes round (``distance`` modulo ``length``).
        """
        index, into = self._segment(distance)
        return self._point(index, into)

    def _point(self, index: int, into: float) -> tuple[float, float]:
        """The point ``into`` along segment ``index``."""
        points = self.points
        x0, y0 = points[index]
        x1, y1 = points[(index + 1) % len(points)]
        ends = self._ends
        span = ends[index + 1] - ends[index]
        if span == 0.0:
            return x0, y0
        share = into / span
        return x0 + (x1 - x0) * share, y0 + (y1 - y0) * share

    def _at(self, distance: float) -> tuple[float, float, float]:
        """``point_at`` and ``angle_at`` of one ``distance`` (finite, and within the path: a walker's), the segment
        found once: what a ``Follower`` takes each step."""
        if not math.isfinite(distance):
            self._segment(distance)  # refused there, by name
        ends = self._ends
        index = bisect_right(ends, distance) - 1
        last = len(ends) - 2
        if index > last:
            index = last
        points = self.points
        x0, y0 = points[index]
        x1, y1 = points[(index + 1) % len(points)]
        span = ends[index + 1] - ends[index]
        if span == 0.0:
            return x0, y0, self._angles[index]
        share = (distance - ends[index]) / span  # _point's arithmetic, written out
        return x0 + (x1 - x0) * share, y0 + (y1 - y0) * share, self._angles[index]

    def angle_at(self, distance: float) -> float:
        """The heading at ``distance``, in degrees counter-clockwise from +x (an entity's ``angle``), in (-180, 180].

        At a corner, the heading of the segment that leaves it (at an open path's end,
        of the last segment).
        """
        return self._angles[self._segment(distance)[0]]

    def reversed(self) -> Path:
        """The same path walked the other way (a closed one from its first point, backwards)."""
        points = self.points[::-1]
        return Path(points[-1:] + points[:-1] if self.closed else points, self.closed)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Path is immutable: make a new one instead of setting {name!r}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Path) and (self.points, self.closed) == (other.points, other.closed)

    def __hash__(self) -> int:
        return hash((self.points, self.closed))

    def __repr__(self) -> str:
        shape = "closed, " if self.closed else ""
        return f"<Path {len(self.points)} points, {shape}length {self.length:g}>"


# What the ``route`` field holds while walking: the path's points and closedness (the path
# is rebuilt from them, and cached), how far along, the speed, and the walk's options.
_POINTS, _CLOSED, _DISTANCE, _SPEED, _LOOP, _TURN = range(6)


class Follower(Advancing):
    """An entity that walks a ``Path``: ``self.follow(route, speed=1.5)``, and it moves by itself.

    Each update starts with one step of ``speed`` world units along the path (before the
    code of ``update`` runs, which reads the new place and may stop or change the walk):
    ``x`` and ``y`` are set to the point there, and with ``turn=True`` ``angle`` to the
    path's heading. At the end of an open path it stops (``arrived`` is then true); with
    ``loop=True`` it starts again from the first point (a closed path is walked round
    and round). A negative speed walks backwards.

    The walk is the buffered field ``route``: saved, rolled back and read by others as
    committed, like ``x``. Only the entity itself starts or stops its walk during a tick.
    """

    route: tuple[Any, ...] = buffered(())
    """The walk in progress (``()`` when none): the path's points, whether it is closed, the
    distance along it, the speed, ``loop`` and ``turn`` (state: see the class docstring)."""

    def follow(self, path: Path, speed: float, *, start: float = 0.0, loop: bool = False, turn: bool = False) -> None:
        """Walk ``path`` from ``start`` (a distance along it) at ``speed`` units per tick.

        Puts the entity at the point ``start`` along the path at once (and, with
        ``turn``, heading along it); the first step is taken in its next update. To
        change speed mid-walk, follow again from where it is:
        ``self.follow(self.path, 0.5, start=self.path_distance)``.
        """
        if not isinstance(path, Path):
            raise TypeError(f"{type(self).__name__}.follow takes a Path, got {shown(path)}")
        for name, value in (("speed", speed), ("start", start)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"{type(self).__name__}.follow: {name} must be a finite number, got {shown(value)}")
        if not isinstance(loop, bool) or not isinstance(turn, bool):
            raise TypeError(f"{type(self).__name__}.follow: loop and turn are True or False, "
                            f"got loop={shown(loop)}, turn={shown(turn)}")
        self._path = path
        distance = self._along(path, float(start), loop)
        self.route = (path.points, path.closed, distance, float(speed), loop, turn)
        self._place(path, distance, turn)

    def stop_following(self) -> None:
        """Stop walking, where it is."""
        self.route = ()

    @property
    def path(self) -> Path | None:
        """The path being walked (``None`` when not walking)."""
        route = self.route
        if not route:
            return None
        return self._path_of(route)

    def _path_of(self, route: tuple[Any, ...]) -> Path:
        """The ``Path`` of a walk ``route`` (not ``()``), kept while the route holds the points it was made from."""
        cached: Path | None = getattr(self, "_path", None)
        if cached is not None and cached.points is route[_POINTS] and cached.closed is route[_CLOSED]:
            return cached  # the usual step: the very points it was made from
        # The route holds the path's points (a save holds data): the Path is rebuilt from
        # them when they are not the ones it was made from (after a load, say).
        if cached is None or cached.closed != route[_CLOSED] or (
                cached.points is not route[_POINTS] and cached.points != route[_POINTS]):
            cached = self._path = Path(route[_POINTS], route[_CLOSED])
        return cached

    @property
    def path_distance(self) -> float:
        """How far along the path it is (0.0 when not walking)."""
        route = self.route
        return float(route[_DISTANCE]) if route else 0.0

    @property
    def arrived(self) -> bool:
        """Whether it walked to the end of an open path (or back to the start, walking backwards) and stopped."""
        route = self.route
        if not route or route[_LOOP]:
            return False
        if route[_SPEED] < 0:
            return bool(route[_DISTANCE] <= 0.0)
        cached: Path | None = getattr(self, "_path", None)
        path = (cached if cached is not None and cached.points is route[_POINTS] and cached.closed is route[_CLOSED]
                else self._path_of(route))
        return bool(route[_DISTANCE] >= path.length)

    def on_load(self, world: Any) -> None:
        """After a load: refuse a walk a save could hold but no ``follow`` makes (a save is data from elsewhere)."""
        route = self.route
        where = f"{type(self).__name__} (id {self.id}).route"
        if route == ():
            super().on_load(world)
            return
        if not (isinstance(route, tuple) and len(route) == 6):
            raise ValueError(f"{where}: {shown(route)} is not a walk (6 values)")
        points, closed, distance, speed, loop, turn = route
        if not all(isinstance(flag, bool) for flag in (closed, loop, turn)) or not all(
                isinstance(number, float) and math.isfinite(number) for number in (distance, speed)):
            raise ValueError(f"{where}: closed {shown(closed)}, distance {shown(distance)}, speed {shown(speed)}, "
                             f"loop {shown(loop)}, turn {shown(turn)} are not a walk's")
        try:
            self._path = Path(points, closed)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{where}: {error}") from None
        super().on_load(world)

    def _along(self, path: Path, distance: float, loop: bool) -> float:
        length = path.length
        if loop and length > 0.0:
            return distance % length
        return min(max(distance, 0.0), length)

    def _place(self, path: Path, distance: float, turn: bool) -> None:
        self.x, self.y = path.point_at(distance)
        if turn:
            self.angle = path.angle_at(distance)

    def _advance(self, world: Any) -> None:
        # The hot path of a tower defense (hundreds of walkers a tick): the path found once, the
        # segment once, and exactly the arithmetic of follow(), _along() and point_at().
        route = self.route
        if route and route[_SPEED]:
            points, closed, distance, speed, loop, turn = route
            path = self._path_of(route)
            length = path.length
            moved = distance + speed
            if loop and length > 0.0:
                moved %= length
            elif moved < 0.0:  # min(max(moved, 0.0), length), as _along has it, without two calls
                moved = 0.0
            elif moved > length:
                moved = length
            if moved != distance:
                if loop and not closed and (moved < distance) == (speed > 0):
                    self.snap()  # an open loop jumps back to its first point: no streak across the screen
                self.route = (points, closed, moved, speed, loop, turn)
                if closed and length > 0.0:
                    moved %= length  # as point_at takes it (once more: a no-op but for the rounding of %)
                x, y, angle = path._at(moved)
                self.x, self.y = x, y
                if turn:
                    self.angle = angle
        super()._advance(world)
