"""Deterministic metrics and reference answers through `mixseek exec` and `config validate`:
rows stored, the reference kept from the teams, and bad input as one line with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from e2e.db import rows
from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models

SECRET = "secretkey"
REFERENCE = f"alpha answer {SECRET}"
SCHEMA = {"type": "object", "required": ["answer"]}

DETERMINISTIC = """
[evaluator]
model = "script:metric"
[[evaluator.metrics]]
name = "length"
min_chars = 20
max_chars = 30
[[evaluator.metrics]]
name = "patterns"
required_patterns = ["answer v1", "(?i)MEMBER"]
forbidden_patterns = ["beta"]
[[evaluator.metrics]]
name = "json_schema"
json_schema = "schemas/answer.json"
[[evaluator.metrics]]
name = "reference_similarity"
"""


def deterministic_workspace(root: Path, evaluator: str = DETERMINISTIC) -> Path:
    ws = write_workspace(root, max_rounds=2)
    (ws / "configs" / "evaluator.toml").write_text(evaluator, encoding="utf-8")
    (ws / "configs" / "schemas").mkdir()
    (ws / "configs" / "schemas" / "answer.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    return ws


def invoke(runner: CliRunner, world: World, *args: str) -> tuple[int, str, str]:
    with override_models(world.models()):
        result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.stderr


def test_exec_with_deterministic_metrics_stores_exact_details_and_keeps_the_reference_from_teams(
    tmp_path: Path, runner: CliRunner
) -> None:
    ws = deterministic_workspace(tmp_path / "ws")
    world = World()
    code, stdout, stderr = invoke(
        runner, world, "exec", "最良の回答を", "-w", str(ws), "-f", "json", "--reference", REFERENCE
    )
    assert code == 0, stderr
    execution_id = json.loads(stdout)["execution_id"]
    db = ws / "mixseek.db"
    assert rows(db, "SELECT execution_id, reference FROM executions") == [(execution_id, REFERENCE)]

    not_json = "not JSON (Expecting value: line 1 column 1 (char 0)) and no ```json block"
    over = "(the score falls linearly to 0 at 60 characters)"
    stored = rows(
        db,
        "SELECT team_id, submission_content, evaluation_score, score_details FROM leader_board "
        "WHERE round_number = 1 ORDER BY team_id",
    )
    assert [(t, s, score, json.loads(str(d))) for t, s, score, d in stored] == [
        (
            "alpha",
            "alpha answer v1 (member did round 1)",
            55.0,  # (80 + 100 + 0 + 40) / 4
            {
                "length": {"score": 80.0, "comment": f"36 characters: 6 over max_chars 30 {over}"},
                "patterns": {"score": 100.0, "comment": "3/3 checks passed"},
                "json_schema": {"score": 0.0, "comment": not_json},
                "reference_similarity": {
                    "score": 40.0,
                    "comment": "token F1 0.400: 2 tokens in common; precision 0.286 (2/7 of the "
                    "submission's), recall 0.667 (2/3 of the reference's)",
                },
            },
        ),
        (
            "beta",
            "beta answer v1",
            pytest.approx((70 + 100 / 3 + 0 + 100 / 3) / 4, abs=1e-4),
            {
                "length": {
                    "score": 70.0,
                    "comment": "14 characters: 6 short of min_chars 20 "
                    "(the score falls linearly to 0 at 0 characters)",
                },
                "patterns": {
                    "score": 33.33,
                    "comment": "1/3 checks passed; required /(?i)MEMBER/ not found; "
                    "forbidden /beta/ found: 'beta'",
                },
                "json_schema": {"score": 0.0, "comment": not_json},
                "reference_similarity": {
                    "score": 33.33,
                    "comment": "token F1 0.333: 1 tokens in common; precision 0.333 (1/3 of the "
                    "submission's), recall 0.333 (1/3 of the reference's)",
                },
            },
        ),
        (
            "gamma",
            "gamma answer v1 (member did round 1)",
            50.0,  # (80 + 100 + 0 + 20) / 4
            {
                "length": {"score": 80.0, "comment": f"36 characters: 6 over max_chars 30 {over}"},
                "patterns": {"score": 100.0, "comment": "3/3 checks passed"},
                "json_schema": {"score": 0.0, "comment": not_json},
                "reference_similarity": {
                    "score": 20.0,
                    "comment": "token F1 0.200: 1 tokens in common; precision 0.143 (1/7 of the "
                    "submission's), recall 0.333 (1/3 of the reference's)",
                },
            },
        ),
    ]
    # round 2 prompts carry round 1's details (スコア詳細), but never the answer key
    assert {round_number for _, round_number in world.team_prompts} == {1, 2}
    assert all("スコア詳細" in p for (_, r), p in world.team_prompts.items() if r == 2)
    assert not [key for key, prompt in world.team_prompts.items() if SECRET in prompt]
    assert not [prompt for prompt in world.judgment_prompts if SECRET in prompt]
    assert SECRET not in "".join(str(r) for r in rows(db, "SELECT message_history FROM round_history"))


def test_reference_file_is_read(tmp_path: Path, runner: CliRunner) -> None:
    ws = deterministic_workspace(tmp_path / "ws")
    answer = tmp_path / "answer.txt"
    answer.write_text(REFERENCE + "\n", encoding="utf-8")
    code, _, stderr = invoke(runner, World(), "exec", "p", "-w", str(ws), "--reference-file", str(answer))
    assert code == 0, stderr
    assert rows(ws / "mixseek.db", "SELECT reference FROM executions") == [(REFERENCE + "\n",)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--reference", "x", "--reference-file", "y"],
            "error: --reference: give it as --reference TEXT or --reference-file PATH, not both",
        ),
        (
            ["--reference-file", "{tmp}/missing.txt"],
            "error: --reference-file: {tmp}/missing.txt: file not found",
        ),
        (["--reference", "  "], "error: --reference: must not be empty"),
        (
            [],
            "error: --reference: metric 'reference_similarity' compares submissions with a reference "
            "answer; give one with --reference TEXT or --reference-file PATH",
        ),
    ],
)
def test_bad_or_missing_reference_is_one_line_and_starts_nothing(
    tmp_path: Path, runner: CliRunner, args: list[str], message: str
) -> None:
    ws = deterministic_workspace(tmp_path / "ws")
    world = World()
    given = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code, _, stderr = invoke(runner, world, "exec", "p", "-w", str(ws), *given)
    assert (code, stderr.strip()) == (2, message.replace("{tmp}", str(tmp_path)))
    assert world.calls == 0
    db = ws / "mixseek.db"
    assert not db.exists() or rows(db, "SELECT count(*) FROM executions") == [(0,)]


def test_reference_is_refused_with_resume(tmp_path: Path, runner: CliRunner) -> None:
    ws = deterministic_workspace(tmp_path / "ws")
    code, _, stderr = invoke(runner, World(), "exec", "--resume", "x", "-w", str(ws), "--reference", "r")
    assert (code, stderr.strip()) == (
        2,
        "error: --reference: not allowed with --resume (the execution keeps its reference)",
    )


@pytest.mark.parametrize(
    ("metric", "key_and_reason"),
    [
        (
            'name = "patterns"\nrequired_patterns = ["ok", "("]',
            "evaluator.metrics[0].required_patterns: '(' is not a valid regular expression: "
            "missing ), unterminated subpattern at position 0",
        ),
        (
            'name = "patterns"\nforbidden_patterns = ["[a-"]',
            "evaluator.metrics[0].forbidden_patterns: '[a-' is not a valid regular expression: "
            "unterminated character set at position 0",
        ),
        (
            'name = "patterns"\nrequired_patterns = []',
            "evaluator.metrics[0]: metric 'patterns' needs at least one pattern",
        ),
        (
            'name = "coverage"\nmin_chars = 3',
            "evaluator.metrics[0]: min_chars: only metric 'length' takes it, not 'coverage'",
        ),
        (
            'name = "length"\nmax_chars = 9\nmodel = "openai:gpt-4o"',
            "evaluator.metrics[0]: model: metric 'length' calls no model",
        ),
        ('name = "length"', "evaluator.metrics[0]: metric 'length' needs min_chars or max_chars"),
        (
            'name = "length"\nmin_chars = 9\nmax_chars = 3',
            "evaluator.metrics[0]: min_chars (9) is greater than max_chars (3)",
        ),
        (
            'name = "json_schema"\njson_schema = "schemas/none.json"',
            "evaluator.metrics[0].json_schema: {configs}/schemas/none.json: file not found",
        ),
        (
            'name = "json_schema"\njson_schema = { type = "nope" }',
            "evaluator.metrics[0].json_schema: not a valid JSON Schema: at $.type: 'nope' is not valid "
            "under any of the given schemas",
        ),
    ],
)
@pytest.mark.parametrize("command", ["validate", "exec"])
def test_bad_metric_config_is_one_line_naming_file_and_key(
    tmp_path: Path, runner: CliRunner, metric: str, key_and_reason: str, command: str
) -> None:
    ws = deterministic_workspace(tmp_path / "ws", f"[evaluator]\n[[evaluator.metrics]]\n{metric}\n")
    args = ["config", "validate", "-w", str(ws)] if command == "validate" else ["exec", "p", "-w", str(ws)]
    world = World()
    code, _, stderr = invoke(runner, world, *args)
    configs = ws / "configs"
    expected = f"error: {configs}/evaluator.toml: {key_and_reason.replace('{configs}', str(configs))}"
    assert code == 2
    assert stderr.splitlines()[0] == expected
    assert [line for line in stderr.splitlines() if line.startswith("error:")] == [expected]
    assert world.calls == 0


def test_evaluate_scores_with_deterministic_metrics_and_a_reference(
    tmp_path: Path, runner: CliRunner
) -> None:
    ws = deterministic_workspace(tmp_path / "ws")
    args = ["evaluate", "p", '{"answer": 1} member answer v1', "-w", str(ws), "-f", "json"]
    code, _, stderr = invoke(runner, World(), *args)
    assert (code, stderr.strip()) == (
        2,
        "error: --reference: metric 'reference_similarity' compares the submission with a reference answer",
    )
    code, stdout, stderr = invoke(runner, World(), *args, "--reference", "answer v1")
    assert code == 0, stderr
    result = json.loads(stdout)
    assert {m["name"]: (round(m["score"], 4), m["comment"]) for m in result["metrics"]} == {
        "length": (100.0, "30 characters: within min_chars 20 and max_chars 30"),
        "patterns": (100.0, "3/3 checks passed"),
        "json_schema": (0.0, "not JSON (Extra data: line 1 column 15 (char 14)) and no ```json block"),
        "reference_similarity": (
            57.1429,
            "token F1 0.571: 2 tokens in common; precision 0.400 (2/5 of the submission's), "
            "recall 1.000 (2/2 of the reference's)",
        ),
    }
    assert result["usage"]["requests"] == 0
