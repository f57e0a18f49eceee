"""Checks that need no model call (`config validate`, `exec --dry-run`, `exec` before it starts): what a
config names elsewhere (a provider, a model file, a plugin class) fails as one line naming file and key."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable

from mixseek.agents.member.registry import member_problems
from mixseek.config.bundle import ExecutionConfig, FunctionSite
from mixseek.errors import ConfigError, MissingCredentialsError, MixseekError
from mixseek.evaluator.metrics.registry import metric_problems
from mixseek.llm.checks import check_credentials
from mixseek.plugins import load_class, load_function


def _class_base(kind: str) -> type:
    """The base class a `class_path` of this kind must subclass, imported only when one is named."""
    if kind == "member":
        from mixseek.agents.member.base import MemberAgent

        return MemberAgent
    from mixseek.evaluator.metrics.base import Metric

    return Metric


def reference_problems(config: ExecutionConfig) -> list[ConfigError]:
    """What the config names that would fail at start-up, one error each (credentials apart)."""
    problems: list[ConfigError] = []
    seen: set[tuple[str, str | None, str]] = set()
    for site in config.model_sites():
        if (site.source, site.key, site.model) in seen:
            continue  # e.g. evaluator.model, shared by every metric: one line is enough
        seen.add((site.source, site.key, site.model))
        try:
            check_credentials(site.model, role=site.role)
        except MissingCredentialsError:
            continue
        except MixseekError as exc:
            problems.append(ConfigError(site.source, site.key, str(exc)))
    for path_site in config.class_path_sites():
        try:
            load_class(path_site.class_path, _class_base(path_site.kind), base_dir=path_site.base_dir)
        except MixseekError as exc:
            problems.append(ConfigError(path_site.source, path_site.key, str(exc)))
    problems.extend(function_problems(config.function_sites()))
    problems.extend(member_problems(config))
    problems.extend(metric_problems(config))
    if any(agent.config.agent_type == "code-exec" for entry in config.teams for agent in entry.agents()):
        # the sandbox checks load the code-exec tool and asyncio: only for a config that needs them
        from mixseek.agents.member.code_exec_checks import sandbox_problems

        problems.extend(sandbox_problems(config))
    return problems


def function_problems(sites: Iterable[FunctionSite]) -> list[ConfigError]:
    """Workflow function executors whose function cannot be loaded, one error each."""
    problems: list[ConfigError] = []
    for site in sites:
        try:
            load_function(site.function, base_dir=site.base_dir)
        except MixseekError as exc:
            problems.append(ConfigError(site.source, site.key, str(exc)))
    return problems


def credential_problems(config: ExecutionConfig) -> list[MissingCredentialsError]:
    """A missing key for every role whose model needs one."""
    problems: list[MissingCredentialsError] = []
    seen: set[tuple[str, str]] = set()
    for model, role in config.model_roles():
        if (model, role) in seen:
            continue
        seen.add((model, role))
        try:
            check_credentials(model, role=role)
        except MissingCredentialsError as exc:
            problems.append(exc)
        except MixseekError:
            continue  # a bad model string: `reference_problems` reports it with its file and key
    return problems


def startup_problems(config: ExecutionConfig) -> list[MixseekError]:
    """Everything about the config that would stop `exec` before its first model call."""
    return [*reference_problems(config), *credential_problems(config)]


async def preflight(config: ExecutionConfig) -> list[str]:
    """Problems that would stop an execution: config references, credentials, workspace, database."""
    problems = [str(p) for p in startup_problems(config)]
    workspace = config.workspace
    try:
        workspace.logs.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=workspace.root, prefix=".mixseek-write-test-"):
            pass
    except OSError as exc:
        problems.append(f"{workspace.root}: workspace is not writable: {exc.strerror or exc}")
        return problems
    import asyncio

    from mixseek.storage.health import check_store

    try:
        await asyncio.to_thread(check_store, workspace.db_path)
    except MixseekError as exc:
        problems.append(str(exc))
    return problems
