"""`mixseek runs export ID --format html` shows the judge panels' agreement as the Markdown export
does: the alpha row per panel metric and each flagged round, with model text escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage
from test_export_html import assert_inert, parse
from typer.testing import CliRunner

from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models
from scripting import first_user_text

HOSTILE = "script:<b>judge</b>&amp;<script>alert(1)</script>"
# each judge's round-1 score per team: they disagree on alpha (spread 40) and gamma (spread 30)
SCORES = {
    "script:judge-a": {"alpha": 80.0, "beta": 70.0, "gamma": 50.0},
    HOSTILE: {"alpha": 40.0, "beta": 75.0, "gamma": 20.0},
}
EVALUATOR = f"""
[evaluator]
model = "script:metric"
max_retries = 1
[[evaluator.metrics]]
name = "relevance"
models = ["script:judge-a", '{HOSTILE}']
aggregate = "mean"
"""


def judge(name: str) -> FunctionModel:
    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        team = re.search(r"# 提出内容\n(\w+) answer", first_user_text(messages))
        assert team
        score = SCORES[name][team.group(1)]
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, {"score": score, "comment": "ok"})],
            usage=RequestUsage(input_tokens=20, output_tokens=4),
        )

    return FunctionModel(fn, model_name=name)


def export(runner: CliRunner, ws: Path, evaluator: str | None) -> str:
    if evaluator is not None:
        (ws / "configs/evaluator.toml").write_text(evaluator, encoding="utf-8")
    models = {**World().models(), **{name: judge(name) for name in SCORES}}
    with override_models(models):  # type: ignore[arg-type]
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    execution_id = json.loads(result.stdout)["execution_id"]
    html = runner.invoke(app, ["runs", "export", execution_id, "--format", "html", "-w", str(ws)])
    assert html.exit_code == 0, html.output
    return html.stdout


def test_the_html_report_shows_judge_agreement_escaped(tmp_path: Path, runner: CliRunner) -> None:
    html = export(runner, write_workspace(tmp_path / "ws", max_rounds=1), EVALUATOR)
    assert_inert(html)
    assert "<b>judge</b>" not in html and "alert(1)</script>" not in html
    assert "script:&lt;b&gt;judge&lt;/b&gt;&amp;amp;&lt;script&gt;alert(1)&lt;/script&gt;" in html
    doc = parse(html)
    assert doc.find("a", href="#agreement").all_text() == "Judge agreement"
    section = doc.find("section", id="agreement")
    assert section.find("h2").all_text() == "Judge agreement"
    table = section.find("table")
    assert [th.all_text() for th in table.find_all("th")] == [
        "metric",
        "judges",
        "aggregate",
        "rounds",
        "alpha",
        "flagged",
    ]
    # alpha by hand: units (80, 40), (70, 75), (50, 20); observed: per unit the ordered pairs'
    # (a - b)^2 over (2 - 1): 3200 + 50 + 1800 = 5050, D_o = 5050 / 6; the six scores sum to 335,
    # their squares to 21425: D_e = 2 * (21425 - 335^2 / 6) / 5 = 6530 / 6;
    # alpha = 1 - 5050 / 6530 = 148 / 653 = 0.227
    assert table.cells() == [["relevance", "2", "mean", "3", f"{148 / 653:.3f}", "2 (spread > 20)"]]
    flagged = [" ".join(li.all_text().split()) for li in section.find("ul").find_all("li")]
    assert flagged == [
        f"flagged: relevance: team alpha round 1, spread 40.00 (script:judge-a 80.00, {HOSTILE} 40.00)",
        f"flagged: relevance: team gamma round 1, spread 30.00 (script:judge-a 50.00, {HOSTILE} 20.00)",
    ]


def test_no_agreement_section_without_a_panel(tmp_path: Path, runner: CliRunner) -> None:
    html = export(runner, write_workspace(tmp_path / "ws", max_rounds=1), None)
    doc = parse(html)
    assert not doc.find_all("section", id="agreement")
    assert not doc.find_all("a", href="#agreement")
