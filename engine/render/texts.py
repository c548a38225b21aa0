"""Text looks: one pyglet label per entity (or part) whose look is text, in one batch per layer.

Text cannot be a point sprite, so it has its own, slower path: a label is rebuilt only
when its look changes (and restyled in place where it can be) and moved only when its
entity's drawn position or angle changes, so text that stands still costs nothing.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from engine.look import Look

__all__ = ["Texts"]


class Texts:
    """Every entity whose look is text: one pyglet label each, in one batch per layer.

    A label is rebuilt only when its look changes and moved only when its drawn position
    or angle changes, so unchanged text costs nothing per frame.
    """

    def __init__(self) -> None:
        # Keyed by entity id, or (entity id, part number) for a part's text.
        self.labels: dict[Hashable, Any] = {}
        self.looks: dict[Hashable, Look] = {}
        self.placed: dict[Hashable, tuple[float, float, float]] = {}
        self.batches: dict[tuple[bool, int], Any] = {}  # by stage: (screen, layer)
        self.rows: list[tuple[Hashable, int]] = []  # (key, row of the gathered motion)
        self.previous: np.ndarray[Any, Any] = np.zeros((0, 3))
        self.current: np.ndarray[Any, Any] = np.zeros((0, 3))

    def assign(self, rows: list[tuple[Hashable, int, Look]]) -> None:
        """Keep a label for each (key, row, look); make, restyle or drop labels to match."""
        wanted = {entity_id for entity_id, _, _ in rows}
        for entity_id in [i for i in self.labels if i not in wanted]:
            self.labels.pop(entity_id).delete()
            self.looks.pop(entity_id)
            self.placed.pop(entity_id, None)
        for entity_id, _, look in rows:
            self.restyle(entity_id, look)
        self.rows = [(entity_id, index) for entity_id, index, _ in rows]

    def restyle(self, entity_id: Hashable, look: Look) -> None:
        """Give the label of ``entity_id`` (an id, or (id, part number)) ``look``: changed in place where it
        can be, made where it must."""
        import pyglet.text

        old = self.looks.get(entity_id)
        if old != look:
            label = self.labels.get(entity_id)
            if (label is not None and old is not None and (old.screen, old.layer, old.anchor_x, old.anchor_y)
                    == (look.screen, look.layer, look.anchor_x, look.anchor_y)):
                if old.text != look.text:
                    label.text = look.text
                if old.size != look.size:
                    label.font_size = look.size
                if old.color != look.color:
                    label.color = look.color
            else:
                if label is not None:
                    label.delete()
                stage = (look.screen, look.layer)
                batch = self.batches.get(stage)
                if batch is None:
                    batch = self.batches[stage] = pyglet.graphics.Batch()
                self.labels[entity_id] = pyglet.text.Label(
                    look.text or "", font_size=look.size, color=look.color,  # type: ignore[arg-type]
                    anchor_x=look.anchor_x, anchor_y=look.anchor_y, batch=batch)
                self.placed.pop(entity_id, None)
            self.looks[entity_id] = look

    def take(self, previous: np.ndarray[Any, Any], current: np.ndarray[Any, Any]) -> None:
        """Keep the text entities' rows of the gathered motion (once per tick)."""
        if not self.rows:  # no text (the common case): no empty copies every tick
            return
        indices = [index for _, index in self.rows]
        # Double precision whatever the gather holds: labels are placed from float64 rows.
        self.previous = previous[indices].astype(np.float64)
        self.current = current[indices].astype(np.float64)

    def write(self, alpha: float, extrapolate: bool) -> None:
        """Move and turn each label to its entity's drawn place for ``alpha``, if that changed."""
        for row, (entity_id, _) in enumerate(self.rows):
            (px, py, pa), (cx, cy, ca) = self.previous[row], self.current[row]
            turn = (ca - pa + 180.0) % 360.0 - 180.0
            if extrapolate:
                place = (cx + (cx - px) * alpha, cy + (cy - py) * alpha, ca + turn * alpha)
            else:
                place = (px + (cx - px) * alpha, py + (cy - py) * alpha, ca - turn * (1.0 - alpha))
            if self.placed.get(entity_id) != place:
                label = self.labels[entity_id]
                label.position = (float(place[0]), float(place[1]), 0.0)
                label.rotation = -float(place[2])  # pyglet turns labels clockwise
                self.placed[entity_id] = place

    def draw(self, stage: tuple[bool, int]) -> None:
        """Draw the labels of one stage: ``(screen, layer)``."""
        batch = self.batches.get(stage)
        if batch is not None:
            batch.draw()

    def delete(self) -> None:
        """Delete every label."""
        for label in self.labels.values():
            label.delete()
        self.labels.clear()
        self.looks.clear()
        self.placed.clear()
