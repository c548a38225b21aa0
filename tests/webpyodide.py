"""Pyodide's npm package for the web tests: installed once into a cache outside the repository, or a skip."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.tools.ship.web import PYODIDE_FILES

PYODIDE_VERSION = "314.0.7"
"""The npm package the tests install (Pyodide's runtime: CPython 3.14 for WebAssembly)."""


def cache_dir() -> Path:
    """Where the npm package goes: ``$TICKSWAP_WEB_CACHE``, else ``~/.cache/tickswap-web``."""
    return Path(os.environ.get("TICKSWAP_WEB_CACHE") or Path.home() / ".cache" / "tickswap-web")


def pyodide_or_skip() -> Path:
    """The directory of Pyodide's runtime files, installed with npm if it isn't yet; skips where it can't be had."""
    where = cache_dir() / "node_modules" / "pyodide"
    if all((where / name).is_file() for name in PYODIDE_FILES):
        if shutil.which("node") is None:
            pytest.skip("node is not installed: the Pyodide tests need Node.js")
        return where
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed: the Pyodide tests need Node.js and npm")
    cache_dir().mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(["npm", "install", "--prefix", str(cache_dir()), "--no-audit", "--no-fund",
                               f"pyodide@{PYODIDE_VERSION}"], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.skip("npm install pyodide took more than 5 minutes (no network?)")
    if done.returncode != 0 or not all((where / name).is_file() for name in PYODIDE_FILES):
        pytest.skip(f"npm could not install pyodide@{PYODIDE_VERSION} (no network?): "
                    f"{(done.stderr or done.stdout).strip()[-300:]}")
    return where
