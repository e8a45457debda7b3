"""The tables that record, in the same transaction as each write, what sync must carry to other devices.

Every process that writes the memory file (the app, `serve`, a stdio MCP process, the CLI) goes through
SQLite, so the capture is done by triggers on `memories` and `relations`: nothing in the write paths has
to remember it. A trigger records only which memory (or link) changed, which groups of columns changed and
a hybrid logical clock value, never any text: `sync now` reads the current row when it writes the change
file, so a memory purged in between leaves no text behind in the log.

The triggers fire only while `sync_local.capture` is '1': on a device where sync is set up, and not while
changes from another device are being applied (the apply sets it to '0' inside its own transaction).
Changing GROUPS changes the triggers: that takes a new migration.
"""

from __future__ import annotations

import apsw

# Columns that travel, in groups that merge as one (last writer wins per group). Working memory, access
# statistics (access_count, last_accessed_at, stability, reviewed_at) and the rowid stay on each device.
GROUPS: dict[str, tuple[str, ...]] = {
    "content": ("content", "content_hash", "entities", "fact_key", "fact_value"),
    "summary": ("summary",),
    "type": ("type",),
    "importance": ("importance",),
    "pinned": ("pinned",),
    "status": ("status", "superseded_by"),
    "layer": ("layer", "expires_at"),
    "metadata": ("metadata",),
    "origin": ("client", "scope", "session_id", "created_at", "occurred_at"),
    "updated": ("updated_at",),
}
SYNCED_COLUMNS: tuple[str, ...] = tuple(column for columns in GROUPS.values() for column in columns)

_CAPTURING = "(SELECT value FROM sync_local WHERE key = 'capture') = '1'"
# The clock: milliseconds since 1970, moved past the last value this file gave or saw.
_TICK = (
    "UPDATE sync_local SET value = CAST(max(CAST(value AS INTEGER) + 1, "
    "CAST(unixepoch('subsec') * 1000 AS INTEGER)) AS TEXT) WHERE key = 'hlc';"
)
_NOW = "(SELECT CAST(value AS INTEGER) FROM sync_local WHERE key = 'hlc')"


def _changed_groups() -> str:
    cases = []
    for group, columns in GROUPS.items():
        differs = " OR ".join(f"OLD.{c} IS NOT NEW.{c}" for c in columns)
        cases.append(f"CASE WHEN {differs} THEN '{group}' END")
    return f"json_array({', '.join(cases)})"


def create_tables(db: apsw.Connection) -> None:
    """The sync tables and the capture triggers (schema migration "add_sync")."""
    any_synced_change = " OR ".join(f"OLD.{c} IS NOT NEW.{c}" for c in SYNCED_COLUMNS)
    db.execute(
        f"""
        -- This device's sync settings and counters: device id, folder, clock, capture flag. Never travels.
        CREATE TABLE sync_local (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        -- What changed since the last `sync now`: ids, column groups and clocks only, no text.
        CREATE TABLE sync_outbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL CHECK (kind IN ('memory', 'purge', 'link')),
            memory_id TEXT NOT NULL,
            target_id TEXT,
            rel_type TEXT,
            groups TEXT,
            hlc INTEGER NOT NULL
        );

        -- Per memory, the clock and device of the change that set each column group; a purge leaves
        -- only its clock (a tombstone, no text). superseded_by as the status group set it: the memory it
        -- names may not have arrived yet.
        CREATE TABLE sync_versions (
            memory_id TEXT PRIMARY KEY,
            clocks TEXT NOT NULL DEFAULT '{{}}',
            superseded_by TEXT,
            purged INTEGER
        ) WITHOUT ROWID;

        -- Every link's last known state (present or removed) and the change that set it.
        CREATE TABLE sync_links (
            source_id TEXT NOT NULL,
            target_id TEXT NOT NULL,
            type TEXT NOT NULL,
            hlc INTEGER NOT NULL,
            device TEXT NOT NULL,
            present INTEGER NOT NULL,
            strength REAL NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (source_id, target_id, type)
        ) WITHOUT ROWID;

        -- The other devices' change files applied here (by device and sequence number).
        CREATE TABLE sync_applied (
            device TEXT NOT NULL,
            seq INTEGER NOT NULL,
            PRIMARY KEY (device, seq)
        ) WITHOUT ROWID;

        -- This device's own change files (their plaintext), kept until pruned from the folder, so a purge
        -- can rewrite them without the purged text and a file lost before it was written is written again.
        CREATE TABLE sync_files (
            seq INTEGER PRIMARY KEY,
            payload BLOB NOT NULL,
            written INTEGER NOT NULL DEFAULT 0
        );

        CREATE TRIGGER sync_memory_added AFTER INSERT ON memories
        WHEN NEW.layer != 'working' AND {_CAPTURING}
        BEGIN
            {_TICK}
            INSERT INTO sync_outbox (kind, memory_id, groups, hlc) VALUES ('memory', NEW.id, '"*"', {_NOW});
        END;

        CREATE TRIGGER sync_memory_changed AFTER UPDATE ON memories
        WHEN NEW.layer != 'working' AND {_CAPTURING} AND ({any_synced_change})
        BEGIN
            {_TICK}
            INSERT INTO sync_outbox (kind, memory_id, groups, hlc) VALUES (
                'memory', NEW.id,
                CASE WHEN OLD.layer = 'working' OR OLD.id IS NOT NEW.id THEN '"*"' ELSE {_changed_groups()} END,
                {_NOW}
            );
        END;

        CREATE TRIGGER sync_memory_deleted AFTER DELETE ON memories
        WHEN OLD.layer != 'working' AND {_CAPTURING}
        BEGIN
            {_TICK}
            INSERT INTO sync_outbox (kind, memory_id, hlc) VALUES ('purge', OLD.id, {_NOW});
        END;

        CREATE TRIGGER sync_link_added AFTER INSERT ON relations WHEN {_CAPTURING}
        BEGIN
            {_TICK}
            INSERT INTO sync_outbox (kind, memory_id, target_id, rel_type, hlc)
                VALUES ('link', NEW.source_id, NEW.target_id, NEW.type, {_NOW});
        END;

        CREATE TRIGGER sync_link_changed AFTER UPDATE ON relations WHEN {_CAPTURING}
        BEGIN
            {_TICK}
            INSERT INTO sync_outbox (kind, memory_id, target_id, rel_type, hlc)
                VALUES ('link', NEW.source_id, NEW.target_id, NEW.type, {_NOW});
        END;

        CREATE TRIGGER sync_link_removed AFTER DELETE ON relations WHEN {_CAPTURING}
        BEGIN
            {_TICK}
            INSERT INTO sync_outbox (kind, memory_id, target_id, rel_type, hlc)
                VALUES ('link', OLD.source_id, OLD.target_id, OLD.type, {_NOW});
        END;
        """
    )
