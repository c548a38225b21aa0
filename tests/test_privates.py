"""No engine package reads another's private attributes, and the World's privates are read only in engine/world/.

A private (``_name``) attribute belongs to the package that defines it: one that assigns
it (``self._name = ...``), declares it in a class body (an attribute, a method, a slot) or
defines it at a module's top level. Any other package reaches it through a named accessor
(``engine.world.spawner_of``, ``engine.buffering.own.keep_own``...).
The check reads the source (an AST walk), so it sees reads in functions that no test runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

import engine

ENGINE = Path(engine.__file__).parent

# (module, attribute): reads of privates that no accessor can replace, each with its reason.
ALLOWED = {
    # esper keeps its processors in a private list and has no call that reorders them; ecs.py
    # is the one module that calls esper (tickswap check permutes systems of equal priority).
    ("engine.ecs", "_processors"),
    # esper's tables of entities and components: a tick's spawns and despawns change them in one pass
    # each (create_all, delete_all), exactly as esper's own calls one entity at a time would; a test
    # compares the two (test_spawner), and an esper without them gets the calls.
    ("engine.ecs", "_entities"),
    ("engine.ecs", "_components"),
    ("engine.ecs", "_dead_entities"),
    # CPython's frame access (documented in sys): which entity's code raised a refused write,
    # which update set a look, and where a game file running itself called run(build).
    ("engine.buffering.buffers", "_getframe"),
    ("engine.files.importer", "_getframe"),
    # PyInstaller's documented marker of a frozen program: where its files were unpacked.
    ("engine.tools.ship.boot", "_MEIPASS"),
    # aioice has no public way to name the pair it nominated; ice.py's _selected is the one read.
    ("engine.net.ice", "_nominated"),
    # pytest before 8.4 marked a fixture function only with this attribute.
    ("engine.testing.plugin", "_pytestfixturefunction"),
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ENGINE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package(module: str) -> str:
    """The package a module belongs to: ``engine.world`` for ``engine.world.spawner``; a top-level module is its own."""
    return ".".join(module.split(".")[:2])


def _defined(tree: ast.Module) -> set[str]:
    """The private names a module defines: assigned on any object, declared in a class body or slots, or top-level."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _private(node.attr):
            names.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and _private(node.name):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and _private(node.id):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _private(node.target.id):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
            names |= {c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)
                      and _private(c.value)}
    return names


def _reads(tree: ast.Module) -> list[tuple[int, str, str]]:
    """Each read of a private attribute on something other than ``self``/``cls``: (line, attribute, code)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and not isinstance(node.ctx, ast.Store):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append((node.lineno, node.attr, ast.unparse(node)))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
              and _private(node.args[1].value)):
            found.append((node.lineno, node.args[1].value, ast.unparse(node)))
    return found


def _sources() -> dict[str, ast.Module]:
    return {_module_name(path): ast.parse(path.read_text()) for path in sorted(ENGINE.rglob("*.py"))}


def foreign_reads(sources: dict[str, ast.Module]) -> list[str]:
    """Every read of a private attribute that the reading module's package does not define, as lines."""
    defined: dict[str, set[str]] = {}
    for module, tree in sources.items():
        defined.setdefault(_package(module), set()).update(_defined(tree))
    return [f"{module}:{line}: {code}" for module, tree in sources.items() for line, name, code in _reads(tree)
            if name not in defined[_package(module)] and (module, name) not in ALLOWED]


def world_private_reads(sources: dict[str, ast.Module]) -> list[str]:
    """Every read, outside engine.world, of an attribute name the World class keeps privately."""
    world = next(node for node in ast.walk(sources["engine.world.world"])
                 if isinstance(node, ast.ClassDef) and node.name == "World")
    privates = _defined(ast.Module(body=[world], type_ignores=[]))
    return [f"{module}:{line}: {code}" for module, tree in sources.items() if not module.startswith("engine.world")
            for line, name, code in _reads(tree) if name in privates]


def test_no_package_reads_a_private_attribute_another_package_defines():
    assert foreign_reads(_sources()) == []


def test_the_worlds_privates_are_read_only_inside_engine_world():
    assert world_private_reads(_sources()) == []


def test_every_allowed_read_is_still_made():
    # An allowance no module needs any longer is dropped, so the list stays short and true.
    sources = _sources()
    made = {(module, name) for module, tree in sources.items() for _, name, _ in _reads(tree)}
    assert ALLOWED - made == set()


def test_the_checks_find_a_read_of_the_worlds_buffers_and_of_a_crowds_hook():
    sources = _sources()
    sources["engine.buffering.extra"] = ast.parse("def f(world):\n    return world._buffers.sender\n")
    sources["engine.files.extra"] = ast.parse("def g(crowd):\n    return crowd._keep_own()\n")
    assert world_private_reads(sources) == ["engine.buffering.extra:2: world._buffers"]
    assert foreign_reads(sources) == ["engine.buffering.extra:2: world._buffers", "engine.files.extra:2: crowd._keep_own"]
