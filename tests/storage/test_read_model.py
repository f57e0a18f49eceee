"""The typed read model over a real DuckDB file: one scripted execution through the CLI, and a
hand-made one whose owner died (read as interrupted, its standings derived from its rows)."""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mixseek.orchestrator.models as orchestrator_models
import mixseek.storage.models as storage_models
from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models
from mixseek.storage import (
    AggregationStore,
    BestSubmission,
    ExecutionOverview,
    ExecutionView,
    MemberAnswer,
    MemberCounts,
    MetricScore,
    RankingEntry,
    RoundJudgment,
    RoundRecord,
    Store,
    UsageTotals,
)
from mixseek.storage.lease import ExecutionOwner
from mixseek.storage.models import RoundDecision, RoundKey

DEAD = "owner-died-1"
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
# team -> [(round, score, should_continue, exit_reason, confidence)] of the scripted run
ROUNDS = {
    "gamma": [
        (1, 50.0, True, None, 0.8),
        (2, 75.0, True, None, 0.8),
        (3, 78.0, True, None, 0.8),
        (4, 99.0, False, "max_rounds", None),
    ],
    "alpha": [(1, 60.0, True, None, 0.8), (2, 75.0, True, None, 0.8), (3, 80.0, False, "judgment", 0.8)],
    "beta": [(1, 70.0, True, None, 0.8), (2, 72.0, False, "judgment", 0.8)],
}


@dataclass(frozen=True)
class Stored:
    db: Path
    execution_id: str


def dead_owner() -> ExecutionOwner:
    """An owner whose process has ended and been reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return ExecutionOwner(child.pid, socket.gethostname(), secrets.token_hex(16), None)


def _round(team: str, number: int, score: float, **fields: object) -> RoundRecord:
    return RoundRecord(
        execution_id=DEAD,
        team_id=team,
        team_name=team.upper(),
        round_number=number,
        submission_content=f"{team} {number}",
        evaluation_score=score,
        score_details={"style": {"score": score, "comment": "fine"}, "legacy": score},
        started_at=T0,
        ended_at=T0,
        **fields,
    )


async def _owner_died(db: Path) -> None:
    """Team a stopped after round 1; b's round 1 failed; c goes on (its round 2 never started)."""
    async with AggregationStore(db) as store:
        await store.create_execution(DEAD, "p", {}, owner=dead_owner())
        answers = {
            "team_id": "a",
            "team_name": "A",
            "round_number": 1,
            "submissions": [
                {"agent_name": "m1", "agent_type": "plain", "content": "ok", "status": "SUCCESS"},
                {"agent_name": "m2", "content": "", "status": "ERROR", "error_message": "boom"},
            ],
        }
        await store.save_round(
            _round("a", 1, 40.0, member_submissions_record=answers),
            model_calls=[{"site": "leader of team 'a'", "model": "m", "input_tokens": 7, "output_tokens": 3}],
        )
        await store.update_judgment(
            RoundKey(DEAD, "a", 1),
            RoundDecision(should_continue=False, reason="judgment", reasoning="enough", confidence=0.9),
        )
        await store.mark_round_started(RoundKey(DEAD, "b", 1), started_at=T0)
        await store.mark_round_failed(RoundKey(DEAD, "b", 1), "failed", "leader crashed", ended_at=T0)
        await store.save_round(_round("c", 1, 55.0))
        await store.update_judgment(
            RoundKey(DEAD, "c", 1),
            RoundDecision(should_continue=True, reason="judgment", reasoning="go on", confidence=0.5),
        )


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("MIXSEEK_WORKSPACE", raising=False)
        ws = write_workspace(tmp_path_factory.mktemp("read-model") / "ws")
        with override_models(World().models()):
            result = CliRunner().invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
        assert result.exit_code == 0, result.output
        asyncio.run(_owner_died(ws / "mixseek.db"))
    return Stored(ws / "mixseek.db", json.loads(result.stdout)["execution_id"])


def read_view(db: Path, execution_id: str) -> ExecutionView | None:
    async def read() -> ExecutionView | None:
        async with AggregationStore(db, read_only=True) as store:
            return await store.get_execution_view(execution_id)

    return asyncio.run(read())


