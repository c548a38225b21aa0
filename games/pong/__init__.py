"""Pong: two players, first to 7, with pixel art and sounds made by ``make_art.py`` (see ``logic``)."""
