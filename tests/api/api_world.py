"""Teams, evaluator and judgment written in code, whose models are the scripted `World`'s
`FunctionModel` objects (no `override_models`: the objects are the models)."""

from __future__ import annotations

from pathlib import Path

from e2e.scripted import World
from mixseek import (
    EvaluatorSettings,
    JudgmentSettings,
    LeaderAgentConfig,
    MemberAgentConfig,
    Mixseek,
    OrchestratorSettings,
    TeamConfig,
)

# World.SCORES: alpha 60 then 75, beta 70 then 72; both judged to go on after round 1
ROUNDS = 2


def scripted_mixseek(
    world: World,
    *,
    workspace: Path | None = None,
    max_rounds: int = ROUNDS,
    evaluator: EvaluatorSettings | None = None,
) -> Mixseek:
    helper = MemberAgentConfig(
        agent_name="helper", agent_type="plain", tool_description="手伝う", model=world.member()
    )
    metric = world.metric()
    return Mixseek(
        [
            TeamConfig(
                team_id="alpha",
                team_name="Alpha",
                leader=LeaderAgentConfig(model=world.leader("alpha")),
                members=[helper],
            ),
            TeamConfig(
                team_id="beta", team_name="Beta", leader=LeaderAgentConfig(model=world.leader("beta"))
            ),
        ],
        orchestrator=OrchestratorSettings(max_rounds=max_rounds, retry_base_delay_seconds=0.01),
        evaluator=evaluator or EvaluatorSettings(model=metric),
        judgment=JudgmentSettings(model=world.judgment()),
        workspace=workspace,
    )
