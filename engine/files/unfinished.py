"""The rest of a game file that runs itself: what it defines below ``run(build)``.

``python game.py`` runs the file from the top, and ``run(build)`` starts the game where it
is called, so whatever the file defines below that line (a ``make_view``, ``systems``, a
class, a setting) would not exist yet, while ``tickswap run game.py`` imports the whole
file first. ``run(build)`` never returns (it exits with the game's status), so the lines
below it would never run at all: running them first, in the module's own namespace, makes
``python game.py`` see the same game as ``tickswap run game.py``, wherever a name is defined.
"""

from __future__ import annotations

import ast
import sys
from types import FrameType, ModuleType

__all__ = ["run_rest"]


def run_rest(module: ModuleType, file: str, text: str) -> None:
    """Run the top-level statements of ``module`` below the one executing now, if its body is running.

    ``text`` is the file's source (``file`` names it in tracebacks). Does nothing for a
    module whose body has finished (a game file imported, then ``run(comet.build)``).
    Exceptions are the game's own; the caller reports them.
    """
    frame = _running_body(module)
    if frame is None:
        return
    line = frame.f_lineno
    body = ast.parse(text, file).body
    for index, statement in enumerate(body):
        if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            rest = body[index + 1:]
            break
    else:
        return
    if rest:
        # Line numbers stay the file's own, so a traceback points at the line to fix; a second
        # run(build) below the first finds this frame instead, and runs only what follows it.
        code = compile(ast.Module(body=rest, type_ignores=[]), file, "exec", dont_inherit=True)
        exec(code, vars(module))


def _running_body(module: ModuleType) -> FrameType | None:
    """The innermost frame running ``module``'s top level, or None once it has finished."""
    frame: FrameType | None = sys._getframe(1)
    namespace = vars(module)
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals is namespace:
            return frame
        frame = frame.f_back
    return None
