"""Settings declared once (config.py): the file, validation, the maintenance policy, the gate's defaults
and the settings window all follow the declarations, and the words for when a change takes effect are
what the engine does."""

from __future__ import annotations

import doctest
import json
import math
from dataclasses import asdict, fields, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QGroupBox, QSpinBox
from support import app as support

from hindsight_desktop import settings_schema
from hindsight_desktop.app.main import _settings as app_start_settings
from hindsight_desktop.app.settings_dialog import SettingsDialog
from hindsight_desktop.app.state import AppPaths
from hindsight_desktop.config import OPTIONS, RESTART_OPTIONS, Settings
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.maintenance.policy import MaintenancePolicy
from hindsight_desktop.core.write import gate
from hindsight_desktop.settings_schema import Effect, Option

# A settings file as the previous version saved it with every default (`paused` included, which pause
# in the memory file has replaced): it must load unchanged, and today's defaults must save the same.
PREVIOUS_DEFAULTS = {
    "write_threshold": 0.6,
    "signal_weights": {"density": 0.25, "novelty": 0.2, "relevance": 0.3, "emotion": 0.1, "explicit": 0.15},
    "recall_half_life_days": 14.0,
    "duplicate_similarity": 0.9,
    "working_ttl_hours": 24.0,
    "archive_after_days": 30,
    "archive_importance_floor": 0.3,
    "decay_half_life_days": 60.0,
    "reinforcement_growth": 2.0,
    "reinforcement_spacing_days": 1.0,
    "consolidation_similarity": 0.75,
    "consolidation_min_evidence": 3,
    "maintenance_batch": 500,
    "capacity_per_client": 0,
    "assistants_purge_any": False,
    "idle_minutes": 10,
    "maintenance_every_hours": 24,
    "http_port": 8765,
    "embedding_model": None,
    "paused": False,
    "redact_personal_ids": False,
}
# Options added since that version: a file without them loads with their defaults, and saves them.
ADDED_SINCE = {
    "encrypt_memory_file": True,
    "review_directives": True,
    "inbox_expire_days": 30,
    "appearance": "system",
}
NUMBERS = [o for o in OPTIONS.values() if o.kind in (int, float)]
SHOWN = [o for o in OPTIONS.values() if o.user_facing and o.name != "embedding_model"]  # the model has radios


def _other_value(option: Option) -> Any:
    """A valid value other than the default."""
    if option.kind is bool:
        return not option.default
    if option.choices:
        return next(choice for choice in option.choices if choice != option.default)
    if option.kind is str:
        return "/models/other.gguf"
    if option.kind is dict:
        return {key: (0.5 if value != 0.5 else 0.25) for key, value in option.default.items()}
    high = option.high if option.high is not None else option.default * 3 + 1
    return high if high != option.default else option.low


def _outside(option: Option) -> list[Any]:
    """Numbers just outside the option's range."""
    out = []
    if option.low is not None:
        out.append(option.low if option.low_open else option.low - 1)
    if option.high is not None:
        out.append(option.high + 1)
    return out


# ---- the declarations --------------------------------------------------------------------------------
def test_every_option_has_a_default_within_its_range_and_words():
    assert [f.name for f in fields(Settings)] == list(OPTIONS)  # every field is a declared option
    for option in OPTIONS.values():
        assert option.check(option.fresh_default()) == option.default, option.name
        assert option.label and option.help.endswith("."), option.name
        assert option.kind in (bool, int, float, str, dict)
        if option.user_facing and option.kind in (int, float, dict):
            assert option.low is not None and option.high is not None, f"{option.name} needs a range to show"
            assert option.low <= option.high
        if option.kind is dict:
            assert set(option.keys) == set(option.default) and all(option.keys.values())


