"""The ``world`` and ``clock`` fixtures, for a project that asks for them.

A project opts in once, in any of pytest's own ways::

    # conftest.py at the top of your tests
    pytest_plugins = ["engine.testing.fixtures"]

or ``tickswap_fixtures = true`` in its pytest settings (``[tool.pytest.ini_options]`` of
``pyproject.toml``, ``pytest.ini``), or ``pytest -p engine.testing.fixtures``. Installing
tickswap no longer gives these two names to every project in the environment: an
unrelated project's ``world`` is its own (see ``engine.testing.plugin``).
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
