"""Every input surface that is not a file, fuzzed table-driven: each hostile value is a clear error or a valid value.

The surfaces: every numeric option of every command, a game's settings, ``Look``'s
arguments, input-script events, sound paths and volumes. Each value tried ends in one of
two ways: a clear error (the expected exception type, one line, bounded, naming the
value or the option) or a valid acceptance (the value that comes out satisfies the
surface's rule). Anything else is counted as a traceback (an unexpected exception), a
silent acceptance (accepted but outside the rule) or a crash (a subprocess killed by a
signal), and those three must be zero. Run with ``-s`` to see the figures.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import types
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

from engine import InputEvent, Look, World
from engine.constants import MAX_PLAYERS
from engine.files.game import GameError, check_settings
from engine.files.replay import ReplayError
from engine.input.scripts import read_input_script
from engine.tools.cli.options import MAX_COUNT, build_parser
from engine.world import take_sounds

ROOT = Path(__file__).resolve().parent.parent

WORDS = ["0", "-1", "1", "0.5", "nan", "NaN", "inf", "-inf", "1e309", "-1e309", "1e-300", "9" * 30, "9" * 5000,
         "ten", "", " ", "0x10", "1_000", "\u0661", "1e3", "18446744073709551616", "-0", "+5", "2**64", "x" * 100_000]
HOSTILE = [True, False, None, 0, -1, 1, 1.5, -0.0, float("nan"), float("inf"), float("-inf"), 10**100, -(10**100),
           "640", "", "x" * 1_000_000, [], (), (1, 2), (1, 2, 3), (255, 255, 255), (256, 0, 0), (-1, 0, 0),
           (True, 0, 0), (1.5, 2, 3), [1, 2, 3], (1, 2, 3, 4), (1, 2, 3, 4, 5), object(), b"bytes", {"a": 1}]


class Tally:
    """The figures: inputs tried and how each ended."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.bad: list[str] = []

    def clear(self, message: str, surface: str, value: Any) -> None:
        if "\n" in message.strip() or not message.strip() or len(message) > 600:
            self.record("traceback", surface, value, f"unclear message ({len(message)} chars)")
        else:
            self.counts["clear error"] += 1

    def record(self, outcome: str, surface: str, value: Any, why: str = "") -> None:
        self.counts[outcome] += 1
        if outcome in ("traceback", "silent acceptance", "crash"):
            self.bad.append(f"{outcome}: {surface} {repr(value)[:60]} {why}")

    def attempt(self, surface: str, value: Any, action: Callable[[], Any], errors: tuple[type[BaseException], ...],
                valid: Callable[[Any], bool]) -> None:
        self.counts["tried"] += 1
        try:
            result = action()
        except errors as error:
            self.clear(str(error), surface, value)
            return
        except Exception as error:
            self.record("traceback", surface, value, f"{type(error).__name__}: {str(error)[:80]}")
            return
        if valid(result):
            self.counts["valid acceptance"] += 1
        else:
            self.record("silent acceptance", surface, value, repr(result)[:60])


@pytest.fixture(scope="module")
def tally() -> Any:
    figures = Tally()
    yield figures
    counts = figures.counts
    print(f"\nnon-file inputs tried {counts['tried']}: clear errors {counts['clear error']}, valid acceptances "
          f"{counts['valid acceptance']}, tracebacks {counts['traceback']}, silent acceptances "
          f"{counts['silent acceptance']}, crashes {counts['crash']}")


def _numeric_options() -> list[tuple[str, str, Callable[[str], Any]]]:
    """(command, option, type) for every option of every command that parses a number (not a file or an address)."""
    parser = build_parser()
    found = []
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        for command, sub in cast("dict[str, argparse.ArgumentParser]", action.choices).items():  # the subcommands
            for option in sub._actions:
                kind = option.type
                if callable(kind) and getattr(kind, "__name__", "") not in ("_file_name", "_bind_address", "str"):
                    found.append((command, option.option_strings[0] if option.option_strings else option.dest, kind))
    return found


def _valid_number(name: str) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        if name == "_peer":  # replay --peer P,Q: the players of one peer, each a whole number in range
            return (type(value) is tuple and len(value) >= 1
                    and all(type(player) is int and 0 <= player < MAX_PLAYERS for player in value))
        if type(value) is int:
            return (1 <= value <= MAX_COUNT) if name == "count" else 0 <= value < 2**64
        # 0 is a value where the option says what it means: 0 ms, never (--rejoin-window 0), or --rewind 0 (no ring).
        return type(value) is float and math.isfinite(value) and value >= 0 and (
            value > 0 or "ms" in name or "0_never" in name or name == "_rewind")
    return check


