"""Helpers shared by the storage tests."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb

from mixseek.storage import RoundRecord

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


def started(round_number: int) -> datetime:
    return T0 + timedelta(minutes=10 * round_number)


def ended(round_number: int) -> datetime:
    return started(round_number) + timedelta(minutes=5)


def record(
    team_id: str = "team-a",
    round_number: int = 1,
    score: float = 50.0,
    *,
    execution_id: str = "exec-1",
    team_name: str | None = None,
    **overrides: Any,
) -> RoundRecord:
    fields: dict[str, Any] = {
        "execution_id": execution_id,
        "team_id": team_id,
        "team_name": team_name or f"Team {team_id}",
        "round_number": round_number,
        "submission_content": f"{team_id} submission {round_number}",
        "evaluation_score": score,
        "evaluation_feedback": f"feedback {team_id} {round_number}",
        "score_details": {"clarity": score},
        "usage_info": {"requests": round_number},
        "message_history": f'[{{"kind": "request", "round": {round_number}}}]',
        "member_submissions_record": {"team_id": team_id, "submissions": []},
        "started_at": started(round_number),
        "ended_at": ended(round_number),
    }
    fields.update(overrides)
    return RoundRecord(**fields)


def unchecked_record(**fields: Any) -> RoundRecord:
    """A record that skips pydantic validation, to reach the database's own constraints."""
    valid = record().model_dump()
    valid.update(fields)
    return RoundRecord.model_construct(**valid)


def count_rows(path: Path, table: str) -> int:
    conn = duckdb.connect(str(path), read_only=True)
    try:
        row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
        assert row is not None
        return int(row[0])
    finally:
        conn.close()


def run_python(code: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run `code` in a separate Python process; fail the test with its stderr if it fails."""
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    assert result.returncode == 0, result.stderr
    return result
