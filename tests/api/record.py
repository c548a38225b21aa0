"""Record tickswap's public API as JSON: what ``tests/test_api.py`` holds the engine to.

Today's list, after a deliberate change to the API (and a line in ``docs/changelog.md``)::

    python tests/api/record.py --update        # rewrites tests/api/current.json

An old release's, with its tree unpacked (``git archive COMMIT | tar -x -C DIR``) and
nothing of today's tickswap on the path (``-S``: no site, so no editable install)::

    TICKSWAP_PURE=1 PYTHONPATH=DIR:SITE_PACKAGES python -S tests/api/record.py VERSION COMMIT > tests/api/VERSION.json

What is recorded, each as sorted names:

- ``modules``: the public names (``__all__``) of every module the README and guides of
  that version teach (``engine``, ``engine.testing``, ``engine.crowd``, the render modules
  a custom view uses...); a module that is not there is left out;
- ``members``: the public attributes and methods of every class those modules export, read
  from the class and from an instance where one is easily made (a ``World``'s ``input``,
  an entity's ``alive``), and ``params``: the parameter names of every public function,
  method and constructor (a removed keyword breaks a caller as a removed method does);
- ``fixtures``: the fixtures of the pytest plugin the package registers;
- ``cli``: every command of ``tickswap`` and its options;
- ``reference``: every name the API reference (``docs/api.md``) documents, where it exists.

The same functions read today's API in the test, so a recording and today's are comparable.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import sys
import warnings
from typing import Any

# The modules whose names users were taught to import, in every version (missing ones are skipped).
TAUGHT = ("engine", "engine.testing", "engine.keys", "engine.crowd", "engine.render.view", "engine.render.runner",
          "engine.render.entities", "engine.tiles", "engine.net", "engine.loops", "engine.lab")
# Instances to read instance attributes from (``World().input``), made where a class is easily made.
_EASY: dict[str, Any] = {}


def _instance(name: str, cls: type) -> Any:
    """An instance of ``cls`` to read attributes from, or ``None`` where none is easily made."""
    engine = importlib.import_module("engine")
    makers: dict[str, Any] = {
        "World": lambda: engine.World(),
        "Entity": lambda: engine.Entity(),
        "Camera": lambda: engine.Camera(),
        "Look": lambda: engine.Look("square", 4, (1, 2, 3)),
        "RealClock": lambda: engine.RealClock(),
        "VirtualClock": lambda: engine.VirtualClock(),
        "Trace": lambda: engine.Trace(),
        "FrameRate": lambda: engine.FrameRate(60),
        "DoubleBuffer": lambda: engine.DoubleBuffer(list),
        "Framebuffer": lambda: engine.Framebuffer(),
        "Scene": lambda: engine.Scene(),
        "InputQueue": lambda: engine.InputQueue(),
        "FixedStepLoop": lambda: engine.FixedStepLoop(lambda: None, lambda alpha: None),
        "GameLoop": lambda: engine.GameLoop(lambda: None, lambda alpha: None),
        "ConstantRateLoop": lambda: engine.ConstantRateLoop(lambda: None, lambda alpha: None),
        "VariableStepLoop": lambda: engine.VariableStepLoop(lambda elapsed: None, lambda alpha: None),
        "RenderGatedLoop": lambda: engine.RenderGatedLoop(lambda: None, lambda alpha: None, ms_per_update=10),
    }
    if name == "TickInput":
        queue = engine.InputQueue()
        for take in ("take", "take_tick", "next_tick", "for_tick"):
            if hasattr(queue, take):
                try:
                    return getattr(queue, take)()
                except TypeError:
                    continue
        return None
    maker = makers.get(name)
    if maker is None:
        return None
    try:
        return maker()
    except Exception:
        return None


def _params(function: Any) -> list[str] | None:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    names = []
    for parameter in signature.parameters.values():
        if parameter.name in ("self", "cls"):
            continue
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            names.append("*" + parameter.name)
        elif parameter.kind is inspect.Parameter.VAR_KEYWORD:
            names.append("**" + parameter.name)
        else:
            names.append(parameter.name)
    return names


def _public(names: Any) -> list[str]:
    return sorted(name for name in names if not name.startswith("_"))


def read_api() -> dict[str, Any]:
    """The public API of the tickswap importable here, as plain data (see the module's docstring)."""
    modules: dict[str, list[str]] = {}
    members: dict[str, list[str]] = {}
    params: dict[str, list[str]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module_name in TAUGHT:
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue
            names = getattr(module, "__all__", None)
            if names is None:  # engine.keys: a namespace of constants
                names = [name for name in vars(module) if not inspect.ismodule(getattr(module, name))]
            modules[module_name] = _public(names)
            # A name moved out of the module (0.5: the loop lab and the teaching classes) is still
            # there as a warning alias: its members and parameters are still the API.
            moved = list(getattr(module, "_MOVED", {})) if module_name == "engine" else []
            for name in _public([*names, *moved]):
                value = getattr(module, name, None)
                where = name if module_name == "engine" else f"{module_name}.{name}"
                if inspect.isclass(value):
                    found = set(_public(dir(value)))
                    instance = _instance(name, value) if module_name == "engine" else None
                    if instance is not None:
                        found |= set(_public(dir(instance)))
                        close = getattr(instance, "close", None)
                        if name == "World" and callable(close):
                            close()
                    entity = getattr(importlib.import_module("engine"), "Entity", None)
                    if entity is not None and value is not entity and issubclass(value, entity):
                        # An entity class has every entity's attributes (``x``, ``alive``): read from an
                        # instance, since the compiled core puts them on the class and the pure path does not.
                        found |= set(_public(dir(entity())))
                    members[where] = sorted(found)
                    init = _params(value)
                    if init is not None:
                        params[where] = init
                    for member in sorted(found):
                        attribute = inspect.getattr_static(value, member, None)
                        if isinstance(attribute, (staticmethod, classmethod)):
                            attribute = attribute.__func__
                        if inspect.isfunction(attribute):
                            found_params = _params(attribute)
                            if found_params is not None:
                                params[f"{where}.{member}"] = found_params
                elif callable(value) and not isinstance(value, type):
                    found_params = _params(value)
                    if found_params is not None:
                        params[where] = found_params
    return {"modules": modules, "members": members, "params": params, "fixtures": _fixtures(), "cli": _cli(),
            "reference": _reference()}


def _reference() -> list[str]:
    """Every name ``docs/api.md`` documents: a module's ``__all__`` (less ``:exclude-members:``) or one object."""
    from pathlib import Path

    engine = Path(importlib.import_module("engine").__file__ or ".").parent
    page = engine.parent / "docs" / "api.md"
    if not page.is_file():
        return []
    found: set[str] = set()
    module = None
    excluded: set[str] = set()

    def finish() -> None:
        if module is not None:
            names = getattr(importlib.import_module(module), "__all__", [])
            found.update(f"{module}.{name}" for name in names if name not in excluded)

    for line in page.read_text().splitlines():
        text = line.strip()
        if text.startswith(".. automodule::"):
            finish()
            module, excluded = text.split("::", 1)[1].strip(), set()
        elif text.startswith(":exclude-members:") and module is not None:
            excluded = {name.strip() for name in text.split(":", 2)[2].split(",")}
        elif text.startswith(".. auto"):
            finish()
            module = None
            found.add(text.split("::", 1)[1].strip())
    finish()
    return sorted(found)


def _fixtures() -> list[str]:
    """The fixtures of the plugin that the tree's ``pyproject.toml`` registers (``pytest11``)."""
    from pathlib import Path

    import tomllib

    engine = Path(importlib.import_module("engine").__file__ or ".").parent
    with open(engine.parent / "pyproject.toml", "rb") as file:
        project = tomllib.load(file)["project"]
    found: set[str] = set()
    # The plugin the package registers, and (from 0.4) the fixtures module a project opts in to.
    for where in [*project.get("entry-points", {}).get("pytest11", {}).values(), "engine.testing.fixtures"]:
        try:
            plugin = importlib.import_module(where)
        except ImportError:
            continue
        for name, value in vars(plugin).items():
            if name.startswith("_"):
                continue
            if getattr(value, "_pytestfixturefunction", None) is not None or \
                    type(value).__name__ == "FixtureFunctionDefinition" or hasattr(value, "_fixture_function_marker"):
                found.add(name)
    return sorted(found)


def _cli() -> dict[str, list[str]]:
    parser = None
    for where in ("engine.tools.cli.options", "engine.tools.options"):
        try:
            parser = importlib.import_module(where).build_parser()
            break
        except (ImportError, AttributeError):
            continue
    if parser is None:
        return {}
    commands: dict[str, list[str]] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command, sub in action.choices.items():
                options: set[str] = set()
                for option in sub._actions:
                    if option.option_strings:
                        options.update(string for string in option.option_strings if string.startswith("--"))
                    elif option.dest != "help":
                        options.add(option.dest.upper())
                options.discard("--help")
                commands[command] = sorted(options)
    return commands


CURRENT_KEYS = ("modules", "members", "fixtures", "cli", "reference")
"""What ``current.json`` holds of today's API (parameters are compared with old releases only)."""


def current_api() -> dict[str, Any]:
    """Today's API as ``current.json`` records it."""
    api = read_api()
    return {key: api[key] for key in CURRENT_KEYS}


if __name__ == "__main__":
    if sys.argv[1:] == ["--update"]:
        from pathlib import Path

        target = Path(__file__).with_name("current.json")
        target.write_text(json.dumps(current_api(), indent=1, sort_keys=True) + "\n")
        print(f"wrote {target}")
    else:
        version, commit = sys.argv[1], sys.argv[2]
        print(json.dumps({"version": version, "commit": commit, **read_api()}, indent=1, sort_keys=True))
