"""A save's promise, checked tick by tick: the loaded world goes on exactly as the straight run.

Shared by the tests of every kind of state a save must hold (a path's walk, a tween, an
emitter's particles): one copy of the comparison, so they all ask the same question.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine import World


@contextmanager
def loaded_beside(straight: World, path: Path, ticks: int) -> Iterator[World]:
    """Save ``straight`` to ``path`` and load it; tick both ``ticks`` times, their state hashes equal after every tick.

    Yields the loaded world (closed on leaving) for what a test checks beyond the hashes.
    """
    straight.save(path)
    with World.load(path) as loaded:
        assert loaded.state_hash() == straight.state_hash(), "differs right after the load"
        for tick in range(ticks):
            straight.tick()
            loaded.tick()
            assert loaded.state_hash() == straight.state_hash(), f"differs {tick + 1} ticks after the load"
        yield loaded


def assert_goes_on_alike(straight: World, path: Path, ticks: int) -> None:
    """``loaded_beside`` when only the hashes matter."""
    with loaded_beside(straight, path, ticks):
        pass
