"""The prototype's semantics, checked on every design before anything is timed (run.py calls ``check_all``).

Each check fails loudly (``AssertionError`` naming the design) if a design gets the
Double Buffer wrong: an entity's own reads see its pending value and others the
committed one, in both update orders; a write to another entity is refused at its line,
the first time, and nothing of the tick remains; the commit makes previous values;
a checkpoint and a rollback give back the same state; fields of a class's own (numbers
and objects) are buffered too; and 300 ticks of the benchmark's patrollers end where
today's engine ends.
"""

from __future__ import annotations

from typing import Any

import proto

from engine.errors import BufferedWriteError
from engine.tools.bench.base import Patroller, patrol
from engine.world import World


def check_all(core: Any) -> list[str]:
    """Run every check on every design; return one line per design that passed them all."""
    passed = []
    for design in proto.DESIGNS:
        for check in (_own_and_others, _foreign_write, _previous_and_rollback, _own_fields, _same_as_engine):
            check(design, core)
        passed.append(design)
    _arena_floats_held_elsewhere(core)
    return passed


def _own_and_others(design: str, core: Any) -> None:
    base = proto.base_class(design, core)

    class Mover(base):  # type: ignore[misc, valid-type]
        def update(self, world: Any) -> None:
            self.x = self.x + 1.0
            self.seen_self = self.x
            self.seen_other = self.other.x

    for reverse in (False, True):
        world = proto.ColumnWorld(design, core)
        a, b = Mover(10.0), Mover(20.0)
        a.other, b.other = b, a
        for entity in ((b, a) if reverse else (a, b)):
            world.spawn(entity)
        world.tick()
        assert (a.seen_self, a.seen_other, b.seen_self, b.seen_other) == (11.0, 20.0, 21.0, 10.0), design
        assert (a.x, b.x) == (11.0, 21.0), design


def _foreign_write(design: str, core: Any) -> None:
    base = proto.base_class(design, core)

    class Pusher(base):  # type: ignore[misc, valid-type]
        def update(self, world: Any) -> None:
            self.x += 1.0
            if self.victim is not None:
                self.victim.y = 99.0  # the line the error must name

    world = proto.ColumnWorld(design, core)
    victim, pusher = Pusher(1.0, 2.0), Pusher(5.0, 6.0)
    victim.victim, pusher.victim = None, victim
    world.spawn(victim)
    world.spawn(pusher)
    try:
        world.tick()
    except BufferedWriteError as error:
        assert error.writer is pusher and error.field == "y", design
        assert error.where is not None and error.where.endswith(f":{_line_of('the line the error must name')}"), (
            design, error.where)
    else:
        raise AssertionError(f"{design}: a foreign write was not refused")
    assert (victim.x, victim.y, pusher.x, pusher.y) == (1.0, 2.0, 5.0, 6.0), design
    pusher.victim = None
    world.tick()
    assert (victim.x, pusher.x) == (2.0, 6.0), design


def _line_of(text: str) -> int:
    with open(__file__) as source:
        return next(number for number, line in enumerate(source, 1) if text in line and "_line_of" not in line)


def _previous_and_rollback(design: str, core: Any) -> None:
    base = proto.base_class(design, core)

    class Walker(base):  # type: ignore[misc, valid-type]
        def update(self, world: Any) -> None:
            self.x += 2.0
            self.angle = (self.angle + 90.0) % 360.0

    world = proto.ColumnWorld(design, core)
    walkers = [world.spawn(Walker(float(i), 1.0)) for i in range(100)]
    world.tick()
    kept = world.checkpoint()
    state = [(w.x, w.y, w.angle) for w in walkers]
    world.tick()
    xs, _, _ = world.columns(proto.CUR)
    pxs, _, _ = world.columns(proto.PREV)
    assert list(xs) == [w.x for w in walkers] == [i + 4.0 for i in range(100)], design
    assert list(pxs) == [i + 2.0 for i in range(100)], design
    world.rollback(kept)
    assert [(w.x, w.y, w.angle) for w in walkers] == state and world.tick_count == 1, design
    assert list(world.columns(proto.PREV)[0]) == [float(i) for i in range(100)], design
    world.tick()
    assert [w.x for w in walkers] == [i + 4.0 for i in range(100)], design


def _own_fields(design: str, core: Any) -> None:
    base = proto.base_class(design, core)

    class Fighter(base):  # type: ignore[misc, valid-type]
        hp = proto.buffered(10)
        name = proto.buffered("new")

        def update(self, world: Any) -> None:
            self.hp -= 1
            self.name = f"hit {world.tick_count}"
            self.saw = (self.hp, self.name, self.other.hp, self.other.name)

    world = proto.ColumnWorld(design, core)
    a, b = Fighter(), Fighter()
    a.other, b.other = b, a
    b.hp = 20
    world.spawn(a)
    world.spawn(b)
    world.tick()
    assert a.saw == (9.0, "hit 0", 20.0, "new") and b.saw == (19.0, "hit 0", 10.0, "new"), (design, a.saw, b.saw)
    kept = world.checkpoint()
    world.tick()
    assert (a.hp, a.name, b.hp) == (8.0, "hit 1", 18.0), design
    world.rollback(kept)
    assert (a.hp, a.name, b.hp, b.name) == (9.0, "hit 0", 19.0, "hit 0"), design


def _same_as_engine(design: str, core: Any) -> None:
    base = proto.base_class(design, core)

    class ColumnPatroller(base):  # type: ignore[misc, valid-type]
        def __init__(self, x: float = 0) -> None:
            super().__init__(x=x)
            self.patrolling_left = False

        update = patrol

    world = proto.ColumnWorld(design, core)
    patrollers = [world.spawn(ColumnPatroller(i % 100)) for i in range(1000)]
    with World() as engine_world:
        engine_patrollers = [engine_world.spawn(Patroller(i % 100)) for i in range(1000)]
        for _ in range(300):
            world.tick()
            engine_world.tick()
        assert [p.x for p in patrollers] == [float(p.x) for p in engine_patrollers], design


def _arena_floats_held_elsewhere(core: Any) -> None:
    """The arena design changes a float in place only where no one else holds it."""
    base = proto.base_class("arena", core)

    class Keeper(base):  # type: ignore[misc, valid-type]
        def update(self, world: Any) -> None:
            self.x += 1.0
            self.kept.append(self.other.x)  # another entity's committed x, held past the commit

    world = proto.ColumnWorld("arena", core)
    a, b = Keeper(0.0), Keeper(100.0)
    a.other, b.other, a.kept, b.kept = b, a, [], []
    world.spawn(a)
    world.spawn(b)
    for _ in range(3):
        world.tick()
    kept = world.checkpoint()
    assert (a.kept, b.kept) == ([100.0, 101.0, 102.0], [0.0, 1.0, 2.0]), (a.kept, b.kept)
    held = b.x
    world.tick()
    world.rollback(kept)
    assert held == 103.0 and b.x == 103.0 and a.kept[:3] == [100.0, 101.0, 102.0], (held, b.x, a.kept)
