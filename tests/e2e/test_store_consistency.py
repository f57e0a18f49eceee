"""What another reader sees in the store while an execution runs is consistent."""

from __future__ import annotations

import signal
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from mixseek.config.bundle import load_execution_config
from mixseek.config.workspace import Workspace
from mixseek.llm import override_models
from mixseek.orchestrator.orchestrator import Orchestrator
from mixseek.storage import AggregationStore, RoundRecord

from .db import rows
from .scripted import World, write_workspace
from .test_faults import scripted_cli


class UsageAtSave(AggregationStore):
    """Notes, right after each round is saved, how many model requests of that round are stored."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.requests_at_save: dict[tuple[str, int], int] = {}

    async def save_round(self, record: RoundRecord, *, model_calls: Sequence[Mapping[str, Any]] = ()) -> None:
        await super().save_round(record, model_calls=model_calls)
        usage = await self.get_usage_totals(
            record.execution_id, team_id=record.team_id, round_number=record.round_number
        )
        self.requests_at_save[(record.team_id, record.round_number)] = usage.requests


async def test_a_saved_round_has_its_usage_stored_with_it(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    with override_models(World().models()):
        config = load_execution_config(Workspace(ws), ws / "configs" / "orchestrator.toml")
        store = UsageAtSave(config.workspace.db_path)
        summary = await Orchestrator(config, store=store).run("最良の回答を")

    assert summary.status == "completed"
    # every request of a team round but its judgment (which comes after the save)
    before_judgment = rows(
        ws / "mixseek.db",
        "SELECT team_id, round_number, sum(requests)::INTEGER FROM model_calls "
        "WHERE site <> 'judgment' GROUP BY ALL ORDER BY 1, 2",
    )
    assert sorted((t, r, n) for (t, r), n in store.requests_at_save.items()) == before_judgment
    assert [n for _, _, n in before_judgment] == [6, 6, 4, 4, 6, 6]


# requests behind one saved round of each team: leader (2 with a member), member, 3 metrics
ROUND_REQUESTS = {"alpha": 6, "beta": 4, "gamma": 6}


@pytest.mark.parametrize("killed_in_round", [2, 3])
def test_sigkill_right_after_decisions_loses_no_usage_of_a_stored_result(
    tmp_path: Path, killed_in_round: int
) -> None:
    """Killed at the first model call after the previous round's decisions were stored:
    every stored round has its requests' usage stored, and every stored judgment its own."""
    ws = write_workspace(tmp_path / "ws")
    killed = scripted_cli(
        "exec", "最良の回答を", "-w", str(ws), "-f", "json", env={"SCRIPTED_KILL_AT": f"*:{killed_in_round}"}
    )
    killed.communicate(timeout=120)
    assert killed.returncode == -signal.SIGKILL
    db = ws / "mixseek.db"

    saved = rows(db, "SELECT team_id, round_number FROM leader_board ORDER BY 1, 2")
    judged = rows(
        db,
        "SELECT team_id, round_number FROM round_status WHERE judgment_confidence IS NOT NULL ORDER BY 1, 2",
    )
    assert max(r for _, r in saved) == killed_in_round - 1  # nothing of the next round was stored
    assert judged == saved  # the kill came after every decision of that round

    def requests(where: str) -> list[tuple[object, ...]]:
        return rows(
            db,
            f"SELECT team_id, round_number, sum(requests)::INTEGER FROM model_calls WHERE {where} "
            "GROUP BY ALL ORDER BY 1, 2",
        )

    assert requests("site <> 'judgment'") == [(t, r, ROUND_REQUESTS[str(t)]) for t, r in saved]
    assert requests("site = 'judgment'") == [(t, r, 1) for t, r in judged]
