"""A scripted world for whole-CLI runs: deterministic leaders, members, metrics and judgment.

Every answer depends only on the prompt the model receives, so a run and a
resumed run with the same inputs produce the same board.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from scripting import first_user_text, tool_returns

ROUND_RE = re.compile(r"^## ラウンド (\d+)$", re.M)
SUBMISSION_RE = re.compile(r"# 提出内容\n(.*?)\n\n---", re.S)
ANSWER_RE = re.compile(r"^(\w+) answer v(\d+)")

# score of team T's answer in round N (every metric gives the same score)
SCORES: dict[str, dict[int, float]] = {
    "alpha": {1: 60.0, 2: 75.0, 3: 80.0, 4: 82.0},
    "beta": {1: 70.0, 2: 72.0, 3: 90.0, 4: 91.0},
    "gamma": {1: 50.0, 2: 75.0, 3: 78.0, 4: 99.0},
}
# after which round each team's judgment says stop
STOP_AFTER: dict[str, int] = {"alpha": 3, "beta": 2, "gamma": 99}


@dataclass
class World:
    """The models of one scripted run, plus what they saw."""

    team_prompts: dict[tuple[str, int], str] = field(default_factory=dict)
    judgment_prompts: list[str] = field(default_factory=list)
    failing_teams: set[str] = field(default_factory=set)
    on_leader_call: Callable[[str, int], None] | None = None
    leader_delay: float = 0.0
    leader_delays: dict[str, float] = field(default_factory=dict)
    # from this round on every leader waits until cancelled (a timeout), whatever the machine's speed
    leaders_hang_from_round: int | None = None
    flaky_rate: float = 0.0
    flaky_seed: int = 7
    failures_injected: int = 0
    calls: int = 0

    def _maybe_fail(self, rng: random.Random, name: str) -> None:
        """A transient provider error on a share of the calls: 429, 500 or a timeout."""
        self.calls += 1
        if self.flaky_rate and rng.random() < self.flaky_rate:
            self.failures_injected += 1
            kind = rng.choice(("429", "500", "timeout"))
            if kind == "timeout":
                raise TimeoutError(f"{name}: read timed out")
            raise ModelHTTPError(int(kind), name, body="injected")

    def _flaky(
        self, name: str, fn: Callable[[list[ModelMessage], AgentInfo], ModelResponse]
    ) -> FunctionModel:
        rng = random.Random(f"{self.flaky_seed}-{name}")

        async def wrapped(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self._maybe_fail(rng, name)
            return fn(messages, info)

        return FunctionModel(wrapped, model_name=name)

    def leader(self, team: str) -> FunctionModel:
        async def slow(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            hang_from = self.leaders_hang_from_round
            if hang_from is not None and len(ROUND_RE.findall(first_user_text(messages))) + 1 >= hang_from:
                await asyncio.Event().wait()
            delay = self.leader_delays.get(team, self.leader_delay)
            if delay:
                await asyncio.sleep(delay)
            return await flaky.function(messages, info)  # type: ignore[misc]

        def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            prompt = first_user_text(messages)
            round_number = len(ROUND_RE.findall(prompt)) + 1
            if team in self.failing_teams:
                raise RuntimeError(f"{team} leader is broken")
            if self.on_leader_call is not None:
                self.on_leader_call(team, round_number)
            self.team_prompts[(team, round_number)] = prompt
            returned = list(tool_returns(messages).values())
            if info.function_tools and not returned:
                return ModelResponse(
                    parts=[ToolCallPart(info.function_tools[0].name, {"task": f"round {round_number}"})],
                    usage=RequestUsage(input_tokens=100, output_tokens=10),
                )
            note = f" ({returned[0]})" if returned else ""
            return ModelResponse(
                parts=[TextPart(f"{team} answer v{round_number}{note}")],
                usage=RequestUsage(input_tokens=100, output_tokens=20),
            )

        flaky = self._flaky(f"leader-{team}", fn)
        return FunctionModel(slow, model_name=f"leader-{team}")

    def member(self) -> FunctionModel:
        def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            return ModelResponse(
                parts=[TextPart(f"member did {first_user_text(messages)}")],
                usage=RequestUsage(input_tokens=30, output_tokens=5),
            )

        return self._flaky("member", fn)

    def metric(self) -> FunctionModel:
        def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            match = SUBMISSION_RE.search(first_user_text(messages))
            assert match, "evaluator prompt without a submission"
            answer = ANSWER_RE.match(match.group(1))
            assert answer, match.group(1)
            score = SCORES[answer.group(1)][int(answer.group(2))]
            return ModelResponse(
                parts=[
                    ToolCallPart(
                        info.output_tools[0].name, {"score": score, "comment": f"{answer.group(0)} ok"}
                    )
                ],
                usage=RequestUsage(input_tokens=50, output_tokens=8),
            )

        return self._flaky("metric", fn)

    def judgment(self) -> FunctionModel:
        def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            prompt = first_user_text(messages)
            self.judgment_prompts.append(prompt)
            rounds = len(ROUND_RE.findall(prompt))
            answer = re.search(r"あなたの提出内容: (\w+) answer", prompt)
            assert answer
            team = answer.group(1)
            go_on = rounds < STOP_AFTER[team]
            return ModelResponse(
                parts=[
                    ToolCallPart(
                        info.output_tools[0].name,
                        {
                            "should_continue": go_on,
                            "reasoning": f"{team} after {rounds}",
                            "confidence_score": 0.8,
                        },
                    )
                ],
                usage=RequestUsage(input_tokens=40, output_tokens=6),
            )

        return self._flaky("judgment", fn)

    def models(self) -> dict[str, Model]:
        return {
            "script:leader-alpha": self.leader("alpha"),
            "script:leader-beta": self.leader("beta"),
            "script:leader-gamma": self.leader("gamma"),
            "script:member": self.member(),
            "script:metric": self.metric(),
            "script:judgment": self.judgment(),
        }


def write_workspace(
    root: Path, *, max_rounds: int = 4, min_rounds: int = 1, extra: str = "", max_retries: int = 3
) -> Path:
    """A workspace of three teams: alpha (one member), beta (leader alone), gamma (one member)."""
    configs = root / "configs"
    (configs / "agents").mkdir(parents=True)
    (configs / "orchestrator.toml").write_text(
        f"""
