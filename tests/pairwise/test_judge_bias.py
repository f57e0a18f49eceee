"""Judge bias measured on the pairwise stage: scripted judges with planted biases, reported with intervals.

The scripted rounds end with gamma 99, alpha 80, beta 72; alpha and gamma have a member, so their
submissions are longer than beta's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pairwise_script import SHOWN_RE, ScriptedJudge, always_first, pairwise_workspace, prefers
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typer.testing import CliRunner

from e2e.scripted import World
from mixseek.cli.app import app
from mixseek.llm import override_models
from scripting import first_user_text


def run(runner: CliRunner, ws: Path, models: dict[str, Any]) -> tuple[str, str]:
    """Exec with `models`; the execution's id and exec's stderr."""
    with override_models({**World().models(), **models}):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["execution_id"], result.stderr


def shown_bias(runner: CliRunner, ws: Path, execution_id: str) -> dict[str, Any]:
    shown = runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws), "-f", "json"])
    assert shown.exit_code == 0, shown.output
    bias: dict[str, Any] = json.loads(shown.stdout)["pairwise"]["bias"]
    return bias


def prefers_longer() -> FunctionModel:
    """A judge that picks the longer of the two submissions, whatever the teams."""

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        texts = {label: text for label, _, text in SHOWN_RE.findall(first_user_text(messages))}
        a, b = len(texts["A"]), len(texts["B"])
        winner = "A" if a > b else "B" if b > a else "tie"
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, {"winner": winner, "reasoning": "long"})]
        )

    return FunctionModel(fn, model_name="longer")


def test_a_position_judge_flips_every_verdict(tmp_path: Path, runner: CliRunner) -> None:
    ws = pairwise_workspace(tmp_path / "ws", 'schedule = "round_robin"')
    execution_id, _ = run(runner, ws, {"script:pairwise": ScriptedJudge(always_first).model()})
    flips = shown_bias(runner, ws, execution_id)["flips"]
    assert (flips["k"], flips["n"], flips["rate"]) == (3, 3, 1.0)
    assert flips["low"] < 1.0 <= flips["high"]
    assert abs(flips["low"] - 0.438503) < 1e-6  # Wilson, 3 of 3
    # text, Markdown and HTML say it too
    text = runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws)]).stdout
    assert "  judge bias:\n    verdict flipped with the order: 3 of 3 (100%, 95% CI 44%–100%)\n" in text
    markdown = runner.invoke(app, ["runs", "export", execution_id, "-w", str(ws), "--format", "markdown"])
    assert "### Judge bias\n\n- verdict flipped with the order: 3 of 3 (100%, 95% CI 44%–100%)\n" in (
        markdown.stdout
    )
    html = runner.invoke(app, ["runs", "export", execution_id, "-w", str(ws), "--format", "html"]).stdout
    assert "<li>verdict flipped with the order: 3 of 3 (100%, 95% CI 44%–100%)</li>" in html


def test_a_length_judge_always_picks_the_longer_submission(tmp_path: Path, runner: CliRunner) -> None:
    ws = pairwise_workspace(tmp_path / "ws", 'schedule = "round_robin"')
    execution_id, _ = run(runner, ws, {"script:pairwise": prefers_longer()})
    bias = shown_bias(runner, ws, execution_id)
    longer = bias["longer_wins"]
    assert longer["rate"] == 1.0 and longer["k"] == longer["n"] >= 2  # beta, the shortest, lost both
    assert longer["low"] <= 1.0 <= longer["high"]
    assert bias["flips"]["k"] == 0 and bias["own_teams"] == [] and bias["own_wins"] is None


def test_a_judge_that_is_a_teams_model_prefers_that_team(tmp_path: Path, runner: CliRunner) -> None:
    # the judge is beta's leader model: it prefers beta, which the evaluator's scores rank last
    ws = pairwise_workspace(tmp_path / "ws", 'schedule = "round_robin"\nmodel = "script:leader-beta"')
    leader = World().leader("beta")
    judge = ScriptedJudge(prefers(["beta", "gamma", "alpha"])).model()

    async def both(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if SHOWN_RE.search(first_user_text(messages)):
            return judge.function(messages, info)  # type: ignore[misc, return-value]
        return await leader.function(messages, info)  # type: ignore[misc, no-any-return]

    execution_id, stderr = run(runner, ws, {"script:leader-beta": FunctionModel(both, model_name="beta")})
    assert "judge model script:leader-beta is also team beta's model" in stderr
    bias = shown_bias(runner, ws, execution_id)
    assert bias["own_teams"] == ["beta"]
    assert (bias["own_wins"]["k"], bias["own_wins"]["n"]) == (2, 2)
    assert (bias["own_wins_by_score"]["k"], bias["own_wins_by_score"]["n"]) == (0, 2)
    text = runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws)]).stdout
    assert "judge's own model's teams (beta) won: 2 of 2 (100%, 95% CI 34%–100%)" in text
    assert "the same teams ahead by score: 0 of 2 (0%, 95% CI 0%–66%)" in text
