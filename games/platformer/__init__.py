"""Platformer: a Tiled level, sprite sheets, a fixed HUD and music (see ``logic``); art by ``make_art.py``."""