def test_every_numeric_option_of_every_command(tally):
    options = _numeric_options()
    assert {command for command, _, _ in options} >= {"run", "check", "lab"}
    assert len(options) >= 15
    for command, option, kind in options:
        for word in WORDS:
            tally.attempt(f"{command} {option}", word, lambda kind=kind, word=word: kind(word),
                          (argparse.ArgumentTypeError,), _valid_number(kind.__name__))
    assert not tally.bad, tally.bad


def test_whole_command_lines_through_the_parser(tally, capsys):
    parser = build_parser()
    for command, option, _ in _numeric_options():
        prefix = [command] + (["patrol"] if command in ("run", "check") else [])
        for word in ("nan", "-1", "1e309", "x" * 10_000):
            tally.counts["tried"] += 1
            try:
                parser.parse_args([*prefix, option, word])
            except SystemExit as exit:
                err = capsys.readouterr().err
                if exit.code == 2:
                    tally.clear(err, f"{command} {option}", word)
                else:
                    tally.record("traceback", f"{command} {option}", word, f"exit {exit.code}")
            else:
                tally.record("silent acceptance", f"{command} {option}", word)
    assert not tally.bad, tally.bad


SETTINGS = {
    "WIDTH": lambda value: type(value) is int and 1 <= value <= 16384,
    "HEIGHT": lambda value: type(value) is int and 1 <= value <= 16384,
    "MS_PER_UPDATE": lambda value: type(value) in (int, float) and 0.001 <= value <= 60_000,
    "BACKGROUND": lambda value: type(value) in (tuple, list) and len(value) in (3, 4)
    and all(type(part) is int and 0 <= part <= 255 for part in value),
    "DESCRIPTION": lambda value: value is None or (isinstance(value, str) and len(value) <= 10_000),
}


def _checked(module: types.ModuleType, value: object) -> object:
    """``value``, once ``check_settings`` took the game holding it."""
    check_settings(module, "g.py")
    return value


def test_every_game_setting(tally):
    for name, rule in SETTINGS.items():
        for value in HOSTILE:
            module = types.ModuleType("fuzzed_game")
            module.build = lambda world: None  # type: ignore[attr-defined]
            setattr(module, name, value)
            tally.attempt(name, value, lambda module=module, value=value: _checked(module, value), (GameError,), rule)
    assert not tally.bad, tally.bad


def _valid_look(look: Any) -> bool:
    size_ok = look.size is None or (isinstance(look.size, float) and 0 < look.size <= 1000) or (
        isinstance(look.size, tuple) and len(look.size) == 2
        and all(type(side) is float and math.isfinite(side) and 0 < side <= 100_000 for side in look.size))
    colour_ok = len(look.color) == 4 and all(type(part) is int and 0 <= part <= 255 for part in look.color)
    return isinstance(look, Look) and size_ok and colour_ok and type(look.layer) is int


def test_every_look_argument(tally):
    for argument in ("size", "color", "layer", "image", "text", "shape"):
        for value in HOSTILE:
            tally.attempt(f"Look {argument}", value, lambda argument=argument, value=value: Look(**{argument: value}),
                          (TypeError, ValueError), _valid_look)
    for value in HOSTILE:
        tally.attempt("Look text size", value, lambda value=value: Look(text="hi", size=value),
                      (TypeError, ValueError), _valid_look)
    assert not tally.bad, tally.bad


def _valid_event(event: Any) -> bool:
    return (isinstance(event, InputEvent) and (event.key is None or type(event.key) is int)
            and all(math.isfinite(part) for part in (event.x, event.y, event.scroll_x, event.scroll_y))
            and type(event.modifiers) is int)


KINDS = ["key_press", "key_release", "mouse_press", "mouse_release", "mouse_motion", "mouse_drag", "mouse_scroll",
         "explode", 7, None]


