"""`Mixseek`: teams of agents competing on a prompt, driven from Python — what `mixseek exec` runs.

result = await Mixseek([team_a, team_b]).run("Propose three measures against ...")
async with Mixseek([team_a, team_b]).iter("...") as execution:  # typed events as they happen
    ...
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Unpack

from mixseek.api.code_config import code_config
from mixseek.api.engines import EngineChoice, started_engine
from mixseek.api.execution import ExecutionRun
from mixseek.config.bundle import ExecutionConfig, load_execution_config
from mixseek.config.evaluator import EvaluatorSettings
from mixseek.config.judgment import JudgmentSettings
from mixseek.config.orchestrator import OrchestratorSettings
from mixseek.config.pairwise import PairwiseSettings
from mixseek.config.prompt_builder import PromptBuilderSettings
from mixseek.config.team_models import TeamConfig
from mixseek.config.workspace import Workspace, resolve_workspace
from mixseek.errors import ConfigError, InputError
from mixseek.orchestrator.models import ExecutionSummary
from mixseek.orchestrator.orchestrator import new_execution_id
from mixseek.orchestrator.preflight import reference_problems


class Mixseek:
    """The teams of an execution (`TeamConfig`s or mappings; a `model` is a model string or a pydantic-ai
    `Model`) and how it runs. `workspace` keeps the executions in its store (`mixseek runs`, resume); without
    one each runs on a temporary store. Settings left out take their defaults; `MIXSEEK_*` environment
    variables fill in only what no argument gives."""

    def __init__(
        self,
        teams: Sequence[TeamConfig | Mapping[str, Any]],
        *,
        orchestrator: OrchestratorSettings | None = None,
        evaluator: EvaluatorSettings | None = None,
        judgment: JudgmentSettings | None = None,
        prompt_builder: PromptBuilderSettings | None = None,
        workspace: str | Path | None = None,
        pairwise: PairwiseSettings | None = None,
    ) -> None:
        root = Path(workspace).expanduser().resolve() if workspace is not None else None
        self._config = code_config(
            teams,
            orchestrator=orchestrator,
            evaluator=evaluator,
            judgment=judgment,
            prompt_builder=prompt_builder,
            pairwise=pairwise,
            # replaced by a temporary directory for each execution when there is no workspace
            workspace=Workspace(root if root is not None else Path(tempfile.gettempdir())),
        )
        self._has_workspace = root is not None

    @classmethod
    def from_config(cls, config: ExecutionConfig) -> Mixseek:
        """A `Mixseek` over a configuration loaded from a workspace (see `load_workspace`)."""
        mixseek = cls.__new__(cls)
        mixseek._config = config
        mixseek._has_workspace = True
        return mixseek

    @property
    def config(self) -> ExecutionConfig:
        """Everything the execution reads, with where each part came from (file or label)."""
        return self._config

    @property
    def teams(self) -> list[TeamConfig]:
        return [entry.config for entry in self._config.teams]

    @property
    def orchestrator(self) -> OrchestratorSettings:
        """The orchestrator settings; a workspace's team file references are in `teams` instead."""
        return self._config.orchestrator.value.model_copy(update={"teams": []})

    @property
    def evaluator(self) -> EvaluatorSettings:
        return self._config.evaluator.value

    @property
    def judgment(self) -> JudgmentSettings:
        return self._config.judgment.value

    @property
    def prompt_builder(self) -> PromptBuilderSettings:
        return self._config.prompt_builder.value

    @property
    def pairwise(self) -> PairwiseSettings:
        return self._config.pairwise.value

    @property
    def workspace(self) -> Path | None:
        return self._config.workspace.root if self._has_workspace else None

    def __repr__(self) -> str:
        teams = ", ".join(repr(team.team_id) for team in self.teams)
        return f"Mixseek(teams=[{teams}], workspace={self.workspace!r})"

    @contextlib.asynccontextmanager
    async def iter(
        self,
        user_prompt: str | None = None,
        *,
        reference: str | None = None,
        execution_id: str | None = None,
        resume: str | None = None,
        **engine: Unpack[EngineChoice],
    ) -> AsyncIterator[ExecutionRun]:
        """Start an execution of `user_prompt` (or `resume` an interrupted one) and yield it as an
        `ExecutionRun`: its events, then `result`. `reference` goes to the reference metrics, never to the
        teams; `engine="temporal"` runs it as `exec --engine temporal` does (`temporal_address` or `workers`).
        Leaving the block early cancels it (stored as `interrupted`). Raises `ConfigError` (a reference that
        does not resolve) or `InputError` (a bad request), nothing run."""
        self._check_request(user_prompt, reference, execution_id, resume)
        async with contextlib.AsyncExitStack() as stack:
            config = await self._checked_config(stack)
            started = await started_engine(stack, config, engine)
            execution = ExecutionRun(resume or execution_id or new_execution_id())
            orchestrator = started.orchestrator(config, [execution._push])
            # a cancellation (Ctrl-C) while the models were built lands here, before any write
            await asyncio.sleep(0)
            if resume is not None:
                work = orchestrator.resume(resume)
            else:
                assert user_prompt is not None
                work = orchestrator.run(user_prompt, execution_id=execution.execution_id, reference=reference)
            execution._start(asyncio.create_task(work))
            try:
                yield execution
            finally:
                await execution._close()

    def _check_request(
        self, user_prompt: str | None, reference: str | None, execution_id: str | None, resume: str | None
    ) -> None:
        if resume is not None:
            if user_prompt is not None or execution_id is not None or reference is not None:
                raise InputError(
                    "resume: give only the execution to resume (it keeps its prompt and reference)"
                )
            if not self._has_workspace:
                raise InputError("resume: needs a workspace (its store keeps the execution)")
        elif user_prompt is None or not user_prompt.strip():
            raise InputError("user_prompt cannot be empty")

    async def _checked_config(self, stack: contextlib.AsyncExitStack[Any]) -> ExecutionConfig:
        """The configuration with its workspace (a temporary one without), its references checked."""
        config = self._config
        if not self._has_workspace:
            tmp = stack.enter_context(
                tempfile.TemporaryDirectory(prefix="mixseek-", ignore_cleanup_errors=True)
            )
            config = dataclasses.replace(config, workspace=Workspace(Path(tmp)))
        config.workspace.root.mkdir(parents=True, exist_ok=True)
        problems = await asyncio.to_thread(reference_problems, config)
        if problems:
            raise ConfigError.combine(problems)
        return config

    async def run(
        self,
        user_prompt: str,
        *,
        reference: str | None = None,
        execution_id: str | None = None,
        **engine: Unpack[EngineChoice],
    ) -> ExecutionSummary:
        """Run an execution of `user_prompt` to its end and return its summary (see `iter`)."""
        return await _to_end(self.iter(user_prompt, reference=reference, execution_id=execution_id, **engine))

    async def resume(self, execution_id: str, **engine: Unpack[EngineChoice]) -> ExecutionSummary:
        """Continue an interrupted execution of this workspace to its end."""
        return await _to_end(self.iter(resume=execution_id, **engine))

    def run_sync(
        self,
        user_prompt: str,
        *,
        reference: str | None = None,
        execution_id: str | None = None,
        **engine: Unpack[EngineChoice],
    ) -> ExecutionSummary:
        """`run` for code without an event loop (a script); inside async code, `await run(...)`."""
        return asyncio.run(self.run(user_prompt, reference=reference, execution_id=execution_id, **engine))


async def _to_end(iteration: contextlib.AbstractAsyncContextManager[ExecutionRun]) -> ExecutionSummary:
    async with iteration as execution:
        async for _ in execution:
            pass
    return execution.result


def load_workspace(
    workspace: str | Path | None = None, *, orchestrator_file: str | Path | None = None
) -> Mixseek:
    """The `Mixseek` a workspace's config files describe (`configs/orchestrator.toml`, or
    `orchestrator_file`; `$MIXSEEK_WORKSPACE` without `workspace`), as `mixseek exec` runs it; a
    `ConfigError` carries every problem found."""
    if workspace is None:
        root = resolve_workspace(None)
    else:
        path = Path(workspace).expanduser().resolve()
        if not path.is_dir():
            raise ConfigError(str(path), None, "workspace directory does not exist (run 'mixseek init')")
        root = Workspace(path)
    return Mixseek.from_config(
        load_execution_config(root, Path(orchestrator_file) if orchestrator_file is not None else None)
    )
