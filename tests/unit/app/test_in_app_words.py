"""The core's real messages, as the app shows them: each quoted command of ours becomes the app's place
for it; another program's command stays; a place nearer the message (this dialog's button) comes first."""

from __future__ import annotations

from pathlib import Path

import pytest

from hindsight_desktop.app.in_app_words import has_command, in_app
from hindsight_desktop.app.sync_tab import HERE as SYNC_HERE
from hindsight_desktop.cli.doctor_sync import SYNC_FIX_LATER
from hindsight_desktop.core.diagnose.checks import MAINTENANCE_FIX
from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.keys import manage, opener


def _raised(fn, *args) -> str:
    with pytest.raises(HindsightError) as caught:
        fn(*args)
    return str(caught.value)


def test_real_key_messages_name_the_app_s_places(tmp_path: Path):
    empty = tmp_path / "memory.db"
    empty.write_bytes(b"")
    not_encrypted = _raised(manage.rekey, empty)  # "… `key init` or a start of the app encrypts it"
    assert "`key init`" in not_encrypted
    shown = in_app(not_encrypted)
    assert "“Encrypt the memory file” in Settings → Memory" in shown and not has_command(shown), shown
    restore = in_app(opener.RESTORE_HINT)
    assert restore.startswith("if the key was lost") and "use “Enter recovery key”" in restore
    assert not has_command(restore)


def test_maintenance_and_sync_advice():
    assert in_app(MAINTENANCE_FIX).startswith("use “Run maintenance now” in the tray menu: its repair pass")
    assert "Settings → Sync → “Sync now”" in in_app(SYNC_FIX_LATER)
    # In the Sync tab, its own buttons.
    text = "run `hindsight-desktop sync setup FOLDER` on the first device"
    assert in_app(text, SYNC_HERE) == "use “Start syncing in this folder (first device)” on the first device"


def test_other_programs_and_plain_words_are_left_alone():
    for text in ("run `chmod 600 /home/me/tokens.json`", "choose another port in Settings", "`claude mcp add`"):
        assert in_app(text) == text
