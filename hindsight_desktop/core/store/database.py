"""The SQLite file: connections, pragmas, transactions, schema migrations.

Several processes open the same file (the tray app and stdio MCP processes), so: WAL, a long busy
timeout, BEGIN IMMEDIATE for writes (a deferred transaction that later upgrades to a write lock can
fail with SQLITE_BUSY without the busy handler ever being consulted), and short transactions. Within
a process, writes share one connection and reads each take one of a few more (readers.py).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import apsw

from hindsight_desktop.core.errors import EncryptionError, HindsightError, InvalidInput
from hindsight_desktop.core.index import postings, row_lengths
from hindsight_desktop.core.keys.opener import Opened, open_key
from hindsight_desktop.core.store.connections import cipher_of, open_connection
from hindsight_desktop.core.store.private_files import create_private, private_dir
from hindsight_desktop.core.store.readers import MAX_READERS, ReaderPool
from hindsight_desktop.core.store.schema import MIGRATIONS  # also read by diagnose and tests

BUSY_TIMEOUT_MS = 30_000
# Pages a read connection keeps decrypted (KiB; SQLite's default is 2 MiB). A search reads a few hundred
# scattered rows, postings and index pages; each page that is not kept is read and decrypted again.
# The pages only fill as they are read, at most this much per open reader (bench/NOTES.md).
READER_CACHE_KIB = 8 * 1024
SCAN_CACHE_KIB = 256  # a background scan's page cache: it reads each page once
CHECKPOINT_WAIT_MS = 200  # per checkpoint try (see Store.checkpoint)


def utcnow() -> datetime:
    return datetime.now(UTC)


def _wants_encryption() -> bool:
    from hindsight_desktop.config import load_settings  # config imports the engine's errors only

    try:
        return load_settings().encrypt_memory_file
    except InvalidInput:  # a broken settings file: the default, which keeps the memory encrypted
        return True


class Store:
    """The memory file for the threads of this process: one write connection, shared under `lock`
    (apsw connections may be used from several threads; the lock keeps one thread's transaction
    from interleaving with another's statements), and a pool of read connections (`read`).
    """

    def __init__(self, path: Path, *, readers: int = MAX_READERS, encrypt: bool | None = None) -> None:
        """`encrypt`: a new file is made encrypted and a plain one encrypted now (keys/opener.py); None
        follows the saved setting `encrypt_memory_file` (on by default)."""
        self.path = Path(path)
        self.lock = threading.RLock()
        self._writer: int | None = None  # the thread inside a write transaction, if any
        self._before_write: Callable[[], None] | None = None
        try:
            # The folder 0700 and the file 0600 before SQLite opens it: its WAL and SHM take the file's mode.
            private_dir(self.path.parent)
            self.encryption: Opened = open_key(self.path, _wants_encryption() if encrypt is None else encrypt)
            create_private(self.path)
            self.db = self._connect()
        except EncryptionError:
            raise
        except (apsw.Error, OSError) as exc:
            raise HindsightError(f"cannot open the memory database {self.path}: {exc}") from exc
        self._pragma("journal_mode", "WAL")
        for name, value in (("foreign_keys", "ON"), ("synchronous", "NORMAL"), ("secure_delete", "ON")):
            self._pragma(name, value)
        # The keyword indexes' row lengths, kept in memory across this process's writes (row_lengths.py).
        self.row_lengths = row_lengths.Ledger()
        self.readers = ReaderPool(self._connect_reader, readers)  # opens nothing until the first read
        self._migrate()
        self.row_lengths.watch(self.db)  # after the migrations, which may rebuild the indexes

    @property
    def key(self) -> bytes | None:
        """The file's key (None for a plain file): every connection to it, and every copy, needs it."""
        return self.encryption.key

    def _connect(self) -> apsw.Connection:
        db = open_connection(self.path, self.key)
        db.set_busy_timeout(BUSY_TIMEOUT_MS)
        postings.create_instance_tables(db)
        return db

    def _connect_reader(self) -> apsw.Connection:
        db = self._connect()
        # A write through a reader would upgrade a stale snapshot and fail with BUSY beside our own
        # writer; refused outright, it is a clear error. (WAL mode is a property of the file.)
        for name, value in (("foreign_keys", "ON"), ("query_only", "ON"), ("cache_size", str(-READER_CACHE_KIB))):
            db.execute(f"PRAGMA {name}={value}").fetchall()
        row_lengths.attach(db, self.row_lengths)
        return db

    def _pragma(self, name: str, value: str) -> None:
        # journal_mode=WAL itself needs a brief lock; the busy timeout covers a concurrent opener.
        self.db.execute(f"PRAGMA {name}={value}").fetchall()

    @property
    def schema_version(self) -> int:
        row = self.db.execute("PRAGMA user_version").fetchone()
        assert row is not None  # a pragma that always answers
        return int(row[0])

    def _migrate(self) -> None:
        current = self.schema_version
        if current > len(MIGRATIONS):
            raise HindsightError(
                f"{self.path} was written by a newer Hindsight Desktop (schema {current}); please upgrade"
            )
        if current == len(MIGRATIONS):
            self._remove_migration_backups()  # left by a version that kept them
            return
        if current > 0:  # the backup API cannot copy from inside our own write transaction: copy first
            backup = self.path.with_name(f"{self.path.stem}.v{current}.backup{self.path.suffix}")
            create_private(backup)  # 0600 from its first byte: it holds every memory
            self.backup(backup)
        with self.write():
            # Another process may have migrated between our check and our lock.
            for version in range(self.schema_version, len(MIGRATIONS)):
                MIGRATIONS[version](self.db)
                self.db.execute(f"PRAGMA user_version={version + 1}")
        # The migration committed, so the backup has done its job; kept, it would be a full copy of
        # every memory that a later purge could not reach. A failed migration leaves it in place.
        self._remove_migration_backups()

    def _remove_migration_backups(self) -> None:
        for old in self.path.parent.glob(f"{self.path.stem}.v*.backup{self.path.suffix}*"):
            old.unlink(missing_ok=True)

    def backup(self, target: Path) -> Path:
        """Copy the whole database with SQLite's online backup API (consistent even under writes)."""
        # The copy under the same key and id (the cipher's salt), so it opens like the file itself.
        salt = bytes.fromhex(self.encryption.file_id) if self.encryption.file_id else None
        cipher = cipher_of(self.db) if self.key is not None else None  # the backup copies pages as they are
        dest = open_connection(target, self.key, salt=salt, vec=False, cipher=cipher)
        try:
            # An encrypted copy cannot change its page size during the copy: it takes the source's first.
            page_size = self.db.execute("PRAGMA page_size").fetchone()
            dest.execute(f"PRAGMA page_size={int(page_size[0]) if page_size else 4096}").fetchall()
            with dest.backup("main", self.db, "main") as job:
                while not job.done:
                    job.step(1024)
        finally:
            dest.close()
        return target

    def before_write(self, flush: Callable[[], None] | None) -> None:
        """Have `flush` called before each write transaction begins, with the write lock held (it may
        write a transaction of its own): what was queued in memory lands before any later write."""
        self._before_write = flush

    @contextlib.contextmanager
    def write(self) -> Iterator[apsw.Connection]:
        """One write transaction: all of it lands or none of it does."""
        with self.lock:
            if self.db.in_transaction:  # nested call inside an outer write: join it
                yield self.db
                return
            if self._before_write is not None:
                self._before_write()
            self._begin_immediate()
            self.row_lengths.began()
            self._writer = threading.get_ident()
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            else:
                self.db.execute("COMMIT")
                self._committed()
            finally:
                self._writer = None

    def _committed(self) -> None:
        """What the commit changed in the keyword indexes, recorded for the readers' row lengths. The
        write has landed: a failure here only means the readers read the lengths again."""
        try:
            self.row_lengths.committed(self.db)
        except apsw.Error:
            self.row_lengths.forget()

    def _begin_immediate(self) -> None:
        # The busy handler normally waits; this loop is a second line for the rare BUSY it cannot wait out
        # (for example while another process checkpoints the WAL).
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                self.db.execute("BEGIN IMMEDIATE")
                return
            except apsw.BusyError:
                if time.monotonic() > deadline:
                    raise HindsightError("the memory database stayed busy for 30 s; another process holds it") from None
                time.sleep(0.02)

    @contextlib.contextmanager
    def read(self) -> Iterator[apsw.Connection]:
        """A consistent snapshot for several SELECTs, through a read connection of this thread's own:
        it waits neither for other threads' reads nor for a write transaction. Inside this thread's
        write transaction it joins that transaction instead, to see what the transaction wrote."""
        if self._writer == threading.get_ident():
            yield self.db
            return
        with self.readers.snapshot() as db:
            yield db

    @contextlib.contextmanager
    def read_apart(self) -> Iterator[apsw.Connection]:
        """One snapshot on a connection opened for it and closed after, with a small page cache: for a
        background scan, which should neither keep one of the pool's connections from the searches nor
        leave its pages in memory."""
        if self.readers.closed:
            raise HindsightError(f"the memory database {self.path} is closed")
        db = self._connect_reader()
        try:
            db.execute(f"PRAGMA cache_size={-SCAN_CACHE_KIB}").fetchall()
            db.execute("BEGIN")
            try:
                yield db
            finally:
                db.execute("COMMIT")
        finally:
            db.close()

    def optimize(self) -> None:
        """Refresh the query planner's statistics where they went stale (cheap: sampled, and skipped
        for tables that did not change much). Without them it may pick a poor index as the file grows."""
        with self.lock:
            self.db.execute("PRAGMA analysis_limit=1000").fetchall()
            self.db.execute("PRAGMA optimize=0x10002").fetchall()

    def checkpoint(self, attempts: int = 5) -> bool:
        """Fold the WAL back into the main file and empty it (after a purge, so no old page lingers in
        the WAL). True when that happened; False when another connection's open read kept it busy
        every time (the pages stay in the WAL until a later checkpoint overwrites them)."""
        with self.lock:
            # A TRUNCATE checkpoint waits for readers through the busy handler: 30 s a try would stall
            # the caller, and a reader holding a snapshot that long will not let go in time anyway.
            self.db.set_busy_timeout(CHECKPOINT_WAIT_MS)
            try:
                for attempt in range(attempts):
                    row = self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                    assert row is not None  # (busy, WAL pages, pages checkpointed)
                    if not row[0]:
                        return True
                    time.sleep(0.05 * (attempt + 1))
                return False
            finally:
                self.db.set_busy_timeout(BUSY_TIMEOUT_MS)

    def close(self) -> None:
        self.readers.close()
        with self.lock:
            self.db.close()
