"""Two ``World.snapshot()``s compared: which entities differ, in which fields, said in lines.

Every tool that compares worlds reports through here: ``tickswap check`` (update orders),
the rollback check, the seeds check, and a session's desync report.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["SHOWN_DIFFERENCES", "EntityDifference", "compare_snapshots", "difference_lines", "in_entities"]


@dataclass(frozen=True)
class EntityDifference:
    """One entity whose state differs from the reference: its class, id and fields.

    ``fields`` holds ``(name, reference_value, other_value)``; an entity present in only
    one of the worlds has ``only_in`` set to ``"reference"`` or ``"shuffled"``.
    """

    kind: str
    id: int
    fields: tuple[tuple[str, Any, Any], ...] = ()
    only_in: str | None = None

    def describe(self) -> str:
        """One line: ``Bolt (id 7): x 80.0 vs 83.0; dx 3.0 vs -3.0``."""
        head = f"{self.kind} (id {self.id})"
        if self.only_in is not None:
            return f"{head}: exists only in the {self.only_in} world"
        return head + ": " + "; ".join(f"{name} {_show(a, b)}" for name, a, b in self.fields)


SHOWN_DIFFERENCES = 20
"""How many differing entities a report lists, one line each, before "... and N more"."""


def in_entities(differences: Sequence[EntityDifference]) -> str:
    """" in 3 entities" (or " in 1 entity"; nothing when none): the head line's count."""
    count = len(differences)
    return f" in {count} entit{'y' if count == 1 else 'ies'}" if count else ""


def difference_lines(differences: Sequence[EntityDifference]) -> list[str]:
    """One indented line per differing entity, the first ``SHOWN_DIFFERENCES`` of them, then how many more."""
    lines = ["  " + difference.describe() for difference in differences[:SHOWN_DIFFERENCES]]
    if len(differences) > SHOWN_DIFFERENCES:
        lines.append(f"  ... and {len(differences) - SHOWN_DIFFERENCES} more")
    return lines


def compare_snapshots(reference: Mapping[str, Any], other: Mapping[str, Any],
                      names: tuple[str, str] = ("reference", "shuffled")) -> list[EntityDifference]:
    """The entities whose state or signals differ between two ``World.snapshot()``s, matched by id.

    ``names`` are what an entity present in only one of them says it exists in.
    """
    mine = {entity["id"]: entity for entity in reference["entities"]}
    theirs = {entity["id"]: entity for entity in other["entities"]}
    differences = []
    for entity_id in sorted(mine.keys() | theirs.keys()):
        a, b = mine.get(entity_id), theirs.get(entity_id)
        if a is None or b is None:
            present = a if a is not None else b
            assert present is not None
            differences.append(EntityDifference(_short(present["class"]), entity_id,
                                                only_in=names[0] if b is None else names[1]))
            continue
        fields: list[tuple[str, Any, Any]] = []
        if a["class"] != b["class"]:
            fields.append(("class", _short(a["class"]), _short(b["class"])))
        for name in sorted(a["state"].keys() | b["state"].keys()):
            if not _same(a["state"].get(name), b["state"].get(name)):
                fields.append((name, a["state"].get(name), b["state"].get(name)))
        if not _same(a["signals"], b["signals"]):
            fields.append(("signals", a["signals"], b["signals"]))
        for name in sorted(a.get("saved", {}).keys() | b.get("saved", {}).keys()):
            if not _same(a["saved"].get(name), b["saved"].get(name)):
                fields.append((name, a["saved"].get(name), b["saved"].get(name)))
        for name in ("look", "parts"):  # what an instance shows of its own; absent: its class's
            if not _same(a.get(name, _CLASS), b.get(name, _CLASS)):
                fields.append((name, _shown(a.get(name, _CLASS)), _shown(b.get(name, _CLASS))))
        if fields:
            differences.append(EntityDifference(_short(a["class"]), entity_id, tuple(fields)))
    return differences


_CLASS = "its class's"


def _shown(value: Any) -> Any:
    """A snapshot's look (or parts) said briefly: ``square 8x8 #ffffffff layer 0``, not its whole record."""
    if isinstance(value, list):
        return [_shown(part.get("look")) if isinstance(part, dict) else part for part in value]
    if not isinstance(value, dict):
        return value
    what = value.get("text") if value.get("shape") == "text" else value.get("shape")
    image = value.get("image")
    if isinstance(image, dict) and image:
        what = str(next(iter(image.values())))
    size = value.get("size")
    if isinstance(size, list):
        size = "x".join(f"{side:g}" for side in size if isinstance(side, (int, float)))
    region = value.get("region")
    color = value.get("color")
    tint = "#" + "".join(f"{part:02x}" for part in color) if isinstance(color, list) and all(
        isinstance(part, int) for part in color) else ""
    return f"{what} {size} {tint}".rstrip() + (f" region {region}" if region else "")


def _same(a: Any, b: Any) -> bool:
    """Whether two snapshot values are the same state, as the state hash sees them (NaN is NaN)."""
    return a == b or json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _short(qualified: str) -> str:
    return qualified.rsplit(".", 1)[-1]


def _show(a: Any, b: Any) -> str:
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        at = [index for index, (x, y) in enumerate(zip(a, b)) if x != y]
        more = f" ({len(at)} items differ)" if len(at) > 1 else ""
        return f"[{at[0]}] {_clip(a[at[0]])} vs {_clip(b[at[0]])}{more}"
    return f"{_clip(a)} vs {_clip(b)}"


def _clip(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
