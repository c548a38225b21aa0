"""Scenes, rounds and levels that clean up: a ``Director`` says which is on, ``Staged`` entities leave with it.

A game has scenes (a title, the play, a game over), rounds (the same arena again) and
levels (a map and what stands on it). Arcade gives a game ``View``s and ``Scene``s, ppb a
stack of scenes that own their children; tickswap keeps the Update Method's one model:
a scene is the set of entities in the world while it is on, and one entity, a
``Director``, says which is on. What this module adds is that the pattern (a director,
self-removing parts, a change spread over three ticks) is written once, correctly:

- ``director.go("level2")`` is the one operation that changes the scene (the round, the
  level). It writes the director's own buffered ``scene`` and ``serial``, committed at the
  tick's end, so every entity reads the same scene all tick.
- In the next tick the director calls its ``enter(world, scene)``, where the game spawns
  the new scene's entities with ``self.spawn(world, entity)``: they join after that tick.
- In that same tick every ``Staged`` entity of the old scene leaves by itself, before its
  ``update`` runs (it reads the director's committed ``serial`` at the start of its own
  update), so none of them acts after the change, in any update order. The new ones play
  from the tick after: no tick sees two levels act at once, and a map of the old level and
  one of the new never stand together in a tick's collision tables.

``go`` with the scene already on starts it again (a new round): a scene is known by its
``serial``, a count of changes, not only by its name. Everything is buffered state or an
attribute set once at spawn and saved (``saved``), so a director and its scenes are saved,
loaded, replayed, rolled back and order-independent like every entity. A map belongs to
a level by the same mixin: ``class Room(Staged, TileMap)`` and ``Room.load(path)``.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from engine.advancing import Advancing
from engine.entity import Entity, buffered
from engine.messages import shown

__all__ = ["Director", "Staged"]

E = TypeVar("E", bound=Entity)


class Director(Advancing):
    """Says which scene, round or level is on; ``go`` changes it, ``enter`` spawns the new one's entities.

    Subclass it and override ``enter(world, scene)``; start with ``Director("title")`` (the
    first scene is entered in the first tick, its entities play from the second). Call
    ``go`` from the director's own ``update`` (or between ticks, from ``build`` or a test):
    like every buffered field, ``scene`` is the director's own state.
    """

    scene: str = buffered("")
    """The scene on now (committed: what every entity reads this tick)."""
    serial: int = buffered(0)
    """How many times ``go`` was called: a scene started again is a new one, its old entities leave."""
    entered: int = buffered(0)
    """The ``serial`` whose entities ``enter`` has spawned."""

    def __init__(self, scene: str = "", **position: Any) -> None:
        super().__init__(**position)
        if scene:
            self.go(scene)

    def go(self, scene: str) -> None:
        """End the scene on now and start ``scene`` (the same name again: a new round of it).

        Its entities leave in the next tick, when ``enter`` spawns the new scene's.
        """
        if not isinstance(scene, str) or not scene:
            raise ValueError(f"Director.go takes the name of a scene, a non-empty string; got {shown(scene)}")
        self.scene = scene
        self.serial += 1

    def enter(self, world: Any, scene: str) -> None:
        """Spawn the entities of ``scene`` with ``self.spawn(world, entity)``: override this in your director."""

    def spawn(self, world: Any, entity: E) -> E:
        """Spawn ``entity`` as part of the scene being entered: it leaves by itself when the scene ends.

        ``entity`` must be ``Staged`` (its class lists ``Staged`` among its bases), so that it
        leaves before it acts; anything else is refused, naming it.
        """
        if not isinstance(entity, Staged):
            raise TypeError(f"{type(entity).__name__} is not Staged, so it could not leave with its scene: "
                            f"declare it as class {type(entity).__name__}(Staged, ...) (a map: "
                            f"class Room(Staged, TileMap)), or spawn it with world.spawn to keep it")
        entity.director = self
        entity.part_of = self.serial
        return world.spawn(entity)  # type: ignore[no-any-return]

    def _advance(self, world: Any) -> None:
        if self.entered != self.serial:
            self.entered = self.serial
            self.enter(world, self.scene)
        super()._advance(world)


class Staged(Advancing):
    """An entity that belongs to one scene of a ``Director`` and leaves, before it acts, when that scene ends.

    Spawned through ``director.spawn(world, entity)`` (which sets ``director`` and
    ``part_of``); spawned with ``world.spawn`` it belongs to no scene and stays. Use it as
    the first base of a game's class (``class Rock(Staged)``, ``class Room(Staged, TileMap)``).
    """

    saved: ClassVar[tuple[str, ...]] = ("director", "part_of")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.director: Director | None = None
        self.part_of = 0

    def _advance(self, world: Any) -> None:
        director = self.director
        # The director's committed serial: the same for every part, whichever updates first.
        if director is not None and director.serial != self.part_of:
            world.despawn(self)
            return
        super()._advance(world)
