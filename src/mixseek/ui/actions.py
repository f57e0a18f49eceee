"""Start (`GET /new`, `POST /executions`), stop and resume executions from the browser: start and resume run
`mixseek exec` (`ui.launcher`), stop sends SIGINT to the process the lease names (it ends resumable); stop and
resume redirect with a `notice` naming what happened, once the store shows it or after a short wait."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from mixseek.config.loader import read_toml
from mixseek.config.workspace import Workspace
from mixseek.errors import ConfigError
from mixseek.orchestrator.execution_ids import EXECUTION_ID_RULE, is_valid_execution_id
from mixseek.orchestrator.orchestrator import RESUMABLE_STATUSES
from mixseek.runs import UnknownExecution
from mixseek.storage.errors import StoreBusyError
from mixseek.storage.models import ExecutionRecord
from mixseek.ui.launcher import interrupt_owner, launch_state, resume_execution, start_execution
from mixseek.ui.pages_execution import execution_url
from mixseek.ui.reads import read_store, ui_settings
from mixseek.ui.settings import UISettings
from mixseek.ui.templating import render

STOP_WAIT_SECONDS = 15.0
"""How long a stop waits for the execution to read as interrupted before answering."""
RESUME_WAIT_SECONDS = 30.0
"""How long a resume waits for the new process to take the execution over (it imports the
engine and builds the models first)."""
_POLL_SECONDS = 0.2


# -- new executions ---------------------------------------------------------------------------


def orchestrator_configs(ws: Workspace) -> list[str]:
    """The `configs/*.toml` with an `[orchestrator]` table, `orchestrator.toml` first even when it does not
    parse (starting it shows why, as `mixseek exec` would)."""
    default = ws.orchestrator_file.name
    names = [p.name for p in sorted(ws.configs.glob("*.toml")) if p.is_file() and _has_orchestrator(p)]
    if ws.orchestrator_file.is_file() and default not in names:
        names.append(default)
    return sorted(names, key=lambda name: (name != default, name))


def _has_orchestrator(path: Path) -> bool:
    try:
        data = read_toml(path)
    except ConfigError:  # unreadable, not TOML, or nested too deeply: `exec` says which
        return False
    return isinstance(data.get("orchestrator"), dict)


@dataclass(frozen=True)
class NewExecution:
    """What the form asks for, as the browser sent it (line breaks as LF)."""

    prompt: str = ""
    config: str = ""
    reference: str = ""
    """Blank: none (a field left empty; `exec --reference` takes no empty answer key)."""
    execution_id: str = ""
    """Blank: a generated id."""


def _form_page(
    request: Request, configs: list[str], given: NewExecution, error: str | None, status: int
) -> Response:
    ws = ui_settings(request).workspace
    context = {
        "configs": configs,
        "given": given,
        "error": error,
        "workspace": str(ws.root),
        "configs_dir": str(ws.configs),
    }
    return render(request, "new.html", context, status_code=status)


async def new_page(request: Request) -> Response:
    """`GET /new`: the form."""
    ws = ui_settings(request).workspace
    configs = await asyncio.to_thread(orchestrator_configs, ws)
    return _form_page(request, configs, NewExecution(config=ws.orchestrator_file.name), None, 200)


def _field(form: Any, name: str) -> str:
    """A form field's text; a textarea's line breaks come as CRLF."""
    value = form.get(name)
    return value.replace("\r\n", "\n") if isinstance(value, str) else ""


async def _problem(settings: UISettings, given: NewExecution, configs: list[str]) -> str | None:
    """Why the form cannot start an execution, in one line naming the field; None if it can."""
    if not given.prompt.strip():
        return "prompt: must not be empty"
    if given.config not in configs:
        return f"config: no orchestrator config '{given.config}' in {settings.workspace.configs}"
    execution_id = given.execution_id
    if not execution_id:
        return None
    if not is_valid_execution_id(execution_id):
        return f"execution id: {execution_id!r}: {EXECUTION_ID_RULE}"
    db = settings.db_path
    if await read_store(db, lambda store: store.get_execution(execution_id), None) is not None:
        return f"execution id: '{execution_id}' exists already in {db}"
    state = launch_state(settings.workspace, execution_id)
    if state is not None and state.running:
        return f"execution id: '{execution_id}' is being started already"
    return None


async def start(request: Request) -> Response:
    """`POST /executions`: start the execution and go to its page, which shows the process meanwhile."""
    settings = ui_settings(request)
    async with request.form() as form:
        given = NewExecution(
            prompt=_field(form, "prompt"),
            config=_field(form, "config"),
            reference=_field(form, "reference"),
            execution_id=_field(form, "execution_id").strip(),
        )
    configs = await asyncio.to_thread(orchestrator_configs, settings.workspace)
    error = await _problem(settings, given, configs)
    if error is not None:
        return _form_page(request, configs, given, error, 400)
    execution_id = await asyncio.to_thread(
        start_execution,
        settings,
        given.prompt,
        settings.workspace.configs / given.config,
        reference=given.reference if given.reference.strip() else None,
        execution_id=given.execution_id or None,
    )
    return RedirectResponse(execution_url(execution_id), status_code=303)


# -- stop and resume --------------------------------------------------------------------------


async def _record(db: Path, execution_id: str) -> ExecutionRecord:
    record = await read_store(db, lambda store: store.get_execution(execution_id), None)
    if record is None:
        raise UnknownExecution(f"no execution '{execution_id}' in {db}")
    return record


async def _wait_for(
    db: Path, execution_id: str, done: Callable[[ExecutionRecord], bool], seconds: float
) -> ExecutionRecord | None:
    """The execution once `done(record)`; None if it was not within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            record = await _record(db, execution_id)
            if done(record):
                return record
        except StoreBusyError:  # the execution is writing right now: ask again
            pass
        if time.monotonic() >= deadline:
            return None
        await asyncio.sleep(_POLL_SECONDS)