def test_a_finished_execution_reads_as_typed_values(stored: Stored) -> None:
    view = read_view(stored.db, stored.execution_id)
    assert view is not None
    assert (view.status, view.stop_reason, view.stop_detail, view.rounds_run) == (
        "completed",
        "finished",
        None,
        4,
    )
    assert (view.degraded, view.degraded_reasons) == (False, [])
    assert view.leaderboard == [
        RankingEntry(team_id="gamma", team_name="Gamma", max_score=99.0, total_rounds=4),
        RankingEntry(team_id="alpha", team_name="Alpha", max_score=80.0, total_rounds=3),
        RankingEntry(team_id="beta", team_name="Beta", max_score=72.0, total_rounds=2),
    ]
    assert view.best == BestSubmission(
        team_id="gamma",
        team_name="Gamma",
        round_number=4,
        score=99.0,
        content="gamma answer v4 (member did round 4)",
    )
    assert view.usage == UsageTotals(requests=58, input_tokens=3480, output_tokens=549)
    assert view.cost_usd is None
    assert view.usage_by_site["judgment"].requests == 8
    assert sum(u.requests for u in view.usage_by_model.values()) == 58
    assert view.usage_by_model["script:judgment"].requests == 8

    assert [(t.team_id, t.position, t.status, t.rounds_completed, t.best_round) for t in view.teams] == [
        ("gamma", 1, "completed", 4, 4),
        ("alpha", 2, "completed", 3, 3),
        ("beta", 3, "completed", 2, 2),
    ]
    for team in view.teams:
        assert [
            (
                r.round_number,
                r.score,
                r.judgment.should_continue,
                r.judgment.exit_reason,
                r.judgment.confidence,
            )
            for r in team.rounds
        ] == ROUNDS[team.team_id]
        members = 0 if team.team_id == "beta" else 1
        for r in team.rounds:
            comment = f"{team.team_id} answer v{r.round_number} ok"
            assert r.metrics["coverage"] == MetricScore(score=r.score, comment=comment)
            assert r.members == MemberCounts(total=members, succeeded=members, failed=0)
            assert [(m.agent_name, m.agent_type, m.status, m.content) for m in r.member_submissions] == (
                [("helper", "plain", "SUCCESS", f"member did round {r.round_number}")] if members else []
            )
            assert all(m.timestamp is not None and m.usage["requests"] == 1 for m in r.member_submissions)
            assert r.usage is not None and r.usage["evaluation"]["requests"] == 3
            assert r.started_at is not None and r.ended_at is not None and r.started_at <= r.ended_at


def test_the_ranking_entries_dump_to_the_seed_dicts(stored: Stored) -> None:
    async def read() -> tuple[list[RankingEntry], list[dict[str, object]]]:
        async with AggregationStore(stored.db, read_only=True) as store:
            eid = stored.execution_id
            return await store.get_ranking(eid), await store.get_leader_board_ranking(eid)

    typed, seed = asyncio.run(read())
    assert [entry.model_dump() for entry in typed] == seed
    assert seed[0] == {"team_id": "gamma", "team_name": "Gamma", "max_score": 99.0, "total_rounds": 4}


def test_a_dead_owners_execution_is_interrupted_with_standings_from_its_rows(stored: Stored) -> None:
    view = read_view(stored.db, DEAD)
    assert view is not None
    assert (view.status, view.stop_reason, view.rounds_run, view.degraded_reasons) == (
        "interrupted",
        None,
        1,
        [],
    )
    assert view.ended_at is not None and view.ended_at >= view.started_at
    assert [e.team_id for e in view.leaderboard] == ["c", "a"]
    c, a, b = view.teams  # ranked first, best first; then the others
    assert (a.team_id, a.position, a.status, a.exit_reason, a.best_round, a.best_score) == (
        "a",
        2,
        "stopped",
        "judgment",
        1,
        40.0,
    )
    assert (c.team_id, c.position, c.status, c.exit_reason) == ("c", 1, "interrupted", None)
    assert (b.team_id, b.team_name, b.position, b.status, b.rounds_completed, b.error) == (
        "b",
        "b",
        None,
        "failed",
        0,
        "leader crashed",
    )
    (failed,) = b.rounds
    assert (failed.status, failed.score, failed.error, failed.judgment) == (
        "failed",
        None,
        "leader crashed",
        RoundJudgment(),
    )
    (first,) = a.rounds
    assert first.metrics == {
        "style": MetricScore(score=40.0, comment="fine"),
        "legacy": MetricScore(score=40.0),
    }
    assert first.judgment == RoundJudgment(
        should_continue=False, exit_reason="judgment", reasoning="enough", confidence=0.9
    )
    assert first.members == MemberCounts(total=2, succeeded=1, failed=1)
    assert first.member_submissions[1] == MemberAnswer(
        agent_name="m2", content="", status="ERROR", error_message="boom"
    )
    assert view.best is not None and (view.best.team_id, view.best.content) == ("c", "c 1")
    assert view.usage == UsageTotals(requests=1, input_tokens=7, output_tokens=3)


