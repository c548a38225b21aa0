"""The checks' input: seeded random input or scripted input, for every player of the world.

``tickswap check`` and ``engine.testing`` feed the worlds they compare the same events.
A world of several players (``World(players=N)``) gets input for each of them: each
player's random input is a stream of its own, seeded by the check's seed and the player's
number (never by ``hash()`` or set order, so it is the same in every process), and player
0's is the stream a one-player check has always had. The setup a check runs may be a game
(``load_game``): then the game's player count (its ``PLAYERS``) and keys (its ``KEYS``) are
the defaults, and a count it does not take is refused, as ``tickswap run --players`` does.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine.constants import MAX_PLAYERS
from engine.files.game import Game
from engine.input.events import InputEvent
from engine.input.keys import name as key_name

__all__ = ["DEFAULT_KEYS", "Inputs", "Setup", "events_for", "game_of", "random_input", "random_keys", "setup_of",
           "whole_numbers"]

DEFAULT_KEYS: tuple[int, ...] = (65361, 65362, 65363, 65364, 32, 65293, 119, 97, 115, 100)
"""The keys random input presses unless told otherwise: the arrows, Space, Enter and W A S D
(pyglet's key codes). A game's own keys are named with ``random_input(keys=...)``."""

Inputs = Callable[[int], Iterable[InputEvent]] | Mapping[int, Sequence[InputEvent]] | None
"""One player's input for a check: a function of the tick number (1-based) returning that
tick's events, a mapping from tick number to events, or ``None`` for none at all. A check
of several players takes a list or tuple of them, one per player; one alone is player 0's."""


def random_input(seed: int = 0, *, keys: Sequence[Any] = DEFAULT_KEYS, width: float = 640.0,
                 height: float = 480.0, rate: float = 0.2, player: int = 0) -> Callable[[int], list[InputEvent]]:
    """Seeded random input: key presses and releases, mouse moves, clicks and drags.

    Returns a function of the tick number giving that tick's events; the same seed gives
    the same events, whichever world asks and however often (it is a pure function of
    ``(seed, player, tick)``). ``rate`` is the chance, per tick, of each kind of event. When
    ``keys`` holds a game controller's buttons (``keys.PAD_A`` ...), its sticks move too.
    Each ``player`` has a stream of its own (player 0's is the one-player check's).
    """
    if not keys:
        raise ValueError("random_input needs at least one key to press")
    if type(player) is not int or not 0 <= player < MAX_PLAYERS:
        raise ValueError(f"random_input's player is a whole number from 0 to {MAX_PLAYERS - 1}, got {player!r}")
    keys = tuple(keys)
    pads = any(type(key) is int and key_name(key).startswith("PAD_") for key in keys)
    # A str seed goes through SHA-512, never hash(): the same in every process.
    stream = "" if player == 0 else f":player {player}"

    def events(tick: int) -> list[InputEvent]:
        rng = random.Random(f"{seed}:{tick}{stream}")
        made: list[InputEvent] = []
        if rng.random() < rate:
            made.append(InputEvent("key_press", rng.choice(keys)))
        if rng.random() < rate:
            made.append(InputEvent("key_release", rng.choice(keys)))
        if rng.random() < rate:
            made.append(InputEvent("mouse_motion", None, rng.uniform(0, width), rng.uniform(0, height)))
        if rng.random() < rate / 2:
            x, y = rng.uniform(0, width), rng.uniform(0, height)
            pressed = rng.random() < 0.5
            made.append(InputEvent("mouse_press", 1, x, y) if pressed else InputEvent("mouse_release", 1, x, y))
        if pads and rng.random() < rate:  # drawn last: games without pads get the same input as before
            made.append(InputEvent("stick", rng.randrange(2), rng.randint(-256, 256) / 256,
                                   rng.randint(-256, 256) / 256))
        return made

    return events


def random_keys(game: Game | None) -> tuple[int, ...]:
    """The keys a check's random input presses for ``game``: its ``KEYS``, else ``DEFAULT_KEYS`` and the keys its
    ``PLAYER_KEYS`` reads (a split keyboard's punch read as ``keys.J`` is pressed too)."""
    if game is None:
        return DEFAULT_KEYS
    if game.keys is not None:
        return game.keys
    read = {key for part in (game.player_keys or {}).values() for key in part.values()}
    return DEFAULT_KEYS + tuple(sorted(read - set(DEFAULT_KEYS)))


def events_for(inputs: Inputs | str) -> Callable[[int], Iterable[InputEvent]]:
    """One player's input as a function of the tick (see ``Inputs``); a wrong kind of value is refused by name."""
    if inputs is None:
        return lambda tick: ()
    if isinstance(inputs, str):  # the right type with a wrong value: a ValueError
        raise ValueError(
            f"inputs must be 'random', None, a mapping or a function of the tick, got {inputs!r}")
    if isinstance(inputs, Mapping):
        scripted = inputs
        return lambda tick: scripted.get(tick, ())
    if callable(inputs):
        return inputs
    raise TypeError(f"inputs must be 'random', None, a mapping or a function of the tick, got {inputs!r}")


class Setup:
    """What a check runs: how to set a world up, for how many players, and each player's input by tick."""

    def __init__(self, build: Callable[[Any], Any], systems: Callable[[Any], Any] | None, players: int,
                 inputs: list[Callable[[int], Iterable[InputEvent]]]) -> None:
        self.build = build
        self.systems = systems
        self.players = players
        """How many players each world has (``World(players=...)``)."""
        self.inputs = inputs
        """Each player's input, a function of the tick."""

    def start(self, world: Any) -> Any:
        """Set ``world`` up for the check: the game's ``build``, then its ``systems`` if it has them; ``world`` back."""
        self.build(world)
        if self.systems is not None:
            self.systems(world)
        return world

    def feed(self, world: Any, events: list[list[InputEvent]]) -> None:
        """Queue each player's ``events`` (one list per player, as ``events_at`` gives) for the world's next tick."""
        for player, mine in enumerate(events):
            queue = world.input_queue_of(player)
            for event in mine:
                queue.push(event)

    def events_at(self, tick: int) -> list[list[InputEvent]]:
        """Every player's events of ``tick``, one list per player."""
        return [list(events(tick)) for events in self.inputs]


def whole_numbers(least: int = 1, **counts: object) -> None:
    """Refuse, naming it, a count a check was given that is not a whole number of at least ``least``."""
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be a whole number >= {least}, got {value!r}")


def _sized(build: Callable[[Any], Any], size: tuple[int, int]) -> Callable[[Any], Any]:
    """``build``, giving the world the game's window size first (as ``Game.setup`` does)."""
    def sized(world: Any) -> Any:
        world.view_size = size
        return build(world)

    return sized


def game_of(build: Any, systems: Any) -> Game | None:
    """The game a check's setup comes from: a ``Game`` itself, or one's ``setup`` or ``add_systems``."""
    for part in (build, systems):
        if isinstance(part, Game):
            return part
        owner = getattr(part, "__self__", None)
        if isinstance(owner, Game):
            return owner
    return None


def setup_of(build: Any, systems: Callable[[Any], Any] | None, players: int | None, inputs: Any,
             seed: int) -> Setup:
    """A check's ``Setup`` from its arguments, each checked (``ValueError`` or ``TypeError`` naming the value).

    ``build`` may be a ``Game`` (``load_game``), set up as ``tickswap check`` does. When the
    setup is a game's (a ``Game``, its ``setup`` or ``add_systems``), ``players`` defaults to
    the fewest it takes and must be one it takes, and random input presses its ``KEYS``.
    ``inputs`` is ``"random"`` (every player a seeded stream of its own), ``None``, one
    player's ``Inputs`` (player 0's), or a list or tuple of one ``Inputs`` per player (then,
    without ``players``, the world has that many players).
    """
    game = game_of(build, systems)
    if isinstance(build, Game):
        build = build.setup  # the window's size, build, then systems, as tickswap check does
    if not callable(build):
        raise TypeError(f"build must be a function of the world (or a Game from load_game), got {build!r}")
    if game is not None and build != game.setup:  # game.build: the world still gets the game's window size
        build = _sized(build, game.view_size)
    given = players
    if players is None and isinstance(inputs, (list, tuple)) and inputs:
        players = len(inputs)  # one input per player: that many players (a game's PLAYERS must take it)
    if players is None:
        players = game.players.start if game is not None else 1
    if type(players) is not int or not 1 <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be a whole number from 1 to {MAX_PLAYERS}, got {players!r}")
    if game is not None and players not in game.players:
        raise ValueError(f"players={players}: {game.name} is played by {game.played_by()} (its PLAYERS)")
    if isinstance(inputs, str) and inputs == "random":
        keys = random_keys(game)
        return Setup(build, systems, players, [random_input(seed, keys=keys, player=p) for p in range(players)])
    if isinstance(inputs, (list, tuple)):
        if len(inputs) != players:
            fix = (f"pass players={len(inputs)} for {len(inputs)} player{'s' if len(inputs) != 1 else ''}, or give "
                   f"{players} input"
                   f"{'s' if players != 1 else ''} (one per player, None for none)" if given is not None
                   else "give one per player (None for none)")
            raise ValueError(f"inputs holds {len(inputs)} players' input for a world of {players} player"
                             f"{'s' if players != 1 else ''}: {fix}")
        return Setup(build, systems, players, [events_for(one) for one in inputs])
    return Setup(build, systems, players, [events_for(inputs)] + [events_for(None)] * (players - 1))
