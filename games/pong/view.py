"""How pong looks: the court is a picture entity; only the colour round it is set here."""

from __future__ import annotations

BACKGROUND = (17, 26, 54)
