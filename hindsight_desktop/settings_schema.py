"""What a setting is: its type, default, allowed values, the words the settings window shows for it
and when a change takes effect.

The options themselves are declared once, as the fields of `config.Settings`, each made with
`setting(...)`: the field gives the name and the type, `setting` the rest. Everything else reads
them from there through `config.OPTIONS`: the settings file and its validation, the maintenance
policy's and the write gate's defaults, and the settings window's widgets.

    >>> from hindsight_desktop.config import OPTIONS
    >>> threshold = OPTIONS["write_threshold"]
    >>> (threshold.kind.__name__, threshold.default, threshold.allowed(), threshold.effect.value)
    ('float', 0.6, 'between 0 and 1', 'at once')
    >>> threshold.check(1.5)
    Traceback (most recent call last):
    ...
    hindsight_desktop.core.errors.InvalidInput: write_threshold must be between 0 and 1, got 1.5
"""

from __future__ import annotations

import copy
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from hindsight_desktop.core.errors import InvalidInput

_KEY = "hindsight_option"  # where setting() leaves its part of the declaration in the field's metadata
_KINDS = (bool, int, float, str, dict)


class Effect(StrEnum):
    """When a saved change is used. The words complete "Takes effect …"."""

    AT_ONCE = "at once"
    NEXT_START = "at the next start"


