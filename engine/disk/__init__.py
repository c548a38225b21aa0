"""File plumbing every layer may use: bounded reads of regular files only, PNG headers, atomic writes, JSON lines.

A leaf package: it holds no engine state and imports nothing above the leaves, so a look
(reading a sprite sheet's header), a world's sounds, a tile map, saves, recordings and the
command line's outputs all open and write files the same careful way. What a file *means*
(a game, a save, a replay) is read above it, in ``engine.files`` and ``engine.world.save``.
"""
