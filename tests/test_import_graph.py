"""The engine's structure: no import circle, a leaf Double Buffer, and a public API without loader hooks."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
import subprocess
import sys
from pathlib import Path

import engine

ENGINE = Path(engine.__file__).parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in ENGINE.rglob("*.py"):
        parts = list(path.relative_to(ENGINE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _dynamic_import(node: ast.AST) -> str | None:
    """The module an ``import_module("...")`` or ``__import__("...")`` call names, when it is a literal."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if called not in ("import_module", "__import__"):
        return None
    first = node.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else "<not a literal>"


def _imports() -> dict[str, set[str]]:
    """Every engine module each engine module imports: top level, in functions and under TYPE_CHECKING."""
    modules = _modules()

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            elif (dynamic := _dynamic_import(node)) is not None and dynamic in modules:
                targets = [dynamic]  # an import by name is an import (a compiled extension is a leaf)
            for target in targets:
                found = resolve(target) if target.startswith("engine") else None
                if found is not None and found != name:
                    graph[name].add(found)
    return graph


def _circle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle, as the modules along it, or [] when there is none."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(name: str) -> list[str]:
        state[name] = 1
        path.append(name)
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[name] = 2
        return []

    for name in sorted(graph):
        if name not in state:
            found = visit(name)
            if found:
                return found
    return []


def test_no_engine_module_imports_itself_back_through_others():
    assert _circle(_imports()) == []


GAME_LOADERS = {"engine.files.game", "engine.files.importer"}


def test_every_import_by_name_is_one_the_checker_sees():
    # A module imported by a string the checker cannot read would hide an edge: each
    # literal must name an engine module or a compiled extension, and the one lookup
    # by a table (the package root's lazy names) must import the same names for the type
    # checker, where the checker counts them.
    modules = _modules()
    graph = _imports()
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            named = _dynamic_import(node)
            if named is None:
                continue
            if named == "<not a literal>":
                if name in GAME_LOADERS:
                    continue  # they import a game's modules, never the engine's
                # The package root and engine.testing look their lazy names up in a table.
                assert name in ("engine", "engine.testing"), f"{name} imports a module by a computed name"
                assert set(importlib.import_module(name)._LAZY.values()) <= graph[name]
            elif named not in modules:
                source = ENGINE.parent / (named.replace(".", "/") + ".c")
                assert source.exists(), f"{name} imports {named!r}, which is no engine module"


def test_the_circle_finder_finds_a_circle_and_only_a_circle():
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_import_reader_counts_imports_made_inside_functions():
    # engine.run imports the command line only when called: the edge still counts.
    assert any(target.startswith("engine.tools.cli") for target in _imports()["engine"])


def test_the_double_buffer_imports_only_leaves():
    # buffering is typed against its own base class and protocols: beyond itself it may
    # name only the errors it raises, the look a crowd carries and the loader of its
    # compiled core (all leaves).
    graph = _imports()
    allowed = {"engine.errors", "engine.look", "engine.messages", "engine.compiled"}
    for name, targets in graph.items():
        if name.startswith("engine.buffering"):
            outside = {t for t in targets if not t.startswith("engine.buffering")} - allowed
            assert outside == set(), f"{name} imports {sorted(outside)}"
    # A look reads a sprite sheet's PNG header (Look.frames) through the bounded file reader,
    # itself a leaf: still nothing that could lead back to buffering or the world.
    # It warns of a deprecated use through engine.deprecation, a leaf too.
    readers = {"engine.disk.png", "engine.disk.reading", "engine.messages", "engine.deprecation"}
    assert graph["engine.deprecation"] == set()
    for leaf in allowed:
        assert graph[leaf] <= readers, f"{leaf} is no longer a leaf: {sorted(graph[leaf])}"
    assert graph["engine.disk.png"] <= readers and graph["engine.disk.reading"] <= {"engine.messages"}


