"""Keeping credential values out of everything mixseek stores, logs or prints: each boundary passes text
through a `Redactor`, which replaces the value of every credential variable (a name with a `KEY`, `TOKEN`,
`SECRET`, `PASSWORD`... part) in each of its `encoded_forms` with `[REDACTED:<VARIABLE>]`. Imports nothing of
mixseek, so every layer may use it."""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import logging
import os
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

MIN_SECRET_LENGTH = 8
SECRET_NAME_PARTS = frozenset({"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD"})

# a run no encoding changes: a text without it holds no form (one substring test, not one per form)
_KEPT_RUN = re.compile(r"[A-Za-z0-9]+")
_MIN_ANCHOR = 4
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_PERCENT_ESCAPE = re.compile(r"%[0-9A-F]{2}")
_SCALARS = (int, float, bytes, datetime.date, datetime.time, datetime.timedelta)


def is_secret_name(name: str) -> bool:
    """Whether an environment variable of this name holds a credential."""
    return any(part in SECRET_NAME_PARTS for part in name.upper().split("_"))


def secret_values(environ: Mapping[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """(value, variable) of each credential set in `environ` (default: now's), longest value first."""
    if environ is None:
        return _environment_secrets(_environment_now())
    return _secrets_in(environ)


def _environment_now() -> tuple[tuple[Any, Any], ...]:
    """The environment undecoded: a ~1 µs snapshot (decoding it takes 30; a Redactor is made often)."""
    held = getattr(os.environ, "_data", None)
    return tuple(held.items()) if isinstance(held, dict) else tuple(os.environ.items())


@functools.lru_cache(maxsize=8)
def _environment_secrets(snapshot: tuple[tuple[Any, Any], ...]) -> tuple[tuple[str, str], ...]:
    # decoded as os.environ decodes what it holds
    return _secrets_in({os.fsdecode(name): os.fsdecode(value) for name, value in snapshot})


def _secrets_in(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}
    for name in sorted(env):
        value = env[name].strip()
        if len(value) >= MIN_SECRET_LENGTH and is_secret_name(name):
            found.setdefault(value, name)
    return tuple(sorted(found.items(), key=lambda item: (-len(item[0]), item[0])))


def _u_escaped(text: str, hex_digits: str) -> str:
    """`text` with each non-ASCII character as `\\uXXXX` (UTF-16 surrogates above U+FFFF)."""

    def escape(match: re.Match[str]) -> str:
        data = match.group(0).encode("utf-16-be", "surrogatepass")
        units = (int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2))
        return "".join(f"\\u{unit:04{hex_digits}}" for unit in units)

    return _NON_ASCII.sub(escape, text)


def _json_escaped(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _repr_escaped(text: str) -> str:
    """As between Python's single quotes (a `'` escaped), whatever quotes repr would choose."""
    return repr(text + '"')[1:-2]


def _python_repr(text: str) -> str:
    """As Python's repr writes it (between double quotes, `'` unescaped, when `text` has `'` only)."""
    return repr(text)[1:-1]


def _ascii_escaped(text: str) -> str:
    return ascii(text + '"')[1:-2]


def _percent_forms(text: str) -> tuple[str, ...]:
    # a value taken from undecodable environment bytes holds surrogates: they are its original bytes
    encoded = (
        quote(text, safe="", errors="surrogateescape"),
        quote(text, errors="surrogateescape"),
        quote_plus(text, errors="surrogateescape"),
    )
    return encoded + tuple(_PERCENT_ESCAPE.sub(lambda m: m.group(0).lower(), form) for form in encoded)


# How a text gets embedded in a larger one: escaped as a JSON string or as a Python string.
_CONTAINERS: tuple[Callable[[str], str], ...] = (
    _json_escaped,
    lambda text: _u_escaped(_json_escaped(text), "x"),
    _repr_escaped,
    _python_repr,
    _ascii_escaped,
)


def encoded_forms(value: str) -> frozenset[str]:
    """`value` as it may appear in text: raw, JSON-, `\\u`-, repr- or percent-escaped, and each of
    these escaped once more as a JSON or Python string (a document embedded in another)."""
    json_form = _json_escaped(value)
    first = {
        value,
        json_form,
        _u_escaped(json_form, "x"),
        _u_escaped(json_form, "X"),
        _u_escaped(value, "x"),
        _u_escaped(value, "X"),
        _repr_escaped(value),
        _python_repr(value),
        _ascii_escaped(value),
        ascii(value)[1:-1],
        value.encode("unicode_escape").decode("ascii"),
        *_percent_forms(value),
    }
    return frozenset(first | {contain(form) for form in first for contain in _CONTAINERS})


@dataclasses.dataclass(frozen=True)
class _Search:
    checks: tuple[str, ...]  # a text must contain one of these to hold any form of any secret
    pattern: re.Pattern[str]
    names: dict[str, str]  # each form's variable


@functools.lru_cache(maxsize=16)
def _search(secrets: tuple[tuple[str, str], ...]) -> _Search:
    names: dict[str, str] = {}
    checks: list[str] = []
    for value, name in secrets:
        forms = encoded_forms(value)
        for form in forms:
            names.setdefault(form, name)
        anchor = max(_KEPT_RUN.findall(value), key=len, default="")
        checks += [anchor] if len(anchor) >= _MIN_ANCHOR else sorted(forms)
    ordered = sorted(names, key=lambda form: (-len(form), form))
    pattern = re.compile("|".join(re.escape(form) for form in ordered))
    return _Search(tuple(dict.fromkeys(checks)), pattern, names)


class Redactor:
    """Replaces the credentials known when it was made; cheap to make, cheaper when none is set."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._secrets = secret_values(environ)
        self._search = _search(self._secrets) if self._secrets else None

    @property
    def active(self) -> bool:
        return self._search is not None

    def text(self, text: str) -> str:
        """`text` with every form of every known credential replaced by `[REDACTED:<VARIABLE>]`."""
        search = self._search
        if search is None or not any(check in text for check in search.checks):
            return text
        names = search.names
        return search.pattern.sub(lambda match: f"[REDACTED:{names[match.group(0)]}]", text)

    def value(self, data: Any) -> Any:
        """`data` with `text` applied to each string in it, containers copied only where one changed."""
        if self._search is None:
            return data
        return self._walk(data)

    def _walk(self, data: Any) -> Any:
        if isinstance(data, str):
            return self.text(data)
        if data is None or isinstance(data, _SCALARS):
            return data
        if isinstance(data, dict):
            items = [(self._walk(key), self._walk(item)) for key, item in data.items()]
            if all(
                new[0] is key and new[1] is item for new, (key, item) in zip(items, data.items(), strict=True)
            ):
                return data
            return dict(items)
        if isinstance(data, list | tuple):
            walked = [self._walk(item) for item in data]
            if all(new is old for new, old in zip(walked, data, strict=True)):
                return data
            return walked if isinstance(data, list) else tuple(walked)
        if dataclasses.is_dataclass(data) and not isinstance(data, type):
            changes = self._changes(data, [f.name for f in dataclasses.fields(data) if f.init])
            return dataclasses.replace(data, **changes) if changes else data
        fields = getattr(type(data), "__pydantic_fields__", None)
        if isinstance(fields, dict) and hasattr(data, "model_copy"):
            changes = self._changes(data, list(fields))
            return data.model_copy(update=changes) if changes else data
        return data

    def _changes(self, data: Any, names: list[str]) -> dict[str, Any]:
        changes = {}
        for name in names:
            old = getattr(data, name, None)
            new = self._walk(old)
            if new is not old:
                changes[name] = new
        return changes


def redact(text: str) -> str:
    """`text` without the values of the credentials set in the environment right now."""
    return Redactor().text(text)


class RedactingFormatter(logging.Formatter):
    """Formats a record with `inner`, then redacts the line (message, arguments and traceback)."""

    def __init__(self, inner: logging.Formatter) -> None:
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        return redact(self.inner.format(record))
