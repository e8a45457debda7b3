"""What kind of file the memory file is (by its first bytes), the names of a conversion's work files,
and the lock that lets one process at a time convert a memory file."""

from __future__ import annotations

import contextlib
import enum
import os
from collections.abc import Iterator
from pathlib import Path

from hindsight_desktop.core.store.private_files import FILE_MODE

PLAIN_MAGIC = b"SQLite format 3\x00"
ID_BYTES = 16


class State(enum.Enum):
    NEW = "new"  # no file yet (or an empty one with no WAL)
    PLAIN = "plain"
    ENCRYPTED = "encrypted"


def state(path: Path) -> State:
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(PLAIN_MAGIC))
    except FileNotFoundError:
        head = b""
    if head == PLAIN_MAGIC:
        return State.PLAIN
    if len(head) == len(PLAIN_MAGIC):
        return State.ENCRYPTED
    # A plain file made in WAL mode may still have all its pages in the WAL (never checkpointed).
    wal = Path(f"{path}-wal")
    return State.PLAIN if wal.is_file() and wal.stat().st_size > 0 else State.NEW


def file_id(path: Path) -> str:
    """The id of an encrypted file (the cipher's salt, its first 16 bytes), as the keyring names it."""
    with open(path, "rb") as handle:
        return handle.read(ID_BYTES).hex()


def marker(path: Path) -> Path:
    """A small plain file naming the id of the encrypted file this folder holds: a plain file found in its
    place, or another memory's encrypted file, is then named as such instead of being taken as the memory."""
    return path.with_name(f"{path.name}.encrypted")


def marked_id(path: Path) -> str | None:
    try:
        return marker(path).read_text(encoding="ascii").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def mark(path: Path) -> None:
    from hindsight_desktop.core.store.private_files import private_writer

    with private_writer(marker(path), encoding="ascii") as handle:
        handle.write(file_id(path) + "\n")


def building(path: Path) -> Path:
    """The new encrypted file while it is made; discarded when found at start (it was never verified)."""
    return path.with_name(f".{path.name}.encrypting")


def retired(path: Path) -> Path:
    """The old file after the swap, until it is overwritten and removed."""
    return path.with_name(f".{path.name}.retired")


def overwrite_and_remove(path: Path) -> None:
    """Zero a file's bytes before unlinking it, so its old blocks do not keep the plain text on disk
    (as far as the file system rewrites in place; copy-on-write and SSD remapping may keep old blocks)."""
    try:
        size = os.path.getsize(path)
        with open(path, "r+b") as handle:
            chunk = b"\0" * (1 << 20)
            for start in range(0, size, len(chunk)):
                handle.write(chunk[: min(len(chunk), size - start)])
            handle.flush()
            os.fsync(handle.fileno())
    except FileNotFoundError:
        return
    Path(path).unlink(missing_ok=True)


def discard_leftovers(path: Path) -> None:
    """Finish or undo a conversion that was killed: a half-made new file goes, an old file left beside
    the swapped-in one is overwritten and removed (unless it still is the memory file itself)."""
    overwrite_and_remove(building(path))  # plain pages, if it was killed before the re-key finished
    for extra in ("-journal", "-wal", "-shm"):
        Path(f"{building(path)}{extra}").unlink(missing_ok=True)
    old = retired(path)
    if old.exists():
        if path.exists() and os.path.samefile(old, path):  # killed between the link and the swap
            old.unlink()
        else:
            overwrite_and_remove(old)


def has_leftovers(path: Path) -> bool:
    return building(path).exists() or retired(path).exists()


@contextlib.contextmanager
def conversion_lock(path: Path) -> Iterator[None]:
    """One process at a time makes, encrypts or re-keys the file; the lock goes with the process, so a
    killed conversion leaves no stale lock. (Windows: no lock; the app is the only process there that
    starts before assistants do.)"""
    lock = path.with_name(f".{path.name}.lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            yield
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
