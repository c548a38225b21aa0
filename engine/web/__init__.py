"""The browser runner: the game's loop, drawing, input and sound in a web page, on Pyodide.

The browser's twin of ``engine.render`` (and, with it, the only other place that draws):
``WebRunner`` (``runner.py``) is the lag-accumulator loop that the page's
``requestAnimationFrame`` drives, the DOM's keyboard, mouse and gamepad events turned into
the engine's input events (``dom.py``), and the sounds and music a tick asked for; ``scene``
(``scene.py``) reads the same looks, parts, text, tile maps and camera as the pyglet
renderer and gives the page a list to draw with Canvas 2D (``static/tickswap-web.js``).
Nothing here imports pyglet or numpy, and nothing here changes game state: the ticks are
the engine's own, so a browser run is the same game, bit for bit.
"""

from __future__ import annotations

from engine.web.dom import dom_key
from engine.web.runner import WebRunner
from engine.web.scene import scene

__all__ = ["WebRunner", "dom_key", "scene"]
