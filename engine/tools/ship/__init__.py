"""Shipping a game: ``tickswap package GAME`` makes a program that runs where no Python is installed.

PyInstaller builds it (the ``ship`` extra: ``pip install 'tickswap[ship]'``) from three parts:

- **the engine and what it needs**, frozen: pyglet (whose lazily loaded window, GL, media
  and font back-ends PyInstaller finds by itself: pyglet names them all in imports it never
  runs), esper, numpy, pytiled-parser, the standard library, and the compiled cores where
  they were built (``hooks/hook-engine.py``, which PyInstaller also finds through the
  ``pyinstaller40`` entry point when someone freezes a tickswap game by hand);
- **the game's own tree**, copied as files, never frozen (``tree``): a game file's directory
  (the modules beside it, its pictures, sounds, maps and fonts, less what is plainly not the
  game's: hidden files, caches, virtual environments, tests, ``build/`` and ``dist/``); a
  game package (whole, so its digest is the same); an installed game's top-level package. On
  disk in the bundle, the game loads exactly as ``tickswap run`` loads it, its files lie as
  they lay (a picture ``Path(__file__).parent / "hero.png"`` is found), and its classes are
  named by where their files lie, so its state hashes are ``tickswap run``'s;
- **an entry** (``boot``) that reads the bundle's manifest, loads the game and runs it with
  ``tickswap run``'s options.

``build`` plans it, runs PyInstaller, puts the bundle in place and runs it once to check
that it gives ``tickswap run``'s state hash.
"""

from __future__ import annotations

__all__: list[str] = []
