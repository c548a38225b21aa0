"""What a command writes, checked before it starts, and written whole or not at all.

The outputs (``--record``, ``--save-at``, ``--screenshot``, the lab's ``--png``) must be
distinct files and never a file being read; a picture must be a ``.png``; only a regular
file in a writable directory is ever replaced.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from engine.disk.atomic import AtomicFile, OutputError, check_output, output_path
from engine.files.game import Game
from engine.interrupts import TICK, Interrupted
from engine.tools.errors import UsageError, shown_name

__all__ = ["check_outputs", "screenshot_at_stop", "write_screenshot"]


def check_outputs(files: Sequence[tuple[str, str]] = (), pictures: Sequence[tuple[str, str]] = (),
                  inputs: Sequence[tuple[str, str | None]] = (), game: Game | None = None) -> None:
    """Refuse, before the run, outputs that collide with each other or with an input, and bad formats.

    ``files`` and ``pictures`` are what the command writes, each with the option naming it
    (a picture must be a ``.png``: ``--screenshot``, the lab's ``--png``); ``inputs`` what it
    reads (the game's own file is one).
    """
    outputs = list(files)
    for option, name in pictures:
        if not name.lower().endswith(".png"):
            raise UsageError(f"{option} {shown_name(name)}: the image is a PNG file; name it something.png")
        if os.path.basename(name).lower() == ".png":  # a hidden file, which no encoder takes either
            raise UsageError(f"{option} {shown_name(name)}: a file named only '.png' is hidden; "
                             "name it something.png")
        outputs.append((option, name))
    sources = [(option, name) for option, name in
               [*inputs, ("the game", str(game.path) if game and game.path else None)] if name]
    try:
        # Only a regular file is ever replaced (never /dev/null, a FIFO, a directory), in a writable directory.
        resolved = [(option, name, check_output(name, option)) for option, name in outputs]
        read = [(option, name, output_path(name)) for option, name in sources]
    except OutputError as error:
        raise UsageError(str(error)) from None
    for index, (option, name, path) in enumerate(resolved):
        for other, other_name, other_path in resolved[index + 1:] + read:
            if path == other_path:
                raise UsageError(f"{option} {shown_name(name)} and {other} {shown_name(other_name)} are the same file; "
                                 "each output needs its own file, and no output may replace an input")


def write_screenshot(runner: Any, path: str, alpha: float | None = None) -> None:
    """Save the last frame (or the state drawn at ``alpha``) atomically: a temporary PNG beside ``path``, renamed."""
    with AtomicFile(path, suffix=".png") as output:
        try:
            runner.screenshot(path, output.open("wb"), alpha=alpha)
        except OSError as error:
            raise OutputError(f"cannot write {path}: {error.strerror or error}") from None
        output.commit()


def screenshot_at_stop(runner: Any, path: str, interrupt: Interrupted) -> str:
    """Write ``--screenshot`` for a run stopped by Ctrl-C or SIGTERM; the clause its stop line ends with.

    A signal lands between ticks, so the world is whole and drawing it once more shows the
    last frame (drawing changes nothing). Not when no frame was drawn yet, nor when a second
    signal stopped a tick by force (its state may be half done): the clause says why not.
    """
    name = shown_name(path)
    if runner is None or not runner.loop.frames:
        return f"; screenshot {name} not written: no frame was drawn yet"
    if interrupt.inside_tick:
        return f"; screenshot {name} not written: the tick it would show was stopped half done"
    try:
        with TICK:  # one more signal waits for the picture, written whole
            write_screenshot(runner, path)
    except Interrupted:  # a second one stops it: the temporary file is removed, nothing replaced
        return f"; screenshot {name} not written: stopped again while writing it"
    except OutputError as error:
        return f"; screenshot {name} not written: {error}"
    return f"; screenshot {name} of the last frame"
