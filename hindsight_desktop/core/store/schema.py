"""The schema of the memory file, as the ordered list of changes that build it.

Version N is the schema after the first N changes; the file records its version in `PRAGMA
user_version` and `Store` applies the missing changes in one write transaction. Append only: a
released change is never edited or reordered, or a file already at its version would not get it.
tests/unit/core/store/test_migrations.py opens a fixture file of every earlier version (tests/fixtures/schemas/).
"""

from __future__ import annotations

from collections.abc import Callable

import apsw

Migration = Callable[[apsw.Connection], None]


def create_tables(db: apsw.Connection) -> None:
    """Version 1: memories, their keyword indexes, relations, models, events, searches and meta."""
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


def add_vector_change_log(db: apsw.Connection) -> None:
    """Version 2: the vector change log that keeps each process's search cache in step."""
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


def add_mcp_clients(db: apsw.Connection) -> None:
    """Version 3: the MCP clients allowed over HTTP (name and token hash)."""
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


def add_spaced_decay_and_runs(db: apsw.Connection) -> None:
    """Version 4: spaced-decay columns, model paths, the maintenance run log and the model switch."""
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


def index_timeline_order(db: apsw.Connection) -> None:
    """Version 5: indexes that read a filtered timeline and a fact's active statement in order."""
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


def segment_chinese_keywords(db: apsw.Connection) -> None:
    """Version 6: memories with Chinese text are keyword-indexed again as words and characters."""
    # Beside the character pairs they had (index/keyword.py); text without CJK characters indexes as before.
    from hindsight_desktop.core.index import keyword  # imported here: keyword's own imports stay out of store

    keyword.reindex_cjk(db)


def add_use_log(db: apsw.Connection) -> None:
    """Version 7: the use log, for the share of recalled memories that replies relied on."""
    db.execute(
        """
        -- One row per tool call that reported recalled memories as used: when, who, how many.
        -- Counts only, no ids: a purge leaves nothing behind here.
        CREATE TABLE uses (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            client TEXT NOT NULL,
            used INTEGER NOT NULL
        );
        CREATE INDEX uses_at ON uses (at);
        """
    )


def add_inbox_and_policies(db: apsw.Connection) -> None:
    """Version 8: the inbox of what assistants proposed and each client's write policy."""
    db.execute(
        """
        -- How each client name's writes are taken, whatever its transport: auto, review or read-only.
        -- A name without a row is auto.
        CREATE TABLE client_policies (
            name TEXT PRIMARY KEY,
            policy TEXT NOT NULL CHECK (policy IN ('auto', 'review', 'read-only')),
            set_at TEXT NOT NULL
        );

        -- Writes that wait for the person (core/inbox/): redacted like any write, never indexed or
        -- recalled, never synced; an approval moves one into memories, a reject or expiry deletes it.
        CREATE TABLE inbox (
            id TEXT PRIMARY KEY,
            client TEXT NOT NULL,
            content TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            type TEXT NOT NULL,
            claimed_type TEXT,
            importance REAL,
            metadata TEXT NOT NULL DEFAULT '{}',
            scope TEXT NOT NULL,
            session_id TEXT,
            occurred_at TEXT NOT NULL,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            reason TEXT NOT NULL,
            signals TEXT NOT NULL DEFAULT '{}',
            repeats INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX inbox_same ON inbox (content_hash, client, scope);
        CREATE INDEX inbox_expiry ON inbox (expires_at);
        """
    )


def add_sync(db: apsw.Connection) -> None:
    """Version 9: the sync change log, per-memory clocks, applied files and the capture triggers."""
    from hindsight_desktop.core.store import sync_capture  # its triggers are this version's; see its docstring

    sync_capture.create_tables(db)


def add_vector_codes_and_lookup_indexes(db: apsw.Connection) -> None:
    """Version 10: the search cache's codes beside each vector; indexes for a writer's events and for
    the private memories."""
    db.execute(
        """
        -- Derived from the vectors, in blocks of consecutive rowids (index/vector_codes.py): written with
        -- each vector, never synced (each device derives its own).
        CREATE TABLE vector_bits (
            id INTEGER PRIMARY KEY,
            model_num INTEGER NOT NULL,
            block INTEGER NOT NULL,
            valid BLOB NOT NULL,
            bits BLOB NOT NULL,
            UNIQUE (model_num, block)
        );
        CREATE TABLE vector_block_codes (id INTEGER PRIMARY KEY, codes BLOB NOT NULL);

        -- Each writer's last activity (the Clients tab) without reading every event.
        CREATE INDEX events_client_time ON events (client, at);

        -- The memories hidden from a client (others' private ones) without reading every memory.
        CREATE INDEX memories_private ON memories (client) WHERE scope = 'private';
        """
    )
    # The codes were filled here from the vectors; version 11 fills them again in its own layout, so a
    # file older than 10 is filled once, there.


def move_vector_codes_to_rows(db: apsw.Connection) -> None:
    """Version 11: each vector's int8 codes in a row of their own, not in blocks, so a search can read
    only its candidates' codes and a large store need not hold them all in memory (bench/NOTES.md).
    Every model's codes are written again from its vectors (version 10's blocks go)."""
    db.execute(
        """
        DROP TABLE vector_block_codes;
        DELETE FROM vector_bits;
        -- Derived from the vectors (index/vector_codes.py): the int8 codes, then the float32 scale.
        -- id: model number * 2^40 + the memory's rowid (vector_codes.key).
        CREATE TABLE vector_row_codes (id INTEGER PRIMARY KEY, codes BLOB NOT NULL);
        """
    )
    from hindsight_desktop.core.index import vector_codes  # imported here: index's own imports stay out of store

    for num, dim in [(int(n), int(d)) for n, d in db.execute("SELECT num, dim FROM models")]:
        table = f"vec_{num}"
        if db.execute("SELECT 1 FROM sqlite_schema WHERE name = ?", (table,)).fetchone() is not None:
            vector_codes.backfill_model(db, num, dim, table)


# Index i takes the schema from version i to i + 1.
MIGRATIONS: list[Migration] = [
    create_tables,
    add_vector_change_log,
    add_mcp_clients,
    add_spaced_decay_and_runs,
    index_timeline_order,
    segment_chinese_keywords,
    add_use_log,
    add_inbox_and_policies,
    add_sync,
    add_vector_codes_and_lookup_indexes,
    move_vector_codes_to_rows,
]
