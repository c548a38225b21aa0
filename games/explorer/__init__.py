"""Explorer: a camera follows a player through a world larger than the window (see ``logic``)."""
