"""A scripted world for bench runs: three leader-only teams whose scores on each task are known.

The leader answers "<team> answer for <task>" (the task id is read from the prompt's
"TASK <id>:"), the one metric scores it from SCORES, and every execution has one round, so each
(task, repeat) costs exactly one leader call per team.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from scripting import first_user_text

TEAMS = ("alpha", "beta", "gamma")
SCORES: dict[str, dict[str, float]] = {
    "alpha": {"t1": 80.0, "t2": 90.0, "t3": 75.0, "t4": 70.0, "t5": 85.0, "t6": 65.0},
    "beta": {"t1": 60.0, "t2": 70.0, "t3": 70.0, "t4": 60.0, "t5": 60.0, "t6": 60.0},
    "gamma": {"t1": 80.0, "t2": 50.0, "t3": 60.0, "t4": 50.0, "t5": 55.0, "t6": 45.0},
}
TASK_RE = re.compile(r"TASK (\w+):")
SUBMISSION_RE = re.compile(r"# 提出内容\n(.*?)\n\n---", re.S)
ANSWER_RE = re.compile(r"(\w+) answer for (\w+)")


@dataclass
class BenchWorld:
    """The models of a scripted bench; `leader_calls` lists (team, task) as they were asked.

    `on_leader_call(count)` runs before each leader answers, with the number of leader calls
    so far (this one included); `extra` is appended to every answer (model text for escaping);
    `shift` is added to a team's scores (a planted regression)."""

    on_leader_call: Callable[[int], None] | None = None
    extra: str = ""
    shift: dict[str, float] = field(default_factory=dict)
    leader_calls: list[tuple[str, str]] = field(default_factory=list)

    def leader(self, team: str) -> FunctionModel:
        def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            task = TASK_RE.search(first_user_text(messages))
            assert task, first_user_text(messages)
            self.leader_calls.append((team, task.group(1)))
            if self.on_leader_call is not None:
                self.on_leader_call(len(self.leader_calls))
            return ModelResponse(
                parts=[TextPart(f"{team} answer for {task.group(1)}{self.extra}")],
                usage=RequestUsage(input_tokens=100, output_tokens=20),
            )

        return FunctionModel(fn, model_name=f"leader-{team}")

    def metric(self) -> FunctionModel:
        def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            submission = SUBMISSION_RE.search(first_user_text(messages))
            assert submission, first_user_text(messages)
            answer = ANSWER_RE.search(submission.group(1))
            assert answer, submission.group(1)
            score = SCORES[answer.group(1)][answer.group(2)] + self.shift.get(answer.group(1), 0.0)
            return ModelResponse(
                parts=[ToolCallPart(info.output_tools[0].name, {"score": score, "comment": "scored"})],
                usage=RequestUsage(input_tokens=50, output_tokens=8),
            )

        return FunctionModel(fn, model_name="metric")

    @staticmethod
    def judgment() -> FunctionModel:
        def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            args = {"should_continue": False, "reasoning": "done", "confidence_score": 0.9}
            return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, args)])

        return FunctionModel(fn, model_name="judgment")

    def models(self) -> dict[str, Model]:
        models: dict[str, Model] = {f"script:leader-{team}": self.leader(team) for team in TEAMS}
        models["script:metric"] = self.metric()
        models["script:judgment"] = self.judgment()
        return models


def write_bench_workspace(root: Path) -> Path:
    """Three leader-only teams, one round each, one metric."""
    configs = root / "configs"
    (configs / "agents").mkdir(parents=True)
    teams = "".join(f'[[orchestrator.teams]]\nconfig = "agents/{team}.toml"\n' for team in TEAMS)
    (configs / "orchestrator.toml").write_text(
        f"[orchestrator]\nmax_rounds = 1\nmin_rounds = 1\nmax_concurrent_teams = 3\n{teams}", encoding="utf-8"
    )
    for team in TEAMS:
        (configs / "agents" / f"{team}.toml").write_text(
            f'[team]\nteam_id = "{team}"\nteam_name = "{team.title()}"\n\n'
            f'[team.leader]\nmodel = "script:leader-{team}"\n',
            encoding="utf-8",
        )
    (configs / "evaluator.toml").write_text(
        '[evaluator]\nmodel = "script:metric"\n[[evaluator.metrics]]\nname = "relevance"\n', encoding="utf-8"
    )
    (configs / "judgment.toml").write_text('[judgment]\nmodel = "script:judgment"\n', encoding="utf-8")
    return root


TASKS_JSONL = (
    '{"id": "t1", "prompt": "TASK t1: name a colour", "tags": ["easy"]}\n'
    '{"id": "t2", "prompt": "TASK t2: add 2 and 3", "tags": ["easy", "math"], "reference": "5"}\n'
    '{"id": "t3", "prompt": "TASK t3: integrate x", "tags": ["math"]}\n'
)
SIX_TASKS_JSONL = TASKS_JSONL + "".join(f'{{"id": "t{i}", "prompt": "TASK t{i}: more"}}\n' for i in (4, 5, 6))
