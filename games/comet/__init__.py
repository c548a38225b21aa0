"""Comet: a ship turns, thrusts and shoots rocks; text shows the score (see ``logic``)."""
