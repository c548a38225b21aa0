"""Players and their input: one input queue per player, each tick's input per player.

A part of ``World``: a game for one player reads ``world.input``; a game for several reads
``world.input_of(player)``, each player's keys, mouse and sticks their own. A network
session pushes each player's events into ``world.input_queue_of(player)`` before a tick;
a checkpoint and a save keep every queue through ``players_of(world)``.
"""

from __future__ import annotations

from typing import Any

from engine.files.game import MAX_PLAYERS
from engine.input.events import InputQueue, Sticks, TickInput

__all__ = ["KeptInput", "Players", "players_of"]

KeptInput = tuple[tuple[tuple[tuple[list[Any], frozenset[Any], tuple[float, float], Sticks], bool], ...],
                  tuple[TickInput, ...]]
"""Every player's queue state and whether connected, and last input (``Players.kept``)."""


class Players:
    """Every player's input queue, and the input each had in the tick in progress (or the last one)."""

    def __init__(self, count: int) -> None:
        if type(count) is not int or not 1 <= count <= MAX_PLAYERS:
            raise ValueError(f"World(players=...) is a whole number from 1 to {MAX_PLAYERS}, got {count!r}")
        self.queues = tuple(InputQueue() for _ in range(count))
        self.inputs = [TickInput() for _ in range(count)]

    def check(self, player: Any, what: str) -> int:
        """``player`` if the world has that player, else ``ValueError`` naming it and the method ``what``."""
        if type(player) is not int or not 0 <= player < len(self.queues):
            raise ValueError(f"world.{what}(player) takes a player from 0 to {len(self.queues) - 1}, "
                             f"got {player!r}")
        return player

    def take(self) -> TickInput:
        """A tick starts: every queue's events become that player's input; returns player 0's."""
        self.inputs = [queue.take() for queue in self.queues]
        return self.inputs[0]

    def restore(self) -> TickInput:
        """A tick is abandoned: every player's events go back to the front of their queue; player 0's empty input."""
        for queue, taken in zip(self.queues, self.inputs):
            queue.restore(taken)
        self.inputs = [TickInput() for _ in self.queues]
        return self.inputs[0]

    def kept(self) -> KeptInput:
        """Every queue's state and every player's last input (for a checkpoint)."""
        return tuple((queue.state(), queue.connected) for queue in self.queues), tuple(self.inputs)

    def put_back(self, kept: KeptInput) -> TickInput:
        """Hold what ``kept`` returned again; returns player 0's last input."""
        states, inputs = kept
        for queue, (state, connected) in zip(self.queues, states):
            queue.set_state(*state, connected=connected)
        self.inputs = list(inputs)
        return self.inputs[0]


def players_of(world: object) -> Players:
    """The ``Players`` a ``World`` is composed of: for checkpoints, saves and sessions, not for games."""
    players = getattr(world, "_players", None)
    if not isinstance(players, Players):
        raise TypeError(f"players_of takes a World, got {world!r}")
    return players
