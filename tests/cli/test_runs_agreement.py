"""Judge panels through the CLI: `exec` stores every judge's score, `runs show` (text and JSON) and
the Markdown export report the judges' agreement (Krippendorff's alpha) per execution and flag the
rounds they disagreed on; a bad panel model is one line and exit 2; each judge is a request."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage
from typer.testing import CliRunner, Result

from e2e.db import rows
from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.config.evaluator import DEFAULT_DISAGREEMENT_THRESHOLD
from mixseek.llm import override_models
from mixseek.storage.agreement import DEFAULT_THRESHOLD
from scripting import first_user_text

JUDGES = ("script:judge-a", "script:judge-b", "script:judge-c")
# round-1 scores of each team's answer by judge a, b, c: they disagree on alpha (spread 50)
SCORES = {"alpha": (60.0, 70.0, 20.0), "beta": (70.0, 80.0, 75.0), "gamma": (50.0, 40.0, 55.0)}
# Krippendorff's alpha (interval) by hand over the 3 rounds (units) of 3 scores each, n = 9:
#   observed: per unit the sum over ordered pairs of (a - b)^2, divided by (3 - 1):
#     alpha 2 * (100 + 1600 + 2500) / 2 = 4200, beta 2 * (100 + 25 + 25) / 2 = 150,
#     gamma 2 * (100 + 25 + 225) / 2 = 350;  D_o = 4700 / 9
#   expected: the 9 scores sum to 520, their squares to 32950: sum of squared deviations
#     32950 - 520^2 / 9 = 26150 / 9;  D_e = 2 * (26150 / 9) / 8 = 26150 / 36
#   alpha = 1 - D_o / D_e = 1 - 18800 / 26150 = 147 / 523
HAND_ALPHA = 147 / 523

PANEL = """
[evaluator]
model = "script:metric"
max_retries = 1
[[evaluator.metrics]]
name = "relevance"
models = ["script:judge-a", "script:judge-b", "script:judge-c"]
aggregate = "median"
"""


def judge(index: int) -> FunctionModel:
    """Judge `index` scores each team's answer as SCORES says; for a task saying "agree" every
    judge gives the first judge's score."""

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = first_user_text(messages)
        team = re.search(r"# 提出内容\n(\w+) answer", prompt)
        assert team, prompt
        scores = SCORES[team.group(1)]
        score = scores[0] if "agree" in prompt else scores[index]
        return ModelResponse(
            parts=[
                ToolCallPart(info.output_tools[0].name, {"score": score, "comment": f"j{index} says {score}"})
            ],
            usage=RequestUsage(input_tokens=20, output_tokens=4),
        )

    return FunctionModel(fn, model_name=JUDGES[index])


def models() -> dict[str, object]:
    return {**World().models(), **{name: judge(i) for i, name in enumerate(JUDGES)}}


def panel_workspace(root: Path, evaluator: str = PANEL, **kwargs: object) -> Path:
    ws = write_workspace(root, max_rounds=1, **kwargs)  # type: ignore[arg-type]
    (ws / "configs/evaluator.toml").write_text(evaluator, encoding="utf-8")
    return ws


def exec_json(runner: CliRunner, ws: Path, prompt: str) -> dict[str, object]:
    with override_models(models()):  # type: ignore[arg-type]
        result = runner.invoke(app, ["exec", prompt, "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    summary: dict[str, object] = json.loads(result.stdout)
    return summary


def show(runner: CliRunner, ws: Path, execution_id: str, *extra: str) -> Result:
    result = runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws), *extra])
    assert result.exit_code == 0, result.output
    return result


def test_runs_show_reports_each_executions_agreement_and_flags_disagreement(
    tmp_path: Path, runner: CliRunner
) -> None:
    ws = panel_workspace(tmp_path / "ws")
    first = str(exec_json(runner, ws, "最良の回答を")["execution_id"])
    second = str(exec_json(runner, ws, "agree on this one")["execution_id"])

    db = ws / "mixseek.db"
    ((details,),) = rows(
        db,
        f"SELECT score_details FROM leader_board WHERE execution_id = '{first}' AND team_id = 'alpha'",
    )
    assert json.loads(str(details)) == {
        "relevance": {
            "score": 60.0,  # the median of 60, 70, 20
            "comment": "[script:judge-a] j0 says 60.0\n[script:judge-b] j1 says 70.0\n"
            "[script:judge-c] j2 says 20.0",
            "judges": [
                {"model": "script:judge-a", "score": 60.0, "comment": "j0 says 60.0", "error": None},
                {"model": "script:judge-b", "score": 70.0, "comment": "j1 says 70.0", "error": None},
                {"model": "script:judge-c", "score": 20.0, "comment": "j2 says 20.0", "error": None},
            ],
            "aggregate": "median",
        }
    }

    doc = json.loads(show(runner, ws, first, "-f", "json").stdout)
    assert doc["agreement"] == {
        "relevance": {
            "judges": list(JUDGES),
            "aggregate": "median",
            "submissions": 3,
            "alpha": pytest.approx(HAND_ALPHA),
            "threshold": 20.0,
            "flagged": [
                {"team_id": "alpha", "round_number": 1, "spread": 50.0, "scores": [60.0, 70.0, 20.0]},
            ],
        }
    }
    alpha_round = next(t for t in doc["teams"] if t["team_id"] == "alpha")["rounds"][0]
    assert [j["score"] for j in alpha_round["metrics"]["relevance"]["judges"]] == [60.0, 70.0, 20.0]

    text = show(runner, ws, first).stdout.splitlines()
    start = text.index("judge agreement (Krippendorff's alpha, interval data)")
    assert text[start + 1 : start + 4] == [
        "  metric     judges  aggregate  rounds  alpha  flagged",
        "  relevance  3       median     3       0.281  1 (spread > 20)",
        "  flagged: relevance: team alpha round 1, spread 50.00 "
        "(script:judge-a 60.00, script:judge-b 70.00, script:judge-c 20.00)",
    ]
    assert f"{HAND_ALPHA:.3f}" == "0.281"
    assert "      script:judge-c  20.00  j2 says 20.0" in text

    # the second execution's judges all agree: alpha 1, nothing flagged — not mixed with the first
    again = json.loads(show(runner, ws, second, "-f", "json").stdout)["agreement"]["relevance"]
    assert (again["alpha"], again["submissions"], again["flagged"]) == (1.0, 3, [])

    markdown = runner.invoke(app, ["runs", "export", first, "--format", "markdown", "-w", str(ws)]).stdout
    assert "## Judge agreement" in markdown
    assert "| relevance | 3 | median | 3 | 0.281 | 1 (spread > 20) |" in markdown


