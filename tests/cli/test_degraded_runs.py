"""A run whose judgments failed is `completed` but degraded: said in the summary, the JSON and exit 1."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typer.testing import CliRunner

from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models
from scripting import first_user_text

ALL_FAILED = "every judgment failed (3 of 3); each team stopped without a verdict"


def judgment_failing_for(*teams: str) -> dict[str, Model]:
    models = World().models()
    judge = models["script:judgment"]
    assert isinstance(judge, FunctionModel) and judge.function is not None
    inner = judge.function

    async def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if any(f"あなたの提出内容: {team} answer" in first_user_text(messages) for team in teams):
            raise RuntimeError("the judge is down")
        return await inner(messages, info)  # type: ignore[misc]

    models["script:judgment"] = FunctionModel(fn, model_name="judgment")
    return models


def exec_run(runner: CliRunner, ws: Path, models: dict[str, Model], *args: str) -> tuple[int, str]:
    with override_models(models):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout


def test_every_judgment_failed_is_degraded_with_exit_1(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=3)
    code, stdout = exec_run(runner, ws, judgment_failing_for("alpha", "beta", "gamma"), "-f", "json")
    summary = json.loads(stdout)
    assert code == 1
    assert (summary["status"], summary["degraded"], summary["degraded_reasons"]) == (
        "completed",
        True,
        [ALL_FAILED],
    )
    assert {t["team_id"]: t["exit_reason"] for t in summary["teams"]} == dict.fromkeys(
        ("alpha", "beta", "gamma"), "judgment_failed"
    )

    shown = runner.invoke(app, ["runs", "show", summary["execution_id"], "-w", str(ws)])
    assert shown.stdout.splitlines()[0] == (
        f"execution {summary['execution_id']}: completed (finished) — degraded: {ALL_FAILED}"
    )


def test_text_summary_says_degraded(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    code, stdout = exec_run(runner, ws, judgment_failing_for("beta"))
    assert code == 1
    assert stdout.splitlines()[-1] == "degraded: 1 of 3 judgments failed"


def test_a_clean_run_is_not_degraded(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=2)
    code, stdout = exec_run(runner, ws, World().models(), "-f", "json")
    summary = json.loads(stdout)
    assert (code, summary["status"], summary["degraded"], summary["degraded_reasons"]) == (
        0,
        "completed",
        False,
        [],
    )
