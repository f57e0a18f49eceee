"""`mixseek judges calibrate LABELS.csv`: each panel judge, the one-model metric's judge, each
metric and the overall score against human labels of stored submissions — figures checked against
a hand computation — and every kind of bad input as one line naming file and line, exit 2."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage
from typer.testing import CliRunner, Result

from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models
from scripting import first_user_text

# round-1 scores by panel judge a and b; coverage's one judge (script:metric, e2e.scripted) gives
# alpha 60, beta 70, gamma 50; the humans gave alpha 50, beta 90, gamma 40
PANEL_SCORES = {"script:judge-a": {"alpha": 60.0, "beta": 70.0, "gamma": 50.0},
                "script:judge-b": {"alpha": 70.0, "beta": 60.0, "gamma": 40.0}}  # fmt: skip
HUMAN = {"alpha": 50.0, "beta": 90.0, "gamma": 40.0}

# By hand (human h = (50, 90, 40), mean 60, deviations (-10, 30, -20), sum of squares 1400;
# human ranks (2, 3, 1)); Pearson = sxy / sqrt(sxx * 1400), Spearman = Pearson of the ranks:
# - judge a = coverage's judge (60, 70, 50): deviations (0, 10, -10), sxy 500, sxx 200 ->
#   r = 500 / sqrt(280000) = 5 / sqrt(28); ranks (2, 3, 1) -> 1; a - h = (10, -20, 10):
#   MAE 40/3, bias 0
# - judge b (70, 60, 40): mean 170/3, deviations (40/3, 10/3, -50/3), sxy 300, sxx 1400/3 ->
#   r = 300 / sqrt(1400/3 * 1400) = 3 sqrt(3) / 14; ranks (3, 2, 1) against (2, 3, 1): rank
#   deviations (1, 0, -1) and (0, 1, -1) -> 1 / 2; b - h = (20, -30, 0): MAE 50/3, bias -10/3
# - the panel's mean (65, 65, 45): deviations (20/3, 20/3, -40/3), sxy 400, sxx 800/3 ->
#   r = 400 / sqrt(800/3 * 1400) = sqrt(3/7); tied ranks (2.5, 2.5, 1): deviations (.5, .5, -1)
#   against (0, 1, -1) -> 1.5 / sqrt(1.5 * 2) = sqrt(3) / 2; m - h = (15, -25, 5): MAE 15, bias -5/3
# - overall = mean of relevance and coverage (62.5, 67.5, 47.5): deviations (10/3, 25/3, -35/3),
#   sxy 450, sxx 650/3 -> r = 450 / sqrt(650/3 * 1400); ranks (2, 3, 1) -> 1;
#   o - h = (12.5, -22.5, 7.5): MAE 42.5/3, bias -2.5/3
EXPECTED = [
    ("overall", None, None, 450 / math.sqrt(650 / 3 * 1400), 1.0, 42.5 / 3, -2.5 / 3),
    ("metric", "coverage", None, 5 / math.sqrt(28), 1.0, 40 / 3, 0.0),
    ("judge", "coverage", "script:metric", 5 / math.sqrt(28), 1.0, 40 / 3, 0.0),
    ("metric", "relevance", None, math.sqrt(3 / 7), math.sqrt(3) / 2, 15.0, -5 / 3),
    ("judge", "relevance", "script:judge-a", 5 / math.sqrt(28), 1.0, 40 / 3, 0.0),
    ("judge", "relevance", "script:judge-b", 3 * math.sqrt(3) / 14, 0.5, 50 / 3, -10 / 3),
]

EVALUATOR = """
[evaluator]
model = "script:metric"
max_retries = 1
[[evaluator.metrics]]
name = "relevance"
models = ["script:judge-a", "script:judge-b"]
aggregate = "mean"
[[evaluator.metrics]]
name = "coverage"
"""


def judge(name: str) -> FunctionModel:
    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        team = re.search(r"# 提出内容\n(\w+) answer", first_user_text(messages))
        assert team
        score = PANEL_SCORES[name][team.group(1)]
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, {"score": score, "comment": "ok"})],
            usage=RequestUsage(input_tokens=20, output_tokens=4),
        )

    return FunctionModel(fn, model_name=name)


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """One scripted execution (3 teams, 1 round) scored by a 2-judge panel and a one-model metric."""
    ws = write_workspace(tmp_path_factory.mktemp("calibrate") / "ws", max_rounds=1)
    (ws / "configs/evaluator.toml").write_text(EVALUATOR, encoding="utf-8")
    models = {**World().models(), **{name: judge(name) for name in PANEL_SCORES}}
    with pytest.MonkeyPatch.context() as env:
        for var in [v for v in os.environ if v.startswith("MIXSEEK_")]:
            env.delenv(var)
        with override_models(models):  # type: ignore[arg-type]
            result = CliRunner().invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
        assert result.exit_code == 0, result.output
        yield ws, json.loads(result.stdout)["execution_id"]


def labels(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def good_labels(path: Path, execution_id: str) -> Path:
    lines = [f"{execution_id},{team},1,{score:g},rater {i}" for i, (team, score) in enumerate(HUMAN.items())]
    return labels(path, "execution_id,team_id,round_number,human_score,note\n" + "\n".join(lines) + "\n")


def calibrate(ws: Path, labels_file: Path, *extra: str) -> Result:
    return CliRunner().invoke(app, ["judges", "calibrate", str(labels_file), "-w", str(ws), *extra])


def test_calibration_matches_a_hand_computation(executed: tuple[Path, str], tmp_path: Path) -> None:
    ws, execution_id = executed
    result = calibrate(ws, good_labels(tmp_path / "labels.csv", execution_id), "-f", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert (doc["labels"], doc["executions"]) == (3, [execution_id])
    got = [
        (r["scope"], r["metric"], r["model"], r["pearson"], r["spearman"], r["mae"], r["bias"])
        for r in doc["rows"]
    ]
    assert got == [
        (scope, metric, model, pytest.approx(p), pytest.approx(s), pytest.approx(mae), pytest.approx(bias))
        for scope, metric, model, p, s, mae, bias in EXPECTED
    ]
    assert all(r["pairs"] == 3 for r in doc["rows"])
    kinds = {r["metric"]: (r["kind"], r["aggregate"]) for r in doc["rows"] if r["scope"] == "metric"}
    assert kinds == {"coverage": ("judge", None), "relevance": ("panel", "mean")}


def test_text_and_markdown_show_every_judge(executed: tuple[Path, str], tmp_path: Path) -> None:
    ws, execution_id = executed
    labels_file = good_labels(tmp_path / "labels.csv", execution_id)
    text = calibrate(ws, labels_file)
    assert text.exit_code == 0, text.output
    lines = [" ".join(line.strip("│ ").split()) for line in text.stdout.splitlines()]
    assert lines[0] == "3 label(s) over 1 execution(s)"
    # a panel's judges under its metric; the metric judged by one model is one row naming it
    assert lines[5:10] == [
        "overall (evaluation score) │ 3 │ 0.817 │ 1.000 │ 14.17 │ -0.83",
        "coverage: script:metric │ 3 │ 0.945 │ 1.000 │ 13.33 │ +0.00",
        "relevance (panel, mean) │ 3 │ 0.655 │ 0.866 │ 15.00 │ -1.67",
        "script:judge-a │ 3 │ 0.945 │ 1.000 │ 13.33 │ +0.00",
        "script:judge-b │ 3 │ 0.371 │ 0.500 │ 16.67 │ -3.33",
    ]
    markdown = calibrate(ws, labels_file, "-f", "markdown")
    assert markdown.exit_code == 0, markdown.output
    assert markdown.stdout.splitlines()[4:] == [
        "| metric | judge | pairs | pearson | spearman | MAE | bias |",
        "|---|---|---:|---:|---:|---:|---:|",
        "| (overall) | (evaluation score) | 3 | 0.817 | 1.000 | 14.17 | -0.83 |",
        "| coverage | script:metric | 3 | 0.945 | 1.000 | 13.33 | +0.00 |",
        "| relevance | (panel, mean) | 3 | 0.655 | 0.866 | 15.00 | -1.67 |",
        "| relevance | script:judge-a | 3 | 0.945 | 1.000 | 13.33 | +0.00 |",
        "| relevance | script:judge-b | 3 | 0.371 | 0.500 | 16.67 | -3.33 |",
    ]


HEADER = "execution_id,team_id,round_number,human_score\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("execution_id,team_id,human_score\n{e},alpha,50\n", "line 1: missing column(s) round_number: "
         "the header must name execution_id, team_id, round_number, human_score"),
        ("", "line 1: no header row: expected the columns execution_id, team_id, round_number, human_score"),
        (HEADER, "no labels after the header"),
        (HEADER + "{e},alpha,1,50\n{e},beta,1,high\n", "line 3: human_score: 'high' is not a number"),
        (HEADER + "{e},alpha,1,50\n\n{e},beta,1,\n", "line 4: human_score: missing"),
        (HEADER + "{e},alpha,1,150\n", "line 2: human_score: 150 is outside 0–100 (the judges' scale)"),
        (HEADER + "{e},alpha,one,50\n", "line 2: round_number: 'one' is not a whole number"),
        (HEADER + "{e},alpha,1,50\n{e},beta,1,60\n{e},alpha,1,55\n",
         "line 4: a second label for the submission labelled on line 2"),
        (HEADER + "{e},alpha,1,50\n{e},delta,1,60\n",
         "line 3: no scored submission of team 'delta' in round 1 of execution '{e}'"),
        (HEADER + "{e},alpha,1,50\n{e},alpha,2,60\n",
         "line 3: no scored submission of team 'alpha' in round 2 of execution '{e}'"),
        (HEADER + "{e},alpha,1,50\n20990101-000000-deadbeef,alpha,1,60\n",
         "line 3: no execution '20990101-000000-deadbeef' in the workspace"),
    ],
)  # fmt: skip
def test_bad_labels_are_one_line_and_exit_2(
    executed: tuple[Path, str], tmp_path: Path, content: str, message: str
) -> None:
    ws, execution_id = executed
    labels_file = labels(tmp_path / "labels.csv", content.replace("{e}", execution_id))
    result = calibrate(ws, labels_file)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.splitlines() == [f"error: {labels_file}: {message.replace('{e}', execution_id)}"]


def test_an_unreadable_file_and_a_workspace_without_a_database(
    executed: tuple[Path, str], tmp_path: Path
) -> None:
    ws, execution_id = executed
    missing = tmp_path / "nope.csv"
    result = calibrate(ws, missing)
    assert (result.exit_code, result.stderr.splitlines()) == (
        2,
        [f"error: {missing}: cannot read: No such file or directory"],
    )
    latin = tmp_path / "latin.csv"
    latin.write_bytes(HEADER.encode() + f"{execution_id},alpha,1,50,caf\xe9\n".encode("latin-1"))
    result = calibrate(ws, latin)
    assert (result.exit_code, result.stderr.splitlines()) == (2, [f"error: {latin}: not UTF-8 text"])

    empty_ws = write_workspace(tmp_path / "empty")
    result = calibrate(empty_ws, good_labels(tmp_path / "labels.csv", execution_id))
    assert (result.exit_code, result.stderr.splitlines()) == (
        2,
        [f"error: {empty_ws / 'mixseek.db'}: no database here (run 'mixseek exec' in this workspace first)"],
    )
    assert not (empty_ws / "mixseek.db").exists()  # nothing written


def test_a_wrong_format_is_refused(executed: tuple[Path, str], tmp_path: Path) -> None:
    ws, execution_id = executed
    result = calibrate(ws, good_labels(tmp_path / "labels.csv", execution_id), "-f", "html")
    assert (result.exit_code, result.stderr.splitlines()) == (
        2,
        ["error: --format: must be 'text', 'json' or 'markdown' (got 'html')"],
    )


def calibrate_process(ws: Path, labels_file: Path) -> subprocess.CompletedProcess[str]:
    """`mixseek judges calibrate` in a process of its own, as a user runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIXSEEK_")}
    return subprocess.run(
        [sys.executable, "-m", "mixseek.cli", "judges", "calibrate", str(labels_file), "-w", str(ws)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        # a quoted newline in the id: the record ends on line 4, and the id is shown escaped
        (HEADER + '{e},alpha,1,50\n"2099\n0101",alpha,1,60\n',
         "line 4: no execution '2099\\n0101' in the workspace"),
        (HEADER + '{e},alpha,1,50\n{e},"be\nta",1,60\n',
         "line 4: no scored submission of team 'be\\nta' in round 1 of execution '{e}'"),
        # csv's own line count is one short when a field is over its limit
        (HEADER + "{e},alpha,1,50\n{e},beta,1,60," + "x" * 200_000 + "\n",
         "line 3: not valid CSV: field larger than field limit (131072)"),
    ],
    ids=["newline-in-execution-id", "newline-in-team-id", "over-long-field"],
)  # fmt: skip
def test_a_bad_label_is_one_line_naming_its_line(
    executed: tuple[Path, str], tmp_path: Path, content: str, message: str
) -> None:
    ws, execution_id = executed
    labels_file = labels(tmp_path / "labels.csv", content.replace("{e}", execution_id))
    proc = calibrate_process(ws, labels_file)
    expected = f"error: {labels_file}: {message.replace('{e}', execution_id)}\n"
    assert (proc.returncode, proc.stderr, proc.stdout) == (2, expected, "")


