"""Settings: where data lives, the model, recall and write-gate tuning, archive policy, maintenance,
the server port, clients, pause and start at login. Saved to the config dir as JSON."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from hindsight_desktop.app import autostart
from hindsight_desktop.app.backend import Backend
from hindsight_desktop.app.clients_tab import ClientsTab
from hindsight_desktop.app.diagnose_dialog import DiagnoseDialog
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.app.workers import Task
from hindsight_desktop.config import Settings
from hindsight_desktop.core.errors import InvalidInput

SIGNAL_NAMES = {"density": "Information density", "novelty": "Novelty", "relevance": "Personal relevance",
                "emotion": "Emotion", "explicit": "Asked to remember"}


def _spin(low: int, high: int, value: int, suffix: str = "") -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    box.setSuffix(suffix)
    return box


def _dspin(low: float, high: float, value: float, step: float = 0.05, suffix: str = "") -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setDecimals(2)
    box.setSingleStep(step)
    box.setValue(value)
    box.setSuffix(suffix)
    return box


def read_model(engine: Any) -> dict[str, Any]:
    """The engine's model status plus what the dialog compares against (runs on a worker: it syncs with
    the memory file, and the default model's module pulls in numpy)."""
    from hindsight_desktop.core.default_model import DEFAULT_MODEL_FILE

    status = engine.model_status()
    status["default_stem"] = Path(DEFAULT_MODEL_FILE).stem
    return status


def _stem(model: dict[str, Any]) -> str:
    return str(model["model_id"]).split(":", 1)[0]  # model ids are "<file stem>:<sha256 prefix>"


def model_label(model: dict[str, Any], default_stem: str) -> str:
    stem = _stem(model)
    return "multilingual-e5-small (built-in)" if stem == default_stem else stem


def is_selected(status: dict[str, Any], selected: str | None) -> bool:
    """Whether the model in use is the one the dialog selects (None: the built-in default)."""
    active = status.get("active")
    if active is None:  # nothing embedded yet: the engine takes the selected model as it opens
        return True
    if selected is None:
        return _stem(active) == status["default_stem"]
    if active.get("path"):
        return Path(active["path"]).resolve() == Path(selected).expanduser().resolve()
    return _stem(active) == Path(selected).stem


def _form(title: str, grow: bool = False) -> tuple[QGroupBox, QFormLayout]:
    group = QGroupBox(title)
    form = QFormLayout(group)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow if grow
                              else QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
    return group, form


