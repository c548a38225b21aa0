"""Quest: an elder's word, a sword, slimes and two rooms, made with the engine's kit (see ``logic``)."""