def test_an_execution_without_panels_has_no_agreement(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    execution_id = str(exec_json(runner, ws, "最良の回答を")["execution_id"])
    assert json.loads(show(runner, ws, execution_id, "-f", "json").stdout)["agreement"] == {}
    assert "judge agreement" not in show(runner, ws, execution_id).stdout
    assert DEFAULT_THRESHOLD == DEFAULT_DISAGREEMENT_THRESHOLD


def test_each_judge_of_a_panel_is_a_request_of_the_budget(tmp_path: Path, runner: CliRunner) -> None:
    # round 1: alpha 2 + 1, beta 1, gamma 2 + 1 team requests, and 3 judges + 1 coverage model per
    # team: 7 + 12 = 19; the judgments after it would be the 20th and on
    evaluator = PANEL + '[[evaluator.metrics]]\nname = "coverage"\n'
    ws = panel_workspace(tmp_path / "ws", evaluator, extra="max_requests = 19")
    ws.joinpath("configs/orchestrator.toml").write_text(
        ws.joinpath("configs/orchestrator.toml").read_text().replace("max_rounds = 1", "max_rounds = 2")
    )
    summary = exec_json(runner, ws, "最良の回答を")
    assert summary["stop_reason"] == "budget"
    assert summary["stop_detail"] == "budget max_requests = 19 reached (19 spent)"
    db = ws / "mixseek.db"
    assert rows(db, "SELECT sum(requests) FROM model_calls") == [(19,)]
    assert rows(
        db,
        "SELECT model, sum(requests) FROM model_calls WHERE model LIKE 'script:judge%' "
        "GROUP BY model ORDER BY model",
    ) == [
        ("script:judge-a", 3),
        ("script:judge-b", 3),
        ("script:judge-c", 3),
    ]


@pytest.mark.parametrize("command", ["validate", "exec"])
def test_an_unknown_panel_model_is_one_line_naming_file_and_key(
    tmp_path: Path, runner: CliRunner, command: str
) -> None:
    ws = panel_workspace(tmp_path / "ws", PANEL.replace('"script:judge-b"', '"opneai:gpt-4o"'))
    args = ["config", "validate", "-w", str(ws)] if command == "validate" else ["exec", "task", "-w", str(ws)]
    with override_models(models()):  # type: ignore[arg-type]
        result = runner.invoke(app, args, env={"OPENAI_API_KEY": "sk-test"})
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    evaluator = ws / "configs/evaluator.toml"
    assert result.stderr.splitlines()[0] == (
        f"error: {evaluator}: evaluator.metrics[0].models[1]: model 'opneai:gpt-4o' for evaluator metric "
        "'relevance' has an unknown provider 'opneai' (did you mean 'openai'?): expected 'provider:model' "
        "(e.g. 'openai:gpt-4o', 'anthropic:claude-sonnet-4-5', 'google-gla:gemini-2.5-flash', "
        "'ollama:llama3.2'), 'local:<name-or-path>' or 'test'"
    )
    assert not (ws / "mixseek.db").exists() or rows(ws / "mixseek.db", "SELECT count(*) FROM executions") == [
        (0,)
    ]


@pytest.mark.parametrize(
    ("evaluator", "message"),
    [
        (
            PANEL + 'model = "script:judge-a"\n',
            ": give either model (one judge) or models (a panel), not both",
        ),
        (PANEL + "trim = 0.3\n", ": trim applies only to aggregate = 'trimmed_mean'"),
        (PANEL.replace('"median"', '"trimmed_mean"\ntrim = 0.5'), ".trim: Input should be less than 0.5"),
    ],
)
def test_bad_panel_settings_are_one_line_and_exit_2(
    tmp_path: Path, runner: CliRunner, evaluator: str, message: str
) -> None:
    ws = panel_workspace(tmp_path / "ws", evaluator)
    result = runner.invoke(app, ["config", "validate", "-w", str(ws)])
    assert result.exit_code == 2, result.output
    path = ws / "configs/evaluator.toml"
    assert result.stderr.splitlines() == [
        f"error: {path}: evaluator.metrics[0]{message}",
        "1 problem(s) found",
    ]
