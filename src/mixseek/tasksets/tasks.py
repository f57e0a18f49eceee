"""A bench's task set: TASKS.jsonl, one JSON object a line (`prompt`, optional `id`, `reference`, `tags`),
read whole and bounded before anything runs, so a bad file is one error naming file and line."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from mixseek.errors import InputError

_KEYS = ("id", "prompt", "reference", "tags")

MAX_LINE_BYTES = 16 * 1024 * 1024  # a prompt of megabytes fits; `/dev/zero` is refused
MAX_NUMBER_DIGITS = 100  # Python refuses to convert an integer of more than 4,300 digits


@dataclass(frozen=True)
class BenchTask:
    """One task: what every team is asked, and the reference answer a metric may compare with."""

    task_id: str
    prompt: str
    reference: str | None = None
    tags: tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True)
class TaskSet:
    path: Path
    tasks: tuple[BenchTask, ...]
    sha256: str

    def by_id(self) -> dict[str, BenchTask]:
        return {task.task_id: task for task in self.tasks}


def _problem(path: Path, line: int, reason: str) -> InputError:
    return InputError(f"{path}: line {line}: {reason}")


class _LongNumber(InputError):
    """An integer of more digits than `MAX_NUMBER_DIGITS`, found while parsing."""

    def __init__(self, digits: int) -> None:
        super().__init__(f"a number of {digits} digits")
        self.digits = digits


def _integer(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise _LongNumber(digits)
    return int(literal)


def _not_unicode(key: str, value: str) -> str | None:
    """Why `value` cannot be stored or printed (a lone surrogate from a `\\ud800` escape), if it cannot."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (
            f"'{key}' is not valid Unicode (lone surrogate \\u{ord(value[exc.start]):04x} "
            f"at character {exc.start + 1})"
        )
    return None


def _task(path: Path, line: int, data: Any) -> BenchTask:
    if not isinstance(data, dict):
        raise _problem(path, line, f"expected a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise _problem(path, line, f"unknown key {unknown[0]!r} (allowed: {', '.join(_KEYS)})")
    prompt = data.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise _problem(path, line, "'prompt' is required and must be a non-empty string")
    task_id = data.get("id", str(line))
    if isinstance(task_id, bool) or not isinstance(task_id, str | int) or not str(task_id).strip():
        raise _problem(path, line, "'id' must be a non-empty string or an integer")
    reference = data.get("reference")
    if reference is not None and not isinstance(reference, str):
        raise _problem(path, line, "'reference' must be a string")
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) and t.strip() for t in tags):
        raise _problem(path, line, "'tags' must be a list of non-empty strings")
    texts = [("id", str(task_id)), ("prompt", prompt), ("reference", reference or "")]
    for key, value in [*texts, *(("tags", tag) for tag in tags)]:
        if (reason := _not_unicode(key, value)) is not None:
            raise _problem(path, line, reason)
    return BenchTask(str(task_id), prompt, reference, tuple(dict.fromkeys(tags)), line)


def _parse(path: Path, line: int, raw: bytes) -> Any:
    """The JSON value of one line (its bytes, newline included)."""
    if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
        raise _problem(path, line, f"longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _problem(
            path, line, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1} of the line)"
        ) from None
    if line == 1:
        text = text.removeprefix("\ufeff")
    if not text.strip():
        return None
    try:
        return json.loads(text, parse_int=_integer)
    except json.JSONDecodeError as exc:
        raise _problem(path, line, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise _problem(path, line, "JSON nested too deeply") from None
    except _LongNumber as exc:
        raise _problem(
            path,
            line,
            f"a number of {exc.digits} digits (at most {MAX_NUMBER_DIGITS}; give a long 'id' as a string)",
        ) from None


def _read(path: Path, source: BinaryIO) -> TaskSet:
    tasks: list[BenchTask] = []
    seen: dict[str, int] = {}
    digest = hashlib.sha256()
    number = 0
    while raw := source.readline(MAX_LINE_BYTES + 1):
        number += 1
        digest.update(raw)
        data = _parse(path, number, raw)
        if data is None:
            continue
        task = _task(path, number, data)
        if task.task_id in seen:
            raise _problem(
                path, number, f"duplicate id {task.task_id!r} (first on line {seen[task.task_id]})"
            )
        seen[task.task_id] = number
        tasks.append(task)
    if not tasks:
        raise InputError(f"{path}: no tasks (expected one JSON object a line, with at least 'prompt')")
    return TaskSet(path, tuple(tasks), digest.hexdigest())


def load_tasks(path: Path) -> TaskSet:
    """Every task of `path` (blank lines skipped), or an InputError naming the first bad line."""
    try:
        with path.open("rb") as source:
            return _read(path, source)
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
