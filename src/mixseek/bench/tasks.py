"""A bench's task set: TASKS.jsonl, one JSON object a line (`prompt`, optional `id`, `reference`, `tags`).

The whole file is read and checked before anything runs, so a typo on line 40 costs no model
call; its SHA-256 ties a stored bench to the exact file it ran, so a resumed bench cannot
silently mix answers to two different task sets.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mixseek.errors import InputError

_KEYS = ("id", "prompt", "reference", "tags")


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
    """The tasks of one file, in file order, with the file's SHA-256."""

    path: Path
    tasks: tuple[BenchTask, ...]
    sha256: str

    def by_id(self) -> dict[str, BenchTask]:
        return {task.task_id: task for task in self.tasks}


def _problem(path: Path, line: int, reason: str) -> InputError:
    return InputError(f"{path}: line {line}: {reason}")


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
    return BenchTask(str(task_id), prompt, reference, tuple(dict.fromkeys(tags)), line)


def load_tasks(path: Path) -> TaskSet:
    """Every task of `path`; InputError naming the file and line of the first bad one.

    Blank lines are skipped (a trailing newline is not a task); a task without `id` takes its
    line number."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    tasks: list[BenchTask] = []
    seen: dict[str, int] = {}
    for number, content in enumerate(text.splitlines(), start=1):
        if not content.strip():
            continue
        try:
            data = json.loads(content)
        except json.JSONDecodeError as exc:
            raise _problem(path, number, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
        task = _task(path, number, data)
        if task.task_id in seen:
            raise _problem(
                path, number, f"duplicate id {task.task_id!r} (first on line {seen[task.task_id]})"
            )
        seen[task.task_id] = number
        tasks.append(task)
    if not tasks:
        raise InputError(f"{path}: no tasks (expected one JSON object a line, with at least 'prompt')")
    return TaskSet(path, tuple(tasks), hashlib.sha256(raw).hexdigest())
