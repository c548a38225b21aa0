"""The ``world`` and ``clock`` fixtures of the deprecation path: what a pre-0.4 test gets without opting in.

``engine.testing.plugin`` puts them in a test module that uses tickswap and asks for them
in a project that did not opt in (``engine.testing.fixtures`` says how): the same
fixtures, with a ``DeprecationWarning`` saying how to opt in. The path ends in 0.5. Never
registered as a plugin itself: a plugin's fixtures reach every project.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest

from engine.clock import VirtualClock
from engine.deprecation import REMOVED_IN
from engine.world import World

__all__ = ["FIXTURES", "SETTING", "clock", "world"]

FIXTURES = "engine.testing.fixtures"
"""The module of the ``world`` and ``clock`` fixtures, as ``pytest_plugins`` and ``-p`` name it."""
SETTING = "tickswap_fixtures"
"""The pytest setting (ini) that opts a project in: ``tickswap_fixtures = true``."""


def _warn(name: str) -> None:
    warnings.warn(f"tickswap's {name} fixture reaches this test because its module uses tickswap, which ends in "
                  f"{REMOVED_IN}: opt in with pytest_plugins = [{FIXTURES!r}] in your top conftest.py, or "
                  f"{SETTING} = true in your pytest settings", DeprecationWarning, stacklevel=2)


@pytest.fixture
def world() -> Iterator[World]:
    """Deprecated without opting in: a fresh ``World`` (seed 0), closed after the test."""
    _warn("world")
    with World() as fresh:
        yield fresh


@pytest.fixture
def clock() -> VirtualClock:
    """Deprecated without opting in: a fresh ``VirtualClock`` at 0 ms."""
    _warn("clock")
    return VirtualClock()
