"""How towers looks: the map, units and buttons carry their own looks; only the colour round the map is set here."""

from __future__ import annotations

BACKGROUND = (26, 28, 44)
