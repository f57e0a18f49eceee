"""The pairwise stage from the Python API, with every model given as an object in code."""

from __future__ import annotations

from pairwise_script import ScriptedJudge, prefers

from e2e.scripted import World
from mixseek import (
    EvaluatorSettings,
    JudgmentSettings,
    Mixseek,
    OrchestratorSettings,
    PairwiseCompared,
    PairwiseSettings,
    TeamConfig,
)


async def test_mixseek_runs_the_stage_and_returns_its_ranking() -> None:
    world = World()
    judge = ScriptedJudge(prefers(["beta", "alpha"]))
    mx = Mixseek(
        [
            TeamConfig(team_id=team, team_name=team.title(), leader={"model": world.leader(team)})
            for team in ("alpha", "beta")
        ],
        orchestrator=OrchestratorSettings(max_rounds=1),
        evaluator=EvaluatorSettings(model=world.metric(), metrics=[{"name": "relevance"}]),
        judgment=JudgmentSettings(model=world.judgment()),
        pairwise=PairwiseSettings(enabled=True, model=judge.model(), bootstrap_samples=50),
    )
    assert mx.pairwise.enabled
    async with mx.iter("最良の回答を") as execution:
        events = [event async for event in execution]
    summary = execution.result
    assert [e.team_id for e in summary.leaderboard] == ["beta", "alpha"]  # beta 70, alpha 60
    assert summary.pairwise is not None
    assert summary.pairwise.model == "FunctionModel"
    assert [(s.team_id, s.wins, s.score_rank) for s in summary.pairwise.ranking] == [
        ("beta", 1.0, 1),
        ("alpha", 0.0, 2),
    ]
    assert [(e.team_a, e.team_b, e.winner) for e in events if isinstance(e, PairwiseCompared)] == [
        ("beta", "alpha", "beta")
    ]
    assert sorted(judge.shown) == [("alpha", "beta"), ("beta", "alpha")]
