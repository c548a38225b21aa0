"""How comet looks: its entities carry their own looks; only the background is set here."""

from __future__ import annotations

BACKGROUND = (8, 10, 24)
