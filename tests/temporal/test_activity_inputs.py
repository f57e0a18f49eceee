"""What a team round carries to its worker: its own team's history, and no ranking. Judgments
are the workflow's own, made by the `mixseek exec` process: no worker gets one.

Every activity input stays in the workflow's history, and a round's inputs all go to the server
in one message: with every team's history in each, both grew as T² (64 teams already passed
gRPC's 4 MB limit and the server terminated the workflow); with the ranking in each, as T² too
(256 teams passed it). The worker asks the workflow for the ranking once per round instead.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from e2e.db import rows
from e2e.scripted import write_workspace

from .cluster import exec_with_worker, mixseek
from .history import events, local_activities, scheduled

EXECUTION_ID = "activity-inputs-1"
RANKING_SECTION = re.compile(r"# 現在のチームランキング\n(.*?)\n\n# 今回のラウンドの目標", re.S)


def _ranking_sections(db: Path) -> dict[tuple[str, int], str | None]:
    """The ranking each team's leader was shown in its round prompt (none in round 1), as stored
    with its messages."""
    shown = {}
    for team, number, messages in rows(
        db, "SELECT team_id, round_number, message_history::TEXT FROM round_history ORDER BY 1, 2"
    ):
        prompt = json.loads(str(messages))[0]["parts"][0]["content"]
        found = RANKING_SECTION.search(prompt)
        shown[(str(team), int(str(number)))] = None if found is None else found.group(1)
    return shown


def test_team_rounds_carry_their_own_history_and_no_ranking_and_judgments_stay_in_exec(
    tmp_path: Path, temporal_address: str
) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    done = exec_with_worker(
        ws, temporal_address, "最良の回答を", "-f", "json", "--execution-id", EXECUTION_ID
    )
    assert done.returncode == 0, done.stderr

    history = events(temporal_address, EXECUTION_ID)
    inputs = [(kind, p) for kind, _, p in scheduled(history) if kind != "store_finish"]
    teams = {"alpha", "beta", "gamma"}
    carried = {(kind, p["team_id"], p["round_number"]): set(p["snapshot"]["histories"]) for kind, p in inputs}
    assert all(histories <= {team} for (_, team, _), histories in carried.items())
    assert {kind for kind, _ in inputs} == {"team_round"}
    # each round's judgments: one local activity (one marker) for all its teams
    judged = [aid for kind, aid in local_activities(history) if kind.startswith("store_judge")]
    assert judged == ["store-r1-judgments", "store-r2-judgments"]
    # round 2 starts from round 1's board: each team gets its own round 1, not the others'
    assert {key: h for key, h in carried.items() if key[0] == "team_round" and key[2] == 2} == {
        ("team_round", team, 2): {team} for team in teams
    }
    # ... and no ranking: the worker asks the workflow for it
    assert all(p["snapshot"]["ranking"] == [] for _, p in inputs)

    # the prompts still show every team's ranking, as the local engine's do
    local_ws = write_workspace(tmp_path / "local", max_rounds=2)
    local = mixseek("exec", "最良の回答を", "-w", str(local_ws), "-f", "json")
    assert local.returncode == 0, local.stderr
    shown = _ranking_sections(ws / "mixseek.db")
    assert shown == _ranking_sections(local_ws / "mixseek.db")
    assert len(shown) == 6 and all(shown[(team, 1)] is None for team in teams)
    alpha = shown[("alpha", 2)]
    assert alpha is not None and "#1 Beta - スコア: 70.00/100 (ラウンド数: 1)" in alpha
    assert "**#2 Alpha (あなたのチーム) - スコア: 60.00/100 (ラウンド数: 1)**" in alpha
    assert all("#3 Gamma" in str(shown[(team, 2)]) for team in teams)
