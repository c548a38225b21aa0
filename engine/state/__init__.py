"""A world's state as plain data: snapshots and state hashes, the names they record, saved values.

``snapshot`` turns a world's buffered state into plain data and hashes it (``state_hash``,
``UnhashableState``); ``names`` is a leaf holding the version and the names of game
classes; ``values`` encodes, checks and decodes what a save holds of a game's state.
Files (saves, replays) are built on this package, which never imports ``engine.files``.
Nothing is re-exported here: ``names`` stays a leaf that needs no entity to import.
"""
