"""Settings: where data lives, the model, recall and write-gate tuning, archive policy, maintenance,
the server port, clients, pause and start at login. Saved to the config dir as JSON.

The widgets for the options are made from their declarations in config.py (`OPTIONS`): each option
with a section gets its widget there, with the declared range, unit, description and the words for
when a change takes effect; nothing about an option is spelled out here a second time."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
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
from hindsight_desktop.app.in_app_words import in_app
from hindsight_desktop.app.privacy_tab import PrivacyTab
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.app.sync_tab import SyncTab
from hindsight_desktop.app.workers import Task
from hindsight_desktop.config import APPEARANCE, FORGETTING, MODEL, OPTIONS, PRIVACY, RECALL, SERVER, Settings
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.settings_schema import Effect, Option

if TYPE_CHECKING:  # the engine is imported on a worker (or when a command runs), never at start-up
    from hindsight_desktop.core.engine import MemoryEngine


def _number_box(option: Option, value: float) -> QSpinBox | QDoubleSpinBox:
    """A spin box over exactly the option's allowed values."""
    if option.low is None or option.high is None:
        raise TypeError(f"{option.name} is shown in the settings window, so it needs both bounds")
    box: QSpinBox | QDoubleSpinBox
    if option.kind is int:
        box = QSpinBox()
        box.setRange(int(option.low), int(option.high))
    else:
        box = QDoubleSpinBox()
        box.setDecimals(option.decimals)
        # "more than 0": the smallest number the box can show above it
        box.setRange(option.low + 10**-option.decimals if option.low_open else option.low, option.high)
    box.setSingleStep(option.step)
    box.setSuffix(option.unit)
    if option.zero_means:
        box.setSpecialValueText(option.zero_means)
    box.setValue(value)  # type: ignore[arg-type]
    return box


class OptionInput:
    """The widgets for one option (a dict option gets one per key), each with the option's tooltip."""

    def __init__(self, option: Option, value: Any) -> None:
        self.option = option
        self.boxes: dict[str, QWidget] = {}
        self.rows: list[tuple[str | None, QWidget]] = []  # (label, widget) for a form; None: the whole row
        if option.kind is dict:
            for key, label in option.keys.items():
                self.boxes[key] = _number_box(option, value[key])
                self.rows.append((f"    {option.label}: {label}", self.boxes[key]))
        elif option.kind is bool:
            check = QCheckBox(option.label)
            check.setChecked(value)
            self.boxes[""], self.rows = check, [(None, check)]
        elif option.choices:
            combo = QComboBox()
            for choice, label in option.choices.items():
                combo.addItem(label, choice)
            combo.setCurrentIndex(combo.findData(value))
            self.boxes[""], self.rows = combo, [(option.label, combo)]
        elif option.kind is str:
            line = QLineEdit(value or "")
            self.boxes[""], self.rows = line, [(option.label, line)]
        else:
            self.boxes[""] = _number_box(option, value)
            self.rows = [(option.label, self.boxes[""])]
        for box in self.boxes.values():
            box.setToolTip(option.tooltip)

    @property
    def widget(self) -> QWidget:
        """The one widget of an option that is not a dict."""
        return self.boxes[""]

    def value(self) -> Any:
        if self.option.kind is dict:
            return {key: self._read(box) for key, box in self.boxes.items()}
        return self._read(self.widget)

    def _read(self, box: QWidget) -> Any:
        if isinstance(box, QCheckBox):
            return box.isChecked()
        if isinstance(box, QLineEdit):
            return box.text().strip() or (None if self.option.optional else "")
        if isinstance(box, QComboBox):
            return box.currentData()
        if isinstance(box, QDoubleSpinBox):
            return round(box.value(), self.option.decimals)
        assert isinstance(box, QSpinBox)
        return box.value()


def effect_note(options: list[Option]) -> str:
    """The window's line on when changes apply, from what the options declare."""
    later = [option.label for option in options if option.effect is Effect.NEXT_START]
    text = f"Changes apply at once, except {', '.join(later)}: at the next start" if later else "Changes apply at once"
    return (
        f"{text} (assistants connected over stdio read them when they next start); "
        "a new model re-embeds your memories in the background."
    )


def read_model(engine: MemoryEngine) -> dict[str, Any]:
    """The engine's model status plus what the dialog compares against (runs on a worker: it syncs with
    the memory file, and the default model's module pulls in numpy)."""
    from hindsight_desktop.core.engine import DEFAULT_MODEL_STEM

    status = engine.model_status()
    status["default_stem"] = DEFAULT_MODEL_STEM
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
    form.setFieldGrowthPolicy(
        QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow
        if grow
        else QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint
    )
    return group, form


