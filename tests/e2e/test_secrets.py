"""A provider that echoes the API key: the key reaches no output, no log and no row of the store."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from pydantic_ai import models
from typer.testing import CliRunner

from fake_openai import fake_openai, write_fake_workspace
from mixseek.cli.app import app

KEY = "sk-test-SECRETVALUE123"
# what must not appear, down to a prefix a cropped table cell would show
FRAGMENT = "SECRETVALUE"
REDACTED = "[REDACTED:OPENAI_API_KEY]"


@pytest.fixture(autouse=True)
def _local_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake provider listens on 127.0.0.1: these tests may send it requests."""
    monkeypatch.setattr(models, "ALLOW_MODEL_REQUESTS", True)


def text_cells(db: Path) -> list[tuple[str, str, str]]:
    """(table, column, value) of every non-null text or JSON value in the store."""
    conn = duckdb.connect(str(db), read_only=True)
    try:
        columns = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE data_type IN ('VARCHAR', 'JSON') ORDER BY ALL"
        ).fetchall()
        cells = []
        for table, column in columns:
            query = f'SELECT CAST("{column}" AS VARCHAR) FROM "{table}" WHERE "{column}" IS NOT NULL'
            cells += [(table, column, value) for (value,) in conn.execute(query).fetchall()]
        return cells
    finally:
        conn.close()


def run_exec(tmp_path: Path, output_format: str, **server_options: bool) -> tuple[str, Path]:
    """`mixseek exec` against the echoing provider; everything it wrote or printed, and the store."""
    ws = write_fake_workspace(tmp_path / "ws", max_rounds=2, max_retries=1)
    with fake_openai(echo_auth=True, **server_options) as server:
        env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": KEY}
        result = CliRunner().invoke(app, ["exec", "調べて", "-w", str(ws), "-f", output_format], env=env)
        assert all(request["_auth"] == f"Bearer {KEY}" for request in server.requests)
    assert "Traceback" not in result.output
    logs = [*sorted((ws / "logs").glob("*.jsonl")), ws / "logs" / "mixseek.log"]
    written = "\n".join(path.read_text(encoding="utf-8") for path in logs)
    return "\n".join([result.stdout, result.stderr, written]), ws / "mixseek.db"


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_key_echoed_in_answers_is_redacted_everywhere(tmp_path: Path, output_format: str) -> None:
    printed_and_logged, db = run_exec(tmp_path, output_format)
    cells = text_cells(db)
    assert [cell for cell in cells if FRAGMENT in cell[2]] == []
    assert FRAGMENT not in printed_and_logged
    # the echo did happen: the answers were stored and printed with the key replaced
    redacted = {(table, column) for table, column, value in cells if REDACTED in value}
    assert {("leader_board", "submission_content"), ("round_history", "message_history")} <= redacted
    assert ("round_status", "judgment_reasoning") in redacted  # the judgment ran (max_rounds = 2)
    assert REDACTED in printed_and_logged


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_key_echoed_in_error_responses_is_redacted_everywhere(tmp_path: Path, output_format: str) -> None:
    printed_and_logged, db = run_exec(tmp_path, output_format, fail_always=True)
    cells = text_cells(db)
    assert [cell for cell in cells if FRAGMENT in cell[2]] == []
    assert FRAGMENT not in printed_and_logged
    errors = [value for table, column, value in cells if (table, column) == ("round_status", "error_message")]
    assert len(errors) == 1 and REDACTED in errors[0]
    assert REDACTED in printed_and_logged