def test_every_input_event_field(tally):
    for kind in KINDS:
        for key in [*HOSTILE, "LEFT", "right", "A", "NOPE", ["LEFT"], 65361]:
            tally.attempt("event key", (kind, key), lambda kind=kind, key=key: InputEvent.from_json([kind, key, 0, 0]),
                          (ValueError,), _valid_event)
    for position in HOSTILE:
        for shape in (lambda p: ["mouse_motion", None, p, 0], lambda p: ["mouse_scroll", None, 0, 0, 0, p, 0],
                      lambda p: ["key_press", 65361, 0, 0, p, 0.0, 0.0]):
            tally.attempt("event number", position, lambda shape=shape, position=position: InputEvent.from_json(
                shape(position)), (ValueError,), _valid_event)
    for bad in ([], ["key_press"], "key_press", None, ["key_press", 1, 0], ["key_press", 1, 0, 0, 0]):
        tally.attempt("event shape", bad, lambda bad=bad: InputEvent.from_json(bad), (ValueError,), _valid_event)
    assert not tally.bad, tally.bad


SCRIPT_LINES = [
    '{"tick": 1, "input": [["key_press", true, 0, 0]]}', '{"tick": 1, "input": [["key_press", false, 0, 0]]}',
    '{"tick": 1, "input": [["key_press", null, 0, 0]]}', '{"tick": 1, "input": [["key_press", ["LEFT"], 0, 0]]}',
    '{"tick": 1, "input": [["key_press", "LEFT", 0, 0]]}', '{"tick": 1, "input": [["key_press", 65361, "1", 0]]}',
    '{"tick": true, "input": [["key_press", 1, 0, 0]]}', '{"tick": 1.0, "input": [["key_press", 1, 0, 0]]}',
    '{"tick": 0, "input": [["key_press", 1, 0, 0]]}', '{"tick": 1, "input": []}', '{"tick": 1, "input": {}}',
    '{"tick": 1, "input": [["mouse_motion", 1, 0, 0]]}', '{"tick": 1, "input": [["mouse_press", 1, NaN, 0]]}',
    '{"tick": 1, "input": [["mouse_press", 1, 1e999, 0]]}', '{"tick": 1}', '[1, 2]', 'null', '"tick"', '{',
    '{"tick": 1, "input": [["key_press", "\\u0000", 0, 0]]}', '{"tick": 99999999999999999999, "input": [["key_press", 1, 0, 0]]}',
]


def test_every_input_script_line(tally, tmp_path):
    def read(line: str) -> Any:
        path = tmp_path / "in.jsonl"
        path.write_text(line + "\n")
        return read_input_script(path)

    def valid(script: Any) -> bool:
        return all(type(tick) is int and tick >= 1 and all(_valid_event(event) for event in events)
                   for tick, events in script.items())

    for line in SCRIPT_LINES:
        tally.attempt("input line", line, lambda line=line: read(line), (ReplayError,), valid)
    assert not tally.bad, tally.bad


def test_every_sound_path_and_volume(tally):
    with World() as world:
        for path in [*HOSTILE, "a.wav", "a\0.wav", "a.txt", Path("b.ogg"), "x" * 10_000 + ".wav"]:
            for volume in (1.0, 0, 0.5, -0.1, 1.5, float("nan"), float("inf"), True, "1", None):
                tally.attempt("world.play", (path, volume), lambda path=path, volume=volume: world.play(path, volume),
                              (TypeError, ValueError),
                              lambda _, path=path, volume=volume: isinstance(path, (str, os.PathLike))
                              and "\0" not in os.fspath(path) and type(volume) in (int, float) and 0 <= volume <= 1)
        take_sounds(world)
    assert not tally.bad, tally.bad


@pytest.mark.parametrize("argv", [["run", "patrol", "--ups", "nan"], ["lab", "--seconds", "86400", "--ups", "100000"],
                                  ["run", "patrol", "--ticks", "3", "--seed", "1e309"], ["bench", "nope"]])
def test_the_installed_command_never_crashes_on_them(tally, argv):
    tally.counts["tried"] += 1
    result = subprocess.run([sys.executable, "-m", "engine.tools.cli", *argv], capture_output=True, text=True,
                            timeout=120, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if result.returncode < 0 or "Traceback" in result.stderr:
        tally.record("crash" if result.returncode < 0 else "traceback", "command", argv, result.stderr[-200:])
    elif result.returncode == 2:
        tally.clear(result.stderr, "command", argv)
    else:
        tally.record("silent acceptance", "command", argv, f"exit {result.returncode}")
    assert not tally.bad, tally.bad
    assert tally.counts["traceback"] == tally.counts["silent acceptance"] == tally.counts["crash"] == 0
