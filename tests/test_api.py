"""The public API: every exported name is documented, and importing it stays headless."""

from __future__ import annotations

import subprocess
import sys

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


def test_every_public_name_of_every_engine_module_has_a_docstring(offscreen):
    import importlib
    import inspect
    import pkgutil

    undocumented = []
    for info in pkgutil.walk_packages(engine.__path__, "engine."):
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


def test_the_gui_widgets_and_the_mouse_are_public():
    # Added deliberately in 0.4 (engine.gui, world.mouse): a game imports them from engine.
    import engine.gui

    for name in ("Button", "Label", "Panel", "Slider", "Style", "TextInput", "Widget", "widget_under_mouse"):
        assert name in engine.__all__ and getattr(engine, name) is getattr(engine.gui, name), name
    assert "Mouse" in engine.__all__ and engine.World().mouse.__class__ is engine.Mouse
    assert engine.keys.MOUSE_LEFT == 1
