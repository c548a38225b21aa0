"""A player's saved input queue, checked: the events waiting, held keys, mouse and sticks.

Apart from ``engine.world.save.check`` because a save holds one per player (``world.input``
for player 0, ``world.inputs`` for the others), each checked the same way, as a replay's
input lines are.
"""

from __future__ import annotations

from typing import Any

from engine.input.checks import check_events, check_saved_sticks, listed
from engine.input.events import STICKS
from engine.messages import shown
from engine.schema import FieldError, expect_keys, expect_number
from engine.state.values import check_value, decode

__all__ = ["check_saved_queue"]


def check_saved_queue(queued: Any, where: str) -> None:
    """One player's saved input queue (events waiting, held keys, mouse, sticks), checked."""
    queued = expect_keys(queued, where, ("events", "held", "mouse"), ("sticks", "connected"))
    if "connected" in queued and queued["connected"] is not False:
        # Written only for a player dropped from a session: true is the default, never written.
        raise FieldError(f"{where}.connected is written only as false (a player dropped from a session), "
                         f"got {shown(queued['connected'])}")
    check_saved_sticks(queued.get("sticks", [[0.0, 0.0]] * STICKS), f"{where}.sticks")
    if not isinstance(queued["events"], list) or len(queued["events"]) > 100_000:
        raise FieldError(f"{where}.events must be a list")
    for value in (queued["events"], queued["held"], queued["mouse"]):
        check_value(value, where, set())
    for index, event in enumerate(queued["events"]):
        # The same checks as a replay's input lines: "12", NaN or 1e999 is no coordinate.
        check_events([listed(decode(event, {}))], f"{where}.events[{index}]")
    mouse = decode(queued["mouse"], {})
    if not (isinstance(mouse, list) and len(mouse) == 2):
        raise FieldError(f"{where}.mouse must be [x, y]")
    for value in mouse:
        expect_number(value, f"{where}.mouse", -1e9, 1e9)
    held = decode(queued["held"], {})
    if not isinstance(held, frozenset):
        raise FieldError(f"{where}.held must be a $set of keys")
    for key in held:
        # A held key is a code, as the queue keeps it: never a name, a flag or null (True == 1, the left button).
        if type(key) is not int or not 0 <= key < 2**63:
            raise FieldError(f"{where}.held holds {shown(key)}, which is not a key code")
