"""How bouncy looks: one big ball."""

from __future__ import annotations

from engine import Look
from games.bouncy.logic import Ball

BACKGROUND = (16, 24, 40)
LOOKS = {Ball: Look("circle", 24, (255, 150, 60))}
