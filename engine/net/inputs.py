"""The per-frame packet: ``Inputs`` and the ``Run`` of one player's input it carries.

Input events go through ``engine.input.checks.check_events``, the check replays and
``--input`` scripts use, so an event a peer sends is one a replay could hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.input.checks import MAX_EVENTS_PER_TICK, check_events
from engine.input.events import InputEvent
from engine.messages import shown
from engine.net import checks
from engine.net.checks import MAX_DELAYS, MAX_RUNS, PacketError

__all__ = ["Inputs", "Run"]


@dataclass(frozen=True, slots=True)
class Run:
    """A player's input for every tick from ``first`` to ``last``: ``events`` lists only the ticks that have any.

    ``events`` is ``((tick, (event, ...)), ...)`` with ticks strictly increasing inside
    ``first..last``; a tick in the range but not listed had no events (its held keys stay held).
    """

    player: int
    first: int
    last: int
    events: tuple[tuple[int, tuple[InputEvent, ...]], ...] = ()

    def __post_init__(self) -> None:
        with checks.refusing():
            checks.player(self.player, "run player")
            checks.tick(self.first, "run first")
            checks.tick(self.last, "run last", self.first)
            previous = self.first - 1
            for item in checks.items(self.events, "run events", self.last - self.first + 1):
                if not (isinstance(item, tuple) and len(item) == 2):
                    raise PacketError(f"run events must be (tick, events) pairs, got {shown(item)}")
                tick, events = item
                checks.tick(tick, "run events tick", previous + 1)
                if tick > self.last:
                    raise PacketError(f"run events tick {tick} is past the run's last tick {self.last}")
                previous = tick
                if not (isinstance(events, tuple) and 1 <= len(events) <= MAX_EVENTS_PER_TICK
                        and all(isinstance(event, InputEvent) for event in events)):
                    raise PacketError(f"run events of tick {tick} must be a tuple of 1 to {MAX_EVENTS_PER_TICK} "
                                      f"InputEvents, got {shown(events)}")

    def _wire(self) -> list[Any]:
        with checks.refusing(f"player {self.player}'s input can't be sent: "):
            ticks = [[tick, [event.to_json() for event in events]] for tick, events in self.events]
        return [self.player, self.first, self.last, ticks]

    @classmethod
    def _from_wire(cls, value: Any) -> Run:
        if not (isinstance(value, list) and len(value) == 4 and isinstance(value[3], list)):
            raise PacketError(f"a run must be [player, first, last, [[tick, events], ...]], got {shown(value)}")
        ticks = []
        for item in value[3]:
            if not (isinstance(item, list) and len(item) == 2):
                raise PacketError(f"run events must be [tick, events] pairs, got {shown(item)}")
            ticks.append((item[0], tuple(check_events(item[1], f"run events of tick {shown(item[0])}"))))
        return cls(value[0], value[1], value[2], tuple(ticks))


@dataclass(frozen=True, slots=True)
class Inputs:
    """The per-frame packet, both ways: input runs, acknowledgements, a round-trip timer and a state check.

    ``sender`` is a player or ``SPECTATOR``; ``tick`` the sender's current tick; ``acks[p]``
    the highest tick t such that the sender holds player p's input for every tick <= t
    (-1: none yet); ``checked`` a confirmed tick and its 16-hex state hash, or ``None``;
    ``ping`` the sender's clock in ms and ``echo`` the last ``ping`` it received (so the
    peer measures the round trip); ``ahead`` the sender's own frames-ahead estimate;
    ``delays`` the host's scheduled input delay changes, ``(from tick, delay)`` each, repeated
    in every datagram until that tick is past (a joiner sends none).
    """

    session: int
    sender: int
    tick: int
    acks: tuple[int, ...] = ()
    runs: tuple[Run, ...] = ()
    ping: float = 0.0
    echo: float = 0.0
    checked: tuple[int, str] | None = None
    ahead: float = 0.0
    delays: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        with checks.refusing():
            checks.check_fields(self, "inputs")  # each field by the rule of its name, as every message's
            for run in self.runs:
                if not isinstance(run, Run):
                    raise PacketError(f"inputs runs must hold Runs, got {shown(run)}")

    def _wire(self) -> dict[str, Any]:
        return {"session": self.session, "sender": self.sender, "tick": self.tick, "acks": list(self.acks),
                "runs": [run._wire() for run in self.runs], "ping": self.ping, "echo": self.echo,
                "checked": None if self.checked is None else list(self.checked), "ahead": self.ahead,
                "delays": [list(change) for change in self.delays]}

    @classmethod
    def _from_wire(cls, record: dict[str, Any]) -> Inputs:
        for name in ("acks", "runs", "delays"):
            if not isinstance(record[name], list):
                raise PacketError(f"inputs {name} must be a list, got {shown(record[name])}")
        if len(record["runs"]) > MAX_RUNS:
            raise PacketError(f"inputs runs must be at most {MAX_RUNS}, got {len(record['runs'])}")
        checked = record["checked"]
        if checked is not None:
            if not isinstance(checked, list):
                raise PacketError(f"inputs checked must be [tick, state hash] or null, got {shown(checked)}")
            checked = tuple(checked)
        if len(record["delays"]) > MAX_DELAYS:
            raise PacketError(f"inputs delays must be at most {MAX_DELAYS}, got {len(record['delays'])}")
        delays = []
        for change in record["delays"]:
            if not (isinstance(change, list) and len(change) == 2):
                raise PacketError(f"inputs delays must be [tick, delay] pairs, got {shown(change)}")
            delays.append(tuple(change))
        return cls(record["session"], record["sender"], record["tick"], tuple(record["acks"]),
                   tuple(Run._from_wire(run) for run in record["runs"]), record["ping"], record["echo"], checked,
                   record["ahead"], tuple(delays))
