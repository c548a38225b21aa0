"""The engine's ways in to a world's parts: for its runner, tools and tests, never for games.

They live beside ``World``, not on it, so no game subclass sees them in its namespace;
they read the parts ``World`` is composed of (``engine.world.world``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.buffering.own import OwnBuffers
from engine.ecs import EsperWorld
from engine.world.sounds import SoundRequest

if TYPE_CHECKING:
    from engine.world.world import World

__all__ = ["esper_of", "population", "signal_senders", "system_count", "take_sounds", "updating_entity"]


def esper_of(world: World) -> EsperWorld:
    """The esper adapter a world is composed of: for the engine's tools (``tickswap check`` reorders its systems)."""
    return world._ecs


def take_sounds(world: World) -> list[SoundRequest]:
    """Every sound ``world`` was asked to play by completed ticks (and between ticks) since the last call, in order.

    The runner plays them; a test of a game's sounds reads them here.
    """
    return world._sounds.take(world._ticking, world.tick_count)


def system_count(world: World) -> int:
    """How many systems were added with ``add_processor`` (the Update Method system is not counted)."""
    return world._early_systems + world._late_systems


def population(world: World) -> str:
    """How many entities live in ``world``, in words: ``"12 entities"``, ``"1 entity"``, and the
    members of its crowds beside them (``"3 entities, 1900 crowd members"``).

    The one count the HUD and the command line's summary line both show: live entities
    (drawn or not: a camera, a controller), each crowd one of them, its members apart.
    """
    live = world.entities
    said = f"{len(live)} {'entity' if len(live) == 1 else 'entities'}"
    crowds = [entity for entity in live if isinstance(entity, OwnBuffers)]
    if crowds:
        members = sum(crowd.count for crowd in crowds)
        said += f", {members} crowd {'member' if members == 1 else 'members'}"
    return said


def updating_entity(world: World) -> object | None:
    """The entity whose ``update()`` is running in ``world`` now, or ``None`` (between updates, in a system).

    ``tickswap check`` asks it to name the entities that draw from ``world.random``.
    """
    return world._buffers.sender


def signal_senders(world: World, entity: object) -> dict[str, tuple[int, ...]] | None:
    """Who sent each signal ``entity`` sees now (raised in ``world``'s last tick): name -> sender ids, in the
    canonical order the signal combined them (-1: raised by a system or ``build``, outside any update).

    ``None`` when that is not known: right after a rollback or a load, until the next tick.
    The inspector (``engine.studio``) shows it.
    """
    return world._buffers.senders_of(entity)  # type: ignore[arg-type]
