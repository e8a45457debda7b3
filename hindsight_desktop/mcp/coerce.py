"""The argument quirks real MCP clients send, accepted before validation.

Some clients send every argument as a string ("5", "true", '["a","b"]', "" for "not given"). These
validators run before pydantic's own checks, so the published input schema keeps the real types
(integer, boolean, array) while the odd encodings still work. Anything they cannot read is passed on
unchanged, and validation then names the field and the problem.

>>> integer("5"), number(" 0.8 "), boolean("yes"), text_list('["a", "b"]'), text_list("a, b")
(5, 0.8, True, ['a', 'b'], ['a', 'b'])
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic_core import PydanticUseDefault

from hindsight_desktop.core.engine import MAX_LIST_ITEMS

_NULLS = ("", "null", "none", "undefined")
_TRUE = ("true", "yes", "y", "on", "1")
_FALSE = ("false", "no", "n", "off", "0")


def _blank(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower() in _NULLS


def _default_if_blank(value: Any) -> Any:
    # "" or "null" for an optional argument means "not given": use the declared default.
    if value is None or _blank(value):
        raise PydanticUseDefault()
    return value


def integer(value: Any) -> Any:
    value = _default_if_blank(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            number_ = float(text)
        except ValueError:
            return value
        return int(number_) if number_.is_integer() else value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def number(value: Any) -> Any:
    """A float from a number or its text; "nan", "inf" and overflowing numbers are refused (pydantic
    names the argument), since no memory field means anything with them."""
    value = _default_if_blank(value)
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return value
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"must be a finite number, not {value}")
    return value


def boolean(value: Any) -> Any:
    value = _default_if_blank(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
        return bool(value)
    return value


def optional_text(value: Any) -> Any:
    return _default_if_blank(value)


def text_list(value: Any) -> Any:
    """A list of strings from a list, a JSON array in a string, or comma-separated text; at most
    MAX_LIST_ITEMS of them."""
    value = _default_if_blank(value)
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except (ValueError, RecursionError):  # deeply nested arrays overflow the parser's stack
                return value
        else:
            value = [part.strip() for part in text.split(",") if part.strip()]
    if isinstance(value, list) and len(value) > MAX_LIST_ITEMS:
        raise ValueError(f"has {len(value)} items; the limit is {MAX_LIST_ITEMS} per call")
    return value


def text_or_list(value: Any) -> Any:
    """One string, or several: a bare string stays a string unless it is a JSON array or has commas."""
    value = _default_if_blank(value)
    if isinstance(value, list):
        return text_list(value)  # only the cap applies
    if isinstance(value, str) and (value.strip().startswith("[") or "," in value):
        items = text_list(value)
        return items[0] if isinstance(items, list) and len(items) == 1 else items
    return value


def json_object(value: Any) -> Any:
    value = _default_if_blank(value)
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def lower_word(value: Any) -> Any:
    value = _default_if_blank(value)
    return value.strip().lower() if isinstance(value, str) else value


# Annotated types for tool signatures: the schema shows the real type, the validator eases the input.
Int = Annotated[int, BeforeValidator(integer)]
Float = Annotated[float, BeforeValidator(number)]
Bool = Annotated[bool, BeforeValidator(boolean)]
Text = Annotated[str, BeforeValidator(optional_text)]
TextList = Annotated[list[str], BeforeValidator(text_list)]
TextOrList = Annotated[str | list[str], BeforeValidator(text_or_list)]
JsonObject = Annotated[dict[str, Any], BeforeValidator(json_object)]
