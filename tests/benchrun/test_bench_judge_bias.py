"""`mixseek bench` pools each pairwise judge's bias over the bench's executions: a judge that always
picks the submission shown first flips every verdict in every run (3 tasks × 3 pairs = 9 of 9)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import Result
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typer.testing import CliRunner

from benchrun.world import TASKS_JSONL, BenchWorld, write_bench_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models

LINE = "judge script:pairwise: verdict flipped with the order 9 of 9 (100%, 95% CI 70%–100%)"


def always_first(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(
        parts=[ToolCallPart(info.output_tools[0].name, {"winner": "A", "reasoning": "first"})]
    )


def bench(ws: Path, *args: str) -> Result:
    models = {**BenchWorld().models(), "script:pairwise": FunctionModel(always_first, model_name="first")}
    with override_models(models):
        return CliRunner().invoke(app, ["bench", str(ws / "tasks.jsonl"), "-w", str(ws), *args])


def test_bench_reports_the_pooled_flip_rate_of_its_judge(tmp_path: Path) -> None:
    ws = write_bench_workspace(tmp_path / "ws")
    (ws / "configs" / "pairwise.toml").write_text(
        '[pairwise]\nenabled = true\nmodel = "script:pairwise"\nbootstrap_samples = 20\n', encoding="utf-8"
    )
    (ws / "tasks.jsonl").write_text(TASKS_JSONL, encoding="utf-8")
    result = bench(ws, "-f", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    flips = report["judge_bias"]["script:pairwise"]["flips"]
    assert (flips["k"], flips["n"], flips["rate"]) == (9, 9, 1.0)
    assert flips["low"] < 1.0 <= flips["high"]
    bench_id = result.stderr.splitlines()[0].split()[1].rstrip(":")
    for fmt, shown in (("text", LINE), ("markdown", f"## Judge bias\n\n- {LINE}"), ("html", f"<li>{LINE}")):
        result = bench(ws, "--resume", bench_id, "-f", fmt)
        assert result.exit_code == 0, result.output
        assert shown in result.stdout, fmt
