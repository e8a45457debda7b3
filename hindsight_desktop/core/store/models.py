"""The model registry: which embedding models the file knows, which one is in use, and the switch in progress.

Every model has its own vec0 table (store/vectors.py), so vectors are tagged by where they live. The
file records the model in use (`meta.model.active`) and, during a switch, the target model and the
re-embed cursor (`model_switch`). `meta.model.generation` changes with every switch step that
matters to other processes, so each engine notices and rebuilds its parts. How recall works while
a switch runs is model/switching.py's job.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import apsw

from hindsight_desktop.core.store import values
from hindsight_desktop.core.store.vectors import create_table, drop_table, register_model
from hindsight_desktop.core.timeutil import to_db

ACTIVE_KEY = "model.active"
GENERATION_KEY = "model.generation"


@dataclass(frozen=True)
class ModelRow:
    num: int
    model_id: str
    dim: int
    path: str | None

    @property
    def table(self) -> str:
        return f"vec_{self.num}"


@dataclass(frozen=True)
class SwitchRow:
    from_num: int
    to_num: int
    started_at: str
    cursor: int
    log_seq: int
    done: int


@dataclass(frozen=True)
class SpaceState:
    active: ModelRow | None
    target: ModelRow | None
    switch: SwitchRow | None
    generation: int


def _model(db: apsw.Connection, num: int) -> ModelRow | None:
    row = db.execute("SELECT num, model_id, dim, path FROM models WHERE num = ?", (num,)).fetchone()
    return None if row is None else ModelRow(int(row[0]), row[1], int(row[2]), row[3])


def _meta_int(db: apsw.Connection, key: str) -> int | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else int(row[0])


def generation(db: apsw.Connection) -> int:
    return _meta_int(db, GENERATION_KEY) or 0


def read_state(db: apsw.Connection) -> SpaceState:
    active_num = _meta_int(db, ACTIVE_KEY)
    row = db.execute("SELECT from_num, to_num, started_at, cursor, log_seq, done FROM model_switch").fetchone()
    switch = None if row is None else SwitchRow(*row)
    return SpaceState(
        active=None if active_num is None else _model(db, active_num),
        target=None if switch is None else _model(db, switch.to_num),
        switch=switch,
        generation=generation(db),
    )


def bump_generation(db: apsw.Connection) -> None:
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (GENERATION_KEY, str(generation(db) + 1)))


def register(db: apsw.Connection, model_id: str, dim: int, path: str | None, now: datetime) -> ModelRow:
    """The model's row, with its vec0 table present (a model used before, then retired, gets a fresh one)."""
    num = register_model(db, model_id, dim, now)
    if not table_exists(db, f"vec_{num}"):
        create_table(db, num, dim)
    db.execute("UPDATE models SET path = coalesce(?, path), retired_at = NULL WHERE num = ?", (path, num))
    row = _model(db, num)
    assert row is not None
    return row


def table_exists(db: apsw.Connection, name: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None


def set_active(db: apsw.Connection, num: int) -> None:
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (ACTIVE_KEY, str(num)))


def begin_switch(db: apsw.Connection, active: ModelRow, target: ModelRow, now: datetime) -> None:
    """Start (or restart towards a different target) a switch from the active model to `target`."""
    current = read_state(db).switch
    if current is not None and current.to_num != target.num:
        drop_space(db, current.to_num, now)  # an unfinished switch to another model is abandoned
    if current is None or current.to_num != target.num:
        db.execute("DELETE FROM model_switch")
        seq = latest_change(db)
        db.execute(
            "INSERT INTO model_switch (id, from_num, to_num, started_at, cursor, log_seq, done) "
            "VALUES (1, ?, ?, ?, 0, ?, 0)",
            (active.num, target.num, to_db(now), seq),
        )
    bump_generation(db)


def cancel_switch(db: apsw.Connection, now: datetime) -> None:
    current = read_state(db).switch
    if current is None:
        return
    drop_space(db, current.to_num, now)
    db.execute("DELETE FROM model_switch")
    bump_generation(db)


def drop_space(db: apsw.Connection, num: int, now: datetime) -> None:
    """Remove a model's vectors for good (its row stays, marked retired, so its id still resolves)."""
    drop_table(db, num)
    db.execute("DELETE FROM vector_changes WHERE model_num = ?", (num,))
    db.execute("UPDATE models SET retired_at = ? WHERE num = ?", (to_db(now), num))


def every(db: apsw.Connection) -> list[ModelRow]:
    """Every model the file knows, retired ones too (their vec0 table may still be there)."""
    rows = db.execute("SELECT num, model_id, dim, path FROM models ORDER BY num")
    return [ModelRow(int(num), model_id, int(dim), path) for num, model_id, dim, path in rows]


# ---- the re-embed of a switch --------------------------------------------------------------------


def rename(db: apsw.Connection, num: int, model_id: str) -> bool:
    """Give a model row the id of a file that reproduces its vectors exactly; False (nothing changed)
    when another row already has that id."""
    if db.execute("SELECT 1 FROM models WHERE model_id = ? AND num != ?", (model_id, num)).fetchone():
        return False
    db.execute("UPDATE models SET model_id = ? WHERE num = ?", (model_id, num))
    return True


def set_path(db: apsw.Connection, num: int, path: str | None) -> None:
    """Where the model's file is on this machine now."""
    db.execute("UPDATE models SET path = ? WHERE num = ?", (path, num))


def latest_change(db: apsw.Connection) -> int:
    """The sequence number of the newest entry in the vector change log (0 when empty)."""
    return values.number(db, "SELECT coalesce(max(seq), 0) FROM vector_changes")


def changes_between(
    db: apsw.Connection, after: int, upto: int, nums: tuple[int, int]
) -> list[tuple[int, int, int, str]]:
    """(seq, model_num, memory_rowid, op) of the vector changes in (after, upto] to the two models' tables."""
    rows = db.execute(
        "SELECT seq, model_num, memory_rowid, op FROM vector_changes WHERE seq > ? AND seq <= ? "
        "AND model_num IN (?, ?) ORDER BY seq",
        (after, upto, *nums),
    )
    return [(int(s), int(n), int(r), str(o)) for s, n, r, o in rows]


def move_cursor(db: apsw.Connection, cursor: int, log_seq: int, written: int) -> None:
    """The switch's progress: every memory up to `cursor` and every change up to `log_seq` re-embedded."""
    db.execute(
        "UPDATE model_switch SET cursor = ?, log_seq = ?, done = done + ? WHERE id = 1", (cursor, log_seq, written)
    )


def switch_cursor(db: apsw.Connection) -> int | None:
    """The re-embed cursor of the switch in progress; None when none is."""
    row = db.execute("SELECT cursor FROM model_switch").fetchone()
    return None if row is None else int(row[0])


def end_switch(db: apsw.Connection) -> None:
    db.execute("DELETE FROM model_switch")