def test_defaults_and_file_format_are_unchanged(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(PREVIOUS_DEFAULTS, indent=2), encoding="utf-8")
    assert Settings.load(path) == Settings()  # `paused` from an older file is ignored, not an error
    Settings().save(path)
    expected = {k: v for k, v in PREVIOUS_DEFAULTS.items() if k != "paused"} | ADDED_SINCE
    assert json.loads(path.read_text(encoding="utf-8")) == expected
    assert list(json.loads(path.read_text(encoding="utf-8"))) == list(expected)  # same order of keys
    with pytest.raises(TypeError):
        Settings(paused=True)  # type: ignore[call-arg]  # pause lives in the memory file only


def test_gate_and_policy_take_their_defaults_from_the_declarations():
    assert OPTIONS["signal_weights"].default == gate.DEFAULT_WEIGHTS
    assert OPTIONS["write_threshold"].default == gate.DEFAULT_THRESHOLD
    assert gate.WriteScorer().threshold == OPTIONS["write_threshold"].default
    policy, from_settings = MaintenancePolicy(), MaintenancePolicy.from_settings(Settings())
    assert policy == from_settings
    backed = {f.name: f.metadata["setting"] for f in fields(MaintenancePolicy) if "setting" in f.metadata}
    assert len(backed) == 10
    for name, option in backed.items():
        assert getattr(policy, name) == OPTIONS[option].default
        # the policy refuses what the settings refuse, and names the setting
        for bad in _outside(OPTIONS[option]):
            with pytest.raises(InvalidInput, match=f"^{option} must be"):
                MaintenancePolicy(**{name: bad})
    changed = Settings(**{o: _other_value(OPTIONS[o]) for o in backed.values()}).validate()
    assert all(
        getattr(MaintenancePolicy.from_settings(changed), name) == getattr(changed, option)
        for name, option in backed.items()
    )


def test_schema_examples_run():
    assert doctest.testmod(settings_schema).failed == 0


# ---- validation ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("option", NUMBERS, ids=lambda o: o.name)
def test_out_of_range_numbers_are_refused_with_the_option_and_the_range(option: Option):
    for bad in _outside(option):
        with pytest.raises(InvalidInput) as caught:
            Settings(**{option.name: bad}).validate()
        assert str(caught.value) == f"{option.name} must be {option.allowed()}, got {bad!r}"
    for bad in ("3", True, None, math.nan, [1]):
        with pytest.raises(InvalidInput, match=f"^{option.name} must be a number"):
            Settings(**{option.name: bad}).validate()


def test_other_kinds_are_checked():
    with pytest.raises(InvalidInput, match="assistants_purge_any must be true or false, got 'no'"):
        Settings(assistants_purge_any="no").validate()  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="embedding_model must be text or null, got 3"):
        Settings(embedding_model=3).validate()  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match=r"missing novelty; unknown speed"):
        Settings(signal_weights={"density": 1, "relevance": 1, "emotion": 1, "explicit": 1, "speed": 1}).validate()
    with pytest.raises(InvalidInput, match=r"signal_weights\.emotion must be between 0 and 1, got 2"):
        Settings(signal_weights={**OPTIONS["signal_weights"].default, "emotion": 2}).validate()
    with pytest.raises(InvalidInput, match="signal_weights must not all be 0"):
        Settings(signal_weights=dict.fromkeys(OPTIONS["signal_weights"].keys, 0)).validate()
    with pytest.raises(InvalidInput, match="maintenance_batch must be a whole number between 1 and 100000"):
        Settings(maintenance_batch=2.5).validate()  # type: ignore[arg-type]
    assert Settings(maintenance_batch=50.0).validate().maintenance_batch == 50  # type: ignore[arg-type]
    assert type(Settings(maintenance_batch=50.0).validate().maintenance_batch) is int  # type: ignore[arg-type]


def _valid(option: Option) -> st.SearchStrategy[Any]:
    if option.kind is bool:
        return st.booleans()
    if option.choices:
        return st.sampled_from(list(option.choices))
    if option.kind is str:
        return st.none() | st.text(max_size=40)
    if option.kind is int:
        return st.integers(int(option.low or 0), int(option.high if option.high is not None else 10**6))
    high = option.high if option.high is not None else 1e6
    numbers = st.floats(option.low or 0.0, high, exclude_min=option.low_open, allow_nan=False)
    if option.kind is dict:
        return st.fixed_dictionaries({key: numbers for key in option.keys}).filter(lambda d: any(d.values()))
    return numbers