def _files_imported_by_state(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each engine.state module that imports a module of engine.files, with what it imports there."""
    found = {name: sorted(t for t in targets if t == "engine.files" or t.startswith("engine.files."))
             for name, targets in graph.items() if name == "engine.state" or name.startswith("engine.state.")}
    return {name: targets for name, targets in found.items() if targets}


def test_the_state_package_never_imports_files():
    # Saves and replays are built on snapshots, names and saved values, never the other way.
    graph = _imports()
    assert {"engine.state", "engine.state.snapshot", "engine.state.names", "engine.state.values"} <= set(graph)
    assert _files_imported_by_state(graph) == {}


def test_an_import_of_files_from_state_is_found():
    graph = {"engine.state.values": {"engine.files.schema", "engine.entity"}, "engine.world.save": {"engine.state.values"}}
    assert _files_imported_by_state(graph) == {"engine.state.values": ["engine.files.schema"]}


def test_saves_spatial_and_render_never_name_the_crowd_class():
    graph = _imports()
    for name in ("engine.spatial", "engine.render.entities", "engine.render.crowds", "engine.world.save.write", "engine.world.save.check",
                 "engine.world.save.restore"):
        assert "engine.crowd" not in graph[name], name


def test_nothing_imports_the_package_root():
    graph = _imports()
    assert [name for name, targets in graph.items() if "engine" in targets] == []


def _deprecated(owner: type, name: str) -> bool:
    attribute = inspect.getattr_static(owner, name, None)
    return attribute is not None and (attribute.__doc__ or "").startswith("Deprecated")


def test_loader_and_tool_hooks_are_not_part_of_entity_or_world():
    # 0.2's hooks are back only as deprecated aliases (until 0.6), which the engine never calls.
    for name in ("commit_buffers", "abort_buffers", "arrays_for_save", "restore_arrays"):
        for owner in (engine.Entity, engine.Crowd):
            assert not hasattr(owner, name) or _deprecated(owner, name), f"{owner.__name__}.{name}"
    for name in ("restore_entity", "restore_last_id"):
        assert _deprecated(engine.World, name), name
    use = re.compile(r"(?<!engine\.)\bworld\.(take_sounds|system_count|restore_entity|restore_last_id|spatial_index|structure_version)\b"
                     r"|\b[a-z_]+\.(commit_buffers|abort_buffers|arrays_for_save|restore_arrays)\(")
    called = [f"{path.relative_to(ENGINE)}: {match.group(0)}" for path in ENGINE.rglob("*.py")
              for match in use.finditer(path.read_text())]
    assert called == [], "the engine calls a deprecated alias"


def test_the_world_is_composed_of_its_parts_and_keeps_the_engines_hooks_out_of_its_namespace():
    # Spawning, sounds and collisions are parts the world holds, not mixins it inherits.
    assert engine.World.__mro__ == (engine.World, object)
    with engine.World() as world:
        for name in ("_restore_entity", "_restore_last_id", "_update_order", "_settle"):
            assert not hasattr(world, name), name
    for name in ("take_sounds", "spatial_index", "structure_version", "system_count"):
        assert _deprecated(engine.World, name), f"World.{name} is only 0.2's deprecated alias"


def _world_protocols() -> list[str]:
    """Every Protocol class in the engine that ``World`` implements: each of its members is one of a world's."""
    import importlib
    import pkgutil
    from typing import Protocol

    found = []
    with engine.World() as world:
        for info in pkgutil.walk_packages(engine.__path__, "engine."):
            if info.name.startswith(("engine.render", "engine.tools", "engine.web", "engine.testing")):
                continue  # pyglet, the command line: no protocol of a world lives there
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if not (inspect.isclass(value) and Protocol in value.__mro__[1:] and value.__module__ == info.name):
                    continue
                members = {name for name in vars(value) if not name.startswith("__") and name != "_is_protocol"}
                members |= set(getattr(value, "__annotations__", {}))
                members -= {"_abc_impl", "_is_runtime_protocol", "__protocol_attrs__"}
                if members and all(hasattr(world, member) for member in members):
                    found.append(f"{value.__module__}.{value.__qualname__}")
    return sorted(found)


def test_a_world_has_one_protocol_which_its_parts_name():
    # Seven partial ones were: buffering's Host, the spawner's Owner, the checkpoints' World, the save's
    # SavedWorld and LoadedWorld, the snapshot's Snapshotted and the profile's Profiled (a private member).
    assert _world_protocols() == ["engine.buffering.slots.Host"]


def test_the_engine_exports_crowd_and_the_file_errors():
    from engine.crowd import Crowd
    from engine.files.replay import ReplayError
    from engine.world.save import SaveError

    assert (engine.Crowd, engine.SaveError, engine.ReplayError) == (Crowd, SaveError, ReplayError)


def test_run_says_what_build_is():
    assert inspect.signature(engine.run).parameters["build"].annotation == "Callable[[World], object]"


def test_the_double_buffer_pattern_has_one_home():
    assert importlib.util.find_spec("engine.buffer") is None
    from engine.lab import DoubleBuffer

    assert DoubleBuffer.__module__ == "engine.lab" and _imports()["engine.lab"] == set()


def test_import_engine_loads_neither_numpy_nor_pyglet():
    code = "import sys, engine; print('numpy' in sys.modules, 'pyglet' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_every_public_name_is_listed_by_dir_so_the_api_reference_shows_it():
    assert set(engine.__all__) <= set(dir(engine))
    assert all(getattr(engine, name) is not None for name in engine.__all__)


def test_import_engine_leaves_the_save_and_replay_packages_until_their_errors_are_named():
    code = ("import sys, engine; before = 'engine.world.save' in sys.modules; engine.SaveError; "
            "print(before, 'engine.world.save' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_the_engine_constants_are_a_leaf_and_their_old_homes_still_export_them():
    # One home for the limits the world, loops, input, files and net share: a module that
    # imports nothing from engine, so none of them imports upward to reach a number.
    import engine.constants as constants
    import engine.files.game as game
    import engine.files.replay as replay
    import engine.files.replay.format as replay_format
    import engine.net.checks as net_checks

    assert _imports()["engine.constants"] == set()
    for module in (game, replay, replay_format, net_checks):
        for name in set(getattr(module, "__all__", ())) | {"MAX_SEED"}:
            if name in constants.__all__ and hasattr(module, name):
                assert getattr(module, name) is getattr(constants, name), f"{module.__name__}.{name}"
    assert (game.DEFAULT_MS_PER_UPDATE, replay.HASH_EVERY, net_checks.MAX_INPUT_DELAY) == (15.625, 60, 30)
    defined_elsewhere = [f"{path.relative_to(ENGINE)}: {name}" for path in ENGINE.rglob("*.py") if path.name != "constants.py"
                         for node in ast.parse(path.read_text()).body if isinstance(node, ast.Assign)
                         for target in node.targets if isinstance(target, ast.Name)
                         for name in [target.id] if name in constants.__all__]
    assert defined_elsewhere == []


# The layers, lowest first: a module may import its own layer (the circle test keeps that
# acyclic) and the layers below, never a layer above. Each engine module is placed by the
# longest prefix that names it; a module no prefix names fails the test, so a new one is
# placed on purpose. docs/internals.md draws the same table.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # Leaves: no engine state of their own; the disk package (bounded reading, PNG headers,
    # atomic writing, JSON lines) is file plumbing any layer may use, and a look is plain data
    # (it reads a PNG's header).
    ("leaves", ("engine.constants", "engine.messages", "engine.errors", "engine.deprecation", "engine.clock",
                "engine.trace", "engine.portable", "engine.easing", "engine.interrupts", "engine.schema", "engine.ecs",
                "engine.look", "engine.lab", "engine.disk",
                # The art kit (pixels and sounds written as files, standard library only); --json's emitter.
                "engine.art", "engine.json_events",
                # Which optional C extension is loaded, or its pure-Python twin (TICKSWAP_PURE).
                "engine.compiled")),
    ("buffering", ("engine.buffering",)),
    # An entity and what it is made of (scenes and hits too), the per-tick input (and the --input
    # scripts, read by the JSON-lines reader of engine.disk), snapshots, the loops.
    ("state", ("engine.entity", "engine.advancing", "engine.stage", "engine.hits", "engine.tween", "engine.path",
               "engine.camera", "engine.spatial", "engine.input", "engine.state", "engine.loops", "engine.display")),
    # The world and what lives in it, with the save that holds a world over time (engine.world.save:
    # written from and restored into the world's parts, and World.save delegates to it).
    ("world", ("engine.world", "engine.crowd", "engine.particles", "engine.tiles", "engine.gui")),
    # Games found and imported (the one owner of a game's settings), and recordings of them.
    ("files", ("engine.files",)),
    # The studio (rewind, reload, inspector) drives a world and is driven by the window's runner;
    # engine.web is the browser's runner, beside the window's (engine.render), neither importing the other.
    ("net/render", ("engine.net", "engine.render", "engine.studio", "engine.web")),
    # The tools, the testing namespace and the package root (which names everything lazily).
    ("tools", ("engine.tools", "engine.testing", "engine")),
)


def _layer_of(module: str, layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> int | None:
    """The index of the layer a module is in, by the longest prefix naming it (the root only by its own name)."""
    best: tuple[int, int] | None = None
    for index, (_, prefixes) in enumerate(layers):
        for prefix in prefixes:
            named = module == prefix or (prefix != "engine" and module.startswith(prefix + "."))
            if named and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


def _upward_imports(graph: dict[str, set[str]], layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> list[str]:
    """Each import of a module in a higher layer (and each module no layer places), as lines."""
    found = [f"{name} is in no layer" for name in sorted(graph) if _layer_of(name, layers) is None]
    for name, targets in sorted(graph.items()):
        low = _layer_of(name, layers)
        for target in sorted(targets):
            high = _layer_of(target, layers)
            if low is not None and high is not None and high > low:
                found.append(f"{name} ({layers[low][0]}) imports {target} ({layers[high][0]})")
    return found


def _packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The import graph between the engine's top-level packages and modules (``engine.files``, ``engine.world``...)."""
    def top(name: str) -> str:
        return ".".join(name.split(".")[:2])

    packages: dict[str, set[str]] = {}
    for name, targets in graph.items():
        packages.setdefault(top(name), set()).update(top(target) for target in targets if top(target) != top(name))
    return packages


def test_no_package_imports_itself_back_through_others():
    # A package is one idea at one level: files/ never reaches down into the world that reaches back
    # up into files/ (0.4 had files <-> world and files <-> input, placed in three layers and two).
    assert _circle(_packages(_imports())) == []


def test_each_package_is_in_exactly_one_layer():
    prefixes = [prefix for _, names in LAYERS for prefix in names if prefix != "engine"]
    nested = [f"{inner} inside {outer}" for outer in prefixes for inner in prefixes
              if inner.startswith(outer + ".")]
    assert nested == [], "a package's modules are placed in another layer than the package"
    assert len(prefixes) == len(set(prefixes))


def test_the_package_circle_finder_sees_a_circle_through_submodules():
    graph = {"engine.files.save": {"engine.world.music"}, "engine.world.world": {"engine.files.save"},
             "engine.world.music": set()}
    assert _circle(_packages(graph)) == ["engine.files", "engine.world", "engine.files"]


def test_engine_modules_import_only_their_own_layer_and_the_layers_below():
    assert _upward_imports(_imports()) == []


def test_the_browser_runner_and_the_window_runner_are_apart():
    graph = _imports()
    web = {name for name in graph if name == "engine.web" or name.startswith("engine.web.")}
    render = {name for name in graph if name == "engine.render" or name.startswith("engine.render.")}
    assert web and render
    assert [f"{name} imports {target}" for name in sorted(web) for target in sorted(graph[name] & render)] == []
    assert [f"{name} imports {target}" for name in sorted(render) for target in sorted(graph[name] & web)] == []


def test_the_layer_check_finds_an_upward_import_and_an_unplaced_module():
    graph = dict(_imports())
    graph["engine.net.desync"] = graph["engine.net.desync"] | {"engine.tools.differences"}
    graph["engine.newthing"] = {"engine.messages"}
    assert _upward_imports(graph) == ["engine.newthing is in no layer",
                                      "engine.net.desync (net/render) imports engine.tools.differences (tools)"]
    # A longer prefix wins, and the root is placed only by its own name.
    assert _layer_of("engine.disk.png") == 0 and _layer_of("engine.world.save.check") == 3
    assert _layer_of("engine") == 6 and _layer_of("engine.newthing") is None


def _drawn_layers(page: str) -> dict[str, set[str]]:
    """The layers docs/internals.md draws: each ``[name]`` with the modules drawn on its lines."""
    block = page.split("## The layers", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    drawn: dict[str, set[str]] = {}
    current = ""
    for line in block.splitlines():
        words = line.split()
        if words and words[0].startswith("["):
            current = words.pop(0).strip("[]")
            drawn[current] = set()
        if current:
            drawn[current] |= {word.rstrip("/") for word in words if word != "|"}
    return drawn


def test_the_internals_page_draws_the_layers_the_test_holds():
    drawn = _drawn_layers((ENGINE.parent / "docs" / "internals.md").read_text())
    held = {name: {"engine/__init__" if prefix == "engine" else prefix.removeprefix("engine.").replace(".", "/")
                   for prefix in prefixes} for name, prefixes in LAYERS}
    assert drawn == held
