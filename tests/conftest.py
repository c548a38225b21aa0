"""Shared fixtures: a virtual clock, so no test ever sleeps."""

from __future__ import annotations

import pytest

from engine import VirtualClock


@pytest.fixture
def clock() -> VirtualClock:
    """A fresh ``VirtualClock`` at 0 ms."""
    return VirtualClock()


@pytest.fixture
def world():
    """A fresh ``World``, closed (its esper world released) after the test."""
    from engine import World

    with World() as fresh:
        yield fresh