def test_a_line_separator_in_a_field_is_text(executed: tuple[Path, str], tmp_path: Path) -> None:
    """Records end at CR or LF only: U+2028 and U+0085 in a note split no label."""
    ws, execution_id = executed
    notes = ["a\u2028b", "c\u0085d", "e\x1cf"]
    rows = zip(HUMAN.items(), notes, strict=True)
    lines = [f"{execution_id},{team},1,{score:g},{note}" for (team, score), note in rows]
    labels_file = labels(tmp_path / "labels.csv", "execution_id,team_id,round_number,human_score,note\n"
                         + "\n".join(lines) + "\n")  # fmt: skip
    proc = calibrate_process(ws, labels_file)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.splitlines()[0] == "3 label(s) over 1 execution(s)"


# judges with names as long as real ones; each one's score per team, and the humans'
LONG_SCORES = {
    "script:anthropic-claude-sonnet-4-5-20250929": {"alpha": 20.0, "beta": 90.0, "gamma": 50.0},
    "script:openai-gpt-4o-mini-2024-07-18": {"alpha": 70.0, "beta": 35.0, "gamma": 55.0},
    "script:google-gemini-2-5-flash-preview": {"alpha": 5.0, "beta": 0.0, "gamma": 10.0},
}
LONG_HUMAN = {"alpha": 95.0, "beta": 10.0, "gamma": 60.0}
LONG_EVALUATOR = """
[evaluator]
model = "script:google-gemini-2-5-flash-preview"
max_retries = 1
[[evaluator.metrics]]
name = "clarity_coherence"
models = ["script:anthropic-claude-sonnet-4-5-20250929", "script:openai-gpt-4o-mini-2024-07-18"]
aggregate = "mean"
[[evaluator.metrics]]
name = "coverage"
"""


