"""Sample games, one package per game, registered in ``pyproject.toml`` as ``tickswap.games`` entry points.

Each game is a package whose ``logic`` module runs headless (entities only) and
exposes ``build(world)``, which spawns the starting scene, ``DESCRIPTION``, and
optionally ``WIDTH``/``HEIGHT`` (pixels) and ``MS_PER_UPDATE``. Its ``view`` module, imported
only to draw, declares ``LOOKS`` (entity class -> ``Look``) and ``BACKGROUND``, or a
``make_view(world)`` of its own. The engine finds them through the entry points
(``engine.files.game``) and never imports this package by name.
"""
