"""Towers: a tower defense on a Tiled route, waves, GUI buttons, a crowd of shots (``logic``); art: ``make_art.py``."""
