"""Atomic outputs: every file tickswap writes appears whole or not at all.

Saves, recordings and screenshots are all written the same way: into a temporary file
beside the target, flushed and synced to disk, then renamed over the target, and the
directory synced so the rename itself survives a power cut. A crash, a full disk or a
Ctrl-C mid-write leaves the previous file exactly as it was. The target's permissions
are kept (a 0600 save stays 0600), and a target that is a symbolic link is written
through: the link stays a link and the file it points to is replaced.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import IO, Any

__all__ = ["AtomicFile", "OutputError", "output_path", "same_output"]


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


def _mode_for(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


class AtomicFile:
    """A temporary file beside ``path``; ``commit()`` syncs it and renames it over ``path``.

    ``suffix`` keeps the target's extension on the temporary name (image writers choose
    their format by it). Use as a context manager: leaving it without ``commit()``
    removes the temporary file and leaves the target untouched.
    """

    def __init__(self, path: str | os.PathLike[str], *, suffix: str = ".tmp") -> None:
        self.display = os.fspath(path)
        self.target = output_path(path)
        if self.target.is_dir():
            raise OutputError(f"cannot write {self.display}: it is a directory")
        self.temporary = self.target.with_name(f".{self.target.name}.{os.getpid()}{suffix}")
        self._file: IO[Any] | None = None

    def open(self, mode: str = "w") -> IO[Any]:
        """Open the temporary file for writing (``"w"`` text, ``"wb"`` bytes)."""
        try:
            # Kept open across calls (a recording is written tick by tick): closed by commit or abort.
            if "b" in mode:
                self._file = open(self.temporary, mode)  # noqa: SIM115
            else:
                self._file = open(self.temporary, mode, encoding="utf-8")  # noqa: SIM115
        except OSError as error:
            raise OutputError(f"cannot write {self.display}: {error.strerror or error}") from None
        return self._file

    def commit(self) -> None:
        """Flush, sync, keep the target's mode, rename over the target, and sync the directory."""
        try:
            if self._file is not None:
                self._file.flush()
                os.fsync(self._file.fileno())
                self._file.close()
                self._file = None
            else:
                with open(self.temporary, "rb+") as written:
                    os.fsync(written.fileno())
            os.chmod(self.temporary, _mode_for(self.target))
            os.replace(self.temporary, self.target)
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
        except OSError as error:
            self.abort()
            raise OutputError(f"cannot write {self.display}: {error.strerror or error}; "
                              "the previous file, if any, is intact") from None

    def abort(self) -> None:
        """Drop the temporary file; the target is untouched."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        with contextlib.suppress(OSError):
            self.temporary.unlink()

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None or self.temporary.exists():
            self.abort()
