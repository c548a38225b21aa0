"""Two snapshots compared: moved to ``engine.state.differences``, where snapshots live (0.4).

Kept so that code importing it here still works, with a ``DeprecationWarning`` (goes in 0.6);
the engine itself imports it from ``engine.state`` (a session's desync report, in
``engine.net``, may not import ``tools``).
"""

from __future__ import annotations

from engine.deprecation import MOVED_REMOVED_IN, warn_deprecated
from engine.state.differences import SHOWN_DIFFERENCES as SHOWN_DIFFERENCES
from engine.state.differences import EntityDifference as EntityDifference
from engine.state.differences import compare_snapshots as compare_snapshots
from engine.state.differences import difference_lines as difference_lines
from engine.state.differences import in_entities as in_entities

__all__ = ["SHOWN_DIFFERENCES", "EntityDifference", "compare_snapshots", "difference_lines", "in_entities"]

warn_deprecated("engine.tools.differences", "engine.state.differences", stacklevel=2, removed_in=MOVED_REMOVED_IN)