def _back(execution_id: str, notice: str) -> Response:
    return RedirectResponse(f"{execution_url(execution_id)}?notice={notice}", status_code=303)


async def stop(request: Request) -> Response:
    """`POST /executions/{execution_id}/stop`."""
    db = ui_settings(request).db_path
    execution_id = request.path_params["execution_id"]
    record = await _record(db, execution_id)
    if record.status != "running" or record.owner is None:
        return _back(execution_id, "not-running")
    outcome = await asyncio.to_thread(interrupt_owner, record.owner)
    if outcome == "gone":
        return _back(execution_id, "not-running")
    if outcome != "sent":
        return _back(execution_id, outcome)
    stopped = await _wait_for(db, execution_id, lambda r: r.status != "running", STOP_WAIT_SECONDS)
    return _back(execution_id, "stopping" if stopped is None else "stopped")


async def resume(request: Request) -> Response:
    """`POST /executions/{execution_id}/resume`, with the config it started with, if still there."""
    settings = ui_settings(request)
    execution_id = request.path_params["execution_id"]
    record = await _record(settings.db_path, execution_id)
    if record.status == "running":
        return _back(execution_id, "running")
    if record.status not in RESUMABLE_STATUSES:
        return _back(execution_id, "not-resumable")
    started_with = record.config.get("orchestrator_file")
    config = Path(started_with) if isinstance(started_with, str) and Path(started_with).is_file() else None
    await asyncio.to_thread(resume_execution, settings, execution_id, config)
    return _back(execution_id, await _taken_over(settings.workspace, execution_id))


async def _taken_over(ws: Workspace, execution_id: str) -> str:
    """The resume's state: "resumed", "resume-failed", or "resuming" still after RESUME_WAIT_SECONDS."""
    deadline = time.monotonic() + RESUME_WAIT_SECONDS
    while True:
        state = launch_state(ws, execution_id)  # before the read: an end seen here is final
        try:
            record = await _record(ws.db_path, execution_id)
        except StoreBusyError:
            record = None
        if record is not None and record.status != "interrupted":
            return "resumed"
        if record is not None and (state is None or not state.running):
            return "resume-failed"
        if time.monotonic() >= deadline:
            return "resuming"
        await asyncio.sleep(_POLL_SECONDS)


routes: list[BaseRoute] = [
    Route("/new", new_page, methods=["GET"]),
    Route("/executions", start, methods=["POST"]),
    Route("/executions/{execution_id}/stop", stop, methods=["POST"]),
    Route("/executions/{execution_id}/resume", resume, methods=["POST"]),
]
