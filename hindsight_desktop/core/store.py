"""The SQLite file: connection, pragmas, transactions, schema migrations.

Several processes open the same file (the tray app and stdio MCP processes), so: WAL, a long busy
timeout, BEGIN IMMEDIATE for writes (a deferred transaction that later upgrades to a write lock can
fail with SQLITE_BUSY without the busy handler ever being consulted), and short transactions.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import apsw
import sqlite_vec

from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.private_files import create_private, private_dir

BUSY_TIMEOUT_MS = 30_000
CHECKPOINT_WAIT_MS = 200  # per checkpoint try (see Store.checkpoint)


def _v1(db: apsw.Connection) -> None:
    db.execute(
        """
        CREATE TABLE memories (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            content TEXT NOT NULL,
            summary TEXT,
            layer TEXT NOT NULL CHECK (layer IN ('working', 'episodic', 'semantic', 'procedural')),
            type TEXT NOT NULL,
            importance REAL NOT NULL CHECK (importance BETWEEN 0 AND 1),
            pinned INTEGER NOT NULL DEFAULT 0,
            client TEXT NOT NULL,
            scope TEXT NOT NULL CHECK (scope IN ('private', 'shared')),
            session_id TEXT,
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived', 'superseded')),
            superseded_by TEXT REFERENCES memories(id) ON DELETE SET NULL,
            created_at TEXT NOT NULL,
            occurred_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            last_accessed_at TEXT,
            access_count INTEGER NOT NULL DEFAULT 0,
            expires_at TEXT,
            entities TEXT NOT NULL DEFAULT '[]',
            metadata TEXT NOT NULL DEFAULT '{}',
            content_hash TEXT NOT NULL,
            fact_key TEXT,
            fact_value TEXT
        );
        CREATE INDEX memories_time ON memories (occurred_at);
        CREATE INDEX memories_status ON memories (status, layer);
        CREATE INDEX memories_client ON memories (client);
        CREATE INDEX memories_session ON memories (session_id);
        CREATE INDEX memories_hash ON memories (content_hash);
        CREATE INDEX memories_fact ON memories (fact_key) WHERE fact_key IS NOT NULL;

        CREATE TABLE entity_index (
            value TEXT NOT NULL,
            kind TEXT NOT NULL,
            memory_rowid INTEGER NOT NULL REFERENCES memories(rowid) ON DELETE CASCADE,
            PRIMARY KEY (value, kind, memory_rowid)
        ) WITHOUT ROWID;
        CREATE INDEX entity_by_memory ON entity_index (memory_rowid);

        -- Contentless: the text lives only in memories; a purge leaves nothing behind here.
        CREATE VIRTUAL TABLE fts_words USING fts5 (
            body, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2'
        );
        CREATE VIRTUAL TABLE fts_trigram USING fts5 (
            body, content='', contentless_delete=1, tokenize='trigram'
        );

        CREATE TABLE relations (
            source_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            target_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            type TEXT NOT NULL,
            strength REAL NOT NULL DEFAULT 1.0,
            created_at TEXT NOT NULL,
            PRIMARY KEY (source_id, target_id, type)
        ) WITHOUT ROWID;
        CREATE INDEX relations_target ON relations (target_id);

        -- Which embedding models made vectors; each has its own vec0 table vec_<num>.
        CREATE TABLE models (
            num INTEGER PRIMARY KEY,
            model_id TEXT NOT NULL UNIQUE,
            dim INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            retired_at TEXT
        );

        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            kind TEXT NOT NULL,
            memory_id TEXT,
            client TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX events_memory ON events (memory_id);
        CREATE INDEX events_at ON events (at);

        -- Search log for the hit-rate metric. No query text: it could hold what a purge removed.
        CREATE TABLE searches (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            client TEXT NOT NULL,
            hits INTEGER NOT NULL,
            deep INTEGER NOT NULL DEFAULT 0,
            mode TEXT NOT NULL DEFAULT 'hybrid'
        );
        CREATE INDEX searches_at ON searches (at);

        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """
    )


def _v2(db: apsw.Connection) -> None:
    # Every vector added or removed, in order: each process's in-memory search cache replays what other
    # processes changed instead of rereading the whole index. Row ids only, never text.
    db.execute(
        """
        CREATE TABLE vector_changes (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            model_num INTEGER NOT NULL,
            memory_rowid INTEGER NOT NULL,
            op TEXT NOT NULL CHECK (op IN ('add', 'delete'))
        );
        """
    )


def _v3(db: apsw.Connection) -> None:
    # MCP clients allowed over HTTP: a name and a token hash each, never the token itself.
    db.execute(
        """
        CREATE TABLE IF NOT EXISTS mcp_clients (
            name TEXT PRIMARY KEY,
            token_hash TEXT NOT NULL,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        );
        """
    )


def _v4(db: apsw.Connection) -> None:
    db.execute(
        """
        -- Decay with spaced reinforcement: a memory's half-life is the policy's base times `stability`,
        -- which grows when the memory is used again after a gap (reviewed_at: the last such use).
        ALTER TABLE memories ADD COLUMN stability REAL NOT NULL DEFAULT 1.0;
        ALTER TABLE memories ADD COLUMN reviewed_at TEXT;

        -- Where each model's GGUF file lives, so any process can load the models a switch needs.
        ALTER TABLE models ADD COLUMN path TEXT;

        -- Every maintenance or re-embed run: what it changed and how long it took.
        CREATE TABLE maintenance_runs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            client TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            status TEXT NOT NULL CHECK (status IN ('running', 'stopped', 'done', 'failed')),
            seconds REAL,
            report TEXT NOT NULL DEFAULT '{}'
        );

        -- At most one embedding-model switch in progress; its cursor makes the re-embed resumable.
        CREATE TABLE model_switch (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            from_num INTEGER NOT NULL,
            to_num INTEGER NOT NULL,
            started_at TEXT NOT NULL,
            cursor INTEGER NOT NULL DEFAULT 0,
            log_seq INTEGER NOT NULL DEFAULT 0,
            done INTEGER NOT NULL DEFAULT 0
        );

        -- Before this version the engine used whichever model it was started with; the newest one is in use.
        INSERT INTO meta (key, value)
            SELECT 'model.active', CAST(max(num) AS TEXT) FROM models WHERE retired_at IS NULL
            HAVING max(num) IS NOT NULL;
        """
    )


def _v5(db: apsw.Connection) -> None:
    db.execute(
        """
        -- A filtered timeline ("Active", or one client's memories) reads newest first straight from
        -- these; with (status, layer) and (client) alone SQLite sorted every match for each page
        -- (130-290 ms at 100k memories).
        DROP INDEX memories_status;
        CREATE INDEX memories_status_time ON memories (status, occurred_at);
        DROP INDEX memories_client;
        CREATE INDEX memories_client_time ON memories (client, occurred_at);

        -- The active statement of a fact, without stepping over every superseded one before it.
        DROP INDEX memories_fact;
        CREATE INDEX memories_fact ON memories (fact_key, status) WHERE fact_key IS NOT NULL;
        """
    )


def _v6(db: apsw.Connection) -> None:
    # Chinese text is now indexed as dictionary words and single characters beside the character pairs
    # (keyword.py): memories with CJK text are indexed again; others index exactly as before.
    from hindsight_desktop.core import keyword  # imported here: keyword's own imports stay out of store

    keyword.reindex_cjk(db)


# Forward migrations: index i takes the schema from version i to i + 1. Append only.
MIGRATIONS: list[Callable[[apsw.Connection], None]] = [_v1, _v2, _v3, _v4, _v5, _v6]


def utcnow() -> datetime:
    return datetime.now(UTC)


class Store:
    """One apsw connection to the memory file, shared by the threads of this process.

    apsw connections may be used from several threads; the lock keeps one thread's transaction from
    interleaving with another's statements on the same connection.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.lock = threading.RLock()
        try:
            # The folder 0700 and the file 0600 before SQLite opens it: its WAL and SHM take the file's mode.
            private_dir(self.path.parent)
            create_private(self.path)
            self.db = apsw.Connection(str(self.path))
        except (apsw.Error, OSError) as exc:
            raise HindsightError(f"cannot open the memory database {self.path}: {exc}") from exc
        self.db.set_busy_timeout(BUSY_TIMEOUT_MS)
        self.db.enable_load_extension(True)
        self.db.load_extension(sqlite_vec.loadable_path())
        self.db.enable_load_extension(False)
        self._pragma("journal_mode", "WAL")
        for name, value in (("foreign_keys", "ON"), ("synchronous", "NORMAL"), ("secure_delete", "ON")):
            self._pragma(name, value)
        self._migrate()

    def _pragma(self, name: str, value: str) -> None:
        # journal_mode=WAL itself needs a brief lock; the busy timeout covers a concurrent opener.
        self.db.execute(f"PRAGMA {name}={value}").fetchall()

    @property
    def schema_version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

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
        dest = apsw.Connection(str(target))
        try:
            with dest.backup("main", self.db, "main") as job:
                while not job.done:
                    job.step(1024)
        finally:
            dest.close()
        return target

    @contextlib.contextmanager
    def write(self) -> Iterator[apsw.Connection]:
        """One write transaction: all of it lands or none of it does."""
        with self.lock:
            if self.db.in_transaction:  # nested call inside an outer write: join it
                yield self.db
                return
            self._begin_immediate()
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

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
        """A consistent snapshot for several SELECTs."""
        with self.lock:
            if self.db.in_transaction:
                yield self.db
                return
            self.db.execute("BEGIN")
            try:
                yield self.db
            finally:
                self.db.execute("COMMIT")

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
                    busy, _log, _done = self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                    if not busy:
                        return True
                    time.sleep(0.05 * (attempt + 1))
                return False
            finally:
                self.db.set_busy_timeout(BUSY_TIMEOUT_MS)

    def close(self) -> None:
        with self.lock:
            self.db.close()
