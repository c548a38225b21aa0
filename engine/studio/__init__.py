"""Building a game while it runs: rewind, live reload and an inspector, in the window and in tests.

``Studio`` (``engine.studio.studio``) wraps one running world: pause it, go back through
a ring of its recent past (``engine.studio.timeline``), step, resume from any tick,
reload the game's code and assets keeping the state (``engine.studio.reload``, through
the save format), and inspect an entity (``engine.studio.inspect``). ``Watcher``
(``engine.studio.watch``) tells the loop which files changed, from a thread that never
touches the world. The window (``engine.render.runner``) ticks a ``Studio`` through
``StudioDriver`` (``engine.studio.driver``) and drives it from its keys; ``engine.testing``
offers the same object to tests, with no window.
"""

from engine.studio.driver import StudioDriver as StudioDriver
from engine.studio.inspect import Inspection as Inspection
from engine.studio.inspect import entity_at as entity_at
from engine.studio.reload import ReloadError as ReloadError
from engine.studio.studio import ReloadResult as ReloadResult
from engine.studio.studio import Studio as Studio
from engine.studio.timeline import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
from engine.studio.timeline import DEFAULT_SECONDS as DEFAULT_SECONDS
from engine.studio.watch import Watcher as Watcher
from engine.studio.watch import WatchUnavailable as WatchUnavailable

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_SECONDS", "Inspection", "ReloadError", "ReloadResult", "Studio",
           "StudioDriver", "WatchUnavailable", "Watcher", "entity_at"]
