"""``tickswap package``: what a bundle holds, how it starts, and that it is the same game as ``tickswap run``.

Everything here but the last test runs without PyInstaller: the staged tree a bundle is
built from is started by the bundle's own entry (``engine.tools.ship.boot``) in a fresh
process, and must give ``tickswap run``'s hashes. ``test_a_packaged_sample_runs_with_no_python``
builds one real bundle (a minute or two) and runs it with an empty environment.
"""

from __future__ import annotations

import sys
import types

from engine.state.names import class_name


def _frozen_module(name: str, file: str, source: str) -> types.ModuleType:
    """A module as PyInstaller's frozen importer makes it: a ``__file__`` under the bundle that is no file on disk."""
    module = types.ModuleType(name)
    module.__file__ = file
    sys.modules[name] = module
    exec(compile(source, file, "exec"), module.__dict__)
    return module


GAME_SOURCE = "from engine import Entity\nclass Ball(Entity):\n    pass\ndef build(world):\n    pass\n"


def test_a_frozen_game_module_is_named_as_its_file_is_on_disk(tmp_path):
    """In a PyInstaller bundle a module's ``__file__`` is ``_MEIPASS/name.pyc``, which is not on disk: the class is
    still named as ``tickswap run game.py`` names it (``game:`` for a game file, its package path in a package)."""
    bundle = tmp_path / "_MEI123"  # never created: frozen modules have no file
    try:
        lone = _frozen_module("mygame_frozen", str(bundle / "mygame_frozen.pyc"), GAME_SOURCE)
        inner = _frozen_module("mypkg_frozen.logic", str(bundle / "mypkg_frozen" / "logic.pyc"), GAME_SOURCE)
        helper = _frozen_module("helper_frozen", str(bundle / "helper_frozen.pyc"),
                                "from engine import Entity\nclass Tile(Entity):\n    pass\n")
        assert class_name(lone.Ball) == "game:Ball", "a frozen game file is the game, as on disk"
        assert class_name(inner.Ball) == "mypkg_frozen.logic:Ball"
        assert class_name(helper.Tile) == "helper_frozen:Tile"
    finally:
        for name in ("mygame_frozen", "mypkg_frozen.logic", "helper_frozen"):
            sys.modules.pop(name, None)
