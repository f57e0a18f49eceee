"""A workflow team's round: its steps in order, each step's executors at once."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path

from pydantic_ai import RunUsage
from pydantic_ai.messages import ModelMessage
from pydantic_ai.usage import UsageLimits

import mixseek.telemetry as telemetry
from mixseek.agents.concurrency import run_bounded
from mixseek.agents.leader.member_call import call_member
from mixseek.agents.leader.models import MemberSubmission, MemberSubmissionsRecord
from mixseek.agents.member.base import MemberAgent
from mixseek.agents.member.registry import create_member
from mixseek.agents.team_result import TeamRunResult
from mixseek.agents.workflow.document import RoundInput, StepResults, agent_task, input_document
from mixseek.agents.workflow.function_executor import FunctionExecutor
from mixseek.config.team_models import TeamConfig
from mixseek.config.workflow_models import AgentExecutorConfig, WorkflowConfig, WorkflowStep
from mixseek.errors import RuntimeFailure


class WorkflowFailed(RuntimeFailure):
    """A step failed (an executor of a step that may not continue) or the submission's executor did."""


def _failures(results: Sequence[MemberSubmission]) -> str:
    return "; ".join(f"executor '{r.agent_name}': {r.error_message}" for r in results if r.status == "ERROR")


class WorkflowTeam:
    """A configured workflow team; each executor run is recorded as a member submission, as a leader's."""

    def __init__(
        self,
        config: TeamConfig,
        *,
        base_dir: Path | None = None,
        agents: dict[str, MemberAgent] | None = None,
    ) -> None:
        if config.workflow is None:
            raise ValueError(f"team '{config.team_id}' has no workflow")
        self.config = config
        self.workflow: WorkflowConfig = config.workflow
        self.agents: dict[str, MemberAgent] = dict(agents or {})
        self.functions: dict[str, FunctionExecutor] = {}
        for _, _, executor in self.workflow.executors():
            if isinstance(executor, AgentExecutorConfig):
                if executor.name not in self.agents:
                    self.agents[executor.name] = create_member(
                        executor,
                        role=f"executor '{executor.name}' of team '{config.team_id}'",
                        base_dir=base_dir,
                    )
            else:
                self.functions[executor.name] = FunctionExecutor(executor, base_dir=base_dir)

    def _job(
        self,
        executor: AgentExecutorConfig | FunctionExecutor,
        document: dict[str, object],
        step: WorkflowStep,
        usage: RunUsage,
        usage_limits: UsageLimits | None,
        messages: list[ModelMessage],
    ) -> Callable[[], Awaitable[MemberSubmission]]:
        if isinstance(executor, FunctionExecutor):
            return partial(executor.run, document, step_id=step.id)
        agent = self.agents[executor.name]
        task = agent_task(document)
        return lambda: call_member(
            agent, executor, task, usage=usage, usage_limits=usage_limits, step_id=step.id, messages=messages
        )

    async def run(
        self,
        prompt: str,
        *,
        round_number: int = 1,
        usage_limits: UsageLimits | None = None,
        user_prompt: str | None = None,
    ) -> TeamRunResult:
        """One round: `prompt` the round's prompt, `user_prompt` the execution's task (default: `prompt`)."""
        shared = RoundInput(
            team_id=self.config.team_id,
            team_name=self.config.team_name,
            round_number=round_number,
            user_prompt=prompt if user_prompt is None else user_prompt,
            prompt=prompt,
        )
        with telemetry.span(
            "mixseek.leader",
            team_id=self.config.team_id,
            round=round_number,
            workflow_steps=len(self.workflow.steps),
        ) as span:
            result = await self._steps(shared, usage_limits)
            telemetry.record(span, **telemetry.usage(result.usage))
            return result

    async def _steps(self, shared: RoundInput, usage_limits: UsageLimits | None) -> TeamRunResult:
        usage = RunUsage()
        slots = asyncio.Semaphore(self.config.max_concurrent_members)
        submissions: list[MemberSubmission] = []
        messages: list[ModelMessage] = []
        done: list[StepResults] = []
        for index, step in enumerate(self.workflow.steps):
            previous = done[-1:] if self.workflow.step_input(step) == "previous" else list(done)
            step_messages: list[list[ModelMessage]] = [[] for _ in step.executors]
            jobs = []
            for position, executor in enumerate(step.executors):
                document = input_document(
                    shared, step_id=step.id, step_index=index, executor=executor.name, previous=previous
                )
                target = (
                    executor if isinstance(executor, AgentExecutorConfig) else self.functions[executor.name]
                )
                jobs.append(self._job(target, document, step, usage, usage_limits, step_messages[position]))
            results = await run_bounded(jobs, slots)
            submissions.extend(results)
            for own in step_messages:  # in executor order, whichever finished first
                messages.extend(own)
            if not step.continue_on_failure and any(r.status == "ERROR" for r in results):
                raise WorkflowFailed(f"workflow step '{step.id}' failed: {_failures(results)}")
            done.append(StepResults(step.id, results))
        output_name = self.workflow.output_executor
        output = next(r for r in done[-1].results if r.agent_name == output_name)
        if output.status == "ERROR":
            raise WorkflowFailed(
                f"workflow output executor '{output_name}' of step '{done[-1].step_id}' failed: "
                f"{output.error_message}"
            )
        record = MemberSubmissionsRecord(
            team_id=self.config.team_id,
            team_name=self.config.team_name,
            round_number=shared.round_number,
            submissions=submissions,
        )
        return TeamRunResult(
            output=output.content, record=record, messages=messages, usage=usage, leader_usage=RunUsage()
        )
