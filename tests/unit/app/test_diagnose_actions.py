"""Each of the doctor's findings, with its real words, gets the app's own fix instead of a command."""

from __future__ import annotations

import json
from pathlib import Path

from hindsight_desktop.app import diagnose_actions as actions
from hindsight_desktop.app.client_setup import client_kinds
from hindsight_desktop.app.diagnose_actions import fixes_for
from hindsight_desktop.app.diagnose_dialog import shown_lines
from hindsight_desktop.cli import doctor_checks as doctor
from hindsight_desktop.cli.doctor_qt import INSTALL
from hindsight_desktop.cli.doctor_sync import SYNC_FIX_LATER
from hindsight_desktop.core.keys.opener import RESTORE_HINT
from hindsight_desktop.core.records import Finding
from hindsight_desktop.mcp import client_config

KINDS = {label: key for key, label in client_kinds()}


def fixes(finding: Finding) -> list[actions.Fix]:
    return fixes_for(finding.to_dict(), KINDS)


def test_the_real_findings_get_in_app_fixes_and_no_command_line_words(tmp_path: Path):
    cursor = client_config.KINDS["cursor"]
    no_entry = tmp_path / "mcp.json"
    no_entry.write_text(json.dumps({"mcpServers": {}}))
    config, _ = doctor._check_config(cursor, no_entry, tmp_path, 8765, registry=None)  # type: ignore[arg-type]
    entry = doctor.ClientEntry(cursor, no_entry, {"url": "http://127.0.0.1:8765/mcp"})
    stopped = doctor.round_trip(entry, running=False)
    failing = [
        Finding("http port", False, "port 8765 is held by another program", "stop that program, or choose …"),
        Finding("embedding model", False, "could not be opened", "check `embedding_model` in Settings and …"),
        Finding("database", False, "the key is missing", RESTORE_HINT),
        Finding("database", False, "integrity check failed", doctor_checks_rescue()),
        Finding(
            "qt libraries", False, "missing libxcb-icccm.so.4", f"{INSTALL['debian']} libxcb-icccm4 libxcb-keysyms1"
        ),
        Finding("keyring", False, "failed", "unlock the keyring, or set HINDSIGHT_TOKEN_STORE=file …"),
        Finding("sync files", False, "the last sync failed", SYNC_FIX_LATER),
        config,
        stopped,
    ]
    expected = [
        [(actions.SETTING, "http_port")],
        [(actions.SETTING, "embedding_model"), (actions.OPEN_LOG_FOLDER, "")],
        [(actions.RESTORE_KEY, "")],
        [(actions.OPEN_DATA_FOLDER, ""), (actions.OPEN_LOG_FOLDER, "")],
        [(actions.COPY, "sudo apt install libxcb-icccm4 libxcb-keysyms1")],
        [(actions.TAB, "Clients")],
        [(actions.TAB, "Sync")],
        [(actions.INSTALL_CLIENT, "cursor")],
        [(actions.RESTART_SERVER, "")],
    ]
    assert [[(f.action, f.arg) for f in fixes(finding)] for finding in failing] == expected
    for finding in failing:
        shown = "\n".join(shown_lines(finding.to_dict(), fixes(finding)))
        assert "hindsight-desktop" not in shown and "`" not in shown, shown  # no command to type, but…
    qt = "\n".join(shown_lines(failing[4].to_dict(), fixes(failing[4])))
    assert "sudo apt install libxcb-icccm4 libxcb-keysyms1" in qt  # …the one thing the app cannot do itself


def doctor_checks_rescue() -> str:
    from hindsight_desktop.core.diagnose.checks import _RESCUE_FIX

    return _RESCUE_FIX


def test_passing_checks_offer_nothing_but_the_log_folder():
    assert fixes_for({"name": "http port", "ok": True, "detail": "free"}) == []
    assert [f.action for f in fixes_for({"name": "log folder", "ok": True, "detail": "/x"})] == [
        actions.OPEN_LOG_FOLDER
    ]


def test_a_failed_round_trip_offers_install_and_restart():
    check = {
        "name": "tools/list Cursor",
        "ok": False,
        "detail": "no answer",
        "fix": "restart Cursor after `hindsight-desktop clients install cursor`",
    }
    assert [(f.action, f.arg) for f in fixes_for(check, KINDS)] == [
        (actions.INSTALL_CLIENT, "cursor"),
        (actions.RESTART_SERVER, ""),
    ]


def test_a_config_that_is_not_json_offers_nothing():
    check = {"name": "client Cursor", "ok": True, "skipped": True, "detail": "not plain JSON", "fix": ""}
    assert fixes_for(check, KINDS) == []
