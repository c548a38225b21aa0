"""Whole numbers on the command line: one argparse type for every count, port and seed of every command.

Each refuses a word, or a number outside its range, in one line naming both ends.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

from engine.messages import shown

__all__ = ["DIGITS", "whole", "whole_number"]

DIGITS = re.compile(r"-?[0-9]{1,100}")
"""A whole number as a command line writes it: ASCII digits, maybe a minus. ``int()`` also takes
``" 5"``, ``"+5"``, ``"1_000"`` and other scripts' digits, which a typo or a paste can bring in."""


def whole_number(text: str) -> int:
    """``text`` as a whole number (``DIGITS``), or the argparse error that names it."""
    if not DIGITS.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}")
    return int(text)


def whole(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``; out of range, one line naming both ends."""
    def parse(text: str) -> int:
        value = whole_number(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected a number from {low} to {high}, got {shown(value)}")
        return value
    parse.__name__ = f"whole_{low}_to_{high}"
    parse.__doc__ = f"An argparse type: a whole number from {low} to {high}."
    return parse