@settings(max_examples=40, deadline=None)
@given(st.fixed_dictionaries({o.name: _valid(o) for o in OPTIONS.values()}))
def test_any_valid_settings_round_trip_through_the_file(tmp_path_factory, values):
    path = tmp_path_factory.mktemp("settings") / "settings.json"
    saved = Settings(**values)
    saved.save(path)
    assert Settings.load(path) == saved


# ---- a bad file ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (json.dumps({"write_threshold": 1.5}), "write_threshold must be between 0 and 1, got 1.5"),
        (json.dumps({"http_port": 70000, "idle_minutes": 5}), "http_port must be between 1 and 65535, got 70000"),
        (json.dumps({"recall_half_life_days": 0}), "recall_half_life_days must be more than 0 and at most 3650"),
        (json.dumps({"idle_minutes": "ten"}), "idle_minutes must be a number between 1 and 240, got 'ten'"),
        (json.dumps([1, 2]), "must hold a JSON object, not list"),
        ("{not json", "is unreadable"),
    ],
)
def test_a_bad_file_is_refused_and_the_app_starts_with_the_defaults(tmp_path, capsys, content, problem):
    paths = AppPaths(tmp_path / "config", tmp_path / "data")
    paths.config_dir.mkdir()
    paths.settings_file.write_text(content, encoding="utf-8")
    with pytest.raises(InvalidInput) as caught:
        Settings.load(paths.settings_file)
    assert str(paths.settings_file) in str(caught.value) and problem in str(caught.value)
    assert app_start_settings(paths) == Settings()  # what app/main.py starts with
    warning = capsys.readouterr().err
    assert problem in warning and "using the defaults" in warning


def test_unknown_keys_in_the_file_are_ignored(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"idle_minutes": 7, "paused": True, "from_a_later_version": 1}), encoding="utf-8")
    assert Settings.load(path) == Settings(idle_minutes=7)


# ---- the settings window ---------------------------------------------------------------------------------
def test_the_dialog_shows_every_user_facing_option_as_declared(qtbot, shell, tmp_path):
    dialog = SettingsDialog(shell.backend, shell.paths, autostart_home=tmp_path)
    qtbot.addWidget(dialog)
    assert set(dialog.inputs) == {o.name for o in SHOWN}  # and nothing the file alone holds
    for option in SHOWN:
        entry = dialog.inputs[option.name]
        boxes = list(entry.boxes.values())
        assert len(boxes) == (len(option.keys) if option.kind is dict else 1)
        for box in boxes:
            assert box.toolTip() == f"{option.help} Takes effect {option.effect.value}.", option.name
            group = box.parentWidget()
            assert isinstance(group, QGroupBox) and group.title() == option.section, option.name
            if option.kind is bool:
                assert isinstance(box, QCheckBox) and box.text() == option.label
                continue
            if option.choices:
                assert isinstance(box, QComboBox)
                assert {box.itemData(i): box.itemText(i) for i in range(box.count())} == option.choices
                continue
            assert isinstance(box, QSpinBox if option.kind is int else QDoubleSpinBox), option.name
            low = option.low + (10**-option.decimals if option.low_open else 0)
            assert (box.minimum(), box.maximum()) == pytest.approx((low, option.high)), option.name
        assert entry.value() == getattr(shell.backend.settings, option.name), option.name
    for radio in (dialog.model_default, dialog.model_file, dialog.model_path):
        assert radio.toolTip() == OPTIONS["embedding_model"].tooltip
    assert dialog.values() == shell.backend.settings  # opening and saving changes nothing


