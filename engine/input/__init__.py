"""Input: events queued per tick, every key by name, and ``--input`` scripts with their one reader.

``events`` holds ``InputEvent``, ``InputQueue`` and ``TickInput``; ``keys`` the key codes
(``engine.keys`` is this module too); ``checks`` the checks of events as files hold them
(replays, scripts, saves); ``scripts`` the ``--input`` format and its public readers,
``read_input_script`` (player 0's input) and ``read_input_scripts`` (every player's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.input import keys as keys
from engine.input.events import InputEvent as InputEvent
from engine.input.events import InputQueue as InputQueue
from engine.input.events import TickInput as TickInput

if TYPE_CHECKING:
    from engine.input.scripts import read_input_script as read_input_script
    from engine.input.scripts import read_input_scripts as read_input_scripts


def __getattr__(name: str) -> Any:
    # The script readers share the replay format's line reader, which loads the world: they
    # load when first named, so that the world can import this package's events.
    if name in ("read_input_script", "read_input_scripts"):
        from engine.input import scripts

        return getattr(scripts, name)
    raise AttributeError(f"module 'engine.input' has no attribute {name!r}")


__all__ = ["InputEvent", "InputQueue", "TickInput", "keys", "read_input_script", "read_input_scripts"]
