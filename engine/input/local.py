"""Local players: several players on one machine, each with a device of their own.

A machine has one keyboard, one mouse and any number of game controllers; a game of
several players on that machine (``tickswap run GAME --players 2``, or a session host's or
joiner's ``--local 2``) needs each event to reach *its* player's queue, and each player to read the
same keys whoever they are. ``LocalPlayers`` is that routing, done once, before an event is
queued: what a tick, a recording or a replay sees is already each player's own input, so
none of them needs to know how it was typed.

The rule, in full (the input guide's table says the same):

- **The keyboard** plays the first local players. With one local player it is that
  player's, whole and untouched. With two or more it is split: each player's keys reach
  that player *as the keys the game reads* (a physical key to a logical one), and a key
  no player's map names goes to the first local player as itself (menus, R to restart,
  typing). The split is the game's ``PLAYER_KEYS`` (``{0: {keys.W: keys.UP, ...}, 1:
  {...}}``, or a collection of keys each read as itself), else ``DEFAULT_PLAYER_KEYS``:
  W A S D, Space and E for the first player, read as the arrows, Space and Return; the
  arrows, Right Ctrl (or the keypad's 0) and Return for the second, read as the arrows,
  Space and Return. A game written for one player on the arrows and Space is thus played
  by two on one keyboard unchanged, each reading ``world.input_of(p)``, as it is over the
  network. A split key carries no modifier bits (one player's Shift is not the other's).
- **Game controllers** come next: the pad in slot ``k`` (slots are given in the order pads
  connect; an unplugged pad's slot goes to the next pad plugged in) plays local player
  ``(K + k) % N``, where ``K`` is how many players the keyboard plays and ``N`` the local
  players. Alone, every pad is player 0's; two players on a split keyboard and two pads:
  the first pad is player 0's, the second player 1's (each beside their half); four players,
  a split keyboard and two pads: the pads are players 2 and 3. A pad's buttons stay
  ``keys.PAD_*`` and its sticks ``"stick"`` events.
- **The mouse and typed text** are the first local player's; but a caret motion
  (``"text_motion"``) made by a key of a player's part (a held arrow repeats
  ``MOTION_UP``, whose code is the Up key's) is that player's, as itself.

Two devices of one player holding one key (two pads' A, or two physical keys read as
Space) are one key held: it is released when the last lets go. The engine's own keys (Esc,
F1 to F5) never reach here: the window keeps them.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.input import keys
from engine.input.events import InputEvent
from engine.messages import shown

__all__ = ["DEFAULT_PLAYER_KEYS", "MAX_PLAYER_KEYS", "LocalPlayers", "PlayerKeys", "check_player_keys"]

PlayerKeys = Mapping[int, Mapping[int, int]]
"""A split keyboard: for each local player (0 the first), its physical keys and the key each is read as."""

DEFAULT_PLAYER_KEYS: PlayerKeys = {
    0: {keys.W: keys.UP, keys.A: keys.LEFT, keys.S: keys.DOWN, keys.D: keys.RIGHT,
        keys.SPACE: keys.SPACE, keys.E: keys.RETURN},
    1: {keys.UP: keys.UP, keys.LEFT: keys.LEFT, keys.DOWN: keys.DOWN, keys.RIGHT: keys.RIGHT,
        keys.RCTRL: keys.SPACE, keys.RCOMMAND: keys.SPACE, keys.NUM_0: keys.SPACE,
        keys.RETURN: keys.RETURN, keys.NUM_ENTER: keys.RETURN},
}
"""The keyboard of two (or more) local players when the game declares no ``PLAYER_KEYS``.

The first player's left hand is on W A S D (read as the arrows), its thumb on Space, and E
is its Return; the second player has the arrows, Right Ctrl (Right Command on a Mac, or the
keypad's 0) as Space, and Return (or the keypad's Enter). Any other key is the first
player's, as itself."""
MAX_PLAYER_KEYS = 256
"""The most keys one player's part of a split keyboard may name."""
_KEYBOARD_TOP = keys.PAD_A  # pyglet's keyboard codes lie below the controllers' (engine.input.keys)
_KEY_EVENTS = ("key_press", "key_release")


