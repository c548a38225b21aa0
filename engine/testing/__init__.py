"""Testing your own game with pytest: order independence as an assertion.

tickswap ships a pytest plugin (installed with the package, nothing to configure) that
gives every test the fixtures ``world`` (a fresh ``World``, closed after the test) and
``clock`` (a ``VirtualClock`` at 0 ms). This module holds the assertion::

    from engine.testing import assert_order_independent
    from mygame import build

    def test_my_game_does_not_depend_on_update_order():
        assert_order_independent(build, ticks=200)

It runs the game in spawn order and in several reshuffled update orders with the same
(seeded random) input and fails at the first tick where they differ, naming the tick,
the entities (class and id) and the fields, with both values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.tools.check import (
    CheckResult,
    EntityDifference,
    Inputs,
    check_order_independence,
    random_input,
)
from engine.world import World

__all__ = ["CheckResult", "EntityDifference", "Inputs", "assert_order_independent", "check_order_independence",
           "random_input"]


def assert_order_independent(build: Callable[[World], Any], *, ticks: int = 300, orders: int = 4, seed: int = 0,
                             inputs: Inputs | str = "random",
                             systems: Callable[[World], Any] | None = None) -> CheckResult:
    """Fail (``AssertionError``) unless ``build``'s game comes out the same in every update order.

    The arguments are ``check_order_independence``'s: ``ticks`` to run, ``orders``
    reshuffled orders besides spawn order, ``seed`` for the worlds and the input, and
    ``inputs`` (``"random"``, ``None``, or scripted per tick); pass your game's
    ``systems`` too if it has them. The message names the
    first tick that differs, the entities and their fields. Returns the result when it
    passes.
    """
    result = check_order_independence(build, ticks=ticks, orders=orders, seed=seed, inputs=inputs, systems=systems)
    if not result.ok:
        raise AssertionError(result.describe())
    return result