def test_documents_keep_the_stored_member_answers_as_stored(stored: Stored) -> None:
    view = read_view(stored.db, DEAD)
    assert view is not None
    full = view.document()
    assert [t["team_id"] for t in full["teams"]] == ["c", "a", "b"]
    answers = full["teams"][1]["rounds"][0]["member_submissions"]
    assert answers == [
        {"agent_name": "m1", "agent_type": "plain", "content": "ok", "status": "SUCCESS"},
        {"agent_name": "m2", "content": "", "status": "ERROR", "error_message": "boom"},
    ]
    assert full["started_at"] == view.started_at.isoformat()
    assert "cost" not in full["usage"]
    shown = view.document(details=False)
    for key in ("submission", "submission_format", "member_submissions", "usage"):
        assert key not in shown["teams"][1]["rounds"][0]
    assert shown["usage"] == full["usage"]


def test_unknown_execution_reads_as_none(stored: Stored) -> None:
    assert read_view(stored.db, "nope") is None


def test_overviews_newest_first_from_summary_or_rows(stored: Stored) -> None:
    async def read() -> list[ExecutionOverview]:
        async with AggregationStore(stored.db, read_only=True) as store:
            return await store.list_execution_overviews(10)

    dead, finished = asyncio.run(read())  # the dead owner's execution started later
    assert (
        dead.execution_id,
        dead.status,
        dead.best_team,
        dead.best_score,
        dead.rounds_run,
        dead.total_tokens,
    ) == (
        DEAD,
        "interrupted",
        "c",
        55.0,
        1,
        10,
    )
    assert (finished.execution_id, finished.status, finished.best_team, finished.rounds_run) == (
        stored.execution_id,
        "completed",
        "gamma",
        4,
    )
    assert finished.total_tokens == 3480 + 549


async def test_the_duckdb_store_is_a_store(tmp_path: Path) -> None:
    store: Store = AggregationStore(tmp_path / "mixseek.db")  # checked by mypy, too
    assert isinstance(store, Store)
    assert store.location == str(tmp_path / "mixseek.db")
    await store.aclose()


def test_execution_status_is_defined_once() -> None:
    assert orchestrator_models.ExecutionStatus is storage_models.ExecutionStatus
    assert orchestrator_models.StopReason is storage_models.StopReason


async def test_a_summary_of_another_form_is_not_trusted(store: AggregationStore) -> None:
    """A summary this version cannot read (another program's, a damaged one): the rows tell."""
    await store.create_execution("odd", "p", {})
    await store.save_round(_round("a", 1, 30.0).model_copy(update={"execution_id": "odd"}))
    await store.finish_execution("odd", "completed", {"best": 0, "teams": "x"})
    view = await store.get_execution_view("odd")
    assert view is not None
    assert (view.status, view.stop_reason, view.rounds_run) == ("completed", None, 1)
    assert [(t.team_id, t.status, t.best_score) for t in view.teams] == [("a", "completed", 30.0)]
    assert view.best is not None and view.best.content == "a 1"
    (overview,) = await store.list_execution_overviews()
    assert (overview.best_team, overview.best_score, overview.rounds_run) == ("a", 30.0, 1)


async def test_an_imported_answer_with_an_odd_value_still_reads(store: AggregationStore) -> None:
    """A member answer from another program with a value of another type: shown without it."""
    await store.create_execution("imported", "p", {})
    odd = {"agent_name": "x", "status": "SUCCESS", "content": "hi", "timestamp": "last tuesday"}
    record = {"team_id": "a", "team_name": "A", "round_number": 1, "submissions": [odd]}
    await store.save_round(
        _round("a", 1, 30.0).model_copy(
            update={"execution_id": "imported", "member_submissions_record": record}
        )
    )
    view = await store.get_execution_view("imported")
    assert view is not None
    (answer,) = view.teams[0].rounds[0].member_submissions
    assert (answer.agent_name, answer.content, answer.succeeded, answer.timestamp) == ("x", "hi", True, None)
    assert view.document()["teams"][0]["rounds"][0]["member_submissions"] == [
        {"agent_name": "x", "status": "SUCCESS", "content": "hi"}
    ]