def check_player_keys(value: Any, most_players: int) -> dict[int, dict[int, int]]:
    """A game's ``PLAYER_KEYS``, checked whole: ``{player: {physical key: key read}}`` (``ValueError`` if not).

    ``value`` maps local players 0, 1, ... (every one from 0, none past ``most_players - 1``)
    to a mapping of keyboard keys to the keys the game reads (``{keys.W: keys.UP}``), or to a
    collection of keyboard keys each read as itself (``(keys.W, keys.S)``). A physical key is
    a keyboard key (not a pad's button, the mouse, or one of the engine's Esc and F1 to F5),
    in one player's part only; a key read may be any key code but the engine's own.
    """
    if not isinstance(value, Mapping):
        raise ValueError(f"PLAYER_KEYS must be a dict of each player's keys, such as {{0: {{keys.W: keys.UP}}, "
                         f"1: {{keys.UP: keys.UP}}}}, got {shown(value)}")
    players = sorted(value, key=lambda player: (type(player) is not int, str(player)))
    if any(type(player) is not int for player in players) or players != list(range(len(players))):
        raise ValueError(f"PLAYER_KEYS names players 0, 1, ... in turn (each from 0 up), got {shown(list(value))}")
    if len(players) > most_players:
        raise ValueError(f"PLAYER_KEYS names {len(players)} players, but the game is played by at most "
                         f"{most_players} (its PLAYERS)")
    owner: dict[int, int] = {}
    checked: dict[int, dict[int, int]] = {}
    for player in players:
        given = value[player]
        pairs = (list(given.items()) if isinstance(given, Mapping)
                 else [(key, key) for key in given] if isinstance(given, Collection) and not isinstance(given, str)
                 else None)
        if pairs is None:
            raise ValueError(f"PLAYER_KEYS[{player}] must be a dict of keys to the keys read ({{keys.W: keys.UP}}) "
                             f"or a tuple of keys, got {shown(given)}")
        if len(pairs) > MAX_PLAYER_KEYS:
            raise ValueError(f"PLAYER_KEYS[{player}] names {len(pairs)} keys; at most {MAX_PLAYER_KEYS}")
        mine: dict[int, int] = {}
        for physical, read in pairs:
            if type(physical) is not int or not 0 < physical < _KEYBOARD_TOP:
                raise ValueError(f"PLAYER_KEYS[{player}] names {shown(physical)}, which is no keyboard key: use "
                                 "keys.W, keys.UP ... (a pad is a player of its own)")
            if type(read) is not int or read < 0:
                raise ValueError(f"PLAYER_KEYS[{player}] reads {keys.name(physical)} as {shown(read)}, which is no "
                                 "key: use keys.UP, keys.SPACE ...")
            for key in (physical, read):
                if key in keys.RESERVED:
                    raise ValueError(f"PLAYER_KEYS[{player}] names {keys.name(key)}, which the engine keeps (Esc "
                                     "quits, F1 to F5 are the HUD, pause, step, interpolation, extrapolation)")
            if physical in owner:
                raise ValueError(f"PLAYER_KEYS gives {keys.name(physical)} to player {owner[physical]} and to "
                                 f"player {player}: a key is one player's")
            owner[physical] = player
            mine[physical] = read
        checked[player] = mine
    return checked


class LocalPlayers:
    """Which of the world's players each device of this machine plays; ``route`` sends an event to its player.

    ``players`` are the world's players this machine plays, in order (``range(N)`` in a
    run; a session host's ``--local 2`` plays 0 and 1). ``player_keys`` is the split
    keyboard (by local player: 0 the first of ``players``), ``None`` for the default
    (``DEFAULT_PLAYER_KEYS`` with two local players or more, the whole keyboard alone).
    Only the parts of local players that exist are used; a key of another part goes to the
    first local player as itself. See the module docstring for the whole rule.
    """

    def __init__(self, players: Sequence[int] | int = 1, player_keys: PlayerKeys | None = None) -> None:
        chosen = tuple(range(players)) if isinstance(players, int) else tuple(players)
        if not chosen or any(type(player) is not int or player < 0 for player in chosen) \
                or len(set(chosen)) != len(chosen):
            raise ValueError(f"LocalPlayers takes the players this machine plays (1 or more, each once), "
                             f"got {shown(players)}")
        self.players = chosen
        """The world's players this machine plays, in order: the first has the mouse and the keys no part names."""
        if player_keys is None:
            player_keys = DEFAULT_PLAYER_KEYS if len(chosen) > 1 else {}
        # By physical key: the world's player it plays and the key it is read as (parts past the local players unused).
        self._keys = {physical: (chosen[seat], read) for seat, part in player_keys.items() if seat < len(chosen)
                      for physical, read in part.items()}
        self.keyboard_players = max(1, min(len(chosen), len(player_keys)))
        """How many local players the keyboard plays (``K``): pad slot ``k`` plays local player ``(K + k) % N``."""
        self._holders: dict[tuple[int, Hashable], set[tuple[Hashable, ...]]] = {}

    def __repr__(self) -> str:
        return f"LocalPlayers(players={self.players}, keyboard plays {self.keyboard_players})"

    def pad_player(self, slot: int) -> int:
        """The world's player the game controller in ``slot`` plays (slot 0 the first pad connected)."""
        return self.players[(self.keyboard_players + slot) % len(self.players)]

    def key_player(self, key: int) -> tuple[int, int]:
        """The world's player a keyboard key plays, and the key it is read as (itself when no part names it)."""
        return self._keys.get(key, (self.players[0], key))

    def route(self, event: InputEvent, pad: int | None = None) -> list[tuple[int, InputEvent]]:
        """Where ``event`` goes: ``(player, event as that player reads it)`` pairs (none, one; a key held twice: none).

        ``pad`` is the slot of the controller that sent it (``None``: the keyboard, the mouse
        or typed text).
        """
        source: tuple[Hashable, ...]
        if pad is not None:
            player, source = self.pad_player(pad), ("pad", pad, event.key)
        elif event.type in _KEY_EVENTS and type(event.key) is int and event.key in self._keys:
            player, read = self._keys[event.key]
            source = ("key", event.key)
            event = replace(event, key=read, modifiers=0)  # one player's Shift is not the other's
        elif event.type == "text_motion" and type(event.key) is int and event.key in self._keys:
            # A held arrow's caret motion (MOTION_UP is the Up key's code): that key's player's, as itself.
            return [(self._keys[event.key][0], event)]
        else:
            return [(self.players[0], event)]
        if event.type not in _KEY_EVENTS:
            return [(player, event)]  # a stick: its position is the event's own
        holders = self._holders.setdefault((player, event.key), set())
        if event.type == "key_press":
            first = not holders
            holders.add(source)
            return [(player, event)] if first else []
        if source in holders:
            holders.discard(source)
            return [] if holders else [(player, event)]
        # A release nothing here pressed (held as the window opened): the game sees it, as it would alone.
        return [] if holders else [(player, event)]
