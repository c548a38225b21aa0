"""How swarm looks: every particle a tiny bright square."""

from __future__ import annotations

from engine import Look
from games.swarm.logic import Swarm

BACKGROUND = (6, 8, 16)
LOOKS = {Swarm: Look("square", 2, (120, 200, 255, 255))}
