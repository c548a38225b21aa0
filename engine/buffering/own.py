"""OwnBuffers: the protocol of an entity that keeps buffers of its own, as a ``Crowd`` keeps its members.

Such an entity is one entity to the world (one ``update()`` at its place in the spawn
order) but holds many members in arrays it double-buffers itself. The engine drives it
through this protocol and never names the class that implements it: the buffers commit
and abort its arrays with every tick, a save keeps and restores them, the renderer draws
its members, and collision queries leave it out (its own position means nothing for its
members), reading its members' positions when they ask what they overlap
(``world.overlapping_members``). ``engine.crowd.Crowd`` implements it.

A plain base class rather than a ``typing.Protocol``: the renderer and the collision grid
ask ``isinstance`` of every entity, and a nominal check costs what any ``isinstance``
does, where a runtime protocol's inspects attributes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from engine.look import Look

__all__ = ["OwnBuffers", "keep_own", "member_positions", "put_back_own", "restore_own", "saved_own"]


class OwnBuffers:
    """An entity whose members live in buffers of its own (see the module docstring).

    The underscored methods are the engine's: a game never calls them.
    """

    __slots__ = ()

    fields: ClassVar[dict[str, int]]
    """Per-member state: field name -> number of float32 columns (``position`` has 2)."""
    capacity: int
    """How many members fit."""
    count: int
    """Live members (committed)."""
    look: Look | None
    """How each member is drawn (``None``: not drawn)."""

    def _commit_own(self, tick: int) -> None:
        """After tick ``tick`` succeeded: swap in what it wrote, apply member spawns and despawns."""
        raise NotImplementedError

    def _abort_own(self) -> None:
        """The tick failed: forget what it wrote and what it asked to join or leave."""
        raise NotImplementedError

    def _saved_own(self) -> dict[str, Any]:
        """The committed members as JSON data, for a save (``capacity``, ``count``, ``fields``)."""
        raise NotImplementedError

    def _restore_own(self, data: dict[str, Any]) -> None:
        """Make this instance (made with ``__new__`` by a load) hold what ``_saved_own`` returned.

        It sets up the engine's own state too, as the constructor would have, since a
        load calls no constructor.
        """
        raise NotImplementedError

    def _keep_own(self) -> Any:
        """The committed members, in memory, for a checkpoint (taken between ticks): opaque to the engine."""
        raise NotImplementedError

    def _put_back_own(self, kept: Any) -> None:
        """Hold again what ``_keep_own`` returned (a rollback, between ticks)."""
        raise NotImplementedError

    def _member_positions(self) -> Any:
        """The members' committed positions, for collisions: a C-contiguous float32 array of ``count`` rows of
        (x, y), read-only."""
        raise NotImplementedError

    def draw_positions(self, alpha: float, out: Any, extrapolate: bool = False) -> int:
        """Write every member's drawn position into ``out`` (rows ``[0, count)``); return the count."""
        raise NotImplementedError

    def draw_field(self, name: str, alpha: float, out: Any) -> int:
        """Write member field ``name`` interpolated for ``alpha`` into ``out`` (rows ``[0, count)``); return the count.

        The renderer asks for ``scale`` and ``opacity`` when ``fields`` has them: a size and
        an opacity per member (particles that shrink and fade).
        """
        raise NotImplementedError


# The engine's parts outside this package (saves, checkpoints, collisions) reach the protocol's
# underscored hooks through these, so the hooks stay out of a crowd's public namespace and
# no other package reads a private attribute.
def saved_own(entity: OwnBuffers) -> dict[str, Any]:
    """A crowd's committed members as JSON data, for a save (``OwnBuffers._saved_own``)."""
    return entity._saved_own()


def restore_own(entity: OwnBuffers, data: dict[str, Any]) -> None:
    """Make a crowd made by a load (with ``__new__``) hold what ``saved_own`` returned."""
    entity._restore_own(data)


def keep_own(entity: OwnBuffers) -> Any:
    """A crowd's committed members, in memory, for a checkpoint (between ticks)."""
    return entity._keep_own()


def put_back_own(entity: OwnBuffers, kept: Any) -> None:
    """Make a crowd hold again what ``keep_own`` returned (a rollback, between ticks)."""
    entity._put_back_own(kept)


def member_positions(entity: OwnBuffers) -> Any:
    """A crowd's members' committed positions, for collisions (read-only float32 rows of x, y)."""
    return entity._member_positions()