@dataclass(frozen=True)
class Option:
    """One option: name and kind come from its field in `Settings`, the rest from `setting(...)`."""

    name: str
    kind: type  # bool, int, float, str, or dict (fixed keys, each mapped to a number)
    default: Any
    label: str  # the settings window's words for it (a check box's text for a bool)
    help: str  # the longer explanation, shown as the widget's tooltip
    effect: Effect = Effect.AT_ONCE
    section: str | None = None  # the settings window's group that shows it; None: only in the file
    optional: bool = False  # null is allowed too
    low: float | None = None
    high: float | None = None
    low_open: bool = False  # the value must be above `low`, not equal to it
    keys: Mapping[str, str] = field(default_factory=dict)  # a dict option's keys and their labels
    some_positive: bool = False  # a dict option: not every value may be 0
    unit: str = ""  # the spin box's suffix, such as " days"
    decimals: int = 2
    step: float = 1.0
    zero_means: str | None = None  # shown instead of 0 (0 means "no limit" and the like)
    choices: Mapping[str, str] = field(default_factory=dict)  # a text option's only values and their labels

    @property
    def user_facing(self) -> bool:
        return self.section is not None

    @property
    def takes_effect(self) -> str:
        return f"Takes effect {self.effect.value}."

    @property
    def tooltip(self) -> str:
        return f"{self.help} {self.takes_effect}"

    def fresh_default(self) -> Any:
        """The default, copied so that no two Settings share one dict."""
        return copy.deepcopy(self.default)

    def allowed(self) -> str:
        """The allowed numbers in words ("between 0 and 1", "more than 0", "at least 2")."""
        low, high = _fmt(self.low), _fmt(self.high)
        if self.low is not None and self.high is not None:
            return f"more than {low} and at most {high}" if self.low_open else f"between {low} and {high}"
        if self.low is not None:
            return f"more than {low}" if self.low_open else f"at least {low}"
        return f"at most {high}" if self.high is not None else "any number"

    def check(self, value: Any) -> Any:
        """The value, checked (a whole float such as 30.0 becomes the int 30 for an int option).
        Raises InvalidInput naming the option and the problem."""
        if value is None and self.optional:
            return None
        if self.kind is bool:
            if not isinstance(value, bool):  # the text "no" must not read as yes
                raise InvalidInput(f"{self.name} must be true or false, got {value!r}")
            return value
        if self.kind is str:
            if not isinstance(value, str):
                raise InvalidInput(f"{self.name} must be text{' or null' if self.optional else ''}, got {value!r}")
            if self.choices and value not in self.choices:
                raise InvalidInput(f"{self.name} must be one of {', '.join(self.choices)}, got {value!r}")
            return value
        if self.kind is dict:
            return self._check_dict(value)
        return self._check_number(self.name, value)

    def _check_number(self, name: str, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise InvalidInput(f"{name} must be a number {self.allowed()}, got {value!r}")
        if self.kind is int and not isinstance(value, int):
            if not value.is_integer():
                raise InvalidInput(f"{name} must be a whole number {self.allowed()}, got {value!r}")
            value = int(value)
        too_low = self.low is not None and (value <= self.low if self.low_open else value < self.low)
        if too_low or (self.high is not None and value > self.high):
            raise InvalidInput(f"{name} must be {self.allowed()}, got {value!r}")
        return value

    def _check_dict(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise InvalidInput(f"{self.name} must map {', '.join(self.keys)} to numbers, got {value!r}")
        missing, unknown = sorted(set(self.keys) - set(value)), sorted(set(value) - set(self.keys))
        if missing or unknown:
            problem = "; ".join(
                part
                for part in (
                    missing and f"missing {', '.join(missing)}",
                    unknown and f"unknown {', '.join(map(str, unknown))}",
                )
                if part
            )
            raise InvalidInput(f"{self.name} must have exactly the keys {', '.join(self.keys)} ({problem})")
        checked = {key: self._check_number(f"{self.name}.{key}", value[key]) for key in self.keys}
        if self.some_positive and not any(number > 0 for number in checked.values()):
            raise InvalidInput(f"{self.name} must not all be 0")
        return {key: checked[key] for key in value}  # the file's order, so a re-save changes nothing


def setting(
    default: Any,
    *,
    label: str,
    help: str,
    effect: Effect = Effect.AT_ONCE,
    section: str | None = None,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    keys: Mapping[str, str] | None = None,
    some_positive: bool = False,
    unit: str = "",
    decimals: int = 2,
    step: float = 1.0,
    zero_means: str | None = None,
    choices: Mapping[str, str] | None = None,
) -> Any:
    """A dataclass field that declares one option (see `Option` for the arguments)."""
    declared = {
        "default": default,
        "label": label,
        "help": help,
        "effect": effect,
        "section": section,
        "low": low,
        "high": high,
        "low_open": low_open,
        "keys": MappingProxyType(dict(keys or {})),
        "some_positive": some_positive,
        "unit": unit,
        "decimals": decimals,
        "step": step,
        "zero_means": zero_means,
        "choices": MappingProxyType(dict(choices or {})),
    }
    metadata = {_KEY: MappingProxyType(declared)}
    if isinstance(default, dict | list):
        return field(default_factory=lambda: copy.deepcopy(default), metadata=metadata)
    return field(default=default, metadata=metadata)


def options(cls: type) -> Mapping[str, Option]:
    """The options a dataclass declares with `setting(...)`, by name, in declaration order."""
    hints = typing.get_type_hints(cls)
    found: dict[str, Option] = {}
    for item in fields(cls):
        if _KEY not in item.metadata:
            raise TypeError(f"{cls.__name__}.{item.name} is not declared with setting()")
        kind, optional = _kind(hints[item.name], f"{cls.__name__}.{item.name}")
        found[item.name] = Option(name=item.name, kind=kind, optional=optional, **item.metadata[_KEY])
        found[item.name].check(found[item.name].default)  # a default outside its own range is a bug
    return MappingProxyType(found)


def _kind(hint: Any, where: str) -> tuple[type, bool]:
    """(kind, optional) of a field's type: float, `str | None`, `dict[str, float]` and the like."""
    args = typing.get_args(hint)
    if isinstance(hint, types.UnionType) and type(None) in args:
        rest = [arg for arg in args if arg is not type(None)]
        if len(rest) == 1:
            return _kind(rest[0], where)[0], True
    origin = typing.get_origin(hint) or hint
    if origin in _KINDS:
        return origin, False
    raise TypeError(f"{where}: a setting must be bool, int, float, str or dict, not {hint!r}")


def _fmt(number: float | None) -> str:
    if number is None:
        return ""
    return str(int(number)) if float(number).is_integer() else str(number)
