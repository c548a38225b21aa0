"""tickswap's pytest plugin (the ``pytest11`` entry point): ``world`` and ``clock`` only where a project wants them.

Installing a package registers its ``pytest11`` plugin in every pytest run of the
environment, whatever the project. So this plugin gives no fixture to a project by
itself; it only adds the ``tickswap_fixtures`` setting and, when it is true, loads
``engine.testing.fixtures`` (the ``world`` and ``clock`` fixtures): see that module for
the ways to opt in.

A deprecation path, for tests written before 0.4 (when every project got the two
fixtures): a test module that uses tickswap (it imports ``engine``, or a module that
does, such as the game it tests) and asks for ``world`` or ``clock`` without opting in
still gets them, with a ``DeprecationWarning`` saying how to opt in. This ends in 0.5. A
project that never imports tickswap sees neither name (``pytest --fixtures`` lists
none, a typo'd fixture is an error), and a ``world`` fixture of the project's own always wins.

This module defines no fixture (pytest would give a plugin's fixtures to every project):
the deprecated ones are ``engine.testing.implicit``'s, a module no pytest registers.
Importing it imports nothing of tickswap beyond ``import engine`` (which has the world
already): not ``engine.testing.fixtures``, nor the files and checks of ``engine.testing``.
"""

from __future__ import annotations

import sys
from types import ModuleType

import pytest

from engine.testing import implicit
from engine.testing.implicit import FIXTURES, SETTING

__all__ = ["FIXTURES", "SETTING", "pytest_addoption", "pytest_collectstart", "pytest_configure", "uses_tickswap"]

_NAMES = ("world", "clock")


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ``tickswap_fixtures`` setting (default false: no fixture unless the project asks)."""
    parser.addini(SETTING, type="bool", default=False,
                  help="give the tests tickswap's world and clock fixtures (engine.testing.fixtures)")


def pytest_configure(config: pytest.Config) -> None:
    """Load the fixtures for a project whose settings say ``tickswap_fixtures = true``."""
    if config.getini(SETTING) and not config.pluginmanager.has_plugin(FIXTURES):
        config.pluginmanager.import_plugin(FIXTURES)


def _is_fixture(value: object) -> bool:
    return (getattr(value, "_pytestfixturefunction", None) is not None
            or type(value).__name__ == "FixtureFunctionDefinition")


def _from_tickswap(value: object) -> bool:
    try:
        name = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
    except Exception:  # an object whose attribute lookup raises is no part of tickswap
        return False
    return isinstance(name, str) and (name == "engine" or name.startswith("engine."))


def uses_tickswap(module: ModuleType) -> bool:
    """Whether a test module uses tickswap: it holds something of ``engine``, or a module of its own that does."""
    values = list(vars(module).values())
    if any(_from_tickswap(value) for value in values):
        return True
    return any(isinstance(value, ModuleType) and not value.__name__.startswith(("_", "pytest", "test"))
               and any(_from_tickswap(inner) for inner in list(vars(value).values())) for value in values)


def pytest_collectstart(collector: pytest.Collector) -> None:
    """The deprecation path: a test module that uses tickswap, in a project that did not opt in, gets the fixtures.

    They are put in the module as if it had imported them (``from ... import world``), so
    only that module sees them; never over a name the module, a conftest or a plugin
    already gives.
    """
    if not isinstance(collector, pytest.Module) or collector.config.pluginmanager.has_plugin(FIXTURES):
        return
    try:
        module = collector.obj  # imported now rather than a moment later; a failure is left to collect to report
    except (Exception, pytest.skip.Exception):  # the collection that follows reports it, as it always would
        return
    if not isinstance(module, ModuleType) or not uses_tickswap(module):
        return
    given = {name for plugin in collector.config.pluginmanager.get_plugins() for name in _NAMES
             if plugin is not sys.modules[__name__] and _is_fixture(getattr(plugin, name, None))}
    for name in _NAMES:
        if name not in vars(module) and name not in given:
            setattr(module, name, getattr(implicit, name))
