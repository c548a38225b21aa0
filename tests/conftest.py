"""Shared fixtures: a virtual clock, so no test ever sleeps."""

from __future__ import annotations

import pytest

from engine import VirtualClock


@pytest.fixture
def clock() -> VirtualClock:
    """A fresh ``VirtualClock`` at 0 ms."""
    return VirtualClock()
