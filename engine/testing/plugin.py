"""tickswap's pytest plugin: the ``world`` and ``clock`` fixtures, for your game's tests.

Registered through the ``pytest11`` entry point, so installing tickswap is enough. The
rest of the testing namespace (``assert_order_independent``, ``load_game``) is
``engine.testing``, which never imports pytest: only this module does.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.clock import VirtualClock
from engine.world import World

__all__ = ["clock", "world"]


@pytest.fixture
def clock() -> VirtualClock:
    """A fresh ``VirtualClock`` at 0 ms: advance it by hand, nothing ever sleeps."""
    return VirtualClock()


@pytest.fixture
def world() -> Iterator[World]:
    """A fresh ``World`` (seed 0), closed (its esper world released) after the test."""
    with World() as fresh:
        yield fresh
