"""Every kind of team defined in code: a workflow team whose executors are Python functions (and
an agent) competes with a broadcast team in one execution, and the store keeps both alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from e2e.db import rows
from e2e.scripted import World
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
from mixseek.storage.aggregation_store import AggregationStore


def says(text: str) -> FunctionModel:
    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(text)], usage=RequestUsage(input_tokens=3, output_tokens=2))

    return FunctionModel(fn, model_name=f"says-{text.replace(' ', '-')}")


def notes(document: dict[str, Any]) -> str:
    """A sync executor: run in a worker thread."""
    return f"notes on {document['user_prompt']}"


async def edit(document: dict[str, Any]) -> str:
    """An async executor writing the submission from the step before (World scores 'gamma answer vN')."""
    (research,) = document["previous_steps"]
    found = {r["executor"]: r["content"] for r in research["results"]}
    return f"gamma answer v{document['round_number']} ({found['notes']}; {found['scout']})"


def teams(world: World) -> list[TeamConfig]:
    flow = TeamConfig(
        team_id="flow",
        team_name="Flow",
        workflow=WorkflowConfig(
            steps=[
                WorkflowStep(
                    id="research",
                    executors=[
                        FunctionExecutorConfig(name="notes", function=notes),
                        AgentExecutorConfig(name="scout", model=says("scouted")),
                    ],
                ),
                WorkflowStep(id="edit", executors=[FunctionExecutorConfig(name="editor", function=edit)]),
            ]
        ),
    )
    beta = TeamConfig(
        team_id="beta",
        team_name="Beta",
        member_dispatch="broadcast",
        leader=LeaderAgentConfig(model=world.leader("beta")),
        members=[
            MemberAgentConfig(agent_name="a", agent_type="plain", tool_description="a", model=says("idea a")),
            MemberAgentConfig(agent_name="b", agent_type="plain", tool_description="b", model=says("idea b")),
        ],
    )
    return [flow, beta]


def submissions(db: Path, team_id: str, round_number: int) -> list[dict[str, Any]]:
    ((record,),) = rows(
        db,
        "SELECT member_submissions_record FROM round_history "
        f"WHERE team_id = '{team_id}' AND round_number = {round_number}",
    )
    assert isinstance(record, str)
    loaded: list[dict[str, Any]] = json.loads(record)["submissions"]
    return loaded


async def test_a_code_defined_workflow_team_and_a_broadcast_team_compete_and_are_stored_alike(
    tmp_path: Path,
) -> None:
    world = World()
    ws = tmp_path / "ws"
    mx = Mixseek(
        teams(world),
        orchestrator=OrchestratorSettings(max_rounds=2, retry_base_delay_seconds=0.01),
        evaluator=EvaluatorSettings(model=world.metric()),
        judgment=JudgmentSettings(model=world.judgment()),
        workspace=ws,
    )

    result = await mx.run("課題")

    assert result.status == "completed"
    assert result.winner is not None and (result.winner.team_id, result.winner.score) == ("flow", 75.0)
    db = ws / "mixseek.db"
    assert rows(db, "SELECT team_id, round_number, submission_content FROM leader_board ORDER BY 1, 2") == [
        ("beta", 1, "beta answer v1"),
        ("beta", 2, "beta answer v2"),
        ("flow", 1, "gamma answer v1 (notes on 課題; scouted)"),
        ("flow", 2, "gamma answer v2 (notes on 課題; scouted)"),
    ]
    for round_number in (1, 2):
        flow = submissions(db, "flow", round_number)
        beta = submissions(db, "beta", round_number)
        assert [(s["agent_name"], s["agent_type"], s["status"], s["step_id"]) for s in flow] == [
            ("notes", "function", "SUCCESS", "research"),
            ("scout", "plain", "SUCCESS", "research"),
            ("editor", "function", "SUCCESS", "edit"),
        ]
        assert sorted((s["agent_name"], s["content"], s["step_id"]) for s in beta) == [
            ("a", "idea a", None),
            ("b", "idea b", None),
        ]
        assert {tuple(sorted(s)) for s in flow} == {tuple(sorted(s)) for s in beta}  # one shape
    ((config,),) = rows(db, "SELECT config FROM executions")
    assert isinstance(config, str)
    snapshot = json.loads(config)["teams"]
    research = snapshot["flow"]["workflow"]["steps"][0]["executors"]
    assert research[0]["function"] == f"{__name__}:notes"  # a function given in code, by its name
    assert snapshot["beta"]["member_dispatch"] == "broadcast"

    view = await AggregationStore(db, read_only=True).get_execution_view(result.execution_id)
    assert view is not None
    assert {t.team_id: t.kind for t in view.teams} == {"flow": "workflow", "beta": "broadcast"}
    (flow_view,) = [t for t in view.teams if t.team_id == "flow"]
    assert [(a.agent_name, a.step_id) for a in flow_view.rounds[0].member_submissions] == [
        ("notes", "research"),
        ("scout", "research"),
        ("editor", "edit"),
    ]
    assert view.usage_by_site["executor 'scout' of team 'flow'"].requests == 2
