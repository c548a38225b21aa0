"""Save and load whole worlds: versioned JSON, written atomically, checked before anything is built.

``check`` is the one definition of a valid save (the format, and every check the reader
and the writer share); ``write`` writes a world; ``restore`` reads a file and builds a
new world from it. ``World.save`` and ``World.load`` are the documented way in: they
delegate here. Nothing in this package imports ``engine.world.world``: it reads a world,
and fills a new one, through ``Host`` (``engine.buffering``), the one protocol of a world.
"""

from __future__ import annotations

from engine.world.save.check import FORMAT as FORMAT
from engine.world.save.check import VERSION as VERSION
from engine.world.save.check import SaveError as SaveError
from engine.world.save.check import parse_save as parse_save
from engine.world.save.restore import load_world as load_world
from engine.world.save.restore import load_world_data as load_world_data
from engine.world.save.restore import load_world_text as load_world_text
from engine.world.save.restore import read_meta as read_meta
from engine.world.save.write import save_text as save_text
from engine.world.save.write import save_world as save_world

__all__ = ["FORMAT", "VERSION", "SaveError", "load_world", "load_world_data", "load_world_text", "parse_save",
           "read_meta", "save_text", "save_world"]