def long_judge(name: str) -> FunctionModel:
    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        team = re.search(r"# 提出内容\n(\w+) answer", first_user_text(messages))
        assert team
        score = LONG_SCORES[name][team.group(1)]
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, {"score": score, "comment": "ok"})],
            usage=RequestUsage(input_tokens=20, output_tokens=4),
        )

    return FunctionModel(fn, model_name=name)


def test_at_80_columns_every_figure_is_whole_and_a_one_judge_metric_is_one_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Long metric and model names wrap in their columns; the figures keep their width. The
    metric judged by one model (coverage) is one row naming that model, not a `(one judge)` row
    and the model's row with the same figures."""
    ws = write_workspace(tmp_path / "ws", max_rounds=1)
    (ws / "configs/evaluator.toml").write_text(LONG_EVALUATOR, encoding="utf-8")
    for var in [v for v in os.environ if v.startswith("MIXSEEK_")]:
        monkeypatch.delenv(var)
    with override_models({**World().models(), **{name: long_judge(name) for name in LONG_SCORES}}):  # type: ignore[arg-type]
        result = CliRunner().invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    execution_id = json.loads(result.stdout)["execution_id"]
    lines = [f"{execution_id},{team},1,{score:g}" for team, score in LONG_HUMAN.items()]
    labels_file = labels(tmp_path / "labels.csv", HEADER + "\n".join(lines) + "\n")

    env = {k: v for k, v in os.environ.items() if not k.startswith("MIXSEEK_")}
    proc = subprocess.run(
        [sys.executable, "-m", "mixseek.cli", "judges", "calibrate", str(labels_file), "-w", str(ws)],
        capture_output=True,
        text=True,
        env={**env, "COLUMNS": "80", "TERM": "dumb", "NO_COLOR": "1"},
        timeout=300,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert [line.rstrip() for line in proc.stdout.splitlines()] == [
        "3 label(s) over 1 execution(s)",
        "judges against human scores",
        "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━┳━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━┳━━━━━━━━┓",
        "┃ metric / judge                 ┃ pairs ┃ pearson ┃ spearman ┃   MAE ┃   bias ┃",
        "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━╇━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━╇━━━━━━━━┩",
        "│ overall (evaluation score)     │     3 │  -0.811 │   -0.866 │ 40.00 │ -25.83 │",
        "│ clarity_coherence (panel,      │     3 │  -1.000 │   -1.000 │ 36.67 │  -1.67 │",
        "│ mean)                          │       │         │          │       │        │",
        "│   script:anthropic-claude-sonn │     3 │  -1.000 │   -1.000 │ 55.00 │  -1.67 │",
        "│ et-4-5-20250929                │       │         │          │       │        │",
        "│   script:openai-gpt-4o-mini-20 │     3 │   1.000 │    1.000 │ 18.33 │  -1.67 │",
        "│ 24-07-18                       │       │         │          │       │        │",
        "│ coverage:                      │     3 │   0.585 │    0.500 │ 50.00 │ -50.00 │",
        "│ script:google-gemini-2-5-flash │       │         │          │       │        │",
        "│ -preview                       │       │         │          │       │        │",
        "└────────────────────────────────┴───────┴─────────┴──────────┴───────┴────────┘",
        "bias = mean of (judge − human); MAE = mean |judge − human|; scores on the judges' scale",
    ]
