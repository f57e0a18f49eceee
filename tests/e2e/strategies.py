"""A scripted workspace where the three kinds of team compete: `alpha` (a selective leader team),
`beta` (a broadcast leader team) and `gamma` (a three-step workflow team).

gamma's workflow: `research` (an agent) → `draft` (an agent and an async function, at once) →
`edit` (a sync function that sees every earlier step). Its editor writes "gamma answer vN", which
the scripted metrics of `scripted.py` score like the leaders' answers.

The function executors live in `configs/agents/steps.py` and append one line per call to
`configs/agents/calls.log` ("<executor> r<round>"). With STRATEGIES_HANG_ROUND=N in the
environment, `draft_b` creates `configs/agents/hanging` in round N and then waits for ever (a
process to kill in the middle of a workflow round).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from mixseek.config.prompt_defaults import WORKFLOW_AGENT_PREAMBLE as AGENT_PREAMBLE
from scripting import first_user_text

from .scripted import ROUND_RE, World

STEPS_PY = '''
"""gamma's function executors: each call is logged in calls.log next to this file."""

import asyncio
import os
from pathlib import Path

HERE = Path(__file__).parent


def _log(name, document):
    with (HERE / "calls.log").open("a", encoding="utf-8") as fh:
        fh.write(f"{name} r{document['round_number']}\\n")


async def draft_b(document):
    _log("draft_b", document)
    if os.environ.get("STRATEGIES_HANG_ROUND") == str(document["round_number"]):
        (HERE / "hanging").touch()
        await asyncio.Event().wait()
    (facts,) = document["previous_steps"][0]["results"]
    return f"draft B from {facts['content']}"


def editor(document):
    _log("editor", document)
    drafts = {r["executor"]: r["content"] for r in document["previous_steps"][-1]["results"]}
    return f"gamma answer v{document['round_number']} ({drafts['draft_a']} + {drafts['draft_b']})"
'''

GAMMA_TOML = """
[team]
team_id = "gamma"
team_name = "Gamma"

[workflow]
[[workflow.steps]]
id = "research"
[[workflow.steps.executors]]
name = "researcher"
model = "script:researcher"

[[workflow.steps]]
id = "draft"
[[workflow.steps.executors]]
name = "draft_a"
model = "script:drafter"
[[workflow.steps.executors]]
name = "draft_b"
function = "steps.py:draft_b"

[[workflow.steps]]
id = "edit"
input = "all"
[[workflow.steps.executors]]
name = "editor"
function = "steps.py:editor"
timeout_seconds = 60
"""


def workflow_document(messages: list[ModelMessage]) -> dict[str, Any]:
    """The input document an agent executor was given (the JSON after the preamble)."""
    text = first_user_text(messages)
    assert text.startswith(AGENT_PREAMBLE + "\n\n"), text[:200]
    document: dict[str, Any] = json.loads(text.removeprefix(AGENT_PREAMBLE + "\n\n"))
    return document


@dataclass
class StrategyWorld:
    """`scripted.World` (leaders, metric, judgment) plus broadcast members and workflow agents."""

    world: World = field(default_factory=World)
    documents: list[dict[str, Any]] = field(default_factory=list)

    @property
    def team_prompts(self) -> dict[tuple[str, int], str]:
        """The round prompt each team was given: a leader's, or the `prompt` of gamma's documents."""
        return self.world.team_prompts

    def note(self) -> FunctionModel:
        """A broadcast member: answers the round's prompt with a short note."""

        def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            round_number = len(ROUND_RE.findall(first_user_text(messages))) + 1
            return ModelResponse(
                parts=[TextPart(f"note for round {round_number}")],
                usage=RequestUsage(input_tokens=30, output_tokens=5),
            )

        return FunctionModel(fn, model_name="note")

    def researcher(self) -> FunctionModel:
        def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            document = workflow_document(messages)
            self.documents.append(document)
            self.world.team_prompts[(document["team_id"], document["round_number"])] = document["prompt"]
            return ModelResponse(
                parts=[TextPart(f"facts r{document['round_number']}")],
                usage=RequestUsage(input_tokens=20, output_tokens=4),
            )

        return FunctionModel(fn, model_name="researcher")

    def drafter(self) -> FunctionModel:
        def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            document = workflow_document(messages)
            self.documents.append(document)
            (facts,) = document["previous_steps"][0]["results"]
            return ModelResponse(
                parts=[TextPart(f"draft A from {facts['content']}")],
                usage=RequestUsage(input_tokens=25, output_tokens=6),
            )

        return FunctionModel(fn, model_name="drafter")

    def models(self) -> dict[str, Model]:
        return {
            **self.world.models(),
            "script:note": self.note(),
            "script:researcher": self.researcher(),
            "script:drafter": self.drafter(),
        }


def write_strategies_workspace(root: Path, *, max_rounds: int = 2) -> Path:
    """alpha (selective, one member), beta (broadcast, two members), gamma (workflow)."""
    agents = root / "configs" / "agents"
    agents.mkdir(parents=True)
    (root / "configs" / "orchestrator.toml").write_text(
        f"""
[orchestrator]
max_rounds = {max_rounds}
min_rounds = 1
max_concurrent_teams = 3
retry_base_delay_seconds = 0.01
retry_max_delay_seconds = 0.05

[[orchestrator.teams]]
config = "agents/alpha.toml"
[[orchestrator.teams]]
config = "agents/beta.toml"
[[orchestrator.teams]]
config = "agents/gamma.toml"
""",
        encoding="utf-8",
    )
    (agents / "alpha.toml").write_text(
        """
[team]
team_id = "alpha"
team_name = "Alpha"

[team.leader]
model = "script:leader-alpha"

[[team.members]]
agent_name = "helper"
agent_type = "plain"
tool_description = "手伝う"
model = "script:member"
""",
        encoding="utf-8",
    )
    (agents / "beta.toml").write_text(
        """
[team]
team_id = "beta"
team_name = "Beta"
member_dispatch = "broadcast"

[team.leader]
model = "script:leader-beta"

[[team.members]]
agent_name = "scout"
agent_type = "plain"
tool_description = "調べる"
model = "script:note"

[[team.members]]
agent_name = "critic"
agent_type = "plain"
tool_description = "批評する"
model = "script:note"
""",
        encoding="utf-8",
    )
    (agents / "gamma.toml").write_text(GAMMA_TOML, encoding="utf-8")
    (agents / "steps.py").write_text(STEPS_PY, encoding="utf-8")
    (root / "configs" / "evaluator.toml").write_text(
        """
[evaluator]
model = "script:metric"
[[evaluator.metrics]]
name = "clarity_coherence"
[[evaluator.metrics]]
name = "coverage"
[[evaluator.metrics]]
name = "relevance"
""",
        encoding="utf-8",
    )
    (root / "configs" / "judgment.toml").write_text(
        '[judgment]\nmodel = "script:judgment"\n', encoding="utf-8"
    )
    return root


def function_calls(root: Path) -> list[str]:
    """The function executors' calls so far, in order ("draft_b r1", "editor r1", ...)."""
    log = root / "configs" / "agents" / "calls.log"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []
