"""Settings: where data lives, the model, recall and write-gate tuning, archive policy, maintenance,
the server port, clients, pause and start at login. Saved to the config dir as JSON."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
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
        self.model_default = QRadioButton("Built-in (all-MiniLM-L6-v2, 384 dimensions)")
        self.model_file = QRadioButton("A GGUF file:")
        self.model_path = QLineEdit(s.embedding_model or "")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._choose_model)
        (self.model_file if s.embedding_model else self.model_default).setChecked(True)
        row = QHBoxLayout()
        row.addWidget(self.model_file)
        row.addWidget(self.model_path, 1)
        row.addWidget(browse)
        mform.addRow(self.model_default)
        mform.addRow(row)
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
        layout = QVBoxLayout(page)
        for group in (model, recall, archive):
            layout.addWidget(group)
        layout.addWidget(QLabel("Model, threshold and weights apply at the next start; the rest at once."))
        layout.addStretch(1)
        return page

    def _choose_model(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Embedding model", "", "GGUF models (*.gguf)")
        if path:
            self.model_path.setText(path)
            self.model_file.setChecked(True)

    # ---- saving ----------------------------------------------------------------------------------
    def values(self) -> Settings:
        """The settings as the widgets show them (validated: raises InvalidInput)."""
        path = self.model_path.text().strip()
        return replace(
            self.backend.settings,
            http_port=self.port.value(), idle_minutes=self.idle_minutes.value(),
            maintenance_every_hours=self.every_hours.value(),
            embedding_model=path if self.model_file.isChecked() and path else None,
            recall_half_life_days=self.half_life.value(), write_threshold=self.threshold.value(),
            signal_weights={k: round(box.value(), 4) for k, box in self.weights.items()},
            archive_after_days=self.archive_days.value(), archive_importance_floor=self.floor.value(),
            capacity_per_client=self.capacity.value(),
            paused=False,  # pause lives in the memory file, shared with every process
        ).validate()

    def save(self) -> Task | None:
        """Write the file (on a worker), apply what can change now, set pause and start-at-login."""
        try:
            settings = self.values()
        except InvalidInput as exc:
            QMessageBox.warning(self, "Settings", str(exc))
            return None
        waiting = self.backend.apply_settings(settings)
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
