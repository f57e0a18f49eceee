"""A workspace of four executions for the runs page: two from a scripted `mixseek exec` and two
written through the store (one failed with a known cost, one interrupted), plus a small HTML
table reader."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path

from typer.testing import CliRunner

from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models
from mixseek.storage import AggregationStore, RoundRecord

XSS_PROMPT = "<script>alert(1)</script> essay on <img src=x onerror=alert(2)> cats"
HAIKU_PROMPT = "Write a haiku about autumn"
LONG_PROMPT = "Translate the user manual into plain English, " * 8
INTERRUPTED_PROMPT = "Summarise the meeting notes"
FAILED_ID = "broke-1"
INTERRUPTED_ID = "halted-1"


@dataclass(frozen=True)
class RunsWorld:
    root: Path
    first: str  # scripted, 4 rounds: Gamma 99.0, 4,029 tokens, cost unknown
    second: str  # scripted, 1 round: Beta 70.0
    interrupted: str  # one team DELTA 88.5, 15 tokens, $0.25, 600 s
    failed: str  # no round, 120 tokens, $1.50, 7200 s

    @property
    def newest_first(self) -> list[str]:
        return [self.failed, self.interrupted, self.second, self.first]


def _exec(root: Path, prompt: str) -> str:
    with override_models(World().models()):
        result = CliRunner().invoke(app, ["exec", prompt, "-w", str(root), "-f", "json"])
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["execution_id"])


async def _hand_made(db: Path) -> None:
    async with AggregationStore(db) as store:
        await store.create_execution(INTERRUPTED_ID, INTERRUPTED_PROMPT, {})
        record = await store.get_execution(INTERRUPTED_ID)
        assert record is not None
        start = record.started_at
        await store.save_round(
            RoundRecord(
                execution_id=INTERRUPTED_ID,
                team_id="delta",
                team_name="DELTA",
                round_number=1,
                submission_content="notes",
                evaluation_score=88.5,
                score_details={"relevance": {"score": 88.5, "comment": "good"}},
                started_at=start,
                ended_at=start,
            ),
            model_calls=[
                {
                    "site": "leader of team 'delta'",
                    "model": "m",
                    "input_tokens": 10,
                    "output_tokens": 5,
                    "cost": 0.25,
                }
            ],
        )
        await store.finish_execution(
            INTERRUPTED_ID, "interrupted", None, ended_at=start + timedelta(seconds=600)
        )

        await store.create_execution(FAILED_ID, LONG_PROMPT, {})
        record = await store.get_execution(FAILED_ID)
        assert record is not None
        await store.record_model_calls(
            FAILED_ID,
            [
                {
                    "site": "leader of team 'x'",
                    "model": "m",
                    "input_tokens": 100,
                    "output_tokens": 20,
                    "cost": 1.5,
                }
            ],
        )
        await store.finish_execution(
            FAILED_ID, "failed", None, ended_at=record.started_at + timedelta(hours=2)
        )


def build_runs_world(root: Path) -> RunsWorld:
    ws = write_workspace(root)
    first = _exec(ws, XSS_PROMPT)
    orchestrator = ws / "configs" / "orchestrator.toml"
    orchestrator.write_text(
        re.sub(r"max_rounds = \d+", "max_rounds = 1", orchestrator.read_text(encoding="utf-8")),
        encoding="utf-8",
    )
    second = _exec(ws, HAIKU_PROMPT)
    asyncio.run(_hand_made(ws / "mixseek.db"))
    return RunsWorld(ws, first, second, INTERRUPTED_ID, FAILED_ID)


class _Table(HTMLParser):
    """The rows of `table.runs`: each row's execution id and its cells' text."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, object]] = []
        self._in_table = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "table" and "runs" in (attributes.get("class") or "").split():
            self._in_table = True
        elif self._in_table and tag == "tr" and attributes.get("data-execution-id"):
            self.rows.append({"id": attributes["data-execution-id"], "cells": [], "links": [], "titles": []})
        elif self._in_table and self.rows and tag == "td":
            self._cell = []
            self.rows[-1]["titles"].append(attributes.get("title"))  # type: ignore[attr-defined]
        elif self._cell is not None and tag == "a":
            self.rows[-1]["links"].append(attributes.get("href"))  # type: ignore[attr-defined]

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None:
            self.rows[-1]["cells"].append(" ".join("".join(self._cell).split()))  # type: ignore[attr-defined]
            self._cell = None
        elif tag == "table":
            self._in_table = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


COLUMNS = [
    "execution",
    "status",
    "prompt",
    "teams",
    "rounds",
    "best score",
    "best team",
    "tokens",
    "cost",
    "duration",
    "started",
]


def table_rows(html: str) -> list[dict[str, object]]:
    """Each listed execution: {"id", "cells": {column: text}, "links", "titles"}."""
    parser = _Table()
    parser.feed(html)
    return [{**row, "cells": dict(zip(COLUMNS, row["cells"], strict=True))} for row in parser.rows]  # type: ignore[call-overload]


def listed_ids(html: str) -> list[str]:
    return [str(row["id"]) for row in table_rows(html)]
