"""Files only their owner can read: the data folder 0700, every file in it 0600, written atomically.

Another account on the same computer must not read the memory file, its WAL, the token file or an
export. SQLite creates the WAL and shared-memory files with the mode of the database file, so a
database created 0600 keeps its companions 0600 too. On Windows, modes mean little (the folder's ACL
protects it); the functions there do nothing harmful.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TextIO

DIR_MODE = 0o700
FILE_MODE = 0o600
_ENFORCED = os.name == "posix"


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) with the folder itself 0700; an existing folder is left as
    it is (`doctor` reports and repairs it)."""
    path = Path(path)
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        if _ENFORCED:
            os.chmod(path, DIR_MODE)  # mkdir's mode is filtered by the umask
    return path


def create_private(path: Path) -> None:
    """Create an empty file 0600 unless it exists (so SQLite opens our file instead of making one
    with the umask's mode); an existing file that others can read is narrowed to 0600."""
    if not os.path.lexists(path):
        with contextlib.suppress(FileExistsError):  # another process was quicker: its file is as good
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    narrow(path)


def narrow(path: Path) -> bool:
    """Make an existing regular file 0600 when group or others have any access; True if changed."""
    if not _ENFORCED:
        return False
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(info.st_mode) or not info.st_mode & 0o077:
        return False
    try:
        os.chmod(path, FILE_MODE)
    except OSError:  # another account's file, a read-only disk: reading may still work; doctor reports it
        return False
    return True


@contextlib.contextmanager
def private_writer(path: Path, encoding: str = "utf-8") -> Iterator[TextIO]:
    """Write text to `path` through a temporary file created exclusively with mode 0600 beside it, renamed
    into place once complete: nobody else can open it while it is written, and a failure leaves no half file."""
    with _private_temp(path) as fd, os.fdopen(fd, "w", encoding=encoding, newline="") as handle:
        yield handle
        handle.flush()
        os.fsync(handle.fileno())


@contextlib.contextmanager
def private_bytes_writer(path: Path) -> Iterator[BinaryIO]:
    """`private_writer` for bytes."""
    with _private_temp(path) as fd, os.fdopen(fd, "wb") as handle:
        yield handle
        handle.flush()
        os.fsync(handle.fileno())


@contextlib.contextmanager
def _private_temp(path: Path) -> Iterator[int]:
    """A descriptor on a fresh 0600 file beside `path`, renamed onto `path` when the block ends well."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.partial")
    # O_EXCL: never write through a file (or a planted symlink) that already exists under that name.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
    try:
        yield fd
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


@dataclass(frozen=True)
class Loose:
    """A path in the data folder that others can reach, with its mode and the mode it should have."""

    path: Path
    mode: int
    wanted: int

    def describe(self) -> str:
        return f"{self.path} was {self.mode:o}, now {self.wanted:o}"


def loose_paths(data_dir: Path) -> list[Loose]:
    """The data folder, and every folder and regular file under it, that group or others can access.
    Symbolic links are neither followed nor changed (a linked models folder belongs elsewhere)."""
    if not _ENFORCED or not Path(data_dir).is_dir():
        return []
    found: list[Loose] = []

    def consider(path: Path, wanted: int) -> None:
        mode = stat.S_IMODE(os.lstat(path).st_mode)
        if mode & 0o077:
            found.append(Loose(path, mode, wanted))

    consider(Path(data_dir), DIR_MODE)
    for root, dirs, files in os.walk(data_dir, followlinks=False):
        for name in dirs:
            if not os.path.islink(os.path.join(root, name)):
                consider(Path(root, name), DIR_MODE)
        for name in files:
            path = Path(root, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                consider(path, FILE_MODE)
    return found


def repair(loose: list[Loose]) -> list[Loose]:
    """chmod each to its wanted mode; returns the ones repaired (a file gone meanwhile is skipped)."""
    fixed = []
    for item in loose:
        with contextlib.suppress(FileNotFoundError):
            os.chmod(item.path, item.wanted)  # never a symlink: loose_paths() skips them
            fixed.append(item)
    return fixed
