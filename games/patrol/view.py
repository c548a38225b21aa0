"""How patrol looks: one ``Look`` per kind of entity, drawn by the engine's renderer."""

from __future__ import annotations

from engine import Look
from games.patrol.logic import Bolt, Player, Skeleton, Statue

BACKGROUND = (24, 22, 30)
LOOKS = {
    Skeleton: Look("square", (12, 16), (226, 222, 200)),
    Statue: Look("diamond", 22, (150, 150, 170)),
    Bolt: Look("circle", 6, (255, 240, 90)),
    Player: Look("circle", 14, (90, 200, 255)),
}
