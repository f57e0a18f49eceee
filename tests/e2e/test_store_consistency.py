"""What another reader sees in the store while an execution runs is consistent."""

from __future__ import annotations

from pathlib import Path

from mixseek.config.bundle import load_execution_config
from mixseek.config.workspace import Workspace
from mixseek.llm import override_models
from mixseek.orchestrator.orchestrator import Orchestrator
from mixseek.storage import AggregationStore, RoundRecord

from .db import rows
from .scripted import World, write_workspace


class UsageAtSave(AggregationStore):
    """Notes, right after each round is saved, how many model requests of that round are stored."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.requests_at_save: dict[tuple[str, int], int] = {}

    async def save_round(self, record: RoundRecord) -> None:
        await super().save_round(record)
        usage = await self.get_usage_totals(
            record.execution_id, team_id=record.team_id, round_number=record.round_number
        )
        self.requests_at_save[(record.team_id, record.round_number)] = usage["requests"]


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
