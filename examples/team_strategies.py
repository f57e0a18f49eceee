"""Three kinds of team compete in one execution: selective, broadcast and a workflow.

Runs offline with no API key: every model is a scripted pydantic-ai `FunctionModel`. Put a real
model string in their place (`"openai:gpt-4o"`, `"local:smollm2"`, ...) for real answers.

    python examples/team_strategies.py
"""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mixseek import (
    AgentExecutorConfig,
    EvaluatorSettings,
    FunctionExecutorConfig,
    JudgmentSettings,
    LeaderAgentConfig,
    MemberAgentConfig,
    Mixseek,
    OrchestratorSettings,
    TeamConfig,
    WorkflowConfig,
    WorkflowStep,
)

TASK = "Propose three ways to cut a household's energy use."


def says(text: str) -> FunctionModel:
    """A scripted model that always answers `text`."""
    return FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart(text)]))


def delegating_leader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A selective leader: it asks its first member, then writes the submission."""
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart(info.function_tools[0].name, {"task": TASK})])
    return ModelResponse(parts=[TextPart("Insulate the loft.")])


def scoring_judge(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The evaluator's metrics: 20 points, plus 25 for each idea the submission covers."""
    prompt = " ".join(str(p.content) for p in messages[0].parts if isinstance(p, UserPromptPart)).lower()
    ideas = [idea for idea in ("insulate", "seal", "standby") if idea in prompt]
    score = {"score": 20 + 25 * len(ideas), "comment": f"covers {', '.join(ideas)}"}
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, score)])


# Function executors receive the step's input document (a dict) and return text.
def power_draft(document: dict[str, Any]) -> str:
    facts = document["previous_steps"][0]["results"][0]["content"]
    return "Switch off standby power." if "standby" in facts else "Unplug what you do not use."


async def edit(document: dict[str, Any]) -> str:
    drafts = document["previous_steps"][-1]["results"]
    return " ".join(draft["content"] for draft in drafts if draft["status"] == "SUCCESS")


def member(name: str, answer: str) -> MemberAgentConfig:
    return MemberAgentConfig(
        agent_name=name, agent_type="plain", tool_description=f"The {name}.", model=says(answer)
    )


teams = [
    TeamConfig(  # the leader calls the members it chooses, as tools
        team_id="selective",
        team_name="Selective",
        leader=LeaderAgentConfig(model=FunctionModel(delegating_leader)),
        members=[member("analyst", "Loft insulation saves the most.")],
    ),
    TeamConfig(  # every member answers first, then the leader writes from their answers
        team_id="broadcast",
        team_name="Broadcast",
        member_dispatch="broadcast",
        leader=LeaderAgentConfig(model=says("Insulate the loft and seal the draughts.")),
        members=[member("builder", "Insulate the loft."), member("plumber", "Seal the draughts.")],
    ),
    TeamConfig(  # research -> two drafts at once -> an editor
        team_id="workflow",
        team_name="Workflow",
        workflow=WorkflowConfig(
            steps=[
                WorkflowStep(
                    id="research",
                    executors=[
                        AgentExecutorConfig(name="researcher", model=says("insulation, draughts, standby"))
                    ],
                ),
                WorkflowStep(
                    id="draft",
                    continue_on_failure=True,  # a failed draft is passed on; the editor uses the rest
                    executors=[
                        AgentExecutorConfig(
                            name="heat", model=says("Insulate the loft and seal the draughts.")
                        ),
                        FunctionExecutorConfig(name="power", function=power_draft),
                    ],
                ),
                WorkflowStep(id="edit", executors=[FunctionExecutorConfig(name="editor", function=edit)]),
            ]
        ),
    ),
]

mx = Mixseek(
    teams,
    orchestrator=OrchestratorSettings(max_rounds=2, min_rounds=2),
    evaluator=EvaluatorSettings(model=FunctionModel(scoring_judge)),
    judgment=JudgmentSettings(model="test"),  # not called: min_rounds = max_rounds
)
result = mx.run_sync(TASK)

kinds = {team.team_id: team.kind for team in teams}
winner = result.winner
assert winner is not None  # None only when every team failed
print(f"winner: {winner.team_name} (round {winner.round_number}): {winner.content}")
for place, entry in enumerate(result.leaderboard, start=1):
    print(f"{place}. {entry.team_name} [{kinds[entry.team_id]}]: best {entry.max_score:.1f}")
