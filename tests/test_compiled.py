"""engine.compiled: the one loader of an optional C extension, and what TICKSWAP_PURE means to it."""

from __future__ import annotations

import importlib

import pytest

from engine import compiled


def _missing() -> object:
    return importlib.import_module("engine._no_such_extension")


@pytest.mark.parametrize("value", ["", "0"])
def test_an_extension_that_imports_is_loaded_unless_pure_is_asked(monkeypatch, value):
    monkeypatch.setenv("TICKSWAP_PURE", value)
    assert not compiled.pure_asked()
    assert compiled.load(lambda: importlib) is importlib


@pytest.mark.parametrize("value", ["1", "yes"])
def test_tickswap_pure_set_gives_the_pure_path_without_trying_the_import(monkeypatch, value):
    monkeypatch.setenv("TICKSWAP_PURE", value)
    tried = []
    assert compiled.pure_asked()
    assert compiled.load(lambda: tried.append(1)) is None
    assert tried == []


def test_an_extension_that_was_not_built_gives_the_pure_path(monkeypatch):
    monkeypatch.delenv("TICKSWAP_PURE", raising=False)
    assert compiled.load(_missing) is None


def test_an_error_other_than_a_missing_module_is_not_hidden(monkeypatch):
    monkeypatch.delenv("TICKSWAP_PURE", raising=False)

    def broken() -> object:
        raise RuntimeError("the extension's init failed")

    with pytest.raises(RuntimeError, match="init failed"):
        compiled.load(broken)
