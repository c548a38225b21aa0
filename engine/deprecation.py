"""Deprecated names: what a public name removed from the API says while its alias lasts.

tickswap removes a public name only after one minor version of warning: the name stays
as an alias that does what it did and warns (``DeprecationWarning``, naming what to use
instead), and ``docs/changelog.md`` says when it goes. A leaf: it imports nothing from the engine.
"""

from __future__ import annotations

import warnings

__all__ = ["MOVED_REMOVED_IN", "REMOVED_IN", "warn_deprecated"]

REMOVED_IN = "0.6"
"""The version that drops the aliases of names removed in 0.3 (they came back, warning, in 0.4). 0.4 said
0.5; they stay one version more, so that every game written for 0.2 still runs under 0.5 (``tests/old_games``)."""


MOVED_REMOVED_IN = "0.6"
"""The version that drops the top-level aliases of the names 0.5 moved out of ``engine`` (the loop lab's
to ``engine.loops``, the teaching classes to ``engine.lab``, ``Look.label`` to ``Look.caption``)."""


def warn_deprecated(old: str, new: str, *, stacklevel: int = 3, removed_in: str = REMOVED_IN) -> None:
    """Warn that ``old`` is deprecated, naming ``new`` and the version ``removed_in`` that drops it; the warning
    points at the caller's line (``stacklevel``)."""
    warnings.warn(f"{old} is deprecated and goes in tickswap {removed_in}: use {new}", DeprecationWarning,
                  stacklevel=stacklevel)
