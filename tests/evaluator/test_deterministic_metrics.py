"""Deterministic metrics: exact scores and comments, no model call, weights like the others."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mixseek.config.evaluator import EvaluatorSettings
from mixseek.evaluator.evaluator import EvaluationError, Evaluator
from mixseek.evaluator.metrics import Metric, MetricOutcome
from mixseek.llm import override_models


def render(user_prompt: str, submission: str) -> str:
    return f"TASK={user_prompt}\nSUBMISSION={submission}"


def evaluator(*metrics: dict[str, Any], base_dir: Path | None = None) -> Evaluator:
    # no model is registered: a deterministic metric that called one would fail the test
    settings = EvaluatorSettings(model="script:none", metrics=list(metrics))  # type: ignore[arg-type]
    return Evaluator(settings, render, base_dir=base_dir)


async def scored(metric: dict[str, Any], submission: str, **kwargs: Any) -> tuple[float, str]:
    with override_models({}):
        result = await evaluator(metric, base_dir=kwargs.pop("base_dir", None)).evaluate(
            "task", submission, **kwargs
        )
    (only,) = result.metrics
    assert (only.usage.requests, only.usage.input_tokens) == (0, 0)
    return only.score, only.comment


LENGTH = {"name": "length", "min_chars": 10, "max_chars": 20}


@pytest.mark.parametrize(
    ("submission", "score", "comment"),
    [
        ("  " + "a" * 15 + "\n", 100.0, "15 characters: within min_chars 10 and max_chars 20"),
        ("a" * 10, 100.0, "10 characters: within min_chars 10 and max_chars 20"),
        (
            "a" * 4,
            40.0,
            "4 characters: 6 short of min_chars 10 (the score falls linearly to 0 at 0 characters)",
        ),
        (
            "日本語" * 9,  # 27 characters, not 81 bytes
            65.0,
            "27 characters: 7 over max_chars 20 (the score falls linearly to 0 at 40 characters)",
        ),
        (
            "a" * 55,
            0.0,
            "55 characters: 35 over max_chars 20 (the score falls linearly to 0 at 40 characters)",
        ),
    ],
)
async def test_length_scores_linearly_outside_the_bounds(submission: str, score: float, comment: str) -> None:
    assert await scored(LENGTH, submission) == (pytest.approx(score), comment)


async def test_length_with_one_bound() -> None:
    assert await scored({"name": "length", "min_chars": 3}, "abcd") == (
        100.0,
        "4 characters: at least min_chars 3",
    )
    assert await scored({"name": "length", "max_chars": 3}, "ab") == (
        100.0,
        "2 characters: at most max_chars 3",
    )


PATTERNS = {
    "name": "patterns",
    "required_patterns": ["^# ", "(?i)conclusion"],
    "forbidden_patterns": ["TODO", r"\bfoo\b"],
}


async def test_patterns_score_is_the_share_of_checks_passed() -> None:
    assert await scored(PATTERNS, "# Title\nConclusion: done") == (100.0, "4/4 checks passed")
    assert await scored(PATTERNS, "# Title\nCONCLUSION: foo, TODO later") == (
        50.0,
        "2/4 checks passed; forbidden /TODO/ found: 'TODO'; forbidden /\\bfoo\\b/ found: 'foo'",
    )
    score, comment = await scored(PATTERNS, "no heading, food")
    assert (score, comment) == (
        pytest.approx(50.0),
        "2/4 checks passed; required /^# / not found; required /(?i)conclusion/ not found",
    )


SCHEMA = {
    "type": "object",
    "required": ["answer"],
    "properties": {"answer": {"type": "integer"}, "why": {"type": "string"}},
}


async def test_json_schema_reads_the_submission_or_its_first_json_block() -> None:
    metric = {"name": "json_schema", "json_schema": SCHEMA}
    assert await scored(metric, '{"answer": 42}') == (100.0, "JSON in the submission matches the schema")
    assert await scored(metric, 'Here it is:\n```json\n{"answer": 7, "why": "sum"}\n```\nbye') == (
        100.0,
        "JSON in its first ```json block matches the schema",
    )
    assert await scored(metric, '```JSON\n{"answer": "x", "why": 3}\n```') == (
        0.0,
        "JSON in its first ```json block does not match the schema: at $.answer: 'x' is not of type "
        "'integer' (and 1 more)",
    )
    assert await scored(metric, "[1, 2]") == (
        0.0,
        "JSON in the submission does not match the schema: at $: [1, 2] is not of type 'object'",
    )
    assert await scored(metric, "forty-two") == (
        0.0,
        "not JSON (Expecting value: line 1 column 1 (char 0)) and no ```json block",
    )
    assert await scored(metric, "```json\n{answer: 1}\n```") == (
        0.0,
        "the first ```json block is not JSON (Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1))",
    )


async def test_json_schema_file_is_relative_to_the_evaluator_file(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "answer.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    metric = {"name": "json_schema", "json_schema": "schemas/answer.json"}
    assert await scored(metric, '{"why": "?"}', base_dir=tmp_path) == (
        0.0,
        "JSON in the submission does not match the schema: at $: 'answer' is a required property",
    )


async def test_reference_similarity_is_token_f1() -> None:
    metric = {"name": "reference_similarity"}
    # the, cat, on, the, mat in common: precision = recall = 5/6
    score, comment = await scored(metric, "The cat sat on the mat.", reference="the cat is on the MAT")
    assert score == pytest.approx(100 * 5 / 6)
    assert comment == (
        "token F1 0.833: 5 tokens in common; precision 0.833 (5/6 of the submission's), "
        "recall 0.833 (5/6 of the reference's)"
    )
    # Japanese: one token per kana or kanji; all 8 of the reference's in the submission's 10
    score, comment = await scored(metric, "東京は日本の首都です", reference="日本の首都は東京")
    assert score == pytest.approx(100 * 2 * 0.8 / 1.8)
    assert comment == (
        "token F1 0.889: 8 tokens in common; precision 0.800 (8/10 of the submission's), "
        "recall 1.000 (8/8 of the reference's)"
    )
    # full-width letters and digits are normalised (NFKC) before comparing
    assert await scored(metric, "ＡＢＣ　１２３", reference="abc 123") == (
        100.0,
        "token F1 1.000: 2 tokens in common; precision 1.000 (2/2 of the submission's), "
        "recall 1.000 (2/2 of the reference's)",
    )
    assert await scored(metric, "nothing alike", reference="other words") == (
        0.0,
        "token F1 0.000: no token of the reference's 2 in the submission",
    )


async def test_reference_similarity_without_a_reference_fails_the_evaluation() -> None:
    with override_models({}), pytest.raises(EvaluationError, match="no reference answer to compare with"):
        await evaluator({"name": "reference_similarity"}).evaluate("task", "answer")


class Shouting(Metric):
    """A custom metric written before references existed: three arguments, no `reference`."""

    async def score(self, user_prompt: str, submission: str, evaluator_prompt: str) -> MetricOutcome:
        return MetricOutcome(score=100.0 if submission.isupper() else 0.0, comment="upper?")


async def test_weights_combine_deterministic_and_custom_metrics_and_only_reference_metrics_see_it() -> None:
    settings = EvaluatorSettings(
        model="script:none",
        metrics=[  # type: ignore[list-item]
            {"name": "length", "max_chars": 4, "weight": 1},
            {"name": "reference_similarity", "weight": 2},
            {"name": "shouting", "class_path": f"{__name__}:Shouting", "weight": 1},
        ],
    )
    with override_models({}):
        ev = Evaluator(settings, render)
        assert ev.reference_metrics == ["reference_similarity"]
        result = await ev.evaluate("task", "YES NO", reference="YES")
    # length: 6 chars, 2 over 4 → 50; similarity: F1 of 1/2 and 1/1 → 2/3; shouting: 100
    assert [(m.name, round(m.score, 4)) for m in result.metrics] == [
        ("length", 50.0),
        ("reference_similarity", 66.6667),
        ("shouting", 100.0),
    ]
    assert result.score == pytest.approx((50 + 2 * 200 / 3 + 100) / 4, abs=1e-4)
    assert result.usage.requests == 0
