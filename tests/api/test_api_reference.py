"""`Mixseek.run(..., reference=)`: stored with the execution, scored by the reference metrics,
read back by `resume`, and never in a team's prompt."""

from __future__ import annotations

from pathlib import Path

import pytest
from api_world import scripted_mixseek

from e2e.scripted import World
from mixseek import EvaluatorSettings, Mixseek, MixseekError
from mixseek.orchestrator.events import TeamRoundFinished
from mixseek.storage import AggregationStore

SECRET = "secretkey"
REFERENCE = f"alpha answer {SECRET}"


def similarity_mixseek(world: World, workspace: Path) -> Mixseek:
    evaluator = EvaluatorSettings(model="script:none", metrics=[{"name": "reference_similarity"}])  # type: ignore[list-item]
    return scripted_mixseek(world, workspace=workspace, evaluator=evaluator)


async def test_reference_scores_and_survives_a_resume_without_reaching_the_teams(tmp_path: Path) -> None:
    world = World()
    mx = similarity_mixseek(world, tmp_path / "ws")
    async with mx.iter("課題", reference=REFERENCE) as execution:
        async for event in execution:
            if isinstance(event, TeamRoundFinished):
                break
    store = AggregationStore(tmp_path / "ws" / "mixseek.db")
    record = await store.get_execution(execution.execution_id)
    assert record is not None and (record.status, record.reference) == ("interrupted", REFERENCE)

    result = await mx.resume(execution.execution_id)  # scores round 2 with the stored reference
    assert result.status == "completed"
    board = await store.get_leader_board(execution.execution_id)
    # alpha "alpha answer vN (member did round N)": F1 of 2/7 and 2/3 = 0.4; beta "beta answer vN": 1/3
    assert sorted((r.team_id, r.round_number, r.score_details) for r in board) == [
        ("alpha", n, {"reference_similarity": {"score": 40.0, "comment": ALPHA}}) for n in (1, 2)
    ] + [("beta", n, {"reference_similarity": {"score": 33.33, "comment": BETA}}) for n in (1, 2)]
    assert [(r.team_id, r.max_score) for r in result.leaderboard] == [
        ("alpha", 40.0),
        ("beta", 33.3333),  # the overall score is kept to 4 decimals
    ]
    assert len(world.team_prompts) == 4
    assert not [p for p in world.team_prompts.values() if SECRET in p]


ALPHA = (
    "token F1 0.400: 2 tokens in common; precision 0.286 (2/7 of the submission's), "
    "recall 0.667 (2/3 of the reference's)"
)
BETA = (
    "token F1 0.333: 1 tokens in common; precision 0.333 (1/3 of the submission's), "
    "recall 0.333 (1/3 of the reference's)"
)


async def test_a_metric_needing_a_reference_refuses_to_start_without_one(tmp_path: Path) -> None:
    world = World()
    mx = similarity_mixseek(world, tmp_path / "ws")
    with pytest.raises(
        MixseekError, match=r"^--reference: metric 'reference_similarity' compares submissions"
    ):
        await mx.run("課題")
    with pytest.raises(
        MixseekError, match=r"^resume: give only the execution to resume \(it keeps its prompt"
    ):
        async with mx.iter(resume="x", reference="r"):
            pass
    assert world.calls == 0
    assert await AggregationStore(tmp_path / "ws" / "mixseek.db").list_executions() == []