[orchestrator]
max_rounds = {max_rounds}
min_rounds = {min_rounds}
max_concurrent_teams = 3
retry_base_delay_seconds = 0.01
retry_max_delay_seconds = 0.05
{extra}
[[orchestrator.teams]]
config = "agents/alpha.toml"
[[orchestrator.teams]]
config = "agents/beta.toml"
[[orchestrator.teams]]
config = "agents/gamma.toml"
""",
        encoding="utf-8",
    )
    for team, with_member in (("alpha", True), ("beta", False), ("gamma", True)):
        member = (
            f"""
[[team.members]]
agent_name = "helper"
agent_type = "plain"
tool_description = "手伝う"
model = "script:member"
max_retries = {max_retries}
"""
            if with_member
            else ""
        )
        (configs / "agents" / f"{team}.toml").write_text(
            f"""
[team]
team_id = "{team}"
team_name = "{team.title()}"

[team.leader]
model = "script:leader-{team}"
max_retries = {max_retries}
{member}""",
            encoding="utf-8",
        )
    (configs / "evaluator.toml").write_text(
        """
[evaluator]
model = "script:metric"
max_retries = {max_retries}
[[evaluator.metrics]]
name = "clarity_coherence"
[[evaluator.metrics]]
name = "coverage"
[[evaluator.metrics]]
name = "relevance"
""".replace("{max_retries}", str(max_retries)),
        encoding="utf-8",
    )
    (configs / "judgment.toml").write_text(
        f'[judgment]\nmodel = "script:judgment"\nmax_retries = {max_retries}\n', encoding="utf-8"
    )
    return root
