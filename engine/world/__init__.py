"""The world: ``World`` (the tick's schedule) and the parts it is composed of.

``World`` is the one name games use (exported from ``engine``). The functions beside it
are the engine's ways in to a world's parts, for its loader, renderer, runner and tools
and for tests; they are not part of ``World``'s namespace, so no game subclass sees them:
``spawner_of`` (restoring saved entities, ``structure_version``), ``esper_of`` (the esper
adapter), ``take_sounds`` (the sounds completed ticks asked for), ``take_music`` and
``music_of`` (the music they asked for, and the current track, for saves), ``players_of``
(every player's input queue, for checkpoints, saves and sessions), ``system_count``,
``population`` (how many entities live, as the HUD and the summary line say it), ``signal_senders``
(who sent the signals an entity sees, for the inspector), and ``TickProfile`` (where a world's ticks
spend their time: ``tickswap run --profile``).
"""

from engine.world.access import esper_of, population, signal_senders, system_count, take_sounds, updating_entity
from engine.world.music import music_of, take_music
from engine.world.players import players_of
from engine.world.profiling import TickProfile
from engine.world.spawner import Spawner, spawner_of
from engine.world.world import BufferedWriteError, EntityUpdateError, World

__all__ = ["BufferedWriteError", "EntityUpdateError", "Spawner", "TickProfile", "World", "esper_of", "music_of",
           "players_of", "population", "signal_senders", "spawner_of", "system_count", "take_music", "take_sounds",
           "updating_entity"]
