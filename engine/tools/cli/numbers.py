"""Whole numbers on the command line: one argparse type for every count, port and seed of every command.

Each refuses a word, or a number outside its range, in one line naming both ends.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from engine.messages import shown

__all__ = ["whole"]


def whole(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``; out of range, one line naming both ends."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:  # a word, or more digits than int() reads
            raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected a number from {low} to {high}, got {shown(value)}")
        return value
    parse.__name__ = f"whole_{low}_to_{high}"
    parse.__doc__ = f"An argparse type: a whole number from {low} to {high}."
    return parse
