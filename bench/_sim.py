"""A simulated model world for `bench/orchestration.py`: fixed-latency models and a workspace.

Every model is a pydantic-ai `FunctionModel` whose async function sleeps for
the latency, then answers deterministically with a small fixed token usage:

- leader:   first call asks every member at once (one response, M tool calls),
            second call (after the tool returns) answers with text;
- member:   text;
- metric:   the structured `MetricScore` output (an output-tool call);
- judgment: the structured `JudgmentOutput`, always `should_continue=true`.

Every call is timed (start and end on `time.perf_counter`) together with the
team and round it belongs to, so the benchmark can say where time went
between model calls.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from mixseek.config.evaluator import BUILTIN_METRICS
from mixseek.llm import governor

ROLES = ("leader", "member", "metric", "judgment")
MODEL_STRINGS = {role: f"sim:{role}" for role in ROLES}
# small fixed usage per role: (input_tokens, output_tokens)
USAGE = {"leader": (120, 24), "member": (40, 12), "metric": (60, 10), "judgment": (50, 8)}
LLM_PLAIN_CLASS = "mixseek.evaluator.metrics.llm_plain:LLMPlainMetric"


@dataclass(frozen=True)
class Call:
    """One simulated model request."""

    role: str
    team_id: str | None
    round_number: int | None
    start: float
    end: float


@dataclass
class SimWorld:
    """The four models of a benchmark run and the log of their calls."""

    latency: float
    calls: list[Call] = field(default_factory=list)

    def _model(self, role: str) -> FunctionModel:
        answer = getattr(self, f"_{role}")
        input_tokens, output_tokens = USAGE[role]

        async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            scope = governor._scope.get()  # the team round the call belongs to (read only)
            start = time.perf_counter()
            await asyncio.sleep(self.latency)
            parts = answer(messages, info)
            self.calls.append(
                Call(
                    role,
                    scope.team_id if scope else None,
                    scope.round_number if scope else None,
                    start,
                    time.perf_counter(),
                )
            )
            return ModelResponse(
                parts=parts, usage=RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens)
            )

        return FunctionModel(respond, model_name=f"sim-{role}")

    @staticmethod
    def _leader(messages: list[ModelMessage], info: AgentInfo) -> list[ToolCallPart | TextPart]:
        returned = [
            str(part.content)
            for message in messages
            if isinstance(message, ModelRequest)
            for part in message.parts
            if isinstance(part, ToolReturnPart)
        ]
        if info.function_tools and not returned:
            return [
                ToolCallPart(tool.name, {"task": f"part {i} of the task"})
                for i, tool in enumerate(info.function_tools)
            ]
        return [TextPart(f"final answer combining {len(returned)} member answers")]

    @staticmethod
    def _member(messages: list[ModelMessage], info: AgentInfo) -> list[TextPart]:
        return [TextPart("member answer: a short, fixed piece of work")]

    @staticmethod
    def _metric(messages: list[ModelMessage], info: AgentInfo) -> list[ToolCallPart]:
        return [ToolCallPart(info.output_tools[0].name, {"score": 75.0, "comment": "fixed score"})]

    @staticmethod
    def _judgment(messages: list[ModelMessage], info: AgentInfo) -> list[ToolCallPart]:
        args = {"should_continue": True, "reasoning": "keep going", "confidence_score": 0.9}
        return [ToolCallPart(info.output_tools[0].name, args)]

    def models(self) -> dict[str, Model]:
        """What `mixseek.llm.override_models` should return for each `sim:<role>` string."""
        return {MODEL_STRINGS[role]: self._model(role) for role in ROLES}


def team_id(index: int) -> str:
    return f"team-{index:03d}"


def write_workspace(
    root: Path,
    *,
    teams: int,
    rounds: int,
    members: int,
    metrics: int,
    max_concurrent_teams: int,
    max_concurrent_requests_per_model: int,
) -> Path:
    """A workspace of `teams` identical teams using the `sim:*` models; returns orchestrator.toml."""
    configs = root / "configs"
    (configs / "agents").mkdir(parents=True)
    team_refs = "".join(
        f'[[orchestrator.teams]]\nconfig = "agents/{team_id(i)}.toml"\n' for i in range(teams)
    )
    orchestrator = configs / "orchestrator.toml"
    orchestrator.write_text(
        f"""[orchestrator]
max_rounds = {rounds}
min_rounds = 1
max_concurrent_teams = {max_concurrent_teams}
max_concurrent_requests_per_model = {max_concurrent_requests_per_model}
retry_base_delay_seconds = 0.01
retry_max_delay_seconds = 0.05

{team_refs}""",
        encoding="utf-8",
    )
    member_blocks = "".join(
        f"""
[[team.members]]
agent_name = "member{m}"
agent_type = "plain"
tool_description = "helper number {m}"
model = "{MODEL_STRINGS["member"]}"
"""
        for m in range(members)
    )
    for i in range(teams):
        (configs / "agents" / f"{team_id(i)}.toml").write_text(
            f"""[team]
team_id = "{team_id(i)}"
team_name = "Team {i}"
max_concurrent_members = {max(members, 1)}

[team.leader]
model = "{MODEL_STRINGS["leader"]}"
{member_blocks}""",
            encoding="utf-8",
        )
    builtin = [name for name in BUILTIN_METRICS if name != "llm_plain"]
    metric_blocks = []
    for k in range(metrics):
        if k < len(builtin):
            metric_blocks.append(f'[[evaluator.metrics]]\nname = "{builtin[k]}"\n')
        else:  # beyond the built-ins: the generic LLM judge under another name
            metric_blocks.append(
                f'[[evaluator.metrics]]\nname = "plain_{k}"\nclass_path = "{LLM_PLAIN_CLASS}"\n'
            )
    (configs / "evaluator.toml").write_text(
        f'[evaluator]\nmodel = "{MODEL_STRINGS["metric"]}"\n\n' + "\n".join(metric_blocks), encoding="utf-8"
    )
    (configs / "judgment.toml").write_text(
        f'[judgment]\nmodel = "{MODEL_STRINGS["judgment"]}"\njudge_on_final_round = false\n',
        encoding="utf-8",
    )
    return orchestrator
