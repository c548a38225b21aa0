"""Atomic outputs: every file tickswap writes appears whole or not at all, and replaces only a file.

Saves, recordings, screenshots and charts are all written the same way: into a temporary
file beside the target, flushed and synced to disk, then renamed over the target, and the
directory synced so the rename itself survives a power cut. A crash, a full disk or a
Ctrl-C mid-write leaves the previous file exactly as it was. The target's permissions
are kept (a 0600 save stays 0600), and a target that is a symbolic link is written
through: the link stays a link and the file it points to is replaced.

An output only ever replaces a *regular file*. A rename over ``/dev/null`` would put a
plain file where the device was (as root, ``--record /dev/null`` would break the
machine); a FIFO, a socket or a directory is no file to replace either. Such a target is
refused by name before anything is written (``check_output``, called before a run), and
checked again just before the rename.

The temporary file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` under an unpredictable
name (``secrets``): a file or a symbolic link planted in advance under that name makes the
open fail instead of receiving the data, and the output can never become a link. Its
name says whose it is: ``.<target>.tickswap-<pid>-<random>.tmp``. A run killed with
``kill -9`` cannot remove its temporary file; the next write of the same output removes
every such file whose process is gone (and only those: another run writing the same
output now keeps its own).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from pathlib import Path
from typing import IO, Any

from engine.disk.reading import file_kind
from engine.messages import shown_name

__all__ = ["AtomicFile", "OutputError", "check_output", "output_path", "same_output"]

_TEMPORARY = "tickswap-"
"""The mark in a temporary file's name: ``.<target>.tickswap-<pid>-<16 hex digits><suffix>``."""
_NAME_KEPT = 100
"""How much of the target's name a temporary name repeats (the whole name must fit the file system's limit)."""


class OutputError(OSError):
    """An output can't be written; the message names the file and the reason, in one line."""


def output_path(path: str | os.PathLike[str]) -> Path:
    """Where writing ``path`` really lands: through any symbolic link, absolute. Refuses an empty name."""
    text = os.fspath(path)
    if not text:
        raise OutputError("an output file name is empty")
    return Path(os.path.realpath(text))


def same_output(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    """Whether two output names land on the same file (same path, or links to one file)."""
    return output_path(first) == output_path(second)


def _refuse_special(target: Path, display: str) -> None:
    """Refuse a target that exists and is not a regular file (a device, FIFO, socket or directory)."""
    try:
        mode = target.lstat().st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise OutputError(f"cannot write {display}: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        raise OutputError(f"cannot write {display}: it is {file_kind(mode)}; an output only replaces a regular file")


def check_output(path: str | os.PathLike[str], option: str = "the output") -> Path:
    """Check, before a run, that ``path`` can be written: its real target, or ``OutputError`` in one line.

    Refused: an empty name, a target that is not a regular file (``/dev/null``, a FIFO, a
    directory, a link to one of them), a directory that does not exist or can't be written.
    A full disk can only be found when writing; that too leaves the old file intact.
    """
    display = f"{option} {shown_name(path)}" if option else shown_name(path)
    if not os.fspath(path):
        raise OutputError(f"{option}: an output file name is empty")
    target = output_path(path)
    _refuse_special(target, display)
    parent = target.parent
    if not parent.is_dir():
        raise OutputError(f"cannot write {display}: the directory {shown_name(parent)} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {display}: the directory {shown_name(parent)} is not writable")
    return target


def _mode_for(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, owned by someone else
    return True


def remove_stale_temporaries(target: Path) -> list[Path]:
    """Remove the temporary files of ``target`` left by runs that were killed; returns what was removed.

    Only regular files named as ``AtomicFile`` names them, whose process is gone, and owned
    by this user: a run writing the same output right now keeps its own.
    """
    pattern = re.compile(re.escape(f".{target.name[:_NAME_KEPT]}.{_TEMPORARY}") + r"(\d+)-[0-9a-f]{16}(\.\w{1,8})?")
    removed: list[Path] = []
    try:
        names = os.listdir(target.parent)
    except OSError:
        return removed
    for name in names:
        match = pattern.fullmatch(name)
        if match is None or int(match.group(1)) == os.getpid() or _alive(int(match.group(1))):
            continue
        stale = target.parent / name
        with contextlib.suppress(OSError):
            info = stale.lstat()
            if stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid():
                stale.unlink()
                removed.append(stale)
    return removed


class AtomicFile:
    """A temporary file beside ``path``; ``commit()`` syncs it and renames it over ``path``.

    The temporary file is created (exclusively, never through a link) when the
    ``AtomicFile`` is made. ``open()`` gives it as a file object; ``suffix`` ends the
    temporary name. Use as a context manager: leaving it without ``commit()`` removes the
    temporary file and leaves the target untouched.
    """

    def __init__(self, path: str | os.PathLike[str], *, suffix: str = ".tmp") -> None:
        self.display = shown_name(path)
        self.target = output_path(path)
        _refuse_special(self.target, self.display)
        remove_stale_temporaries(self.target)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        for _ in range(100):
            name = f".{self.target.name[:_NAME_KEPT]}.{_TEMPORARY}{os.getpid()}-{secrets.token_hex(8)}{suffix}"
            self.temporary = self.target.with_name(name)
            try:
                self._descriptor: int | None = os.open(self.temporary, flags, 0o600)
                break
            except FileExistsError:
                continue  # someone planted that name: pick another, never use theirs
            except OSError as error:
                raise OutputError(f"cannot write {self.display}: {error.strerror or error}") from None
        else:  # pragma: no cover - 100 collisions of 64 random bits
            raise OutputError(f"cannot write {self.display}: no free temporary name beside it")
        self._file: IO[Any] | None = None

    def open(self, mode: str = "w") -> IO[Any]:
        """The temporary file for writing (``"w"`` text, ``"wb"`` bytes); kept open until commit or abort."""
        if self._file is None:
            if self._descriptor is None:
                raise OutputError(f"cannot write {self.display}: it was already committed or abandoned")
            descriptor, self._descriptor = self._descriptor, None
            binary = "b" in mode
            self._file = os.fdopen(descriptor, "wb" if binary else "w", encoding=None if binary else "utf-8")
        return self._file

    def commit(self) -> None:
        """Flush, sync, keep the target's mode, rename over the target, and sync the directory."""
        try:
            file = self.open("wb") if self._file is None else self._file
            file.flush()
            os.fsync(file.fileno())
            os.fchmod(file.fileno(), _mode_for(self.target))
            file.close()
            self._file = None
            # Checked again at the last moment: what the name is now, not what it was before the run.
            _refuse_special(self.target, self.display)
            os.replace(self.temporary, self.target)
        except OSError as error:
            self.abort()
            if isinstance(error, OutputError):
                raise
            raise OutputError(f"cannot write {self.display}: {error.strerror or error}; "
                              "the previous file, if any, is intact") from None
        try:
            directory = os.open(self.target.parent, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(directory)
        except OSError:
            pass  # some file systems can't sync a directory; the rename is done
        finally:
            os.close(directory)

    def abort(self) -> None:
        """Drop the temporary file; the target is untouched."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        if self._descriptor is not None:
            with contextlib.suppress(OSError):
                os.close(self._descriptor)
            self._descriptor = None
        with contextlib.suppress(OSError):
            self.temporary.unlink()

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None or self._descriptor is not None or os.path.lexists(self.temporary):
            self.abort()
