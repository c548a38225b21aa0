"""Opening files from elsewhere: regular files only, never blocking, bounded by the bytes read.

A save, a replay, an input script, a picture or a sound is named by the user, and a name
can lead anywhere: ``/dev/zero`` never ends (its ``st_size`` is 0, so a size check passes),
a FIFO blocks the ``open`` itself until someone writes to it, a directory or a socket is
no file at all. So every such file is opened in three steps: ``stat`` the name and refuse
anything but a regular file, by name (``is a FIFO, not a file``); open it with
``O_NONBLOCK`` (a FIFO swapped in after the ``stat`` does not block the open); ``fstat``
what was opened and refuse it unless it is still a regular file. Reads then stop at a
limit counted in bytes actually read, not at what ``st_size`` promised.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from engine.messages import shown_name

__all__ = ["NotAFile", "file_kind", "open_regular", "read_bounded"]


class NotAFile(OSError):
    """A name that is not a readable regular file; the message names it and says what it is, in one line."""


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words: ``a FIFO``, ``a character device``, ``a directory``..."""
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (a named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return kind
    return "not a regular file"


def _refuse_special(mode: int, path: str, what: str) -> None:
    if not stat.S_ISREG(mode):
        raise NotAFile(f"{what} {shown_name(path)} is {file_kind(mode)}, not a file")


def open_regular(path: str | os.PathLike[str], what: str = "the file") -> BinaryIO:
    """Open ``path`` for reading in binary, if it is a regular file; never blocks on a FIFO.

    ``what`` names the file in messages (``"the save"``). Any problem raises ``NotAFile``
    (an ``OSError``) whose message is one line naming the file.
    """
    name = os.fspath(path)
    try:
        _refuse_special(os.stat(name).st_mode, name, what)
        descriptor = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except NotAFile:
        raise
    except OSError as error:
        raise NotAFile(f"cannot read {what} {shown_name(name)}: {error.strerror or error}") from None
    try:
        # What was opened, not what the name pointed to a moment before: a swap in between is caught here.
        _refuse_special(os.fstat(descriptor).st_mode, name, what)
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_bounded(path: str | os.PathLike[str], limit: int, what: str = "the file") -> bytes:
    """The content of the regular file ``path``, refused once more than ``limit`` bytes have been read."""
    with open_regular(path, what) as file:
        try:
            data = file.read(limit + 1)
        except OSError as error:
            raise NotAFile(f"cannot read {what} {shown_name(path)}: {error.strerror or error}") from None
    if len(data) > limit:
        raise NotAFile(f"{what} {shown_name(path)} is larger than {limit:,} bytes")
    return data
