"""Length-controlled Bradley–Terry: a scripted judge that prefers the longer submission unless the quality
gap is large misleads the plain ranking; the controlled one recovers the true order. It is shown beside
the plain one in `runs show` (text, JSON) and both exports (the dashboard: tests/ui), and
`[pairwise] ranking` picks which one the stage stores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pairwise_script import SHOWN_RE, TEAM_RE, ScriptedJudge, pairwise_workspace, prefers
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from test_pairwise_exec import ranking, run_exec
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.config.pairwise import PairwiseSettings
from mixseek.llm import override_models
from mixseek.llm.governor import Budget, Governor, ModelLimit
from mixseek.llm.retrying import RetryTiming
from mixseek.orchestrator.events import EventBus
from mixseek.orchestrator.pairwise import Entrant, PairwiseStage
from mixseek.orchestrator.pairwise_judge import build_pairwise_judge
from mixseek.storage.aggregation_store import AggregationStore
from mixseek.storage.pairwise_views import PairwiseView
from scripting import first_user_text

QUALITY = {"t1": 6, "t2": 5, "t3": 4, "t4": 3, "t5": 2, "t6": 1}  # the true order: t1 best
LENGTH = {"t1": 100, "t2": 500, "t3": 120, "t4": 600, "t5": 140, "t6": 700}  # t2, t4, t6 pad their answers
GAP = 3  # a quality gap this large wins; a smaller one loses to the longer answer


def length_loving() -> FunctionModel:
    """A judge that reads both texts: the better team's wins by a large quality gap, else the longer."""

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        texts = {label: text for label, _, text in SHOWN_RE.findall(first_user_text(messages))}
        a, b = (match.group(1) for x in "AB" if (match := TEAM_RE.match(texts[x])))
        if abs(QUALITY[a] - QUALITY[b]) >= GAP:
            winner = "A" if QUALITY[a] > QUALITY[b] else "B"
        else:
            winner = "A" if len(texts["A"]) > len(texts["B"]) else "B"
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, {"winner": winner, "reasoning": "."})]
        )

    return FunctionModel(fn, model_name="length-loving")


async def run_stage(db: Path, ranking: str) -> PairwiseView:
    config = PairwiseSettings(enabled=True, model="script:pairwise", bootstrap_samples=200, ranking=ranking)
    governor = Governor(Budget(), ModelLimit(8, None))
    store = AggregationStore(db)
    await store.create_execution("exec-length", "task", {})
    with override_models({"script:pairwise": length_loving()}):
        stage = PairwiseStage(
            config,
            build_pairwise_judge(config, governor, RetryTiming(0.01, 0.05)),
            store=store,
            governor=governor,
            events=EventBus([]),
            concurrency=3,
        )
        entrants = [
            Entrant(t, t.upper(), 1, f"{t} answer v1\n" + "x" * LENGTH[t], place)
            for place, t in enumerate(sorted(QUALITY), start=1)
        ]
        view = await stage.run("exec-length", "task", entrants)
    await store.aclose()
    return view


@pytest.mark.parametrize("ranking", ["plain", "length_controlled"])
async def test_the_controlled_ranking_recovers_the_true_order(tmp_path: Path, ranking: str) -> None:
    view = await run_stage(tmp_path / "m.db", ranking)
    truth = sorted(QUALITY, key=lambda t: -QUALITY[t])
    plain_order = ["t2", "t1", "t4", "t3", "t6", "t5"]  # each padded team ahead of its better neighbour
    assert [s.team_id for s in view.controlled] == truth
    assert view.ranked_by == ranking
    stored = [s.team_id for s in view.ranking]
    assert stored == (truth if ranking == "length_controlled" else plain_order)
    for s in view.controlled:
        assert s.ci_low <= s.strength <= s.ci_high and s.matches == 5


def test_runs_show_and_both_exports_show_both_rankings(tmp_path: Path, runner: CliRunner) -> None:
    ws = pairwise_workspace(tmp_path / "ws", 'schedule = "round_robin"')
    code, summary, _ = run_exec(runner, ws, ScriptedJudge(prefers(["alpha", "gamma", "beta"])))
    assert code == 0
    execution_id = summary["execution_id"]
    shown = runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws), "-f", "json"])
    document = json.loads(shown.stdout)["pairwise"]
    assert document == summary["pairwise"]  # fitted at read time as the stage fitted it
    assert document["ranked_by"] == "plain"
    assert sorted(s["team_id"] for s in document["controlled"]) == ["alpha", "beta", "gamma"]
    text = runner.invoke(app, ["runs", "show", execution_id, "-w", str(ws)]).stdout
    title = "length-controlled (length and markdown differences as covariates, their effect removed):"
    assert f"  {title}\n    #  team" in text
    markdown = runner.invoke(app, ["runs", "export", execution_id, "-w", str(ws), "--format", "markdown"])
    assert "### Length-controlled (length and Markdown differences" in markdown.stdout
    html = runner.invoke(app, ["runs", "export", execution_id, "-w", str(ws), "--format", "html"]).stdout
    assert '<table class="pairwise-controlled">' in html


def test_the_ranking_option_makes_the_stored_ranking_the_controlled_one(
    tmp_path: Path, runner: CliRunner
) -> None:
    ws = pairwise_workspace(tmp_path / "ws", 'schedule = "round_robin"\nranking = "length_controlled"')
    code, summary, _ = run_exec(runner, ws, ScriptedJudge(prefers(["beta", "gamma", "alpha"])))
    assert code == 0
    pairwise = summary["pairwise"]
    assert pairwise["ranked_by"] == "length_controlled"
    assert pairwise["ranking"] == pairwise["controlled"]
    assert [row[1] for row in ranking(ws)] == [s["team_id"] for s in pairwise["controlled"]]
    text = runner.invoke(app, ["runs", "show", summary["execution_id"], "-w", str(ws)]).stdout
    assert "3 of 3 comparisons, completed, ranked length-controlled" in text


def test_a_bad_ranking_value_is_one_line_and_exit_2(tmp_path: Path, runner: CliRunner) -> None:
    ws = pairwise_workspace(tmp_path / "ws", 'ranking = "by_vibes"')
    result = runner.invoke(app, ["config", "validate", "-w", str(ws)])
    assert result.exit_code == 2
    message = "pairwise.ranking: Input should be 'plain' or 'length_controlled'"
    assert result.stderr.splitlines()[0] == f"error: {ws}/configs/pairwise.toml: {message}"
