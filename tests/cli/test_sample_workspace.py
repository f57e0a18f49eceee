"""`mixseek init`: the sample's checkable verdict and its two languages."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mixseek.config.evaluator import EvaluatorSettings
from mixseek.config.prompt_builder import PromptBuilderSettings
from mixseek.evaluator.metrics.length import LengthMetric
from mixseek.evaluator.metrics.patterns import PatternsMetric
from mixseek.prompt_builder.formatters import (
    format_ranking_table,
    format_submission_history,
    generate_position_message,
)
from mixseek.round_state import RoundState


def mixseek(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mixseek.cli", *args], capture_output=True, text=True, timeout=120
    )


def sample(tmp_path: Path, language: str) -> Path:
    ws = tmp_path / language
    result = mixseek("init", "-w", str(ws), "--language", language)
    assert result.returncode == 0, result.stderr
    assert f"(model: local:smollm2, language: {language})" in result.stdout
    assert mixseek("config", "validate", "-w", str(ws)).returncode == 0
    return ws


def evaluator(ws: Path) -> EvaluatorSettings:
    data = tomllib.loads((ws / "configs" / "evaluator.toml").read_text(encoding="utf-8"))
    return EvaluatorSettings.model_validate(data["evaluator"])


async def checks(settings: EvaluatorSettings, submission: str) -> list[tuple[str, float, str]]:
    """The exact metrics' scores and comments for `submission`."""
    results = []
    for config in settings.metrics:
        if config.name in ("patterns", "length"):
            metric = (PatternsMetric if config.name == "patterns" else LengthMetric)(config, settings)
            outcome = await metric.score("", submission, "")
            results.append((config.name, round(outcome.score, 2), outcome.comment))
    return results


async def test_the_japanese_sample_scores_different_answers_differently_for_checkable_reasons(
    tmp_path: Path,
) -> None:
    ws = sample(tmp_path, "ja")
    assert (ws / "prompt.txt").read_text(encoding="utf-8") == "日本の少子化対策を3つ提案してください\n"
    settings = evaluator(ws)
    assert [(m.name, m.weight) for m in settings.metrics] == [
        ("patterns", 0.4),
        ("length", 0.2),
        ("coverage", 0.2),
        ("relevance", 0.2),
    ]
    good = (
        "1. 保育所を増やし、待機児童をなくす。0〜2歳児の保育を無償化し、"
        "保育士の給与を上げて人手を確保する。\n"
        "2. 子育て世帯への児童手当を増やし、大学までの教育費の負担を軽くする。出産費用も全額を支援する。\n"
        "3. 男性の育児休業を広げ、長時間労働を減らす。在宅勤務や短時間勤務を選べるようにし、"
        "子育てと仕事を両立できる働き方にする。若い世代が結婚や出産を先送りしなくてよい社会をつくる。"
    )
    assert await checks(settings, good) == [
        ("patterns", 100.0, "8/8 checks passed"),
        ("length", 100.0, f"{len(good)} characters: within min_chars 150 and max_chars 600"),
    ]
    echo = "あなたは分析チームのリーダーです。"
    assert await checks(settings, echo) == [
        (
            "patterns",
            12.5,
            "1/8 checks passed; missing: 「1.」で始まる1つ目の提案; missing: 「2.」で始まる2つ目の提案; "
            "missing: 「3.」で始まる3つ目の提案; missing: 少子化・子育てに関する語; "
            "missing: 保育・育児の施策; "
            "missing: お金の支援（給付・手当・無償化など）; missing: 働き方の施策（育休・労働時間など）",
        ),
        (
            "length",
            11.33,
            "17 characters: 133 short of min_chars 150 (the score falls linearly to 0 at 0 characters)",
        ),
    ]
    four = good + "\n4. 結婚を支援する。"
    assert (await checks(settings, four))[0] == (
        "patterns",
        87.5,
        "7/8 checks passed; present: 4つ目の提案（求められているのは3つ） ('\\n4.')",
    )


async def test_the_english_sample_is_english_throughout(tmp_path: Path) -> None:
    ws = sample(tmp_path, "en")
    assert (ws / "prompt.txt").read_text(encoding="utf-8") == (
        "Propose three measures against Japan's declining birth rate\n"
    )
    builder = tomllib.loads((ws / "configs" / "prompt_builder.toml").read_text(encoding="utf-8"))
    settings = PromptBuilderSettings.model_validate(builder["prompt_builder"])
    assert settings.language == "en"
    # the seed format's structure, in English
    assert "# Task from the user\n{{ user_prompt }}" in settings.team_user_prompt
    assert "{% if round_number > 1 %}\n# Your past submissions\n{{ submission_history }}" in (
        settings.team_user_prompt
    )
    for path in (ws / "configs").rglob("*.toml"):
        text = path.read_text(encoding="utf-8")
        assert not any("\u3040" <= char <= "\u30ff" for char in text), path
    answer = (
        "1. Free nurseries and daycare for every child under six, so that parents can go back to work.\n"
        "2. A monthly child allowance and lower taxes for families with children.\n"
        "3. Paid parental leave for fathers, too, and shorter working hours."
    )
    assert await checks(evaluator(ws), answer) == [
        ("patterns", 100.0, "8/8 checks passed"),
        (
            "length",
            round(100 * len(answer) / 500, 2),
            f"{len(answer)} characters: {500 - len(answer)} short of min_chars 500 "
            "(the score falls linearly to 0 at 0 characters)",
        ),
    ]


def test_english_history_and_ranking_texts_keep_the_seed_structure() -> None:
    state = RoundState(
        round_number=1,
        submission_content="1. a\n2. b",
        evaluation_score=42.5,
        score_details={"patterns": {"score": 60.0, "comment": "missing: a third proposal"}},
        round_started_at=datetime(2026, 1, 1, tzinfo=UTC),
        round_ended_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    assert format_submission_history([state], language="en") == (
        "## Round 1\nScore: 42.50/100\nScore details:\n{\n"
        '  "patterns": {\n    "score": 60.0,\n    "comment": "missing: a third proposal"\n  }\n}\n'
        "Your submission: 1. a\n2. b"
    )
    assert format_submission_history([], language="en") == "No submissions yet."
    ranking = [
        {"team_id": "a", "team_name": "A", "max_score": 80.0, "total_rounds": 2},
        {"team_id": "b", "team_name": "B", "max_score": 42.5, "total_rounds": 1},
    ]
    assert format_ranking_table(ranking, "b", "B", language="en") == (
        "#1 A - score: 80.00/100 (rounds: 2)\n**#2 B (your team) - score: 42.50/100 (rounds: 1)**"
    )
    assert generate_position_message(2, 2, language="en") == "You are #2 of 2 teams. Great work!"
    assert generate_position_message(1, 2) == "🏆 現在、あなたのチームは1位です！この調子で頑張ってください。"


@pytest.mark.parametrize("command", [("init",), ("config", "init")])
def test_an_unknown_language_is_one_line_and_exit_2(tmp_path: Path, command: tuple[str, ...]) -> None:
    result = mixseek(*command, "-w", str(tmp_path / "ws"), "--language", "de")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: --language: unknown language 'de' (choose from ja, en)"
    assert not (tmp_path / "ws" / "configs").exists()
