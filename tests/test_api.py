"""The public API: every exported name is documented, and importing it stays headless."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import engine


def test_every_public_name_imports_and_has_a_docstring():
    assert engine.__all__, "engine.__all__ is empty"
    for name in engine.__all__:
        value = getattr(engine, name)
        doc = getattr(value, "__doc__", None)
        assert doc and doc.strip(), f"engine.{name} has no docstring"


def test_public_names_are_sorted_and_unique():
    assert sorted(set(engine.__all__)) == engine.__all__


def test_import_engine_does_not_load_pyglet_graphics():
    code = "import sys, engine; print(sorted(m for m in sys.modules if m.startswith('pyglet')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_package_ships_py_typed():
    from importlib.resources import files

    assert files("engine").joinpath("py.typed").is_file()


DEPRECATED_MODULES = {"engine.tools.differences", "engine.render.picture"}
"""Modules that only re-export what moved, and warn when imported (until 0.6)."""


def test_every_public_name_of_every_engine_module_has_a_docstring(offscreen):
    import importlib
    import inspect
    import pkgutil

    undocumented = []
    for info in pkgutil.walk_packages(engine.__path__, "engine."):
        with warnings.catch_warnings():
            if info.name in DEPRECATED_MODULES:  # their warning is tested below
                warnings.simplefilter("ignore", DeprecationWarning)
            module = importlib.import_module(info.name)
        if not (module.__doc__ or "").strip():
            undocumented.append(info.name)
        for name in getattr(module, "__all__", []):
            value = getattr(module, name)
            if (inspect.isclass(value) or inspect.isfunction(value)) and not (value.__doc__ or "").strip():
                undocumented.append(f"{info.name}.{name}")
            if inspect.isclass(value):
                for attribute, member in vars(value).items():
                    if attribute.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                        continue
                    doc = member.__doc__ if isinstance(member, property) else inspect.getdoc(member)
                    if not (doc or "").strip():
                        undocumented.append(f"{info.name}.{name}.{attribute}")
    assert undocumented == []


def test_the_package_version_is_the_engines_own():
    from importlib.metadata import version

    assert version("tickswap") == engine.__version__


def test_this_release_is_0_5_0_and_reads_the_files_of_0_1_to_0_4_which_said_0_1_0(tmp_path):
    # Every release to 0.4 wrote "engine": "0.1.0" (the string was not bumped): their saves and
    # recordings still load; a version this one does not know is still refused by name.
    from engine.files.replay import ReplayError, read_replay
    from engine.world.save import SaveError, load_world

    assert engine.__version__ == "0.5.0"
    world = engine.World(seed=3)
    world.tick()
    world.save(tmp_path / "s.json")
    world.close()
    text = (tmp_path / "s.json").read_text()
    assert '"engine":"0.5.0"' in text
    for written, loads in (("0.1.0", True), ("0.5.1", True), ("0.4.0", True), ("0.6.0", False), ("1.5.0", False)):
        (tmp_path / "old.json").write_text(text.replace('"engine":"0.5.0"', f'"engine":"{written}"'))
        if loads:
            load_world(tmp_path / "old.json", world_class=engine.World).close()
        else:
            with pytest.raises(SaveError, match=f"saved by tickswap {written}; this is tickswap 0.5.0"):
                load_world(tmp_path / "old.json", world_class=engine.World)
    header = ('{"format":"tickswap-replay","version":2,"game":"pong","game_digest":null,"seed":0,'
              '"ms_per_update":15.625,"engine":"0.1.0"}\n{"end":0,"hash":"' + "0" * 64 + '"}\n')
    (tmp_path / "r.jsonl").write_text(header)
    assert read_replay(tmp_path / "r.jsonl").end == 0
    (tmp_path / "r.jsonl").write_text(header.replace("0.1.0", "0.6.0"))
    with pytest.raises(ReplayError, match="recorded by tickswap 0.6.0"):
        read_replay(tmp_path / "r.jsonl")


# -- the API held to recorded lists: nothing removed without a deliberate, logged act ---------

API = Path(__file__).parent / "api"
_today: list[dict[str, Any]] = []


def _recorder() -> Any:
    spec = importlib.util.spec_from_file_location("tickswap_api_record", API / "record.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _today_api() -> dict[str, Any]:
    if not _today:
        _today.append(_recorder().read_api())
    return _today[0]


def _differences(recorded: dict[str, Any], today: dict[str, Any]) -> list[str]:
    found = []
    for section in sorted(set(recorded) | set(today)):
        was, now = recorded.get(section), today.get(section)
        if isinstance(was, dict) and isinstance(now, dict):
            for key in sorted(set(was) | set(now)):
                gone = sorted(set(was.get(key, [])) - set(now.get(key, [])))
                new = sorted(set(now.get(key, [])) - set(was.get(key, [])))
                if key not in now:
                    found.append(f"{section} {key}: gone")
                elif key not in was:
                    found.append(f"{section} {key}: new")
                elif gone or new:
                    found.append(f"{section} {key}: gone {gone}, new {new}")
        elif was != now:
            gone = sorted(set(was or []) - set(now or []))
            new = sorted(set(now or []) - set(was or []))
            found.append(f"{section}: gone {gone}, new {new}")
    return found


def test_the_api_is_the_recorded_list(offscreen):
    recorded = json.loads((API / "current.json").read_text())
    today = {key: _today_api()[key] for key in _recorder().CURRENT_KEYS}
    assert _differences(recorded, today) == [], (
        "the public API changed: if you meant it, say so in docs/changelog.md (a removal needs a deprecated alias "
        "first) and run python tests/api/record.py --update")


def test_the_api_reference_documents_every_exported_name(offscreen):
    documented = set(_today_api()["reference"])
    for module in ("engine", "engine.testing"):
        exported = {f"{module}.{name}" for name in importlib.import_module(module).__all__}
        assert exported - documented == set(), f"docs/api.md leaves out names of {module}"


def _old_api() -> dict[str, Any]:
    return dict(json.loads((API / "0.2.json").read_text()))


def test_nothing_of_0_2_is_gone(offscreen):
    old, today = _old_api(), _today_api()
    gone = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for module_name, names in old["modules"].items():
            module = importlib.import_module(module_name)
            gone += [f"{module_name}.{name}" for name in names if not hasattr(module, name)]
    # A name 0.5 moved away is still there, as an alias that says where it went (not printed: expected).
    assert all(issubclass(warning.category, DeprecationWarning) and "is deprecated and goes in tickswap" in
               str(warning.message) for warning in caught), [str(warning.message) for warning in caught]
    for owner, members in old["members"].items():
        gone += [f"{owner}.{member}" for member in members if member not in today["members"].get(owner, [])]
    for owner, parameters in old["params"].items():
        now = today["params"].get(owner)
        if now is None:
            gone.append(f"{owner}()")
            continue
        takes_any = any(parameter.startswith("**") for parameter in now)
        gone += [f"{owner}({parameter})" for parameter in parameters
                 if parameter not in now and not (takes_any and not parameter.startswith("*"))]
    for command, options in old["cli"].items():
        gone += [f"tickswap {command} {option}" for option in options if option not in today["cli"].get(command, [])]
    gone += [f"fixture {name}" for name in old["fixtures"] if name not in today["fixtures"]]
    assert gone == [], "removed since 0.2 without an alias (bring each back as one that warns: engine.deprecation)"


def _restored_entity() -> bool:
    from engine.buffering.access import saved_state

    with engine.World() as first, engine.World() as second:
        buffers = saved_state(first.spawn(engine.Entity(x=3)))
        second.restore_entity(engine.Entity(x=3), 5, buffers)
        return [entity.id for entity in second.entities] == [5]


def _restored_id() -> bool:
    with engine.World() as world:
        world.restore_last_id(9)
        return world.spawn(engine.Entity()).id == 10


def _crowd(use: Callable[[Any, engine.World], Any]) -> Any:
    from engine import Crowd

    crowd = Crowd(4)
    with engine.World() as world:
        world.spawn(crowd)
        world.tick()
        crowd.spawn_members(position=[[1.0, 2.0]], velocity=[[0.0, 0.0]])
        world.tick()
        return use(crowd, world)


def _restored_crowd(crowd: Any, world: engine.World) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        saved = crowd.arrays_for_save()
    crowd.restore_arrays({**saved, "count": 0, "fields": {name: "" for name in saved["fields"]}})
    return crowd.count == 0


def _world_call(call: Callable[[engine.World], Any]) -> Any:
    with engine.World() as world:
        world.spawn(engine.Entity())
        world.tick()
        return call(world)


# Every deprecated alias: what using it returns (checked true), and what its warning names instead.
ALIASES: dict[str, tuple[Callable[[], Any], str]] = {
    "World.take_sounds": (lambda: _world_call(lambda world: world.take_sounds() == []),
                          "engine.world.take_sounds(world)"),
    "World.system_count": (lambda: _world_call(lambda world: world.system_count() == 0),
                           "engine.world.system_count(world)"),
    "World.buffers": (lambda: _world_call(lambda world: world.buffers is not None),
                      "the entity's own fields and signals"),
    "World.restore_entity": (_restored_entity, "World.load"),
    "World.restore_last_id": (_restored_id, "World.load"),
    "World.spatial_index": (lambda: _world_call(lambda world: world.spatial_index() is not None),
                            "world.overlapping"),
    "World.structure_version": (lambda: _world_call(lambda world: world.structure_version >= 1),
                                "spawner_of(world).structure_version"),
    "Entity.commit_buffers": (lambda: engine.Entity().commit_buffers(1) is None,  # type: ignore[func-returns-value]
                              "engine.Crowd"),  # (it returns nothing: the call is the point)
    "Entity.abort_buffers": (lambda: engine.Entity().abort_buffers() is None,  # type: ignore[func-returns-value]
                             "engine.Crowd"),
    "Crowd.arrays_for_save": (lambda: _crowd(lambda crowd, world: crowd.arrays_for_save()["count"] == 1),
                              "world.save"),
    "Crowd.restore_arrays": (lambda: _crowd(_restored_crowd), "World.load"),
    "Crowd.commit_buffers": (lambda: _crowd(lambda crowd, world: crowd.commit_buffers(world.tick_count) is None),
                             "the world commits its crowds"),
    "Crowd.abort_buffers": (lambda: _crowd(lambda crowd, world: crowd.abort_buffers() is None),
                            "a failed tick aborts its crowds"),
    "Look.label": (lambda: engine.Look.label("hi", 12) == engine.Look(text="hi", size=12), "Look.caption"),
}


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_a_deprecated_alias_works_and_warns_naming_the_replacement(name):
    use, replacement = ALIASES[name]
    with pytest.warns(DeprecationWarning, match=re.escape(replacement)):
        assert use()


def test_every_deprecated_alias_is_tested():
    from engine import Crowd

    deprecated = set()
    for owner in (engine.World, engine.Entity, Crowd, engine.Look):
        for member, attribute in vars(owner).items():
            attribute = attribute.__func__ if isinstance(attribute, classmethod) else attribute
            if (inspect.isfunction(attribute) or isinstance(attribute, property)) and \
                    (attribute.__doc__ or "").startswith("Deprecated"):
                deprecated.add(f"{owner.__name__}.{member}")
    assert deprecated == set(ALIASES), "each alias has a row in ALIASES"


@pytest.mark.parametrize(("old", "new", "name"), [("engine.tools.differences", "engine.state.differences",
                                                   "compare_snapshots"),
                                                  ("engine.render.picture", "engine.disk.png", "check_png")])
def test_a_module_that_only_re_exported_warns_and_still_gives_the_same_names(old, new, name):
    assert old in DEPRECATED_MODULES
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=re.escape(f"{old} is deprecated") + ".*" + re.escape(new)):
        module = importlib.import_module(old)
    assert getattr(module, name) is getattr(importlib.import_module(new), name)


def test_overriding_a_0_2_hook_warns_that_it_is_no_longer_called():
    with pytest.warns(DeprecationWarning, match="no longer called"):
        class Keeper(engine.Entity):
            def commit_buffers(self, tick: int) -> None:
                pass


def test_0_2_module_paths_still_import():
    import engine.keys as old_keys  # type: ignore[import-not-found]  # an alias made at run time (sys.modules)

    from engine.input import keys
    from engine.loops import LOOPS
    from engine.render.runner import LOOPS as runner_loops

    assert old_keys is keys and runner_loops is LOOPS


def test_the_effects_kit_is_exported_and_only_particles_brings_numpy():
    from engine import easing
    from engine.particles import Particles
    from engine.path import Follower, Path
    from engine.tween import Tweened

    assert (engine.Tweened, engine.Follower, engine.Path, engine.Particles, engine.easing) == (
        Tweened, Follower, Path, Particles, easing)
    assert {"Tweened", "Follower", "Path", "Particles", "easing"} <= set(engine.__all__)
    code = ("import sys, engine; engine.Tweened, engine.Path, engine.easing.ease_out_back; before = 'numpy' in "
            "sys.modules; engine.Particles; print(before, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_the_gui_widgets_and_the_mouse_are_public():
    # Added deliberately in 0.4 (engine.gui, world.mouse): a game imports them from engine.
    import engine.gui

    for name in ("Button", "Label", "Panel", "Slider", "Style", "TextInput", "Widget", "widget_under_mouse"):
        assert name in engine.__all__ and getattr(engine, name) is getattr(engine.gui, name), name
    assert "Mouse" in engine.__all__ and engine.World().mouse.__class__ is engine.Mouse
    assert engine.keys.MOUSE_LEFT == 1


def test_the_old_games_tests_record_their_deprecations_instead_of_printing_them(tmp_path):
    # Issue 39: the suite printed 603 expected DeprecationWarnings from the old games' tests.
    old = Path(__file__).parent / "old_games"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rN",
                           f"--junitxml={tmp_path / 'report.xml'}", str(old / "test_old_pong.py"), "-k", "paddle_with_a_sound"],
                          capture_output=True, text=True, cwd=old, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout and "warning" not in done.stdout.split("1 passed")[1], done.stdout
    report = (tmp_path / "report.xml").read_text()
    recorded = re.search(r'<property name="deprecations" value="(\d+)"', report)
    # One World.take_sounds() a tick (200), and a SoundRequest.sound for each request it read.
    assert recorded and int(recorded.group(1)) > 200, report


# The names 0.5 moved out of the package root: the loop lab to engine.loops, the teaching classes to engine.lab.
MOVED = {"ConstantRateLoop": "engine.loops", "FrameRate": "engine.loops", "RenderGatedLoop": "engine.loops",
         "Trace": "engine.loops", "TraceEvent": "engine.loops", "VariableStepLoop": "engine.loops",
         "DoubleBuffer": "engine.lab", "Framebuffer": "engine.lab", "Scene": "engine.lab"}


@pytest.mark.parametrize("name", sorted(MOVED))
def test_a_name_moved_out_of_the_root_still_works_and_warns_at_the_users_line(name):
    home = importlib.import_module(MOVED[name])
    assert name not in engine.__all__ and name in home.__all__
    with pytest.warns(DeprecationWarning, match=re.escape(f"engine.{name} is deprecated and goes in tickswap 0.6: "
                                                          f"use {MOVED[name]}.{name}")) as caught:
        assert getattr(engine, name) is getattr(home, name)
    assert caught[0].filename == __file__
    with pytest.warns(DeprecationWarning, match=re.escape(f"use {MOVED[name]}.{name}")):
        exec(f"from engine import {name}", {})  # the form old games use warns too, every time


def test_the_root_moves_exactly_the_names_the_test_knows():
    assert engine._MOVED == MOVED


def test_the_package_root_is_for_writing_games():
    # 47 names in 0.4, the loop lab and the teaching classes among them; what is left is what a game imports:
    # 38, and issue 39's kit for games (Director, Staged, TextBox, Striker, Hurtable).
    assert len(engine.__all__) == 43
    assert not {"Trace", "Scene", "DoubleBuffer", "RenderGatedLoop"} & set(engine.__all__)
