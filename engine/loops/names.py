"""The loops a game can be run with, by the names the command line uses."""

from __future__ import annotations

__all__ = ["LOOPS"]

LOOPS = ("fixed", "max-fps", "constant", "variable", "gated")
"""``fixed`` (interpolated fixed step, the default), ``max-fps`` (fixed step, no
interpolation), ``constant`` (constant rate), ``variable`` (variable step), ``gated``
(render-gated)."""
