"""How slapstick looks: actors as circles, slap marks as small diamonds."""

from __future__ import annotations

from engine import Look
from games.slapstick.logic import Actor, SlapMark

BACKGROUND = (40, 30, 36)
LOOKS = {
    Actor: Look("circle", 34, (240, 190, 140)),
    SlapMark: Look("diamond", 16, (255, 60, 60)),
}
