"""`--dry-run`: everything an execution needs is checked, and no model is called."""

from __future__ import annotations

import tempfile

from mixseek.config.bundle import ExecutionConfig
from mixseek.errors import MixseekError
from mixseek.llm import check_credentials
from mixseek.storage.aggregation_store import AggregationStore


async def preflight(config: ExecutionConfig) -> list[str]:
    """Problems that would stop an execution: credentials, workspace, database. Empty when ready."""
    problems: list[str] = []
    seen: set[tuple[str, str]] = set()
    for model, role in config.model_roles():
        if (model, role) in seen:
            continue
        seen.add((model, role))
        try:
            check_credentials(model, role=role)
        except MixseekError as exc:
            problems.append(str(exc))
    workspace = config.workspace
    try:
        workspace.logs.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=workspace.root, prefix=".mixseek-write-test-"):
            pass
    except OSError as exc:
        problems.append(f"{workspace.root}: workspace is not writable: {exc.strerror or exc}")
        return problems
    store = AggregationStore(workspace.db_path)
    try:
        await store.initialize()
    except MixseekError as exc:
        problems.append(str(exc))
    finally:
        await store.aclose()
    return problems