class SettingsDialog(QDialog):
    saved = Signal(object)  # the new Settings

    def __init__(
        self, backend: Backend, paths: AppPaths, autostart_home: Path | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.backend, self.paths, self.autostart_home = backend, paths, autostart_home
        self.diagnose_dialog: DiagnoseDialog | None = None
        # Runs maintenance now (the shell's scheduler); Diagnose's "Run maintenance now" presses it.
        self.maintain: Callable[[], Task | None] | None = None
        self.model_status: dict[str, Any] | None = None  # from the last read on a worker
        self.model_task: Task | None = None
        self.setWindowTitle("Hindsight Desktop — Settings")
        self.setMinimumWidth(620)
        s = backend.settings
        # option name -> its widgets: every option with a section but the model (its radio buttons below)
        self.inputs: dict[str, OptionInput] = {}
        self.tabs = QTabWidget()
        self.tabs.addTab(self._general(s), "General")
        self.tabs.addTab(self._memory(s), "Memory")
        self.clients = ClientsTab(backend)
        self.tabs.addTab(self.clients, "Clients")
        self.privacy = PrivacyTab(backend, paths)
        self.tabs.addTab(self.privacy, "Privacy")
        self.sync = SyncTab(backend)  # the shell hands it the app's sync scheduler
        self.tabs.addTab(self.sync, "Sync")
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
        server = self._section(SERVER, s)
        trouble, tform = _form("Troubleshooting")
        self.diagnose_button = QPushButton("Diagnose…")
        self.diagnose_button.setToolTip("Check the memory, the model, the server and each assistant's set-up")
        self.diagnose_button.clicked.connect(self.open_diagnose)
        tform.addRow(QLabel("When an assistant cannot connect or does not remember:"), self.diagnose_button)
        layout = QVBoxLayout(page)
        layout.addWidget(data)
        layout.addWidget(server)
        layout.addWidget(self._section(APPEARANCE, s))
        layout.addWidget(trouble)
        layout.addStretch(1)
        return page

    def open_diagnose(self) -> DiagnoseDialog:
        """Show the Diagnose window (one per settings window) and run the checks."""
        if self.diagnose_dialog is None:
            self.diagnose_dialog = DiagnoseDialog(self.backend, self.paths, parent=self, settings=self)
        self.diagnose_dialog.show()
        self.diagnose_dialog.raise_()
        if self.diagnose_dialog.task is None or self.diagnose_dialog.task.is_finished:
            self.diagnose_dialog.start()
        return self.diagnose_dialog

    def _memory(self, s: Settings) -> QWidget:
        page = QWidget()
        model, mform = _form(MODEL, grow=True)
        self.model_default = QRadioButton(
            "Built-in (multilingual-e5-small: Chinese, English and 90+ languages, 384 dimensions)"
        )
        self.model_file = QRadioButton("A GGUF file:")
        self.model_path = QLineEdit(s.embedding_model or "")
        for widget in (self.model_default, self.model_file, self.model_path):
            widget.setToolTip(OPTIONS["embedding_model"].tooltip)
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
        layout = QVBoxLayout(page)
        layout.addWidget(model)
        for section in (RECALL, FORGETTING, PRIVACY):
            layout.addWidget(self._section(section, s))
        self.effect_label = QLabel(effect_note([o for o in OPTIONS.values() if o.user_facing]))
        self.effect_label.setWordWrap(True)
        layout.addWidget(self.effect_label)
        layout.addStretch(1)
        return page

    def _section(self, title: str, s: Settings) -> QGroupBox:
        """A group with a widget for each option declared in section `title`, in declaration order."""
        group, form = _form(title)
        for option in OPTIONS.values():
            if option.section == title:
                self.inputs[option.name] = entry = OptionInput(option, getattr(s, option.name))
                for label, widget in entry.rows:
                    if label is None:
                        form.addRow(widget)
                    else:
                        form.addRow(label, widget)
        return group

    # ---- the model in use ------------------------------------------------------------------------
    def refresh_model(self) -> Task | None:
        """Read the model in use on a worker (never on the main thread: it may wait for the file)."""
        if not self.backend.is_ready:
            return None
        if self.model_task is None or self.model_task.is_finished:
            self.model_task = self.backend.call(
                read_model, name="model status", on_done=self._show_model, on_error=self._model_unreadable
            )
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
            reach = (
                "covers Chinese and English"
                if status["languages"]["covers_chinese"]
                else "English only: Chinese is poorly understood"
            )
            text = f"In use: {model_label(active, default)}, {reach}"
            if status.get("switching") and status.get("target"):
                text += (
                    f". Switching to {model_label(status['target'], default)}: "
                    f"{status['done']} of {status['total']} memories re-embedded"
                )
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
            text = (
                f"Saving will re-embed {self.model_status['total']} memories with {name}; "
                "search keeps working meanwhile."
            )
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
        shown = {name: entry.value() for name, entry in self.inputs.items()}
        return replace(self.backend.settings, embedding_model=self.selected_model(), **shown).validate()

    def save(self) -> Task | None:
        """Write the file (on a worker), apply what can change now, set pause and start-at-login."""
        try:
            settings = self.values()
        except InvalidInput as exc:
            QMessageBox.warning(self, "Settings", in_app(str(exc)))
            return None
        # A changed setting switches in apply_settings; an unchanged one may still name another model
        # than the memory file's (a file made with the earlier default), and Save is how to switch.
        switch = (
            settings.embedding_model == self.backend.settings.embedding_model
            and self.switch_needed()
            and not self.backend.switching
        )
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