class SettingsDialog(QDialog):
    saved = Signal(object)  # the new Settings

    def __init__(self, backend: Backend, paths: AppPaths, autostart_home: Path | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backend, self.paths, self.autostart_home = backend, paths, autostart_home
        self.diagnose_dialog: DiagnoseDialog | None = None
        self.model_status: dict[str, Any] | None = None  # from the last read on a worker
        self.model_task: Task | None = None
        self.setWindowTitle("Hindsight Desktop — Settings")
        self.setMinimumWidth(620)
        s = backend.settings
        self.tabs = QTabWidget()
        self.tabs.addTab(self._general(s), "General")
        self.tabs.addTab(self._memory(s), "Memory")
        self.clients = ClientsTab(backend)
        self.tabs.addTab(self.clients, "Clients")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._save_and_close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(buttons)

    # ---- the tabs --------------------------------------------------------------------------------
    def _general(self, s: Settings) -> QWidget:
        page = QWidget()
        data, form = _form("Data", grow=True)
        folder = QLineEdit(str(self.paths.data_dir))
        folder.setReadOnly(True)
        open_button = QPushButton("Open")
        open_button.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.paths.data_dir))))
        row = QHBoxLayout()
        row.addWidget(folder, 1)
        row.addWidget(open_button)
        form.addRow("Data folder", row)
        self.pause = QCheckBox("Pause memory (assistants can still recall; nothing new is stored)")
        self.pause.setChecked(self.backend.paused)
        form.addRow("", self.pause)
        self.login = QCheckBox("Start Hindsight Desktop when I log in")
        self.login.setChecked(autostart.is_enabled(home=self.autostart_home))
        form.addRow("", self.login)
        server, sform = _form("Server and maintenance")
        self.port = _spin(1024, 65535, s.http_port)
        sform.addRow("MCP HTTP port (127.0.0.1)", self.port)
        self.idle_minutes = _spin(1, 240, s.idle_minutes, " min")
        sform.addRow("Maintenance after idle for", self.idle_minutes)
        self.every_hours = _spin(1, 24 * 14, s.maintenance_every_hours, " h")
        sform.addRow("At most once every", self.every_hours)
        trouble, tform = _form("Troubleshooting")
        self.diagnose_button = QPushButton("Diagnose…")
        self.diagnose_button.setToolTip("Check the memory, the model, the server and each assistant's set-up")
        self.diagnose_button.clicked.connect(self.open_diagnose)
        tform.addRow(QLabel("When an assistant cannot connect or does not remember:"), self.diagnose_button)
        layout = QVBoxLayout(page)
        layout.addWidget(data)
        layout.addWidget(server)
        layout.addWidget(trouble)
        layout.addStretch(1)
        return page

    def open_diagnose(self) -> DiagnoseDialog:
        """Show the Diagnose window (one per settings window) and run the checks."""
        if self.diagnose_dialog is None:
            self.diagnose_dialog = DiagnoseDialog(self.backend, self.paths, parent=self)
        self.diagnose_dialog.show()
        self.diagnose_dialog.raise_()
        if self.diagnose_dialog.task is None or self.diagnose_dialog.task.is_finished:
            self.diagnose_dialog.start()
        return self.diagnose_dialog

    def _memory(self, s: Settings) -> QWidget:
        page = QWidget()
        model, mform = _form("Embedding model", grow=True)
        self.model_default = QRadioButton("Built-in (multilingual-e5-small: Chinese, English and 90+ languages, 384 dimensions)")
        self.model_file = QRadioButton("A GGUF file:")
        self.model_path = QLineEdit(s.embedding_model or "")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._choose_model)
        (self.model_file if s.embedding_model else self.model_default).setChecked(True)
        row = QHBoxLayout()
        row.addWidget(self.model_file)
        row.addWidget(self.model_path, 1)
        row.addWidget(browse)
        self.model_in_use = QLabel("In use: reading…")
        self.model_in_use.setWordWrap(True)
        self.model_notice = QLabel()
        self.model_notice.setWordWrap(True)
        self.model_notice.hide()
        mform.addRow(self.model_in_use)
        mform.addRow(self.model_default)
        mform.addRow(row)
        mform.addRow(self.model_notice)
        self.model_default.toggled.connect(self._show_model_notice)
        self.model_path.textChanged.connect(self._show_model_notice)
        if self.backend.is_ready:
            self.refresh_model()
        else:
            self.backend.ready.connect(self.refresh_model)
        recall, rform = _form("Recall and remembering")
        self.half_life = _dspin(0.5, 3650, s.recall_half_life_days, 1.0, " days")
        rform.addRow("Recency half-life", self.half_life)
        self.threshold = _dspin(0, 1, s.write_threshold)
        rform.addRow("Keep a memory when its score reaches", self.threshold)
        self.weights = {k: _dspin(0, 1, s.signal_weights.get(k, 0.0)) for k in SIGNAL_NAMES}
        for key, box in self.weights.items():
            rform.addRow(f"    weight: {SIGNAL_NAMES[key]}", box)
        archive, aform = _form("Forgetting")
        self.archive_days = _spin(1, 3650, s.archive_after_days, " days")
        aform.addRow("Archive when unused for", self.archive_days)
        self.floor = _dspin(0, 1, s.archive_importance_floor)
        aform.addRow("…and importance below", self.floor)
        self.capacity = _spin(0, 10_000_000, s.capacity_per_client)
        self.capacity.setSpecialValueText("no limit")
        aform.addRow("Memories per client", self.capacity)
        privacy, pform = _form("Privacy")
        self.personal_ids = QCheckBox("Also redact personal ID, passport, IBAN and phone numbers")
        self.personal_ids.setToolTip("Off by default: assistants may keep them when asked to remember them. "
                                     "Passwords, keys and tokens are always redacted.")
        self.personal_ids.setChecked(s.redact_personal_ids)
        pform.addRow(self.personal_ids)
        self.purge_any = QCheckBox("Let assistants delete for good any memory they can see, not only their own")
        self.purge_any.setToolTip("Off by default: an assistant can purge (delete for good) only what it wrote, "
                                  "by id. Anything else it can only archive, and you can undo that from the "
                                  "timeline.")
        self.purge_any.setChecked(s.assistants_purge_any)
        pform.addRow(self.purge_any)
        layout = QVBoxLayout(page)
        for group in (model, recall, archive, privacy):
            layout.addWidget(group)
        layout.addWidget(QLabel("Changes apply at once; a new model re-embeds your memories in the background."))
        layout.addStretch(1)
        return page

    # ---- the model in use ------------------------------------------------------------------------
    def refresh_model(self) -> Task | None:
        """Read the model in use on a worker (never on the main thread: it may wait for the file)."""
        if not self.backend.is_ready:
            return None
        if self.model_task is None or self.model_task.is_finished:
            self.model_task = self.backend.call(read_model, name="model status", on_done=self._show_model,
                                                on_error=self._model_unreadable)
        return self.model_task

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.refresh_model()  # the dialog is kept between openings: the model may have changed

    def _show_model(self, status: dict[str, Any]) -> None:
        self.model_status = status
        default = status["default_stem"]
        active = status.get("active")
        if active is None:
            self.model_in_use.setText("In use: no model yet (the first memory sets it)")
        else:
            reach = ("covers Chinese and English" if status["languages"]["covers_chinese"]
                     else "English only: Chinese is poorly understood")
            text = f"In use: {model_label(active, default)}, {reach}"
            if status.get("switching") and status.get("target"):
                text += (f". Switching to {model_label(status['target'], default)}: "
                         f"{status['done']} of {status['total']} memories re-embedded")
            self.model_in_use.setText(text)
        self._show_model_notice()

    def _model_unreadable(self, exc: BaseException) -> None:
        self.model_in_use.setText(f"In use: could not be read ({exc})")

    def selected_model(self) -> str | None:
        """The GGUF path the radio buttons select, or None for the built-in model."""
        path = self.model_path.text().strip()
        return path if self.model_file.isChecked() and path else None

    def switch_needed(self) -> bool:
        """The model in use is not the selected one (known once the worker's read came back)."""
        return self.model_status is not None and not is_selected(self.model_status, self.selected_model())

    def _show_model_notice(self) -> None:
        if not self.switch_needed():
            self.model_notice.hide()
            return
        assert self.model_status is not None
        selected = self.selected_model()
        name = "multilingual-e5-small" if selected is None else Path(selected).stem
        if self.backend.switching:
            text = "Memories are being re-embedded (progress in the timeline's status bar)."
        else:
            text = (f"Saving will re-embed {self.model_status['total']} memories with {name}; "
                    "search keeps working meanwhile.")
        self.model_notice.setText(text)
        self.model_notice.show()

    def _choose_model(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Embedding model", "", "GGUF models (*.gguf)")
        if path:
            self.model_path.setText(path)
            self.model_file.setChecked(True)

    # ---- saving ----------------------------------------------------------------------------------
    def values(self) -> Settings:
        """The settings as the widgets show them (validated: raises InvalidInput)."""
        return replace(
            self.backend.settings,
            http_port=self.port.value(), idle_minutes=self.idle_minutes.value(),
            maintenance_every_hours=self.every_hours.value(),
            embedding_model=self.selected_model(),
            recall_half_life_days=self.half_life.value(), write_threshold=self.threshold.value(),
            signal_weights={k: round(box.value(), 4) for k, box in self.weights.items()},
            archive_after_days=self.archive_days.value(), archive_importance_floor=self.floor.value(),
            capacity_per_client=self.capacity.value(),
            redact_personal_ids=self.personal_ids.isChecked(),
            assistants_purge_any=self.purge_any.isChecked(),
            paused=False,  # pause lives in the memory file, shared with every process
        ).validate()

    def save(self) -> Task | None:
        """Write the file (on a worker), apply what can change now, set pause and start-at-login."""
        try:
            settings = self.values()
        except InvalidInput as exc:
            QMessageBox.warning(self, "Settings", str(exc))
            return None
        # A changed setting switches in apply_settings; an unchanged one may still name another model
        # than the memory file's (a file made with the earlier default), and Save is how to switch.
        switch = (settings.embedding_model == self.backend.settings.embedding_model and self.switch_needed()
                  and not self.backend.switching)
        waiting = self.backend.apply_settings(settings)
        if switch and self.backend.is_ready:
            self.backend.switch_model(settings.embedding_model)
        if self.pause.isChecked() != self.backend.paused and self.backend.is_ready:
            self.backend.set_paused(self.pause.isChecked())
        if self.login.isChecked() != autostart.is_enabled(home=self.autostart_home):
            autostart.set_enabled(self.login.isChecked(), home=self.autostart_home)
        self.saved.emit(settings)
        if waiting:
            self.setToolTip(f"Applies at the next start: {', '.join(waiting)}")
        return self.backend.workers.submit(settings.save, self.paths.settings_file, name="save settings")

    def _save_and_close(self) -> None:
        if self.save() is not None:
            self.accept()
