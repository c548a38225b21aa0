"""Written, then read back: whatever the save writer accepts, the reader accepts and restores identically.

Hypothesis writes values of every kind a save may hold (and many it may not: deep
nesting, long strings, huge integers, wrong types for a buffered field) through
``world.save``. A value the writer refuses is refused by name with ``SaveError`` and no
file appears; a value it writes loads back equal, with the same state hash.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Entity, World, buffered
from engine.buffering.slots import mutable_in
from engine.state.values import MAX_TEXT
from engine.world import spawner_of
from engine.world.save import SaveError, load_world


class Keeper(Entity):
    """Holds one value in a saved attribute, one in a buffered field of no type, and a flag."""

    saved = ("thing",)
    anything = buffered(None)
    flag = buffered(False)

    def __init__(self, thing: Any = None) -> None:
        super().__init__()
        self.thing = thing


def same(first: Any, second: Any) -> bool:
    if isinstance(first, float) and isinstance(second, float):
        return (math.isnan(first) and math.isnan(second)) or first == second
    if type(first) is not type(second) and not (isinstance(first, (set, frozenset))
                                                and isinstance(second, (set, frozenset))):
        return False
    if isinstance(first, (list, tuple)):
        return len(first) == len(second) and all(same(a, b) for a, b in zip(first, second))
    if isinstance(first, dict):
        return first.keys() == second.keys() and all(same(first[key], second[key]) for key in first)
    return bool(first == second)


scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**45), 10**45), st.floats(allow_nan=True),
                    st.text(max_size=20), st.sampled_from(["x" * (MAX_TEXT + 1), "y" * MAX_TEXT]))
hashables = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5)),
                         lambda inner: st.tuples(inner, inner), max_leaves=5)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner), st.dictionaries(st.text(max_size=5), inner,
                                                                                           max_size=3),
                            st.frozensets(hashables, max_size=3)),
    max_leaves=12)


def nested(depth: int, kind: str) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value} if kind == "dict" else [value] if kind == "list" else (value,)
    return value


ROUND_TRIP = settings(max_examples=150, deadline=None, derandomize=True,
                      suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                             HealthCheck.data_too_large])


def round_trip(tmp_path: Path, thing: Any, anything: Any, flag: Any, x: Any = 0.0) -> None:
    path = tmp_path / "s.json"
    path.unlink(missing_ok=True)
    with World(seed=3) as world:
        keeper = world.spawn(Keeper(thing))
        if mutable_in(anything) is not None:  # a buffered value is immutable all the way down: refused at the write
            with pytest.raises(TypeError, match=r"^Keeper\.anything is buffered and was set to a "):
                keeper.anything = anything
            assert keeper.anything is None
            anything = None
        keeper.anything, keeper.flag, keeper.x = anything, flag, x
        world.tick()
        try:
            world.save(path)
        except SaveError as error:
            assert str(error).count("\n") == 0 and len(str(error)) < 400, error
            assert not path.exists(), "a refused save writes nothing"
            return
        expected = world.state_hash()
    with load_world(path, world_class=World) as loaded:  # a save tickswap wrote is never refused as damaged
        (back,) = loaded.entities
        assert isinstance(back, Keeper)
        assert same(back.thing, thing) and same(back.anything, anything) and same(back.flag, flag)
        assert loaded.state_hash() == expected


@ROUND_TRIP
@given(thing=values, anything=values)
def test_whatever_the_writer_accepts_the_reader_restores_identically(tmp_path, thing, anything):
    round_trip(tmp_path, thing, anything, False)


@ROUND_TRIP
@given(depth=st.integers(1, 40), kind=st.sampled_from(["dict", "list", "tuple"]),
       where=st.sampled_from(["thing", "anything"]))
def test_nesting_is_refused_when_writing_exactly_where_reading_would_refuse_it(tmp_path, depth, kind, where):
    value = nested(depth, kind)
    round_trip(tmp_path, value if where == "thing" else None, value if where == "anything" else None, False)


def test_the_cases_of_the_issue_are_refused_by_name_when_writing(tmp_path):
    for thing, anything, flag, x, named in [(None, None, False, "left", ".x"), (None, None, 1, 0.0, ".flag"),
                                           (nested(26, "dict"), None, False, 0.0, ".thing"),
                                           ("s" * (MAX_TEXT + 1), None, False, 0.0, ".thing")]:
        path = tmp_path / "s.json"
        with World() as world:
            keeper = world.spawn(Keeper(thing))
            keeper.anything, keeper.flag, keeper.x = anything, flag, x  # type: ignore[assignment]  # bad on purpose
            try:
                world.save(path)
            except SaveError as error:
                assert named in str(error)
            else:
                raise AssertionError(f"saved {named}, which the reader would refuse")
        assert not path.exists()


def test_an_id_past_the_last_a_save_may_name_is_refused_when_writing(tmp_path):
    with World() as world:
        spawner_of(world).restore_last_id(2**53)
        world.spawn(Keeper())
        try:
            world.save(tmp_path / "s.json")
        except SaveError as error:
            assert "id" in str(error)
        else:
            raise AssertionError("saved an id the reader refuses")