def test_the_dialog_round_trips_every_option_through_the_file(qtbot, shell, tmp_path):
    dialog = SettingsDialog(shell.backend, shell.paths, autostart_home=tmp_path)
    qtbot.addWidget(dialog)
    wanted = {o.name: _other_value(o) for o in SHOWN}
    wanted["http_port"] = shell.backend.settings.http_port  # the server is not started in tests
    for name, value in wanted.items():
        entry = dialog.inputs[name]
        for key, box in entry.boxes.items():
            part = value[key] if key else value
            if isinstance(box, QCheckBox):
                box.setChecked(part)
            elif isinstance(box, QComboBox):
                box.setCurrentIndex(box.findData(part))
            else:
                box.setValue(part)
    support.wait(qtbot, dialog.save())
    loaded = Settings.load(shell.paths.settings_file)
    assert {name: getattr(loaded, name) for name in wanted} == wanted
    again = SettingsDialog(shell.backend, shell.paths, autostart_home=tmp_path)
    qtbot.addWidget(again)
    assert {name: again.inputs[name].value() for name in wanted} == wanted


# ---- when a change takes effect ------------------------------------------------------------------------------
def test_the_window_says_changes_apply_at_once_and_the_backend_agrees(qtbot, shell, tmp_path):
    assert tuple(o.name for o in OPTIONS.values() if o.effect is Effect.NEXT_START) == RESTART_OPTIONS
    dialog = SettingsDialog(shell.backend, shell.paths, autostart_home=tmp_path)
    qtbot.addWidget(dialog)
    later = [o.label for o in OPTIONS.values() if o.user_facing and o.effect is Effect.NEXT_START]
    assert dialog.effect_label.text().startswith("Changes apply at once" + (", except" if later else " ("))
    changed = replace(shell.backend.settings, **{o.name: _other_value(o) for o in SHOWN if o.name != "http_port"})
    waiting = shell.backend.apply_settings(changed)
    assert waiting == [o.name for o in SHOWN if o.effect is Effect.NEXT_START and o.name != "http_port"]
    assert all(
        getattr(shell.backend.engine.settings, o.name) == getattr(changed, o.name)
        for o in SHOWN
        if o.effect is Effect.AT_ONCE
    )


def test_a_new_threshold_and_new_weights_score_the_next_write(engine):
    """What the window calls "at once" for the write gate: the very next write is scored with them."""
    assert OPTIONS["write_threshold"].effect is Effect.AT_ONCE and OPTIONS["signal_weights"].effect is Effect.AT_ONCE
    engine.apply_settings(replace(engine.settings, write_threshold=1.0))
    refused = engine.write("We went to the lake on Saturday and had a picnic.")
    assert not refused.stored and refused.score < 1.0 and "< 1.00" in refused.reason
    engine.apply_settings(replace(engine.settings, write_threshold=0.0))
    kept = engine.write("The bakery on Elm Street closes at six on weekdays.")
    assert kept.stored
    only_novelty = dict.fromkeys(OPTIONS["signal_weights"].keys, 0.0) | {"novelty": 1.0}
    engine.apply_settings(replace(engine.settings, signal_weights=only_novelty, write_threshold=0.6))
    scored = engine.write("My cousin Ana plays the cello in a quartet.")
    assert scored.score == pytest.approx(scored.signals["novelty"], abs=1e-4)


def test_every_at_once_option_reaches_the_engine_and_its_policy(engine):
    changed = replace(
        engine.settings,
        **{
            o.name: _other_value(o)
            for o in OPTIONS.values()
            if o.effect is Effect.AT_ONCE and o.name != "embedding_model"
        },
    )
    engine.apply_settings(changed)
    for option in OPTIONS.values():
        if option.name != "embedding_model":  # switched by re-embedding (use_model), not by apply_settings
            assert getattr(engine.parts.settings, option.name) == getattr(changed, option.name), option.name
    assert MaintenancePolicy.from_settings(engine.settings) == MaintenancePolicy.from_settings(changed)
    total = sum(changed.signal_weights.values())
    assert engine.parts.scorer.weights == pytest.approx({k: v / total for k, v in changed.signal_weights.items()})
    assert asdict(engine.settings) | {"embedding_model": None} == asdict(changed) | {"embedding_model": None}
