"""`Mixseek`: teams of agents competing on a prompt, driven from Python — what `mixseek exec` runs.

    mx = Mixseek([team_a, team_b], orchestrator=OrchestratorSettings(max_rounds=2))
    result = await mx.run("Propose three measures against ...")      # or mx.run_sync(...)
    async with mx.iter("...") as execution:                           # typed events as they happen
        async for event in execution:
            ...
    execution.result

`load_workspace(path)` gives the same object from a workspace's files.
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
    """The teams of an execution and how it runs: rounds, evaluator, judgment, prompt templates.

    Args:
        teams: each a `TeamConfig` (or a mapping of its fields): a leader and the members it
            delegates to (`member_dispatch="broadcast"`: all of them, every round), or a
            `workflow=WorkflowConfig(...)` of steps whose executors are agents or Python functions.
            Every `model` is a model string (`"openai:gpt-4o"`, `"test"`) or a pydantic-ai
            `Model` object.
        orchestrator, evaluator, judgment, prompt_builder, pairwise: rounds, concurrency, limits and
            budgets; the metrics that score each submission; the model that decides whether a team
            goes on; the prompt templates; the optional final pairwise ranking of the best submissions.
        workspace: the directory whose store (`mixseek.db`) keeps the executions, so that
            `mixseek runs` shows them and an interrupted one can be resumed. Without one, each
            execution runs on a store in a temporary directory, removed when it ends.

    Settings left out take their defaults; `MIXSEEK_*` environment variables fill in only what
    no constructor argument gives.
    """

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
        """Start an execution of `user_prompt` (or, with `resume`, continue an interrupted one) and
        yield it as an `ExecutionRun`: iterate over it for its events; `result` afterwards.

        `reference` is a reference answer: stored with the execution (a resume reads it back),
        given to the evaluator's reference metrics (`reference_similarity`), never to the teams.

        `engine="temporal"` runs it as a Temporal workflow, as `mixseek exec --engine temporal` does:
        team rounds on the `mixseek worker`s of `temporal_address`, else on `workers` (default 2) and a
        dev server started for it (they load the workspace's files). Default `"local"`: this process.

        Leaving the block before the last event cancels the execution; the store keeps it as
        `interrupted`, and with a workspace `resume` continues it.

        Raises:
            ConfigError: a model string, plugin or class that does not resolve (nothing started).
            InputError: an empty prompt or reference, an `execution_id` that exists already, no
                `reference` for a metric that needs one, `resume` without a workspace or of an
                execution that cannot be resumed, or an engine that cannot start.
        """
        self._check_request(user_prompt, reference, execution_id, resume)
        async with contextlib.AsyncExitStack() as stack:
            config = await self._checked_config(stack)
            started = await started_engine(stack, config, engine)
            execution = ExecutionRun(resume or execution_id or new_execution_id())
            orchestrator = started.orchestrator(config, [execution._push])
            # building the models awaits nothing: a cancellation (Ctrl-C) that came meanwhile
            # lands here, before anything is written
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
        """Run an execution of `user_prompt` to its end and return its summary; `reference` is
        its reference answer, for the reference metrics alone, `engine` what runs it (see `iter`)."""
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
    `orchestrator_file`), as `mixseek exec` runs it: environment > file > default.

    Without `workspace`, `$MIXSEEK_WORKSPACE` names it.

    Raises:
        ConfigError: a missing or bad file, key or value; it carries every problem found.
    """
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
