"""Diagnosis of the memory file: the doctor's checks of the database, sqlite-vec and the indexes.

Everything here reads; nothing repairs. Each check returns a `Finding` that says what was seen and,
when something is wrong, the one thing to do about it, so the doctor command, the app's Diagnose
button and an assistant can all show the same advice.

>>> check_sqlite_vec().ok                                           # doctest: +SKIP
True
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import apsw
import sqlite_vec

from hindsight_desktop.core.errors import EncryptionError
from hindsight_desktop.core.index import coverage
from hindsight_desktop.core.keys import opener
from hindsight_desktop.core.records import Finding
from hindsight_desktop.core.store import connections, models, private_files, upkeep
from hindsight_desktop.core.store.database import BUSY_TIMEOUT_MS, MIGRATIONS, Store

MAINTENANCE_FIX = (
    "run `hindsight-desktop maintenance`: its repair pass re-indexes what is missing and drops orphan rows"
)


def check_data_dir(data_dir: Path) -> Finding:
    """The data folder exists (or can be made) and takes a new file."""
    try:
        private_files.private_dir(data_dir)
        with tempfile.NamedTemporaryFile(dir=data_dir, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Finding(
            "data dir",
            False,
            f"{data_dir} is not writable: {exc}",
            f"give yourself write access to {data_dir}, or point HINDSIGHT_DATA_DIR (or --data-dir) "
            "at a folder you own",
        )
    return Finding("data dir", True, f"{data_dir} is writable", data={"path": str(data_dir)})


def check_file_modes(data_dir: Path) -> Finding:
    """Only this account may read the data folder: the folder and its subfolders 0700, every file 0600.
    Anything wider is repaired on the spot, and the finding lists each repair."""
    try:
        loose = private_files.loose_paths(data_dir)
        fixed = private_files.repair(loose)
    except OSError as exc:
        return Finding(
            "file modes",
            False,
            f"the modes in {data_dir} could not be checked or repaired: {exc}",
            f"run `chmod -R go-rwx {data_dir}` (the folder and its files must be yours)",
        )
    if not loose:
        return Finding("file modes", True, f"{data_dir} and its files are readable only by you", data={"fixed": []})
    lines = [item.describe() for item in fixed]
    return Finding(
        "file modes",
        True,
        f"fixed {len(fixed)} path(s) other accounts could read: " + "; ".join(lines),
        data={"fixed": [str(item.path) for item in fixed]},
    )


def check_sqlite_vec() -> Finding:
    """Load the sqlite-vec extension into a scratch connection, the way the store does."""
    try:
        db = apsw.Connection(":memory:")
        db.enable_load_extension(True)
        db.load_extension(sqlite_vec.loadable_path())
        version = connections.vec_version(db)
        db.close()
    except Exception as exc:  # whatever stops the load (missing file, wrong architecture) is the finding
        return Finding(
            "sqlite-vec",
            False,
            f"the sqlite-vec extension does not load: {exc}",
            "reinstall Hindsight Desktop (or `pip install --force-reinstall sqlite-vec`)",
        )
    return Finding("sqlite-vec", True, f"sqlite-vec {version} loads", data={"version": version})


def check_database(path: Path) -> Finding:
    """Open the memory file read-only and run `PRAGMA integrity_check` (the doctor never writes to it)."""
    path = Path(path)
    if not path.exists():
        return Finding("database", True, f"no memory file yet at {path}; it is created on first start")
    try:
        db = opener.connect_existing(path, flags=apsw.SQLITE_OPEN_READONLY, vec=False)
    except EncryptionError as exc:
        return Finding("database", False, str(exc), opener.RESTORE_HINT)
    except apsw.Error as exc:
        return Finding(
            "database",
            False,
            f"cannot open {path}: {exc}",
            f"check that {path} is readable by you and is a Hindsight Desktop memory file",
        )
    try:
        return _integrity(db, path)
    except apsw.Error as exc:
        return Finding("database", False, f"{path} cannot be read: {exc}", _RESCUE_FIX)
    finally:
        db.close()


_RESCUE_FIX = (
    "export what can still be read (`hindsight-desktop export -o rescue.json`), move the memory "
    "file aside, then `hindsight-desktop import rescue.json`"
)


def _integrity(db: apsw.Connection, path: Path) -> Finding:
    db.set_busy_timeout(BUSY_TIMEOUT_MS)  # the app may be writing at the same moment
    # The vec0 tables take part in the check only when their module is present.
    db.enable_load_extension(True)
    with contextlib.suppress(apsw.Error):  # reported by check_sqlite_vec; plain tables still get checked
        db.load_extension(sqlite_vec.loadable_path())
    version = connections.schema_version(db)
    if version > len(MIGRATIONS):
        return Finding(
            "database",
            False,
            f"{path} was written by a newer Hindsight Desktop (schema {version})",
            "upgrade Hindsight Desktop",
        )
    problems = connections.integrity_problems(db)
    stored = upkeep.count_all(db) if version else 0
    form = opener.describe(path)  # "encrypted" or "plain"
    data = {"path": str(path), "schema": version, "memories": stored, "file": form}
    if problems != ["ok"]:
        shown = "; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else "")
        return Finding("database", False, f"integrity check failed: {shown}", _RESCUE_FIX, data=data)
    return Finding(
        "database", True, f"{path} ({form}) opens and passes the integrity check ({stored} memories)", data=data
    )


def check_indexes(store: Store) -> Finding:
    """The keyword index and the current model's vector table hold exactly the long-term memories."""
    with store.read() as db:
        state = models.read_state(db)
        long_term = coverage.long_term_count(db)
        tables = {"keyword index": coverage.KEYWORD_TABLE}
        vector_note = ""
        if state.active is None:
            vector_note = "no embedding model recorded yet"
        elif state.switch is not None:
            # Mid-switch the re-embedder owns vector completeness (as in repair.py); only keywords are checked.
            vector_note = "vectors not checked: a model switch is in progress (`hindsight-desktop model reembed`)"
        elif not models.table_exists(db, state.active.table):
            return Finding(
                "indexes",
                False,
                f"the vector table {state.active.table} of the model in use is gone",
                "choose the model again with `hindsight-desktop model use PATH`",
            )
        else:
            tables["vector index"] = state.active.table
        # The repair pass's own questions (index/coverage.py), so this check and the fix never disagree.
        gaps = {label: coverage.gaps(db, table)._asdict() for label, table in tables.items()}
    data = {"long_term_memories": long_term, **{label: g for label, g in gaps.items()}}
    wrong = [
        f"{label}: {g['missing']} missing, {g['orphans']} orphan rows"
        for label, g in gaps.items()
        if g["missing"] or g["orphans"]
    ]
    if wrong:
        return Finding(
            "indexes",
            False,
            f"indexes disagree with the {long_term} long-term memories (" + "; ".join(wrong) + ")",
            MAINTENANCE_FIX,
            data=data,
        )
    checked = " and ".join(gaps)
    detail = f"{checked} agree with the {long_term} long-term memories" + (f"; {vector_note}" if vector_note else "")
    return Finding("indexes", True, detail, data=data)
